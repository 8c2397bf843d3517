"""Token alignment: the longest common subsequence of two token sequences (rapidfuzz), in
stretches between shared anchors past ``ALIGN_CELLS``, and moved passages put back in the other
text's order first (:func:`_put_in_order`)."""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

import numpy as np

from .rule import MOVE_GAIN, MOVE_MIN


def token_alignment(a: Sequence[str], b: Sequence[str]) -> list[tuple[str, int, int, int, int]]:
    """The alignment of two token sequences: opcodes ``(tag, a_start, a_end, b_start, b_end)``,
    adjacent ones of one kind (equal, or not) merged.

    A longest common subsequence (rapidfuzz) wherever its table is small enough: it keeps a bit
    per pair of tokens, so two near-copies of 300,000 Chinese characters took 56 s and 7 GB, and
    of a million failed with ``MemoryError`` (``bench_long_pair.py``). Past ``ALIGN_CELLS`` the
    two are cut at the runs of ``MOVE_MIN`` tokens both hold once (:func:`_anchor_blocks`: the
    longest chain of them in order), and each stretch between two anchors is aligned the same
    way — a near-copy keeps its longest common subsequence; a stretch without any anchor is
    deleted and inserted whole.
    """
    ops: list[tuple[str, int, int, int, int]] = []
    _align_into(ops, a, b, 0, len(a), 0, len(b))
    merged: list[tuple[str, int, int, int, int]] = []
    for op in ops:
        if merged and (merged[-1][0] == "equal") == (op[0] == "equal"):
            tag, a0, _a1, b0, _b1 = merged[-1]
            merged[-1] = (tag if tag == op[0] else "replace", a0, op[2], b0, op[4])
        else:
            merged.append(op)
    return merged


ALIGN_CELLS = 1 << 26  # token pairs a full alignment may hold: 8 MB of rapidfuzz's bit table


def _align_into(
    ops: list[tuple[str, int, int, int, int]],
    a: Sequence[str],
    b: Sequence[str],
    a0: int,
    a1: int,
    b0: int,
    b1: int,
) -> None:
    """Append the alignment of ``a[a0:a1]`` and ``b[b0:b1]`` to ``ops`` (see :func:`token_alignment`)."""
    from rapidfuzz.distance import Indel

    if a1 - a0 == 0 or b1 - b0 == 0:
        if a1 > a0 or b1 > b0:
            ops.append(("delete" if a1 > a0 else "insert", a0, a1, b0, b1))
        return
    part_a, part_b = a[a0:a1], b[b0:b1]
    if (a1 - a0) * (b1 - b0) <= ALIGN_CELLS:
        for tag, s0, s1, d0, d1 in Indel.opcodes(part_a, part_b):
            ops.append((tag, s0 + a0, s1 + a0, d0 + b0, d1 + b0))
        return
    blocks = _anchor_blocks(part_a, part_b)
    if not blocks:
        ops.append(("replace", a0, a1, b0, b1))
        return
    at_a, at_b = a0, b0
    for p, q, n in blocks:
        _align_into(ops, a, b, at_a, a0 + p, at_b, b0 + q)
        ops.append(("equal", a0 + p, a0 + p + n, b0 + q, b0 + q + n))
        at_a, at_b = a0 + p + n, b0 + q + n
    _align_into(ops, a, b, at_a, a1, at_b, b1)


def _anchor_blocks(a: Sequence[str], b: Sequence[str]) -> list[tuple[int, int, int]]:
    """The longest chain (most tokens) of :func:`_shared_blocks` in order in both texts, cut so
    that no two overlap: ``(a_start, b_start, length)``."""
    from bisect import bisect_left

    blocks = _shared_blocks(a, b, MOVE_MIN) or _shared_blocks(a, b, MOVE_MIN, repeats=True)
    if not blocks:
        return []
    # longest increasing subsequence of b_start over blocks ordered by a_start (patience)
    tails: list[int] = []  # b_start of the last block of the best chain of each length
    ends: list[int] = []  # that block's index
    before = [-1] * len(blocks)
    for k, (_p, q, _n) in enumerate(blocks):
        at = bisect_left(tails, q)
        before[k] = ends[at - 1] if at else -1
        if at == len(tails):
            tails.append(q)
            ends.append(k)
        else:
            tails[at], ends[at] = q, k
    chain = []
    k = ends[-1]
    while k >= 0:
        chain.append(blocks[k])
        k = before[k]
    chain.reverse()
    out: list[tuple[int, int, int]] = []
    for p, q, n in chain:
        if out:
            lp, lq, ln = out[-1]
            shift = max(lp + ln - p, lq + ln - q, 0)
            p, q, n = p + shift, q + shift, n - shift
        if n > 0:
            out.append((p, q, n))
    return out


