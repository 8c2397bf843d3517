"""Reading and writing a block at a time, against the record-by-record reader as the oracle."""

from __future__ import annotations

import gzip
import io
import os
import random
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup import _kernels, blocks
from neardup.blocks import Columns, line_blocks, record_blocks
from neardup.errors import InputError
from neardup.kept import write_single
from neardup.readers import Record, RecordReader, open_binary

CLEAN = [
    {"id": "a", "text": "国务院常务会议部署稳外贸稳外资措施"},
    {"id": 7, "text": "an English story about markets, \\u00e9 escaped"},
    {"id": "c", "text": "带\\n换行的文本", "extra": [1, {"x": None}]},
]
BAD = [
    b"",  # blank line: skipped silently, still counted in the numbering
    b"   \r",
    b"{not json",
    b"[1, 2]",
    b'{"id": "m"}',  # no text field
    b'{"id": "e", "text": "  "}',  # empty text
    b'{"id": "n", "text": 5}',
    b'{"id": true, "text": "bool id"}',
    b'{"id": "s", "text": "lone \\ud800 surrogate"}',
    b'{"id": "\\udcff", "text": "bad id"}',
    b'{"text": "no id"}',
    b'{"id": "a", "text": "an id used again"}',
    b'{"id": "nul\\u0000id", "text": "an id holding NUL"}',  # the blocks took it (dedup kept it)
    # the block decoder skips the fields it does not read: what it must still refuse there
    b'{"id": "x1", "text": "NaN elsewhere", "score": NaN}',
    b'{"id": "x2", "text": "Infinity elsewhere", "score": -Infinity}',
    b'{"id": "x3", "text": "bad UTF-8 elsewhere", "note": "\xff\xfe"}',
    b'{"id": "x4", "text": "bad UTF-8 in a key", "\xc0\xaf": 1}',
    b'{"id": "x5", "text": "a lone surrogate elsewhere", "note": "\\ud800"}',
    b'{"id": "x6", "text": "deep elsewhere", "d": ' + b"[" * 1500 + b"]" * 1500 + b"}",
    b'{"id": 1e3, "text": "a float id"}',
    b'{"id": 123456789012345678901234567890, "text": "an id of more than 64 bits"}',
    b'{"id": "x7", "text": "a key given twice", "text": "the last one counts"}',
    b'{"id": "x8", "text": "two records"} {"id": "x9", "text": "on one line"}',
    b'{"id": "y1", "te\\u0078t": "an escaped key"}',
]


@pytest.mark.parametrize(
    "line",
    [
        b'{"t": "a\\ud800b"}',
        b'{"t": "\\udcff"}',
        '{"t": "\ud800"}'.encode("utf-8", "surrogatepass"),
    ],
)
def test_the_json_parsers_refuse_lone_surrogates(line):
    """The block reader takes a text or id as its decoder gives it, unchecked: it relies on the
    decoder refusing a lone surrogate escaped (a pair is one character) and on the block being
    valid UTF-8 (an encoded one is not); the record reader on orjson refusing both."""
    with pytest.raises(orjson.JSONDecodeError):
        orjson.loads(line)
    assert orjson.loads(b'{"t": "\\ud83d\\ude00"}') == {"t": "\U0001f600"}
    decoder = blocks.record_decoder("t", None)
    assert blocks._columns(1, [line], line, decoder=decoder) is None
    pair = b'{"t": "\\ud83d\\ude00"}'
    assert blocks._columns(1, [pair], pair, decoder=decoder).texts == ["\U0001f600"]


def random_lines(seed: int, n: int) -> list[bytes]:
    rng = random.Random(seed)
    lines = []
    for k in range(n):
        if rng.random() < 0.15:
            lines.append(rng.choice(BAD))
        else:
            row = dict(rng.choice(CLEAN))
            row["text"] = f"{row['text']} {k}"
            line = orjson.dumps(row)
            lines.append(line + b"\r" if rng.random() < 0.1 else line)
    return lines


