"""Streaming readers: JSON Lines (plain, .gz, .zst), CSV/TSV, Parquet and plain text.

Every record carries its 1-based record number (the line for JSONL and text, the data row for
CSV/TSV, the row for Parquet) so that errors can name it. A bad record raises
:class:`~neardup.errors.InputError` naming the file and record, or with ``on_error="skip"`` is
yielded as a :class:`Skipped` entry with its reason, so callers can count it: nothing is dropped
silently. Texts that are empty or only white space are always reported as ``Skipped`` with reason
``empty_text``.

A compressed file that breaks off (``truncated``) or turns corrupt (``corrupt_stream``) after some
records, or a CSV field whose quote is never closed (``unclosed_quote``: it swallows the rest of
the file), has one more bad record: the records before the break are read, the lost tail is one
``Skipped`` entry (or an ``InputError``), also reported on stderr. An id that is not valid UTF-8 is a bad record
(``invalid_utf8``); a compressed file that yields nothing or a CSV header that is not valid UTF-8
is always an ``InputError`` naming the file.
"""

from __future__ import annotations

import csv
import gzip
import io
import os
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import Any, BinaryIO

import orjson
from isal import igzip, isal_zlib  # ISA-L's gzip: the same format, 2-4x zlib's speed

from .errors import ConfigError, InputError
from .shown import SURROGATE, escape_undecodable, shown_path

FORMATS = ("jsonl", "csv", "tsv", "parquet", "text")
ON_ERROR = ("fail", "skip")
_SUFFIX_FORMAT = {
    ".jsonl": "jsonl",
    ".json": "jsonl",
    ".ndjson": "jsonl",
    ".csv": "csv",
    ".tsv": "tsv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".txt": "text",
    ".text": "text",
}
_COMPRESSIONS = (".gz", ".zst")


def named_formats(formats: tuple[str, ...]) -> str:
    """How files of ``formats`` are named, for messages: ``jsonl (.jsonl, .json, .ndjson), csv
    (.csv), optionally .gz or .zst``."""
    named = (
        f"{fmt} ({', '.join(k for k, v in _SUFFIX_FORMAT.items() if v == fmt)})" for fmt in formats
    )
    return f"{', '.join(named)}, optionally {' or '.join(_COMPRESSIONS)}"


# reasons of a Skipped entry standing for a lost tail
LOST_TAIL = ("truncated", "corrupt_stream", "unclosed_quote")
csv.field_size_limit(1 << 30)
UNCLOSED_QUOTE = (
    "a quoted field is never closed: it runs to the end of the file, so this record and every "
    'line after it are lost (close the quote, or quote the field\'s own quotes as "")'
)


@dataclass(frozen=True)
class Record:
    number: int  # 1-based record number in the file
    id: str
    text: str
    raw: Any  # what the writer needs to write this record back unchanged


@dataclass(frozen=True)
class Skipped:
    number: int
    id: str | None
    reason: str  # short code, e.g. "empty_text", "malformed_json"
    message: str


def split_suffix(path: str | os.PathLike) -> tuple[str, str]:
    """``(format, compression)`` from a file name, e.g. ``data.jsonl.gz`` -> ``("jsonl", ".gz")``;
    any case (``DATA.JSONL.GZ``)."""
    name = Path(path).name.lower()
    compression = compression_of(path)
    name = name[: len(name) - len(compression)]
    fmt = _SUFFIX_FORMAT.get(Path(name).suffix)
    if fmt is None:
        raise ConfigError(
            f"cannot tell the format of {shown_path(path)!r} from its name; pass --format "
            f"({', '.join(FORMATS)})"
        )
    return fmt, compression


def compression_of(path: str | os.PathLike) -> str:
    """``.gz``, ``.zst`` or ``""``: the compression a file's name gives, in any case."""
    name = os.fspath(path).lower()
    return next((c for c in _COMPRESSIONS if name.endswith(c)), "")


# ISA-L's level 2: the size of zlib's level 3 (weibo_ced_zh's 176 MB: 32.5 MB) at four times
# zlib level 1's speed (0.16 s vs 0.69 s); ISA-L also decompresses twice as fast (0.29 vs 0.65 s)
GZIP_LEVEL = 2


