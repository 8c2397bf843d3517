"""The corpus's common text as the copy rule reads it: :class:`Boilerplate` (runs of the fitted
common-gram table), and the marks a pair's tokens carry when one text added such text
(:func:`_added_boilerplate`): a footer, a header or an advertisement, not a substituted value."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .rule import BOILER_RUN
from .tokens import _CJK_BLOCKS, _DIGITS, _token_spans


@dataclass(frozen=True)
class Boilerplate:
    """Text many documents of a corpus share — headers, footers, advertisements — as the copy
    rule reads it: the characters of runs of at least ``min_run`` grams of the fitted
    common-gram table (``common``: sorted uint64 hashes of ``gram``-grams, over ``words`` words
    in alphabetic text when set, hashed as the table was). A truncated copy with a footer added faces the original's lost tail with
    the footer; that is text the corpus shares, not a substituted value."""

    common: np.ndarray
    gram: int
    words: int = 0
    min_run: int = BOILER_RUN

    def tokens(self, text: str) -> list[bool] | None:
        """Which :func:`tokenize` tokens of ``text`` lie wholly inside boilerplate (None when
        none does, or the tokens cannot be mapped to characters)."""
        from ..methods.prepared import gram_hashes
        from ..normalize import encode_texts

        if len(text) < self.gram + self.min_run - 1 or not len(self.common):
            return None
        cps, offsets = encode_texts([text])
        hashes, _ = gram_hashes(cps, offsets, self.gram, self.words)
        where = np.minimum(np.searchsorted(self.common, hashes), len(self.common) - 1)
        edges = np.flatnonzero(np.diff(np.concatenate([[0], self.common[where] == hashes, [0]])))
        starts, ends = edges[::2], edges[1::2]  # runs of common grams
        long = ends - starts >= self.min_run
        if not long.any():
            return None
        last = ends[long] - 1  # each long run's last gram, and where it ends
        if self.words:
            from .._tokenkernels import word_gram_ends

            after = word_gram_ends(cps, offsets, self.gram, self.words)[last]
        else:
            after = last + self.gram
        covered = np.zeros(len(text) + 1, np.int64)  # +1 where a covered stretch starts, -1 after
        np.add.at(covered, starts[long], 1)
        np.add.at(covered, after, -1)
        inside = np.concatenate([[0], np.cumsum(np.cumsum(covered)[:-1] > 0)])
        found = _token_spans(text)
        if found is None:
            return None
        spans = np.array(found, np.int64).reshape(-1, 2)
        first = cps[spans[:, 0]]
        cjk = np.zeros(len(spans), np.bool_)
        for lo, hi in _CJK_BLOCKS:
            cjk |= (first >= lo) & (first <= hi)
        digit = np.zeros(len(text), np.int64)  # a digit as _DIGIT reads one
        for m in _DIGITS.finditer(text):
            digit[m.start() : m.end()] = 1
        digits = np.concatenate([[0], np.cumsum(digit)])
        whole = inside[spans[:, 1]] - inside[spans[:, 0]] == spans[:, 1] - spans[:, 0]
        numeric = digits[spans[:, 1]] > digits[spans[:, 0]]
        mask = whole & (cjk | numeric)  # a word of other letters: most of its grams are common
        edges = np.flatnonzero(np.diff(np.concatenate([[0], mask, [0]])))
        cjk_seen = np.concatenate([[0], np.cumsum(cjk)])
        for lo, hi in zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True):
            if cjk_seen[hi] == cjk_seen[lo]:  # nor is a run of numbers alone (a price table)
                mask[lo:hi] = False
        mask = mask.tolist()
        return mask if any(mask) else None


class _Added(str):
    """A token of boilerplate that one text of a pair added (:func:`_added_boilerplate`)."""

    __slots__ = ()


class _Common(str):
    """A token of boilerplate that both texts of a pair hold (a run mostly matched): text the
    corpus shares, not text of the document's own (:func:`_inserted_block`)."""

    __slots__ = ()


class _Footer(_Added):
    """A token of boilerplate one text added in the tail of a pair's alignment
    (:func:`_added_tail`): a footer after a cut, whose numbers are not values."""

    __slots__ = ()


def _added_boilerplate(
    a: Sequence[str],
    b: Sequence[str],
    mask_a: list[bool] | None,
    mask_b: list[bool] | None,
    opcodes: Any,
) -> tuple[list[str], list[str], bool]:
    """``a`` and ``b`` with the tokens of each run of boilerplate (``mask_a``, ``mask_b``) that
    the other text mostly lacks marked :class:`_Added`: most of the run's tokens are outside a
    longest common subsequence of the two — a footer or an advertisement one text added,
    through which the alignment threads a few single characters. A run both texts hold, a typo
    aside, is marked :class:`_Common`. Also whether any run was marked added."""
    matched_a, matched_b = np.zeros(len(a), np.int64), np.zeros(len(b), np.int64)
    for tag, a0, a1, b0, b1 in opcodes:  # the alignment of a and b (:func:`token_alignment`)
        if tag == "equal":
            matched_a[a0:a1] = 1
            matched_b[b0:b1] = 1
    marked_a, added_a = _marked(a, mask_a, matched_a)
    marked_b, added_b = _marked(b, mask_b, matched_b)
    return marked_a, marked_b, added_a or added_b


def _marked(
    tokens: Sequence[str], mask: list[bool] | None, matched: np.ndarray
) -> tuple[list[str], bool]:
    """``tokens`` with the runs of ``mask`` of which most tokens are not ``matched`` marked
    :class:`_Added`, the other runs :class:`_Common`; and whether any run was added."""
    out = list(tokens)
    if mask is None:
        return out, False
    edges = np.flatnonzero(np.diff(np.concatenate([[0], np.asarray(mask, np.int8), [0]])))
    hits = np.concatenate([[0], np.cumsum(matched)])
    added = False
    for p, q in zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True):
        kind = _Added if 2 * (hits[q] - hits[p]) < q - p else _Common
        added = added or kind is _Added
        out[p:q] = [kind(t) for t in out[p:q]]
    return out, added
