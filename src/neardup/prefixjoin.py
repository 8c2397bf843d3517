"""Pairs of rows that may hold a share of their elements in common, without every pair
(prefix filtering).

Rows are sets or bags (sorted values, repeats counted) grouped in documents; a caller asks,
for document pairs ``(da[k], db[k])``, which rows of ``da[k]`` and of ``db[k]`` may hold at
least ``max(1, ceil(share · n))`` elements in common, ``n`` the larger row's size. The answer
(:func:`prefix_join`) is a superset of those pairs, never one less: every row's elements are
put in one order over both sides (the rarest first, so that the lists pairs come from are
short) and a row of ``n`` elements keeps its first ``n - ceil(share · n) + 1``: the first
element, in that order, of what two rows hold in common is in both rows' kept prefix. A
repeated value is an element per repeat (the value and how many times it came before in its
row), so bags are joined as multisets.

Two documents of 20,000 short lines each make 400 million row pairs, a few tens of thousands of
which share any rare element; a caller verifies the pairs the join gives, as it would have
verified every pair.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from .arrays import gather, run_firsts

_SPREAD = np.uint64(0x9E3779B97F4A7C15)  # a repeat's element: its value moved by its count


@dataclass(frozen=True)
class Side:
    """The rows of one side of a join: ``sets`` (values sorted per row, offsets) of the rows,
    and the document of each row (rows of one document consecutive, documents ascending)."""

    sets: tuple[np.ndarray, np.ndarray]
    doc: np.ndarray

    def take(self, rows: np.ndarray) -> Side:
        """The side of ``rows`` (ascending) alone."""
        values, offsets = self.sets
        return Side(gather(values, offsets[rows], np.diff(offsets)[rows]), self.doc[rows])


@dataclass(frozen=True)
class Join:
    """The row pairs of a :func:`prefix_join`: groups of a prefix element held by rows of both
    documents of a pair ``k``; ``pairs`` in all, repeats included (a pair of rows holding two
    elements of their prefixes in common comes twice)."""

    k: np.ndarray  # the document pair of each group
    rows_a: np.ndarray  # rows (of side a) of the groups' entries, group after group
    lo_a: np.ndarray  # where each group's rows start in rows_a
    n_a: np.ndarray
    rows_b: np.ndarray
    lo_b: np.ndarray
    n_b: np.ndarray

    @property
    def pairs(self) -> int:
        return int((self.n_a * self.n_b).sum())

    def chunks(self, size: int) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """The pairs ``(k, row in a, row in b)``, about ``size`` at a time, in no useful order."""
        for g, i, j in run_pairs(self.lo_a, self.n_a, self.lo_b, self.n_b, size):
            yield self.k[g], self.rows_a[i], self.rows_b[j]


def prefix_join(a: Side, b: Side, da: np.ndarray, db: np.ndarray, *, share: float) -> Join:
    """Every pair of rows ``i`` of document ``da[k]`` (side ``a``) and ``j`` of ``db[k]``
    (side ``b``) whose rows may hold ``max(1, ceil(share · max(n_i, n_j)))`` elements in common:
    groups of the rows that hold one element of their prefixes (see the module docstring)."""
    rank_a, rank_b, groups = _ranks(_elements(a.sets), _elements(b.sets))
    key_a, row_a = _by_pair(_prefix(a, rank_a, share), a.doc, da, groups)
    key_b, row_b = _by_pair(_prefix(b, rank_b, share), b.doc, db, groups)
    first_a, first_b = np.flatnonzero(run_firsts(key_a)), np.flatnonzero(run_firsts(key_b))
    n_a = np.diff(np.r_[first_a, len(key_a)])
    n_b = np.diff(np.r_[first_b, len(key_b)])
    common, at_a, at_b = np.intersect1d(
        key_a[first_a], key_b[first_b], assume_unique=True, return_indices=True
    )
    return Join(common // groups, row_a, first_a[at_a], n_a[at_a], row_b, first_b[at_b], n_b[at_b])


def run_pairs(
    lo_a: np.ndarray, n_a: np.ndarray, lo_b: np.ndarray, n_b: np.ndarray, size: int
) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Every pair of positions ``(g, i, j)``, ``i`` in ``lo_a[g] : lo_a[g] + n_a[g]`` and ``j``
    in ``lo_b[g] : lo_b[g] + n_b[g]``, in order (``g``, then ``i``, then ``j``), about ``size``
    at a time: a group's positions of ``a`` are cut into pieces of at most ``size // n_b[g]``,
    so no piece holds much more than ``size`` pairs however large the group."""
    lo_a, n_a = np.asarray(lo_a, np.int64), np.asarray(n_a, np.int64)
    lo_b, n_b = np.asarray(lo_b, np.int64), np.asarray(n_b, np.int64)
    step = np.maximum(1, size // np.maximum(n_b, 1))  # positions of a per piece
    pieces = np.where(n_b > 0, -(-n_a // step), 0)  # only groups with positions on both sides
    pk = np.repeat(np.arange(len(n_a), dtype=np.int64), pieces)
    first = (np.arange(len(pk)) - np.repeat(np.cumsum(pieces) - pieces, pieces)) * step[pk]
    count = np.minimum(step[pk], n_a[pk] - first)  # positions of a in each piece
    rows = count * n_b[pk]
    ends = np.cumsum(rows)
    start = 0
    while start < len(pk):
        stop = max(start + 1, int(np.searchsorted(ends, ends[start] - rows[start] + size, "right")))
        g = np.repeat(pk[start:stop], rows[start:stop])
        offset = np.repeat(first[start:stop], rows[start:stop])
        within = np.arange(len(g), dtype=np.int64) - np.repeat(
            np.cumsum(rows[start:stop]) - rows[start:stop], rows[start:stop]
        )
        yield g, lo_a[g] + offset + within // n_b[g], lo_b[g] + within % n_b[g]
        start = stop


def _elements(sets: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Each row's elements, row after row: a value repeated in its row is an element per
    repeat (its ``r``-th repeat moved by ``r`` times a large odd constant; two elements that
    meet by chance only add pairs)."""
    values, offsets = sets
    values = np.asarray(values, np.uint64)
    if not len(values):
        return values
    row = np.repeat(np.arange(len(offsets) - 1, dtype=np.int64), np.diff(offsets))
    at = np.arange(len(values), dtype=np.int64)
    starts = np.r_[True, (values[1:] != values[:-1]) | (row[1:] != row[:-1])]
    repeat = at - np.maximum.accumulate(np.where(starts, at, 0))
    return values ^ (repeat.astype(np.uint64) * _SPREAD)


def _ranks(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Each element's place in the order of both sides' elements (the fewest rows first, ties
    by value), and how many places there are."""
    both = np.concatenate([a, b])
    order = np.argsort(both, kind="stable")
    firsts = run_firsts(both[order])
    group = np.cumsum(firsts) - 1  # of each sorted element: its distinct value
    counts = np.diff(np.r_[np.flatnonzero(firsts), len(both)])
    rank = np.empty(len(counts), np.int64)
    rank[np.argsort(counts, kind="stable")] = np.arange(len(counts))  # values ascend in a tie
    out = np.empty(len(both), np.int64)
    out[order] = rank[group]
    return out[: len(a)], out[len(a) :], max(len(counts), 1)


def _prefix(side: Side, rank: np.ndarray, share: float) -> tuple[np.ndarray, np.ndarray]:
    """The kept prefix of every row ``(row, rank)``: its ``n - ceil(share · n) + 1`` elements of
    lowest rank (``share`` read a hair low: a float share never drops a pair)."""
    sizes = np.diff(side.sets[1])
    row = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)
    order = np.lexsort((rank, row))
    need = np.maximum(np.ceil(share * sizes - 1e-6), 1).astype(np.int64)
    keep = sizes - need + 1  # 0 for an empty row
    place = np.arange(len(order), dtype=np.int64) - np.repeat(side.sets[1][:-1], sizes)
    kept = order[place < keep[row]]
    return row[kept], rank[kept]


def _by_pair(
    entries: tuple[np.ndarray, np.ndarray], doc: np.ndarray, pair_docs: np.ndarray, groups: int
) -> tuple[np.ndarray, np.ndarray]:
    """The prefix entries of each pair's document, pair after pair: their keys
    ``k · groups + rank`` (ascending; ``groups``: ranks are below it) and rows."""
    row, rank = entries
    order = np.lexsort((rank, doc[row]))
    row, rank = row[order], rank[order]
    entry_doc = doc[row]
    lo = np.searchsorted(entry_doc, pair_docs, "left")
    n = np.searchsorted(entry_doc, pair_docs, "right") - lo
    k = np.repeat(np.arange(len(pair_docs), dtype=np.int64), n)
    at = np.repeat(lo - (np.cumsum(n) - n), n) + np.arange(int(n.sum()), dtype=np.int64)
    return k * groups + rank[at], row[at]
