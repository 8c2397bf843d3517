"""The ``auto`` method: choose by length (reference 004: short texts need other tools than long).

- Texts of at most ``short_max_length`` normalised characters go to ``ngram`` (m-gram keys,
  Jaccard over character 3-grams >= ``short_threshold``), social-media markup (URLs, @mentions,
  ``#tags#``, ``[emoji]``, repost prefixes) stripped first (``short_strip_markup``).
- Texts of at least ``long_min_length`` characters go to ``simhash`` with a wider Hamming radius
  (``long_max_distance``), and also get candidates from a bottom-``long_sketch`` sample of their
  m-gram keys (which finds copies with heavier edits than a SimHash radius can reach; sketch keys
  shared by more than ``long_max_posting`` texts are templates and make no candidates); every
  candidate is verified by Jaccard >= ``long_threshold``, or >= ``latin_long_threshold`` when
  either text is written mostly in Latin script: unrelated English news articles already share
  0.2-0.4 of their character 3-grams (BBC News: median 0.29, 99th percentile 0.39), Chinese ones
  0.01-0.05 (CCTV), so one threshold cannot serve both.
- Texts are compared without punctuation (``ignore_punctuation``): repost noise disturbs it and
  a truncation mark (``…``) would otherwise be shared by unrelated texts.
- With ``paragraph=True``, long texts also go through ``paragraph`` (partial duplicates).

The two length ranges overlap (by default 100–200 characters), so a mid-length text is compared
with both its shorter and its longer neighbours: a pair is lost only if one text is at most
``long_min_length - 1`` and the other more than ``short_max_length`` characters long, and such a
length ratio already keeps Jaccard below 0.5 for all but containment. Pairs are merged; each keeps
the method that found it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from ..config import NormalizeConfig
from ..errors import ConfigError
from ..normalize import normalize_many
from ..pairs import PairSet
from .ngram import NgramConfig, NgramMethod
from .paragraph import ParagraphConfig, ParagraphMethod
from .simhash import SimhashConfig, SimhashMethod


@dataclass(frozen=True)
class AutoConfig:
    short_max_length: int = 200
    long_min_length: int = 100
    short_threshold: float = 0.4
    long_max_distance: int = 8
    long_threshold: float = 0.3
    latin_long_threshold: float = 0.4
    long_sketch: int | None = 16
    long_max_posting: int = 100
    short_strip_markup: bool = True
    fold_traditional: bool = True
    ignore_punctuation: bool = True
    paragraph: bool = False
    normalize: NormalizeConfig = field(default_factory=NormalizeConfig)

    def __post_init__(self) -> None:
        if self.long_min_length > self.short_max_length + 1:
            raise ConfigError(
                f"long_min_length={self.long_min_length} leaves texts of "
                f"{self.short_max_length + 1}..{self.long_min_length - 1} characters to no method; "
                f"make it at most short_max_length + 1 = {self.short_max_length + 1}"
            )
        if self.long_min_length < 1 or self.short_max_length < 1:
            raise ConfigError("short_max_length and long_min_length must be >= 1")
        if not 0.0 < float(self.latin_long_threshold) <= 1.0:
            raise ConfigError(f"latin_long_threshold={self.latin_long_threshold} must be in (0, 1]")
        self.parts()  # validates the sub-configurations

    @property
    def compare_normalize(self) -> NormalizeConfig:
        """``normalize``, with punctuation removed when ``ignore_punctuation`` (the default)."""
        if self.ignore_punctuation and not self.normalize.remove_punctuation:
            return replace(self.normalize, remove_punctuation=True)
        return self.normalize

    @property
    def long_floor(self) -> float:
        """The lowest long-route threshold: candidates are verified at this, then per script."""
        return float(min(self.long_threshold, self.latin_long_threshold))

    def long_limits(self, latin_a: np.ndarray, latin_b: np.ndarray) -> np.ndarray:
        """Per long pair, its threshold: ``latin_long_threshold`` if either text is Latin-script."""
        latin = np.asarray(latin_a, bool) | np.asarray(latin_b, bool)
        return np.where(latin, self.latin_long_threshold, self.long_threshold).astype(np.float64)

    def parts(self) -> tuple[NgramConfig, SimhashConfig, ParagraphConfig]:
        return (
            NgramConfig(
                threshold=self.short_threshold,
                strip_markup=self.short_strip_markup,
                fold_traditional=self.fold_traditional,
                normalize=self.compare_normalize,
            ),
            SimhashConfig(
                max_distance=self.long_max_distance,
                verify="jaccard",
                min_similarity=self.long_floor,
                normalize=self.compare_normalize,
            ),
            ParagraphConfig(normalize=self.normalize),
        )

    def long_ngram(self) -> NgramConfig | None:
        """The m-gram sketch route for long texts (``None`` when ``long_sketch`` is off)."""
        if self.long_sketch is None:
            return None
        return NgramConfig(
            threshold=self.long_floor,
            sketch=self.long_sketch,
            max_posting=self.long_max_posting,
            fold_traditional=self.fold_traditional,
            normalize=self.compare_normalize,
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


_LETTER = re.compile(r"[A-Za-z]")
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def latin_script(normalized: Sequence[str]) -> np.ndarray:
    """Per text: more Latin letters than CJK characters."""
    return np.fromiter(
        (len(_LETTER.findall(t)) > len(_CJK.findall(t)) for t in normalized),
        bool,
        count=len(normalized),
    )


class AutoMethod:
    """Length-aware: ``ngram`` for short texts, verified ``simhash`` for long ones."""

    name = "auto"
    measure = "jaccard"
    higher_is_closer = True

    def __init__(self, config: AutoConfig | None = None):
        self.config = config or AutoConfig()
        ngram_cfg, simhash_cfg, para_cfg = self.config.parts()
        self.short = NgramMethod(ngram_cfg)
        self.long = SimhashMethod(simhash_cfg)
        self.paragraph = ParagraphMethod(para_cfg) if self.config.paragraph else None
        sketch_cfg = self.config.long_ngram()
        self.long_sketch = NgramMethod(sketch_cfg) if sketch_cfg is not None else None
        self.stats: dict[str, Any] = {}

    @property
    def threshold(self) -> float:
        return float(min(self.config.short_threshold, self.config.long_floor))

    def _groups(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        norm = normalize_many(texts, self.config.compare_normalize)
        lengths = np.fromiter((len(t) for t in norm), np.int64, count=len(texts))
        short = np.flatnonzero(lengths <= self.config.short_max_length)
        long = np.flatnonzero(lengths >= self.config.long_min_length)
        return short, long, latin_script([norm[i] for i in long.tolist()])

    def find_pairs(self, texts: Sequence[str]) -> PairSet:
        short, long, latin = self._groups(texts)
        parts = []
        if len(short):
            parts.append(self.short.find_pairs([texts[i] for i in short.tolist()]).remap(short))
        long_texts = [texts[i] for i in long.tolist()]
        if len(long):
            found = self.long.find_pairs(long_texts)
            if self.long_sketch is not None:  # candidates SimHash misses: heavier edits
                more = self.long_sketch.find_pairs(long_texts)
                n = len(long_texts)
                known = found.left.astype(np.int64) * n + found.right
                new = ~np.isin(more.left.astype(np.int64) * n + more.right, known)
                found = PairSet.concat([found, more.select(new)])
            limits = self.config.long_limits(latin[found.left], latin[found.right])
            found = found.select(found.similarity >= limits)
            parts.append(found.remap(long))
            if self.paragraph is not None:
                parts.append(self.paragraph.find_pairs(long_texts).remap(long))
        self.stats = {
            "short_documents": len(short),
            "long_documents": len(long),
            "ngram": self.short.stats,
        }
        return PairSet.concat(parts).sorted()

    def _long_pairs(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Which pairs of compared-text lengths take the long route (else the short one)."""
        cfg = self.config
        return (np.maximum(a, b) > cfg.short_max_length) & (np.minimum(a, b) >= cfg.long_min_length)

    def _routes(self, left: Sequence[str], right: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Per pair: takes the long route; its threshold (short, or long by script)."""
        if len(left) != len(right):
            raise ValueError(f"{len(left)} left texts but {len(right)} right texts")
        cfg, n = self.config, len(left)
        norm = normalize_many([*left, *right], cfg.compare_normalize)
        lengths = np.fromiter((len(t) for t in norm), np.int64, count=2 * n)
        latin = latin_script(norm)
        long = self._long_pairs(lengths[:n], lengths[n:])
        return long, np.where(long, cfg.long_limits(latin[:n], latin[n:]), cfg.short_threshold)

    def pair_thresholds(self, left: Sequence[str], right: Sequence[str]) -> np.ndarray:
        """Per pair, the threshold of the route :meth:`compare` takes (short unless both are long;
        long pairs by script)."""
        return self._routes(left, right)[1]

    def score_pairs(self, left: Sequence[str], right: Sequence[str]) -> np.ndarray:
        """Jaccard over character 3-grams: the measure both routes verify with."""
        return self.short.score_pairs(left, right)

    def compare(self, a: str, b: str) -> dict[str, Any]:
        long, limits = self._routes([a], [b])
        route = "simhash" if long[0] else "ngram"
        verdict = (self.short if route == "ngram" else self.long).compare(a, b)
        if route == "simhash" and self.long_sketch is not None and not verdict["duplicate"]:
            sketch = self.long_sketch.compare(a, b)
            if sketch["duplicate"]:
                verdict = sketch
        if route == "simhash" and verdict["duplicate"]:  # the threshold of the pair's script
            limit = float(limits[0])
            sim = verdict.get("verified_similarity", verdict.get("similarity"))
            key = "min_similarity" if "min_similarity" in verdict else "threshold"
            verdict = {**verdict, key: limit, "duplicate": bool(sim >= limit)}
        if route == "simhash" and self.paragraph is not None and not verdict["duplicate"]:
            para = self.paragraph.compare(a, b)
            if para["duplicate"]:
                verdict = para
        return {
            "method": self.name,
            "route": route,
            **{k: v for k, v in verdict.items() if k != "method"},
        }
