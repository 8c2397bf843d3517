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
def test_a_failed_publish_leaves_no_summary(tmp_path, two_inputs, monkeypatch, capsys, fail_at):
    plain, packed = two_inputs
    out = tmp_path / "out"
    assert dedup(plain, out, "--pairs", "--method", "simhash") == 0
    move = outputs._move

    def crash(source, target):
        if target.name == fail_at:
            raise OSError("simulated crash")
        move(source, target)

    monkeypatch.setattr(outputs, "_move", crash)
    assert dedup(packed, out, "--method", "ngram") == 2  # an error naming the output, no trace
    assert "simulated crash" in capsys.readouterr().err
    assert not (out / "summary.json").exists()  # not complete: no reader takes it for a run
    assert not list(out.glob(".neardup-run-*"))
    monkeypatch.undo()
    assert dedup(packed, out, "--method", "ngram") == 0
    assert_one_complete_run(out)


def test_a_failure_before_publishing_keeps_the_old_run(tmp_path, two_inputs, monkeypatch, capsys):
    plain, packed = two_inputs
    out = tmp_path / "out"
    assert dedup(plain, out, "--pairs", "--method", "simhash") == 0
    first = assert_one_complete_run(out)

    def broken(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pipeline_run, "write_clusters", broken)
    assert dedup(packed, out, "--method", "ngram") == 2
    assert f"cannot write {out} (No space left on device)" in capsys.readouterr().err
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


def test_a_zstd_file_cut_inside_its_first_frame_is_a_counted_lost_tail(tmp_path, capsys):
    """A .zst cut before its first block ends gives no record (zstd hands out a frame's data
    only whole); it is truncated, as a later cut is, not "not a readable .zst file": an error
    naming record 1, or under --on-error skip one counted skip for the lost tail."""
    src, out = tmp_path / "in.jsonl.zst", tmp_path / "out"
    whole = zstandard.ZstdCompressor().compress(b"".join(jsonl(40)))
    src.write_bytes(whole[: len(whole) // 2])
    assert dedup(src, out) == 2
    assert "in.jsonl.zst, record 1: the file is truncated before its first record ends" in (
        capsys.readouterr().err
    )
    assert dedup(src, out, "--on-error", "skip") == 0
    c = counts(out)
    assert c["records_read"] == 1 and c["skipped_by_reason"] == {"truncated": 1}


@pytest.mark.parametrize("name", ["in.jsonl.gz", "in.jsonl.zst"])
@pytest.mark.parametrize("on_error", ["fail", "skip"])
def test_not_a_compressed_file(tmp_path, capsys, name, on_error):
    src = tmp_path / name
    src.write_bytes(b"".join(jsonl(5)))  # plain JSON Lines under a compressed name
    assert dedup(src, tmp_path / "out", "--on-error", on_error) == 2
    err = capsys.readouterr().err
    assert f"{name}: not a readable {src.suffix} file" in err and "Traceback" not in err


@pytest.mark.parametrize("name", ["in.jsonl.GZ", "IN.JSONL.ZST", "in.jsonl.Gz"])
def test_a_compressed_file_named_in_capitals_is_decompressed(tmp_path, name):
    """The format was read from the name in any case but the compression only from a lower-case
    suffix: ``x.jsonl.GZ`` was read as compressed bytes (an error blaming its UTF-8, or every
    record an "invalid UTF-8" skip under --on-error skip). Now the same run as ``.gz``/``.zst``,
    its kept records written with the same compression."""
    raw = b"".join(jsonl(30))
    pack = gzip.compress if ".gz" in name.lower() else zstandard.ZstdCompressor().compress
    (tmp_path / name).write_bytes(pack(raw))
    plain = tmp_path / "in.jsonl"
    plain.write_bytes(raw)
    assert dedup(plain, tmp_path / "a") == 0
    assert dedup(tmp_path / name, tmp_path / "b") == 0
    assert counts(tmp_path / "b") == counts(tmp_path / "a")
    kept = next((tmp_path / "b").glob("kept.jsonl.*"))
    assert decompressed(kept) == (tmp_path / "a" / "kept.jsonl").read_bytes()


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
    assert "900 documents were committed before it, a rerun resumes after them" in err
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


# -- C: options of the wrong kind, outputs that would replace inputs, writes that fail ----------


@pytest.mark.parametrize(
    "option, message",
    [
        ("containment=abc", 'option containment="abc" must be a number'),
        ("containment=null", "option containment=null must be a number"),
        ("containment=true", "option containment=true must be a number"),
        ("strip_markup=maybe", 'option strip_markup="maybe" must be true or false'),
        ("min_rare_grams=-1", "option min_rare_grams=-1 must not be negative"),
        ("gram=3.5", "option gram=3.5 must be a whole number"),
        ("normalize=x", 'option normalize="x" must be an object of normalisation fields'),
        ('normalize={"nope":1}', "option normalize has no field nope"),
    ],
)
def test_an_option_of_the_wrong_kind_is_a_clear_error(tmp_path, capsys, option, message):
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"".join(jsonl(4)))
    assert main(["dedup", str(path), "-o", str(tmp_path / "o"), "--option", option]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert main(["compare", "--option", option, "a", "b"]) == 2


def test_normalisation_flags_and_a_normalisation_option_are_not_both_taken(tmp_path, capsys):
    """--remove-punctuation with --option normalize={...} was silently dropped (the option's
    object replaced the flag's): an error naming both, for every command that takes them."""
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"".join(jsonl(4)))
    both = [
        "--method",
        "simhash",
        "--remove-punctuation",
        "--option",
        'normalize={"casefold": false}',
    ]
    assert main(["dedup", str(path), "-o", str(tmp_path / "o"), *both]) == 2
    assert "give them in one place" in capsys.readouterr().err
    assert not (tmp_path / "o" / "summary.json").exists()
    assert main(["compare", *both, "a", "b"]) == 2
    assert "give them in one place" in capsys.readouterr().err


def test_a_table_of_another_gram_length_is_refused(tmp_path, capsys):
    """--tables took the table a `paragraph` run wrote (5-grams) for `auto` (3-grams) and gave
    another answer, silently; the table records its gram length and a method refuses another.
    A table saved before the length was recorded (no field) counts character grams: taken by
    `auto`, and by `paragraph` only without word grams."""
    import numpy as np

    from neardup.methods.commongrams import CommonGrams

    path = tmp_path / "in.jsonl"
    path.write_bytes(b"".join(jsonl(30)))
    runs = {}
    for method in ("paragraph", "auto"):
        runs[method] = tmp_path / method
        args = ["dedup", str(path), "-o", str(runs[method]), "--method", method, "--quiet"]
        assert main(args) == 0
        assert CommonGrams.load(runs[method] / "common_grams.npz").gram == (
            5 if method == "paragraph" else 3
        )
    given = ["--tables", str(runs["paragraph"] / "common_grams.npz")]
    assert main(["dedup", str(path), "-o", str(tmp_path / "x"), *given, "--quiet"]) == 2
    assert "counts 5-grams (alphabetic grams of 3 words) and this method uses 3-grams" in (
        capsys.readouterr().err
    )
    assert (
        main(["dedup", str(path), "-o", str(tmp_path / "z"), *given, "--method", "paragraph"]) == 0
    )
    table = CommonGrams.load(runs["auto"] / "common_grams.npz")
    np.savez_compressed(
        tmp_path / "old.npz", values=table.values, documents=table.documents,
        min_df=table.min_df, version=np.array(table.version),
    )  # fmt: skip
    old = ["--tables", str(tmp_path / "old.npz"), "--method", "paragraph"]
    assert main(["dedup", str(path), "-o", str(tmp_path / "y"), *old, "--quiet"]) == 2
    assert "character grams of an unrecorded length" in capsys.readouterr().err  # no word grams
    letters = [*old, "--option", "word_grams=0"]
    assert main(["dedup", str(path), "-o", str(tmp_path / "y"), *letters, "--quiet"]) == 0
    assert (
        main(
            [
                "dedup",
                str(path),
                "-o",
                str(tmp_path / "w"),
                "--tables",
                str(tmp_path / "old.npz"),
                "--quiet",
            ]
        )
        == 0
    )


@pytest.mark.parametrize("command", ["add", "serve"])
def test_a_table_a_method_refuses_leaves_no_store_behind(tmp_path, capsys, command):
    """``index add`` / ``serve --method simhash --tables T`` was refused ("takes no fitted
    tables") after the new store file was created: an empty store stayed, whose schema then
    recorded nothing."""
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"".join(jsonl(30)))
    assert main(["dedup", str(path), "-o", str(tmp_path / "run"), "--quiet"]) == 0
    db = tmp_path / "new.db"
    tables = ["--tables", str(tmp_path / "run" / "common_grams.npz"), "--method", "simhash"]
    args = ["index", "add", str(path)] if command == "add" else ["serve"]
    assert main([*args, "--db", f"sqlite:///{db}", *tables]) == 2
    assert "method 'simhash' takes no fitted tables" in capsys.readouterr().err
    assert not db.exists() and not list(tmp_path.glob("new.db*"))