def arrow_file(path: str | os.PathLike, mode: str = "rb") -> Any:
    """pyarrow's file of ``path``, opened by its bytes: pyarrow encodes a path given as text to
    UTF-8, which a name that is not UTF-8 (``bad\\xffname.parquet``) cannot be."""
    import pyarrow as pa

    return pa.OSFile(os.fsencode(path), mode)


def open_binary(path: str | os.PathLike, mode: str = "rb", *, replayed: bool = False) -> BinaryIO:
    """Open a file, decompressing or compressing .gz and .zst by name.

    gzip is written with ISA-L. It is read with ISA-L only when the caller reads it again
    record by record after a stream error (``replayed``): ISA-L's reader raises on a truncated
    or corrupt stream before handing out the data ahead of the break, the standard library's
    hands it out first, so the records before the break are found and the break is named.
    """
    p = os.fspath(path)
    compression = compression_of(p)
    if compression == ".gz":
        if "r" in mode:
            opener = igzip.open if replayed else gzip.open
            return opener(p, mode)  # type: ignore[return-value]
        # no time stamp in the header: the same records give the same bytes on every run
        gz = igzip.IGzipFile(p, mode, compresslevel=GZIP_LEVEL, mtime=0)
        return io.BufferedWriter(gz, buffer_size=1 << 20)  # type: ignore[return-value]
    if compression == ".zst":
        import zstandard

        if "r" in mode:
            return io.BufferedReader(_ZstdReader(p), buffer_size=1 << 16)
        raw = open(p, "wb")  # noqa: SIM115 - closed by the stream writer
        return zstandard.ZstdCompressor(level=3).stream_writer(raw, closefd=True)  # type: ignore
    return open(p, mode)


class _ZstdReader(io.RawIOBase):
    """Decompress a .zst file frame by frame; input that ends inside a frame raises ``EOFError``.

    (zstandard's own stream reader treats a cut-off frame as a normal end of file.)
    """

    def __init__(self, path: str):
        import zstandard

        self._file = open(path, "rb")  # noqa: SIM115 - closed by close()
        self._context = zstandard.ZstdDecompressor()
        self._frame = self._context.decompressobj()
        self._in_frame = False  # the current frame has had input
        self._out = memoryview(b"")

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self._out:
            data = self._frame.unused_data if self._frame.eof else b""
            if self._frame.eof:
                self._frame, self._in_frame = self._context.decompressobj(), False
            data = data or self._file.read(1 << 17)
            if not data:
                if self._in_frame:
                    raise EOFError("zstd data ended before the end of the frame")
                return 0
            self._in_frame = True
            self._out = memoryview(self._frame.decompress(data))
        n = min(len(buffer), len(self._out))
        buffer[:n] = self._out[:n]
        self._out = self._out[n:]
        return n

    def close(self) -> None:
        self._file.close()
        super().close()


def stream_errors() -> tuple[type[Exception], ...]:
    """What gzip (stdlib or ISA-L), zlib and zstandard raise on truncated or corrupt input."""
    import zstandard

    return (EOFError, gzip.BadGzipFile, zlib.error, isal_zlib.error, zstandard.ZstdError)


# compressions neardup does not read, and the command that decompresses each to a pipe
_UNREAD = {".bz2": "bzcat", ".xz": "xzcat", ".lzma": "xzcat", ".lz4": "lz4cat", ".zip": "unzip -p"}


def check_input(path: str | os.PathLike) -> Path:
    p = Path(path)
    if not p.exists():
        raise InputError("no such file", source=str(p))
    if p.is_dir():
        raise InputError("is a directory, not a file", source=str(p))
    if not os.access(p, os.R_OK):
        raise InputError("permission denied", source=str(p))
    unread = _UNREAD.get(p.suffix.lower())
    if unread is not None:
        shown = shown_path(p)
        raise InputError(
            f"{p.suffix} compression is not read (.gz and .zst are); decompress it first "
            f"(`{unread} {shown} > FILE`, or into a pipe: "
            f"`{unread} {shown} | neardup dedup - ...`)",
            source=str(p),
        )
    return p


