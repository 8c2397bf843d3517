"""Which paragraph pairs the ``paragraph`` method judges: not every pair of two long
documents, and each pair of texts once.

**Each pair of texts once.** A verdict on two paragraphs depends on their compared texts
alone (their grams, tokens and weights are made from it), so a page holding a few hundred
lines thousands of times over is judged once per pair of distinct lines, and the verdict
given to every pair of rows that holds them (:func:`per_distinct_texts`).

**Not every pair.** The substitution veto
(:meth:`neardup.methods.paragraph.ParagraphMethod.substitutions`) looks, in document pairs that
would be duplicates, for paragraph pairs that are copies (the copy rule) and for versions of one
paragraph with other values (:func:`neardup.copyrule.substituted`). Two documents of 20,000
short lines make 400 million paragraph pairs; going through all of them held a service's
writer for minutes. Neither kind of pair holds little in common:

- a copy judged by the short-text rule holds, in its two bags of tokens, at least
  :func:`neardup.copyrule.least_share` of the longer's tokens (what
  :func:`neardup.copyrule.strict_least` asks, whatever the lengths); one judged on its rare
  grams holds at least ``coverage`` of the larger set of rare grams (:meth:`AutoMethod.passing`);
- a version holds at least ``version_coverage`` of the longer's tokens.

So the pairs are found by a prefix join (:func:`neardup.prefixjoin.prefix_join`) on the token
bags and rare grams of each document's distinct paragraphs (:class:`VetoRows`): a superset of
the pairs holding that much, verified as every pair was, with the same answers. When the join
would give as many pairs as the cross product (a page of one short line written in many ways),
the cross product of the distinct paragraphs is read instead.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from .._kernels import sort_per_doc
from .._pairkernels import common_counts
from ..arrays import concat_sets, gather
from ..copyrule import token_codes
from ..prefixjoin import Side, prefix_join, run_pairs

Chunk = tuple[np.ndarray, np.ndarray, np.ndarray]  # (document pair k, row in a, row in b)
ROW_MASK = np.int64(0xFFFFFFFF)  # the paragraph row of a ``k << 32 | row`` key


def per_distinct_texts(
    judge: Callable[..., tuple[np.ndarray, ...]], a: Any, ia: np.ndarray, b: Any, ib: np.ndarray
) -> tuple[np.ndarray, ...]:
    """``judge(a, ia, b, ib)`` (arrays of one value per pair) computed once per pair of distinct
    compared texts (``a.prepared.compared[ia[k]]``, ``b...[ib[k]]``) and given to every pair that
    holds them."""
    ia, ib = np.asarray(ia, np.int64), np.asarray(ib, np.int64)
    first_a = _first_of_text(a.prepared.compared, ia)
    first_b = _first_of_text(b.prepared.compared, ib)
    if np.array_equal(first_a, ia) and np.array_equal(first_b, ib):  # no text twice
        return judge(a, ia, b, ib)
    order = np.lexsort((first_b, first_a))
    new = np.r_[True, (np.diff(first_a[order]) != 0) | (np.diff(first_b[order]) != 0)]
    if new.all():  # no pair of texts twice: judged as given
        return judge(a, ia, b, ib)
    at = np.empty(len(ia), np.int64)
    at[order] = np.cumsum(new) - 1  # each pair's place among the distinct ones
    reps = order[new]
    return tuple(x[at] for x in judge(a, first_a[reps], b, first_b[reps]))


def _first_of_text(texts: list[str], rows: np.ndarray) -> np.ndarray:
    """Per row of ``rows``: the first of ``rows`` (in ascending order) with its text."""
    distinct, back = np.unique(rows, return_inverse=True)
    seen: dict[str, int] = {}
    first = [seen.setdefault(texts[r], r) for r in distinct.tolist()]
    return np.asarray(first, np.int64)[back]


@dataclass
class VetoRows:
    """The usable paragraphs of the documents of pairs ``(da[k], db[k])`` on each side (``a``
    and ``b`` may be one batch of paragraphs), one per distinct text of a document (its first
    row, a *representative*), with their rare grams and token bags as sides of a join."""

    a: Any  # Paragraphs
    b: Any
    da: np.ndarray
    db: np.ndarray

    @cached_property
    def classes(self) -> tuple[_Classes, _Classes]:
        """Each side's usable rows of the documents, grouped by document and text."""
        if self.b is self.a:
            both = _Classes.of(self.a, np.r_[self.da, self.db])
            return both, both
        return _Classes.of(self.a, self.da), _Classes.of(self.b, self.db)

    @cached_property
    def grams(self) -> tuple[Side, Side]:
        """The representatives' rare grams (sorted sets)."""
        return self._sides(lambda p, rows: _take(p.prepared.grams, rows))

    @cached_property
    def tokens(self) -> tuple[Side, Side]:
        """The representatives' bags of the copy rule's tokens (sorted, repeats kept)."""
        return self._sides(_bags)

    def _sides(
        self, sets: Callable[[Any, np.ndarray], tuple[np.ndarray, np.ndarray]]
    ) -> tuple[Side, Side]:
        class_a, class_b = self.classes
        side_a = Side(sets(self.a, class_a.reps), self.a.doc[class_a.reps])
        if self.b is self.a:
            return side_a, side_a
        return side_a, Side(sets(self.b, class_b.reps), self.b.doc[class_b.reps])

    @cached_property
    def joined(self) -> bool:
        """Whether the pairs are found by joins: when the cross product holds more pairs than
        the representatives hold rare grams (a join sorts as many elements, or more). A few
        document pairs of a few paragraphs each (most of a batch's) are read pair by pair."""
        class_a, class_b = self.classes
        n_a, n_b = class_a.runs(self.a, self.da)[1], class_b.runs(self.b, self.db)[1]
        grams = sum(int(np.diff(p.prepared.grams[1])[c.reps].sum()) for p, c in
                    ((self.a, class_a), (self.b, class_b)))  # fmt: skip
        return int((n_a * n_b).sum()) > grams

    def sharing(
        self,
        joins: Iterable[tuple[str, float]],
        size: int,
        only: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> tuple[bool, Iterator[Chunk]]:
        """Chunks of about ``size`` pairs of representatives ``(k, row in a, row in b)`` that
        may hold, in the sets one of ``joins`` names (``tokens`` or ``grams``), its share of
        the longer (repeats, in no order); every pair of them, in order, when they are few
        (:attr:`joined`) or the joins would give as many. Returns whether the chunks are
        every pair in order, and the chunks. ``only``: which representatives of each side to
        pair (masks; default all)."""
        class_a, class_b = self.classes
        pick_a = np.arange(len(class_a.reps)) if only is None else np.flatnonzero(only[0])
        pick_b = np.arange(len(class_b.reps)) if only is None else np.flatnonzero(only[1])
        reps_a, reps_b = class_a.reps[pick_a], class_b.reps[pick_b]
        lo_a, n_a = _runs(self.a.doc[reps_a], self.da)
        lo_b, n_b = _runs(self.b.doc[reps_b], self.db)
        found = []
        for sets, share in joins if self.joined else ():
            side_a, side_b = getattr(self, sets)
            if only is not None:
                side_a, side_b = side_a.take(pick_a), side_b.take(pick_b)
            found.append(prefix_join(side_a, side_b, self.da, self.db, share=share))
        if not found or sum(j.pairs for j in found) >= int((n_a * n_b).sum()):
            pieces = run_pairs(lo_a, n_a, lo_b, n_b, size)
            return True, ((k, reps_a[i], reps_b[j]) for k, i, j in pieces)
        pieces = (piece for join in found for piece in join.chunks(size))
        return False, ((k, reps_a[i], reps_b[j]) for k, i, j in pieces)

    def uncopied(self, copies: np.ndarray, copies_b: np.ndarray) -> tuple[np.ndarray, ...]:
        """Per representative of each side, whether some document pair of its document has no
        copy of it (``copies``, ``copies_b``: keys ``k << 32 | row`` of the copied paragraphs
        of each side)."""
        out = []
        for p, docs, classes, keys in (
            (self.a, self.da, self.classes[0], copies),
            (self.b, self.db, self.classes[1], copies_b),
        ):
            pairs = np.bincount(docs, minlength=int(p.doc.max(initial=-1)) + 1)
            rows, count = np.unique(keys & ROW_MASK, return_counts=True)
            at = np.minimum(np.searchsorted(rows, classes.reps), max(len(rows) - 1, 0))
            copied = np.where(rows[at] == classes.reps, count[at], 0) if len(rows) else 0
            out.append(copied < pairs[p.doc[classes.reps]])
        return tuple(out)

    def held(self, found: tuple[bool, Iterable[Chunk]], keep: Callable[..., np.ndarray]) -> Chunk:
        """The pairs of representatives :meth:`sharing` ``found`` that ``keep(k, ia, ib)``
        keeps (a mask), given to every pair of rows with their texts: each once, in the order
        of the cross product (by document pair, then row in ``a``, then row in ``b``)."""
        ordered, chunks = found
        parts = [tuple(x[keep(k, ia, ib)] for x in (k, ia, ib)) for k, ia, ib in chunks]
        none = np.empty(0, np.int64)
        k, ia, ib = (np.concatenate([none, *(p[i] for p in parts)]) for i in range(3))
        if not ordered:
            k, ia, ib = _unique_pairs(k, ia, ib)
        class_a, class_b = self.classes
        lo_a, n_a = class_a.members_of(ia)
        lo_b, n_b = class_b.members_of(ib)
        if (n_a == 1).all() and (n_b == 1).all():  # each text once: the pairs as they are
            return k, ia, ib
        every = max(int((n_a * n_b).sum()), 1)  # in one piece
        g, i, j = next(run_pairs(lo_a, n_a, lo_b, n_b, every), (none, none, none))
        k, ia, ib = k[g], class_a.members[i], class_b.members[j]
        order = np.lexsort((ib, ia, k))
        return k[order], ia[order], ib[order]

    def bags_hold(self, ia: np.ndarray, ib: np.ndarray, share: float) -> np.ndarray:
        """Which pairs of representatives' token bags hold ``max(1, ceil(share · n))`` tokens
        in common, ``n`` the longer's tokens (both non-empty): the first test of
        :func:`neardup.copyrule.substituted`, made on bags tokenized once per text."""
        (side_a, side_b), (class_a, class_b) = self.tokens, self.classes
        at_a, at_b = np.searchsorted(class_a.reps, ia), np.searchsorted(class_b.reps, ib)
        if side_b is side_a:
            (values, offsets), jb = side_a.sets, at_b
        else:
            (values, offsets), jb = concat_sets([side_a.sets, side_b.sets]), at_b + len(side_a.doc)
        sizes = np.diff(offsets)
        long_len = np.maximum(sizes[at_a], sizes[jb]).astype(np.float64)
        need = np.maximum(np.ceil(share * long_len - 1e-9), 1).astype(np.int64)
        held = common_counts(values, offsets, values[:0], offsets, at_a, jb, need, 0) >= 0
        return held & (np.minimum(sizes[at_a], sizes[jb]) > 0)


@dataclass(frozen=True)
class _Classes:
    """The usable rows of some documents of a batch of paragraphs grouped by document and
    text: ``reps`` (ascending: the first row of each group), and ``members`` (every row,
    grouped: the rows of ``reps[c]`` at ``members[lo[c] : lo[c] + n[c]]``, ascending)."""

    reps: np.ndarray
    members: np.ndarray
    lo: np.ndarray
    n: np.ndarray

    @classmethod
    def of(cls, p: Any, docs: np.ndarray) -> _Classes:
        rows = np.flatnonzero(p.usable & np.isin(p.doc, docs))
        seen: dict[tuple[int, str], int] = {}
        texts, doc = p.prepared.compared, p.doc[rows].tolist()
        first = np.asarray(
            [seen.setdefault((d, texts[r]), r) for d, r in zip(doc, rows.tolist(), strict=True)],
            np.int64,
        )
        reps = rows[first == rows]
        group = np.searchsorted(reps, first)
        order = np.argsort(group, kind="stable")
        n = np.bincount(group, minlength=len(reps))
        return cls(reps, rows[order], np.cumsum(n) - n, n)

    def runs(self, p: Any, docs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Where the representatives of each of ``docs`` start in ``reps``, and how many."""
        return _runs(p.doc[self.reps], docs)

    def members_of(self, reps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Where the rows of each representative start in ``members``, and how many."""
        at = np.searchsorted(self.reps, reps)
        return self.lo[at], self.n[at]


def _runs(doc: np.ndarray, docs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where the rows of each of ``docs`` start in ``doc`` (ascending), and how many."""
    lo = np.searchsorted(doc, docs, "left")
    return lo, np.searchsorted(doc, docs, "right") - lo


def _unique_pairs(k: np.ndarray, ia: np.ndarray, ib: np.ndarray) -> Chunk:
    order = np.lexsort((ib, ia, k))
    k, ia, ib = k[order], ia[order], ib[order]
    new = np.r_[True, (k[1:] != k[:-1]) | (ia[1:] != ia[:-1]) | (ib[1:] != ib[:-1])][: len(k)]
    return k[new], ia[new], ib[new]


def _take(sets: tuple[np.ndarray, np.ndarray], rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    values, offsets = sets
    return gather(values, offsets[rows], np.diff(offsets)[rows])


def _bags(p: Any, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The token bags of paragraph ``rows`` of ``p`` (as the copy rule tokenizes them)."""
    codes, offsets, _flags = token_codes([p.prepared.compared[r] for r in rows.tolist()])
    return sort_per_doc(codes, offsets), offsets