@pytest.mark.parametrize(
    "given, needs",
    [
        (["--threshold", "0.6"], "--match text"),
        (["--method", "simhash", "--threshold", "0.6"], "--verify jaccard or --verify edit"),
        (["--method", "simhash", "--option", "verify_ngram=4"], "--verify jaccard"),
        (["--method", "paragraph", "--max-distance", "5"], "--option evidence=topic"),
        (["--method", "paragraph", "--blocks", "6"], "--option evidence=topic"),
    ],
)
def test_an_option_that_would_be_ignored_is_an_error(tmp_path, capsys, given, needs):
    """--threshold for auto (copy match), for simhash without --verify, and --max-distance for
    paragraph's default evidence were taken and ignored (the same answer, exit 0): a user would
    believe they tuned the run. With what they need, they act."""
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"".join(jsonl(6)))
    assert main(["dedup", str(path), "-o", str(tmp_path / "o"), *given, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert f"acts only with {needs}" in err and "Traceback" not in err
    assert main(["compare", *given, "a", "b"]) == 2
    fix = {
        "--match text": ["--match", "text"],
        "--option evidence=topic": ["--option", "evidence=topic"],
    }
    more = fix.get(needs, ["--verify", "edit"])
    assert main(["dedup", str(path), "-o", str(tmp_path / "p"), *given, *more, "--quiet"]) == 0


@pytest.mark.parametrize(
    "option, evidence",
    [
        ("min_words=2", "copy"),
        ("max_paragraph_docs=10", "copy"),
        ("min_shared_chars=10", "topic"),
        ("overlap=0.5", "topic"),
        ("excerpts=false", "topic"),
        ("ignore_frames=false", "topic"),
        ("contained_paragraphs=false", "topic"),
        ("version_coverage=0.8", "topic"),
        ("min_paragraph_grams=4", "topic"),
        ("heard_grams=false", "topic"),
        ("word_grams=0", "topic"),
        ("gram=4", "topic"),
        ("sketch=8", "topic"),
        ("common_min_df=5", "topic"),
        ("common_share=0.01", "topic"),
    ],
)
def test_a_paragraph_option_of_the_other_evidence_is_an_error(tmp_path, capsys, option, evidence):
    """Each paragraph evidence reads its own options: --option min_words=2 with the default
    ``copy`` evidence, or --option overlap=0.5 (min_shared_chars, excerpts ...) with
    ``evidence=topic``, were taken and ignored (exit 0, the same answer), while --max-distance
    was refused. Refused alike by dedup, compare and index add, naming the evidence they need."""
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"".join(jsonl(6)))
    given = ["--method", "paragraph", "--option", f"evidence={evidence}", "--option", option]
    other = "topic" if evidence == "copy" else "copy"
    name = option.split("=")[0]
    needs = f"--option {name} acts only with --option evidence={other}"
    assert main(["dedup", str(path), "-o", str(tmp_path / "o"), *given, "--quiet"]) == 2
    assert needs in capsys.readouterr().err
    assert main(["compare", *given, "a", "b"]) == 2
    assert needs in capsys.readouterr().err
    db = tmp_path / "ix.db"
    assert main(["index", "add", str(path), "--db", f"sqlite:///{db}", *given, "--quiet"]) == 2
    assert needs in capsys.readouterr().err and not db.exists()
    fixed = ["--method", "paragraph", "--option", f"evidence={other}", "--option", option]
    assert main(["dedup", str(path), "-o", str(tmp_path / "p"), *fixed, "--quiet"]) == 0


def test_idf_files_that_cannot_act(tmp_path, capsys):
    """An IDF file was read, recorded and ignored without --weights tfidf; an empty one ended in
    numpy's IndexError, one not in UTF-8 in a UnicodeDecodeError, each with a traceback. Now each
    is an error naming the file, and a good one acts with --weights tfidf."""
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"".join(jsonl(6)))
    good, empty, binary = tmp_path / "idf.txt", tmp_path / "empty.txt", tmp_path / "bin.txt"
    good.write_text("国务院 1.5\n", encoding="utf-8")
    empty.write_text("\n  \n", encoding="utf-8")
    binary.write_bytes(b"\xff\xfe 1\n")
    simhash = ["--method", "simhash", "--features", "word"]
    out = str(tmp_path / "o")
    assert main(["dedup", str(path), "-o", out, *simhash, "--idf", str(good), "--quiet"]) == 2
    assert "--idf acts only with --weights tfidf" in capsys.readouterr().err
    tfidf = [*simhash, "--weights", "tfidf"]
    for bad, says in ((empty, "holds no 'word idf' lines"), (binary, "not valid UTF-8")):
        assert main(["dedup", str(path), "-o", out, *tfidf, "--idf", str(bad), "--quiet"]) == 2
        err = capsys.readouterr().err
        assert f"{bad}: {says}" in err and "Traceback" not in err
        assert main(["compare", *tfidf, "--idf", str(bad), "a", "b"]) == 2
        assert f"{bad}: {says}" in capsys.readouterr().err
    assert main(["dedup", str(path), "-o", out, *tfidf, "--idf", str(good), "--quiet"]) == 0


