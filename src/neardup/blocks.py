"""Records a block at a time: the fast path of reading, with the record-by-record reader as its
fallback and oracle.

A JSON Lines input is read in blocks of lines (a few MB each); a block whose every line is a
clean record (a JSON object with a non-empty string text, an id where one is asked for, valid
UTF-8) becomes :class:`Columns` — record numbers, ids and texts as lists — each line decoded
into its text and id only (msgspec; the other fields are skipped, not built), the block's bytes
checked for UTF-8 by a kernel (the decoder does not look at what it skips). A block holding
anything else (a blank line, malformed JSON, a missing or empty field, a duplicate to report)
is handed back to the record-by-record reader
(:class:`neardup.readers.RecordReader`), which says what is wrong exactly as it always does;
a stream that breaks off is replayed by it from the start, so the records before the break and
the one entry standing for the lost tail are those it reports. Other formats come record by
record, in lists.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import islice, repeat
from operator import attrgetter, contains
from typing import Any, BinaryIO

import msgspec

from ._kernels import utf8_valid
from .errors import InputError
from .readers import (
    Record,
    RecordReader,
    Skipped,
    open_binary,
    stream_errors,
    without_bom,
)

BLOCK_BYTES = 1 << 22  # bytes read at once
ITEMS = 10_000  # records per list for the formats read record by record


@dataclass(frozen=True)
class Columns:
    """Clean records of one input, in order: 1-based record numbers, ids and texts."""

    numbers: list[int]
    ids: list[str]
    texts: list[str]

    def __len__(self) -> int:
        return len(self.numbers)

    def with_prefix(self, label: str) -> Columns:
        """The records with ids made unique across inputs (``label:id``)."""
        return Columns(self.numbers, [f"{label}:{i}" for i in self.ids], self.texts)


Block = Columns | list[Record | Skipped]


def data_blocks(handle: BinaryIO, size: int = BLOCK_BYTES) -> Iterator[tuple[int, bytes]]:
    """Whole lines of a binary stream a block at a time: the 1-based number of the block's
    first line and its bytes, each line ending in ``\\n`` but a last line without one."""
    rest, first = b"", 1
    while True:
        data = handle.read(size)
        if not data:
            break
        data = rest + data
        end = data.rfind(b"\n") + 1
        rest = data[end:]
        if end:
            yield first, data[:end]
            first += data.count(b"\n", 0, end)
    if rest:
        yield first, rest


def split_lines(data: bytes) -> list[bytes]:
    """The lines of a block of :func:`data_blocks`, without their ``\\n``."""
    lines = data.split(b"\n")
    if data.endswith(b"\n"):
        lines.pop()
    return lines


def line_blocks(handle: BinaryIO, size: int = BLOCK_BYTES) -> Iterator[tuple[int, list[bytes]]]:
    """The lines of a binary stream cut at ``\\n`` (without it), a block at a time, each block
    with the 1-based number of its first line; a last line without ``\\n`` is a line."""
    for first, data in data_blocks(handle, size):
        yield first, split_lines(data)


def jsonl_blocks(reader: RecordReader) -> Iterator[Block]:
    """The records of a JSON Lines input: :class:`Columns` for clean blocks, the reader's own
    items for the others (see the module docstring)."""
    last = 0  # the number of the last line handed out
    found = False  # any record or skip (blank lines are neither)
    decoder = record_decoder(reader.text_field, reader.id_field)
    try:
        with open_binary(reader.path, replayed=True) as handle:
            for first, data in data_blocks(handle, BLOCK_BYTES):
                lines = split_lines(data)
                cols = _columns(first, lines, data, decoder=decoder)
                if cols is None:  # the reader's own checks, line by line
                    numbered = enumerate((line + b"\n" for line in lines), first)
                    for block in _in_lists(reader.json_items(numbered), size=len(lines)):
                        found = True
                        yield block
                else:
                    found = found or len(cols) > 0
                    yield cols
                last = first + len(lines) - 1
    except stream_errors():  # replayed: the reader's report of the rest and the lost tail
        yield from _in_lists(item for item in reader if item.number > last)
        return
    if not found:
        reader.bad(0, None, "empty_file", "the file holds no records")


def record_blocks(reader: RecordReader) -> Iterator[Block]:
    """The records of any input in blocks (:func:`jsonl_blocks` for JSON Lines)."""
    if reader.format == "jsonl":
        yield from jsonl_blocks(reader)
        return
    yield from _in_lists(iter(reader))


def _in_lists(
    items: Iterator[Record | Skipped], *, size: int = ITEMS
) -> Iterator[list[Record | Skipped]]:
    """``items`` in lists of at most ``size``. A bad record that stops the reading (``--on-error
    fail``) comes after the records before it are handed out: one of those may be the first
    bad record (a repeated id, found by the caller), and the error names the first."""
    while True:
        block: list[Record | Skipped] = []
        try:
            block.extend(islice(items, size))
        except InputError as exc:
            if block:
                yield block
            raise exc from None
        if not block:
            return
        yield block


@lru_cache(maxsize=8)
def record_decoder(text_field: str, id_field: str | None) -> msgspec.json.Decoder | None:
    """A decoder of one JSON Lines record into its text and id (a string or an integer) that
    skips every other field without building it — the records of weibo_ced_zh carry three
    more; orjson built them all (0.45-0.53 s against 1.19-1.54 s for its 772,000 posts). None
    when the two fields are one, or a name is one msgspec cannot take."""
    if text_field == id_field:
        return None
    fields: list[tuple[str, Any]] = [("text", str)]
    names = {"text": text_field}
    if id_field is not None:
        fields.append(("id", str | int))
        names["id"] = id_field
    try:
        record = msgspec.defstruct("Record", fields, rename=names, gc=False)
    except (ValueError, UnicodeError):  # a name msgspec cannot match ('a"b', a control
        return None  # character, a lone surrogate): the record reader reads every block
    return msgspec.json.Decoder(record)


def _columns(
    first: int, lines: list[bytes], data: bytes, *, decoder: msgspec.json.Decoder | None
) -> Columns | None:
    """The block (``lines``, the bytes ``data`` of them) as columns when every line is a clean
    record, else None. Each step is one pass in C (``map``), not a Python loop per record."""
    if decoder is None or not utf8_valid(data):
        return None
    if first == 1 and lines:
        lines = [without_bom(lines[0]), *lines[1:]]
    try:
        rows = list(map(decoder.decode, lines))
    except (msgspec.DecodeError, RecursionError):  # not JSON, not an object, a field missing
        return None  # or of another type (a float or boolean id, a text that is no string)
    texts = list(map(attrgetter("text"), rows))
    if not all(texts) or any(map(str.isspace, texts)):
        return None  # an empty or blank text
    numbers = list(range(first, first + len(lines)))
    if "id" not in decoder.type.__struct_fields__:
        ids = list(map(str, numbers))
    else:
        ids = list(map(attrgetter("id"), rows))
        if int in set(map(type, ids)):
            ids = [i if type(i) is str else str(i) for i in ids]
        if any(map(contains, ids, repeat("\x00"))):
            return None  # an id holding NUL is a bad record (``readers.read_id``)
    # no lone surrogate can be here: the decoder refuses one escaped in a string
    # (``"\\ud800"``), and the block is valid UTF-8
    return Columns(numbers, ids, texts)
