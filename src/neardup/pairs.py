"""Verified duplicate pairs with their evidence: the one currency between methods and clustering.

A :class:`PairSet` holds parallel NumPy arrays over pairs of document *positions* (0-based indices
into the batch that was searched), so that millions of pairs cost a few bytes each:

- ``left``, ``right`` (int64, ``left < right``): the two documents;
- ``distance`` (int16): Hamming distance of their fingerprints, ``-1`` where the method has none;
- ``similarity`` (float32): the verified exact similarity (Jaccard or edit similarity), ``NaN`` if
  not verified;
- ``method`` (uint8): index into :data:`METHODS` of the method that found the pair;
- ``evidence``: optional per-pair extra detail keyed by ``(left, right)`` (for example matched
  paragraph indices from the ``paragraph`` method).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: Method names, in the order of their codes in ``PairSet.method``.
METHODS = ("exact", "simhash", "ngram", "paragraph", "auto")


def method_code(name: str) -> int:
    try:
        return METHODS.index(name)
    except ValueError:
        raise ValueError(f"unknown method {name!r}; known: {', '.join(METHODS)}") from None


@dataclass(frozen=True)
class PairSet:
    left: np.ndarray
    right: np.ndarray
    distance: np.ndarray
    similarity: np.ndarray
    method: np.ndarray
    evidence: dict[tuple[int, int], dict[str, Any]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        n = len(self.left)
        for name in ("right", "distance", "similarity", "method"):
            if len(getattr(self, name)) != n:
                raise ValueError(
                    f"PairSet.{name} has {len(getattr(self, name))} entries, left has {n}"
                )

    def __len__(self) -> int:
        return len(self.left)

    @classmethod
    def empty(cls) -> PairSet:
        return cls.build(np.empty(0, np.int64), np.empty(0, np.int64), method="exact")

    @classmethod
    def build(
        cls,
        left: np.ndarray,
        right: np.ndarray,
        *,
        method: str,
        distance: np.ndarray | None = None,
        similarity: np.ndarray | None = None,
        evidence: dict[tuple[int, int], dict[str, Any]] | None = None,
    ) -> PairSet:
        """Make a PairSet, ordering each pair so that ``left < right``."""
        a = np.asarray(left, dtype=np.int64)
        b = np.asarray(right, dtype=np.int64)
        n = len(a)
        lo, hi = np.minimum(a, b), np.maximum(a, b)
        dist = np.full(n, -1, np.int16) if distance is None else np.asarray(distance, np.int16)
        sim = (
            np.full(n, np.nan, np.float32)
            if similarity is None
            else np.asarray(similarity, np.float32)
        )
        codes = np.full(n, method_code(method), np.uint8)
        return cls(lo, hi, dist, sim, codes, dict(evidence or {}))

    @classmethod
    def concat(cls, parts: list[PairSet]) -> PairSet:
        parts = [p for p in parts if len(p)]
        if not parts:
            return cls.empty()
        evidence: dict[tuple[int, int], dict[str, Any]] = {}
        for p in parts:
            evidence.update(p.evidence)
        return cls(
            np.concatenate([p.left for p in parts]),
            np.concatenate([p.right for p in parts]),
            np.concatenate([p.distance for p in parts]),
            np.concatenate([p.similarity for p in parts]),
            np.concatenate([p.method for p in parts]),
            evidence,
        )

    def select(self, mask: np.ndarray) -> PairSet:
        keep = np.asarray(mask, bool)
        ev = {}
        if self.evidence:
            kept = set(zip(self.left[keep].tolist(), self.right[keep].tolist(), strict=True))
            ev = {k: v for k, v in self.evidence.items() if k in kept}
        return PairSet(
            self.left[keep],
            self.right[keep],
            self.distance[keep],
            self.similarity[keep],
            self.method[keep],
            ev,
        )

    def offset(self, by: int) -> PairSet:
        """The same pairs with positions shifted by ``by`` (to merge batches)."""
        ev = {(a + by, b + by): v for (a, b), v in self.evidence.items()}
        return PairSet(
            self.left + by, self.right + by, self.distance, self.similarity, self.method, ev
        )

    def remap(self, positions: np.ndarray) -> PairSet:
        """Translate positions through ``positions`` (a sub-batch's index -> the full batch's index)."""
        pos = np.asarray(positions, np.int64)
        left, right = pos[self.left], pos[self.right]
        lo, hi = np.minimum(left, right), np.maximum(left, right)
        ev = {}
        for (a, b), v in self.evidence.items():
            x, y = int(pos[a]), int(pos[b])
            ev[(min(x, y), max(x, y))] = v
        return PairSet(lo, hi, self.distance, self.similarity, self.method, ev)

    def unit_links(self) -> np.ndarray:
        """Which pairs link a document to the first document identical to it (in the method's
        view: the same compared text, ``exact``; or the same fingerprint, unverified
        ``simhash`` at distance 0). Methods report such copies as a star around the first."""
        simhash_same = (
            (self.method == METHODS.index("simhash"))
            & (self.distance == 0)
            & np.isnan(self.similarity)
        )
        return (self.method == METHODS.index("exact")) | simhash_same

    def closeness(self) -> np.ndarray:
        """One "higher is closer" score per pair: the verified similarity, else
        ``1 - distance / 64`` (used to choose the best representative)."""
        fallback = 1.0 - np.maximum(self.distance, 0).astype(np.float64) / 64.0
        sim = self.similarity.astype(np.float64)
        return np.where(np.isnan(sim), fallback, sim)

    def method_names(self) -> list[str]:
        return [METHODS[c] for c in self.method.tolist()]

    def sorted(self) -> PairSet:
        """Pairs in (left, right) order, duplicates of the same pair removed (first kept)."""
        if not len(self):
            return self
        order = np.lexsort((self.right, self.left))
        l_, r_ = self.left[order], self.right[order]
        first = np.ones(len(order), bool)
        first[1:] = (l_[1:] != l_[:-1]) | (r_[1:] != r_[:-1])
        return PairSet(
            l_[first],
            r_[first],
            self.distance[order][first],
            self.similarity[order][first],
            self.method[order][first],
            self.evidence,
        )
