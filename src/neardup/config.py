"""Frozen, validated configuration objects. No behaviour lives here.

Every config is a frozen dataclass checked in ``__post_init__``; a bad value raises
:class:`~neardup.errors.ConfigError` naming the parameter, the value, the allowed range and the fix.
``to_dict()`` gives the JSON-able form that is persisted beside fingerprints.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from .errors import ConfigError

#: Version of the fingerprint contract (hash function, normalisation, feature extraction).
#: Bump it whenever any of them changes what a fingerprint is; golden tests pin it.
FINGERPRINT_VERSION = "neardup-simhash-1"

FEATURE_KINDS = ("char", "word", "shingle")
WEIGHT_KINDS = ("uniform", "tf", "tfidf")


def _check_choice(name: str, value: Any, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise ConfigError(f"{name}={value!r} is not supported; choose one of {', '.join(choices)}")


def _check_int(name: str, value: Any, low: int, high: int, hint: str = "") -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    if not low <= value <= high:
        raise ConfigError(
            f"{name}={value} is out of range; it must be between {low} and {high}{hint}"
        )


class _Config:
    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)  # type: ignore[call-overload]


@dataclass(frozen=True, kw_only=True)
class NormalizeConfig(_Config):
    """How text is normalised before features are taken (see :mod:`neardup.normalize`)."""

    strip_html: bool = True
    casefold: bool = True
    remove_punctuation: bool = False
    cjk_only: bool = False

    def __post_init__(self) -> None:
        for name in ("strip_html", "casefold", "remove_punctuation", "cjk_only"):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(f"{name} must be True or False, got {getattr(self, name)!r}")


@dataclass(frozen=True, kw_only=True)
class FingerprintConfig(_Config):
    """What a 64-bit SimHash fingerprint is made of.

    ``features``: ``char`` (character n-grams of ``ngram`` characters, the default, good for CJK),
    ``word`` (words: rjieba for Chinese runs, a word regex for Latin), ``shingle`` (runs of
    ``ngram`` consecutive words). ``weights``: ``uniform`` (each distinct feature counts once),
    ``tf`` (each occurrence counts), ``tfidf`` (term frequency times IDF; IDF from jieba's table or,
    with ``idf="corpus"``, fitted on the input; unknown words get the median IDF).
    """

    features: str = "char"
    ngram: int = 3
    weights: str = "tf"
    idf: str = "default"
    normalize: NormalizeConfig = field(default_factory=NormalizeConfig)
    bits: int = 64

    def __post_init__(self) -> None:
        _check_choice("features", self.features, FEATURE_KINDS)
        _check_choice("weights", self.weights, WEIGHT_KINDS)
        _check_int(
            "ngram", self.ngram, 1, 16, " (character 3-grams are the usual choice for Chinese)"
        )
        if self.bits != 64:
            raise ConfigError(
                f"bits={self.bits} is not supported; fingerprints are 64-bit (bits=64)"
            )
        if not isinstance(self.idf, str) or not self.idf:
            raise ConfigError(
                f"idf={self.idf!r} must be 'default' (jieba's table), 'corpus' (fitted on the input) "
                "or the path of a 'word idf' text file"
            )
        if not isinstance(self.normalize, NormalizeConfig):
            raise ConfigError("normalize must be a NormalizeConfig")

    @property
    def version(self) -> str:
        return FINGERPRINT_VERSION


@dataclass(frozen=True, kw_only=True)
class HammingConfig(_Config):
    """Hamming search parameters: ``max_distance`` (k) and the permuted-table layout.

    ``blocks`` splits the 64 bits into that many blocks (it must exceed ``max_distance``); the index
    then holds ``math.comb(blocks, max_distance)`` tables. ``None`` chooses a layout from the corpus size.
    """

    max_distance: int = 3
    blocks: int | None = None

    def __post_init__(self) -> None:
        _check_int(
            "max_distance", self.max_distance, 0, 32, " (3 suits long texts, about 10 short ones)"
        )
        if self.blocks is not None:
            _check_int("blocks", self.blocks, 1, 64)
            if self.blocks <= self.max_distance:
                raise ConfigError(
                    f"blocks={self.blocks} must be greater than max_distance={self.max_distance} "
                    f"(pigeonhole: k differing bits leave at least one block intact); "
                    f"use blocks={self.max_distance + 1} or more, or blocks=None to choose automatically"
                )
