"""Faults a CLI run must survive with a clear outcome (issue #15).

A: a killed or failing ``neardup dedup`` never leaves a directory that looks complete but mixes
two runs. B: broken inputs (truncated or fake .gz/.zst, invalid UTF-8 in a CSV id or header) give
exit 2 with a message naming the file, or with ``--on-error skip`` a counted skipped entry.
"""

import csv
import gzip
import hashlib
import io
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
import zstandard

import neardup
from neardup.cli import main
from neardup.pipeline import outputs
from neardup.pipeline import run as pipeline_run
from neardup.readers import Skipped


def text(i):
    if i % 4:
        return (
            f"第{i}条新闻：国务院常务会议部署稳外贸稳外资措施，要求各地抓好落实，确保经济运行平稳。"
        )
    return f"完全不同的第{i}条消息，讲的是体育比赛和天气预报以及交通出行的情况。"


def jsonl(n):
    return [orjson.dumps({"id": f"doc{i}", "text": text(i)}) + b"\n" for i in range(n)]


def write_truncated(path, total, readable):
    """A .gz or .zst of ``total`` records cut right after record ``readable``; the whole bytes."""
    lines = jsonl(total)
    head, tail = b"".join(lines[:readable]), b"".join(lines[readable:])
    if path.name.endswith(".gz"):
        buf = io.BytesIO()
        with gzip.GzipFile(fileobj=buf, mode="wb") as gz:
            gz.write(head)
            gz.flush()
            cut = buf.tell()
            gz.write(tail)
        whole = buf.getvalue()
    else:
        c = zstandard.ZstdCompressor().compressobj()
        first = c.compress(head) + c.flush(zstandard.COMPRESSOBJ_FLUSH_BLOCK)
        cut, whole = len(first), first + c.compress(tail) + c.flush()
    path.write_bytes(whole[:cut])
    return whole


def decompressed(path):
    data = path.read_bytes()
    if path.name.endswith(".gz"):
        return gzip.decompress(data)
    return zstandard.ZstdDecompressor().decompressobj().decompress(data)


def dedup(src, out, *options):
    return main(["dedup", str(src), "-o", str(out), "--id-field", "id", "--quiet", *options])


def assert_one_complete_run(out):
    """The summary lists exactly the files present, each with its size and SHA-256."""
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert {p.name for p in out.iterdir()} - {"summary.json"} == set(summary["files"])
    for name, meta in summary["files"].items():
        data = (out / name).read_bytes()
        assert len(data) == meta["bytes"]
        assert hashlib.sha256(data).hexdigest() == meta["sha256"]
    return summary


def counts(out):
    c = json.loads((out / "summary.json").read_text(encoding="utf-8"))["counts"]
    assert c["records_read"] == c["kept"] + c["duplicates_removed"] + c["skipped"]
    return c


# -- A: outputs appear together or not at all --------------------------------------------------
@pytest.fixture
def two_inputs(tmp_path):
    """The same records as plain JSONL and as .jsonl.gz (so the kept files differ in name)."""
    plain, packed = tmp_path / "in.jsonl", tmp_path / "in.jsonl.gz"
    plain.write_bytes(b"".join(jsonl(40)))
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    return plain, packed


def test_rerun_replaces_every_file_of_the_old_run(tmp_path, two_inputs):
    plain, packed = two_inputs
    out = tmp_path / "out"
    assert dedup(plain, out, "--pairs", "--method", "simhash") == 0
    first = assert_one_complete_run(out)
    assert {"kept.jsonl", "pairs.csv", "clusters.csv"} <= set(first["files"])
    (out / ".neardup-run-deadbeef").mkdir()  # leftovers of a killed run
    (out / ".partial-clusters.csv").write_text("old")
    assert dedup(packed, out, "--method", "ngram") == 0
    second = assert_one_complete_run(out)
    assert second["run_id"] != first["run_id"] and len(second["run_id"]) == 32
    assert "kept.jsonl.gz" in second["files"]
    assert not (out / "kept.jsonl").exists() and not (out / "pairs.csv").exists()


@pytest.mark.parametrize("fail_at", ["clusters.csv", "summary.json"])
def test_a_failed_publish_leaves_no_summary(tmp_path, two_inputs, monkeypatch, fail_at):
    plain, packed = two_inputs
    out = tmp_path / "out"
    assert dedup(plain, out, "--pairs", "--method", "simhash") == 0
    move = outputs._move

    def crash(source, target):
        if target.name == fail_at:
            raise OSError("simulated crash")
        move(source, target)

    monkeypatch.setattr(outputs, "_move", crash)
    with pytest.raises(OSError, match="simulated crash"):
        dedup(packed, out, "--method", "ngram")
    assert not (out / "summary.json").exists()  # not complete: no reader takes it for a run
    assert not list(out.glob(".neardup-run-*"))
    monkeypatch.undo()
    assert dedup(packed, out, "--method", "ngram") == 0
    assert_one_complete_run(out)


