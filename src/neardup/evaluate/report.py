"""``report.json`` and a self-contained ``report.html`` (inline SVG plots from matplotlib)."""

from __future__ import annotations

import html
import io
import json
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import require
from ..pipeline.outputs import refuse_output
from ..report.page import starts_with
from .metrics import none_predicted, step_curve

COLORS = {"label_1": "#d62728", "label_0": "#1f77b4"}
JSON, HTML = "report.json", "report.html"
HEAD = "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>neardup eval report"


def _svg(fig: Any) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    import matplotlib.pyplot as plt

    plt.close(fig)
    text = buf.getvalue()
    return text[text.index("<svg") :]


def require_plots() -> Any:
    """matplotlib, which the report's plots need (extra ``neardup[eval]``), or an error naming
    the extra: asked before an evaluation starts, so that no run ends without its report."""
    return require("matplotlib", extra="eval", purpose="neardup eval's report (its plots)")


def _pyplot() -> Any:
    """matplotlib's pyplot, drawing to no screen (:func:`require_plots`)."""
    require_plots().use("Agg")
    import matplotlib.pyplot as plt

    return plt


CURVE_STYLES = (("precision", "-", 1.4), ("recall", "--", 1.4), ("f1", "-", 2.0))
MARKED_STEPS = 40  # up to this many sweep points, each is marked where its step is closed


def curves_figure(name: str, entry: dict) -> Any:
    """Precision, recall and F1 against the threshold, as the step functions they are
    (:func:`~neardup.evaluate.metrics.step_curve`): the plot equals the sweep at every
    threshold it shows. The default and the best-F1 thresholds are vertical lines named in a
    legend beside the axes, where no label covers a curve."""
    plt = _pyplot()
    s, best, higher = entry["sweep"], entry["best_f1"], entry["higher_is_closer"]
    default = entry["at_default_threshold"]
    beyond = none_predicted(default["true_positives"] + default["false_negatives"])
    marks = [*s["thresholds"], entry["threshold"]]
    low, high = min(marks), max(marks)
    pad = 0.04 * (high - low) if high > low else 0.5
    fig, ax = plt.subplots(figsize=(8.4, 3.6))
    n = len(s["thresholds"])
    closed = list(range(1, 2 * n + 1, 2)) if higher else list(range(2, 2 * n + 2, 2))
    for key, style, width in CURVE_STYLES:
        x, y = step_curve(
            s["thresholds"], s[key], higher_is_closer=higher, beyond=beyond[key],
            low=low - pad, high=high + pad,
        )  # fmt: skip
        ax.plot(
            x, y, style, label="F1" if key == "f1" else key, linewidth=width,
            marker="o" if n <= MARKED_STEPS else None, markersize=3, markevery=closed,
        )  # fmt: skip
    ax.axvline(
        entry["threshold"], color="black", linewidth=0.9, alpha=0.6,
        label=f"default threshold {_threshold(entry['threshold'])}",
    )  # fmt: skip
    if best["threshold"] is not None:
        ax.axvline(
            best["threshold"], color="grey", linestyle=":", linewidth=1.2,
            label=f"best F1 {best['f1']:.3f} at {_threshold(best['threshold'])}",
        )  # fmt: skip
    ax.set_xlim(low - pad, high + pad)
    ax.set_xlabel(
        f"threshold on {entry['measure']}"
        + (" (duplicate when ≥)" if higher else " (duplicate when ≤)")
    )
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(f"{name}: precision, recall, F1 against the threshold")
    ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), fontsize=9, borderaxespad=0)
    ax.grid(alpha=0.3)
    return fig


INTEGER_MEASURES = frozenset({"hamming"})  # measures whose values are whole numbers
HISTOGRAM_BINS = 30


def _bins(values: np.ndarray, *, integer: bool) -> np.ndarray | int:
    """Histogram bin edges: one bin per whole number for an ``integer`` measure (30 bins over
    its range would put two values in some bins, spikes no data has), else 30 over the range."""
    if not len(values):
        return HISTOGRAM_BINS
    low, high = float(values.min()), float(values.max())
    if integer:
        return np.arange(np.floor(low) - 0.5, np.ceil(high) + 1.0)
    return np.linspace(low, high, HISTOGRAM_BINS + 1) if low < high else HISTOGRAM_BINS


