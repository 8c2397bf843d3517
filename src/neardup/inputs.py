"""Several inputs read as one stream of documents: files, directories, glob patterns and ``-``.

``neardup dedup a.jsonl shards/ 'crawl-*.parquet' -`` reads, in the order given, a file, every
file under a directory (recursively, names sorted, only names whose format neardup knows), the
files a pattern matches (sorted) and standard input (JSON Lines unless ``--format`` says
otherwise). Standard input and any other input that can be read only once — a pipe (``<(cmd)``,
``/dev/stdin``), a named FIFO, a character device — are spooled to a temporary file, because
writing the kept records reads the input again (read twice, a pipe is empty the second time).

Each input keeps its own record numbers. So that a document's id names one record, documents
without an ``--id-field`` are called ``<input>:<record number>`` when there are several inputs
(``<input>``: the file's path relative to the inputs' common folder); with an ``--id-field`` the
ids must be unique across all inputs.
"""

from __future__ import annotations

import glob
import os
import shutil
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import ConfigError, InputError
from .readers import (
    Record,
    RecordReader,
    Skipped,
    check_input,
    field_of_records,
    split_suffix,
)
from .shown import shown_path

STDIN = "-"
STDIN_LABEL = "<stdin>"
_GLOB_CHARS = frozenset("*?[")


def expand(specs: list[str]) -> list[str]:
    """The files ``specs`` name, in order (``-`` stays ``-``); a clear error for a spec that
    names nothing and for a file named twice (its documents would all be duplicates)."""
    files: list[str] = []
    for spec in specs:
        files += _expand_one(spec)
    seen: dict[str, str] = {}
    for f in files:
        key = f if f == STDIN else os.path.realpath(f)
        if key in seen:
            what = "standard input ('-')" if f == STDIN else f"the file {shown_path(f)!r}"
            raise ConfigError(f"{what} is given twice as an input; name each input once")
        seen[key] = f
    return files


def _expand_one(spec: str) -> list[str]:
    if spec == STDIN or os.path.isfile(spec):
        return [spec]
    if os.path.isdir(spec):
        found = sorted(
            str(p) for p in Path(spec).rglob("*") if p.is_file() and _known_format(p.name)
        )
        if not found:
            raise InputError(
                "the directory holds no file of a known format "
                "(.jsonl, .json, .ndjson, .csv, .tsv, .parquet, .pq, .txt; optionally .gz/.zst)",
                source=spec,
            )
        return found
    if _GLOB_CHARS & set(spec):
        found = sorted(p for p in glob.glob(spec, recursive=True) if os.path.isfile(p))
        if not found:
            raise InputError("the pattern matches no file", source=spec)
        return found
    return [spec]  # the reader says what is wrong with it (no such file, permission denied)


def _known_format(name: str) -> bool:
    try:
        split_suffix(name)
    except ConfigError:
        return False
    return not name.startswith(".")


def labels(files: list[str]) -> list[str]:
    """Short names of the inputs: paths relative to their common folder (``<stdin>`` for ``-``),
    as outputs name them (:func:`~neardup.shown.shown_path`: bytes that are not UTF-8 escaped)."""
    real = [os.path.abspath(f) for f in files if f != STDIN]
    if len(real) == 1 and len(files) == 1:
        return [shown_path(files[0])]
    base = os.path.commonpath([os.path.dirname(p) for p in real]) if real else ""
    shown = [
        STDIN_LABEL if f == STDIN else shown_path(os.path.relpath(os.path.abspath(f), base))
        for f in files
    ]
    if len(set(shown)) < len(shown):  # a name holding "\\xff" as written and one escaped so
        twice = next(s for s in shown if shown.count(s) > 1)
        raise ConfigError(
            f"two inputs are both named {twice} once their bytes that are not UTF-8 are "
            "written as escapes: their ids and kept files would mix; rename one"
        )
    return shown


def spool_stdin(directory: Path) -> Path:
    """Copy standard input into a file in ``directory`` (read twice: detection, then writing)."""
    path = directory / "stdin"
    if sys.stdin.isatty():  # nothing piped in: say what we wait for
        print("neardup: reading JSON Lines from standard input (Ctrl-D ends)", file=sys.stderr)
    with open(path, "wb") as out:
        shutil.copyfileobj(sys.stdin.buffer, out, 1 << 20)
    return path


