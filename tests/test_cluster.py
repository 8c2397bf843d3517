import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference
from neardup.cluster import cluster_pairs, connected_roots
from neardup.errors import ConfigError


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 40).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=60),
        )
    )
)
def test_components_equal_bfs(case):
    n, edges = case
    left = np.array([a for a, _ in edges], np.int64)
    right = np.array([b for _, b in edges], np.int64)
    assert connected_roots(n, left, right).tolist() == reference.components(n, edges)
    # order of the pairs does not matter
    perm = np.random.default_rng(0).permutation(len(edges))
    assert connected_roots(n, right[perm], left[perm]).tolist() == reference.components(n, edges)


def test_long_chain_no_recursion_limit():
    n = 200_000
    left = np.arange(n - 1, 0, -1) - 1
    right = left + 1
    c = cluster_pairs(n, left, right)
    assert c.n_clusters == 1 and (c.representative == 0).all()


def test_ids_and_representatives():
    c = cluster_pairs(6, np.array([4, 2]), np.array([5, 4]))
    assert c.cluster_id.tolist() == [0, 1, 2, 3, 2, 2]
    assert c.representative.tolist() == [0, 1, 2, 3, 2, 2]
    assert c.groups() == [[2, 4, 5]]
    assert c.n_duplicates == 2
    longest = cluster_pairs(
        6, np.array([4, 2]), np.array([5, 4]), keep="longest", lengths=np.array([1, 1, 5, 1, 9, 9])
    )
    assert longest.representative.tolist() == [0, 1, 4, 3, 4, 4]  # tie between 4 and 5 -> first


def test_errors():
    with pytest.raises(ConfigError, match="keep='last'"):
        cluster_pairs(2, np.array([0]), np.array([1]), keep="last")
    with pytest.raises(ConfigError, match="text length of every document"):
        cluster_pairs(2, np.array([0]), np.array([1]), keep="longest")
    with pytest.raises(ValueError, match="positions must lie"):
        cluster_pairs(2, np.array([0]), np.array([2]))