def _distribution(name: str, entry: dict) -> str:
    plt = _pyplot()

    sc = entry["scores"]
    scores = np.asarray(sc["all"], np.float64)
    labels = np.asarray(sc["labels"], bool)
    classes = np.asarray(sc["length_class"], dtype=object)
    groups = [("all pairs", np.ones(len(scores), bool))]
    groups += [(f"{c} texts", classes == c) for c in ("short", "long") if (classes == c).any()]
    fig, axes = plt.subplots(1, len(groups), figsize=(4.2 * len(groups), 3.2), squeeze=False)
    bins = _bins(scores[~np.isnan(scores)], integer=entry["measure"] in INTEGER_MEASURES)
    for ax, (title, mask) in zip(axes[0], groups, strict=True):
        for lab, key, text in ((True, "label_1", "duplicate (1)"), (False, "label_0", "not (0)")):
            vals = scores[mask & (labels == lab) & ~np.isnan(scores)]
            if len(vals):
                ax.hist(
                    vals, bins=bins, alpha=0.55, color=COLORS[key], label=f"{text}: {len(vals)}"
                )
        ax.axvline(entry["threshold"], color="black", linewidth=0.8, alpha=0.6)
        ax.set_title(title, fontsize=10)
        ax.set_xlabel(entry["measure"])
        ax.legend(fontsize=8)
    axes[0][0].set_ylabel("pairs")
    fig.suptitle(f"{name}: {entry['measure']} by label (vertical line: default threshold)", y=1.04)
    return _svg(fig)


def _cluster_bars(results: dict) -> str:
    plt = _pyplot()

    names = list(results)
    keys = ("precision", "recall", "f1", "adjusted_rand_index")
    fig, ax = plt.subplots(figsize=(1.6 + 1.6 * len(names), 3.4))
    width = 0.8 / len(keys)
    for i, key in enumerate(keys):
        vals = [results[n]["scores"][key] for n in names]
        ax.bar(np.arange(len(names)) + i * width, vals, width, label=key)
    ax.set_xticks(np.arange(len(names)) + 0.4 - width / 2, names)
    ax.set_ylim(0, 1.05)
    ax.set_title("pairwise cluster scores and adjusted Rand index by method")
    ax.legend(fontsize=8, ncols=4, loc="upper center", bbox_to_anchor=(0.5, -0.1))
    ax.grid(axis="y", alpha=0.3)
    return _svg(fig)


def _threshold(value: float | None) -> str:
    """A threshold as set or found: up to six significant digits, so that it reads as the
    value the sweep and the decision use (``3`` for a Hamming distance, ``0.5``, ``1e-06``,
    ``0.378161``); — for none."""
    return "—" if value is None else f"{value:.6g}"


def _score(value: float | None) -> str:
    """A precision, recall, F1, accuracy, ARI or share: three decimals; — for none."""
    return "—" if value is None else f"{value:.3f}"


def _rate(value: float | None) -> str:
    """Pairs or documents per second: whole, with thousands separators, from 100 up, and
    three significant digits below (``54.7``: ``54.700`` read as 54,700 beside ``3,882``)."""
    if value is None:
        return "—"
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"


def _count(value: int) -> str:
    return f"{value:,}"


def _table(headers: list[str], rows: list[list[str]]) -> str:
    """An HTML table of cells already written as text (:func:`_score`, :func:`_rate` ...)."""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(v)}</td>" for v in r) + "</tr>" for r in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


STYLE = """
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1100px;color:#222;padding:0 1em}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em}table{border-collapse:collapse;margin:1em 0}
td,th{border:1px solid #ccc;padding:.3em .6em;text-align:right}th{background:#f3f3f3}
td:first-child,th:first-child{text-align:left}.meta{color:#555;font-size:.9em}
figure{margin:1em 0}svg{max-width:100%;height:auto}
"""


PAIR_COLUMNS = (
    "method", "measure", "threshold", "precision", "recall", "F1", "accuracy", "best F1",
    "at threshold", "pairs/s",
)  # fmt: skip
CLUSTER_COLUMNS = (
    "method", "precision", "recall", "F1", "ARI", "removed correctly", "clusters",
    "gold clusters", "docs/s",
)  # fmt: skip