def _shared_blocks(
    a: Sequence[str], b: Sequence[str], k: int, *, repeats: bool = False
) -> list[tuple[int, int, int]]:
    """Maximal runs of tokens the two texts share, ``(a_start, b_start, length)``, found through
    the runs of ``k`` tokens that occur exactly once in each text (so a repeated phrase does not
    pair up with the wrong place), in order of ``a_start``. With ``repeats``, also through the
    runs that occur as often in one text as in the other, the first occurrence in one with the
    first in the other and so on: a text held several times over (a page captured three times
    in one record) has no run that occurs once."""
    if min(len(a), len(b)) < k:
        return []
    if min(len(a), len(b)) >= LONG_BLOCKS:
        return _shared_blocks_long(a, b, k, repeats=repeats)
    return _shared_blocks_short(a, b, k, repeats=repeats)


def _shared_blocks_short(
    a: Sequence[str], b: Sequence[str], k: int, *, repeats: bool = False
) -> list[tuple[int, int, int]]:
    """:func:`_shared_blocks` through a dictionary of token tuples (the arrays' oracle)."""

    def places(seq: Sequence[str]) -> dict[tuple[str, ...], list[int]]:
        seen: dict[tuple[str, ...], list[int]] = {}
        for p in range(len(seq) - k + 1):
            seen.setdefault(tuple(seq[p : p + k]), []).append(p)
        return seen

    in_a, in_b = places(a), places(b)
    hits = sorted(
        pair
        for g, at_a in in_a.items()
        if len(at_a) == len(in_b.get(g, ())) and (repeats or len(at_a) == 1)
        for pair in zip(at_a, in_b[g], strict=True)
    )
    blocks: list[list[int]] = []
    for p, q in hits:
        last = blocks[-1] if blocks else None
        if last and p == last[0] + last[2] - k + 1 and q == last[1] + last[2] - k + 1:
            last[2] += 1  # the next gram on the same diagonal
        else:
            blocks.append([p, q, k])
    return [(p, q, n) for p, q, n in blocks]


# Tokens from which :func:`_shared_blocks` runs on arrays (the same blocks): measured on CCTV
# stories against a copy cut and extended, the dictionary takes 120 / 260 / 560 / 950 µs a pair
# at 80 / 185 / 380 / 640 tokens, the arrays 180 / 240 / 350 / 520 µs.
LONG_BLOCKS = 200


_GRAM_MULT = np.uint64(0x9E3779B97F4A7C15)


def _shared_blocks_long(
    a: Sequence[Any], b: Sequence[Any], k: int, *, repeats: bool = False
) -> list[tuple[int, int, int]]:
    """:func:`_shared_blocks` on arrays: tokens numbered, each run of ``k`` keyed by a
    polynomial hash, the keys occurring once (``repeats``: as often) in each text matched (runs
    whose tokens differ, a hash collision, are dropped) and consecutive matches on one diagonal
    merged — a second a million tokens where the dictionary of token tuples took six, and
    faster from a few hundred (``LONG_BLOCKS``)."""
    ids: dict[Any, int] = {}
    codes = [
        np.fromiter((ids.setdefault(t, len(ids)) for t in seq), np.uint64, len(seq))
        for seq in (a, b)
    ]
    found = []
    for c in codes:
        keys = np.zeros(len(c) - k + 1, np.uint64)
        for j in range(k):
            keys = keys * _GRAM_MULT + c[j : j + len(keys)]
        order = np.argsort(keys, kind="stable")  # by key, each key's places in text order
        ordered = keys[order]
        first = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
        counts = np.diff(np.r_[first, len(ordered)])
        group = np.repeat(np.arange(len(first)), counts)  # each place's key, numbered
        found.append((ordered[first], counts, order, group))
    (va, ca, pa, ga), (vb, cb, pb, gb) = found
    _common, xa, xb = np.intersect1d(va, vb, assume_unique=True, return_indices=True)
    paired = (ca[xa] == cb[xb]) & ((ca[xa] == 1) | repeats)
    use_a, use_b = np.zeros(len(va), np.bool_), np.zeros(len(vb), np.bool_)
    use_a[xa[paired]], use_b[xb[paired]] = True, True
    # the places of the paired keys, in key order then text order in both: one to one
    p, q = pa[use_a[ga]], pb[use_b[gb]]
    order = np.argsort(p, kind="stable")
    p, q = p[order], q[order]
    span = np.arange(k)
    same = (codes[0][p[:, None] + span] == codes[1][q[:, None] + span]).all(axis=1)
    p, q = p[same], q[same]
    if not len(p):
        return []
    starts = np.ones(len(p), np.bool_)
    starts[1:] = (p[1:] != p[:-1] + 1) | (q[1:] != q[:-1] + 1)
    at = np.flatnonzero(starts)
    lengths = np.diff(np.append(at, len(p))) + k - 1
    return list(zip(p[at].tolist(), q[at].tolist(), lengths.tolist(), strict=True))


