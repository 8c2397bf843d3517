"""The output directory of ``neardup dedup``: staging, the file writers, publishing.

A run writes its files into ``OUTDIR/.neardup-run-<run id>/`` and then moves them into place,
``summary.json`` last: the summary is the completion marker. It names the run (``run_id``) and
lists every file of the run with its size and SHA-256 (``files``). A run killed at any point
leaves either the previous complete output or no ``summary.json``, never a mix.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from .. import __version__
from ..arrowcols import numbers, strings
from ..dedup import DedupResult
from ..errors import InputError
from ..kept import KEPT_DIR, KEPT_NAMES
from ..pairs import METHODS
from ..readers import Skipped, arrow_file, escape_undecodable
from ..report.page import is_report_page
from .ids import Ids

TABLES_FILE = "common_grams.npz"
CLUSTER_ROWS = 131_072  # clusters.csv rows built and written at a time
SUMMARY = "summary.json"
REPORT_DATA, REPORT = "report_data.json", "report.html"
OUTPUT_NAMES = KEPT_NAMES | {
    KEPT_DIR,
    "clusters.csv",
    "skipped.jsonl",
    "pairs.csv",
    TABLES_FILE,
    REPORT_DATA,
    REPORT,
}
STAGE_PREFIX = ".neardup-run-"
PUBLISHING = ".neardup-publishing.json"  # what a publish places, until its summary lands


def prepare_output(path: str) -> Path:
    """Create (or check) the output directory and remove what killed runs left in it."""
    out = Path(path)
    if out.exists() and not out.is_dir():
        raise InputError("exists and is not a directory", source=str(out))
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".neardup-write-test"
        probe.write_bytes(b"")
        probe.unlink()
        remove_leftovers(out)
    except OSError as exc:
        raise InputError(
            f"cannot write the output directory ({exc.strerror})", source=str(out)
        ) from None
    refuse_foreign_outputs(out)
    return out


def refuse_foreign_outputs(out: Path) -> None:
    """A run replaces its outputs in ``out``: a file or folder there with an output's name is
    replaced only when an earlier run into ``out`` wrote it (its summary lists it, or a publish
    cut short was placing it), and ``summary.json`` only when it is a run's summary. Anything
    else is the user's and would be lost: refused, naming it. A folder is an earlier run's only
    as its ``kept/`` folder, every file in it listed."""
    summary = _summary_of_a_run(out / SUMMARY)
    if summary is None and (out / SUMMARY).exists():
        refuse_output(
            out, f"{SUMMARY} is not the summary of a neardup run, and a run would replace it"
        )
    listed = _listed(_published(out))
    legacy = summary is not None and "files" not in summary  # no manifest: its files are ours
    for name in sorted(OUTPUT_NAMES):
        target = out / name
        if target.is_dir():
            files = (p.relative_to(out).as_posix() for p in target.rglob("*") if not p.is_dir())
            if name != KEPT_DIR or not all(f in listed for f in files):
                refuse_output(
                    out,
                    f"{name} is a directory that a run would replace with its output, and "
                    "everything in it would be lost",
                )
        elif (target.exists() or target.is_symlink()) and not (
            name in listed or legacy or (name == REPORT and is_report_page(target))
        ):  # `neardup report OUTDIR` adds a page no summary lists
            refuse_output(
                out,
                f"{name} was not written by a neardup run into this folder (no {SUMMARY} "
                "lists it), and a run would replace it",
            )


def _published(out: Path) -> dict[str, Any] | None:
    """What a run into ``out`` left: its summary, or without one (a publish cut short after
    removing the old summary) the list of files that publish was placing. A list left beside
    a summary is stale (cut short after the new summary landed) and never read."""
    summary = _summary_of_a_run(out / SUMMARY)
    return summary if summary is not None else _summary_of_a_run(out / PUBLISHING)


def refuse_output(out: Path, what: str) -> None:
    """Refuse to replace what is in the output directory ``out`` (``what``: the file and why
    it is not the command's own to replace), saying how to go on."""
    raise InputError(f"{what}; move it or choose another output directory (-o)", source=str(out))


def _summary_of_a_run(path: Path) -> dict[str, Any] | None:
    """The JSON object at ``path`` when it is a run's summary (or publishing list), else None."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if is_run_summary(data) else None


def is_run_summary(data: Any) -> bool:
    """Whether a parsed JSON document is a neardup run's summary (local or Spark: both start
    with :func:`neardup.pipeline.summary.run_header`)."""
    return isinstance(data, dict) and "neardup_version" in data


def _listed(summary: dict[str, Any] | None) -> set[str]:
    """The files a summary lists (paths relative to its folder)."""
    files = (summary or {}).get("files")
    return {str(f) for f in files} if isinstance(files, dict | list) else set()


def remove_leftovers(out: Path) -> None:
    """Remove what killed runs left: staging directories, old-style ``.partial-*`` files, and a
    publishing list beside a summary (:func:`_published` never reads it)."""
    if _summary_of_a_run(out / SUMMARY) is not None:
        (out / PUBLISHING).unlink(missing_ok=True)
    for path in out.glob(STAGE_PREFIX + "*"):
        shutil.rmtree(path, ignore_errors=True)
    for path in out.glob(".partial-*"):
        path.unlink(missing_ok=True)


def write_summary(stage: Path, run_id: str, summary: dict) -> None:
    """The summary with the run id and the manifest of the other files in ``stage``."""
    summary = {"run_id": run_id, **summary, "files": manifest(stage)}
    text = json.dumps(summary, indent=2, ensure_ascii=False) + "\n"
    (stage / SUMMARY).write_text(text, encoding="utf-8")


def manifest(stage: Path) -> dict[str, dict[str, Any]]:
    """Size and SHA-256 of each file under ``stage`` (by relative path), so a reader can check
    they belong to the run."""
    files = {}
    for path in sorted(p for p in stage.rglob("*") if p.is_file()):
        digest = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
        name = path.relative_to(stage).as_posix()
        files[name] = {"bytes": path.stat().st_size, "sha256": digest.hexdigest()}
    return files


def publish(stage: Path, out: Path) -> None:
    """Move the run's files from ``stage`` into ``out``, the summary last.

    The old summary goes first, so until the new one lands the directory reads as incomplete;
    outputs of an older run that this run does not write (say its pairs.csv) are removed.
    Until the new summary lands, :data:`PUBLISHING` lists the files of both runs, so that a
    run after one killed here takes them for a run's, not for the user's.
    """
    refuse_foreign_outputs(out)  # again: a file or folder made while the run went
    names = sorted(p.name for p in stage.iterdir() if p.name != SUMMARY)
    placing = _listed(_published(out))
    placing |= _listed(_summary_of_a_run(stage / SUMMARY)) | set(names)  # the new run's
    marker = stage / PUBLISHING
    listing = {"neardup_version": __version__, "publishing": True, "files": sorted(placing)}
    marker.write_text(json.dumps(listing))
    os.replace(marker, out / PUBLISHING)
    (out / SUMMARY).unlink(missing_ok=True)
    for stale in sorted(OUTPUT_NAMES - set(names)) + [n for n in names if (out / n).is_dir()]:
        target = out / stale
        if target.is_dir():
            shutil.rmtree(target)
        else:
            target.unlink(missing_ok=True)
    for name in names:
        _move(stage / name, out / name)
    _move(stage / SUMMARY, out / SUMMARY)
    (out / PUBLISHING).unlink(missing_ok=True)


def _move(source: Path, target: Path) -> None:
    os.replace(source, target)


def write_clusters(
    path: Path,
    ids: Ids,
    result: DedupResult,
    *,
    start: int = 0,
    reference: bool = False,
) -> None:
    """One row per input document. ``ids`` name every position of ``result``, whose first
    ``start`` are the ``--against`` reference (no rows); with ``reference``, a
    ``representative_in`` column says where each representative is: ``reference`` or ``input``.
    Written ``CLUSTER_ROWS`` rows at a time (a whole table of 772k rows held 65 MB)."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    from ..frames import cluster_columns

    all_ids = ids.arrow()
    names = ("cluster_id", "representative_id", "distance", "similarity", "method")
    schema = _clusters_schema(reference)
    with arrow_file(path, "wb") as sink, pcsv.CSVWriter(sink, schema) as writer:
        for lo in range(start, len(all_ids), CLUSTER_ROWS):
            rows = slice(lo, min(lo + CLUSTER_ROWS, len(all_ids)))
            columns = cluster_columns(all_ids, result, rows, no_method="")
            data = {"id": all_ids[rows], **{n: columns[n] for n in names}}
            if reference:
                where = result.clusters.representative[rows] < start
                data["representative_in"] = strings(["input", "reference"]).take(
                    numbers(where, np.int8)
                )
            writer.write_table(pa.table(data, schema=schema))


