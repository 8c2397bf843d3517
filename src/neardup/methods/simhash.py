"""The ``simhash`` method: 64-bit SimHash, permuted-table Hamming search, optional verification."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..config import FingerprintConfig, HammingConfig, NormalizeConfig
from ..errors import ConfigError
from ..index.permuted import hamming_edges
from ..nearmiss import NearMisses
from ..normalize import normalize_many
from ..pairs import PairSet
from ..simhash import Fingerprinter, hamming_distances

VERIFY_MEASURES = ("jaccard", "edit")


@dataclass(frozen=True, kw_only=True)
class SimhashConfig:
    """Options of the ``simhash`` method.

    ``verify``: ``None`` (accept every pair within ``max_distance``), ``"jaccard"`` (character
    ``verify_ngram``-gram Jaccard) or ``"edit"`` (normalised edit similarity); a verified pair is
    kept when its similarity is at least ``min_similarity``.
    """

    max_distance: int = 3
    blocks: int | None = None
    features: str = "char"
    ngram: int = 3
    weights: str = "tf"
    idf: str = "default"
    normalize: NormalizeConfig = field(default_factory=NormalizeConfig)
    verify: str | None = None
    min_similarity: float = 0.5
    verify_ngram: int = 3

    def __post_init__(self) -> None:
        self.fingerprint_config()  # validates the fingerprint options
        HammingConfig(max_distance=self.max_distance, blocks=self.blocks)
        if self.verify is not None and self.verify not in VERIFY_MEASURES:
            raise ConfigError(
                f"verify={self.verify!r} is not supported; choose None, 'jaccard' or 'edit'"
            )
        if not 0.0 <= float(self.min_similarity) <= 1.0:
            raise ConfigError(f"min_similarity={self.min_similarity} must be between 0 and 1")
        if isinstance(self.verify_ngram, bool) or not (
            isinstance(self.verify_ngram, int) and 1 <= self.verify_ngram <= 64
        ):
            raise ConfigError(
                f"verify_ngram={self.verify_ngram!r} must be a whole number from 1 to 64"
            )

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def fingerprint_config(self) -> FingerprintConfig:
        return FingerprintConfig(
            features=self.features,
            ngram=self.ngram,
            weights=self.weights,
            idf=self.idf,
            normalize=self.normalize,
        )


class SimhashMethod:
    """SimHash candidates within ``max_distance``, optionally verified by an exact similarity."""

    name = "simhash"
    measure = "hamming"
    higher_is_closer = False

    def __init__(self, config: SimhashConfig | None = None):
        self.config = config or SimhashConfig()
        self.fingerprinter = Fingerprinter(self.config.fingerprint_config())
        self.near_misses = NearMisses()  # the last batch's closest rejected candidates

    def online_index(self) -> Any:
        from .incremental import SimhashIndex

        return SimhashIndex(self)

    def persisted(self) -> dict[str, Any]:
        """What defines stored data (checked when a store is reopened): the options, and with
        TF-IDF weights from a table (``default``: jieba's, or a file), that table's digest —
        its path or name alone would reopen a store after the table changed, and every stored
        fingerprint would then differ from a new copy's."""
        out = self.config.to_dict()
        if self.config.weights == "tfidf" and self.config.idf != "corpus":
            from ..idf import load_idf

            out["idf_digest"] = load_idf(self.config.idf).digest()
        return out

    @property
    def threshold(self) -> float:
        return float(self.config.max_distance)

    def thresholds(self) -> dict[str, float]:
        """The decision points a report marks, by the measure they apply to."""
        cfg = self.config
        marks = {"hamming distance": float(cfg.max_distance)}
        if cfg.verify is not None:
            marks[f"{cfg.verify} similarity"] = cfg.min_similarity
        return marks

    def fingerprint_many(self, texts: Sequence[str]) -> np.ndarray:
        return self.fingerprinter.fingerprint_many(texts)

    def pairs_from_fingerprints(
        self, fingerprints: np.ndarray, normalized: Sequence[str] | None = None
    ) -> PairSet:
        """Pairs from precomputed fingerprints; ``normalized`` texts are needed to verify. A
        text with no feature once normalised (fingerprint 0: markup, punctuation or, with
        ``cjk_only``, other scripts alone) is never a duplicate: all such texts share one
        fingerprint and nothing else (:func:`featureless`)."""
        left, right, dist = hamming_edges(
            fingerprints, max_distance=self.config.max_distance, blocks=self.config.blocks
        )
        # said in the run's summary: such texts are kept whatever they repeat
        self.stats = {"featureless_documents": int(featureless(np.asarray(fingerprints)).sum())}
        if len(left):
            fps = np.asarray(fingerprints)
            usable = ~featureless(fps[left]) & ~featureless(fps[right])
            left, right, dist = left[usable], right[usable], dist[usable]
        if self.config.verify is None or not len(left):
            return PairSet.build(left, right, method="simhash", distance=dist)
        if normalized is None:
            raise ConfigError("verify needs the texts: call find_pairs(texts)")
        sim, keep = self._verified(normalized, left, right)
        self.near_misses = NearMisses()
        self.near_misses.offer(
            left[~keep],
            right[~keep],
            sim[~keep],
            threshold=self.config.min_similarity,
            route=f"{self.config.verify} similarity",
        )
        return PairSet.build(
            left[keep], right[keep], method="simhash", distance=dist[keep], similarity=sim[keep]
        )

    def _verified(
        self, normalized: Sequence[str], left: np.ndarray, right: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """The ``verify`` similarity of each pair of ``normalized`` texts, and which pass."""
        from ..verify import similarity_pairs

        sim = similarity_pairs(
            normalized, left, right, measure=self.config.verify, ngram=self.config.verify_ngram
        )
        return sim, sim >= self.config.min_similarity

    def verify_pairs(
        self, left: Sequence[str], right: Sequence[str]
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """The verified similarity of each pair ``(left[k], right[k])`` and whether it passes,
        as :meth:`find_pairs` checks a pair within ``max_distance`` (``None`` without
        ``verify``): what evaluation scores besides the Hamming distance."""
        if self.config.verify is None:
            return None
        normalized = normalize_many(list(left) + list(right), self.config.normalize)
        at = np.arange(len(left))
        return self._verified(normalized, at, at + len(left))

    def find_pairs(self, texts: Sequence[str]) -> PairSet:
        normalized = normalize_many(texts, self.config.normalize)
        fps = self.fingerprinter.fingerprint_many(normalized, normalized=True)
        return self.pairs_from_fingerprints(fps, normalized)

    def score_pairs(self, left: Sequence[str], right: Sequence[str]) -> np.ndarray:
        if len(left) != len(right):
            raise ValueError(f"{len(left)} left texts but {len(right)} right texts")
        fps = self.fingerprinter.fingerprint_many(list(left) + list(right))
        scores = hamming_distances(fps[: len(left)], fps[len(left) :]).astype(np.float64)
        nothing = featureless(fps[: len(left)]) | featureless(fps[len(left) :])
        scores[nothing] = 64.0  # no feature to compare: as far apart as fingerprints go
        return scores

    def compare(self, a: str, b: str) -> dict[str, Any]:
        fa, fb = (int(x) for x in self.fingerprinter.fingerprint_many([a, b]))
        distance = (fa ^ fb).bit_count()
        out: dict[str, Any] = {
            "method": self.name,
            "fingerprint_a": f"{fa:016x}",
            "fingerprint_b": f"{fb:016x}",
            "hamming_distance": distance,
            "max_distance": self.config.max_distance,
        }
        duplicate = distance <= self.config.max_distance and bool(fa and fb)  # featureless
        verified = self.verify_pairs([a], [b])  # as find_pairs decides (float32 similarity)
        if verified is not None:
            sim, passes = verified
            out["verified_similarity"] = float(sim[0])
            out["min_similarity"] = self.config.min_similarity
            duplicate = duplicate and bool(passes[0])
        out["duplicate"] = duplicate
        return out


def featureless(fingerprints: np.ndarray) -> np.ndarray:
    """Which fingerprints carry no evidence: 0, the fingerprint of a text with no weighted
    feature once normalised — markup alone, another script under ``cjk_only``, marks alone
    under ``remove_punctuation``, or with tf-idf fitted on the corpus only features every
    document holds (weight 0). A text with weighted features gets 0 only when all 64 bit
    counters tie or fall below zero (for two features of equal weight (3/4)^64, less for more).
    Such texts are never matched, by batch, online or Spark: they share fingerprint 0 and
    nothing else."""
    return np.asarray(fingerprints) == 0
