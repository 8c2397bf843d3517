"""One ``neardup dedup`` run in the library: read the inputs, let the method decide, write the
outputs and the summary — what the ``dedup`` command, and any program, runs.

:class:`DedupOptions` holds what a run needs (the command line maps onto it one to one);
:func:`run_dedup` runs it and returns the published summary. The inputs are read as one stream
of documents (:mod:`neardup.inputs`); the method decides (:mod:`neardup.dedup`, or
:mod:`neardup.against` with ``against``); the outputs are staged and published together
(:mod:`neardup.pipeline.outputs`).
"""

from __future__ import annotations

import os
import shutil
import sys
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import orjson

from ..against import against_result
from ..cluster import CLUSTER_RULES, KEEP_RULES
from ..dedup import DedupResult, check_cluster_rule, cluster_result, dedup_with
from ..errors import ConfigError, InputError, OutputError
from ..inputs import STDIN, Inputs, read_once
from ..kept import KEPT_DIR, lines_of, per_input_name, single_name, write_jsonl, write_single
from ..memory import batch_collection, release_free_memory
from ..methods import DEFAULT_METHOD, create
from ..parallel import resolve_workers
from ..readers import FORMATS, ON_ERROR, parse_json_line
from ..report.page import render as render_report
from ..report.sample import (
    SampleSizes,
    report_data,
    sample_positions,
    texts_from_records,
    wanted_documents,
)
from ..shown import shown_path
from .ids import Ids
from .outputs import (
    REPORT,
    REPORT_DATA,
    STAGE_PREFIX,
    SUMMARY,
    TABLES_FILE,
    prepare_output,
    publish,
    write_clusters,
    write_pairs,
    write_skipped,
    write_summary,
)
from .reading import Batch, read_all
from .summary import Kept, build_summary, reference_summary

KEPT_MODES = ("per-input", "single", "-")
REFERENCE_SKIPPED = "reference_skipped.jsonl"  # the --against reference's bad records
OUTPUT_FILES = frozenset(
    {
        "clusters.csv",
        "pairs.csv",
        "skipped.jsonl",
        REFERENCE_SKIPPED,
        SUMMARY,
        REPORT,
        REPORT_DATA,
        TABLES_FILE,
    }
)


@dataclass(frozen=True, kw_only=True)
class DedupOptions:
    """What one run needs; the fields are the ``neardup dedup`` options of the same names."""

    input: tuple[str, ...]  # files, directories or patterns; one given alone as a str or path
    output: str
    method: str = DEFAULT_METHOD
    options: dict[str, Any] = field(default_factory=dict)
    text_field: str = "text"
    id_field: str | None = None
    format: str | None = None
    on_error: str = "fail"
    against: str | None = None
    tables: str | None = None
    keep: str = "first"
    clusters: str = "greedy"
    kept: str = "per-input"
    pairs: bool = False  # implied by options["partial"]: what it finds is written there
    report: bool = False
    quiet: bool = True
    workers: int | None = None

    def __post_init__(self) -> None:
        given = (self.input,) if isinstance(self.input, (str, bytes, os.PathLike)) else self.input
        try:  # one input given alone is one input, not its characters
            object.__setattr__(self, "input", tuple(map(os.fsdecode, given)))
        except TypeError:
            raise ConfigError(
                f"input={self.input!r}: give a file, directory or pattern, or a list of them"
            ) from None
        if not isinstance(self.output, (str, bytes, os.PathLike)):
            raise ConfigError(
                f"output={self.output!r}: name the directory for the run's outputs (a str or path)"
            )
        object.__setattr__(self, "output", os.fsdecode(self.output))
        if not isinstance(self.options, Mapping):  # None too: typed without None, as keep is
            raise ConfigError(
                f"options={self.options!r}: give the method's options as a dict ({{}} for none)"
            )
        for name, allowed in (
            ("keep", KEEP_RULES),
            ("clusters", CLUSTER_RULES),
            ("kept", KEPT_MODES),
            ("on_error", ON_ERROR),
        ):
            if getattr(self, name) not in allowed:
                raise ConfigError(
                    f"{name}={getattr(self, name)!r} is not supported; choose one of "
                    f"{', '.join(allowed)}"
                )
        if self.format is not None and self.format not in FORMATS:
            raise ConfigError(
                f"format={self.format!r} is not supported; choose one of {', '.join(FORMATS)}"
            )
        check_cluster_rule(self.method, clusters=self.clusters, keep=self.keep)
        if not self.input:
            raise ConfigError("no input given: name at least one file, directory or pattern")
        if self.options.get("partial") is True and not self.pairs:
            object.__setattr__(self, "pairs", True)  # partial duplicates are pairs.csv rows


