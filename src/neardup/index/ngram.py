"""The short-text m-gram substring index (reference 000): candidates share a character m-gram.

Every text is keyed by its distinct character m-grams (a text shorter than m by the whole text).
Two texts are candidates when they share a key. Keys held by more than ``max_posting`` texts
(boilerplate such as "转发微博", a common emoji code) are not used to make candidates: they would
cost ``s²/2`` comparisons each and carry little evidence. Such keys are counted and reported; a
pair whose only shared keys are over the cap is missed, and ``max_posting=None`` turns the cap off
(exact: every pair sharing a key is a candidate).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace

import numpy as np

from .. import _kernels, _pairkernels, twins
from ..compiling import small
from ..errors import InputError
from ..features import char_ngrams
from ..normalize import encode_texts
from ..parallel import map_ranges, per_worker

CHUNK_PAIRS = 1_000_000  # candidate pairs per chunk, at most (one document's may be more); 4 M: weibo 0.4 s slower, 150 MB more


@dataclass(frozen=True)
class CandidateStats:
    documents: int
    keys: int
    pruned_keys: int  # keys over the posting cap
    pruned_postings: int  # postings of those keys
    candidates: int


def key_sets(texts: Sequence[str], key_length: int) -> tuple[np.ndarray, np.ndarray]:
    """Each text's distinct m-gram hashes, sorted: ``(values, offsets)``."""
    cps, offsets = encode_texts(texts)
    hashes, hoff = _kernels.char_ngram_hashes(cps, offsets, key_length)
    return _kernels.unique_per_doc(hashes, hoff)


def share_a_key(
    values: np.ndarray, offsets: np.ndarray, left: np.ndarray, right: np.ndarray
) -> np.ndarray:
    """Whether documents ``left[k]`` and ``right[k]`` share a value of their sorted distinct
    key sets ``(values, offsets)``: whether a batch's posting lists, or the online index, make
    the pair a candidate at all (where no key is pruned). What ``compare`` and ``eval`` ask
    before a verdict counts, so that they decide as a corpus run does."""
    n = len(left)
    got = _pairkernels.common_counts(
        values, offsets, values[:0], np.zeros(1, np.int64), left, right, np.ones(n, np.int64), 0
    )
    return got >= 1


def sketch_keys(
    values: np.ndarray, offsets: np.ndarray, sketch: int | None
) -> tuple[np.ndarray, np.ndarray]:
    """Keep each text's ``sketch`` smallest key hashes (all when ``None``).

    Key hashes are uniform, so the smallest ones are a consistent random sample (a bottom-k
    MinHash sketch): two texts whose key sets have Jaccard J share one of their ``s`` smallest
    keys with probability about ``1 - (1 - J)^s`` — for long texts a few dozen keys find the
    near-copies that thousands of keys would, at a small fraction of the candidates.
    """
    if sketch is None:
        return values, offsets
    sizes = np.diff(offsets)
    rank = np.arange(len(values)) - np.repeat(offsets[:-1], sizes)
    kept = np.minimum(sizes, sketch)
    new_offsets = np.zeros_like(offsets)
    np.cumsum(kept, out=new_offsets[1:])
    return values[rank < sketch], new_offsets


def candidate_pairs(
    texts: Sequence[str],
    *,
    key_length: int = 4,
    max_posting: int | None = 2000,
    sketch: int | None = None,
) -> tuple[np.ndarray, np.ndarray, CandidateStats]:
    """All pairs of positions ``i < j`` sharing a usable m-gram key (each pair once).

    With ``sketch``, only each text's ``sketch`` smallest key hashes are used (see
    :func:`sketch_keys`).
    """
    values, offsets = sketch_keys(*key_sets(texts, key_length), sketch)
    return candidates_from_keys(values, offsets, max_posting=max_posting)


def candidate_pair_chunks(
    texts: Sequence[str],
    *,
    key_length: int = 4,
    max_posting: int | None = 2000,
    sketch: int | None = None,
    workers: int = 1,
) -> tuple[CandidateStats, Iterator[tuple[np.ndarray, np.ndarray]]]:
    """:func:`candidate_pairs` a chunk of documents at a time (memory bounded by a chunk's
    candidates) on ``workers`` threads; the statistics' ``candidates`` is 0 (count them while
    consuming)."""
    values, offsets = sketch_keys(*key_sets(texts, key_length), sketch)
    return candidate_chunks(values, offsets, max_posting=max_posting, workers=workers)