def flat(reader: RecordReader) -> list[tuple]:
    """Every item of the blocks, as the one-by-one reader would give it."""
    out = []
    for block in record_blocks(reader):
        if isinstance(block, Columns):
            out += [
                ("rec", n, i, t)
                for n, i, t in zip(block.numbers, block.ids, block.texts, strict=True)
            ]
        else:
            out += [as_tuple(item) for item in block]
    return out


def as_tuple(item) -> tuple:
    if isinstance(item, Record):
        return ("rec", item.number, item.id, item.text)
    return ("skip", item.number, item.id, item.reason, item.message)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("id_field", [None, "id"])
@pytest.mark.parametrize("suffix", [".jsonl", ".jsonl.gz"])
def test_blocks_give_what_the_record_reader_gives(tmp_path, monkeypatch, seed, id_field, suffix):
    monkeypatch.setattr(blocks, "BLOCK_BYTES", 97)  # many blocks, lines cut across reads
    lines = random_lines(seed, 120)
    path = tmp_path / f"in{suffix}"
    with open_binary(path, "wb") as out:
        out.write(b"\n".join(lines) + (b"\n" if seed % 2 else b""))  # last line with or without
    reader = RecordReader(path, id_field=id_field, on_error="skip")
    assert flat(reader) == [as_tuple(item) for item in reader]
    if any(isinstance(b, Columns) for b in record_blocks(reader)) is False:
        pytest.fail("no block was clean: the fast path was not exercised")
    strict = RecordReader(path, id_field=id_field, on_error="fail")
    with pytest.raises(InputError) as one_by_one:
        list(strict)
    with pytest.raises(InputError) as by_blocks:
        flat(strict)
    assert str(by_blocks.value) == str(one_by_one.value)


@pytest.mark.parametrize("data", [b"", b"\n\n  \n", b"\n\r\n"])
def test_a_file_without_records_is_reported_like_the_record_reader(tmp_path, data):
    path = tmp_path / "empty.jsonl"
    path.write_bytes(data)
    with pytest.raises(InputError) as one_by_one:
        list(RecordReader(path))
    with pytest.raises(InputError) as by_blocks:
        flat(RecordReader(path))
    assert str(by_blocks.value) == str(one_by_one.value)
    assert flat(RecordReader(path, on_error="skip")) == []


def test_a_broken_stream_is_replayed_by_the_record_reader(tmp_path, monkeypatch):
    monkeypatch.setattr(blocks, "BLOCK_BYTES", 1 << 12)
    lines = [
        orjson.dumps({"text": f"第{k}条消息，内容各不相同 {k * 7919}"}) + b"\n" for k in range(400)
    ]
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb") as gz:
        gz.write(b"".join(lines[:300]))
        gz.flush()
        cut = buf.tell()
        gz.write(b"".join(lines[300:]))
    path = tmp_path / "cut.jsonl.gz"
    path.write_bytes(buf.getvalue()[:cut])
    reader = RecordReader(path, on_error="skip")
    got = flat(reader)
    assert got == [as_tuple(item) for item in reader]
    assert got[-1][3] == "truncated" and sum(g[0] == "rec" for g in got) == 300


def test_line_blocks_cut_like_the_file_iterator():
    rng = random.Random(3)
    data = b"".join(rng.choice([b"a", b"bc", b"\n", b"\r\n", b"\xe4\xb8\xad"]) for _ in range(5000))
    for size in (1, 2, 7, 64, 1 << 20):
        got = [line for _, lines in line_blocks(io.BytesIO(data), size) for line in lines]
        assert got == [line.rstrip(b"\n") for line in io.BytesIO(data)]
        firsts = [first for first, _ in line_blocks(io.BytesIO(data), size)]
        sizes = [len(lines) for _, lines in line_blocks(io.BytesIO(data), size)]
        assert firsts == [1 + sum(sizes[:k]) for k in range(len(sizes))]


