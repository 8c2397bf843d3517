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

from ..arrowcols import numbers, strings
from ..dedup import DedupResult
from ..errors import InputError
from ..kept import KEPT_DIR, KEPT_NAMES
from ..pairs import METHODS
from ..readers import Skipped, escape_undecodable
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
    refuse_foreign_directories(out)
    return out


def refuse_foreign_directories(out: Path) -> None:
    """A run replaces its outputs, and an output name that is a directory would go with all it
    holds: refused unless it is the ``kept/`` folder of an earlier run, every file in it listed
    in that run's summary."""
    for name in sorted(OUTPUT_NAMES):
        target = out / name
        if not target.is_dir() or (name == KEPT_DIR and _earlier_runs(target, out)):
            continue
        raise InputError(
            f"{name} is a directory that a run would replace with its output, and everything "
            "in it would be lost; move it or choose another output directory (-o)",
            source=str(out),
        )


def _earlier_runs(folder: Path, out: Path) -> bool:
    """Whether every file under ``folder`` is one the summary in ``out`` lists."""
    try:
        listed = json.loads((out / SUMMARY).read_text(encoding="utf-8"))["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return all(
        path.relative_to(out).as_posix() in listed
        for path in folder.rglob("*")
        if not path.is_dir()
    )


def remove_leftovers(out: Path) -> None:
    """Remove what killed runs left: staging directories and old-style ``.partial-*`` files."""
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
    """
    refuse_foreign_directories(out)  # again: a directory made while the run went
    names = sorted(p.name for p in stage.iterdir() if p.name != SUMMARY)
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
    with pcsv.CSVWriter(path, schema) as writer:
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
