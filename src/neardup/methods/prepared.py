"""What ``auto`` keeps of each document: compared text, token count, rare grams, sketch keys and
their consistent sample (:class:`Prepared`), made a chunk of texts at a time (:class:`Grams`),
and joined or split for batches and the online index.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .. import _kernels, _tokenkernels, twins
from ..arrays import concat, concat_sets, drain, join_offsets, set_range
from ..bagbound import TokenBuckets
from ..compiling import small
from ..normalize import encode_texts
from ..readings import as_heard

SAMPLE_RATE = 8  # a consistent 1-in-8 sample of rare grams rules out most candidates early
assert SAMPLE_RATE & (SAMPLE_RATE - 1) == 0  # a power of two: the sample kernel masks


@dataclass
class Prepared:
    """What ``auto`` keeps of each document: compared text, rare grams, sketch keys."""

    compared: list[str]
    grams: tuple[np.ndarray, np.ndarray]  # rare gram hashes per text (values, offsets)
    sketch: tuple[np.ndarray, np.ndarray]  # the ``sketch`` smallest of them
    tokens: np.ndarray  # alignment tokens per text (see :func:`neardup.copyrule.tokenize`)
    sample: tuple[
        np.ndarray, np.ndarray
    ]  # consistent sample of the rare grams (see consistent_sample)
    buckets: TokenBuckets | None = None  # a batch's bound on the tokens short texts share

    def __len__(self) -> int:
        return len(self.compared)


@dataclass(frozen=True)
class Grams:
    """A chunk of compared texts with each text's alignment token count and distinct gram
    hashes (the code points are dropped once those are counted: a batch holds every chunk)."""

    texts: list[str]
    tokens: np.ndarray
    values: np.ndarray
    offsets: np.ndarray
    buckets: TokenBuckets | None = None
    heard: int = 0  # the gram length, when the rare grams are kept as heard (``heard_grams``)
    words: int = 0  # alphabetic grams run over this many words (0: character grams only)

    @classmethod
    def of(
        cls,
        texts: list[str],
        gram: int,
        *,
        words: int = 0,
        heard: bool = False,
        bucket_tokens: int = 0,
    ) -> Grams:
        """The chunk's grams as written (what the common-gram table counts; ``words``: see
        :func:`gram_hashes`); ``heard``: its rare grams are kept as heard (:meth:`rare`); with
        ``bucket_tokens``, also the :class:`TokenBuckets` of the texts with at most that many
        tokens."""
        cps, cp_offsets = encode_texts(texts)
        hashes, hoff = gram_hashes(cps, cp_offsets, gram, words)
        tokens = _tokenkernels.token_counts(cps, cp_offsets)
        buckets = None
        if bucket_tokens:
            buckets = TokenBuckets.of(texts, tokens <= bucket_tokens, (cps, cp_offsets))
        values, offsets = _kernels.unique_per_doc(hashes, hoff)
        return cls(texts, tokens, values, offsets, buckets, gram if heard else 0, words)

    def rare(self, common: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Each text's distinct rare grams ``(values, offsets)``: the grams not in ``common``
        (sorted hashes); with ``heard``, the grams of the characters as heard
        (:func:`as_heard`) at the positions whose written gram is rare — rarity stays that of
        the text as written (folding readings together makes more grams common), and a
        homophone typed for a character keeps the gram's value. The grams of each position
        are made again from the texts here, a chunk at a time, not held for every chunk of a
        batch until its table is fitted (reuters_21578: 219 MB); a chunk with no character that
        has a reading is as written."""
        if self.heard:
            cps, cp_offsets = encode_texts(self.texts)
            heard_cps = as_heard(cps)
            if (heard_cps != cps).any():
                heard_cps.flags.writeable = False  # as encode_texts' are: one compiled signature
                return self._rare_heard(cps, heard_cps, cp_offsets, common)
        if not len(common):
            return self.values, self.offsets
        return _kernels.kept_where_absent(self.values, self.values, self.offsets, common)

    def _rare_heard(
        self, cps: np.ndarray, heard_cps: np.ndarray, cp_offsets: np.ndarray, common: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`rare` of heard grams, from the chunk's code points written and heard."""
        by_ear, offsets = gram_hashes(heard_cps, cp_offsets, self.heard, self.words, cps)
        if len(common):
            written, _ = gram_hashes(cps, cp_offsets, self.heard, self.words)
            by_ear, offsets = _kernels.kept_where_absent(written, by_ear, offsets, common)
        return _kernels.unique_per_doc(by_ear, offsets)


def gram_hashes(
    cps: np.ndarray,
    offsets: np.ndarray,
    gram: int,
    words: int,
    written: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The gram hash of every position of encoded texts ``(hashes, offsets)``: character
    ``gram``-grams, or with ``words``, grams that run over ``words`` words in alphabetic text
    (:func:`neardup._tokenkernels.word_gram_hashes`; ``written``: the code points as written
    when ``cps`` are as heard)."""
    if words:
        shape = cps if written is None else written
        return _tokenkernels.word_gram_hashes(cps, offsets, gram, words, shape)
    return _kernels.char_ngram_hashes(cps, offsets, gram)


def gram_sets(texts: list[str], gram: int, *, words: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Each text's distinct gram hashes ``(values, offsets)`` (:func:`gram_hashes`): what the
    common-gram table counts."""
    g = Grams.of(texts, gram, words=words)
    return g.values, g.offsets


def texts_only(p: Prepared) -> Prepared:
    """``p`` with its compared texts and token counts only (what verification reads)."""
    empty = (np.empty(0, np.uint64), np.zeros(len(p) + 1, np.int64))
    return Prepared(p.compared, empty, empty, p.tokens, empty)


def merge_prepared(parts: Sequence[Prepared]) -> Prepared:
    """One :class:`Prepared` from several (in order)."""
    compared = [c for p in parts for c in p.compared]
    buckets = [p.buckets for p in parts if p.buckets is not None]
    return Prepared(
        compared,
        concat_sets([p.grams for p in parts]),
        concat_sets([p.sketch for p in parts]),
        concat([p.tokens for p in parts], np.int64),
        concat_sets([p.sample for p in parts]),
        TokenBuckets.concat(buckets) if parts and len(buckets) == len(parts) else None,
    )


def merge_consumed(parts: list[Prepared]) -> Prepared:
    """:func:`merge_prepared` of a batch's chunks, emptying ``parts``: each chunk's arrays are
    freed as soon as they are copied, so the batch is not held twice (weibo_ced_zh: 133 MB)."""
    fields = {name: [getattr(p, name) for p in parts] for name in ("grams", "sketch", "sample")}
    tokens = [p.tokens for p in parts]
    buckets = [p.buckets for p in parts if p.buckets is not None]
    whole = len(buckets) == len(parts)
    compared = [c for p in parts for c in p.compared]
    parts.clear()
    sets = {name: drain_sets(fields[name]) for name in ("grams", "sketch", "sample")}
    return Prepared(
        compared,
        sets["grams"],
        sets["sketch"],
        drain(tokens, np.int64),
        sets["sample"],
        TokenBuckets.concat(buckets) if whole and buckets else None,
    )


def drain_sets(sets: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """:func:`neardup.arrays.concat_sets`, emptying ``sets`` as they are copied."""
    offsets = join_offsets([offsets for _, offsets in sets])
    values = [v for v, _ in sets]
    sets.clear()
    return drain(values, np.uint64), offsets


def split_prepared(p: Prepared) -> list[Prepared]:
    """One :class:`Prepared` per text, each with arrays of its own (a view would keep the whole
    batch's arrays alive as long as any one text of it is kept)."""
    return split_documents(p, [1] * len(p))


def split_documents(p: Prepared, counts: Sequence[int]) -> list[Prepared]:
    """``p`` cut into consecutive parts of ``counts[k]`` texts (a document's paragraphs), each
    with arrays of its own (its token buckets too): many documents prepared in one batch, kept
    one by one."""
    parts, lo = [], 0
    for n in counts:
        hi = lo + int(n)
        parts.append(
            Prepared(
                p.compared[lo:hi],
                set_range(p.grams, lo, hi),
                set_range(p.sketch, lo, hi),
                p.tokens[lo:hi].copy(),
                set_range(p.sample, lo, hi),
                None if p.buckets is None else p.buckets.texts(lo, hi),
            )
        )
        lo = hi
    return parts


def smallest_keys(
    values: np.ndarray, offsets: np.ndarray, most: int
) -> tuple[np.ndarray, np.ndarray]:
    """Each text's ``k`` smallest rare-gram hashes, ``k = clip(size / 4, 4, most)``: a short
    text that is a copy shares most of its grams, so a few suffice; long texts get ``most``
    (a compiled pass; a small run, :mod:`neardup.compiling`: its NumPy twin)."""
    if small(len(values)):
        return twins.smallest_keys(values, offsets, most)
    return _kernels.smallest_keys(values, offsets, most)


def consistent_sample(values: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The consistent sample of each set: its values ``v % SAMPLE_RATE == 0`` (a compiled pass;
    a small run: its NumPy twin)."""
    if small(len(values)):
        return twins.consistent_sample(values, offsets, SAMPLE_RATE)
    return _kernels.consistent_sample(values, offsets, SAMPLE_RATE)
