"""The ``ngram`` method for short texts (reference 000): m-gram keys, exact verification.

Steps: normalise; group texts whose normalised form is identical (pairs of similarity 1.0,
method ``exact``, each linked to the first copy); index one copy of each by its character
m-grams (:mod:`neardup.index.ngram`); verify every candidate pair sharing a key with Jaccard
over character n-grams (or normalised edit similarity) against ``threshold``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from ..config import NormalizeConfig
from ..errors import ConfigError
from ..index.ngram import CandidateStats, candidate_pair_chunks, key_sets, share_a_key, sketch_keys
from ..markup import strip_markup
from ..nearmiss import NearMisses
from ..normalize import normalize_many
from ..pairs import PairSet
from ..parallel import chunk_ranges, map_ranges
from ..variants import fold_traditional
from ..verify import MEASURES, jaccard_at_least, ngram_sets, similarity_pairs
from .base import exact_copy_pairs, identical_groups

VERIFY_CHUNK = 2_000_000  # candidate pairs measured per call (bounded memory)


@dataclass(frozen=True, kw_only=True)
class NgramConfig:
    """Options of the ``ngram`` method.

    ``key_length`` (m): characters per index key; ``measure``: ``jaccard`` (over character
    ``ngram``-grams) or ``edit``; ``threshold``: the similarity a pair needs (inclusive);
    ``max_posting``: keys held by more texts than this make no candidates (``None``: no cap);
    ``sketch``: use only each text's ``sketch`` smallest key hashes (a bottom-k sample, for long
    texts; ``None``: every key); ``strip_markup``: drop social-media markup (URLs, @mentions,
    ``#tags#``, ``[emoji]``, repost prefixes; :mod:`neardup.markup`) before normalising;
    ``fold_traditional``: fold traditional Chinese characters to simplified (:mod:`neardup.variants`).
    """

    key_length: int = 4
    measure: str = "jaccard"
    ngram: int = 3
    threshold: float = 0.5
    max_posting: int | None = 2000
    sketch: int | None = None
    strip_markup: bool = False
    fold_traditional: bool = False
    normalize: NormalizeConfig = field(default_factory=NormalizeConfig)

    def __post_init__(self) -> None:
        if not isinstance(self.key_length, int) or not 1 <= self.key_length <= 32:
            raise ConfigError(
                f"key_length={self.key_length!r} must be an integer from 1 to 32 "
                "(reference 000 uses 4 or more characters)"
            )
        if self.measure not in MEASURES:
            raise ConfigError(
                f"measure={self.measure!r} is not supported; choose 'jaccard' or 'edit'"
            )
        if not isinstance(self.ngram, int) or not 1 <= self.ngram <= 16:
            raise ConfigError(f"ngram={self.ngram!r} must be an integer from 1 to 16")
        if not 0.0 < float(self.threshold) <= 1.0:
            raise ConfigError(f"threshold={self.threshold} must be in (0, 1]; 0.5 is the default")
        if self.max_posting is not None and (
            not isinstance(self.max_posting, int) or self.max_posting < 2
        ):
            raise ConfigError(f"max_posting={self.max_posting!r} must be an integer >= 2 or None")
        if self.sketch is not None and (not isinstance(self.sketch, int) or self.sketch < 1):
            raise ConfigError(f"sketch={self.sketch!r} must be an integer >= 1 or None")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class NgramMethod:
    """Short-text near-duplicates by shared m-grams and verified similarity."""

    name = "ngram"
    higher_is_closer = True

    def __init__(self, config: NgramConfig | None = None):
        self.config = config or NgramConfig()
        self.stats: dict[str, int] = {}
        self.near_misses = NearMisses()  # the last batch's closest rejected candidates
        self.workers = 1  # threads (results do not depend on it; see neardup.parallel)

    @property
    def measure(self) -> str:
        return self.config.measure

    def online_index(self) -> Any:
        from .incremental import NgramOnline

        return NgramOnline(self)

    def persisted(self) -> dict[str, Any]:
        """What defines stored data (checked when a store is reopened)."""
        return self.config.to_dict()

    @property
    def threshold(self) -> float:
        return float(self.config.threshold)

    def normalized(self, texts: Sequence[str]) -> list[str]:
        """The texts as the method compares them (markup stripped if asked, then normalised)."""
        if self.config.strip_markup:
            texts = strip_markup(texts)
        if self.config.fold_traditional:
            texts = fold_traditional(texts)
        return normalize_many(texts, self.config.normalize)

    def find_pairs(self, texts: Sequence[str]) -> PairSet:
        cfg = self.config
        norm = self.normalized(texts)
        first, group, copies = identical_groups(norm)
        # a text that normalising leaves empty is never a copy (nothing to compare), as online
        copies = copies[
            np.fromiter((bool(norm[c]) for c in copies.tolist()), np.bool_, len(copies))
        ]
        reps = np.sort(first)
        rep_texts = [norm[i] for i in reps.tolist()]
        stats, chunks = candidate_pair_chunks(
            rep_texts,
            key_length=cfg.key_length,
            max_posting=cfg.max_posting,
            sketch=cfg.sketch,
            workers=self.workers,
        )
        sets = ngram_sets(rep_texts, cfg.ngram) if cfg.measure == "jaccard" else None
        self.near_misses = NearMisses()
        found: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
        candidates = 0
        for left, right in chunks:  # bounded memory: a chunk's candidates at a time
            candidates += len(left)
            found.extend(self._verify(rep_texts, sets, reps, left, right))
        left = np.concatenate([f[0] for f in found]) if found else np.empty(0, np.int64)
        right = np.concatenate([f[1] for f in found]) if found else np.empty(0, np.int64)
        sim = np.concatenate([f[2] for f in found]) if found else np.empty(0, np.float32)
        stats = replace(stats, candidates=candidates)
        self.stats = self._stats(len(norm), len(copies), stats, len(left))
        self.stats["featureless_documents"] = norm.count("")  # never copies: said
        verified = PairSet.build(reps[left], reps[right], method="ngram", similarity=sim)
        return PairSet.concat([exact_copy_pairs(first, group, copies), verified])

    def _verify(
        self,
        texts: list[str],
        sets: tuple[np.ndarray, np.ndarray] | None,
        reps: np.ndarray,
        left: np.ndarray,
        right: np.ndarray,
    ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """The candidate pairs ``(left, right)`` that reach the threshold, with their similarity,
        ``VERIFY_CHUNK`` pairs at a time on ``workers`` threads; rejected pairs go to the near
        misses in chunk order. Jaccard is measured exactly only where it can reach the threshold
        or the lowest near miss held so far (below both, a pair can be neither)."""
        cfg = self.config
        out = []
        ranges = chunk_ranges(len(left), VERIFY_CHUNK)
        for at in range(0, len(ranges), self.workers):  # one chunk per thread, then the floor
            floor = min(cfg.threshold, self.near_misses.floor())  # is raised
            parts = [(left[lo:hi], right[lo:hi]) for lo, hi in ranges[at : at + self.workers]]

            def measure(k: int, _next: int, floor=floor, parts=parts) -> np.ndarray:
                part_l, part_r = parts[k]
                if sets is None:
                    return similarity_pairs(texts, part_l, part_r, measure=cfg.measure)
                return jaccard_at_least(sets, part_l, part_r, floor)

            sims = map_ranges(measure, len(parts), size=1, workers=self.workers)
            for (part_l, part_r), sim in zip(parts, sims, strict=True):
                keep = self.passes(sim)
                near = ~keep & (sim >= 0)  # -1: certainly below every near miss held
                self.near_misses.offer(
                    reps[part_l[near]],
                    reps[part_r[near]],
                    sim[near],
                    threshold=cfg.threshold,
                    route=cfg.measure,
                )
                out.append((part_l[keep], part_r[keep], sim[keep]))
        return out

    @staticmethod
    def _stats(n: int, copies: int, s: CandidateStats, verified: int) -> dict[str, int]:
        return {
            "documents": n,
            "exact_copies": copies,
            "distinct_texts": s.documents,
            "keys": s.keys,
            "pruned_keys": s.pruned_keys,
            "pruned_postings": s.pruned_postings,
            "candidates": s.candidates,
            "verified_pairs": verified,
        }

    def passes(self, similarity: np.ndarray) -> np.ndarray:
        """Which similarities reach ``threshold``, compared in the float32 they are computed in
        (7 of 10 grams reach 0.7, which float32 holds as 0.69999999), on every surface: batch,
        online, ``compare`` and ``eval``."""
        return np.asarray(similarity, np.float32) >= np.float32(self.config.threshold)

    def thresholds(self) -> dict[str, float]:
        """The decision point a report marks, by the measure it applies to."""
        return {f"{self.config.measure} similarity": self.config.threshold}

    def score_pairs(self, left: Sequence[str], right: Sequence[str]) -> np.ndarray:
        if len(left) != len(right):
            raise ValueError(f"{len(left)} left texts but {len(right)} right texts")
        norm = self.normalized(list(left) + list(right))
        n = len(left)
        idx = np.arange(n)
        scores = similarity_pairs(
            norm, idx, idx + n, measure=self.config.measure, ngram=self.config.ngram
        ).astype(np.float64)
        empty = np.fromiter((not t for t in norm), np.bool_, len(norm))
        same = np.fromiter(map(str.__eq__, norm[:n], norm[n:]), np.bool_, n)  # exact copies
        found = same | self._candidates(norm, idx, idx + n)
        scores[empty[:n] | empty[n:] | ~found] = 0.0  # never compared in a batch: no copy
        scores[same & ~empty[:n]] = 1.0
        reached = self.passes(scores) & (scores < self.config.threshold)  # float32's last digit
        scores[reached] = self.config.threshold
        return scores

    def _candidates(self, norm: list[str], left: np.ndarray, right: np.ndarray) -> np.ndarray:
        """Which pairs of normalised texts a batch makes candidates: they share one of their
        index keys (the ``sketch`` smallest, when set; :func:`candidate_pair_chunks`)."""
        cfg = self.config
        return share_a_key(*sketch_keys(*key_sets(norm, cfg.key_length), cfg.sketch), left, right)

    def compare(self, a: str, b: str) -> dict[str, Any]:
        cfg = self.config
        na, nb = self.normalized([a, b])
        values, offsets = sketch_keys(*key_sets([na, nb], cfg.key_length), cfg.sketch)
        ka, kb = values[offsets[0] : offsets[1]], values[offsets[1] : offsets[2]]
        shared = len(np.intersect1d(ka, kb))  # of the keys a batch indexes
        sim = float(
            similarity_pairs(
                [na, nb], np.array([0]), np.array([1]), measure=cfg.measure, ngram=cfg.ngram
            )[0]
        )
        if not (na and nb):  # nothing to compare: scored 0, as eval scores it
            sim = 0.0
        return {
            "method": self.name,
            "normalized_a": na,
            "normalized_b": nb,
            "key_length": cfg.key_length,
            "shared_keys": shared,
            "measure": cfg.measure,
            "similarity": round(sim, 6),
            "threshold": cfg.threshold,
            # identical normalised texts are exact copies, as a batch groups them first; a text
            # with nothing left once normalised is nobody's copy
            "duplicate": bool(
                na and nb and (na == nb or (shared > 0 and self.passes(np.array([sim]))[0]))
            ),
        }