def test_a_failure_before_publishing_keeps_the_old_run(tmp_path, two_inputs, monkeypatch):
    plain, packed = two_inputs
    out = tmp_path / "out"
    assert dedup(plain, out, "--pairs", "--method", "simhash") == 0
    first = assert_one_complete_run(out)

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(pipeline_run, "write_clusters", broken)
    with pytest.raises(OSError, match="disk full"):
        dedup(packed, out, "--method", "ngram")
    assert assert_one_complete_run(out)["run_id"] == first["run_id"]


KILL_AFTER_KEPT = """
import os, signal, sys
from neardup.cli import main
from neardup.pipeline import outputs
move = outputs._move
def move_then_die(source, target):
    move(source, target)
    if target.name.startswith("kept"):
        os.kill(os.getpid(), signal.SIGKILL)
outputs._move = move_then_die
sys.exit(main(sys.argv[1:]))
"""


def test_kill_9_right_after_kept_is_moved(tmp_path, two_inputs):
    """The scenario of the issue, with a real SIGKILL."""
    plain, packed = two_inputs
    out = tmp_path / "out"
    assert dedup(plain, out, "--pairs", "--method", "simhash") == 0
    env = {**os.environ, "PYTHONPATH": str(Path(neardup.__file__).parents[1])}
    args = ["dedup", str(packed), "-o", str(out), "--id-field", "id", "--method", "ngram"]
    proc = subprocess.run([sys.executable, "-c", KILL_AFTER_KEPT, *args, "--quiet"], env=env)
    assert proc.returncode == -signal.SIGKILL
    assert (out / "kept.jsonl.gz").exists() and not (out / "summary.json").exists()
    assert dedup(packed, out, "--method", "ngram") == 0
    assert_one_complete_run(out)


# -- B: broken inputs are clear errors or counted skips ----------------------------------------
@pytest.mark.parametrize("name", ["in.jsonl.gz", "in.jsonl.zst"])
def test_truncated_input_fails_naming_the_file(tmp_path, capsys, name):
    src = tmp_path / name
    write_truncated(src, 40, 30)
    assert dedup(src, tmp_path / "out") == 2
    err = capsys.readouterr().err
    assert f"{name}, record 31: the file is truncated after record 30" in err
    assert "Traceback" not in err and not (tmp_path / "out" / "summary.json").exists()


@pytest.mark.parametrize("name", ["in.jsonl.gz", "in.jsonl.zst"])
def test_truncated_input_skipped_counts_the_lost_tail(tmp_path, capsys, name):
    src, out = tmp_path / name, tmp_path / "out"
    write_truncated(src, 40, 30)
    assert dedup(src, out, "--on-error", "skip") == 0
    assert f"warning: {src}: the file is truncated after record 30" in capsys.readouterr().err
    c = counts(out)
    assert c["records_read"] == 31 and c["documents"] == 30
    assert c["skipped"] == 1 and c["skipped_by_reason"] == {"truncated": 1}
    skipped = [json.loads(x) for x in (out / "skipped.jsonl").read_text().splitlines()]
    assert [(s["record"], s["reason"]) for s in skipped] == [(31, "truncated")]
    assert len(decompressed(out / name.replace("in", "kept")).splitlines()) == c["kept"]
    assert_one_complete_run(out)


@pytest.mark.parametrize("name", ["in.jsonl.gz", "in.jsonl.zst"])
@pytest.mark.parametrize("on_error", ["fail", "skip"])
def test_not_a_compressed_file(tmp_path, capsys, name, on_error):
    src = tmp_path / name
    src.write_bytes(b"".join(jsonl(5)))  # plain JSON Lines under a compressed name
    assert dedup(src, tmp_path / "out", "--on-error", on_error) == 2
    err = capsys.readouterr().err
    assert f"{name}: not a readable {src.suffix} file" in err and "Traceback" not in err


def bad_csv(path, *, header=b"id,text", bad_row=2, rows=3):
    lines = [header]
    for i in range(1, rows + 1):
        doc_id = b"a\xff" if i == bad_row else b"a%d" % i
        lines.append(doc_id + b"," + text(i).encode())
    path.write_bytes(b"\n".join(lines) + b"\n")


def test_invalid_utf8_id_fails_naming_the_record(tmp_path, capsys):
    src = tmp_path / "in.csv"
    bad_csv(src)
    assert dedup(src, tmp_path / "out") == 2
    err = capsys.readouterr().err
    assert "in.csv, record 2: id 'a\\\\xff' is not valid UTF-8" in err and "Traceback" not in err


