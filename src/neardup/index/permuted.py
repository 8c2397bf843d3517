"""Manku-style permuted-table Hamming index: batch all-pairs and an online index.

See :mod:`neardup.index.layout` for the table picture. Batch search sorts the fingerprints by
each table's key and compares neighbours inside each key run; online search keeps the tables
sorted and binary-searches the query's key in each. In both, a pair is reported by the first
table in which it shares a key, so every pair comes out exactly once, and the popcount check
makes the result exact: the same pairs as brute force, including pairs at exactly ``k``.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator, Sequence

import numpy as np

from .. import _kernels
from ..config import HammingConfig
from ..errors import InputError, refuse_unordered
from .layout import TableLayout, choose_blocks, make_layout


def _layout_for(n: int, max_distance: int, blocks: int | None, *, online: bool) -> TableLayout:
    HammingConfig(max_distance=max_distance, blocks=blocks)  # validates, with fix-it messages
    if blocks is None:
        blocks = choose_blocks(n, max_distance, online=online)
    return make_layout(max_distance=max_distance, blocks=blocks)


def _sorted_by_key(u: np.ndarray, mask: int) -> tuple[np.ndarray, np.ndarray]:
    """Positions of ``u`` ordered by the table key ``u & mask``, and the keys in that order.

    When the key's bits and a position fit in 64 bits together, the key bits are packed above
    the position and one (SIMD) sort of plain integers replaces a slower argsort.
    """
    n = len(u)
    key_bits = mask.bit_count()
    pos_bits = max(1, (n - 1).bit_length())
    if key_bits + pos_bits > 64:
        keys = u & np.uint64(mask)
        order = np.argsort(keys)
        return order, keys[order]
    packed = np.zeros(n, np.uint64)
    shift = pos_bits
    bit = 0
    while bit < 64:  # copy each run of set mask bits down into a dense key
        if not (mask >> bit) & 1:
            bit += 1
            continue
        run = 0
        while bit + run < 64 and (mask >> (bit + run)) & 1:
            run += 1
        packed |= ((u >> np.uint64(bit)) & np.uint64((1 << run) - 1)) << np.uint64(shift)
        shift += run
        bit += run
    packed |= np.arange(n, dtype=np.uint64)
    packed.sort()
    order = (packed & np.uint64((1 << pos_bits) - 1)).astype(np.int64)
    return order, packed >> np.uint64(pos_bits)


def _unique_pairs(u: np.ndarray, layout: TableLayout):
    """Pairs within k among distinct fingerprints ``u`` (positions into ``u``)."""
    masks = layout.mask_array()
    parts = []
    for t, mask in enumerate(layout.masks):
        order, keys = _sorted_by_key(u, mask)
        parts.append(_kernels.scan_table_pairs(u, order, keys, t, masks, layout.max_distance))
    return tuple(np.concatenate(column) for column in zip(*parts, strict=True))


def _group_identical(fps: np.ndarray):
    """Distinct fingerprints, the first position of each, and each position's group."""
    order = np.argsort(fps)
    s = fps[order]
    starts = np.r_[True, s[1:] != s[:-1]]
    group_sorted = np.cumsum(starts) - 1
    group = np.empty(len(fps), np.int64)
    group[order] = group_sorted
    first = np.minimum.reduceat(order, np.flatnonzero(starts))  # smallest position per group
    return s[starts], first, group


