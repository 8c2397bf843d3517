"""Writing the kept records: per input in its own format, into one file, or as JSON Lines.

The writers read the inputs again (the texts need not stay in memory) and copy kept records
unchanged where the format allows: JSONL and text lines byte for byte, CSV/TSV rows under the
same header, Parquet rows with the full schema. Reading an input stops after its last kept
record, so a truncated tail the first reading skipped is not read again.

Converted to JSON Lines (one file from inputs of different formats, or ``--kept -``): a JSONL
line stays as it is, a text line becomes ``{"<text field>": line}``, a CSV/TSV row an object
from its header, a Parquet row an object of its columns.
"""

from __future__ import annotations

import csv
import io
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO

import orjson

from . import blocks
from .readers import RecordReader, arrow_file, open_binary, split_suffix, stream_errors, without_bom

_EXT = {"jsonl": ".jsonl", "csv": ".csv", "tsv": ".tsv", "parquet": ".parquet", "text": ".txt"}
_COMPRESSIONS = ("", ".gz", ".zst")
KEPT_NAMES = frozenset("kept" + ext + c for ext in _EXT.values() for c in _COMPRESSIONS)
KEPT_DIR = "kept"  # per-input kept files of a run with several inputs
# record number -> its line, filled as the kept records are written (JSON Lines and text inputs;
# left empty for the others): the report's sample is read in the same pass
Capture = dict[int, bytes | None] | None
Captures = Sequence[Capture] | None  # one per input
Readers = Sequence[RecordReader]
Keeps = Sequence[set[int]]  # per input, the record numbers kept


def kept_name(reader: RecordReader) -> str:
    """File name for the kept records, same format and compression as the input."""
    try:
        compression = split_suffix(reader.path)[1]
    except Exception:  # an explicit --format on an unusual name: write uncompressed
        compression = ""
    if reader.format == "parquet":
        compression = ""
    return "kept" + _EXT[reader.format] + compression


def per_input_name(reader: RecordReader, label: str) -> str:
    """``kept/<label>`` for one of several inputs (standard input: ``kept/stdin.<ext>``)."""
    name = label if not label.startswith("<") else "stdin" + _EXT[reader.format]
    return f"{KEPT_DIR}/{name}"


def single_name(readers: Sequence[RecordReader]) -> str:
    """The one kept file of ``readers``: their format when they share it (CSV/TSV: one header;
    Parquet: one schema), else ``kept.jsonl``."""
    first = readers[0]
    if all(r.format == first.format for r in readers[1:]) and _same_layout(readers):
        return kept_name(first)
    return "kept.jsonl"


def write_single(readers: Readers, keeps: Keeps, path: Path, captures: Captures = None) -> int:
    """Kept records of every input into the one file ``path``: in their format when they share
    it, else as JSON Lines (name it with :func:`single_name`). ``captures``: per input, lines
    to keep a copy of as they pass (:data:`Capture`)."""
    fmt = readers[0].format
    captures = captures or [None] * len(readers)
    if not (all(r.format == fmt for r in readers) and _same_layout(readers)):
        with open_binary(path, "wb") as out:
            return write_jsonl(readers, keeps, out, captures)
    if fmt == "parquet":
        return _parquet(readers, keeps, path)
    with open_binary(path, "wb") as out:
        if fmt in ("jsonl", "text"):
            written = 0
            for reader, keep, capture in zip(readers, keeps, captures, strict=True):
                for lines in _kept_blocks(reader, keep, capture):
                    out.write(b"\n".join(lines) + b"\n")
                    written += len(lines)
            return written
        return _csv(readers, keeps, out)


def write_jsonl(readers: Readers, keeps: Keeps, out: BinaryIO, captures: Captures = None) -> int:
    """Kept records of every input as JSON Lines into the binary stream ``out``."""
    written = 0
    captures = captures or [None] * len(readers)
    for reader, keep, capture in zip(readers, keeps, captures, strict=True):
        for line in _json_lines(reader, keep, capture):
            out.write(line)
            written += 1
    out.flush()
    return written


# -- reading kept records back, per format --------------------------------------------------------
def _kept_blocks(
    reader: RecordReader, keep: set[int], capture: Capture = None
) -> Iterator[list[bytes]]:
    """The kept lines of a JSONL or text input (without their line ends), a block of the input
    at a time (:func:`neardup.blocks.line_blocks`); reading stops after the last kept (or
    captured) line; the byte order mark some editors put at a file's start is not part of its
    first line (two inputs into one file would carry one in the middle). A stream that
    breaks off mid-block is read again line by line, so a kept line before the break is still
    found and a lost tail the first reading skipped is not read. The lines numbered ``capture``'s keys are stored there as they pass."""
    capture = {} if capture is None else capture
    if not keep and not capture:
        return
    wanted = sorted(keep | capture.keys())
    done = last = 0
    try:
        with open_binary(reader.path, replayed=True) as handle:
            for first, lines in blocks.line_blocks(handle, blocks.BLOCK_BYTES):
                if first == 1 and lines:
                    lines[0] = without_bom(lines[0])
                end = first + len(lines)
                stop = bisect_left(wanted, end, done)
                if stop > done:
                    for n in wanted[done:stop]:
                        if n in capture:
                            capture[n] = lines[n - first]
                    block = [lines[n - first] for n in wanted[done:stop] if n in keep]
                    if block:
                        yield block
                done, last = stop, end - 1
                if done == len(wanted):
                    return
    except stream_errors():
        pass
    with open_binary(reader.path) as handle:
        for number, line in enumerate(handle, 1):
            if number == 1:
                line = without_bom(line)
            if number > last and (number in keep or number in capture):
                if number in capture:
                    capture[number] = line.rstrip(b"\n")
                if number in keep:
                    yield [line.rstrip(b"\n")]
                done += 1
                if done == len(wanted):
                    return