def test_serve_refuses_an_unknown_log_level_before_opening_the_store(tmp_path, capsys):
    """``--log-level foo`` created the store, then ended in uvicorn's KeyError traceback."""
    db = tmp_path / "s.db"
    with pytest.raises(SystemExit) as stop:
        main(["serve", "--db", f"sqlite:///{db}", "--log-level", "foo"])
    assert stop.value.code == 2
    assert "invalid choice: 'foo'" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


def test_an_ignored_option_is_named_before_its_range(tmp_path, capsys):
    """``--threshold 1.5`` under ``auto`` said "text_threshold=1.5 must be in (0, 1]", a name
    the user never gave; that it acts only with --match text comes first."""
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"".join(jsonl(6)))
    assert main(["dedup", str(path), "-o", str(tmp_path / "o"), "--threshold", "1.5"]) == 2
    assert "--threshold acts only with --match text" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["r.jsonl", "r.csv"])
def test_fail_mode_names_the_first_bad_record(tmp_path, capsys, name):
    """A repeated id at record 2 and a float id at record 3: the error named record 3 (the
    block's records were checked one by one before any was taken), Spark record 2. The first
    bad record is named; without the repeat, the float id still is."""
    rows = [("a", "first text here"), ("a", "second text here"), (1.5, "third text here")]

    def write(rows):
        path = tmp_path / name
        if name.endswith(".csv"):
            path.write_text("id,text\n" + "".join(f"{i},{t}\n" for i, t in rows))
        else:
            path.write_bytes(b"".join(orjson.dumps({"id": i, "text": t}) + b"\n" for i, t in rows))
        return str(path)

    args = ["dedup", write(rows), "--id-field", "id", "-o", str(tmp_path / "o"), "--quiet"]
    assert main(args) == 2
    assert "record 2: duplicate id 'a'" in capsys.readouterr().err
    rows[1] = ("b", "second text here")
    args[1] = write(rows)
    assert main(args) == (2 if name.endswith(".jsonl") else 0)  # in CSV, 1.5 is a string id
    if name.endswith(".jsonl"):
        assert "record 3: id field 'id' is float" in capsys.readouterr().err


def test_a_normalisation_object_is_an_option(tmp_path):
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"".join(jsonl(4)))
    out = tmp_path / "o"
    assert (
        main(["dedup", str(path), "-o", str(out), "--option", 'normalize={"casefold":false}']) == 0
    )
    summary = json.loads((out / "summary.json").read_text())
    assert summary["parameters"]["normalize"]["casefold"] is False


def test_an_input_that_is_an_output_of_the_run_is_refused(tmp_path, capsys):
    """An input named kept.jsonl in the output folder would be replaced by the kept records."""
    folder = tmp_path / "data"
    folder.mkdir()
    source = folder / "kept.jsonl"
    source.write_bytes(b"".join(jsonl(8)))
    before = source.read_bytes()
    assert main(["dedup", str(source), "-o", str(folder)]) == 2
    assert "is an output of a run into" in capsys.readouterr().err
    assert source.read_bytes() == before and not (folder / "summary.json").exists()
    news = folder / "news.jsonl"  # an input of another name may live there: -o .
    source.rename(news)
    assert main(["dedup", str(news), "-o", str(folder)]) == 0
    assert main(["dedup", str(folder), "-o", str(folder)]) == 2  # its outputs read back: refused
    assert "is an output of a run into" in capsys.readouterr().err