def _stamp(path: Path) -> tuple[int, int] | None:
    """``(size, modification time in ns)`` of ``path``; None when it is gone. Not the device
    and inode: a network mount may renumber them (autofs, FUSE) for a file nobody touched; a
    file replaced by another was written at another time."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def check_row(
    number: int,
    row: dict[str, Any],
    raw: Any,
    *,
    text_field: str,
    id_field: str | None,
    line: bytes | None = None,
) -> Record | Skipped:
    """Validate one parsed row: a :class:`Record`, or a :class:`Skipped` saying what is wrong.

    Shared by the local reader and the Spark job, so both accept and reject the same records.
    ``line``: the JSON line the row was parsed from, where an integer id beyond 64 bits is read
    again as written (orjson gives it as a rounded float).
    """
    doc_id = str(number) if id_field is None else read_id(number, row, id_field, line=line)
    if isinstance(doc_id, Skipped):
        return doc_id
    if text_field not in row:
        fields = ", ".join(sorted(map(str, row)))[:200]
        return Skipped(
            number,
            doc_id,
            "missing_text",
            f"no text field {text_field!r} (fields: {fields}); use --text-field",
        )
    text = row[text_field]
    if not isinstance(text, str):
        return Skipped(
            number,
            doc_id,
            "text_not_string",
            f"text field {text_field!r} is {type(text).__name__}, not a string",
        )
    if SURROGATE.search(text):
        return Skipped(number, doc_id, "invalid_utf8", "text is not valid UTF-8")
    if not text.strip():
        return Skipped(number, doc_id, "empty_text", "the text is empty")
    return Record(number, doc_id, text, raw)


def read_id(
    number: int, row: dict[str, Any], id_field: str, *, line: bytes | None = None
) -> str | Skipped:
    """The id in field ``id_field`` of the parsed ``row``, as every reader takes one: a string,
    or an integer as its decimal text (beyond 64 bits as written in ``line``, the JSON line of
    the row); else a :class:`Skipped` saying why it is no id — missing or null
    (``missing_id``), of another type (a float, a boolean, a list: ``bad_id``), holding a NUL
    (``bad_id``) or not valid UTF-8 (``invalid_utf8``)."""
    if type(row.get(id_field)) is float and line is not None:
        row = exact_integers(row, line)
    doc_id = row.get(id_field)
    if doc_id is None:
        if id_field in row:  # JSON null, or a Parquet null
            return Skipped(number, None, "missing_id", f"id field {id_field!r} is null")
        fields = ", ".join(sorted(map(str, row))[:10])
        return Skipped(number, None, "missing_id", f"no id field {id_field!r} (fields: {fields})")
    if not isinstance(doc_id, str):
        if isinstance(doc_id, bool) or not isinstance(doc_id, int):
            return Skipped(
                number,
                None,
                "bad_id",
                f"id field {id_field!r} is {type(doc_id).__name__}, not a string or integer",
            )
        doc_id = str(doc_id)
    if SURROGATE.search(doc_id):
        bad = escape_undecodable(doc_id)
        return Skipped(number, bad, "invalid_utf8", f"id {bad!r} is not valid UTF-8")
    if "\x00" in doc_id:  # PostgreSQL's text cannot hold one: no store, no output takes it
        return Skipped(number, None, "bad_id", f"id {doc_id!r} holds a NUL character")
    return doc_id


def _standard_json(line: bytes) -> dict[str, Any] | None:
    """A JSON object line as the standard library parses it (integers of any size), or None."""
    import json

    try:
        row = json.loads(line)
    except ValueError:
        return None
    return row if isinstance(row, dict) else None


def exact_integers(row: dict[str, Any], line: bytes) -> dict[str, Any]:
    """``row`` with its integers of more than 64 bits as written in its JSON ``line``: orjson
    gives such a number as a rounded float (two ids could round to one), the standard
    library's parser keeps integers of any size. Read again only for a row holding a float."""
    if not any(type(v) is float for v in row.values()):
        return row
    exact = _standard_json(without_bom(line))
    if exact is None:
        return row
    return {
        k: exact[k] if type(v) is float and type(exact.get(k)) is int else v for k, v in row.items()
    }


BOM = b"\xef\xbb\xbf"


def _after_quote(exc: csv.Error) -> str:
    """What is wrong with a CSV row the strict parser refuses, and how to write it."""
    return (
        f"malformed row ({exc}): a field that starts with a quote must end with it; quote the "
        'whole field and write a quote inside it as ""'
    )


