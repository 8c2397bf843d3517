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


def first_copies(
    keys: np.ndarray,
    texts: Sequence[str] | np.ndarray | None = None,
    rank: np.ndarray | None = None,
) -> np.ndarray:
    """For each row, the row of the first row (lowest ``rank``; default: row order) with the
    same key — and, when ``texts`` are given, the same text, so that a 64-bit collision does not
    join different texts (a colliding row is its own first). The grouping of exact copies for
    every surface: one machine, and each Spark partition holding a key's rows."""
    n = len(keys)
    order = np.lexsort((np.arange(n) if rank is None else rank, keys))
    sorted_keys = keys[order]
    starts = np.r_[True, sorted_keys[1:] != sorted_keys[:-1]] if n else np.empty(0, bool)
    head = np.empty(n, np.int64)
    head[order] = order[np.flatnonzero(starts)[np.cumsum(starts) - 1]]
    if texts is not None:
        copies = np.flatnonzero(head != np.arange(n))
        same = np.fromiter(
            (texts[i] == texts[head[i]] for i in copies.tolist()), bool, count=len(copies)
        )
        head[copies[~same]] = copies[~same]
    return head


def identical_groups(texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Groups of identical texts: first position of each group (ascending), group of each text,
    and the positions that repeat an earlier text."""
    cps, offsets = encode_texts(list(texts))
    head = first_copies(_kernels.document_hashes(cps, offsets), texts)
    first = np.flatnonzero(head == np.arange(len(head)))
    return first, np.searchsorted(first, head), np.flatnonzero(head != np.arange(len(head)))


def exact_copy_pairs(first: np.ndarray, group: np.ndarray, copies: np.ndarray) -> PairSet:
    """Each repeated text paired with the first text it repeats (method ``exact``, similarity 1)."""
    return PairSet.build(
        first[group[copies]],
        copies,
        method="exact",
        similarity=np.ones(len(copies), np.float32),
    )