def test_an_output_directory_that_is_the_input_file_is_refused(tmp_path, capsys, monkeypatch):
    """``-o a.jsonl`` with ``a.jsonl`` the input (a slip for ``-o out/``) is refused with the
    reason, not a traceback, and the input is left as it was."""
    source = tmp_path / "a.jsonl"
    source.write_bytes(b"".join(jsonl(8)))
    before = source.read_bytes()
    monkeypatch.chdir(tmp_path)
    for output in ("a.jsonl", "./a.jsonl", str(source)):
        assert main(["dedup", "a.jsonl", "-o", output]) == 2
        assert "is the input a.jsonl: -o names a directory" in capsys.readouterr().err
    assert source.read_bytes() == before


@pytest.mark.parametrize("suffix", [".bz2", ".xz"])
def test_a_compression_that_is_not_read_is_refused_with_the_way_round(tmp_path, capsys, suffix):
    """A .bz2 or .xz input is refused with the command that decompresses it, also with
    --format, which would otherwise read the compressed bytes as records (251 "invalid UTF-8"
    skips and nothing kept under --on-error skip)."""
    import bz2
    import lzma

    path = tmp_path / f"a.jsonl{suffix}"
    compress = bz2.compress if suffix == ".bz2" else lzma.compress
    path.write_bytes(compress(b"".join(jsonl(8))))
    for extra in ([], ["--format", "jsonl", "--on-error", "skip"]):
        assert main(["dedup", str(path), "-o", str(tmp_path / "o"), *extra]) == 2
        err = capsys.readouterr().err
        assert f"{suffix} compression is not read" in err and "cat " in err
        assert not (tmp_path / "o" / "summary.json").exists()


def test_a_field_no_record_has_is_a_setting_not_a_skip(tmp_path, capsys):
    """--text-field naming a field no record has made every record a skip, and --on-error skip
    an empty run that succeeded; a CSV header without the column, or one column holding the
    others (a ';'-separated file), did the same. Now refused with the fields there are; a
    record or two without the field in a file of good ones stays a counted skip."""
    path = tmp_path / "a.jsonl"
    path.write_bytes(b"".join(jsonl(6)))
    args = ["dedup", str(path), "-o", str(tmp_path / "o"), "--on-error", "skip"]
    assert main([*args, "--text-field", "body"]) == 2
    err = capsys.readouterr().err
    assert "no record holds the fields asked for: all 6 were skipped" in err
    assert "no text field 'body' (fields: id, text)" in err
    assert not (tmp_path / "o" / "summary.json").exists()
    path.write_bytes(b"".join(jsonl(6)) + b'{"id": "x", "body": "no text here"}\n')
    assert main(args) == 0
    summary = json.loads((tmp_path / "o" / "summary.json").read_text())
    assert summary["counts"]["skipped"] == 1 and summary["counts"]["records_read"] == 7
    table = tmp_path / "t.csv"
    table.write_text("id,body\n1,some text\n")
    assert main(["dedup", str(table), "-o", str(tmp_path / "c"), "--on-error", "skip"]) == 2
    assert "the header has no column 'text' (columns: 'id', 'body')" in capsys.readouterr().err
    table.write_text("id;text\n1;some text\n")
    assert main(["dedup", str(table), "-o", str(tmp_path / "c")]) == 2
    assert "reads as one column: fields must be separated by commas" in capsys.readouterr().err


@pytest.mark.parametrize("output, says", [("", "is empty"), ("-", "'-' is no directory")])
def test_an_empty_or_dash_output_directory_is_refused(tmp_path, capsys, monkeypatch, output, says):
    """``-o ''`` wrote every output into the current directory and ``-o -`` made a folder
    named ``-``; both are refused (the kept records go to standard output with --kept -)."""
    source = tmp_path / "a.jsonl"
    source.write_bytes(b"".join(jsonl(4)))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as stop:
        main(["dedup", str(source), "-o", output])
    assert stop.value.code == 2 and says in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.jsonl"]


def test_a_json_array_is_told_how_to_become_json_lines(tmp_path, capsys):
    """A .json file holding one JSON array (pretty-printed or on one line) failed as "not valid
    JSON (unexpected end of data)" or "expected a JSON object, got list"; the error now says
    records are read as JSON Lines and how to convert the file."""
    rows = [{"id": f"d{i}", "text": f"第{i}条新闻的正文内容"} for i in range(3)]
    for name, data in (
        ("pretty.json", json.dumps(rows, ensure_ascii=False, indent=2)),
        ("line.json", json.dumps(rows, ensure_ascii=False)),
    ):
        path = tmp_path / name
        path.write_text(data, encoding="utf-8")
        assert main(["dedup", str(path), "-o", str(tmp_path / "o")]) == 2
        err = capsys.readouterr().err
        assert f"{name}, record 1:" in err and "jq -c '.[]'" in err and "Traceback" not in err


def test_a_directory_named_as_an_output_is_never_removed(tmp_path, capsys):
    """A user's folder named pairs.csv (or kept.jsonl) in the output directory would have been
    replaced by the output, with everything in it; the kept/ folder of an earlier run is
    replaced as before, unless something not listed in that run's summary is in it."""
    source = tmp_path / "a.jsonl"
    source.write_bytes(b"".join(jsonl(8)))
    out = tmp_path / "o"
    for name in ("pairs.csv", "kept.jsonl"):
        (out / name).mkdir(parents=True)
        (out / name / "mine.txt").write_text("important")
        assert main(["dedup", str(source), "-o", str(out), "--pairs"]) == 2
        assert f"{name} is a directory that a run would replace" in capsys.readouterr().err
        assert (out / name / "mine.txt").read_text() == "important"
        (out / name / "mine.txt").rename(tmp_path / f"{name}.txt")
        (out / name).rmdir()
    other = tmp_path / "b.jsonl"
    other.write_bytes(b"".join(jsonl(8)))
    two = ["dedup", str(source), str(other), "-o", str(out)]
    assert main(two) == 0 and main(two) == 0  # its own kept/ folder is replaced
    (out / "kept" / "notes.txt").write_text("mine")
    assert main(two) == 2
    assert "kept is a directory" in capsys.readouterr().err
    assert (out / "kept" / "notes.txt").read_text() == "mine"