def _clusters_schema(reference: bool) -> Any:
    import pyarrow as pa

    fields = [
        ("id", pa.string()),
        ("cluster_id", pa.int64()),
        ("representative_id", pa.string()),
        ("distance", pa.int32()),
        ("similarity", pa.float32()),
        ("method", pa.string()),
    ]
    if reference:
        fields.append(("representative_in", pa.string()))
    return pa.schema(fields)


def write_skipped(path: Path, skipped: list[Skipped], inputs: list[str] | None = None) -> None:
    """One JSON line per skipped record; with ``inputs`` (several inputs), the input's name."""
    with open(path, "wb") as f:
        for i, s in enumerate(skipped):
            doc_id = None if s.id is None else escape_undecodable(s.id)
            row: dict[str, Any] = {} if inputs is None else {"input": inputs[i]}
            row.update(record=s.number, id=doc_id, reason=s.reason)
            f.write(orjson.dumps({**row, "message": escape_undecodable(s.message)}) + b"\n")


def write_pairs(path: Path, ids: Ids, result: DedupResult) -> None:
    """Every verified pair with its method, distance, similarity and evidence; ``duplicate``
    says whether it counts as one (the clusters come from those) or is only related (the
    paragraph method's partial duplicates: shared text, too small a share to remove)."""

    parts = [(result.pairs.sorted(), "true")]
    if result.related is not None and len(result.related):
        parts.append((result.related.sorted(), "false"))
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id_a", "id_b", "method", "distance", "similarity", "evidence", "duplicate"])
        column = ids.arrow()
        for p, duplicate in parts:
            id_a = column.take(numbers(p.left, np.int64)).to_pylist()
            id_b = column.take(numbers(p.right, np.int64)).to_pylist()
            for a, b, name_a, name_b, m, d, s in zip(
                p.left.tolist(),
                p.right.tolist(),
                id_a,
                id_b,
                p.method.tolist(),
                p.distance.tolist(),
                p.similarity.tolist(),
                strict=True,
            ):
                ev = p.evidence.get((a, b))
                w.writerow(
                    [
                        name_a,
                        name_b,
                        METHODS[m],
                        "" if d < 0 else d,
                        "" if s != s else round(s, 6),
                        json.dumps(ev, ensure_ascii=False) if ev else "",
                        duplicate,
                    ]
                )
