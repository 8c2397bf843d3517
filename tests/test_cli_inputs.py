"""Several inputs, directories, patterns, standard input and ``--kept``.

Oracle: the same documents in one JSON Lines file, deduplicated by the same command; a run over
several inputs must decide exactly as that run does, and write each kept record back unchanged.
"""

import csv
import json
import os
import subprocess
import sys
import threading

import orjson
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from neardup.cli import main
from test_cli_dedup import BASE as DEDUP_BASE

BASE = [*DEDUP_BASE, "完全无关的一条短消息，说的是另一件事情，和上面的内容没有任何关系。"]


def shards():
    """Three shards whose duplicates cross shard boundaries: (name, [(id, text)])."""
    a = [("a1", BASE[0]), ("a2", BASE[1]), ("a3", BASE[2] + "！")]
    b = [("b1", BASE[0].replace("，", ",")), ("b2", BASE[3]), ("b3", BASE[1].upper())]
    c = [("c1", BASE[2]), ("c2", BASE[3] + "。"), ("c3", "Something else, entirely on its own.")]
    return {"a.jsonl": a, "b.csv": b, "c.parquet": c}


def write(path, rows, *, id_field="doc"):
    if path.suffix == ".jsonl":
        path.write_bytes(b"".join(orjson.dumps({id_field: i, "text": t}) + b"\n" for i, t in rows))
    elif path.suffix == ".csv":
        with open(path, "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow([id_field, "text"])
            w.writerows(rows)
    else:
        ids, texts = zip(*rows, strict=True)
        pq.write_table(pa.table({id_field: list(ids), "text": list(texts)}), path)


def clusters(out):
    with open(out / "clusters.csv", encoding="utf-8") as f:
        return {r["id"]: r["representative_id"] for r in csv.DictReader(f)}


def run(*args):
    return main(["dedup", *map(str, args), "--quiet", "--method", "auto"])


@pytest.fixture
def sharded(tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    for name, rows in shards().items():
        write(folder / name, rows)
    oracle = tmp_path / "all.jsonl"
    write(oracle, [row for rows in shards().values() for row in rows])
    return folder, oracle


def test_several_inputs_decide_as_one_file(tmp_path, sharded):
    folder, oracle = sharded
    assert run(oracle, "-o", tmp_path / "one", "--id-field", "doc") == 0
    expected = clusters(tmp_path / "one")
    assert sum(k != v for k, v in expected.items()) >= 3  # duplicates across shards exist
    names = [folder / n for n in shards()]
    assert run(*names, "-o", tmp_path / "many", "--id-field", "doc") == 0
    assert clusters(tmp_path / "many") == expected
    summary = json.loads((tmp_path / "many" / "summary.json").read_text())
    assert summary["input"] is None and [r["format"] for r in summary["inputs"]] == [
        "jsonl",
        "csv",
        "parquet",
    ]
    kept_ids = {k for k, v in expected.items() if k == v}
    # per input (the default), each in its own format, records unchanged
    a = (tmp_path / "many" / "kept" / "a.jsonl").read_bytes().splitlines()
    assert [orjson.loads(line)["doc"] for line in a] == [
        i for i, _ in shards()["a.jsonl"] if i in kept_ids
    ]
    with open(tmp_path / "many" / "kept" / "b.csv", encoding="utf-8") as f:
        b = list(csv.reader(f))
    assert b[0] == ["doc", "text"]
    assert b[1:] == [[i, t] for i, t in shards()["b.csv"] if i in kept_ids]
    c = pq.read_table(tmp_path / "many" / "kept" / "c.parquet").to_pylist()
    assert c == [{"doc": i, "text": t} for i, t in shards()["c.parquet"] if i in kept_ids]
    rows = {r["input"]: r for r in summary["inputs"]}
    assert sum(r["kept"] for r in rows.values()) == summary["counts"]["kept"] == len(kept_ids)
    assert summary["outputs"]["kept"] == ["kept/a.jsonl", "kept/b.csv", "kept/c.parquet"]
    assert set(summary["files"]) >= {"kept/a.jsonl", "kept/b.csv", "kept/c.parquet"}


def test_a_directory_and_a_pattern_expand_sorted(tmp_path, sharded):
    folder, oracle = sharded
    (folder / "notes.md").write_text("not an input")
    assert run(folder, "-o", tmp_path / "dir", "--id-field", "doc") == 0
    assert run(str(folder / "?.*"), "-o", tmp_path / "glob", "--id-field", "doc") == 0
    assert run(oracle, "-o", tmp_path / "one", "--id-field", "doc") == 0
    for out in ("dir", "glob"):
        summary = json.loads((tmp_path / out / "summary.json").read_text())
        assert [r["input"] for r in summary["inputs"]] == [
            str(folder / n) for n in sorted(shards())
        ]
        assert clusters(tmp_path / out) == clusters(tmp_path / "one")


def test_ids_stay_unambiguous_across_inputs(tmp_path, sharded, capsys):
    folder, _ = sharded
    names = [folder / n for n in shards()]
    assert run(*names, "-o", tmp_path / "o") == 0  # no --id-field: <input>:<record number>
    ids = list(clusters(tmp_path / "o"))
    assert ids[:4] == ["a.jsonl:1", "a.jsonl:2", "a.jsonl:3", "b.csv:1"]
    assert len(set(ids)) == 9
    clash = tmp_path / "clash.jsonl"
    write(clash, [("zz", "one text here"), ("a2", "a different text")])
    assert run(names[0], clash, "-o", tmp_path / "x", "--id-field", "doc") == 2
    err = capsys.readouterr().err
    assert f"{clash}, record 2: duplicate id 'a2' (first at {names[0]}, record 2)" in err
    args = ["--id-field", "doc", "--on-error", "skip"]
    assert run(names[0], clash, "-o", tmp_path / "x", *args) == 0
    skipped = [json.loads(line) for line in (tmp_path / "x" / "skipped.jsonl").open()]
    assert skipped == [
        {
            "input": str(clash),
            "record": 2,
            "id": "a2",
            "reason": "duplicate_id",
            "message": f"id already used by {names[0]}, record 2",
        }
    ]
    summary = json.loads((tmp_path / "x" / "summary.json").read_text())
    c = summary["counts"]
    assert c["records_read"] == 5 == c["kept"] + c["duplicates_removed"] + c["skipped"]


def test_kept_single(tmp_path, sharded):
    folder, _ = sharded
    same = [tmp_path / "p.jsonl", tmp_path / "q.jsonl"]
    write(same[0], shards()["a.jsonl"])
    write(same[1], shards()["b.csv"])
    assert run(*same, "-o", tmp_path / "s", "--id-field", "doc", "--kept", "single") == 0
    kept_ids = {k for k, v in clusters(tmp_path / "s").items() if k == v}
    lines = (tmp_path / "s" / "kept.jsonl").read_bytes().splitlines(keepends=True)
    originals = [line for p in same for line in p.read_bytes().splitlines(keepends=True)]
    assert lines == [line for line in originals if orjson.loads(line)["doc"] in kept_ids]
    # mixed formats: one JSON Lines file, each record an object of its fields
    names = [folder / n for n in shards()]
    assert run(*names, "-o", tmp_path / "m", "--id-field", "doc", "--kept", "single") == 0
    kept_ids = {k for k, v in clusters(tmp_path / "m").items() if k == v}
    got = [orjson.loads(line) for line in (tmp_path / "m" / "kept.jsonl").read_bytes().splitlines()]
    everything = [{"doc": i, "text": t} for rows in shards().values() for i, t in rows]
    assert got == [r for r in everything if r["doc"] in kept_ids]
    assert not (tmp_path / "m" / "kept").exists()


def test_kept_single_leaves_byte_order_marks_out(tmp_path):
    """Two JSON Lines inputs, the second saved with a byte order mark, into one kept file: the
    mark is no part of the second file's first record, so the kept file is clean JSON Lines
    (the bytes copied as they were put one mid-file, which jq and json refuse)."""
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_bytes(b'{"doc": "a1", "text": "first file, first record of its own"}\n')
    second.write_bytes(
        b"\xef\xbb\xbf" + b'{"doc": "b1", "text": "second file, saved with a mark"}\n'
    )
    out = tmp_path / "out"
    assert run(first, second, "-o", out, "--id-field", "doc", "--kept", "single") == 0
    data = (out / "kept.jsonl").read_bytes()
    assert b"\xef\xbb\xbf" not in data
    assert [json.loads(line)["doc"] for line in data.splitlines()] == ["a1", "b1"]


def test_stdin_and_kept_to_stdout(tmp_path, sharded):
    """`cat file | neardup dedup - --kept -` answers as `neardup dedup file`, in a real pipe."""
    _, oracle = sharded
    assert run(oracle, "-o", tmp_path / "file", "--id-field", "doc") == 0
    args = ["-m", "neardup", "dedup", "-", "-o", str(tmp_path / "pipe"), "--kept", "-"]
    proc = subprocess.run(
        [sys.executable, *args, "--id-field", "doc", "--method", "auto", "--quiet"],
        input=oracle.read_bytes(),
        capture_output=True,
        check=False,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout == (tmp_path / "file" / "kept.jsonl").read_bytes()
    assert clusters(tmp_path / "pipe") == clusters(tmp_path / "file")
    summary = json.loads((tmp_path / "pipe" / "summary.json").read_text())
    assert summary["input"] == "<stdin>" and summary["outputs"]["kept"] == "-"
    assert not [p.name for p in (tmp_path / "pipe").iterdir() if p.name.startswith(".")]


def _fed(path, data: bytes) -> threading.Thread:
    """A thread writing ``data`` into the FIFO ``path`` (its open waits for a reader)."""

    def feed() -> None:
        with open(path, "wb") as f:
            f.write(data)

    thread = threading.Thread(target=feed, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize("kind", ["fifo", "pipe"])
def test_an_input_read_once_is_spooled_like_stdin(tmp_path, sharded, kind, capsys):
    """A named FIFO, or a pipe named by its /dev/fd path (what `<(cmd)` gives), answers as the
    file it carries: the kept records are written in full (read twice, a pipe was empty the
    second time: an empty kept file under a summary counting them, or a hang on a FIFO)."""
    _, oracle = sharded
    assert run(oracle, "-o", tmp_path / "file", "--id-field", "doc") == 0
    data = oracle.read_bytes()
    if kind == "fifo":
        source = tmp_path / "feed.jsonl"
        os.mkfifo(source)
        thread = _fed(source, data)
        assert run(source, "-o", tmp_path / "once", "--id-field", "doc") == 0
        thread.join(5)
    else:
        args = ["dedup", "-o", str(tmp_path / "once"), "--id-field", "doc", "--format", "jsonl"]
        read, write_end = os.pipe()
        proc = subprocess.Popen(
            [sys.executable, "-m", "neardup", *args, f"/dev/fd/{read}", "--method", "auto"],
            pass_fds=(read,),
            stderr=subprocess.PIPE,
        )
        os.close(read)
        with os.fdopen(write_end, "wb") as f:
            f.write(data)
        assert proc.wait(timeout=120) == 0, proc.stderr.read().decode()
        proc.stderr.close()
    kept = (tmp_path / "once" / "kept.jsonl").read_bytes()
    assert kept == (tmp_path / "file" / "kept.jsonl").read_bytes() and kept
    assert clusters(tmp_path / "once") == clusters(tmp_path / "file")
    summary = json.loads((tmp_path / "once" / "summary.json").read_text())
    assert summary["counts"]["kept"] == kept.count(b"\n")
    assert not [p.name for p in (tmp_path / "once").iterdir() if p.name.startswith(".")]


def test_an_input_and_a_reference_read_once_under_one_name_stay_apart(tmp_path, sharded):
    """Two FIFOs of one name, the input and ``--against``'s reference: their spooled copies
    were both named ``0-<name>`` in one folder, so the reference's overwrote the input's."""
    _, oracle = sharded
    rows = [json.loads(line) for line in oracle.read_text(encoding="utf-8").splitlines()]
    half = len(rows) // 2
    plain = {}
    for name, part in (("in", rows[:half]), ("ref", rows[half:])):
        plain[name] = tmp_path / f"{name}.jsonl"
        write(plain[name], [(r["doc"], r["text"]) for r in part])
    args = ["--id-field", "doc"]
    assert run(plain["in"], "--against", plain["ref"], "-o", tmp_path / "file", *args) == 0
    feeds = []
    for name in ("in", "ref"):
        (tmp_path / f"fifo_{name}").mkdir()
        fifo = tmp_path / f"fifo_{name}" / "data.jsonl"
        os.mkfifo(fifo)
        feeds.append(_fed(fifo, plain[name].read_bytes()))
    once = tmp_path / "once"
    assert run(tmp_path / "fifo_in" / "data.jsonl", "--against", tmp_path / "fifo_ref" / "data.jsonl",
               "-o", once, *args) == 0  # fmt: skip
    for feed in feeds:
        feed.join(5)
    assert (once / "kept.jsonl").read_bytes() == (tmp_path / "file" / "kept.jsonl").read_bytes()
    assert clusters(once) == clusters(tmp_path / "file")


def test_input_errors_are_clear(tmp_path, sharded, capsys):
    folder, oracle = sharded
    empty = tmp_path / "empty"
    empty.mkdir()
    assert run(empty, "-o", tmp_path / "o") == 2
    assert "empty: the directory holds no file of a known format" in capsys.readouterr().err
    assert run(str(tmp_path / "nothing-*.jsonl"), "-o", tmp_path / "o") == 2
    assert "nothing-*.jsonl: the pattern matches no file" in capsys.readouterr().err
    (folder / "notes.md").write_text("not an input")
    assert run(str(folder / "*"), "-o", tmp_path / "o") == 2  # a pattern is what the shell gives
    assert "notes.md' from its name; pass --format" in capsys.readouterr().err
    assert run(oracle, folder / ".." / "all.jsonl", "-o", tmp_path / "o") == 2
    assert "is given twice as an input" in capsys.readouterr().err


def test_a_rerun_with_one_input_removes_the_per_input_files(tmp_path, sharded):
    folder, oracle = sharded
    out = tmp_path / "o"
    assert run(folder, "-o", out, "--id-field", "doc") == 0
    assert (out / "kept" / "a.jsonl").exists()
    assert run(oracle, "-o", out, "--id-field", "doc") == 0
    assert not (out / "kept").exists() and (out / "kept.jsonl").exists()
    assert run(folder, "-o", out, "--id-field", "doc") == 0
    assert run(folder, "-o", out, "--id-field", "doc") == 0  # kept/ replaced, not nested
    assert sorted(p.name for p in (out / "kept").iterdir()) == sorted(shards())


@pytest.mark.parametrize(
    "method", [["--method", "simhash", "--max-distance", "20"], ["--method", "auto"]]
)
def test_report_texts_come_from_the_right_input(tmp_path, sharded, method):
    """A streaming method keeps fingerprints and ``auto`` compared texts, not the texts as
    written; the report reads its sample back from each input (JSONL, CSV and Parquet)."""
    folder, _ = sharded
    names = [folder / n for n in shards()]
    args = ["--id-field", "doc", *method]
    assert main(["dedup", *map(str, names), "-o", str(tmp_path / "o"), "--quiet", *args]) == 0
    data = json.loads((tmp_path / "o" / "report_data.json").read_text())
    texts = {i: t for rows in shards().values() for i, t in rows}
    assert len(data["documents"]) >= 4
    for doc in data["documents"].values():
        assert doc["text"] == texts[doc["id"]]


def test_repeated_ids_in_clean_blocks_are_skipped_like_record_by_record(tmp_path, monkeypatch):
    """Ids repeated inside a block and across blocks: the first use is kept, each repeat is a
    skip naming it, whatever the block size (the block path's id index against the records)."""
    import random

    from neardup import blocks
    from neardup.pipeline import reading

    rng = random.Random(3)
    ids = [f"id{rng.randrange(40)}" for _ in range(120)]
    path = tmp_path / "in.jsonl"
    write(path, [(i, f"text number {n} of the file") for n, i in enumerate(ids)])
    first: dict[str, int] = {}
    want = []
    for number, doc_id in enumerate(ids, 1):
        if doc_id in first:
            want.append((number, doc_id, f"id already used by record {first[doc_id]}"))
        else:
            first[doc_id] = number
    outs = []
    for block_bytes, pending in ((1 << 22, 8192), (300, 5), (97, 1)):
        monkeypatch.setattr(blocks, "BLOCK_BYTES", block_bytes)
        monkeypatch.setattr(reading, "PENDING", pending)  # ids made arrays every few records
        out = tmp_path / f"o{block_bytes}"
        assert run(path, "-o", out, "--id-field", "doc", "--on-error", "skip") == 0
        rows = [json.loads(line) for line in (out / "skipped.jsonl").open()]
        assert [(r["record"], r["id"], r["message"]) for r in rows] == want
        assert list(clusters(out)) == list(first)
        outs.append(clusters(out))
        report = json.loads((out / "report_data.json").read_text())
        for doc in report["documents"].values():  # ids looked up by position
            assert doc["text"] == f"text number {ids.index(doc['id'])} of the file"
    assert outs[0] == outs[1] == outs[2]


@pytest.mark.parametrize("kept", ["per-input", "single", "-"])
def test_report_sample_of_jsonl_is_read_as_the_kept_records_are_written(
    tmp_path, sharded, kept, monkeypatch, capsysbinary
):
    """``auto`` keeps no text as written: the report's sampled texts of a JSON Lines input are
    taken from the pass that writes the kept records (never read back), those of CSV and
    Parquet inputs read back; the kept records stay exactly the kept ones."""
    from neardup.pipeline import run as pipeline_run

    read_back = []
    original = pipeline_run._texts_back

    def spy(reader, wanted):
        read_back.append(reader.format)
        return original(reader, wanted)

    monkeypatch.setattr(pipeline_run, "_texts_back", spy)
    folder, _ = sharded
    names = [folder / n for n in shards()]
    out = tmp_path / "o"
    args = ["--id-field", "doc", "--method", "auto", "--kept", kept]
    assert main(["dedup", *map(str, names), "-o", str(out), "--quiet", *args]) == 0
    data = json.loads((out / "report_data.json").read_text())
    texts = {i: t for rows in shards().values() for i, t in rows}
    assert {doc["id"][:1] for doc in data["documents"].values()} >= {"a", "b"}
    for doc in data["documents"].values():
        assert doc["text"] == texts[doc["id"]]
    assert "jsonl" not in read_back and read_back
    expected = {k for k, v in clusters(out).items() if k == v}
    if kept == "-":
        lines = capsysbinary.readouterr().out.splitlines()
    elif kept == "single":
        lines = (out / "kept.jsonl").read_bytes().splitlines()
    else:
        lines = (out / "kept" / "a.jsonl").read_bytes().splitlines()
        expected = {k for k in expected if k.startswith("a")}
    assert {orjson.loads(line)["doc"] for line in lines} == expected


def test_an_integer_id_beyond_64_bits_is_kept_as_written(tmp_path):
    """orjson reads an integer of more than 64 bits as a rounded float; the id is read again
    as written (a 128-bit integer id is an id), while a real float stays a bad id."""
    src = tmp_path / "ids.jsonl"
    big = 2**64 + 1  # rounds to 2**64 as a float
    huge = 10**400  # orjson refuses it as infinity; it is valid JSON
    src.write_text(
        f'{{"id": {big}, "text": "第一条文本内容"}}\n'
        f'{{"id": {big + 2}, "text": "第二条不一样的文本"}}\n'
        '{"id": 1.5, "text": "第三条另外的内容"}\n'
        f'{{"id": {huge}, "text": "第四条完全不同的句子"}}\n',
        encoding="utf-8",
    )
    out = tmp_path / "o"
    assert main(["dedup", str(src), "--id-field", "id", "-o", str(out), "--on-error", "skip",
                 "--quiet"]) == 0  # fmt: skip
    with open(out / "clusters.csv", newline="", encoding="utf-8") as f:
        assert [r["id"] for r in csv.DictReader(f)] == [str(big), str(big + 2), str(huge)]
    skipped = [orjson.loads(line) for line in (out / "skipped.jsonl").read_bytes().splitlines()]
    assert [(s["record"], s["reason"]) for s in skipped] == [(3, "bad_id")]


def _bytes_path(folder, name: bytes):
    """``folder/name`` for a name that is not UTF-8, as Python names it (surrogate escapes)."""
    return folder / os.fsdecode(name)


def test_names_that_are_not_utf8_are_read_and_written_escaped(tmp_path):
    """A file or folder name need not be UTF-8: such inputs are read (their bytes are fine), and
    every output names them with the bytes escaped (``bad\\xffname.jsonl``), alike everywhere."""
    folder = tmp_path / "in"
    folder.mkdir()
    rows = shards()
    write(_bytes_path(folder, b"bad\xffname.jsonl"), rows["a.jsonl"] + [("a4", " ")])
    write(tmp_path / "c.parquet", rows["c.parquet"])  # pyarrow opens a path by its UTF-8
    os.rename(tmp_path / "c.parquet", _bytes_path(folder, b"c\xff.parquet"))
    write(folder / "b.csv", rows["b.csv"])
    out = _bytes_path(tmp_path, b"out\xff")  # the output folder's name too
    assert main(["dedup", str(folder), "-o", str(out), "--on-error", "skip", "--quiet"]) == 0
    summary = json.loads((out / "summary.json").read_bytes().decode("utf-8"))
    inputs = [os.path.basename(row["input"]) for row in summary["inputs"]]
    assert inputs == ["b.csv", "bad\\xffname.jsonl", "c\\xff.parquet"]
    assert [row["documents"] for row in summary["inputs"]] == [3, 3, 3]
    assert summary["outputs"]["kept"] == [
        "kept/b.csv",
        "kept/bad\\xffname.jsonl",
        "kept/c\\xff.parquet",
    ]
    for name in summary["outputs"]["kept"]:
        assert (out / name).is_file()
    kept_c = pq.read_table(pa.OSFile(os.fsencode(out / "kept/c\\xff.parquet")))
    assert kept_c.num_rows == summary["inputs"][2]["kept"]
    ids = clusters(out)  # ids without --id-field name the input: escaped as well
    assert {"bad\\xffname.jsonl:1", "c\\xff.parquet:3", "b.csv:1"} <= set(ids)
    (skip,) = map(orjson.loads, (out / "skipped.jsonl").read_bytes().splitlines())
    assert skip["input"].endswith("bad\\xffname.jsonl") and skip["id"] == "bad\\xffname.jsonl:4"
    orjson.loads((out / "report_data.json").read_bytes())  # valid UTF-8 JSON
    # one such file alone, given by name: the same names
    alone = tmp_path / "alone"
    assert run(_bytes_path(folder, b"bad\xffname.jsonl"), "-o", alone, "--on-error", "skip") == 0
    summary = json.loads((alone / "summary.json").read_text(encoding="utf-8"))
    assert summary["input"] == str(folder / "bad\\xffname.jsonl")


def test_a_name_not_utf8_is_named_escaped_in_errors(tmp_path, capsys):
    folder = tmp_path / "in"
    folder.mkdir()
    _bytes_path(folder, b"bad\xffname.jsonl").write_bytes(b'{"doc": "a1"}\n')
    assert run(_bytes_path(folder, b"bad\xffname.jsonl"), "-o", tmp_path / "out") == 2
    err = capsys.readouterr().err
    assert "bad\\xffname.jsonl, record 1: no text field" in err and "Traceback" not in err
    # a name that is not UTF-8 and one that spells its escape would be one name in the outputs
    write(folder / "bad\\xffname.jsonl", shards()["a.jsonl"])
    write(_bytes_path(folder, b"bad\xffname.jsonl"), shards()["a.jsonl"])
    assert run(folder, "-o", tmp_path / "out") == 2
    assert "two inputs are both named bad\\xffname.jsonl" in capsys.readouterr().err