LARGE_INPUT_BYTES = 1 << 20  # input files from which a run warms a large run's kernels


def _large_input(args: DedupOptions) -> bool:
    """Whether the inputs make a large run (:mod:`neardup.compiling`), judged before reading by
    the size on disk of the files they name (standard input: yes)."""
    from ..inputs import expand

    try:
        files = expand(list(args.input))
    except (InputError, ConfigError):  # the reading says what is wrong, as it always does
        return False
    total = 0
    for path in (*files, *([args.against] if args.against else [])):
        if path == STDIN:
            return True
        try:
            total += os.path.getsize(path)
        except OSError:  # missing, or a store's URL
            continue
    return total >= LARGE_INPUT_BYTES


@batch_collection()
def run_dedup(args: DedupOptions) -> tuple[dict, Path]:
    """Run ``args`` to the end: the published summary and the output directory."""
    t_start = time.perf_counter()
    method = create(args.method, tables=load_tables(args.tables), **args.options)
    check_against(args)
    from ..warm import warm

    warm(method.name, workers=resolve_workers(args.workers), large=_large_input(args))
    out = spool = None
    made = _first_missing(args.output)  # a run that fails leaves no empty folder it made
    finished = False
    if any(spec == STDIN or read_once(spec) for spec in (*args.input, args.against) if spec):
        # standard input and pipes are copied next to the outputs (the kept records read the
        # input again)
        out = prepare_output(args.output)
        spool = out / f"{STAGE_PREFIX}{uuid.uuid4().hex}.stdin"
        spool.mkdir()
    try:
        inputs = open_inputs(args, list(args.input), spool)
        reference: Inputs | str | None = args.against  # a store URL stays a string
        if args.against and not is_store_url(args.against):
            reference = open_inputs(args, [args.against], spool)
        refuse_inputs_in_output(args.output, [inputs, reference], spool)
        out = out or prepare_output(args.output)  # after the inputs are found readable
        result = dedup_run(args, method, inputs, reference, out, t_start), out
        finished = True
        return result
    finally:
        if spool is not None:
            shutil.rmtree(spool, ignore_errors=True)
        if not finished and made is not None:
            _remove_empty(Path(args.output).resolve(), made)


def _first_missing(output: str) -> Path | None:
    """The outermost folder of ``output`` (resolved: ``new/../mine`` is ``mine``) that does not
    exist yet, which the run will make; None when ``output`` exists."""
    path = Path(output).resolve()
    if os.path.lexists(path):
        return None
    while not os.path.lexists(path.parent) and path.parent != path:
        path = path.parent
    return path


def _remove_empty(output: Path, made: Path) -> None:
    """The folders from ``output`` up to ``made`` that a failed run made, each if empty (what
    it wrote stays; no folder that existed before is touched)."""
    path = output
    while True:
        try:
            path.rmdir()
        except OSError:  # not empty, or gone
            return
        if path == made or made not in path.parents:
            return
        path = path.parent