def test_a_file_named_as_an_output_is_never_removed(tmp_path, capsys):
    """A user's own report.html, pairs.csv, skipped.jsonl, kept.csv or summary.json in the
    output directory were replaced or deleted by a run (the optional outputs it did not write
    went as stale); only files an earlier run into the folder wrote are replaced."""
    source = tmp_path / "a.jsonl"
    source.write_bytes(b"".join(jsonl(8)))
    out = tmp_path / "o"
    out.mkdir()
    for name in ("report.html", "pairs.csv", "skipped.jsonl", "kept.csv", "summary.json"):
        (out / name).write_text("mine")
        assert main(["dedup", str(source), "-o", str(out), "--quiet"]) == 2
        assert f"{name} " in capsys.readouterr().err
        assert (out / name).read_text() == "mine" and not (out / "clusters.csv").exists()
        (out / name).unlink()
    args = ["dedup", str(source), "-o", str(out), "--quiet"]
    assert main([*args, "--pairs"]) == 0 and (out / "pairs.csv").exists()
    assert main(args) == 0 and not (out / "pairs.csv").exists()  # its own stale output: gone
    (out / "report.html").write_text("mine")  # one the last run did not write
    assert main(args) == 2 and (out / "report.html").read_text() == "mine"
    assert main(["report", str(out)]) == 2 and (out / "report.html").read_text() == "mine"
    (out / "report.html").unlink()
    assert main(["report", str(out)]) == 0  # a page `neardup report` added: a run's
    assert main(args) == 0 and main([*args, "--report"]) == 0


def test_a_run_after_one_killed_while_publishing_takes_its_files_for_a_runs(tmp_path):
    """A run killed between removing the old summary and placing the new one leaves outputs
    that no summary lists; the list of what it was placing lets the next run replace them."""
    from neardup.pipeline.outputs import PUBLISHING

    source = tmp_path / "a.jsonl"
    source.write_bytes(b"".join(jsonl(8)))
    out = tmp_path / "o"
    args = ["dedup", str(source), "-o", str(out), "--quiet", "--pairs"]
    assert main(args) == 0 and not (out / PUBLISHING).exists()
    summary = json.loads((out / "summary.json").read_text())
    (out / "summary.json").unlink()  # killed there, with the list written
    listing = {"neardup_version": summary["neardup_version"], "files": summary["files"]}
    (out / PUBLISHING).write_text(json.dumps(listing))
    assert main(args) == 0 and not (out / PUBLISHING).exists()
    assert json.loads((out / "summary.json").read_text())["files"].keys() == summary["files"].keys()
    (out / "summary.json").unlink()  # killed, and no list: the files are no run's
    assert main(args) == 2
    assert main(["dedup", str(source), "-o", str(tmp_path / "p"), "--quiet"]) == 0
    stale = {"neardup_version": "0", "files": ["pairs.csv"]}  # left beside a summary that landed
    (tmp_path / "p" / PUBLISHING).write_text(json.dumps(stale))
    (tmp_path / "p" / "pairs.csv").write_text("mine")
    assert main(["dedup", str(source), "-o", str(tmp_path / "p"), "--quiet"]) == 2
    assert (tmp_path / "p" / "pairs.csv").read_text() == "mine"
    assert not (tmp_path / "p" / PUBLISHING).exists()  # removed: it is never read again


def test_a_report_page_of_an_earlier_neardup_is_a_runs(tmp_path):
    """Pages made before the page's head was one line (a line break before <title>) are
    neardup's too: `neardup report` replaces them and a run keeps going."""
    source = tmp_path / "a.jsonl"
    source.write_bytes(b"".join(jsonl(8)))
    out = tmp_path / "o"
    assert main(["dedup", str(source), "-o", str(out), "--quiet", "--report"]) == 0
    page = (out / "report.html").read_text(encoding="utf-8")
    old = page.replace("<title>", "\n<title>", 1)
    (out / "report.html").write_text(old, encoding="utf-8")
    assert main(["report", str(out)]) == 0
    (out / "report.html").write_text(old, encoding="utf-8")
    assert main(["dedup", str(source), "-o", str(out), "--quiet"]) == 0  # no summary lists it
    (out / "report.html").write_text(old, encoding="utf-8")
    assert main(["dedup", str(source), "-o", str(out), "--quiet"]) == 0


def test_a_quote_never_closed_is_a_lost_tail_not_a_silent_merge(tmp_path, capsys):
    path = tmp_path / "u.csv"
    path.write_text(
        'id,text\n1,first document about weather\n2,"a quote never closed\n3,third one\n4,four\n',
        encoding="utf-8",
    )
    out = tmp_path / "o"
    assert main(["dedup", str(path), "-o", str(out), "--id-field", "id"]) == 2
    assert "record 2: a quoted field is never closed" in capsys.readouterr().err
    args = ["dedup", str(path), "-o", str(out), "--id-field", "id", "--on-error", "skip"]
    assert main([*args, "--quiet"]) == 0
    assert "every line after it are lost" in capsys.readouterr().err  # even with --quiet
    counts = json.loads((out / "summary.json").read_text())["counts"]
    assert counts["skipped_by_reason"] == {"unclosed_quote": 1} and counts["documents"] == 1


