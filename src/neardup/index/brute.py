"""Exact brute-force Hamming search: the oracle the permuted-table index is tested against."""

from __future__ import annotations

from collections.abc import Hashable, Iterable

import numpy as np

from ..errors import InputError
from .permuted import _listed, fingerprint_array, fingerprint_value


def _popcount(x: np.ndarray) -> np.ndarray:
    return np.bitwise_count(x).astype(np.int16)


def brute_force_pairs(
    fingerprints: np.ndarray, *, max_distance: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every pair of positions ``i < j`` within ``max_distance``, in (i, j) order. O(n²)."""
    fps = np.asarray(fingerprints, dtype=np.uint64)
    left, right, dist = [], [], []
    for i in range(len(fps) - 1):
        d = _popcount(fps[i + 1 :] ^ fps[i])
        hit = np.flatnonzero(d <= max_distance)
        left.append(np.full(len(hit), i, np.int64))
        right.append(hit + i + 1)
        dist.append(d[hit])
    if not left:
        return np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0, np.int16)
    return np.concatenate(left), np.concatenate(right).astype(np.int64), np.concatenate(dist)


class BruteForceIndex:
    """Same interface as :class:`~neardup.index.permuted.PermutedIndex`, by linear scan."""

    def __init__(self, *, max_distance: int = 3):
        self.max_distance = max_distance
        self._ids: dict[Hashable, int] = {}
        self._order: dict[Hashable, int] = {}
        self._counter = 0

    def __len__(self) -> int:
        return len(self._ids)

    def __contains__(self, doc_id: Hashable) -> bool:
        return doc_id in self._ids

    def add(self, doc_id: Hashable, fingerprint: int) -> None:
        if doc_id in self._ids:
            raise InputError(f"document id {doc_id!r} is already in the index; remove it first")
        self._ids[doc_id] = int(fingerprint_value(fingerprint))
        self._order[doc_id] = self._counter
        self._counter += 1

    def add_many(self, ids: Iterable[Hashable], fingerprints: Iterable[int]) -> None:
        ids = list(ids)
        fps = fingerprint_array(_listed(fingerprints))
        if len(ids) != len(fps):
            raise InputError(f"{len(ids)} ids but {len(fps)} fingerprints")
        for doc_id, fp in zip(ids, fps.tolist(), strict=True):
            self.add(doc_id, fp)

    def remove(self, doc_id: Hashable) -> bool:
        self._order.pop(doc_id, None)
        return self._ids.pop(doc_id, None) is not None

    def fingerprint_of(self, doc_id: Hashable) -> int:
        return self._ids[doc_id]

    def query(self, fingerprint: int) -> list[tuple[Hashable, int]]:
        q = int(fingerprint_value(fingerprint))
        hits = [
            (doc_id, (fp ^ q).bit_count())
            for doc_id, fp in self._ids.items()
            if (fp ^ q).bit_count() <= self.max_distance
        ]
        return sorted(hits, key=lambda h: (h[1], self._order[h[0]]))

    def query_many(self, fingerprints: Iterable[int]) -> list[list[tuple[Hashable, int]]]:
        return [self.query(fp) for fp in fingerprint_array(_listed(fingerprints)).tolist()]

    def pairs(self) -> list[tuple[Hashable, Hashable, int]]:
        items = list(self._ids.items())
        out = []
        for i, (a, fa) in enumerate(items):
            for b, fb in items[i + 1 :]:
                d = (fa ^ fb).bit_count()
                if d <= self.max_distance:
                    out.append((a, b, d))
        return out