def _put_in_order(a: Sequence[str], b: Sequence[str]) -> tuple[Sequence[str], list[int] | None]:
    """``b`` with the passages it shares with ``a`` put in ``a``'s order (:func:`_move_order`),
    and that order (None: ``b`` itself, unchanged)."""
    order = _move_order(a, b)
    return (b, None) if order is None else ([b[t] for t in order], order)


def _aligned_in_order(
    a: Sequence[str], b: Sequence[str]
) -> tuple[Sequence[str], list[int] | None, list[tuple[str, int, int, int, int]]]:
    """:func:`_put_in_order` and the alignment of ``a`` with its result (:func:`token_alignment`),
    made once: the alignment of ``a`` and ``b`` gives the distance that decides whether anything
    may have moved, and serves as the result's alignment when nothing did (the common case)."""
    opcodes = token_alignment(a, b)
    order = _move_order(a, b, opcodes)
    if order is None:
        return b, None, opcodes
    ordered = [b[t] for t in order]
    return ordered, order, token_alignment(a, ordered)


def _permuted(mask: list[bool] | None, order: list[int] | None) -> list[bool] | None:
    """A text's token ``mask`` (:class:`Boilerplate`) for its tokens put in ``order``."""
    return mask if mask is None or order is None else [mask[t] for t in order]


def _move_order(a: Sequence[str], b: Sequence[str], opcodes: Any = None) -> list[int] | None:
    """The order of ``b``'s tokens that puts the passages it shares with ``a`` in ``a``'s
    order, or None when they stay as they are.

    A copy may move paragraphs (a repost that puts the key paragraph first, a page whose blocks
    a crawler reads in another order), and a longest common subsequence cannot follow a move:
    it aligns a moved paragraph with whatever stands in its place and sees substituted names
    everywhere. So the runs of at least ``MOVE_MIN`` tokens both texts share are put in the
    order they have in ``a``, each with the tokens that precede it in ``b`` (the head of a moved
    paragraph travels with it: 银川市… before a shared passage in one text still faces 安阳市…
    before it in the other, and a template filled with other values stays apart in any order).
    Tokens after the last shared run stay at the end. Unchanged when nothing moved, or when the
    new order matches fewer than ``MOVE_GAIN`` of the shorter text more (a sentence moved inside
    a rewritten story is no reason to pair its rewritten passages differently). ``opcodes``:
    the alignment of ``a`` and ``b``, when the caller made it (its distance is theirs)."""

    short = min(len(a), len(b))
    if short < MOVE_MIN:
        return None  # no shared run
    distance = _indel_distance(a, b) if opcodes is None else _alignment_distance(a, b, opcodes)
    if distance - abs(len(a) - len(b)) < 2 * MOVE_GAIN * short:
        return None  # no order can match enough more: b's length bounds the new distance
    blocks = _shared_blocks(a, b, MOVE_MIN)
    if all(x[1] < y[1] for x, y in pairwise(blocks)):
        return None  # nothing moved: the common case
    shared = [False] * len(b)
    for _, q, n in blocks:
        shared[q : q + n] = [True] * n
    key: list[float] = [float(len(a))] * len(b)  # where each token of b goes, in a's positions
    for p, q, n in blocks:
        key[q : q + n] = range(p, p + n)
        t = q - 1
        while t >= 0 and not shared[t]:
            key[t] = p - 0.5  # the gap before a run goes with it
            t -= 1
    order = sorted(range(len(b)), key=lambda t: (key[t], t))
    gain = distance - _indel_distance(a, [b[t] for t in order])  # twice the tokens matched more
    return order if gain >= 2 * MOVE_GAIN * short else None


