"""Near misses: the rejected candidates closest to being called duplicates.

A method that verifies candidates offers its rejections to a :class:`NearMisses`, which keeps the
``limit`` with the highest score (a bounded sample however many candidates a run rejects). The
dedup report shows them beside the removals nearest the threshold: that is where a user decides
whether a threshold is right.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

#: How many rejected candidates a run keeps by default.
NEAR_MISS_LIMIT = 50


@dataclass
class NearMisses:
    """The ``limit`` rejected candidate pairs with the highest score, with why they failed."""

    limit: int = NEAR_MISS_LIMIT
    rows: list[dict[str, Any]] = field(default_factory=list)

    def offer(
        self,
        left: np.ndarray,
        right: np.ndarray,
        score: np.ndarray,
        *,
        threshold: float,
        route: str,
        reason: Callable[[int], str] | None = None,
    ) -> None:
        """Consider rejected pairs ``(left[k], right[k])`` with their ``score`` (higher is
        closer); ``reason(k)``, when given, says what failed (asked only of the pairs kept)."""
        score = np.round(np.asarray(score, np.float64), 6)  # as the rows keep it
        if not len(score) or self.limit <= 0:
            return
        near = np.arange(len(score))
        if len(score) > self.limit:  # the top ``limit`` and their ties
            bound = np.partition(-score, self.limit - 1)[self.limit - 1]
            near = np.flatnonzero(-score <= bound)
        # ties by position, as the rows are sorted: the rows held do not depend on how the
        # rejected pairs were split into offers
        order = np.lexsort((np.asarray(right)[near], np.asarray(left)[near], -score[near]))
        take = near[order][: self.limit]
        for k in take.tolist():
            self.rows.append(
                {
                    "left": int(left[k]),
                    "right": int(right[k]),
                    "score": round(float(score[k]), 6),
                    "threshold": float(threshold),
                    "route": route,
                    "reason": reason(k) if reason is not None else f"{score[k]:.3f} < {threshold}",
                }
            )
        self.rows.sort(key=lambda r: (-r["score"], r["left"], r["right"]))
        del self.rows[self.limit :]

    def floor(self) -> float:
        """The score a rejected pair needs to enter (0 until ``limit`` rows are held, infinite
        when none are kept): a caller may skip measuring pairs certainly below it."""
        if self.limit <= 0:
            return float("inf")
        if len(self.rows) < self.limit:
            return 0.0
        return float(self.rows[-1]["score"]) - 1e-6  # scores are kept rounded to 6 places

    def remap(self, positions: np.ndarray) -> NearMisses:
        """The same rows with positions translated (a sub-batch's index -> the full batch's)."""
        pos = np.asarray(positions, np.int64)
        rows = [
            {**r, "left": int(pos[r["left"]]), "right": int(pos[r["right"]])} for r in self.rows
        ]
        return NearMisses(self.limit, rows)

    def to_list(self) -> list[dict[str, Any]]:
        return [dict(r) for r in self.rows]
