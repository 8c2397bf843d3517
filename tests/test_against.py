"""`neardup dedup NEW --against REFERENCE` equals `index add REFERENCE` + `index query NEW`."""

from __future__ import annotations

import csv
import hashlib
import json

import orjson
import pytest

from neardup.cli import main
from neardup.methods import online_methods
from neardup.methods.commongrams import CommonGrams
from neardup.online import Detector
from neardup.store import open_store
from test_replay import corpus


def write_jsonl(path, rows):
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    return path


@pytest.fixture(scope="module")
def halves(tmp_path_factory):
    texts = corpus()
    half = len(texts) // 2
    base = tmp_path_factory.mktemp("against")
    reference = [{"id": f"r{i}", "text": t} for i, t in enumerate(texts[:half])]
    new = [{"id": f"n{i}", "text": t} for i, t in enumerate(texts[half:])]
    return write_jsonl(base / "ref.jsonl", reference), write_jsonl(base / "new.jsonl", new)


def online_answer(method_name, reference, new, tables):
    """Each new document's best reference match (or None): the detector, added then checked."""
    det = Detector(store=open_store("memory://"), method=method_name, tables=tables, max_matches=5)
    for row in map(orjson.loads, reference.read_bytes().splitlines()):
        det.add(row["id"], row["text"])
    answer = {}
    for row in map(orjson.loads, new.read_bytes().splitlines()):
        found = det.check(row["text"])
        answer[row["id"]] = found.matches[0].id if found.duplicate else None
    return answer


