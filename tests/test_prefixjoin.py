"""The prefix join against brute force: every pair of rows holding the asked share of their
elements (bags: repeats counted) is among its pairs; and the copy rule's token bound it is
given for the short-text rule."""

from __future__ import annotations

from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.copyrule import CopyRule, least_share, strict_least
from neardup.prefixjoin import Side, prefix_join, run_pairs

rows = st.lists(st.lists(st.integers(0, 9), max_size=7), max_size=6)  # a document's rows
documents = st.lists(rows, min_size=1, max_size=3)


def _side(docs: list[list[list[int]]]) -> tuple[Side, list[list[int]], list[int]]:
    bags = [sorted(r) for d in docs for r in d]
    doc = [k for k, d in enumerate(docs) for _ in d]
    offsets = np.zeros(len(bags) + 1, np.int64)
    np.cumsum([len(b) for b in bags], out=offsets[1:])
    values = np.array([v * 0x9E3779B1 for b in bags for v in b], np.uint64)
    return Side((values, offsets), np.array(doc, np.int64)), bags, doc


@settings(max_examples=300, deadline=None)
@given(
    documents,
    documents,
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), max_size=5),
    st.sampled_from([0.1, 0.3, 0.5, 0.55, 0.8, 1.0]),
    st.integers(1, 20),
)
def test_the_join_holds_every_pair_that_shares_enough(docs_a, docs_b, pairs, share, size):
    side_a, bags_a, doc_a = _side(docs_a)
    side_b, bags_b, doc_b = _side(docs_b)
    da = np.array([p[0] for p in pairs], np.int64)
    db = np.array([p[1] for p in pairs], np.int64)
    join = prefix_join(side_a, side_b, da, db, share=share)
    got = [t for c in join.chunks(size) for t in zip(*(x.tolist() for x in c), strict=True)]
    assert len(got) == join.pairs
    want = {
        (k, i, j)
        for k, (x, y) in enumerate(pairs)
        for i in range(len(bags_a))
        for j in range(len(bags_b))
        if doc_a[i] == x
        and doc_b[j] == y
        and sum((Counter(bags_a[i]) & Counter(bags_b[j])).values())
        >= max(1, int(np.ceil(share * max(len(bags_a[i]), len(bags_b[j])) - 1e-9)))
    }
    assert want <= set(got)
    for k, i, j in got:  # and no pair of rows of other documents, none sharing nothing
        assert doc_a[i] == pairs[k][0] and doc_b[j] == pairs[k][1]
        assert set(bags_a[i]) & set(bags_b[j])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9)), max_size=8), st.integers(1, 30))
def test_run_pairs_is_the_cross_product_of_each_group_in_order(groups, size):
    lo_a = np.arange(len(groups)) * 3
    lo_b = np.arange(len(groups)) * 5
    n_a = np.array([g[0] for g in groups], np.int64)
    n_b = np.array([g[1] for g in groups], np.int64)
    got = [t for c in run_pairs(lo_a, n_a, lo_b, n_b, size) for t in zip(*c, strict=True)]
    want = [
        (g, int(lo_a[g] + i), int(lo_b[g] + j))
        for g in range(len(groups))
        for i in range(n_a[g])
        for j in range(n_b[g])
    ]
    assert [tuple(map(int, t)) for t in got] == want


@settings(max_examples=50, deadline=None)
@given(
    st.floats(0.05, 1.0),
    st.floats(0.05, 1.0),
    st.floats(0.05, 1.0),
    st.floats(0.05, 1.0),
    st.integers(0, 40),
    st.integers(0, 20),
)
def test_least_share_bounds_what_the_short_text_rule_asks(sim, cont, cov, heard, short, least):
    """No pair under the short-text rule is a copy with fewer tokens in common than
    ``least_share`` of the longer's: the bound the paragraph veto's join is made with."""
    rule = CopyRule(
        short_tokens=short,
        short_similarity=sim,
        short_containment=cont,
        coverage=cov,
        heard_similarity=heard,
        min_contained_tokens=least,
    )
    s, n = np.meshgrid(np.arange(1, 256), np.arange(1, 256), indexing="ij")
    s, n = s[s <= n], n[s <= n]
    bound = np.maximum(np.ceil(least_share(rule) * n - 1e-6), 1)
    assert (strict_least(s, n, rule) >= bound).all()