@pytest.mark.parametrize("suffix", [".jsonl", ".jsonl.gz", ".txt"])
def test_kept_lines_written_from_blocks(tmp_path, monkeypatch, suffix):
    monkeypatch.setattr(blocks, "BLOCK_BYTES", 50)
    rng = random.Random(5)
    lines = [
        orjson.dumps({"text": f"记录 {k}"}) + (b"\r\n" if k % 5 == 0 else b"\n") for k in range(200)
    ]
    src = tmp_path / f"in{suffix}"
    with open_binary(src, "wb") as out:
        out.write(b"".join(lines))
    keep = set(rng.sample(range(1, 201), 80))
    dst = tmp_path / f"kept{suffix}"
    assert write_single([RecordReader(src)], [keep], dst) == 80
    with open_binary(dst) as got:
        assert got.read() == b"".join(lines[n - 1] for n in sorted(keep))


def test_gzip_through_isa_l_is_plain_gzip(tmp_path):
    """What ``open_binary`` writes, the standard library reads back byte for byte, and a
    multi-member file the standard library wrote reads the same through either reader."""
    rng = random.Random(5)
    data = b"".join(
        rng.choice([b"\xe4\xb8\xad\xe6\x96\x87", b"text ", b"\n"]) for _ in range(50000)
    )
    written = tmp_path / "out.jsonl.gz"
    with open_binary(written, "wb") as out:
        out.write(data)
    assert gzip.decompress(written.read_bytes()) == data
    members = tmp_path / "members.jsonl.gz"
    members.write_bytes(gzip.compress(data[:7000]) + gzip.compress(data[7000:]))
    for replayed in (False, True):
        with open_binary(members, replayed=replayed) as handle:
            assert handle.read() == data


EDGES = [0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0]
EDGES += [0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF]


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(EDGES), st.integers(0, 255)), max_size=12))
def test_the_utf8_kernel_judges_as_the_strict_decoder(values):
    """Overlong forms, surrogates, code points past U+10FFFF and characters cut short are
    refused, by the kernel and by its twin alike, as Python's strict decoder refuses them."""
    data = bytes(values)
    try:
        data.decode("utf-8")
        valid = True
    except UnicodeDecodeError:
        valid = False
    assert bool(_kernels._utf8_valid(np.frombuffer(data, np.uint8))) is valid
    assert _kernels.utf8_valid(data) is valid  # the kernel (the suite compiles from 0)
    with compiling_from(1 << 20):
        assert _kernels.utf8_valid(data) is valid  # the twin: a small run decodes


@contextmanager
def compiling_from(bound: int) -> Iterator[None]:
    """``NEARDUP_COMPILED_FROM`` set to ``bound`` within (hypothesis runs many examples per
    test, so no fixture)."""
    before = os.environ.get("NEARDUP_COMPILED_FROM")
    os.environ["NEARDUP_COMPILED_FROM"] = str(bound)
    try:
        yield
    finally:
        if before is None:
            del os.environ["NEARDUP_COMPILED_FROM"]
        else:
            os.environ["NEARDUP_COMPILED_FROM"] = before


@pytest.mark.parametrize("text_field", ['a"b', "a\\b", "a\tb", "\x00", "\udcff", "t\u00e9xt", ""])
def test_any_field_name_reads_as_the_record_reader_reads_it(tmp_path, text_field):
    """Review: msgspec refuses some names (a quote, a backslash, a control character, a lone
    surrogate: what ``--text-field $'\\xff'`` gives) and the block reader raised a traceback;
    now those files are read record by record, as every other name is read by blocks."""
    field = text_field.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    lines = [orjson.dumps({field: f"a text number {k}", "id": str(k)}) for k in range(5)]
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    reader = RecordReader(path, text_field=text_field, id_field="id", on_error="skip")
    assert flat(reader) == [as_tuple(item) for item in reader]