@pytest.mark.parametrize("method_name", online_methods())
def test_against_equals_index_add_then_query(halves, tmp_path, method_name, monkeypatch):
    from neardup.pipeline import outputs

    monkeypatch.setattr(outputs, "CLUSTER_ROWS", 7)  # clusters.csv written in many pieces
    reference, new = halves
    digest = hashlib.sha256(reference.read_bytes()).hexdigest()
    out = tmp_path / "out"
    args = ["dedup", str(new), "--against", str(reference), "--id-field", "id", "-o", str(out)]
    assert main([*args, "--method", method_name, "--report", "--quiet"]) == 0
    assert hashlib.sha256(reference.read_bytes()).hexdigest() == digest  # untouched
    fitted = out / "common_grams.npz"  # auto and paragraph fit a frozen table
    tables = CommonGrams.load(fitted) if method_name in ("auto", "paragraph") else None
    expected = online_answer(method_name, reference, new, tables)
    with open(out / "clusters.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [r["id"] for r in rows] == list(expected)  # one row per new document, in order
    got = {
        r["id"]: r["representative_id"] if r["representative_in"] == "reference" else None
        for r in rows
    }
    for r in rows:  # a new document is never the duplicate of another new document
        assert r["representative_in"] == "reference" or r["representative_id"] == r["id"]
    removed = sum(v is not None for v in expected.values())
    assert removed > 10, "the halves share copies to find"
    mismatches = [(k, got[k], v) for k, v in expected.items() if got[k] != v]
    assert not mismatches, mismatches[:10]
    kept = [orjson.loads(line)["id"] for line in (out / "kept.jsonl").read_bytes().splitlines()]
    assert kept == [k for k, v in expected.items() if v is None]
    summary = json.loads((out / "summary.json").read_text())
    c = summary["counts"]
    assert c["duplicates_removed"] == removed and c["records_read"] == len(expected)
    assert c["records_read"] == c["kept"] + c["duplicates_removed"] + c["skipped"]
    assert summary["reference"]["documents"] == len(reference.read_bytes().splitlines())


def test_new_copies_of_each_other_are_both_kept_unless_the_reference_has_them(tmp_path):
    story = (
        "国务院召开常务会议，部署进一步稳外贸稳外资的政策措施，推动外贸保稳提质，要求各地抓好落实。"
    )
    other = "教育部发布通知，要求各地做好高校毕业生就业创业工作，拓宽市场化社会化就业渠道。"
    reference = write_jsonl(tmp_path / "ref.jsonl", [{"text": story}])
    new = write_jsonl(
        tmp_path / "new.jsonl",
        [{"text": other}, {"text": other}, {"text": story}, {"text": story + "（完）"}],
    )
    out = tmp_path / "out"
    assert main(["dedup", str(new), "--against", str(reference), "-o", str(out), "--quiet"]) == 0
    with open(out / "clusters.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    # ids are record numbers of each file: representative "1" in the reference, not new record 1
    assert [(r["representative_id"], r["representative_in"]) for r in rows] == [
        ("1", "input"),
        ("2", "input"),
        ("1", "reference"),
        ("1", "reference"),
    ]
    # the pairs reported are the two between an input and the reference, not the input's own
    # identical pair (which only organises the answer)
    assert json.loads((out / "summary.json").read_text())["counts"]["pairs"] == 2


def test_against_refuses_what_it_cannot_honour(tmp_path, capsys):
    src = write_jsonl(tmp_path / "a.jsonl", [{"text": "一条新闻"}])
    for extra in (["--keep", "longest"], ["--clusters", "components"], ["--pairs"]):
        code = main(["dedup", str(src), "--against", str(src), "-o", str(tmp_path / "o"), *extra])
        assert code == 2
        assert "--against" in capsys.readouterr().err
    code = main(["dedup", str(src), "--against", str(tmp_path / "missing.jsonl"), "-o", "o"])
    assert code == 2 and "missing.jsonl" in capsys.readouterr().err


def test_against_names_what_it_refuses_and_takes_one_reference(tmp_path, capsys):
    """The refusal named options the user had not given (--keep container: "drop --keep
    longest / --clusters components"); --partial was taken and reported nothing; a second
    --against replaced the first, silently."""
    src = write_jsonl(tmp_path / "a.jsonl", [{"text": "一条新闻"}])
    run = ["dedup", str(src), "--against", str(src), "-o", str(tmp_path / "o"), "--quiet"]
    assert main([*run, "--method", "paragraph", "--keep", "container"]) == 2
    err = capsys.readouterr().err
    assert "drop --keep container" in err and "longest" not in err and "components" not in err
    assert main([*run, "--partial"]) == 2
    assert "--partial is not available with --against" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        main([*run, "--against", str(src)])
    assert exit_.value.code == 2 and "--against is given twice" in capsys.readouterr().err
    assert not (tmp_path / "o" / "summary.json").exists()


def representatives(out):
    with open(out / "clusters.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return {r["id"]: (r["representative_id"], r["representative_in"]) for r in rows}


@pytest.mark.parametrize("method_name", online_methods())
def test_against_a_store_equals_against_its_file_and_index_query(halves, tmp_path, method_name):
    """`--against sqlite:///ref.db` (built by `index add` with the batch run's table) removes
    the same documents, with the same reference matches, as `--against ref.jsonl`, and as
    `index query` prints them; the store is opened read-only and not changed."""
    reference, new = halves
    base = ["--id-field", "id", "--method", method_name, "--quiet"]
    by_file = tmp_path / "by_file"
    assert main(["dedup", str(new), "--against", str(reference), "-o", str(by_file), *base]) == 0
    tables = ["--tables", str(by_file / "common_grams.npz")]
    tables = tables if method_name in ("auto", "paragraph") else []
    db = f"sqlite:///{tmp_path}/ref.db"
    assert main(["index", "add", str(reference), "--db", db, *base, *tables]) == 0
    before = open_store(db, read_only=True)
    stored = before.count()
    before.close()
    by_store = tmp_path / "by_store"
    args = ["dedup", str(new), "--against", db, "-o", str(by_store), "--report", *base, *tables]
    assert main(args) == 0
    want, got = representatives(by_file), representatives(by_store)
    assert got == want
    assert sum(where == "reference" for _, where in got.values()) > 10
    summary = json.loads((by_store / "summary.json").read_text())
    assert summary["reference"]["documents"] == stored and summary["reference"]["matched"] > 0
    c = summary["counts"]
    assert c["records_read"] == c["kept"] + c["duplicates_removed"] + c["skipped"]
    assert (by_store / "report.html").stat().st_size > 0
    after = open_store(db, read_only=True)
    assert after.count() == stored
    after.close()


def test_against_a_store_needs_its_settings(halves, tmp_path, capsys):
    reference, new = halves
    db = f"sqlite:///{tmp_path}/ref.db"
    fitted = tmp_path / "fit"
    paragraph = ["--method", "paragraph", "--quiet"]  # its table is not empty on 360 texts
    assert main(["dedup", str(reference), "-o", str(fitted), *paragraph]) == 0
    tables = str(fitted / "common_grams.npz")
    assert main(["index", "add", str(reference), "--db", db, "--tables", tables, *paragraph]) == 0
    capsys.readouterr()
    assert main(["dedup", str(new), "--against", db, "-o", str(tmp_path / "o"), *paragraph]) == 2
    err = capsys.readouterr().err
    assert "options.common_grams" in err and "--tables" in err
    missing = f"sqlite:///{tmp_path}/missing.db"
    assert main(["dedup", str(new), "--against", missing, "-o", str(tmp_path / "o")]) == 2
    assert "no store" in capsys.readouterr().err
    assert not (tmp_path / "missing.db").exists()