def load_tables(path: str | None):
    """The frozen table of ``--tables`` (None: the method fits its own)."""
    if not path:
        return None
    from ..methods.commongrams import CommonGrams

    return CommonGrams.load(path)


def is_store_url(spec: str | None) -> bool:
    return spec is not None and "://" in spec


def open_inputs(args: DedupOptions, specs: list[str], spool) -> Inputs:
    return Inputs(
        specs,
        text_field=args.text_field,
        id_field=args.id_field,
        fmt=args.format,
        on_error=args.on_error,
        spool=spool,
    )


def refuse_inputs_in_output(output: str, parts: list[Any], spool: Path | None) -> None:
    """An input that is one of the run's outputs (``kept.jsonl``, ``clusters.csv``, anything
    under ``kept/``... in the output directory) would be replaced by it, and a later run that
    reads the folder would read the outputs as input: refused, naming it (standard input,
    spooled there, is not an input file). Other inputs may live in the output directory."""
    out = Path(output).resolve()
    spooled = spool.resolve() if spool is not None else None
    for part in parts:
        for reader in getattr(part, "readers", []):
            path = Path(reader.path).resolve()
            if spooled is not None and path.is_relative_to(spooled):
                continue
            if path == out:
                raise ConfigError(
                    f"the output directory {shown_path(output)} is the input {reader.source}: -o "
                    "names a directory for the run's outputs; choose another (for example -o out/)"
                )
            if path.is_relative_to(out) and _is_output_name(path.relative_to(out)):
                raise ConfigError(
                    f"the input {reader.source} is an output of a run into {shown_path(output)} (a "
                    "run would replace it, and read its outputs as input); choose another output "
                    "directory (-o) or move the file"
                )


def _is_output_name(relative: Path) -> bool:
    """Whether a path inside the output directory is one a run writes."""
    parts = relative.parts
    if len(parts) > 1:
        return parts[0] == KEPT_DIR
    return parts[0] in OUTPUT_FILES or parts[0].startswith("kept.")


def check_against(args: DedupOptions) -> None:
    """Refuse what ``--against`` cannot do, with the reason."""
    if not args.against:
        return
    given = [f"--keep {args.keep}"] * (args.keep != "first")
    given += [f"--clusters {args.clusters}"] * (args.clusters != "greedy")
    if given:
        raise ConfigError(
            "--against keeps every reference document and matches each input document to the "
            f"reference alone; drop {' and '.join(given)}"
        )
    if args.options.get("partial"):  # reported in pairs.csv, which --against does not write
        raise ConfigError("--partial is not available with --against: partial duplicates are "
                          "reported in pairs.csv, which a run against a reference does not write")  # fmt: skip
    if args.pairs:  # (after --partial, which implies it)
        raise ConfigError("--pairs is not available with --against yet; clusters.csv holds "
                          "each removed document's reference match")  # fmt: skip
    if args.against == STDIN and STDIN in args.input:
        raise ConfigError("standard input ('-') can be the input or the reference, not both")