def lines_of(reader: RecordReader, numbers: set[int]) -> Iterator[bytes]:
    """The lines numbered ``numbers`` of a JSONL or text input, in order, read back a block at
    a time (what the report's sample reads when the texts were not kept)."""
    return _lines(reader, numbers)


def _lines(reader: RecordReader, keep: set[int], capture: Capture = None) -> Iterator[bytes]:
    """The kept lines of a JSONL or text input, one at a time, without their line ends."""
    for block in _kept_blocks(reader, keep, capture):
        yield from block


def _header(reader: RecordReader) -> list[str]:
    with open_binary(reader.path) as raw:
        handle = io.TextIOWrapper(raw, encoding="utf-8-sig", errors="surrogateescape", newline="")
        return next(csv.reader(handle, delimiter=_delimiter(reader)), [])


def _rows(reader: RecordReader, keep: set[int]) -> Iterator[list[str]]:
    """The kept data rows of a CSV/TSV input (numbered as the reader numbers them)."""
    if not keep:
        return
    with open_binary(reader.path) as raw:
        handle = io.TextIOWrapper(raw, encoding="utf-8-sig", errors="surrogateescape", newline="")
        rows = csv.reader(handle, delimiter=_delimiter(reader))
        next(rows, None)
        number = found = 0
        for values in rows:
            if not values:
                continue
            number += 1
            if number in keep:
                yield values
                found += 1
                if found == len(keep):
                    return


def _batches(reader: RecordReader, keep: set[int]) -> Iterator[Any]:
    """The kept rows of a Parquet input, as record batches with the full schema."""
    import numpy as np
    import pyarrow.parquet as pq

    wanted = np.fromiter(keep, np.int64, count=len(keep))
    row = 0
    with arrow_file(reader.path) as source:
        for batch in pq.ParquetFile(source).iter_batches(batch_size=65536):
            numbers = np.arange(row + 1, row + 1 + batch.num_rows)
            row += batch.num_rows
            mask = np.isin(numbers, wanted)
            if mask.any():
                yield batch.filter(mask)


def _json_lines(reader: RecordReader, keep: set[int], capture: Capture = None) -> Iterator[bytes]:
    fmt = reader.format
    if fmt == "jsonl":
        for line in _lines(reader, keep, capture):
            yield line + b"\n"
    elif fmt == "text":
        for line in _lines(reader, keep):
            text = line.decode("utf-8").rstrip("\r\n")
            yield orjson.dumps({reader.text_field: text}) + b"\n"
    elif fmt in ("csv", "tsv"):
        header = _header(reader)
        for values in _rows(reader, keep):
            row = dict(zip(header, values, strict=True))
            yield orjson.dumps(row, default=str) + b"\n"
    else:
        for batch in _batches(reader, keep):
            for row in batch.to_pylist():
                yield orjson.dumps(row, default=str, option=orjson.OPT_NON_STR_KEYS) + b"\n"


# -- native writers of several inputs -------------------------------------------------------------
def _delimiter(reader: RecordReader) -> str:
    return "\t" if reader.format == "tsv" else ","


def _same_layout(readers: Sequence[RecordReader]) -> bool:
    """CSV/TSV inputs share their header, Parquet inputs their schema."""
    fmt = readers[0].format
    if len(readers) == 1 or fmt in ("jsonl", "text"):
        return True
    if fmt == "parquet":
        first = _schema(readers[0])
        return all(_schema(r).equals(first) for r in readers[1:])
    first = _header(readers[0])
    return all(_header(r) == first for r in readers[1:])


def _csv(readers: Sequence[RecordReader], keeps: Sequence[set[int]], out: BinaryIO) -> int:
    text_out = io.TextIOWrapper(out, encoding="utf-8", errors="surrogateescape", newline="")
    writer = csv.writer(text_out, delimiter=_delimiter(readers[0]))
    writer.writerow(_header(readers[0]))
    written = 0
    for reader, keep in zip(readers, keeps, strict=True):
        for values in _rows(reader, keep):
            writer.writerow(values)
            written += 1
    text_out.flush()
    text_out.detach()
    return written


def _parquet(readers: Sequence[RecordReader], keeps: Sequence[set[int]], path: Path) -> int:
    import pyarrow.parquet as pq

    schema = _schema(readers[0])
    written = 0
    with arrow_file(path, "wb") as sink, pq.ParquetWriter(sink, schema) as writer:
        for reader, keep in zip(readers, keeps, strict=True):
            for batch in _batches(reader, keep):
                writer.write_batch(batch)
                written += batch.num_rows
    return written


def _schema(reader: RecordReader) -> Any:
    """The Arrow schema of a Parquet input."""
    import pyarrow.parquet as pq

    with arrow_file(reader.path) as source:
        return pq.read_schema(source)