class _Taken:
    """Lines handed to a CSV reader, kept until the next record starts: strict parsing finds a
    quote that is never closed, and a row it refuses for text after a closing quote is read
    again from its own lines by the lenient parser (as before strict parsing)."""

    def __init__(self, lines: Iterable[str]):
        self._lines = iter(lines)
        self.taken: list[str] = []

    def __iter__(self) -> _Taken:
        return self

    def __next__(self) -> str:
        line = next(self._lines)
        self.taken.append(line)
        return line


def without_bom(line: bytes) -> bytes:
    """A line without the UTF-8 byte order mark some editors put at a file's start."""
    return line[len(BOM) :] if line.startswith(BOM) else line


def blank_line(line: bytes) -> bool:
    """Whether a JSON Lines line is blank — neither record nor skip, on every surface — white
    space, or a byte order mark alone."""
    return not without_bom(line).strip()


def parse_json_line(number: int, line: bytes) -> dict[str, Any] | Skipped:
    """One JSON Lines record: the object, or a :class:`Skipped` naming the problem. A byte
    order mark before it (some editors start a file with one) is not part of it: every
    surface that reads JSON Lines (local, Spark, evaluation) parses lines here. The line's end
    is not part of it either: Spark's lines come without, and a parser's message would place
    an error on the next line (``line 2 column 1``) when read with it."""
    line = without_bom(line).rstrip(b"\r\n")
    try:
        row = orjson.loads(line)
    except orjson.JSONDecodeError as exc:
        if "infinity" in str(exc):  # an integer of hundreds of digits: valid JSON, read exactly
            huge = _standard_json(line)
            if huge is not None:
                return huge

        if "utf-8" in str(exc).lower():
            try:
                line.decode("utf-8")
            except UnicodeDecodeError as bad:  # say where, not what orjson's parser saw
                where = f"byte {bad.start + 1}: {line[bad.start : bad.start + 4]!r}"
                return Skipped(number, None, "invalid_utf8", f"not valid UTF-8 ({where})")
            return Skipped(number, None, "invalid_utf8", f"not valid UTF-8 ({exc})")
        return Skipped(
            number, None, "malformed_json", f"not valid JSON ({exc}){_array_hint(number, line)}"
        )
    if not isinstance(row, dict):
        return Skipped(
            number,
            None,
            "not_an_object",
            f"expected a JSON object, got {type(row).__name__}{_array_hint(number, line)}",
        )
    return row


def _array_hint(number: int, line: bytes) -> str:
    """For a file that opens with ``[`` (one JSON array, not JSON Lines): how to convert it."""
    if number != 1 or not line.lstrip().startswith(b"["):
        return ""
    return (
        "; this looks like one JSON array: records are read as JSON Lines, one object per "
        "line (convert with: jq -c '.[]' FILE > FILE.jsonl)"
    )


def field_of_records(path: str | os.PathLike, option: str, fmt: str | None) -> str:
    """Why ``option`` cannot apply to the text file ``path`` (read as text: ``fmt``)."""
    fix = (
        "pass --format jsonl, csv, tsv or parquet if it holds records"
        if fmt == "text"
        else "pass --format if the file is not plain text"
    )
    return (
        f"{shown_path(path)}: {option} names a field of JSON Lines, CSV/TSV or Parquet records; a "
        f"text file holds one document per line (its id is the line number): drop {option}, or {fix}"
    )