def render_html(report: dict[str, Any]) -> str:
    """The report page: tables, plots, parameters; no external resources."""
    _pyplot()
    results = report["results"]
    source = Path(report["input"])
    parts = [f"<h1>neardup eval — {html.escape(source.parent.name + '/' + source.name)}</h1>"]
    parts.append(
        f"<p class='meta'>kind: {report['kind']} · records used: {report['records']} · "
        f"skipped: {sum(report['skipped'].values())} · neardup {report['neardup_version']} · "
        f"sha256 {report['sha256'][:16]}…</p>"
    )
    parts += _pair_sections(results) if report["kind"] == "pairs" else _cluster_sections(results)
    parameters = {n: e["parameters"] for n, e in results.items()}
    parts.append("<h2>Conventions</h2><p>" + html.escape(report["conventions"]) + "</p>")
    parts.append("<h2>What the time covers</h2><p>" + html.escape(report["timing"]) + "</p>")
    parts.append(
        "<h2>Parameters</h2><pre>"
        + html.escape(json.dumps(parameters, indent=2, ensure_ascii=False))
        + "</pre>"
    )
    parts.append("<p id='status' class='meta'></p>")
    script = (
        "<script>document.getElementById('status').textContent="
        "'plots: '+document.querySelectorAll('figure.plot svg').length;</script>"
    )
    return (
        f"{HEAD}</title><style>{STYLE}</style></head><body>"
        + "".join(parts)
        + script
        + "</body></html>"
    )


def pair_table(results: dict[str, Any]) -> str:
    """The methods side by side on labelled pairs, each number written as what it is."""
    rows = []
    for name, e in results.items():
        d, best = e["at_default_threshold"], e.get("best_f1", {})
        rows.append(
            [name, e["measure"], _threshold(e["threshold"]), _score(d["precision"]),
             _score(d["recall"]), _score(d["f1"]), _score(d["accuracy"]),
             _score(best.get("f1")), _threshold(best.get("threshold")),
             _rate(e["pairs_per_second"])]
        )  # fmt: skip
    return _table(list(PAIR_COLUMNS), rows)


def cluster_table(results: dict[str, Any]) -> str:
    """The methods side by side on a clustered corpus, each number written as what it is."""
    rows = []
    for name, e in results.items():
        s = e["scores"]
        rows.append(
            [name, _score(s["precision"]), _score(s["recall"]), _score(s["f1"]),
             _score(s["adjusted_rand_index"]), _score(s["removed_correctly_share"]),
             _count(e["predicted_clusters"]), _count(e["gold_clusters"]),
             _rate(e["documents_per_second"])]
        )  # fmt: skip
    return _table(list(CLUSTER_COLUMNS), rows)


def _pair_sections(results: dict[str, Any]) -> list[str]:
    """Labelled pairs: the methods side by side, then each method's curves and distribution."""
    parts = ["<h2>Methods side by side</h2>", pair_table(results)]
    for name, e in results.items():
        parts.append(f"<h2>{html.escape(name)}</h2>")
        if "sweep" in e:
            parts.append(f"<figure class='plot'>{_svg(curves_figure(name, e))}</figure>")
        parts.append(f"<figure class='plot'>{_distribution(name, e)}</figure>")
    return parts


def _cluster_sections(results: dict[str, Any]) -> list[str]:
    """A clustered corpus: the methods side by side and their cluster scores as bars."""
    return [
        "<h2>Methods side by side</h2>",
        cluster_table(results),
        f"<figure class='plot'>{_cluster_bars(results)}</figure>",
    ]


def is_eval_page(path: Path) -> bool:
    """Whether the file at ``path`` is a page :func:`render_html` made (its first bytes tell)."""
    return starts_with(path, (HEAD.encode(),))


def is_eval_json(path: Path) -> bool:
    """Whether the file at ``path`` is a ``report.json`` that ``neardup eval`` wrote."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and {"neardup_version", "kind", "results"} <= set(data)


def refuse_foreign_files(out_dir: Path) -> None:
    """An eval replaces the report of an earlier eval into ``out_dir`` and nothing else: a
    ``report.html`` or ``report.json`` there that eval did not write (``neardup dedup
    --report``'s page, a file of the user's) would be lost, so it is refused, naming it, as
    ``neardup dedup`` refuses to replace a file it did not write."""
    for name, ours in ((HTML, is_eval_page), (JSON, is_eval_json)):
        target = out_dir / name
        if target.is_symlink() or (target.exists() and not ours(target)):
            refuse_output(
                out_dir, f"{name} was not written by neardup eval, and this run would replace it"
            )


def write_report(report: dict[str, Any], out_dir: Path) -> tuple[Path, Path]:
    """Write ``report.json`` and ``report.html`` into ``out_dir`` (created if missing),
    replacing only an earlier eval's (:func:`refuse_foreign_files`)."""
    refuse_foreign_files(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    json_path, html_path = out_dir / JSON, out_dir / HTML
    json_path.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")
    html_path.write_text(render_html(report), encoding="utf-8")
    return json_path, html_path
