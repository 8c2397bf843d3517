"""Scores of a deduplication against labels: pairs, threshold sweeps, clusters.

Empty-set conventions (stated in every report): **precision is 1.0 when nothing is predicted
duplicate** (no claim, so no wrong claim), **recall is 1.0 when there is no true duplicate**
(nothing to find, so nothing missed), and F1 is the harmonic mean of the two (0.0 when both
are 0). Accuracy over no pairs is 1.0. The adjusted Rand index of two identical partitions is
1.0, including the degenerate cases (all singletons, or one cluster) where its formula is 0/0.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

CONVENTIONS = (
    "Precision is 1.0 when nothing is predicted duplicate (no claim, so no wrong claim); recall "
    "is 1.0 when there is no true duplicate (nothing to find, so nothing missed); F1 is their "
    "harmonic mean (0.0 when both are 0); accuracy over no pairs is 1.0; the adjusted Rand "
    "index of two identical partitions is 1.0, also in the degenerate cases where its formula "
    "is 0/0."
)


@dataclass(frozen=True)
class PairScores:
    precision: float
    recall: float
    f1: float
    accuracy: float
    true_positives: int
    false_positives: int
    false_negatives: int
    true_negatives: int

    def to_dict(self) -> dict:
        return asdict(self)


def _prf(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


def pair_scores(predicted: np.ndarray, labels: np.ndarray) -> PairScores:
    """Scores of boolean predictions against boolean labels (aligned arrays)."""
    predicted = np.asarray(predicted, bool)
    labels = np.asarray(labels, bool)
    if predicted.shape != labels.shape:
        raise ValueError(f"{predicted.shape[0]} predictions but {labels.shape[0]} labels")
    tp = int((predicted & labels).sum())
    fp = int((predicted & ~labels).sum())
    fn = int((~predicted & labels).sum())
    tn = int((~predicted & ~labels).sum())
    precision, recall, f1 = _prf(tp, fp, fn)
    accuracy = (tp + tn) / len(labels) if len(labels) else 1.0
    return PairScores(precision, recall, f1, accuracy, tp, fp, fn, tn)


@dataclass(frozen=True)
class Sweep:
    """Precision, recall and F1 when pairs at least as close as each threshold are duplicates."""

    thresholds: np.ndarray
    precision: np.ndarray
    recall: np.ndarray
    f1: np.ndarray
    positives: int = 0  # pairs labelled duplicate (what recall counts when nothing is predicted)

    def best(self) -> dict:
        """The best-F1 point (ties: the strictest threshold). Stricter than every score,
        nothing is predicted duplicate (threshold None): the best point when no pair has a
        score, or when no threshold does better (no pair labelled duplicate: F1 1.0 by the
        empty-set conventions, where every threshold predicts a false positive)."""
        nothing = {"threshold": None, **none_predicted(self.positives)}
        if not len(self.thresholds) or nothing["f1"] >= float(np.max(self.f1)):
            return nothing
        i = int(np.argmax(self.f1))
        return {
            "threshold": float(self.thresholds[i]),
            "precision": float(self.precision[i]),
            "recall": float(self.recall[i]),
            "f1": float(self.f1[i]),
        }

    def to_dict(self) -> dict:
        return {k: np.asarray(v).tolist() for k, v in asdict(self).items()}


def threshold_sweep(scores: np.ndarray, labels: np.ndarray, *, higher_is_closer: bool) -> Sweep:
    """Every distinct score as a threshold, from the strictest to the loosest (vectorised).

    NaN scores (no measure for the pair) are never predicted duplicate.
    """
    scores = np.asarray(scores, np.float64)
    labels = np.asarray(labels, bool)
    if scores.shape != labels.shape:
        raise ValueError(f"{scores.shape[0]} scores but {labels.shape[0]} labels")
    ok = ~np.isnan(scores)
    closeness = np.where(higher_is_closer, scores, -scores)[ok]
    order = np.argsort(-closeness, kind="stable")
    c = closeness[order]
    pos = labels[ok][order]
    tp = np.cumsum(pos)
    fp = np.cumsum(~pos)
    last = np.r_[c[1:] != c[:-1], True] if len(c) else np.empty(0, bool)
    tp, fp = tp[last], fp[last]
    total = int(labels.sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(tp + fp > 0, tp / np.maximum(tp + fp, 1), 1.0)
        recall = tp / total if total else np.ones(len(tp))
        f1 = np.where(precision + recall > 0, 2 * precision * recall / (precision + recall), 0.0)
    thresholds = c[last] if higher_is_closer else -c[last]
    return Sweep(thresholds, precision, recall, f1, total)


def none_predicted(positives: int) -> dict[str, float]:
    """Precision, recall and F1 at a threshold stricter than every score: nothing is predicted
    duplicate (the empty-set conventions)."""
    precision, recall, f1 = _prf(0, 0, positives)
    return {"precision": precision, "recall": recall, "f1": f1}


def step_curve(
    thresholds: np.ndarray,
    values: np.ndarray,
    *,
    higher_is_closer: bool,
    beyond: float,
    low: float,
    high: float,
) -> tuple[np.ndarray, np.ndarray]:
    """The vertices of a sweep's measure at every threshold from ``low`` to ``high``.

    The pairs predicted duplicate change only at a score, so the measure is a step function
    of the threshold: it keeps a score's value (``values`` at ``thresholds``) over the interval
    that decides like that score, which lies below the score when duplicates score at least the
    threshold (``higher_is_closer``) and above it when they score at most. ``beyond`` is its
    value past the strictest score (:func:`none_predicted`). Joining the sweep's points with
    straight lines would show values no threshold gives.
    """
    x = np.asarray(thresholds, np.float64)
    order = np.argsort(x)
    x, y = x[order], np.asarray(values, np.float64)[order]
    levels = np.r_[y, beyond] if higher_is_closer else np.r_[beyond, y]  # left of x[0] .. right
    if len(x):
        low, high = min(low, x[0]), max(high, x[-1])
    return np.r_[low, np.repeat(x, 2), high], np.repeat(levels, 2)


def _pairs_in(counts: np.ndarray) -> int:
    counts = np.asarray(counts, np.int64)
    return int((counts * (counts - 1) // 2).sum())


@dataclass(frozen=True)
class ClusterScores:
    precision: float
    recall: float
    f1: float
    adjusted_rand_index: float
    predicted_pairs: int
    gold_pairs: int
    correct_pairs: int
    removed: int
    removed_correctly: int
    removed_correctly_share: float

    def to_dict(self) -> dict:
        return asdict(self)


def cluster_scores(
    gold: np.ndarray, predicted: np.ndarray, representative: np.ndarray | None = None
) -> ClusterScores:
    """Pairwise precision/recall/F1 and ARI of a predicted partition against the gold one.

    Pairs are counted from the contingency table (``C(n, 2)`` per cell), never listed, so a
    cluster of a million documents costs nothing special. With ``representative`` (the kept
    document of each document's predicted cluster), a removed document is removed correctly
    when its representative is in its gold cluster.
    """
    gold = np.asarray(gold)
    predicted = np.asarray(predicted)
    if gold.shape != predicted.shape:
        raise ValueError(f"{gold.shape[0]} gold labels but {predicted.shape[0]} predicted")
    n = len(gold)
    _, g = np.unique(gold, return_inverse=True)
    _, p = np.unique(predicted, return_inverse=True)
    cells = np.unique(np.stack([g, p]), axis=1, return_counts=True)[1] if n else np.empty(0)
    correct = _pairs_in(cells)
    gold_pairs = _pairs_in(np.bincount(g)) if n else 0
    predicted_pairs = _pairs_in(np.bincount(p)) if n else 0
    precision, recall, f1 = _prf(correct, predicted_pairs - correct, gold_pairs - correct)
    total = n * (n - 1) // 2
    expected = gold_pairs * predicted_pairs / total if total else 0.0
    maximum = (gold_pairs + predicted_pairs) / 2
    if maximum == expected:  # degenerate partitions: 1.0 when they agree
        ari = 1.0 if gold_pairs == predicted_pairs == correct else 0.0
    else:
        ari = (correct - expected) / (maximum - expected)
    removed = removed_ok = 0
    if representative is not None:
        representative = np.asarray(representative, np.int64)
        members = np.flatnonzero(representative != np.arange(n))
        removed = len(members)
        removed_ok = int((g[members] == g[representative[members]]).sum())
    share = removed_ok / removed if removed else 1.0
    return ClusterScores(
        precision,
        recall,
        f1,
        float(ari),
        predicted_pairs,
        gold_pairs,
        correct,
        removed,
        removed_ok,
        share,
    )
