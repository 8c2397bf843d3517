"""Exact similarity of candidate pairs: Jaccard over character n-gram sets, or edit similarity.

Conventions: two empty texts have similarity 1.0; an empty and a non-empty text 0.0. A text
shorter than ``n`` is one n-gram (itself). Texts are compared as given: pass normalised texts.

>>> similarity("今天天气很好", "今天天气真好", measure="jaccard", ngram=2)
0.4285714...
>>> round(similarity("kitten", "sitting", measure="edit"), 4)
0.5714
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import _kernels, _pairkernels
from .errors import ConfigError
from .normalize import encode_texts

MEASURES = ("jaccard", "edit")


def ngram_sets(texts: Sequence[str], n: int) -> tuple[np.ndarray, np.ndarray]:
    """Each text's distinct character n-gram hashes, sorted: ``(values, offsets)``."""
    cps, offsets = encode_texts(texts)
    hashes, hoff = _kernels.char_ngram_hashes(cps, offsets, n)
    return _kernels.unique_per_doc(hashes, hoff)


def _check(measure: str, ngram: int) -> None:
    if measure not in MEASURES:
        raise ConfigError(f"measure={measure!r} is not supported; choose 'jaccard' or 'edit'")
    if ngram < 1:
        raise ConfigError(f"ngram={ngram} must be >= 1")


def edit_similarity_pairs(texts: Sequence[str], left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Normalised Levenshtein similarity ``1 - distance / max(len)`` of each pair (rapidfuzz)."""
    from rapidfuzz.distance import Levenshtein
    from rapidfuzz.process import cpdist

    if not len(left):
        return np.empty(0, np.float32)
    a = [texts[i] for i in np.asarray(left).tolist()]
    b = [texts[i] for i in np.asarray(right).tolist()]
    sim = cpdist(a, b, scorer=Levenshtein.normalized_similarity, dtype=np.float32)
    return np.asarray(sim, np.float32)


def similarity_pairs(
    texts: Sequence[str],
    left: np.ndarray,
    right: np.ndarray,
    *,
    measure: str = "jaccard",
    ngram: int = 3,
    sets: tuple[np.ndarray, np.ndarray] | None = None,
) -> np.ndarray:
    """Similarity of each candidate pair ``(texts[left[i]], texts[right[i]])`` (float32).

    ``sets`` may pass precomputed :func:`ngram_sets` of ``texts`` to avoid hashing twice.
    """
    _check(measure, ngram)
    left = np.ascontiguousarray(left, np.int64)
    right = np.ascontiguousarray(right, np.int64)
    if measure == "edit":
        return edit_similarity_pairs(texts, left, right)
    return jaccard_at_least(
        sets if sets is not None else ngram_sets(texts, ngram), left, right, 0.0
    )


def jaccard_at_least(
    sets: tuple[np.ndarray, np.ndarray], left: np.ndarray, right: np.ndarray, floor: float
) -> np.ndarray:
    """Jaccard of each pair of :func:`ngram_sets` rows, exact wherever it reaches ``floor``
    (the same float32 value as :func:`similarity_pairs`), and -1 where it certainly does not.

    Jaccard ``>= f`` means ``common >= f (|A| + |B|) / (1 + f)``; the compiled merge stops as
    soon as that many common values are out of reach, which is most of the work on pairs that
    share one key and little else. ``floor`` is lowered by 1e-6 so that rounding never loses a
    pair at the bound.
    """
    values, offsets = sets
    left = np.ascontiguousarray(left, np.int64)
    right = np.ascontiguousarray(right, np.int64)
    return _pairkernels.jaccard_at_least(
        values, offsets, left, right, max(float(floor) - 1e-6, 0.0)
    )


def similarity(a: str, b: str, *, measure: str = "jaccard", ngram: int = 3) -> float:
    """Similarity of one pair of texts."""
    pair = np.array([0]), np.array([1])
    return float(similarity_pairs([a, b], *pair, measure=measure, ngram=ngram)[0])