def candidates_from_keys(
    values: np.ndarray, offsets: np.ndarray, *, max_posting: int | None = None
) -> tuple[np.ndarray, np.ndarray, CandidateStats]:
    """All pairs of documents ``i < j`` sharing a key of their ``(values, offsets)`` key sets
    (each pair once); keys held by more than ``max_posting`` documents make no candidates."""
    stats, chunks = candidate_chunks(values, offsets, max_posting=max_posting)
    parts = list(chunks)
    left = np.concatenate([a for a, _ in parts]) if parts else np.empty(0, np.int64)
    right = np.concatenate([b for _, b in parts]) if parts else np.empty(0, np.int64)
    return left, right, replace(stats, candidates=len(left))


@dataclass(frozen=True)
class Postings:
    """The posting lists of documents' key sets: for each (document, key) entry its key id and
    where the documents after its own start in the key's list (``post_docs[post_off[k]:
    post_off[k + 1]]``: the documents holding key ``k``, in increasing order), and which keys
    make candidates (``key_ok``)."""

    doc_keys: np.ndarray
    doc_after: np.ndarray
    doc_off: np.ndarray
    post_docs: np.ndarray
    post_off: np.ndarray
    key_ok: np.ndarray
    stats: CandidateStats  # its ``candidates`` is 0: they are counted where they are made

    @classmethod
    def of(
        cls, values: np.ndarray, offsets: np.ndarray, *, max_posting: int | None = None
    ) -> Postings:
        """The postings of the key sets ``(values, offsets)`` (each document's values
        distinct, as :func:`key_sets` makes them); keys held by more than ``max_posting``
        documents make no candidates."""
        n = len(offsets) - 1
        if n < 0 or offsets[0] != 0 or offsets[-1] != len(values) or (np.diff(offsets) < 0).any():
            raise ValueError("offsets must run from 0 to len(values), never decreasing")
        lists = twins.posting_lists if small(len(values)) else _pairkernels.posting_lists
        key_ids, after, post_docs, post_off = lists(
            np.ascontiguousarray(values, np.uint64), np.ascontiguousarray(offsets, np.int64)
        )
        counts = np.diff(post_off)
        key_ok = np.ones(len(counts), np.bool_) if max_posting is None else counts <= max_posting
        pruned = ~key_ok
        stats = CandidateStats(n, len(counts), int(pruned.sum()), int(counts[pruned].sum()), 0)
        return cls(key_ids, after, offsets, post_docs, post_off, key_ok, stats)

    def __len__(self) -> int:
        return len(self.doc_off) - 1

    @property
    def arrays(self) -> tuple[np.ndarray, ...]:
        """The arrays the candidate kernels take, in their order."""
        return (
            self.doc_keys, self.doc_after, self.doc_off, self.post_docs, self.post_off, self.key_ok
        )  # fmt: skip

    def blocks(self, most: int) -> list[tuple[int, int, int]]:
        """Ranges of consecutive documents ``(lo, hi, room)``, each with at most ``most``
        candidate pairs by their upper bound (the later documents of each usable key, repeats
        counted; one document's may be more), and ``room``: that bound, or if it is smaller the
        most pairs the block's documents can have (each of them with every document after
        ``lo``). Fixed by the data, so work cut by them is the same for any number of
        workers."""
        later = np.where(self.key_ok[self.doc_keys], self.post_off[self.doc_keys + 1], 0)
        later = np.maximum(later - self.doc_after, 0)
        total = np.zeros(len(later) + 1, np.int64)
        np.cumsum(later, out=total[1:])
        before = total[self.doc_off]  # upper bound of the pairs of the documents before each
        out = []
        lo, n = 0, len(self)
        while lo < n:
            hi = int(np.searchsorted(before, before[lo] + most, side="right")) - 1
            hi = min(max(hi, lo + 1), n)
            room = int(before[hi] - before[lo])
            out.append((lo, hi, min(room, (hi - lo) * (n - lo))))
            lo = hi
        return out