def test_invalid_utf8_id_skipped_with_valid_json(tmp_path):
    src, out = tmp_path / "in.csv", tmp_path / "out"
    bad_csv(src)
    assert dedup(src, out, "--on-error", "skip") == 0
    c = counts(out)
    assert c["skipped_by_reason"] == {"invalid_utf8": 1} and c["records_read"] == 3
    (entry,) = [json.loads(x) for x in (out / "skipped.jsonl").read_bytes().splitlines()]
    assert entry["record"] == 2 and entry["id"] == "a\\xff" and entry["reason"] == "invalid_utf8"
    with open(out / "clusters.csv", encoding="utf-8") as f:
        assert [r["id"] for r in csv.DictReader(f)] == ["a1", "a3"]
    with open(out / "kept.csv", encoding="utf-8", newline="") as f:
        assert [row[0] for row in csv.reader(f)] == ["id", "a1", "a3"]


@pytest.mark.parametrize("on_error", ["fail", "skip"])
def test_invalid_utf8_header_fails_naming_the_file(tmp_path, capsys, on_error):
    src = tmp_path / "in.csv"
    bad_csv(src, header=b"id,te\xffxt", bad_row=0)
    assert dedup(src, tmp_path / "out", "--on-error", on_error, "--text-field", "text") == 2
    err = capsys.readouterr().err
    assert "in.csv: the header is not valid UTF-8 (column 'te\\\\xffxt')" in err
    assert "Traceback" not in err


def test_skipped_file_escapes_undecodable_bytes(tmp_path):
    path = tmp_path / "skipped.jsonl"
    outputs.write_skipped(path, [Skipped(1, "a\udcff", "bad_id", "no field 'x\udcfe'")])
    entry = json.loads(path.read_bytes())
    assert entry == {
        "record": 1,
        "id": "a\\xff",
        "reason": "bad_id",
        "message": "no field 'x\\xfe'",
    }


# -- B: index add, after some batches were committed -------------------------------------------
def index_add(src, db, *options):
    args = ["index", "add", str(src), "--db", db, "--id-field", "id", "--method", "simhash"]
    return main([*args, "--batch-size", "100", "--quiet", *options])


def stored(db, capsys):
    capsys.readouterr()
    assert main(["index", "stats", "--db", db]) == 0
    return json.loads(capsys.readouterr().out)["documents"]


@pytest.mark.parametrize("name", ["in.jsonl.gz", "in.jsonl.zst", "in.csv"])
def test_index_add_fails_saying_what_was_committed(tmp_path, capsys, name):
    src, db = tmp_path / name, f"sqlite:///{tmp_path}/ix.db"
    if name == "in.csv":
        bad_csv(src, bad_row=951, rows=1000)
        what = "record 951: id 'a\\\\xff' is not valid UTF-8"
    else:
        write_truncated(src, 1000, 950)
        what = "record 951: the file is truncated after record 950"
    assert index_add(src, db) == 2
    err = capsys.readouterr().err
    assert f"{name}, {what}" in err and "Traceback" not in err
    assert "900 documents were committed before it; a rerun resumes after them" in err
    assert stored(db, capsys) == 900


@pytest.mark.parametrize("name", ["in.jsonl.gz", "in.jsonl.zst"])
def test_index_add_skips_a_lost_tail_and_resumes_there(tmp_path, capsys, name):
    src, db = tmp_path / name, f"sqlite:///{tmp_path}/ix.db"
    whole = write_truncated(src, 1000, 950)
    assert index_add(src, db, "--on-error", "skip") == 0
    err = capsys.readouterr().err
    assert f"warning: {src}: the file is truncated after record 950" in err
    report = json.loads(err.strip().splitlines()[-1])
    assert report["skipped"] == 1 and report["documents_in_store"] == 950
    src.write_bytes(whole)  # the repaired file: the lost tail was not checkpointed
    assert index_add(src, db) == 0
    report = json.loads(capsys.readouterr().err.strip().splitlines()[-1])
    assert report["already_done"] == 950 and report["documents_in_store"] == 1000


@pytest.mark.parametrize("name", ["in.jsonl.gz", "in.jsonl.zst"])
def test_index_add_on_a_fake_compressed_file(tmp_path, capsys, name):
    src = tmp_path / name
    src.write_bytes(b"garbage, not compressed\n" * 10)
    assert index_add(src, f"sqlite:///{tmp_path}/ix.db") == 2
    err = capsys.readouterr().err
    assert f"{name}: not a readable {src.suffix} file" in err and "Traceback" not in err
