"""``report.html``: one self-contained page from a run's ``summary.json`` and ``report_data.json``."""

from __future__ import annotations

import contextlib
import hashlib
import html
import json
import os
from pathlib import Path
from typing import Any

from ..errors import InputError, OutputError
from .diff import diff_html
from .sample import DATA_VERSION
from .svg import Mark, Series, bar_chart

REPORT = "report.html"
DATA = "report_data.json"
KEPT_COLOR, REMOVED_COLOR = "#1f77b4", "#d62728"

_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1180px;color:#222;padding:0 12px}
h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ddd}
table.kv td{padding:1px 10px 1px 0;vertical-align:top}
.plots{display:flex;flex-wrap:wrap;gap:12px}
svg.plot{background:#fafafa;border:1px solid #e4e4e4}
svg text{font-size:11px;fill:#333}svg .title{font-size:13px;font-weight:600}
svg .axis{stroke:#888}svg .mark{stroke:#000;stroke-dasharray:4 3}svg .mark-label{font-size:10px}
.pair{border:1px solid #ddd;margin:10px 0;padding:8px;border-radius:4px}
.pair .meta{color:#555;font-size:12px;margin-bottom:6px}
.pair .cols{display:grid;grid-template-columns:1fr 1fr;gap:10px}
.pair .text{white-space:pre-wrap;word-break:break-word;background:#fcfcfc;padding:6px;
 max-height:320px;overflow:auto;border:1px solid #eee}
.pair .head{font-size:12px;color:#444;margin-bottom:2px}
del{background:#ffd7d5;text-decoration:none}ins{background:#ccf2d1;text-decoration:none}
.note{color:#666;font-size:12px}
"""

_SCRIPT = """
document.getElementById('status').textContent =
  'plots: ' + document.querySelectorAll('svg.plot').length +
  ', pairs: ' + document.querySelectorAll('.pair').length +
  ', highlighted differences: ' + document.querySelectorAll('.pair del, .pair ins').length;
"""


def load_run(outdir: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """The summary and report data of a dedup output directory (clear errors otherwise)."""
    summary_path, data_path = outdir / "summary.json", outdir / DATA
    if not outdir.is_dir():
        what = "is not a directory" if outdir.exists() else "no such directory"
        raise InputError(f"{what}: name a `neardup dedup` output directory", source=str(outdir))
    if not summary_path.is_file():
        raise InputError(
            "no summary.json: not a complete `neardup dedup` output directory", source=str(outdir)
        )
    if not data_path.is_file():
        summary = _read_object(summary_path)
        engine = summary.get("engine")
        if isinstance(engine, dict) and "spark" in engine:
            raise InputError(
                f"no {DATA}: `neardup spark-dedup` does not record report data yet; run "
                "`neardup dedup --report` on the input (or a sample of it) for a report",
                source=str(outdir),
            )
        raise InputError(
            f"no {DATA}: this output was written by a neardup without reports; run "
            "`neardup dedup` again",
            source=str(outdir),
        )
    summary, data = _read_object(summary_path), _read_object(data_path)
    _check_same_run(summary, data_path, outdir)
    if data.get("version") != DATA_VERSION:
        raise InputError(
            f"{DATA} has version {data.get('version')!r}, this neardup reads {DATA_VERSION!r}; "
            "run `neardup dedup` again",
            source=str(outdir),
        )
    return summary, data


def _check_same_run(summary: dict[str, Any], data_path: Path, outdir: Path) -> None:
    """``report_data.json`` is the one the summary's run wrote (its manifest's SHA-256), and
    the summary holds the run's counts: a file copied in from another run made a
    page mixing two runs' numbers, a summary without counts one of zeros."""
    if not isinstance(summary.get("counts"), dict):
        raise InputError(
            "summary.json holds no counts: not a complete `neardup dedup` summary; run "
            "`neardup dedup` again",
            source=str(outdir),
        )
    files = summary.get("files")
    entry = files.get(DATA) if isinstance(files, dict) else None
    if not isinstance(entry, dict) or "sha256" not in entry:
        return  # a summary without a manifest (spark-dedup, older runs): nothing to check
    digest = hashlib.sha256(data_path.read_bytes()).hexdigest()
    if digest != entry["sha256"]:
        raise InputError(
            f"{DATA} is not the file this run wrote (its SHA-256 differs from the one "
            "summary.json lists): it comes from another run or was changed; run "
            "`neardup dedup` again",
            source=str(outdir),
        )


def _read_object(path: Path) -> dict[str, Any]:
    """A JSON object from a run's file (an error naming the file otherwise)."""
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read it ({exc})", source=str(path)) from None
    if not isinstance(value, dict):
        raise InputError(
            f"holds a JSON {type(value).__name__}, not the object `neardup dedup` writes",
            source=str(path),
        )
    return value


def write_report(outdir: str | Path) -> Path:
    """Build ``OUTDIR/report.html`` from the run's files (written whole, then renamed); files
    that are not what ``neardup dedup`` wrote are an error naming the folder, a page that
    cannot be written (read-only folder, full disk, a folder in its place) an
    :class:`~neardup.errors.OutputError` naming it, with no partial file left behind."""
    out = Path(outdir)
    summary, data = load_run(out)
    try:
        page = render(summary, data)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        raise InputError(
            f"summary.json or {DATA} is not as `neardup dedup` writes it ({type(exc).__name__}: "
            f"{exc}); run `neardup dedup` again",
            source=str(out),
        ) from None
    target = out / REPORT
    if target.is_file() and not is_report_page(target):  # a folder: cannot write, below
        raise InputError(
            f"{REPORT} is not a report neardup wrote, and this would replace it; move it",
            source=str(out),
        )
    partial = out / f".{REPORT}.partial"
    try:
        partial.write_text(page, encoding="utf-8")
        os.replace(partial, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)
        raise OutputError(f"cannot write {target} ({exc.strerror or exc})") from None
    return target


_HEAD = "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>neardup report: "
_HEADS = (_HEAD.encode(), _HEAD.replace("<title>", "\n<title>").encode())  # now; before stop 47


def is_report_page(path: Path) -> bool:
    """Whether the file at ``path`` is a page :func:`render` made, now or before (its first
    bytes tell)."""
    return starts_with(path, _HEADS)


def starts_with(path: Path, heads: tuple[bytes, ...]) -> bool:
    """Whether the file at ``path`` begins with one of ``heads``: how a command knows a page
    it wrote (what it writes first) from someone else's file."""
    try:
        with open(path, "rb") as f:
            start = f.read(max(map(len, heads)))
    except OSError:
        return False
    return any(start.startswith(head) for head in heads)


def _inputs_named(summary: dict[str, Any], *, short: bool = False) -> str:
    """The run's input as the page's title names it: the file (its name alone with ``short``),
    or for several inputs the first and how many more (``input`` is null then)."""
    one = summary.get("input")
    if one is not None:
        return Path(str(one)).name if short else str(one)
    rows = summary.get("inputs") or []
    if not rows:
        return ""
    first = str(rows[0].get("input", ""))
    first = Path(first).name if short else first
    return first if len(rows) == 1 else f"{first} and {len(rows) - 1} more"


def render(summary: dict[str, Any], data: dict[str, Any]) -> str:
    docs = data["documents"]
    parts = [
        _HEAD + f"{_e(_inputs_named(summary))}</title>",
        f"<style>{_STYLE}</style></head><body>",
        f"<h1>neardup dedup report: {_e(_inputs_named(summary, short=True))}</h1>",
        "<p id='status' class='note'></p>",
        _overview(summary),
        "<h2>Distributions</h2><div class='plots'>",
        *_plots(data),
        "</div>",
        _sample_note(data),
        "<h2>Largest clusters</h2>",
        *_largest(data, docs),
        f"<h2>Random sample of removed documents ({len(data['random_removed'])} of "
        f"{data['removed_total']:,})</h2>",
        *(_pair(r, docs) for r in data["random_removed"]),
        "<h2>Closest calls</h2>",
        "<p>Removals nearest the threshold: the lowest similarity (or the highest Hamming "
        "distance) among the removed documents that are not exact copies.</p>",
        *(_pair(r, docs) for r in data["closest_removals"]),
        "<h3>Rejected candidates just below the threshold</h3>",
        _near_miss_note(data),
        *(_near_miss(r, docs) for r in data["near_misses"]),
        f"<script>{_SCRIPT}</script></body></html>",
    ]
    return "\n".join(parts)


def _e(value: Any) -> str:
    return html.escape(str(value))


def _inputs(summary: dict[str, Any]) -> str:
    """The input and its format, or the first inputs of several and how many there are."""
    rows = summary.get("inputs") or [summary]
    shown = ", ".join(f"{r.get('input')} ({r.get('format')})" for r in rows[:5])
    return shown if len(rows) <= 5 else f"{len(rows)} inputs: {shown}, …"


def _overview(summary: dict[str, Any]) -> str:
    counts = summary.get("counts", {})
    rows = [
        ("input", _inputs(summary)),
        ("records read", f"{counts.get('records_read', 0):,}"),
        ("kept", f"{counts.get('kept', 0):,}"),
        (
            "removed",
            f"{counts.get('duplicates_removed', 0):,} in "
            f"{counts.get('duplicate_clusters', 0):,} clusters",
        ),
        ("skipped", f"{counts.get('skipped', 0):,}"),
    ]
    rows += [
        (f"skipped: {reason}", f"{n:,}")
        for reason, n in counts.get("skipped_by_reason", {}).items()
    ]
    rows += [
        ("method", summary.get("method")),
        ("keep / clusters", f"{summary.get('keep')} / {summary.get('clusters')}"),
        ("neardup", summary.get("neardup_version")),
        ("run id", summary.get("run_id")),
        ("seconds", summary.get("seconds", {}).get("total")),
    ]
    table = "".join(f"<tr><td>{_e(k)}</td><td>{_e(v)}</td></tr>" for k, v in rows)
    params = json.dumps(summary.get("parameters", {}), ensure_ascii=False, indent=1)
    return (
        f"<table class='kv'>{table}</table>"
        f"<details><summary>parameters</summary><pre>{_e(params)}</pre></details>"
    )


def _plots(data: dict[str, Any]) -> list[str]:
    plots = []
    labels, counts = _size_bins(data["cluster_sizes"])
    plots.append(
        bar_chart(
            title="Cluster sizes (clusters with duplicates)",
            bins=labels,
            series=[Series("clusters", counts, REMOVED_COLOR)],
            x_label="documents in the cluster",
            y_label="clusters",
            log_y=True,
        )
    )
    bins = data["similarity_bins"]
    for method, entry in data["per_method"].items():
        if "similarity" in entry and method != "exact":
            marks = [
                Mark(value, f"{label} {value:g}")
                for label, value in data["thresholds"].items()
                if "distance" not in label and 0.0 <= value <= 1.0
            ]
            unmeasured = entry.get("unmeasured", 0)
            note = f" ({unmeasured} more joined through other members, unmeasured)"
            plots.append(
                bar_chart(
                    title=f"{method}: similarity of removed documents to their representative"
                    + (note if unmeasured else ""),
                    bins=[f"{k / bins:.2f}" for k in range(bins)],
                    series=[Series(method, entry["similarity"], REMOVED_COLOR)],
                    x_label="similarity (bin start)",
                    bin_starts=True,
                    y_label="documents",
                    marks=marks,
                )
            )
        if "distance" in entry:
            top = max(
                [i for i, c in enumerate(entry["distance"]) if c]
                + [int(data["thresholds"].get("hamming distance", 0))]
            )
            counts = entry["distance"][: top + 2]
            limit = data["thresholds"].get("hamming distance")
            marks = [] if limit is None else [Mark((limit + 1) / len(counts), f"max {limit:g}")]
            plots.append(
                bar_chart(
                    title=f"{method}: Hamming distance of removed documents to their representative",
                    bins=[str(d) for d in range(len(counts))],
                    series=[Series(method, counts, REMOVED_COLOR)],
                    x_label="Hamming distance",
                    y_label="documents",
                    marks=marks,
                )
            )
    edges = data["length_edges"]
    plots.append(
        bar_chart(
            title="Text length of kept and removed documents",
            bins=[f"{edges[i]:,}" for i in range(len(edges) - 1)],
            series=[
                Series("kept", data["length_kept"], KEPT_COLOR),
                Series("removed", data["length_removed"], REMOVED_COLOR),
            ],
            x_label="characters (bin start, log-spaced)",
            y_label="documents",
            log_y=True,
            bin_starts=True,
        )
    )
    return plots


def _size_bins(sizes: dict[str, list[int]]) -> tuple[list[str], list[int]]:
    """Cluster counts in power-of-two size bins: 2, 3-4, 5-8, 9-16, ..."""
    labels: list[str] = []
    counts: list[int] = []
    top = max(sizes["sizes"], default=2)
    low, high = 2, 2
    while low <= top:
        labels.append(f"{low:,}" if low == high else f"{low:,}-{high:,}")
        counts.append(
            sum(
                c
                for s, c in zip(sizes["sizes"], sizes["clusters"], strict=True)
                if low <= s <= high
            )
        )
        low, high = high + 1, high * 2
    return labels, counts


def _sample_note(data: dict[str, Any]) -> str:
    s = data["sample"]
    return (
        f"<p class='note'>The plots count every document. The sections below are a sample: the "
        f"{s['largest']} largest clusters with up to {s['members']} members each (the least "
        f"similar first), {s['random']} removed documents drawn at random (seed {s['seed']}), "
        f"the {s['closest']} closest calls each way; texts are cut at {s['text_chars']:,} "
        "characters. Differences are highlighted by character for Chinese and by word for "
        "Latin script: red only in the representative, green only in the duplicate.</p>"
    )


def _largest(data: dict[str, Any], docs: dict[str, Any]) -> list[str]:
    if not data["largest_clusters"]:
        return ["<p>No document was removed.</p>"]
    out = []
    for cluster in data["largest_clusters"]:
        rep = docs[str(cluster["representative"])]
        out.append(
            f"<h3>Cluster {cluster['cluster_id']}: {cluster['size']:,} documents, kept "
            f"{_e(rep['id'])}</h3>"
        )
        out.extend(_pair(m, docs) for m in cluster["members"])
    return out


def _pair(row: dict[str, Any], docs: dict[str, Any]) -> str:
    rep, dup = docs[str(row["representative"])], docs[str(row["doc"])]
    facts = [f"method {row['method']}"]
    if row["method"] == "exact":
        facts[0] += " (the same text once markup, punctuation and case are ignored)"
    if row.get("similarity") is not None:
        facts.append(f"similarity {row['similarity']:.3f}")
    if row.get("distance") is not None:
        facts.append(f"Hamming distance {row['distance']}")
    evidence = row.get("evidence") or {}
    if "matched_paragraphs" in evidence:
        earlier = "kept" if row["representative"] < row["doc"] else "removed"
        facts.append(
            f"{evidence.get('containment', '')}: {evidence['share_a']:.0%} of the earlier "
            f"({earlier}) and {evidence['share_b']:.0%} of the later document in matched "
            "paragraphs (earlier, later): "
            + ", ".join(f"{a}-{b}" for a, b in evidence["matched_paragraphs"][:20])
        )
    return _columns(
        " · ".join(facts),
        (f"kept {rep['id']}", rep),
        (f"removed {dup['id']}", dup),
    )


def _near_miss_note(data: dict[str, Any]) -> str:
    if data["near_misses"]:
        return "<p>Candidates the method compared and rejected, with the highest score first.</p>"
    return (
        "<p class='note'>None recorded: no candidate was rejected, or the method accepts every "
        "candidate it finds (SimHash without verification decides by distance alone).</p>"
    )


def _near_miss(row: dict[str, Any], docs: dict[str, Any]) -> str:
    a, b = docs[str(row["left"])], docs[str(row["right"])]
    meta = (
        f"rejected · {row['route']} {row['score']:.3f} (threshold {row['threshold']:g}) · "
        f"{row['reason']}"
    )
    return _columns(meta, (f"earlier {a['id']}", a), (f"later {b['id']}", b))


def _columns(meta: str, left: tuple[str, dict], right: tuple[str, dict]) -> str:
    (head_a, a), (head_b, b) = left, right
    html_a, html_b = diff_html(a["text"], b["text"])
    cols = []
    for head, doc, body in ((head_a, a, html_a), (head_b, b, html_b)):
        cut = f", shown to {len(doc['text']):,}" if doc["truncated"] else ""
        cols.append(
            f"<div><div class='head'>{_e(head)} ({doc['length']:,} characters{cut})</div>"
            f"<div class='text'>{body}</div></div>"
        )
    return f"<div class='pair'><div class='meta'>{_e(meta)}</div><div class='cols'>{''.join(cols)}</div></div>"
