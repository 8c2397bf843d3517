"""The report's plots read back from their matplotlib figures, against brute-force counts."""

import itertools
import math

import numpy as np
import pytest

from neardup.evaluate.metrics import pair_scores, threshold_sweep
from neardup.evaluate.report import curves_figure

pytest.importorskip("matplotlib")


def brute_at(scores, labels, t, higher):
    """Precision, recall, F1 when a pair is a duplicate at threshold ``t`` (inclusive), counted."""
    tp = fp = fn = 0
    for s, g in zip(scores, labels, strict=True):
        p = not math.isnan(s) and (s >= t if higher else s <= t)
        tp += p and g
        fp += p and not g
        fn += g and not p
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1}


def entry_of(scores, labels, *, threshold, higher, measure="m"):
    """A report entry as ``evaluate_pairs`` makes it (sweep, default scores)."""
    scores, labels = np.asarray(scores, np.float64), np.asarray(labels, bool)
    with np.errstate(invalid="ignore"):
        predicted = scores >= threshold if higher else scores <= threshold
    curve = threshold_sweep(scores, labels, higher_is_closer=higher)
    return {
        "measure": measure,
        "higher_is_closer": higher,
        "threshold": threshold,
        "at_default_threshold": pair_scores(predicted, labels).to_dict(),
        "sweep": curve.to_dict(),
        "best_f1": curve.best(),
        "scores": {
            "all": scores.tolist(),
            "labels": labels.astype(int).tolist(),
            "length_class": ["short"] * len(scores),
        },
    }


def plotted_at(line, t, higher):
    """The value a step line shows at threshold ``t``: on the horizontal segment that holds
    ``t``, a step closed where the decision includes its score (``>=``: its right end)."""
    x, y = line.get_xdata(), line.get_ydata()
    for i in range(len(x) - 1):
        a, b = x[i], x[i + 1]
        if a < b and ((a < t <= b) if higher else (a <= t < b)):
            return y[i]
    raise AssertionError(f"no segment at {t}")


# a paragraph-like measure with few distinct values (the tester's pawsx case: 1.0, 0.9375, 0
# at the default 0.5), a Hamming distance, and a verified measure with NaN (never predicted)
CASES = [
    ([1.0, 1.0, 0.9375, 0.0, 0.0, 0.0, 0.0, 0.9375], [1, 0, 1, 1, 0, 1, 0, 1], 0.5, True),
    ([0, 1, 1, 3, 4, 7, 7, 12, 20, 33], [1, 1, 0, 1, 0, 1, 0, 0, 1, 0], 3.0, False),
    ([0.2, float("nan"), 0.7, 0.7, float("nan"), 0.95], [0, 1, 1, 0, 1, 1], 0.9, True),
]


@pytest.mark.parametrize("scores, labels, threshold, higher", CASES)
def test_curves_are_the_sweep_at_every_threshold(scores, labels, threshold, higher):
    fig = curves_figure("m", entry_of(scores, labels, threshold=threshold, higher=higher))
    ax = fig.axes[0]
    lines = {line.get_label(): line for line in ax.get_lines()}
    low, high = ax.get_xlim()
    values = sorted({s for s in scores if s == s})
    probes = {threshold, low + 1e-9, high - 1e-9, *values}
    probes |= {(a + b) / 2 for a, b in itertools.pairwise(values)}
    for t in sorted(p for p in probes if low < p < high):
        want = brute_at(scores, labels, t, higher)
        for key, label in (("precision", "precision"), ("recall", "recall"), ("f1", "F1")):
            assert plotted_at(lines[label], t, higher) == pytest.approx(want[key]), (key, t)
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_paragraph_f1_at_the_default_is_the_table_f1():
    """The tester's case: straight lines between 0 and 0.9375 showed F1 ~0.42 at 0.5."""
    scores, labels, threshold, higher = CASES[0]
    entry = entry_of(scores, labels, threshold=threshold, higher=higher)
    lines = {ln.get_label(): ln for ln in curves_figure("p", entry).axes[0].get_lines()}
    assert plotted_at(lines["F1"], 0.5, True) == pytest.approx(entry["at_default_threshold"]["f1"])


def test_threshold_lines_are_named_and_no_label_covers_the_curves():
    scores, labels, threshold, higher = CASES[1]
    entry = entry_of(scores, labels, threshold=threshold, higher=higher)
    fig = curves_figure("simhash", entry)
    ax = fig.axes[0]
    legend = {t.get_text() for t in ax.get_legend().get_texts()}
    best = entry["best_f1"]
    assert f"default threshold {threshold:g}" in legend
    assert f"best F1 {best['f1']:.3f} at {best['threshold']:g}" in legend
    by_label = {line.get_label(): line for line in ax.get_lines()}
    assert set(by_label[f"default threshold {threshold:g}"].get_xdata()) == {threshold}
    best_line = by_label[f"best F1 {best['f1']:.3f} at {best['threshold']:g}"]
    assert set(best_line.get_xdata()) == {best["threshold"]}
    # nothing written inside the axes; the legend beside them, not over the curves
    assert len(ax.texts) == 0
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    box, area = ax.get_legend().get_window_extent(renderer), ax.get_window_extent(renderer)
    assert box.x0 >= area.x1