def _file_size_limit(limit):
    """A child that may write files of at most ``limit`` bytes (writes past it fail with EFBIG,
    as on a full disk, instead of killing it)."""
    import resource

    def apply():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def test_a_failed_write_is_an_error_naming_the_output_and_publishes_nothing(tmp_path):
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"".join(jsonl(3000)))
    out = tmp_path / "o"
    done = subprocess.run(
        [sys.executable, "-m", "neardup", "dedup", str(path), "-o", str(out), "--quiet"],
        preexec_fn=_file_size_limit(20_000),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2, done.stderr
    assert f"cannot write {out}" in done.stderr and "File too large" in done.stderr
    assert "Traceback" not in done.stderr and not out.exists()  # the folder it made, emptied


def test_standard_output_closed_early_is_not_a_success(tmp_path):
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"".join(jsonl(3000)))
    out = tmp_path / "o"
    proc = subprocess.Popen(
        [sys.executable, "-m", "neardup", "dedup", str(path), "-o", str(out), "--kept", "-"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.stdout.readline()
    proc.stdout.close()  # the reader stops after one record (`| head -1`)
    err = proc.stderr.read().decode()
    assert proc.wait() == 2, err
    assert "standard output was closed" in err and "Traceback" not in err
    assert not (out / "summary.json").exists()


@pytest.mark.parametrize("suffix", [".jsonl", ".jsonl.gz", ".csv"])
def test_a_byte_order_mark_at_the_start_is_not_part_of_the_first_record(tmp_path, suffix):
    """Editors and Excel's "CSV UTF-8" start a file with a byte order mark: the first record
    (or the header's first column) is read as if it were not there."""
    if suffix == ".csv":
        body = "id,text\n" + "".join(f"doc{i},{text(i)}\n" for i in range(4))
    else:
        body = "".join(
            orjson.dumps({"id": f"doc{i}", "text": text(i)}).decode() + "\n" for i in range(4)
        )
    raw = b"\xef\xbb\xbf" + body.encode()
    path = tmp_path / f"in{suffix}"
    path.write_bytes(gzip.compress(raw) if suffix.endswith(".gz") else raw)
    out = tmp_path / "o"
    assert main(["dedup", str(path), "-o", str(out), "--id-field", "id", "--quiet"]) == 0
    counts = json.loads((out / "summary.json").read_text())["counts"]
    assert counts["records_read"] == 4 and counts["skipped"] == 0
    rows = list(csv.DictReader(io.StringIO((out / "clusters.csv").read_text())))
    assert [r["id"] for r in rows] == [f"doc{i}" for i in range(4)]


def test_a_byte_order_mark_is_not_part_of_a_text_files_first_line(tmp_path):
    """A text file read its mark into the first text: a file holding only a mark became one
    kept empty document (the kept writer drops the mark), and a first line with one was not
    the text its twin without a mark is."""
    from neardup.readers import read_records

    path = tmp_path / "in.txt"
    path.write_bytes(b"\xef\xbb\xbfhello world\nhello world\n")
    assert [r.text for r in read_records(path)] == ["hello world"] * 2
    path.write_bytes(b"\xef\xbb\xbf")
    out = tmp_path / "o"
    assert main(["dedup", str(path), "-o", str(out), "--quiet", "--on-error", "skip"]) == 0
    counts = json.loads((out / "summary.json").read_text())["counts"]
    assert counts["records_read"] == 1 and counts["skipped"] == 1 and counts["kept"] == 0


def test_a_json_lines_file_holding_a_byte_order_mark_alone_holds_no_records(tmp_path, capsys):
    """Like an empty file, not "record 1: not valid JSON (input length is 0)"."""
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"\xef\xbb\xbf")
    assert main(["dedup", str(path), "-o", str(tmp_path / "o")]) == 2
    assert "the file holds no records" in capsys.readouterr().err


def test_the_references_bad_records_are_listed_not_only_counted(tmp_path, capsys):
    ref = tmp_path / "ref.jsonl"
    ref.write_bytes(jsonl(1)[0] + b"not json\n" + jsonl(3)[2])
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"".join(jsonl(4)))
    out = tmp_path / "o"
    args = ["dedup", str(path), "-o", str(out), "--against", str(ref), "--on-error", "skip"]
    assert main(args) == 0
    assert "(and 1 of the reference: reference_skipped.jsonl)" in capsys.readouterr().err
    rows = [json.loads(x) for x in (out / "reference_skipped.jsonl").read_text().splitlines()]
    assert [(r["record"], r["reason"]) for r in rows] == [(2, "malformed_json")]
    reference = json.loads((out / "summary.json").read_text())["reference"]
    assert reference["skipped_by_reason"] == {"malformed_json": 1}
    assert reference["records_read"] == 3 and reference["documents"] == 2


def test_quiet_says_what_the_reference_skipped_as_it_says_the_inputs(tmp_path, capsys):
    """``--quiet`` said the input's skipped records and nothing of the reference's: a reference
    line that is not JSON, or a record without the text field, was dropped without a word."""
    ref = tmp_path / "ref.jsonl"
    ref.write_bytes(jsonl(1)[0] + b"not json\n" + b'{"id": "r3"}\n')
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"".join(jsonl(4)))
    out = tmp_path / "o"
    args = ["dedup", str(path), "-o", str(out), "--against", str(ref), "--on-error", "skip"]
    assert main([*args, "--quiet"]) == 0
    said = f"neardup: 2 of 3 reference records skipped ({out / 'reference_skipped.jsonl'})\n"
    assert capsys.readouterr().err == said
    reference = json.loads((out / "summary.json").read_text())["reference"]
    assert reference["skipped"] == 2
    assert reference["skipped_by_reason"] == {"malformed_json": 1, "missing_text": 1}
    path.write_bytes(b"".join(jsonl(4)) + b"bad\n")  # both: the input's first
    assert main([*args, "--quiet"]) == 0
    assert capsys.readouterr().err == (
        f"neardup: 1 of 5 records skipped ({out / 'skipped.jsonl'})\n{said}"
    )


@pytest.mark.parametrize(
    ("bad", "says"),
    [(b"not json\n", "record 2: not valid JSON"), (b'{"id": "r2"}\n', "record 2: no text field")],
)
def test_a_bad_reference_record_is_an_error_naming_it_as_an_inputs_is(tmp_path, capsys, bad, says):
    """Under the default ``--on-error fail`` a bad reference record stops the run with the error
    a bad input record gives: the file and the record, exit 2, nothing published."""
    ref = tmp_path / "ref.jsonl"
    ref.write_bytes(jsonl(1)[0] + bad)
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"".join(jsonl(4)))
    out = tmp_path / "o"
    assert main(["dedup", str(path), "-o", str(out), "--against", str(ref)]) == 2
    against = capsys.readouterr().err
    assert f"neardup: error: {ref}, {says}" in against, against
    assert not out.exists()
    assert main(["dedup", str(ref), "-o", str(out)]) == 2  # the same file as the input
    assert against == capsys.readouterr().err


