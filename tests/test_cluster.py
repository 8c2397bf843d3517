import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference
from neardup.cluster import (
    cluster_pairs,
    clusters_from_representatives,
    connected_roots,
    greedy_representatives,
    processing_order,
)
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


def _unit_case(draw_n, units, pairs):
    """Expand a compact unit description into every pair (the oracle's input)."""
    n = draw_n
    unit = [min(u, i) for i, u in enumerate(units)]  # each document's unit: an earlier position
    unit = [unit[u] if unit[u] != u else u for u in unit]
    unit = [u if unit[u] == u else i for i, u in enumerate(unit)]
    firsts = sorted(set(unit))
    scores: dict[tuple[int, int], float] = {}
    for a, b in itertools.combinations(range(n), 2):
        if unit[a] == unit[b]:
            scores[(a, b)] = 1.0
    compact = {}
    for a, b, s in pairs:
        ua, ub = firsts[a % len(firsts)], firsts[b % len(firsts)]
        if ua == ub:
            continue
        compact[(min(ua, ub), max(ua, ub))] = s
    for (ua, ub), s in compact.items():
        for x in range(n):
            for y in range(n):
                if unit[x] == ua and unit[y] == ub:
                    scores[(min(x, y), max(x, y))] = s
    return unit, compact, scores


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 14).flatmap(
        lambda n: st.tuples(
            st.just(n),
            st.lists(st.integers(0, n - 1), min_size=n, max_size=n),
            st.lists(
                st.tuples(st.integers(0, 20), st.integers(0, 20), st.sampled_from([0.5, 0.7, 0.9])),
                max_size=30,
            ),
            st.lists(st.integers(1, 5), min_size=n, max_size=n),
            st.sampled_from(["first", "longest"]),
        )
    )
)
def test_greedy_equals_reference(case):
    n, units, pairs, lengths, keep = case
    unit, compact, scores = _unit_case(n, units, pairs)
    order = processing_order(n, keep=keep, lengths=np.array(lengths))
    expected = reference.greedy(n, scores, order.tolist())
    left = np.array([a for a, _ in compact], np.int64)
    right = np.array([b for _, b in compact], np.int64)
    close = np.array(list(compact.values()), np.float64)
    rep, via = greedy_representatives(n, left, right, close, unit=np.array(unit), order=order)
    assert rep.tolist() == expected
    # the linking pair really links the duplicate's unit and its representative's
    for d in range(n):
        if via[d] >= 0:
            assert {unit[d], unit[rep[d]]} == {int(left[via[d]]), int(right[via[d]])}


def test_greedy_does_not_chain():
    rep, _ = greedy_representatives(
        4, np.array([0, 1, 2]), np.array([1, 2, 3]), np.array([0.8, 0.8, 0.8])
    )
    assert rep.tolist() == [0, 0, 2, 2]
    c = clusters_from_representatives(rep)
    assert c.cluster_id.tolist() == [0, 0, 1, 1]
    # best match wins over the earliest
    rep, _ = greedy_representatives(3, np.array([0, 1]), np.array([2, 2]), np.array([0.6, 0.9]))
    assert rep.tolist() == [0, 1, 1]