def table_cells(page):
    """The rows of the first HTML table in ``page``, as header -> cell text."""
    from html.parser import HTMLParser

    class Cells(HTMLParser):
        def __init__(self):
            super().__init__()
            self.rows, self.cell = [], None

        def handle_starttag(self, tag, attrs):
            if tag == "tr":
                self.rows.append([])
            elif tag in ("td", "th"):
                self.cell = ""

        def handle_endtag(self, tag):
            if tag in ("td", "th"):
                self.rows[-1].append(self.cell)
                self.cell = None

        def handle_data(self, data):
            if self.cell is not None:
                self.cell += data

    parser = Cells()
    parser.feed(page)
    head, *rows = parser.rows
    return [dict(zip(head, row, strict=True)) for row in rows]


def page_of(kind, results):
    """``report.html`` of a report holding ``results``."""
    from neardup.evaluate.report import render_html

    for entry in results.values():
        entry.setdefault("parameters", {})
    report = {"input": "/data/x.jsonl", "kind": kind, "records": 10, "skipped": {},
              "neardup_version": "0", "sha256": "0" * 64, "conventions": "", "timing": "",
              "results": results}  # fmt: skip
    return render_html(report)


def test_numbers_are_written_as_what_they_are():
    """pairs/s below 100 read "54.700" (as 54,700 beside "3,882"); Hamming thresholds "3.000"."""
    scores, labels = [0, 1, 3, 3, 11, 20], [1, 1, 0, 1, 1, 0]
    pairs = {
        "simhash": entry_of(scores, labels, threshold=3.0, higher=False, measure="hamming"),
        "ngram": entry_of([0.1, 0.378161, 0.9], [0, 1, 1], threshold=0.5, higher=True),
        "auto": entry_of([0.0, 0.5], [1, 0], threshold=1e-06, higher=True),
    }
    for name, rate in (("simhash", 54.7), ("ngram", 3882.4), ("auto", 7.25)):
        pairs[name]["pairs_per_second"] = rate
    rows = {r["method"]: r for r in table_cells(page_of("pairs", pairs))}
    assert [rows[m]["pairs/s"] for m in pairs] == ["54.7", "3,882", "7.25"]
    assert [rows[m]["threshold"] for m in pairs] == ["3", "0.5", "1e-06"]
    assert rows["simhash"]["at threshold"] == f"{pairs['simhash']['best_f1']['threshold']:g}"
    assert rows["ngram"]["at threshold"] == "0.378161"
    for name, entry in pairs.items():  # every figure reads back as its value
        rate = float(rows[name]["pairs/s"].replace(",", ""))
        assert rate == pytest.approx(entry["pairs_per_second"], rel=0.01)
        assert float(rows[name]["F1"]) == pytest.approx(
            entry["at_default_threshold"]["f1"], abs=5e-4
        )
    s = {"precision": 1.0, "recall": 0.5, "f1": 2 / 3, "adjusted_rand_index": -0.05,
         "removed_correctly_share": 1.0}  # fmt: skip
    clusters = {
        "auto": {"scores": s, "predicted_clusters": 12345, "gold_clusters": 999,
                 "documents_per_second": 42.42},
    }  # fmt: skip
    (row,) = table_cells(page_of("clusters", clusters))
    assert (row["clusters"], row["gold clusters"], row["docs/s"]) == ("12,345", "999", "42.4")
    assert (row["F1"], row["ARI"]) == ("0.667", "-0.050")


def test_integer_measures_have_one_bin_per_integer(monkeypatch):
    """Hamming distances were cut into 30 bins of width 1.2 over 0..36: some bins held two
    distances (false spikes)."""
    import neardup.evaluate.report as report

    figures = []
    monkeypatch.setattr(report, "_svg", lambda fig: figures.append(fig) or "<svg></svg>")
    rng = np.random.default_rng(3)
    scores = rng.integers(0, 37, 300).astype(float).tolist()
    labels = (rng.random(300) < 0.4).tolist()
    entry = entry_of(scores, labels, threshold=3.0, higher=False, measure="hamming")
    page_of("pairs", {"simhash": {**entry, "pairs_per_second": 1.0}})
    (fig,) = [f for f in figures if f._suptitle and "by label" in f._suptitle.get_text()]
    for ax in fig.axes:  # all pairs, short texts: every pair here
        bars = 0
        for container in ax.containers:
            label = container.patches[0].get_label().startswith("duplicate")  # hist's label
            for bar in container:
                centre = bar.get_x() + bar.get_width() / 2
                assert bar.get_width() == pytest.approx(1.0) and centre == round(centre)
                want = sum(
                    s == round(centre) and g == label for s, g in zip(scores, labels, strict=True)
                )
                assert bar.get_height() == want
                bars += bar.get_height()
        assert bars == len(scores)
