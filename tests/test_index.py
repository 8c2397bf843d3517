import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference
from neardup.errors import ConfigError
from neardup.index.brute import BruteForceIndex, brute_force_pairs
from neardup.index.layout import block_masks, choose_blocks, make_layout
from neardup.index.permuted import PermutedIndex, hamming_edges, hamming_pairs

U64 = st.integers(0, 2**64 - 1)


@st.composite
def clustered_fingerprints(draw):
    """Fingerprints with planted near-duplicates at distances up to k+2 and exact copies."""
    k = draw(st.integers(0, 6))
    bases = draw(st.lists(U64, min_size=1, max_size=12))
    fps = []
    for _ in range(draw(st.integers(2, 60))):
        fp = draw(st.sampled_from(bases))
        for bit in draw(st.lists(st.integers(0, 63), max_size=k + 2)):
            fp ^= 1 << bit
        fps.append(fp)
    blocks = draw(st.one_of(st.none(), st.integers(k + 1, k + 4)))
    return k, blocks, fps


@settings(max_examples=150, deadline=None)
@given(clustered_fingerprints())
def test_pairs_equal_brute_force(case):
    k, blocks, fps = case
    arr = np.array(fps, dtype=np.uint64)
    left, right, dist = hamming_pairs(arr, max_distance=k, blocks=blocks)
    got = list(zip(left.tolist(), right.tolist(), dist.tolist(), strict=True))
    assert got == reference.brute_pairs(fps, k)
    bl, br, bd = brute_force_pairs(arr, max_distance=k)
    assert got == list(zip(bl.tolist(), br.tolist(), bd.tolist(), strict=True))


@settings(max_examples=100, deadline=None)
@given(clustered_fingerprints())
def test_edges_give_same_components(case):
    k, blocks, fps = case
    left, right, dist = hamming_edges(np.array(fps, dtype=np.uint64), max_distance=k, blocks=blocks)
    assert all(d <= k for d in dist.tolist())
    assert all(
        reference.hamming(fps[a], fps[b]) == d
        for a, b, d in zip(left.tolist(), right.tolist(), dist.tolist(), strict=True)
    )
    pairs = [(a, b) for a, b, _ in reference.brute_pairs(fps, k)]
    edges = list(zip(left.tolist(), right.tolist(), strict=True))
    assert reference.components(len(fps), edges) == reference.components(len(fps), pairs)


def test_pairs_at_exactly_k_and_identical_fingerprints_by_id():
    base = 0x0123456789ABCDEF
    fps = np.array([base, base ^ 0b111, base ^ 0b1111, base, base], dtype=np.uint64)
    left, right, dist = hamming_pairs(fps, max_distance=3)
    got = set(zip(left.tolist(), right.tolist(), dist.tolist(), strict=True))
    assert (0, 1, 3) in got  # exactly k
    assert (0, 2, 4) not in got and (1, 2, 1) in got
    assert {(0, 3, 0), (0, 4, 0), (3, 4, 0)} <= got  # identical fingerprints, every document
    index = PermutedIndex(max_distance=3)
    index.add_many(["a", "b", "c", "d", "e"], fps)
    assert index.query(base) == [("a", 0), ("d", 0), ("e", 0), ("b", 3)]


@settings(max_examples=60, deadline=None)
@given(clustered_fingerprints(), st.lists(st.integers(0, 59), max_size=10), st.integers(1, 9))
def test_online_index_equals_brute_force(case, removals, tail):
    k, blocks, fps = case
    index = PermutedIndex(max_distance=k, blocks=blocks)
    index.TAIL = tail  # force many segments and merges
    oracle = BruteForceIndex(max_distance=k)
    for i, fp in enumerate(fps):
        index.add(f"d{i}", fp)
        oracle.add(f"d{i}", fp)
    for r in removals:
        assert index.remove(f"d{r}") == oracle.remove(f"d{r}")
    index.add_many(["late1", "late2"], [fps[0], fps[-1]])
    oracle.add_many(["late1", "late2"], [fps[0], fps[-1]])
    assert len(index) == len(oracle)
    for q in fps[:15]:
        assert index.query(q) == oracle.query(q)
    assert sorted(map(sorted_pair, index.pairs())) == sorted(map(sorted_pair, oracle.pairs()))