class RecordReader:
    """Iterate the records of one input file (see the module docstring)."""

    def __init__(
        self,
        path: str | os.PathLike,
        *,
        text_field: str = "text",
        id_field: str | None = None,
        fmt: str | None = None,
        on_error: str = "fail",
    ):
        if on_error not in ON_ERROR:
            raise ConfigError(f"on_error={on_error!r} is not supported; choose 'fail' or 'skip'")
        self.path = check_input(path)
        self.format = fmt or split_suffix(self.path)[0]
        if self.format not in FORMATS:
            raise ConfigError(
                f"format={self.format!r} is not supported; choose one of {', '.join(FORMATS)}"
            )
        if self.format == "text" and id_field is not None:
            raise ConfigError(field_of_records(self.path, "--id-field", fmt))
        self.text_field = text_field
        self.id_field = id_field
        self.on_error = on_error
        self.source = shown_path(self.path)  # as messages and outputs name it
        self.stamp = _stamp(self.path)  # what the file was when the run first saw it

    def check_unchanged(self) -> None:
        """Raise :class:`InputError` when the file is no longer the one first seen (replaced,
        rewritten, grown, cut or touched since): a caller that reads it again (the kept
        records are copied from a second reading) would copy records it never judged."""
        now, was = _stamp(self.path), self.stamp
        if now != was:
            if now is None or was is None:
                what = "removed"
            elif now[0] != was[0]:
                what = f"rewritten ({was[0]:,} bytes then, {now[0]:,} now)"
            else:
                what = "modified"
            raise InputError(
                f"the file was {what} while the run read it; its records are read twice (the "
                "kept ones are copied from the second reading), so the run stops unpublished "
                "(no summary.json) — run again on a file that does not change meanwhile (a "
                "copy of it)",
                source=self.source,
            )

    def __iter__(self) -> Iterator[Record | Skipped]:
        rows = {
            "jsonl": self._jsonl,
            "csv": self._csv,
            "tsv": self._csv,
            "parquet": self._parquet,
            "text": self._text,
        }[self.format]()
        empty, last = True, 0
        try:
            for item in rows:
                empty, last = False, item.number
                yield item
        except stream_errors() as exc:
            yield self._broken(last, exc)
            return
        if empty:
            self.bad(0, None, "empty_file", "the file holds no records")

    def blocks(self) -> Iterator[Any]:
        """The records in blocks, :class:`neardup.blocks.Columns` where they are clean: the
        fast path of reading (:func:`neardup.blocks.record_blocks`)."""
        from .blocks import record_blocks

        return record_blocks(self)

    def required_fields(self) -> tuple[str | None, ...]:
        """The fields every record must have (a CSV header lacking one is refused)."""
        return (self.text_field, self.id_field)

    # -- shared checks ----------------------------------------------------------------------
    def bad(self, number: int, doc_id: str | None, reason: str, message: str) -> Skipped:
        if self.on_error == "fail" or reason == "empty_file":
            if reason == "empty_file" and self.on_error == "skip":
                return Skipped(number, doc_id, reason, message)
            raise InputError(message, source=self.source, record=number or None)
        return Skipped(number, doc_id, reason, message)

    def _broken(self, last: int, exc: Exception) -> Skipped:
        """The tail lost after record ``last`` to a truncated or corrupt compressed stream (a
        stream cut before its first record ends is truncated too: a zstd frame is read whole)."""
        if not last and not isinstance(exc, EOFError):
            suffix = Path(self.source).suffix
            raise InputError(f"not a readable {suffix} file ({exc})", source=self.source) from None
        if isinstance(exc, EOFError):
            reason, what = "truncated", "the file is truncated"
        else:
            reason, what = "corrupt_stream", "the compressed data is corrupt"
        where = f"after record {last}" if last else "before its first record ends"
        message = f"{what} {where}, the rest is lost ({exc})"
        return self.bad(last + 1, None, reason, message)

    def record(self, number: int, row: dict[str, Any], raw: Any) -> Record | Skipped:
        line = raw if isinstance(raw, bytes) else None
        item = check_row(
            number, row, raw, text_field=self.text_field, id_field=self.id_field, line=line
        )
        if isinstance(item, Skipped) and item.reason != "empty_text":
            return self.bad(item.number, item.id, item.reason, item.message)
        return item

    # -- formats ----------------------------------------------------------------------------
    def _jsonl(self) -> Iterator[Record | Skipped]:
        with open_binary(self.path) as handle:
            yield from self.json_items(enumerate(handle, 1))

    def json_items(self, lines: Iterable[tuple[int, bytes]]) -> Iterator[Record | Skipped]:
        """Numbered JSON Lines judged one at a time (blank lines are neither record nor skip)."""
        for number, line in lines:
            if blank_line(line):
                continue
            row = parse_json_line(number, line)
            if isinstance(row, Skipped):
                yield self.bad(row.number, None, row.reason, row.message)
                continue
            yield self.record(number, row, line)

    def _csv(self) -> Iterator[Record | Skipped]:
        delimiter = "\t" if self.format == "tsv" else ","
        with open_binary(self.path) as raw:
            handle = io.TextIOWrapper(  # utf-8-sig: a byte order mark (Excel's) is not a column
                raw, encoding="utf-8-sig", errors="surrogateescape", newline=""
            )
            lines = _Taken(handle)
            reader = csv.reader(lines, delimiter=delimiter, strict=True)
            try:
                header = next(reader)
            except StopIteration:
                return
            except csv.Error as exc:
                raise InputError(f"malformed header ({exc})", source=self.source) from None
            bad = [escape_undecodable(h) for h in header if SURROGATE.search(h)]
            if bad:
                raise InputError(
                    f"the header is not valid UTF-8 (column {bad[0]!r})", source=self.source
                )
            for name in (self.text_field, self.id_field):
                if name is not None and header.count(name) > 1:
                    raise InputError(
                        f"the header names column {name!r} {header.count(name)} times: say "
                        "which one to read by renaming the others",
                        source=self.source,
                    )
            _check_columns(header, self.required_fields(), delimiter, self.source)
            width = len(header)
            number = 0
            while True:
                lines.taken.clear()
                try:
                    values = next(reader)
                except StopIteration:
                    return
                except csv.Error as exc:
                    if "unexpected end of data" in str(exc):  # a quote never closed
                        yield self.bad(number + 1, None, "unclosed_quote", UNCLOSED_QUOTE)
                        return
                    # text after a closing quote (1,"abc"def): Python's lenient parser drops the
                    # quotes, and the kept record would be written back without them. The row
                    # ends where that parser (the kept writer's) ends it: a quoted field it
                    # opens later may go on over the next lines, which are no records
                    rest = csv.reader(chain(lines.taken, lines), delimiter=delimiter, strict=False)
                    values = next(rest, [])
                    number += 1
                    doc_id = None
                    if self.id_field is not None and len(values) == width:
                        doc_id = values[header.index(self.id_field)]
                    yield self.bad(number, doc_id, "malformed_row", _after_quote(exc))
                    continue
                number += 1
                if not values:
                    number -= 1
                    continue
                if len(values) != width:
                    yield self.bad(
                        number,
                        None,
                        "malformed_row",
                        f"{len(values)} fields, the header has {width}",
                    )
                    continue
                yield self.record(number, dict(zip(header, values, strict=True)), values)

    def _parquet(self) -> Iterator[Record | Skipped]:
        import pyarrow.parquet as pq

        try:
            pfile = pq.ParquetFile(arrow_file(self.path))
        except Exception as exc:  # pyarrow raises several types for a bad file
            raise InputError(f"not a readable Parquet file ({exc})", source=self.source) from None
        names = pfile.schema_arrow.names
        columns = [c for c in (self.text_field, self.id_field) if c]
        missing = [c for c in columns if c not in names]
        if missing:
            raise InputError(
                f"no column {missing[0]!r} (columns: {', '.join(names)})", source=self.source
            )
        number = 0
        for batch in pfile.iter_batches(columns=columns, batch_size=65536):
            for row in batch.to_pylist():
                number += 1
                yield self.record(number, row, number - 1)

    def _text(self) -> Iterator[Record | Skipped]:
        with open_binary(self.path) as handle:
            for number, line in enumerate(handle, 1):
                if number == 1:  # an editor's byte order mark is not part of the first text
                    line = without_bom(line)
                try:
                    text = line.decode("utf-8").rstrip("\r\n")
                except UnicodeDecodeError as exc:
                    yield self.bad(number, None, "invalid_utf8", f"not valid UTF-8 ({exc.reason})")
                    continue
                yield self.record(number, {self.text_field: text}, line)  # a line is the text


def _check_columns(
    header: list[str], wanted: tuple[str | None, ...], delimiter: str, source: str
) -> None:
    """A text or id column the header lacks is the run's setting, not a bad record: refused
    whatever ``--on-error`` says (every record would be skipped), naming the columns there are,
    and the delimiter when the header reads as one column holding another one."""
    for name in wanted:
        if name is None or name in header:
            continue
        columns = ", ".join(repr(h) for h in header[:20])
        hint = "; use --text-field / --id-field"
        if len(header) == 1 and any(d in header[0] for d in ";|\t,".replace(delimiter, "")):
            hint = (
                f"; the header reads as one column: fields must be separated by "
                f"{'a tab' if delimiter == chr(9) else 'commas'} (.tsv: tabs, .csv: commas)"
            )
        raise InputError(f"the header has no column {name!r} (columns: {columns}){hint}",
                         source=source)  # fmt: skip


def read_records(path: str | os.PathLike, **options: Any) -> RecordReader:
    """Shorthand for :class:`RecordReader`."""
    return RecordReader(path, **options)