def read_once(spec: str) -> bool:
    """Whether the input ``spec`` names something that exists but is no regular file or
    directory: a pipe, a FIFO, a device — readable once (``-`` is standard input, apart)."""
    if spec == STDIN or not os.path.exists(spec):
        return False
    return not os.path.isfile(spec) and not os.path.isdir(spec)


def spool_file(spec: str, directory: Path, number: int, fmt: str | None) -> Path:
    """Copy the read-once input ``spec`` into a file in ``directory`` under its own name (its
    format and compression still read from the name), after checking that the name or ``fmt``
    tells the format — before the pipe is consumed."""
    if fmt is None:
        split_suffix(spec)  # the error names the input as given
    path = directory / f"{uuid.uuid4().hex[:12]}-{number}-{Path(spec).name}"  # inputs and the
    # reference share the folder, each numbered from 0
    with open(check_input(spec), "rb") as source, open(path, "wb") as out:
        shutil.copyfileobj(source, out, 1 << 20)
    return path


@dataclass(frozen=True)
class Item:
    """One record or skip of input number ``source``."""

    source: int
    item: Record | Skipped


class Inputs:
    """The readers of several inputs, read one after the other.

    ``spool``: where standard input and other read-once inputs (:func:`read_once`) are copied,
    for a caller that reads its inputs twice (needed only when one is among the files; without
    it a pipe is read once, as it comes, and standard input is refused).
    """

    def __init__(
        self,
        specs: list[str],
        *,
        text_field: str = "text",
        id_field: str | None = None,
        fmt: str | None = None,
        on_error: str = "fail",
        spool: Path | None = None,
    ):
        files = expand(specs)
        self.labels = labels(files)
        self.readers: list[RecordReader] = []
        for number, f in enumerate(files):
            if f == STDIN:
                if spool is None:
                    raise ConfigError("standard input ('-') cannot be read here; name a file")
                path, f_fmt = spool_stdin(spool), fmt or "jsonl"
            elif read_once(f) and spool is not None:  # else read once, as it comes
                path, f_fmt = spool_file(f, spool, number, fmt), fmt
            else:
                path, f_fmt = Path(f), fmt
            reader = RecordReader(
                path, text_field=text_field, id_field=id_field, fmt=f_fmt, on_error=on_error
            )
            if f == STDIN:
                reader.source = STDIN_LABEL
            elif path != Path(f):
                reader.source = shown_path(f)  # messages name the input as given, not its copy
            self.readers.append(reader)
        if text_field != "text" and all(r.format == "text" for r in self.readers):
            # with records among the inputs the option is theirs (a text file ignores it)
            raise ConfigError(field_of_records(self.readers[0].path, "--text-field", fmt))
        self.prefix_ids = id_field is None and len(files) > 1
        self.on_error = on_error

    def __len__(self) -> int:
        return len(self.readers)

    def __iter__(self) -> Iterator[Item]:
        for source, reader in enumerate(self.readers):
            for item in reader:
                if self.prefix_ids:
                    item = _prefixed(item, self.labels[source])
                yield Item(source, item)

    def blocks(self) -> Iterator[tuple[int, Any]]:
        """``(input number, block)`` for every block of every input (see :mod:`neardup.blocks`):
        the same records as iterating, fewer Python objects."""
        from .blocks import Columns

        for source, reader in enumerate(self.readers):
            label = self.labels[source]
            for block in reader.blocks():
                if self.prefix_ids:
                    if isinstance(block, Columns):
                        block = block.with_prefix(label)
                    else:
                        block = [_prefixed(item, label) for item in block]
                yield source, block

    def where(self, source: int, number: int) -> str:
        """``<input>, record N``: for messages that name a record among several inputs."""
        return f"{self.readers[source].source}, record {number}"


def _prefixed(item: Record | Skipped, label: str) -> Record | Skipped:
    """The item with its record-number id made unique across inputs: ``label:number``."""
    if isinstance(item, Record):
        return Record(item.number, f"{label}:{item.id}", item.text, item.raw)
    doc_id = None if item.id is None else f"{label}:{item.id}"
    return Skipped(item.number, doc_id, item.reason, item.message)
