"""Evaluation metrics against brute force over explicit pairs (the oracle)."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.evaluate.metrics import cluster_scores, pair_scores, threshold_sweep


def brute_prf(pred, gold):
    tp = sum(p and g for p, g in zip(pred, gold, strict=True))
    fp = sum(p and not g for p, g in zip(pred, gold, strict=True))
    fn = sum(g and not p for p, g in zip(pred, gold, strict=True))
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans()), max_size=30))
def test_pair_scores_equal_counting(rows):
    pred = np.array([r[0] for r in rows], bool)
    gold = np.array([r[1] for r in rows], bool)
    s = pair_scores(pred, gold)
    assert (s.precision, s.recall, s.f1) == pytest.approx(brute_prf(pred.tolist(), gold.tolist()))
    assert s.accuracy == pytest.approx(np.mean(pred == gold) if len(rows) else 1.0)


def test_empty_set_conventions():
    none = np.zeros(4, bool)
    s = pair_scores(none, np.array([1, 0, 1, 0], bool))
    assert s.precision == 1.0 and s.recall == 0.0 and s.f1 == 0.0  # nothing predicted
    s = pair_scores(np.array([1, 0, 0, 0], bool), none)
    assert s.precision == 0.0 and s.recall == 1.0 and s.f1 == 0.0  # no gold duplicates
    s = pair_scores(none, none)
    assert (s.precision, s.recall, s.f1, s.accuracy) == (1.0, 1.0, 1.0, 1.0)
    # nothing labelled duplicate: every threshold predicts a false positive (F1 0), nothing
    # predicted scores 1.0 (review: the best point was a threshold of precision 0)
    best = threshold_sweep(np.array([0.5, np.nan]), np.zeros(2, bool), higher_is_closer=True).best()
    assert (best["threshold"], best["precision"], best["recall"], best["f1"]) == (
        None,
        1.0,
        1.0,
        1.0,
    )
    for labels in ([True, True], [False, False], []):  # no pair has a score: none predicted
        best = threshold_sweep(
            np.full(len(labels), np.nan), np.array(labels, bool), higher_is_closer=True
        ).best()
        want = brute_prf([False] * len(labels), labels)
        assert best["threshold"] is None
        assert (best["precision"], best["recall"], best["f1"]) == pytest.approx(want)
    c = cluster_scores(np.arange(5), np.arange(5))  # all singletons on both sides
    assert (c.precision, c.recall, c.adjusted_rand_index) == (1.0, 1.0, 1.0)
    assert c.removed == 0 and c.removed_correctly_share == 1.0


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.9, 1.0, float("nan")]), st.booleans()),
        min_size=1,
        max_size=25,
    ),
    st.booleans(),
)
def test_sweep_equals_thresholding_each_value(rows, higher):
    scores = np.array([r[0] for r in rows])
    labels = np.array([r[1] for r in rows], bool)
    sweep = threshold_sweep(scores, labels, higher_is_closer=higher)
    values = sorted({x for x in scores.tolist() if x == x}, reverse=higher)
    assert sweep.thresholds.tolist() == values
    for t, p, r, f in zip(sweep.thresholds, sweep.precision, sweep.recall, sweep.f1, strict=True):
        with np.errstate(invalid="ignore"):
            pred = (scores >= t) if higher else (scores <= t)
        assert (p, r, f) == pytest.approx(brute_prf(pred.tolist(), labels.tolist()))
    best = sweep.best()  # the best of every threshold and of predicting nothing (the strictest)
    nothing = brute_prf([False] * len(labels), labels.tolist())
    assert best["f1"] == pytest.approx(max([nothing[2], *sweep.f1]))
    if best["threshold"] is None:
        assert (best["precision"], best["recall"]) == pytest.approx(nothing[:2])
        assert nothing[2] >= max(sweep.f1, default=0.0) - 1e-12


def brute_clusters(gold, pred):
    a = b = c = d = 0  # same-same, same gold only, same predicted only, neither
    for i, j in itertools.combinations(range(len(gold)), 2):
        g, p = gold[i] == gold[j], pred[i] == pred[j]
        a += g and p
        b += g and not p
        c += p and not g
        d += not g and not p
    precision = a / (a + c) if a + c else 1.0
    recall = a / (a + b) if a + b else 1.0
    denom = (a + b) * (b + d) + (a + c) * (c + d)
    ari = 2 * (a * d - b * c) / denom if denom else 1.0  # Hubert-Arabie via pair counts
    return precision, recall, ari


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=2, max_size=25))
def test_cluster_scores_equal_pair_enumeration(rows):
    gold = np.array([r[0] for r in rows])
    pred = np.array([r[1] for r in rows])
    s = cluster_scores(gold, pred)
    precision, recall, ari = brute_clusters(gold.tolist(), pred.tolist())
    assert (s.precision, s.recall) == pytest.approx((precision, recall))
    if not (s.gold_pairs == s.predicted_pairs == s.correct_pairs):
        assert s.adjusted_rand_index == pytest.approx(ari)


def test_removed_correctly():
    gold = np.array([0, 0, 1, 1, 2])
    pred = np.array([0, 0, 0, 1, 2])
    rep = np.array([0, 0, 0, 3, 4])  # 1 removed correctly (same gold as 0), 2 wrongly
    s = cluster_scores(gold, pred, rep)
    assert (s.removed, s.removed_correctly, s.removed_correctly_share) == (2, 1, 0.5)
