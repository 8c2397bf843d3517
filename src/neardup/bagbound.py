"""A compact bound on how many tokens two short texts share, for a batch's candidate pairs.

Most candidate pairs of short texts (posts, titles) share one rare gram and little else. The
copy rule drops them on the tokens both texts hold (:func:`neardup.copyrule.strict_least`), but
only once it has tokenized both texts. A batch holds, for each text short enough to be judged
by the short-text rule, its tokens counted per bucket of their hashes' top bits (64 bytes):
two texts cannot share more tokens than ``sum_k min(count_a[k], count_b[k])``, so a pair
below the rule's need is dropped at the candidate stage, before anything is tokenized or held
(weibo_ced_zh: 11.8 million pairs of short texts reach that stage, 0.6 million pass the bound).
Most are dropped before that, as the candidates are made, by a few bytes per text that bound
the bound from above (:meth:`TokenBuckets.signatures`). Neither drops a pair the copy rule would
call a copy: verdicts do not change.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from . import _pairkernels
from .arrays import gather
from .copyrule import CopyRule, strict_least, token_codes

BUCKET_BITS = 6  # 64 buckets (at most: one word of signature); weibo's short pairs pass 1.5x
# as often as on exact bags
MOST_TOKENS = 255  # a count per bucket is one byte; a text with more tokens gets no row


@dataclass(frozen=True)
class TokenBuckets:
    """Per-text token counts per bucket: ``counts[row[d]]`` for text ``d`` (``row`` -1: none),
    and the text's number of tokens ``lengths[row[d]]`` (as the copy rule counts them)."""

    counts: np.ndarray  # (rows, 64) uint8
    row: np.ndarray  # int64 per text
    lengths: np.ndarray  # int64 per row

    @classmethod
    def of(
        cls,
        texts: Sequence[str],
        counted: np.ndarray,
        encoded: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> TokenBuckets:
        """The rows of the ``counted`` texts; ``encoded``: the texts' code points and offsets
        (:func:`neardup.normalize.encode_texts`), when the caller has them."""
        which = np.flatnonzero(counted)
        chosen = [texts[i] for i in which.tolist()]
        if encoded is None:
            codes, code_off, _flags = token_codes(chosen)
        else:  # the chosen texts' code points, taken from the caller's (no second encoding)
            cps, offsets = encoded
            sub, sub_off = gather(cps, offsets[which], np.diff(offsets)[which])
            sub.flags.writeable = False  # as encode_texts' are: one compiled signature
            codes, code_off, _flags = token_codes(chosen, (sub, sub_off))
        lengths = np.diff(code_off)
        keep = lengths <= MOST_TOKENS
        buckets = 1 << BUCKET_BITS
        doc = np.repeat(np.arange(len(which)), lengths)
        key = doc * buckets + (codes >> np.uint64(64 - BUCKET_BITS)).astype(np.int64)
        counts = np.bincount(key, minlength=len(which) * buckets).reshape(-1, buckets)
        row = np.full(len(texts), -1, np.int64)
        row[which[keep]] = np.arange(int(keep.sum()))
        return cls(counts[keep].astype(np.uint8), row, lengths[keep].astype(np.int64))

    @classmethod
    def concat(cls, parts: Sequence[TokenBuckets]) -> TokenBuckets:
        """The texts of ``parts`` one after another."""
        shift = np.cumsum([0] + [len(p.lengths) for p in parts[:-1]])
        rows = [np.where(p.row >= 0, p.row + s, -1) for p, s in zip(parts, shift, strict=True)]
        return cls(
            np.concatenate([p.counts for p in parts]),
            np.concatenate(rows),
            np.concatenate([p.lengths for p in parts]),
        )

    def texts(self, lo: int, hi: int) -> TokenBuckets:
        """The rows of texts ``lo:hi`` as buckets of their own (copies): a batch's texts cut
        per document, as the online index keeps them."""
        row = self.row[lo:hi]
        kept = row[row >= 0]
        first = int(kept.min()) if len(kept) else 0
        last = int(kept.max()) + 1 if len(kept) else 0  # rows are in text order
        return TokenBuckets(
            self.counts[first:last].copy(),
            np.where(row >= 0, row - first, -1),
            self.lengths[first:last].copy(),
        )

    def may_be_copies(
        self, left: np.ndarray, right: np.ndarray, strict: np.ndarray, rule: CopyRule
    ) -> np.ndarray:
        """Which pairs ``(left[p], right[p])`` the copy rule may call copies: all but those it
        judges by the short-text rule (``strict``) whose texts, both with a row, cannot share
        the tokens :func:`neardup.copyrule.strict_least` asks for (tabulated once per rule for
        every two token counts a row can have: :func:`least_table`)."""
        return _pairkernels.bucket_bound(*self.bound_args(rule), left, right, strict)

    def bound_args(self, rule: CopyRule) -> tuple[np.ndarray, ...]:
        """The bound's arguments to the pair kernels (``counts, row, lengths, needs``)."""
        return self.counts, self.row, self.lengths, least_table(rule)

    def signatures(self) -> tuple[np.ndarray, np.ndarray]:
        """Per text, a few bytes that bound the bucket bound from above, so that a candidate
        pair can be dropped without reading two 64-byte rows at addresses nothing predicts:
        ``masks[d]``, the buckets holding at least one and at least two of its tokens (two
        64-bit words), and ``info[d]``, its number of tokens plus 256 times the tokens beyond
        the second in any bucket (-1: no row). ``sum_k min(a_k, b_k)`` counts the buckets
        both hold once, those both hold twice, and the rest, which is at most the smaller of
        the two texts' tokens beyond the second: so ``popcount(a1 & b1) + popcount(a2 & b2) +
        min(extra_a, extra_b)`` is never below the bound (weibo_ced_zh: 0.66 million of 11.75
        million short pairs pass it, 0.57 million the bound)."""
        if self.counts.shape[1] > 64 or MOST_TOKENS > 255:  # one 64-bit word, one byte
            raise ValueError("bucket signatures need at most 64 buckets and 255 tokens a row")
        return _pairkernels.bucket_signatures(self.counts, self.row, self.lengths)


@lru_cache(maxsize=8)
def least_table(rule: CopyRule) -> np.ndarray:
    """``least[short, long]``: :func:`neardup.copyrule.strict_least` for token counts up to
    ``MOST_TOKENS`` (entries with ``short > long`` are never read)."""
    counts = np.arange(MOST_TOKENS + 1)
    short, long = np.meshgrid(counts, counts, indexing="ij")
    return np.ascontiguousarray(strict_least(short, np.maximum(short, long), rule), np.int64)
