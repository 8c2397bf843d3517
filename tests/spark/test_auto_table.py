"""Spark's common-gram table (two passes, no shuffle) equals the one-machine fit (local[2])."""

import random

import numpy as np
import pytest

from neardup.methods import create
from neardup.methods.commongrams import CommonGrams
from neardup.methods.prepared import gram_sets

pytestmark = pytest.mark.spark


@pytest.mark.parametrize("partitions", [1, 3, 8])
def test_fit_table_equals_local_fit(spark, partitions):
    from neardup.spark.auto import fit_table

    rng = random.Random(3)
    alphabet = "的一是在不了有和人这中大为上个国我以要他时来用们"
    # grams spread evenly over partitions, near the threshold: held by min_df and min_df + 1 texts
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randrange(3, 12))) for _ in range(400)]
    texts += [f"甲乙丙{i}" for i in range(5)] + [f"丁戊己{i}" for i in range(4)]
    rng.shuffle(texts)
    method = create("auto", common_min_df=4, common_share=0.001)
    batches = [
        {"pos": np.arange(i, len(texts), 7), "norm": np.array(texts[i::7], dtype=object)}
        for i in range(7)
    ]
    reps = spark.sparkContext.parallelize(batches, partitions)
    table = fit_table(reps, method, len(texts))
    local = CommonGrams.fit(*gram_sets(texts, 3), method.config)
    assert table.min_df == local.min_df == 4
    assert np.array_equal(table.values, local.values) and len(local.values) > 0
    held = dict(zip(*np.unique(gram_sets(texts, 3)[0], return_counts=True), strict=True))
    jia, ding = gram_sets(["甲乙丙"], 3)[0][0], gram_sets(["丁戊己"], 3)[0][0]
    assert held[jia] == 5 and jia in table.values  # 5 > min_df: common
    assert held[ding] == 4 and ding not in table.values  # 4 = min_df: rare