def hamming_edges(
    fingerprints: np.ndarray, *, max_distance: int, blocks: int | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A compact edge set with the same connected components as :func:`hamming_pairs`.

    Identical fingerprints are linked to the first document that has them (distance 0), and each
    pair of distinct fingerprints within ``max_distance`` once, between the first documents of
    the two groups. Linear in the number of documents however many share a fingerprint: this is
    what clustering uses.
    """
    fps = fingerprint_array(fingerprints)
    if len(fps) < 2:
        return np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0, np.int16)
    u, first, group = _group_identical(fps)
    layout = _layout_for(len(u), max_distance, blocks, online=False)
    ul, ur, ud = _unique_pairs(u, layout)
    dup = np.flatnonzero(first[group] != np.arange(len(fps)))
    left = np.concatenate([first[group[dup]], first[ul]])
    right = np.concatenate([dup, first[ur]])
    dist = np.concatenate([np.zeros(len(dup), np.int16), ud])
    lo, hi = np.minimum(left, right), np.maximum(left, right)
    return lo, hi, dist


def fingerprint_array(values: object) -> np.ndarray:
    """``values`` as a 1-D contiguous uint64 array of fingerprints; floats, strings, negative
    or too large numbers and arrays of other shapes are an :class:`InputError` (a float array
    cast to integers made 0.1, 0.2 and 0.9 one fingerprint)."""
    refuse_unordered(values, "fingerprints", "a sequence of 64-bit fingerprints (a uint64 array)")
    array = np.asarray(values)
    if array.ndim == 1 and not len(array):
        return np.empty(0, np.uint64)
    given_array = isinstance(values, np.ndarray)
    if array.ndim == 1 and (
        array.dtype.kind == "O" or (array.dtype.kind not in "ui" and not given_array)
    ):
        # Python ints (a list, objects): beyond int64 they make floats or objects, and a
        # negative one is ambiguous: each is checked
        items = array.tolist() if given_array else values  # not the floats they may make
        return np.array([fingerprint_value(v) for v in items], np.uint64)
    if array.ndim != 1 or array.dtype.kind not in "ui":
        raise InputError(
            "fingerprints must be a 1-D array of unsigned 64-bit integers (uint64), not "
            f"{array.ndim}-D {array.dtype}"
        )
    if array.dtype.kind == "i" and not given_array and int(array.min()) < 0:
        raise InputError("fingerprints must be unsigned 64-bit integers: a negative one was given")
    if array.dtype == np.int64:  # signed BIGINT columns (stores, Spark, Parquet): the same bits
        return np.ascontiguousarray(array).view(np.uint64)
    return np.ascontiguousarray(array, dtype=np.uint64)


def _listed(values: object) -> object:
    """An iterator (a generator) of fingerprints as a list; anything else as given."""
    return list(values) if isinstance(values, Iterator) else values


def fingerprint_value(value: object) -> np.uint64:
    """One fingerprint, an integer in ``[0, 2**64)``; anything else is an :class:`InputError`."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise InputError(f"a fingerprint is an integer in [0, 2**64), not {value!r}"[:120])
    if not 0 <= int(value) < 1 << 64:
        raise InputError(f"a fingerprint is an integer in [0, 2**64), not {int(value)}")
    return np.uint64(int(value))


def hamming_pairs(
    fingerprints: np.ndarray, *, max_distance: int, blocks: int | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every pair of positions ``i < j`` whose fingerprints are within ``max_distance``, once each.

    Exact (equal to brute force). Documents with identical fingerprints are all paired with each
    other, so ``m`` copies give ``m * (m - 1) / 2`` pairs; use :func:`hamming_edges` to cluster.
    Returns ``(left, right, distance)`` sorted by (left, right).
    """
    fps = fingerprint_array(fingerprints)
    if len(fps) < 2:
        return np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0, np.int16)
    u, _first, group = _group_identical(fps)
    layout = _layout_for(len(u), max_distance, blocks, online=False)
    ul, ur, ud = _unique_pairs(u, layout)
    members = np.argsort(group, kind="stable")
    starts = np.searchsorted(group[members], np.arange(len(u) + 1))
    left, right, dist = [], [], []
    sizes = np.diff(starts)
    for g in np.flatnonzero(sizes > 1):  # pairs inside groups of identical fingerprints
        m = members[starts[g] : starts[g + 1]]
        a, b = np.triu_indices(len(m), 1)
        left.append(m[a])
        right.append(m[b])
        dist.append(np.zeros(len(a), np.int16))
    for x, y, d in zip(ul.tolist(), ur.tolist(), ud.tolist(), strict=True):
        mx = members[starts[x] : starts[x + 1]]
        my = members[starts[y] : starts[y + 1]]
        a, b = np.meshgrid(mx, my, indexing="ij")
        left.append(a.ravel())
        right.append(b.ravel())
        dist.append(np.full(a.size, d, np.int16))
    if not left:
        return np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0, np.int16)
    left_a, right_a = np.concatenate(left), np.concatenate(right)
    lo, hi, d = np.minimum(left_a, right_a), np.maximum(left_a, right_a), np.concatenate(dist)
    order = np.lexsort((hi, lo))
    return lo[order], hi[order], d[order]


class _Segment:
    """Sorted per-table keys over a fixed set of positions."""

    __slots__ = ("keys", "positions", "size")

    def __init__(self, positions: np.ndarray, fps: np.ndarray, masks: np.ndarray):
        self.size = len(positions)
        self.keys = np.empty((len(masks), self.size), np.uint64)
        self.positions = np.empty((len(masks), self.size), np.int64)
        values = fps[positions]
        for t, mask in enumerate(masks):
            order, _ = _sorted_by_key(values, int(mask))
            self.keys[t] = values[order] & mask
            self.positions[t] = positions[order]


class PermutedIndex:
    """Online Hamming index over 64-bit fingerprints with arbitrary hashable document ids.

    New fingerprints go to a short unsorted tail that queries scan linearly; when the tail is
    full it becomes a sorted segment, and segments of similar size are merged (a log-structured
    layout), so adds stay cheap and queries stay a few binary searches per table.

    >>> index = PermutedIndex(max_distance=3)
    >>> index.add_many(["a", "b", "c"], [0b1011, 0b0011, 0xFF00])
    >>> index.query(0b0011)
    [('b', 0), ('a', 1)]
    """

    TAIL = 2048

    def __init__(
        self, *, max_distance: int = 3, blocks: int | None = None, expected_size: int = 1_000_000
    ):
        self.layout = _layout_for(expected_size, max_distance, blocks, online=True)
        self.max_distance = max_distance
        self._masks = self.layout.mask_array()
        self._fps = np.empty(1024, np.uint64)
        self._alive = np.zeros(1024, np.bool_)
        self._ids: list[Hashable] = []
        self._pos: dict[Hashable, int] = {}
        self._segments: list[_Segment] = []
        self._tabled = 0  # positions below this are in segments

    @property
    def blocks(self) -> int:
        return self.layout.blocks

    def __len__(self) -> int:
        return len(self._pos)

    def __contains__(self, doc_id: Hashable) -> bool:
        return doc_id in self._pos

    def fingerprint_of(self, doc_id: Hashable) -> int:
        return int(self._fps[self._pos[doc_id]])

    def ids(self) -> list[Hashable]:
        return list(self._pos)

    # -- updates --------------------------------------------------------------------------
    def add(self, doc_id: Hashable, fingerprint: int) -> None:
        self.add_many([doc_id], [fingerprint])

    def add_many(self, ids: Sequence[Hashable] | Iterable[Hashable], fingerprints) -> None:
        ids = list(ids)
        fps = fingerprint_array(_listed(fingerprints))  # 3.5, -5 refused: not cast to 3, 2**64-5
        if len(ids) != len(fps):
            raise InputError(f"{len(ids)} ids but {len(fps)} fingerprints")
        seen = set()
        for doc_id in ids:
            if doc_id in self._pos or doc_id in seen:
                raise InputError(f"document id {doc_id!r} is already in the index; remove it first")
            seen.add(doc_id)
        start = len(self._ids)
        need = start + len(ids)
        if need > len(self._fps):
            cap = max(need, 2 * len(self._fps))
            self._fps = np.resize(self._fps, cap)
            alive = np.zeros(cap, np.bool_)
            alive[:start] = self._alive[:start]
            self._alive = alive
        self._fps[start:need] = fps
        self._alive[start:need] = True
        self._ids.extend(ids)
        self._pos.update(zip(ids, range(start, need), strict=True))
        if need - self._tabled >= self.TAIL:
            self._flush()

    def remove(self, doc_id: Hashable) -> bool:
        pos = self._pos.pop(doc_id, None)
        if pos is None:
            return False
        self._alive[pos] = False
        return True

    def _flush(self) -> None:
        n = len(self._ids)
        positions = np.arange(self._tabled, n, dtype=np.int64)
        self._segments.append(_Segment(positions, self._fps, self._masks))
        self._tabled = n
        while len(self._segments) > 1 and self._segments[-1].size * 2 >= self._segments[-2].size:
            b = self._segments.pop()
            a = self._segments.pop()
            merged = np.concatenate([a.positions[0], b.positions[0]])
            merged = merged[self._alive[merged]]
            self._segments.append(_Segment(np.sort(merged), self._fps, self._masks))

    # -- queries --------------------------------------------------------------------------
    def _query_positions(self, q: np.uint64) -> tuple[np.ndarray, np.ndarray]:
        out_pos = np.empty(16, np.int64)
        out_dist = np.empty(16, np.int16)
        count = 0
        k = self.max_distance
        for seg in self._segments:
            out_pos, out_dist, count = _kernels.query_tables(
                seg.keys,
                seg.positions,
                self._fps,
                self._alive,
                self._masks,
                q,
                k,
                out_pos,
                out_dist,
                count,
            )
        out_pos, out_dist, count = _kernels.scan_linear(
            self._fps, self._alive, self._tabled, len(self._ids), q, k, out_pos, out_dist, count
        )
        pos, dist = out_pos[:count], out_dist[:count]
        order = np.lexsort((pos, dist))
        return pos[order], dist[order]

    def query(self, fingerprint: int, *, limit: int | None = None) -> list[tuple[Hashable, int]]:
        """Every stored document within ``max_distance`` (or the ``limit`` nearest):
        ``(id, distance)``, nearest first, ties in insertion order."""
        pos, dist = self._query_positions(fingerprint_value(fingerprint))
        if limit is not None:
            pos, dist = pos[:limit], dist[:limit]
        ids = self._ids
        return [(ids[p], d) for p, d in zip(pos.tolist(), dist.tolist(), strict=True)]

    def query_many(self, fingerprints) -> list[list[tuple[Hashable, int]]]:
        return [self.query(int(fp)) for fp in fingerprint_array(_listed(fingerprints))]

    def pairs(self) -> list[tuple[Hashable, Hashable, int]]:
        """All pairs of stored documents within ``max_distance`` (ids in insertion order)."""
        live = np.flatnonzero(self._alive[: len(self._ids)])
        left, right, dist = hamming_pairs(self._fps[live], max_distance=self.max_distance)
        ids = self._ids
        return [
            (ids[live[a]], ids[live[b]], d)
            for a, b, d in zip(left.tolist(), right.tolist(), dist.tolist(), strict=True)
        ]