def _canonical(i: int, j: int, texts: Sequence[str], tokens: dict) -> tuple[int, int]:
    """The pair in one order whichever way it was given (fewer tokens first, then the smaller
    text): the alignment of two texts can break ties differently in each direction, and a
    verdict must not depend on which of the two arrived first (batch judges the earlier text
    first, the online detector the new one)."""
    if _after(len(tokens[i][0]), texts[i], len(tokens[j][0]), texts[j]):
        return j, i
    return i, j


def _after(size_a: int, text_a: str, size_b: int, text_b: str) -> bool:
    """Whether a text of ``size_a`` tokens comes after one of ``size_b`` in :func:`_canonical`
    order (fewer tokens first, then the smaller text)."""
    return (size_b, text_b) < (size_a, text_a)


def _matched_tokens(
    codes: np.ndarray, offsets: np.ndarray, left: np.ndarray, right: np.ndarray, workers: int
) -> np.ndarray:
    """Tokens each pair's longest common subsequence matches (one vectorised rapidfuzz call
    on ``workers`` threads). Each text goes to rapidfuzz as an ``array.array`` of its token
    hashes, which rapidfuzz reads as fast as a list: a list of Python integers cost 4 times the
    memory, and its objects were the verification stage's largest allocation."""
    from rapidfuzz.distance import Indel
    from rapidfuzz.process import cpdist

    docs, local = np.unique(np.concatenate([left, right]), return_inverse=True)
    sequences = _token_arrays(codes, offsets, docs)
    sizes = np.diff(offsets)
    # pairs past ALIGN_CELLS: the distance of their alignment in stretches (token_alignment)
    huge = sizes[left] * sizes[right] > ALIGN_CELLS
    dist = np.zeros(len(left), np.float64)
    small = np.flatnonzero(~huge)
    dist[small] = cpdist(
        [sequences[k] for k in local[small].tolist()],
        [sequences[k] for k in local[len(left) + small].tolist()],
        scorer=Indel.distance,
        dtype=np.int64,
        workers=workers,
    )
    for k in np.flatnonzero(huge).tolist():
        dist[k] = _indel_distance(sequences[local[k]], sequences[local[len(left) + k]])
    return (sizes[left] + sizes[right] - dist) / 2


def _indel_distance(a: Sequence[Any], b: Sequence[Any]) -> int:
    """Tokens inserted and deleted between ``a`` and ``b``: rapidfuzz's exact count (a longest
    common subsequence, in time ``len(a) * len(b) / 64``) up to ``ALIGN_CELLS``, past it that of
    :func:`token_alignment`' alignment in stretches (a near-copy's own)."""
    from rapidfuzz.distance import Indel

    if len(a) * len(b) <= ALIGN_CELLS:
        return Indel.distance(a, b)
    matched = sum(a1 - a0 for tag, a0, a1, _b0, _b1 in token_alignment(a, b) if tag == "equal")
    return len(a) + len(b) - 2 * matched


def _alignment_distance(a: Sequence[Any], b: Sequence[Any], opcodes: Any) -> int:
    """Tokens inserted and deleted between ``a`` and ``b`` by their alignment ``opcodes``
    (:func:`token_alignment`): :func:`_indel_distance`, read off the alignment it comes from."""
    matched = sum(a1 - a0 for tag, a0, a1, _b0, _b1 in opcodes if tag == "equal")
    return len(a) + len(b) - 2 * matched


def _token_arrays(codes: np.ndarray, offsets: np.ndarray, docs: np.ndarray) -> list[array]:
    """The token hashes of ``docs``, each text's as an ``array.array`` of unsigned 64-bit
    integers (copied from one buffer, no object per token)."""
    flat = np.ascontiguousarray(codes, np.uint64)
    raw = memoryview(flat).cast("B")
    bounds = np.stack([offsets[docs], offsets[docs + 1]], axis=1) * flat.itemsize
    out = []
    for a, b in bounds.tolist():
        sequence = array("Q")
        sequence.frombytes(raw[a:b])
        out.append(sequence)
    return out


def _may_move() -> tuple[int, int]:
    """The token counts ``[lo, hi)`` at which :func:`_put_in_order` may move passages of a pair that
    differs in one replaced token: from ``MOVE_MIN`` until its Indel distance, 2, falls below
    ``2 * MOVE_GAIN`` of the text."""
    n = MOVE_MIN
    while 2 * MOVE_GAIN * n <= 2:
        n += 1
    return MOVE_MIN, n


_MAY_MOVE = _may_move()
