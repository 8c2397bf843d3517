"""Large-star / small-star components equal the local union-find (the oracle)."""

import numpy as np
import pytest

from neardup.cluster import connected_roots

pytestmark = pytest.mark.spark


def _spark_roots(spark, n, left, right, parts=3, *, one_task=False):
    from neardup.spark.components import connected_components

    sc = spark.sparkContext
    chunks = np.array_split(np.arange(len(left)), parts)
    batches = [{"a": left[c].astype(np.int64), "b": right[c].astype(np.int64)} for c in chunks]
    count = len(left) if one_task else None  # small enough: the union-find on one executor
    result = connected_components(sc.parallelize(batches, parts), partitions=4, edge_count=count)
    roots = np.arange(n)
    for b in result.collect():
        roots[b["child"]] = b["root"]
    return roots


def _graphs():
    rng = np.random.default_rng(3)
    n = 400
    chain = np.arange(n - 1)
    yield "chain", n, chain, chain + 1
    yield "reversed chain", n, chain[::-1] + 1, chain[::-1]
    yield "star", n, np.full(n - 1, 200), np.r_[0:200, 201:400]
    left = rng.integers(0, n, 300)
    right = rng.integers(0, n, 300)
    yield "random sparse", n, left, right
    left = rng.integers(0, n, 1500)
    yield "random dense", n, left, rng.integers(0, n, 1500)
    blocks = np.arange(0, n - 1)
    keep = blocks % 10 != 9  # 40 separate chains of 10
    yield "many chains", n, blocks[keep], blocks[keep] + 1


@pytest.mark.parametrize("one_task", [False, True], ids=["iterated", "one task"])
@pytest.mark.parametrize("graph", list(_graphs()), ids=lambda g: g[0])
def test_components_equal_union_find(spark, graph, one_task):
    _, n, left, right = graph
    expected = connected_roots(n, left, right)
    got = _spark_roots(spark, n, left, right, one_task=one_task)
    np.testing.assert_array_equal(got, expected)
