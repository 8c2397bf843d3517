"""The protocol every deduplication method implements."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

import numpy as np

from .. import _kernels
from ..normalize import encode_texts
from ..pairs import PairSet


@runtime_checkable
class Method(Protocol):
    """Turns texts into verified duplicate pairs with evidence.

    ``measure`` names the method's own similarity measure (``hamming``, ``jaccard``, ``edit``,
    ``paragraph_share``); ``higher_is_closer`` says its direction and ``threshold`` is the default
    decision point on it (inclusive), so evaluation can sweep it.
    """

    name: str
    measure: str
    higher_is_closer: bool
    threshold: float

    def find_pairs(self, texts: Sequence[str]) -> PairSet:
        """Verified duplicate pairs among ``texts`` (positions into ``texts``)."""
        ...

    def score_pairs(self, left: Sequence[str], right: Sequence[str]) -> np.ndarray:
        """The method's measure for each aligned pair ``(left[i], right[i])``."""
        ...

    def compare(self, a: str, b: str) -> dict[str, Any]:
        """JSON-able explanation of one pair, including ``"duplicate": bool``."""
        ...


def is_close(
    scores: np.ndarray, threshold: float | np.ndarray, *, higher_is_closer: bool
) -> np.ndarray:
    """Which scores pass the threshold (inclusive, one or one per score) in the measure's direction."""
    scores = np.asarray(scores, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        return scores >= threshold if higher_is_closer else scores <= threshold


def identical_groups(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Groups of identical texts: first position of each group, group of each text, and the
    positions that repeat an earlier text."""
    cps, offsets = encode_texts(list(texts))
    doc_hash = _kernels.document_hashes(cps, offsets)
    order = np.argsort(doc_hash, kind="stable")
    sorted_hash = doc_hash[order]
    starts = np.r_[True, sorted_hash[1:] != sorted_hash[:-1]] if len(order) else np.empty(0, bool)
    group = np.empty(len(texts), np.int64)
    group[order] = np.cumsum(starts) - 1
    first = order[starts]
    copies = np.flatnonzero(first[group] != np.arange(len(texts)))
    same = np.fromiter(
        (texts[i] == texts[first[group[i]]] for i in copies.tolist()), bool, count=len(copies)
    )
    if not same.all():  # a 64-bit collision: the colliding texts get their own group
        for i in copies[~same].tolist():
            first = np.append(first, i)
            group[i] = len(first) - 1
        copies = copies[same]
    return first, group, copies


def exact_copy_pairs(first: np.ndarray, group: np.ndarray, copies: np.ndarray) -> PairSet:
    """Each repeated text paired with the first text it repeats (method ``exact``, similarity 1)."""
    return PairSet.build(
        first[group[copies]],
        copies,
        method="exact",
        similarity=np.ones(len(copies), np.float32),
    )