def dedup_run(args, method, inputs: Inputs, reference: Inputs | str | None, out, t_start) -> dict:
    """Read, decide, write: the summary of the published run."""
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    ref = ref_summary = None
    if isinstance(reference, str):  # a store: the detector decides, with the store's settings
        method, both, result, ref_summary = against_store(args, method, inputs, reference, timings)
        reference = None
    else:
        if hasattr(method, "workers"):  # the texts are compared (or fingerprinted) as read
            method.workers = resolve_workers(args.workers)
        batch = read_all(inputs, method, quiet=args.quiet)
        ref = read_all(reference, method, quiet=args.quiet) if reference is not None else None
        both = batch if ref is None else ref.joined(batch)
        timings["read" if batch.fps is None else "read_and_fingerprint"] = time.perf_counter() - t0
        result = find_duplicates(args, method, both, timings)
    release_free_memory()  # the method's freed working memory, before the outputs are built
    report = captures = None
    t0 = time.perf_counter()
    if both.texts and not both.compared:  # the sample's texts from memory
        report = run_report_data(method, result, both, inputs, reference)
    else:  # read as the kept records are written, where the input allows
        captures = sample_captures(method, result, both, inputs)
    timings["report_sample"] = time.perf_counter() - t0
    both.texts = []  # not needed any more

    run_id = uuid.uuid4().hex
    stage = out / (STAGE_PREFIX + run_id)
    try:
        stage.mkdir()
        t0 = time.perf_counter()
        kept = write_outputs(stage, args, method, inputs, both, result, captures)
        if ref is not None and ref.skipped:  # the reference's bad records, listed apart
            write_skipped(stage / REFERENCE_SKIPPED, *_skipped_rows(reference, ref))
        timings["write"] = time.perf_counter() - t0
        if report is None:
            t0 = time.perf_counter()
            report = run_report_data(method, result, both, inputs, reference, captures)
            timings["report_sample"] += time.perf_counter() - t0
        (stage / REPORT_DATA).write_bytes(orjson.dumps(report))
        timings["total"] = time.perf_counter() - t_start
        summary = build_summary(args, method, inputs, both, result, kept, timings)
        if ref is not None:
            summary["reference"] = reference_summary(reference, ref)
        if ref_summary is not None:
            summary["reference"] = ref_summary
        if args.report:  # built from the summary as published, so `neardup report` agrees
            t0 = time.perf_counter()
            page = render_report({"run_id": run_id, **summary}, report)
            (stage / REPORT).write_text(page, encoding="utf-8")
            summary["seconds"]["report"] = round(time.perf_counter() - t0, 4)
        write_summary(stage, run_id, summary)
        publish(stage, out)
    except BrokenPipeError:
        raise OutputError(
            "standard output was closed before every kept record was written (--kept -): the "
            "kept records are incomplete, and the run is not published (no summary.json)"
        ) from None
    except OSError as exc:
        raise OutputError(_cannot_write(exc, stage, out)) from None
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return summary


def _cannot_write(exc: OSError, stage: Path, out: Path) -> str:
    """Which file could not be written (the staging folder named as the output folder it
    stands for) — or read: the kept records are copied from the inputs — and why."""
    reason = exc.strerror or str(exc)
    name = str(exc.filename) if exc.filename else None
    if name is not None and not Path(name).resolve().is_relative_to(stage.resolve()):
        return (
            f"cannot read {shown_path(name)} ({reason}); the run is not published (no summary.json)"
        )
    name = str(out) if name is None else name.replace(str(stage), str(out))
    return f"cannot write {shown_path(name)} ({reason}); the run is not published (no summary.json)"