def sorted_pair(p):
    a, b, d = p
    return (min(str(a), str(b)), max(str(a), str(b)), d)


def test_layout_uses_combinations():
    layout = make_layout(max_distance=3, blocks=6)
    assert layout.tables == math.comb(6, 3) == 20
    masks = block_masks(6)
    assert sum(m.bit_count() for m in masks) == 64
    assert all(bin(m).count("1") >= 64 // 6 * 3 for m in layout.masks)
    # every pair within 3 shares a key in some table: pigeonhole over blocks
    for m in layout.masks:
        assert sum(1 for bm in masks if bm & m) == 3


def test_layout_errors_and_auto():
    with pytest.raises(ConfigError, match="blocks=3 must be greater than max_distance=3"):
        PermutedIndex(max_distance=3, blocks=3)
    with pytest.raises(ConfigError, match="max_distance=40 is out of range"):
        PermutedIndex(max_distance=40)
    assert choose_blocks(1_000_000, 3) >= 4
    assert choose_blocks(10_000_000, 3) >= choose_blocks(1_000, 3)


def test_duplicate_id_rejected():
    index = PermutedIndex()
    index.add("x", 1)
    with pytest.raises(ValueError, match="already in the index"):
        index.add("x", 2)
    assert index.remove("x") and not index.remove("x")
    index.add("x", 2)
    assert index.fingerprint_of("x") == 2


def test_fingerprints_that_are_not_uint64_are_a_clear_error():
    """Floats were cast to integers (0.1, 0.2 and 0.9 one fingerprint, paired at distance 0), a
    2-D array failed deep inside, a str or a number out of range raised a bare error: each is
    an InputError now; Python ints up to 2**64 - 1 in a list are taken as they are."""
    from neardup.errors import InputError

    bad = [np.array([0.1, 0.2, 0.9]), [0.1, 0.2], np.zeros((2, 2), np.uint64), [-1, 2]]
    bad += ["abc", [1, 2**64], np.array([1, None])]
    for fingerprints in bad:
        for pairs in (hamming_pairs, hamming_edges):
            with pytest.raises(InputError, match="fingerprint"):
                pairs(fingerprints, max_distance=0)
    top = 2**64 - 1
    left, right, dist = hamming_pairs([top, top, 5], max_distance=0)
    assert (left.tolist(), right.tolist(), dist.tolist()) == ([0], [1], [0])
    assert len(hamming_pairs([], max_distance=3)[0]) == 0
    signed = np.array([-1, -2, 5, 7], np.int64)  # a signed BIGINT column: the same 64 bits
    got = hamming_pairs(signed, max_distance=1)
    want = hamming_pairs(signed.view(np.uint64), max_distance=1)
    assert all(np.array_equal(g, w) for g, w in zip(got, want, strict=True)) and len(got[0]) == 2
    index = PermutedIndex(max_distance=3)
    index.add("a", 5)
    for fingerprint in ("abc", -1, 2**64, 1.5, True):
        with pytest.raises(InputError, match="a fingerprint is an integer"):
            index.query(fingerprint)
    assert index.query(np.uint64(5)) == [("a", 0)] and index.query(4) == [("a", 1)]


def test_texts_that_are_not_a_collection_are_a_clear_error():
    from neardup import dedup_texts
    from neardup.errors import InputError
    from neardup.simhash import Fingerprinter

    for texts in (None, 5):
        with pytest.raises(InputError, match="texts must be a sequence of strings"):
            dedup_texts(texts)
    with pytest.raises(InputError, match="not a str"):
        Fingerprinter().fingerprint_many("abc")  # three fingerprints, one per character, before