def test_index_add_names_its_skipped_records_and_counts_them_by_reason(tmp_path, capsys):
    path = tmp_path / "mixed.jsonl"
    good = orjson.dumps({"id": "a", "text": text(1)})
    path.write_bytes(good + b"\nbad line\n" + good.replace(b'"a"', b'"b"')[:-1] + b',"x":1}\n')
    url = f"sqlite:///{tmp_path}/i.db"
    assert (
        main(["index", "add", str(path), "--db", url, "--id-field", "id", "--on-error", "skip"])
        == 0
    )
    err = capsys.readouterr().err
    assert f"skipped {path}, record 2: not valid JSON" in err
    assert json.loads(err.strip().splitlines()[-1])["skipped_by_reason"] == {"malformed_json": 1}


def test_messages_say_what_is_wrong_with_a_record(tmp_path, capsys):
    """Invalid UTF-8 is named as such (where, not orjson's words); a null id is a null id; a
    missing id lists the fields the record has."""
    broken = b'{"id": "a", "text": "abc \xff\xfe def"}\n'
    cases = [
        (broken, f"record 1: not valid UTF-8 (byte {broken.index(bytes([0xFF])) + 1}: "),
        (b'{"id": null, "text": "some text"}\n', "record 1: id field 'id' is null"),
        (b'{"key": "a", "text": "some text"}\n', "no id field 'id' (fields: key, text)"),
    ]
    for k, (line, message) in enumerate(cases):
        path = tmp_path / f"in{k}.jsonl"
        path.write_bytes(line)
        assert main(["dedup", str(path), "-o", str(tmp_path / "o"), "--id-field", "id"]) == 2
        assert message in capsys.readouterr().err


def test_a_csv_column_named_twice_is_an_error_not_a_guess(tmp_path, capsys):
    path = tmp_path / "rep.csv"
    path.write_text("id,text,text\n1,first text,second text\n", encoding="utf-8")
    assert main(["dedup", str(path), "-o", str(tmp_path / "o")]) == 2
    assert "the header names column 'text' 2 times" in capsys.readouterr().err