def against_store(args, method, inputs: Inputs, url: str, timings) -> tuple:
    """``--against STORE``: the input read with its texts, each checked against the store's
    kept documents (:func:`neardup.against.match_store`); the matched stored documents are the
    reference positions. Returns the detector's method (its settings are the store's), the
    joined batch, the result and the reference's summary."""
    from ..against import match_store
    from ..online import Detector
    from ..store import open_store
    from ..store.url import redact

    store = open_store(url, read_only=True)
    try:
        detector = Detector(
            store=store,
            method=method.name,
            options=dict(args.options),
            tables=getattr(method, "given_tables", None),  # --tables, loaded once
        )
        detector.method.workers = resolve_workers(args.workers)  # preparing the input
        t0 = time.perf_counter()
        batch = read_all(inputs, method, quiet=args.quiet, keep_texts=True)
        timings["read"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        found = match_store(detector, batch.texts)
        timings["check_against_store"] = time.perf_counter() - t0
        stored = len(detector)
    finally:
        store.close()
    n_ref = len(found.ids)
    ref = Batch(
        Ids.of(found.ids),
        np.zeros(n_ref, np.int64),
        np.full(n_ref, -1, np.int32),
        found.lengths,
        found.texts,
        [],
        None,
    )
    both = ref.joined(batch)
    result = against_result(detector.method.name, found.pairs, len(both.ids), n_reference=n_ref)
    summary = {"store": redact(url), "documents": stored, "matched": n_ref}
    return detector.method, both, result, summary


def find_duplicates(args, method, batch: Batch, timings) -> DedupResult:
    """Pairs and clusters: from the fingerprints of a streaming method, else from the texts;
    with ``--against``, by the reference rule of :mod:`neardup.against`."""
    n = len(batch.ids)
    if batch.fps is None:
        keep, rule = ("first", "greedy") if args.against else (args.keep, args.clusters)
        result = dedup_with(
            method,
            batch.texts,
            keep=keep,
            lengths=batch.lengths,
            clusters=rule,
            workers=args.workers,
            compared=batch.compared,
        )
        timings.update(result.timings)
        pairs, fps = result.pairs, result.fingerprints
        if not args.against:
            return result
    else:
        t0 = time.perf_counter()
        pairs, fps = method.pairs_from_fingerprints(batch.fps), batch.fps
        timings["find_pairs"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    if args.against:
        result = against_result(method.name, pairs, n, n_reference=batch.start, fingerprints=fps)
    else:
        result = cluster_result(
            method.name,
            pairs,
            n,
            keep=args.keep,
            lengths=batch.lengths,
            fingerprints=fps,
            clusters=args.clusters,
        )
    timings["cluster"] = time.perf_counter() - t0
    return result


def sample_captures(method, result, both: Batch, inputs: Inputs) -> list[dict | None]:
    """Per input, the record numbers of the report's sampled documents, to be filled with their
    lines as the kept records are written (JSON Lines inputs; None for the others, whose
    sample is read back afterwards)."""
    near = getattr(method, "near_misses", None)
    rows = sample_positions(result, near.to_list() if near is not None else [], SampleSizes())
    captures: list[dict | None] = [
        {} if reader.format == "jsonl" else None for reader in inputs.readers
    ]
    for p in wanted_documents(rows):
        capture = captures[int(both.sources[p])] if p >= both.start else None
        if capture is not None:
            capture[int(both.numbers[p])] = None
    return captures


def run_report_data(
    method, result, both: Batch, inputs: Inputs, reference, captures: list | None = None
) -> dict:
    """The report's distributions and sample: texts from memory, from the lines ``captures``
    holds (:func:`sample_captures`), or read back from the inputs."""
    near = getattr(method, "near_misses", None)
    thresholds = getattr(method, "thresholds", None)

    def texts_of(positions: list[int]) -> dict[int, str]:
        if both.texts and not both.compared:
            return {p: both.texts[p] for p in positions}
        found: dict[int, str] = {}
        if captures is not None:
            for p in positions:
                source, number = int(both.sources[p]), int(both.numbers[p])
                capture = captures[source] if p >= both.start else None
                if capture is not None:
                    text = _text_of(number, capture.get(number), inputs.readers[source])
                    if text is not None:
                        found[p] = text
            positions = [p for p in positions if p not in found]
        parts = [(inputs, both.start, len(both.ids))]
        if reference is not None:
            parts.append((reference, 0, both.start))
        for part, lo, hi in parts:
            for source, reader in enumerate(part.readers):
                wanted = {
                    int(both.numbers[p]): p
                    for p in positions
                    if lo <= p < hi and both.sources[p] == source
                }
                if wanted:
                    found.update(_texts_back(reader, wanted))
        return found

    return report_data(
        result,
        ids=both.ids,
        lengths=both.lengths,
        thresholds=thresholds() if thresholds is not None else {},
        near_misses=near.to_list() if near is not None else [],
        texts_of=texts_of,
        start=both.start,
    )


def _texts_back(reader, wanted: dict[int, int]) -> dict[int, str]:
    """The texts of the records numbered ``wanted``'s keys (record number -> position), read
    back from the input: a JSONL input a block at a time, parsing only the wanted lines."""
    if reader.format != "jsonl":
        return texts_from_records(reader, wanted)
    numbers = sorted(wanted)
    found = {}
    for number, line in zip(numbers, lines_of(reader, set(numbers)), strict=False):
        text = _text_of(number, line, reader)
        if text is not None:
            found[wanted[number]] = text
    return found


def _text_of(number: int, line: bytes | None, reader) -> str | None:
    """The text of a JSON Lines record's ``line`` (as the reader parsed it: it was a record)."""
    if line is None:
        return None
    row = parse_json_line(number, line)
    text = row.get(reader.text_field) if isinstance(row, dict) else None
    return text if isinstance(text, str) else None


def write_outputs(
    stage, args, method, inputs: Inputs, both: Batch, result, captures: list | None = None
) -> Kept:
    """Write every output but the summary into ``stage``; where the kept records went.

    ``both`` names every position of ``result``; its ``start`` is the position of the input's
    first document (after the ``--against`` reference).
    """
    start = both.start
    kept = write_kept_records(stage, args.kept, inputs, both, result, captures)
    write_clusters(stage / "clusters.csv", both.ids, result, start=start, reference=args.against)
    if both.skipped:
        write_skipped(stage / "skipped.jsonl", *_skipped_rows(inputs, both))
    if args.pairs:
        write_pairs(stage / "pairs.csv", both.ids, result)
    tables = getattr(method, "tables", None)
    if tables is not None:  # frozen tables the run fitted: the online detector loads them
        tables.save(stage / TABLES_FILE)
    return kept


def _skipped_rows(inputs: Inputs, batch: Batch) -> tuple[list, list[str] | None]:
    """A batch's skipped records, with the input of each among several inputs."""
    items = [e.item for e in batch.skipped]
    if len(inputs) == 1:
        return items, None
    return items, [inputs.readers[e.source].source for e in batch.skipped]


def write_kept_records(
    stage, mode: str, inputs: Inputs, both: Batch, result, captures: list | None = None
) -> Kept:
    """The kept records, as ``--kept`` asks: per input, in one file, or to standard output;
    ``captures`` (per input) are filled as the lines pass (:func:`sample_captures`)."""
    start = both.start
    is_rep = result.clusters.is_representative[start:]
    numbers = np.asarray(both.numbers[start:], np.int64)[is_rep]
    sources = np.asarray(both.sources[start:], np.int64)[is_rep]
    keeps = [set(numbers[sources == i].tolist()) for i in range(len(inputs))]
    counts = [len(k) for k in keeps]
    readers = inputs.readers
    captures = captures or [None] * len(readers)
    for reader in readers:  # the second reading must read what the first one judged
        reader.check_unchanged()
    if mode == "-":
        written = write_jsonl(readers, keeps, sys.stdout.buffer, captures)
        kept = Kept(["-"] * len(readers), counts)
    elif mode == "single" or len(readers) == 1:
        name = single_name(readers)
        written = write_single(readers, keeps, stage / name, captures)
        kept = Kept([name] * len(readers), counts)
    else:
        names = [per_input_name(r, lbl) for r, lbl in zip(readers, inputs.labels, strict=True)]
        written = 0
        for reader, keep, name, capture in zip(readers, keeps, names, captures, strict=True):
            (stage / name).parent.mkdir(parents=True, exist_ok=True)
            written += write_single([reader], [keep], stage / name, [capture])
        kept = Kept(names, counts)
    for reader in readers:  # and nothing changed it while it was read again
        reader.check_unchanged()
    if written != sum(counts):
        raise InputError(
            f"{written:,} kept records were found on reading the inputs again, not "
            f"{sum(counts):,}: an input changed while the run read it; the run stops "
            "unpublished (no summary.json)"
        )
    return kept