def candidate_chunks(
    values: np.ndarray, offsets: np.ndarray, *, max_posting: int | None = None, workers: int = 1
) -> tuple[CandidateStats, Iterator[tuple[np.ndarray, np.ndarray]]]:
    """The postings of ``(values, offsets)`` (each document's values distinct) and an iterator
    of the candidate pairs ``i < j`` of each chunk of consecutive documents ``i``, in order. A
    chunk holds at most ``CHUNK_PAIRS`` pairs (or one document's), so memory is bounded however
    many near-copies a corpus holds; the chunks depend only on the data. Each document's pairs
    are counted first, so that the documents of a chunk are filled in on ``workers`` threads,
    each into its own place (the same arrays for any number)."""
    postings = Postings.of(values, offsets, max_posting=max_posting)
    arrays = postings.arrays
    n = len(postings)
    before = np.zeros(n + 1, np.int64)  # pairs of the documents before each one

    def count(lo: int, hi: int) -> None:
        none = np.empty(0, np.int64)
        _pairkernels.key_candidates(*arrays, lo, hi, none, none, before[lo + 1 : hi + 1])

    map_ranges(count, n, size=per_worker(n, workers), workers=workers)  # the counting pass
    np.cumsum(before, out=before)

    def chunks() -> Iterator[tuple[np.ndarray, np.ndarray]]:
        lo = 0
        while lo < n:
            hi = int(np.searchsorted(before, before[lo] + CHUNK_PAIRS, side="right")) - 1
            hi = min(max(hi, lo + 1), n)
            left = np.empty(before[hi] - before[lo], np.int64)
            right = np.empty_like(left)
            start = lo

            def part(a: int, b: int, start=start, left=left, right=right) -> None:
                x0, x1 = start + a, start + b
                s0, s1 = before[x0] - before[start], before[x1] - before[start]
                _pairkernels.key_candidates(
                    *arrays, x0, x1, left[s0:s1], right[s0:s1], np.empty(b - a, np.int64)
                )

            map_ranges(part, hi - lo, size=per_worker(hi - lo, workers), workers=workers)
            yield left, right
            lo = hi

    return postings.stats, chunks()


class NgramIndex:
    """Online m-gram index over documents with hashable ids: add, remove, candidate lookup.

    ``query`` returns the ids of stored documents that share at least one key with the text,
    in insertion order; callers verify them (see :mod:`neardup.verify`).
    """

    def __init__(self, *, key_length: int = 4, max_posting: int | None = 2000):
        if key_length < 1:
            raise ValueError(f"key_length must be >= 1, got {key_length}")
        self.key_length = key_length
        self.max_posting = max_posting
        self._postings: dict[str, dict[Hashable, None]] = defaultdict(dict)
        self._keys: dict[Hashable, list[str]] = {}

    def __len__(self) -> int:
        return len(self._keys)

    def __contains__(self, doc_id: Hashable) -> bool:
        return doc_id in self._keys

    def keys_of(self, text: str) -> list[str]:
        return list(dict.fromkeys(char_ngrams(text, self.key_length)))

    def add(self, doc_id: Hashable, text: str) -> None:
        if doc_id in self._keys:
            raise InputError(f"document id {doc_id!r} is already in the index; remove it first")
        keys = self.keys_of(text)
        self._keys[doc_id] = keys
        for k in keys:
            self._postings[k][doc_id] = None

    def add_many(self, ids: Iterable[Hashable], texts: Iterable[str]) -> None:
        for doc_id, text in zip(ids, texts, strict=True):
            self.add(doc_id, text)

    def remove(self, doc_id: Hashable) -> bool:
        keys = self._keys.pop(doc_id, None)
        if keys is None:
            return False
        for k in keys:
            posting = self._postings.get(k)
            if posting is not None:
                posting.pop(doc_id, None)
                if not posting:
                    del self._postings[k]
        return True

    def query(self, text: str) -> list[Hashable]:
        found: dict[Hashable, None] = {}
        for k in self.keys_of(text):
            posting = self._postings.get(k)
            if not posting or (self.max_posting is not None and len(posting) > self.max_posting):
                continue
            found.update(posting)
        return list(found)