def test_text_after_a_closing_quote_is_a_malformed_row_not_rewritten(tmp_path, capsys):
    """A CSV field that opens a quote and goes on after closing it (1,"abc"def) is no CSV
    field: Python's lenient parser drops the quotes, and the kept file was written back without
    them. It is an error naming the record, or with --on-error skip a counted skip; the rows
    around it are read and kept unchanged."""
    body = 'id,text,note\n1,"abc"def and more text here,x\n2,"multi\nline" tail,y\n3,plain,"z"\n'
    path = tmp_path / "s.csv"
    path.write_text(body, encoding="utf-8")
    out = tmp_path / "o"
    assert main(["dedup", str(path), "-o", str(out), "--id-field", "id", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "record 1" in err and "must end with it" in err
    args = ["dedup", str(path), "-o", str(out), "--id-field", "id", "--on-error", "skip"]
    assert main([*args, "--quiet"]) == 0
    kept = list(csv.reader(io.StringIO((out / "kept.csv").read_text(encoding="utf-8"))))
    assert kept == [["id", "text", "note"], ["3", "plain", "z"]]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["counts"]["skipped_by_reason"] == {"malformed_row": 2}


def test_a_malformed_row_ends_where_its_quoted_field_ends(tmp_path):
    """A refused row whose later field opens a quote over the next lines: those lines are its
    own, not records (a probe got a document "99" made of them, and kept.csv, numbered by the
    lenient parser, then held the wrong rows). The skip names the row's id."""
    body = (
        'id,text,note\n1,"甲乙丙"丁,"备注第一行\n99,春夏秋冬东南西北,完"\n'
        "2,日月星辰山川河流,a\n3,春夏秋冬东南西北,b\n"
    )
    path = tmp_path / "f.csv"
    path.write_text(body, encoding="utf-8")
    out = tmp_path / "o"
    args = ["dedup", str(path), "-o", str(out), "--id-field", "id", "--on-error", "skip"]
    assert main([*args, "--quiet"]) == 0
    kept = list(csv.reader(io.StringIO((out / "kept.csv").read_text(encoding="utf-8"))))
    assert kept == [
        ["id", "text", "note"],
        ["2", "日月星辰山川河流", "a"],
        ["3", "春夏秋冬东南西北", "b"],
    ]
    skipped = [orjson.loads(line) for line in (out / "skipped.jsonl").read_bytes().splitlines()]
    assert [(s["record"], s["id"], s["reason"]) for s in skipped] == [(1, "1", "malformed_row")]
    c = json.loads((out / "summary.json").read_text())["counts"]
    assert (c["records_read"], c["kept"], c["skipped"]) == (3, 2, 1)


def test_a_byte_order_mark_stays_out_of_the_kept_header(tmp_path):
    """The reader drops a byte order mark before the header; the kept file's header did not
    (a quoted first column became '\ufeff"id"', unreadable by the next run)."""
    path = tmp_path / "bom.csv"
    path.write_bytes('\ufeff"id",text\n1,"甲乙丙丁"\n2,"戊己庚辛"\n'.encode())
    out = tmp_path / "o"
    assert main(["dedup", str(path), "-o", str(out), "--id-field", "id", "--quiet"]) == 0
    header = (out / "kept.csv").read_text(encoding="utf-8").splitlines()[0]
    assert header == "id,text"
    again = tmp_path / "again"
    assert main(["dedup", str(out / "kept.csv"), "-o", str(again), "--id-field", "id",
                 "--quiet"]) == 0  # fmt: skip


def test_every_surface_reads_a_byte_order_mark_alike():
    """Spark's partition reader parses lines as the local reader does (one function)."""
    from neardup.readers import parse_json_line
    from neardup.spark.read import _check_json

    line = orjson.dumps({"text": text(1)})
    assert parse_json_line(1, b"\xef\xbb\xbf" + line) == parse_json_line(1, line)
    [row] = list(_check_json(iter([(b"\xef\xbb\xbf" + line, 0)]), "text", None))
    assert row[3] == text(1)
    # a mark alone is a blank line there too, as locally (review: a malformed record)
    rows = list(_check_json(iter([(b"\xef\xbb\xbf", 0), (line, 1)]), "text", None))
    assert [r[0] for r in rows] == [2] and rows[0][3] == text(1)


@pytest.mark.parametrize("end", [b"\n", b"\r\n"])
def test_a_malformed_line_is_named_alike_with_or_without_its_end(end):
    """A local file's lines hold their end, Spark's do not: the parser's message said ``line 2
    column 1`` for the one and ``line 1 column 24`` for the other."""
    from neardup.readers import parse_json_line

    line = b'{"id": "bad1", "text": '
    bad = parse_json_line(3, line + end)
    assert isinstance(bad, Skipped) and bad == parse_json_line(3, line)
    assert "line 1 column 24" in bad.message


@pytest.mark.parametrize("option", [("--text-field", "body"), ("--id-field", "x")])
def test_field_options_for_a_text_file_are_an_error(tmp_path, capsys, option):
    """A text file holds one document per line: a field option was taken and ignored
    (--text-field) or failed at record 1 naming a made-up field (--id-field)."""
    source = tmp_path / "docs.txt"
    source.write_text("一篇文章\n另一篇文章\n", encoding="utf-8")
    assert main(["dedup", str(source), "-o", str(tmp_path / "out"), *option]) == 2
    err = capsys.readouterr().err
    assert str(source) in err and option[0] in err and "one document per line" in err
    assert not (tmp_path / "out").exists()
    assert main(["dedup", str(source), "-o", str(tmp_path / "out"), "--quiet"]) == 0
    if option[0] == "--text-field":  # beside records, the option is theirs: the text file's
        records = tmp_path / "docs.jsonl"  # lines are read as its texts, as before
        records.write_text('{"body": "第三篇文章的内容"}\n', encoding="utf-8")
        out = tmp_path / "mixed"
        assert main(["dedup", str(records), str(source), "-o", str(out), *option, "--quiet"]) == 0
        assert json.loads((out / "summary.json").read_text())["counts"]["documents"] == 3


@pytest.mark.parametrize("on_error", ["fail", "skip"])
def test_a_deeply_nested_json_line_is_a_bad_record_not_a_crash(tmp_path, on_error):
    """One line of 200,000 nested arrays crashed the process (SIGSEGV in orjson before 3.9.15,
    CVE-2024-27454) whatever ``--on-error`` said; run in a child so a crash is a failure here."""
    path = tmp_path / "in.jsonl"
    nested = b"[" * 200_000 + b"]" * 200_000
    path.write_bytes(b'{"text": "one record"}\n' + nested + b'\n{"text": "another record"}\n')
    args = ["dedup", str(path), "-o", str(tmp_path / "out"), "--on-error", on_error, "--quiet"]
    proc = subprocess.run(
        [sys.executable, "-m", "neardup", *args], capture_output=True, timeout=300, check=False
    )
    err = proc.stderr.decode()
    if on_error == "fail":
        assert proc.returncode == 2 and "record 2" in err and "Traceback" not in err, err
        return
    assert proc.returncode == 0, err
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["counts"]["records_read"] == 3 and summary["counts"]["kept"] == 2
    assert summary["counts"]["skipped_by_reason"] == {"malformed_json": 1}


@pytest.mark.parametrize("change", ["rewritten", "same size", "appended"])
def test_an_input_changed_during_the_run_is_not_published(tmp_path, monkeypatch, capsys, change):
    """The kept records are copied from a second reading of the input: one rewritten in
    between (other records) gave a kept file of records never judged under a summary counting
    the first ones, exit 0. Now the run stops naming the file, and publishes nothing."""
    path = tmp_path / "in.jsonl"
    rows = [{"id": f"r{i}", "text": text(i % 40)} for i in range(120)]
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    out = tmp_path / "out"
    assert dedup(path, out) == 0
    first = assert_one_complete_run(out)
    judge = pipeline_run.find_duplicates

    def judge_then_change(*args, **kwargs):
        found = judge(*args, **kwargs)
        data = path.read_bytes()
        if change == "rewritten":
            other = [{"id": f"n{i}", "text": text(100 + i)} for i in range(300)]
            data = b"".join(orjson.dumps(r) + b"\n" for r in other)
        elif change == "same size":
            data = data.replace(b'"r1"', b'"x1"', 1)
        else:
            data += orjson.dumps({"id": "late", "text": text(500)}) + b"\n"
        path.write_bytes(data)
        os.utime(path, ns=(1, 1))  # a new time stamp, however coarse the file system's
        return found

    monkeypatch.setattr(pipeline_run, "find_duplicates", judge_then_change)
    assert dedup(path, out, "--method", "simhash") == 2
    err = capsys.readouterr().err
    assert f"{path}: the file was " in err and "the run stops unpublished" in err, err
    assert assert_one_complete_run(out)["run_id"] == first["run_id"]  # the earlier run stands


def test_quiet_still_says_what_was_skipped(tmp_path, capsys):
    """``--quiet --on-error skip`` left no trace of skipped records on stderr."""
    path = tmp_path / "in.jsonl"
    path.write_bytes(b"".join(jsonl(5)) + b'{"id": "x", "text": null}\n')
    out = tmp_path / "out"
    assert main(["dedup", str(path), "-o", str(out), "--on-error", "skip", "--quiet"]) == 0
    assert capsys.readouterr().err == f"neardup: 1 of 6 records skipped ({out / 'skipped.jsonl'})\n"
    path.with_name("ok.jsonl").write_bytes(b"".join(jsonl(5)))
    assert main(["dedup", str(path.with_name("ok.jsonl")), "-o", str(out), "--quiet"]) == 0
    assert capsys.readouterr().err == ""
