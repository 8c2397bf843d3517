import json
import subprocess

import orjson
import pytest

from neardup.cli import main


def write(path, texts):
    with open(path, "wb") as f:
        for i, t in enumerate(texts):
            f.write(orjson.dumps({"id": f"doc{i}", "text": t}) + b"\n")


TEXTS = [
    f"第{i}条新闻：国务院常务会议部署稳外贸稳外资措施，要求各地抓好落实，确保经济运行平稳。"
    if i % 4
    else f"完全不同的第{i}条消息，讲的是体育比赛和天气预报以及交通出行的情况。"
    for i in range(40)
]


def test_add_is_resumable_and_idempotent(tmp_path, capsys):
    path = tmp_path / "in.jsonl"
    write(path, TEXTS)
    db = f"sqlite:///{tmp_path}/ix.db"
    base = [
        "index",
        "add",
        str(path),
        "--db",
        db,
        "--id-field",
        "id",
        "--quiet",
        "--batch-size",
        "7",
    ]
    assert main([*base, "--limit", "15"]) == 0  # an interrupted run
    first = json.loads(capsys.readouterr().err.strip().splitlines()[-1])
    assert first["inserted"] == 15 and first["documents_in_store"] == 15
    assert main(base) == 0
    second = json.loads(capsys.readouterr().err.strip().splitlines()[-1])
    assert second["already_done"] == 15 and second["inserted"] == 25
    assert second["documents_in_store"] == 40
    assert main(base) == 0
    third = json.loads(capsys.readouterr().err.strip().splitlines()[-1])
    assert third["inserted"] == 0 and third["documents_in_store"] == 40
    assert main(["index", "stats", "--db", db]) == 0
    assert json.loads(capsys.readouterr().out)["documents"] == 40


def test_query_remove_and_errors(tmp_path, capsys):
    path = tmp_path / "in.jsonl"
    write(path, TEXTS[:8])
    db = f"sqlite:///{tmp_path}/ix.db"
    assert main(["index", "add", str(path), "--db", db, "--id-field", "id", "--quiet"]) == 0
    capsys.readouterr()
    assert main(["index", "query", str(path), "--db", db, "--id-field", "id"]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert len(rows) == 8 and all("matches" in r for r in rows)
    assert main(["index", "remove", "doc0", "nope", "--db", db]) == 1
    assert "no document with id 'nope'" in capsys.readouterr().err
    assert main(["index", "stats", "--db", "nowhere.db"]) == 2
    assert "not a store URL" in capsys.readouterr().err
    assert main(["index", "add", str(path), "--db", db, "--method", "ngram", "--quiet"]) == 2
    assert "built with other settings" in capsys.readouterr().err


def test_an_id_the_file_repeats_is_a_bad_record(tmp_path, capsys):
    """Within a batch or across batches (and across a resume): an error naming both records,
    or with --on-error skip a counted skip; the first record's text stays stored."""
    path = tmp_path / "in.jsonl"
    rows = [("a", TEXTS[0]), ("b", TEXTS[1]), ("c", TEXTS[2]), ("a", TEXTS[3]), ("d", TEXTS[5])]
    path.write_bytes(b"".join(orjson.dumps({"id": i, "text": t}) + b"\n" for i, t in rows))
    for size in ("1", "10"):
        db = f"sqlite:///{tmp_path}/fail{size}.db"
        base = ["index", "add", str(path), "--db", db, "--id-field", "id", "--quiet"]
        assert main([*base, "--batch-size", size]) == 2
        err = capsys.readouterr().err
        assert "in.jsonl, record 4: duplicate id 'a' (first at record 1)" in err
        db = f"sqlite:///{tmp_path}/skip{size}.db"
        base = ["index", "add", str(path), "--db", db, "--id-field", "id", "--quiet"]
        assert main([*base, "--batch-size", size, "--limit", "2"]) == 0  # interrupted
        capsys.readouterr()
        assert main([*base, "--batch-size", size, "--on-error", "skip"]) == 0
        counts = json.loads(capsys.readouterr().err.strip().splitlines()[-1])
        assert counts["skipped"] == 1 and counts["already_done"] == 2
        assert counts["documents_in_store"] == 4
        probe = tmp_path / "probe.jsonl"
        probe.write_bytes(orjson.dumps({"id": "q", "text": TEXTS[0]}) + b"\n")
        assert main(["index", "query", str(probe), "--db", db, "--id-field", "id"]) == 0
        matches = json.loads(capsys.readouterr().out)["matches"]
        assert "a" in [m["id"] for m in matches if m["similarity"] == 1.0]  # record 1's text


def test_query_without_ids_is_not_excluded_by_record_number(tmp_path, capsys):
    """Without --id-field, records are named by number: record 1 of the query file is not the
    stored document "1", and a copy of it must be reported."""
    stored, query = tmp_path / "stored.jsonl", tmp_path / "query.jsonl"
    write(stored, [TEXTS[1], TEXTS[2]])
    write(query, [TEXTS[1] + "！", "没有任何关系的一句话，讲的是别的事情。"])
    db = f"sqlite:///{tmp_path}/ix.db"
    assert main(["index", "add", str(stored), "--db", db, "--quiet"]) == 0
    capsys.readouterr()
    assert main(["index", "query", str(query), "--db", db]) == 0
    rows = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert rows[0]["id"] == "1" and [m["id"] for m in rows[0]["matches"]] == ["1"]
    assert not rows[1]["duplicate"]
    # with ids from the file, a stored document still does not match itself
    assert main(["index", "add", str(stored), "--db", db + "2", "--id-field", "id", "--quiet"]) == 0
    capsys.readouterr()
    assert main(["index", "query", str(stored), "--db", db + "2", "--id-field", "id"]) == 0
    assert all(not json.loads(x)["matches"] for x in capsys.readouterr().out.splitlines())


@pytest.fixture
def tmpfs(tmp_path):
    """A small tmpfs mounted at ``tmp_path/ro`` (root only), unmounted afterwards."""
    mount = tmp_path / "ro"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(mount)]).returncode:
        pytest.skip("cannot mount a tmpfs here (needs root)")
    try:
        yield mount
    finally:
        subprocess.run(["umount", str(mount)])


def test_read_only_commands_work_on_read_only_media(tmp_path, tmpfs, capsys):
    """stats and query on a store whose file system is mounted read-only (root can write any
    file, so only a read-only mount shows that nothing is opened for writing)."""
    mount = tmpfs
    path = tmp_path / "in.jsonl"
    write(path, TEXTS[:6])
    db = f"sqlite:///{mount}/ix.db"
    assert main(["index", "add", str(path), "--db", db, "--id-field", "id", "--quiet"]) == 0
    assert subprocess.run(["mount", "-o", "remount,ro", str(mount)]).returncode == 0
    capsys.readouterr()
    assert main(["index", "stats", "--db", db]) == 0
    assert json.loads(capsys.readouterr().out)["documents"] == 6
    query = tmp_path / "q.jsonl"
    query.write_bytes(orjson.dumps({"id": "new", "text": TEXTS[1]}) + b"\n")
    assert main(["index", "query", str(query), "--db", db, "--id-field", "id"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["duplicate"] and row["matches"][0]["id"] == "doc1"
    assert main(["index", "add", str(query), "--db", db, "--id-field", "id"]) == 2
    assert "read-only" in capsys.readouterr().err.lower()
    assert _open_files_under(mount) == []  # every file the commands opened is closed


def test_a_log_that_read_only_media_cannot_apply_is_an_error_not_stale_data(
    tmp_path, tmpfs, capsys
):
    """A copy of a store and its non-empty write-ahead log on read-only media: SQLite's
    immutable mode would ignore the log (stale counts, or a store read as damaged)."""
    import shutil

    from neardup.online import Detector
    from neardup.store import open_store

    mount = tmpfs
    live = tmp_path / "live.db"
    detector = Detector(store=open_store(f"sqlite:///{live}"))
    for i, text in enumerate(TEXTS[:6]):
        detector.add(f"doc{i}", text)
    assert (tmp_path / "live.db-wal").stat().st_size > 0  # writes not yet in the file
    shutil.copy(live, mount / "ix.db")
    shutil.copy(tmp_path / "live.db-wal", mount / "ix.db-wal")
    detector.close()
    assert subprocess.run(["mount", "-o", "remount,ro", str(mount)]).returncode == 0
    capsys.readouterr()
    assert main(["index", "stats", "--db", f"sqlite:///{mount}/ix.db"]) == 2
    assert "cannot be applied on read-only media" in capsys.readouterr().err
    assert _open_files_under(mount) == []


def _open_files_under(folder) -> list[str]:
    """The files this process holds open below ``folder`` (Linux: /proc/self/fd)."""
    import os

    found = []
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # the descriptor listdir itself used
            continue
        if target.startswith(f"{folder}/"):
            found.append(target)
    return found


def test_a_store_keeps_its_method_when_none_is_given(tmp_path, capsys):
    """Without --method, a command on an existing store uses the method it was built with (a
    new store: the default); a method given that differs is refused."""
    path = tmp_path / "in.jsonl"
    write(path, TEXTS[:4])
    db = f"sqlite:///{tmp_path}/ngram.db"
    add = ["index", "add", str(path), "--db", db, "--id-field", "id", "--quiet"]
    assert main([*add, "--method", "ngram"]) == 0
    assert main(["index", "stats", "--db", db]) == 0
    assert json.loads(capsys.readouterr().out)["params"]["method"] == "ngram"
    assert main(["index", "add", str(path), "--db", db, "--id-field", "id", "--quiet"]) == 0
    assert main([*add, "--method", "simhash"]) == 2
    err = capsys.readouterr().err  # the method alone: the two methods' options all differ
    assert "(method: stored 'ngram', now 'simhash'); use the same settings" in err
    fresh = f"sqlite:///{tmp_path}/fresh.db"
    assert main(["index", "add", str(path), "--db", fresh, "--id-field", "id", "--quiet"]) == 0
    assert main(["index", "stats", "--db", fresh]) == 0
    assert json.loads(capsys.readouterr().out)["params"]["method"] == "auto"


def test_arguments_are_checked_before_a_store_is_created(tmp_path, capsys):
    """A bad --workers, a missing, empty or unreadable input or a remove on no store leaves no
    store behind (a store created by a failed command would hold its method for the next)."""
    path = tmp_path / "in.jsonl"
    write(path, TEXTS[:4])
    db = tmp_path / "p.db"
    url = f"sqlite:///{db}"
    assert main(["index", "add", str(path), "--db", url, "--workers", "-1"]) == 2
    assert main(["index", "add", str(tmp_path / "nope.jsonl"), "--db", url]) == 2
    assert main(["index", "remove", "x", "--db", url]) == 2
    assert main(["dedup", str(path), "-o", str(tmp_path / "o"), "--workers", "100000"]) == 2
    assert "at most 1024 threads" in capsys.readouterr().err
    empty, bad = tmp_path / "empty.jsonl", tmp_path / "bad.jsonl"
    empty.write_bytes(b"")
    bad.write_bytes(b"not json\n")
    assert main(["index", "add", str(empty), "--db", url]) == 2
    assert "holds no records" in capsys.readouterr().err
    assert main(["index", "add", str(bad), "--db", url]) == 2  # its first record is unreadable
    assert "record 1" in capsys.readouterr().err
    assert not db.exists() and not (tmp_path / "p.db.lock").exists()
    assert main(["index", "add", str(path), "--db", url, "--id-field", "id", "--quiet"]) == 0
    assert json.loads(capsys.readouterr().err.splitlines()[-1])["inserted"] == 4


@pytest.mark.parametrize(
    "command,option,fix",
    [
        (["index", "add"], ["--option", "text_threshold=0.9"], "--option match=text"),
        (["index", "add", "--method", "simhash"], ["--option", "min_similarity=0.9"],
         "--option verify=jaccard"),
        (["index", "query", "--method", "simhash"], ["--option", "idf=jieba"],
         "--option weights=tfidf"),
        (["serve", "--method", "paragraph"], ["--max-distance", "5"], "--option evidence=topic"),
    ],
)  # fmt: skip
def test_an_option_the_method_would_ignore_is_refused_as_dedup_refuses_it(
    tmp_path, capsys, command, option, fix
):
    """serve and index took options that do nothing (the store then recorded them, and every
    later command had to repeat them); dedup refused them. The fix is said with --option,
    the only way these commands set it."""
    path = tmp_path / "in.jsonl"
    write(path, TEXTS[:4])
    db = tmp_path / "p.db"
    inputs = [str(path), "--id-field", "id"] if command[0] == "index" else []
    args = [command[0], *command[1:2], *inputs, *command[2:], "--db", f"sqlite:///{db}"]
    assert main([*args, *option]) == 2
    err = capsys.readouterr().err
    assert f"acts only with {fix}" in err and "Traceback" not in err
    if "--method" in command:
        assert not db.exists()  # refused before a store exists


def test_a_store_that_records_an_option_the_method_ignores_still_opens(tmp_path, capsys):
    """Stores built before the refusal hold such an option: given again, with the value they
    hold, it is taken (refused, and refused when left out as a settings difference, the store
    could not be opened at all); another value is refused."""
    from neardup.online import Detector
    from neardup.store import open_store

    db = tmp_path / "s.db"
    det = Detector(store=open_store(f"sqlite:///{db}"), method="simhash",
                   options={"min_similarity": 0.9})  # fmt: skip
    det.add("a", TEXTS[0])
    det.close()
    path = tmp_path / "in.jsonl"
    write(path, TEXTS[1:3])
    args = ["index", "add", str(path), "--id-field", "id", "--db", f"sqlite:///{db}", "--quiet"]
    assert main([*args, "--method", "simhash", "--option", "min_similarity=0.9"]) == 0
    assert main([*args, "--option", "min_similarity=0.8"]) == 2
    assert "acts only with --option verify=jaccard" in capsys.readouterr().err


def test_remove_decides_a_kept_documents_duplicates_again(tmp_path, capsys):
    path = tmp_path / "in.jsonl"
    rows = [{"id": "a", "text": TEXTS[0]}, {"id": "b", "text": TEXTS[0]}]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
    url = f"sqlite:///{tmp_path}/ix.db"
    assert main(["index", "add", str(path), "--db", url, "--id-field", "id", "--quiet"]) == 0
    assert main(["index", "remove", "a", "--db", url]) == 0
    from neardup.store import open_store

    store = open_store(url, read_only=True)
    assert store.get("b").duplicate_of is None  # kept now: no duplicate names a gone document
    store.close()


def test_a_damaged_store_is_an_error_naming_what_is_unreadable(tmp_path, capsys):
    """A document's payload or the store's parameters that are not JSON (a damaged file):
    exit 2 naming it, not a traceback."""
    import sqlite3

    path = tmp_path / "in.jsonl"
    write(path, TEXTS[:6])
    db = tmp_path / "ix.db"
    url = f"sqlite:///{db}"
    assert main(["index", "add", str(path), "--db", url, "--id-field", "id", "--quiet"]) == 0
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE neardup_documents SET payload = '{bad' WHERE id = 'doc2'")
    query = tmp_path / "q.jsonl"
    query.write_bytes(orjson.dumps({"id": "new", "text": TEXTS[1]}) + b"\n")
    capsys.readouterr()
    assert main(["index", "query", str(query), "--db", url, "--id-field", "id"]) == 2
    assert "document 'doc2' is unreadable" in capsys.readouterr().err
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE neardup_meta SET value = '{bad' WHERE key = 'params'")
    assert main(["index", "stats", "--db", url]) == 2
    assert "parameters is unreadable" in capsys.readouterr().err


def test_a_rerun_resumes_only_in_the_file_it_indexed_or_one_grown_at_its_end(tmp_path, capsys):
    """The checkpoint is kept per path; another file at that path (the next day's export) was
    skipped up to the old record number, silently. It is read from the start now."""
    path = tmp_path / "feed.jsonl"
    url = f"sqlite:///{tmp_path / 'ix.db'}"
    add = ["index", "add", str(path), "--db", url, "--id-field", "id", "--quiet"]
    write(path, TEXTS[:3])
    assert main(add) == 0
    capsys.readouterr()
    with open(path, "ab") as grown:  # appended to: resumes after the records it indexed
        grown.write(orjson.dumps({"id": "late", "text": TEXTS[4]}) + b"\n")
    assert main(add) == 0
    counts = json.loads(capsys.readouterr().err.splitlines()[-1])
    assert counts["already_done"] == 3 and counts["inserted"] == 1
    other = [{"id": f"new{i}", "text": t} for i, t in enumerate(TEXTS[5:9])]
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in other))  # another file
    assert main(add) == 0
    err = capsys.readouterr().err
    assert "is not the file indexed before" in err
    counts = json.loads(err.splitlines()[-1])
    assert counts["already_done"] == 0 and counts["inserted"] + counts["duplicate_not_stored"] == 4


def test_a_rerun_sees_a_record_changed_past_the_first_64_kilobytes(tmp_path, capsys):
    """Only the input's first 64 kB identified it: a record rewritten past them (a new id and
    text at record 500 of 1,000) was counted already done and never stored (audit)."""
    path = tmp_path / "feed.jsonl"
    url = f"sqlite:///{tmp_path / 'ix.db'}"
    add = ["index", "add", str(path), "--db", url, "--id-field", "id", "--quiet"]
    records = [
        {"id": f"doc{i}", "text": f"第{i}条：" + "各地抓好落实确保经济运行平稳" * 8}
        for i in range(1000)
    ]
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    assert main(add) == 0
    capsys.readouterr()
    assert path.stat().st_size > 2 * (1 << 16)
    records[500] = {"id": "NEW-ID-500", "text": "完全不同的一条消息，讲的是体育比赛和天气预报。"}
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    assert main(add) == 0
    err = capsys.readouterr().err
    assert "is not the file indexed before" in err
    counts = json.loads(err.splitlines()[-1])
    assert counts["already_done"] == 0 and counts["inserted"] == 1  # NEW-ID-500, the rest stored


def test_an_id_stored_with_another_text_is_named_skipped_or_replaced(tmp_path, capsys):
    """A record whose id the store holds with another text failed its whole batch with a
    message naming neither file nor record, even with --on-error skip; now it is an error
    naming the record, a counted skip of that record alone, or replaced (--replace)."""
    url = f"sqlite:///{tmp_path / 'ix.db'}"
    first, later = tmp_path / "first.jsonl", tmp_path / "later.jsonl"
    write(first, TEXTS[:2])
    rows = [{"id": "new1", "text": TEXTS[5]}, {"id": "doc1", "text": TEXTS[6]}]
    rows.append({"id": "new2", "text": TEXTS[8]})
    later.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    assert main(["index", "add", str(first), "--db", url, "--id-field", "id", "--quiet"]) == 0
    capsys.readouterr()
    add = ["index", "add", str(later), "--db", url, "--id-field", "id", "--quiet"]
    assert main(add) == 2
    err = capsys.readouterr().err
    assert "later.jsonl, record 2" in err and "doc1" in err and "--replace" in err
    assert "--on-error skip to leave it" in err
    assert main([*add, "--on-error", "skip"]) == 0
    err = capsys.readouterr().err
    assert "skipped" in err and "record 2" in err
    # not the advice to give --on-error skip, which this run was given
    assert "it is left as stored (give --replace" in err and "--on-error skip" not in err
    counts = json.loads(err.splitlines()[-1])
    assert counts["skipped_by_reason"] == {"id_conflict": 1}
    assert counts["inserted"] + counts["duplicate_not_stored"] == 2
    later.write_bytes(orjson.dumps(rows[1]) + b"\n")  # another file: read from the start
    assert main([*add, "--replace"]) == 0
    assert json.loads(capsys.readouterr().err.splitlines()[-1])["replaced"] == 1


def test_query_offers_no_option_that_only_writing_reads(tmp_path, capsys):
    """``index query`` (read-only) offered --store-duplicates, which did nothing, and called
    --batch-size "records per transaction"."""
    url = f"sqlite:///{tmp_path / 'ix.db'}"
    data = tmp_path / "d.jsonl"
    write(data, TEXTS[:3])
    assert main(["index", "add", str(data), "--db", url, "--id-field", "id", "--quiet"]) == 0
    query = ["index", "query", str(data), "--db", url, "--id-field", "id"]
    with pytest.raises(SystemExit):
        main([*query, "--no-store-duplicates"])
    assert "unrecognized arguments: --no-store-duplicates" in capsys.readouterr().err
    assert main([*query, "--batch-size", "0"]) == 2
    assert "--batch-size 0 must be at least 1" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["index", "query", "--help"])
    assert "records checked at a time" in capsys.readouterr().out


def test_a_second_input_without_id_field_is_told_to_name_its_documents(tmp_path, capsys):
    """Without --id-field a document's id is its record number, so a second file's record 1
    meets the first file's: the error said "give --replace", which would overwrite the first
    file's document. It now says why the ids meet and names --id-field; nothing is replaced."""
    url = f"sqlite:///{tmp_path / 'ix.db'}"
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    write(first, TEXTS[:2])
    write(second, TEXTS[7:8])
    assert main(["index", "add", str(first), "--db", url, "--quiet"]) == 0
    capsys.readouterr()
    assert main(["index", "add", str(second), "--db", url, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "second.jsonl, record 1" in err and "record number" in err and "--id-field" in err
    again = tmp_path / "again.jsonl"  # the first file's texts, read from the start
    again.write_bytes(first.read_bytes())
    assert main(["index", "add", str(again), "--db", url, "--quiet"]) == 0
    assert json.loads(capsys.readouterr().err.splitlines()[-1])["unchanged"] == 2  # untouched
    # with ids of their own, the same conflict is told without the record-number reason
    url = f"sqlite:///{tmp_path / 'named.db'}"
    assert main(["index", "add", str(first), "--db", url, "--id-field", "id", "--quiet"]) == 0
    capsys.readouterr()
    rows = [{"id": "doc0", "text": TEXTS[9]}]
    second.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    assert main(["index", "add", str(second), "--db", url, "--id-field", "id", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "doc0" in err and "--replace" in err and "record number" not in err


def test_a_storage_failure_names_the_store_and_what_was_committed(tmp_path, capsys, monkeypatch):
    """Storage full half way: the error names the store and how many documents are safe."""
    from neardup.errors import StoreFullError
    from neardup.online import Detector

    path = tmp_path / "in.jsonl"
    write(path, TEXTS[:6])
    url = f"sqlite:///{tmp_path / 'ix.db'}"
    real, calls = Detector.add_many, []

    def full_after_one(self, *args, **kwargs):
        calls.append(1)
        if len(calls) > 1:
            raise StoreFullError("storage full: database or disk is full")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Detector, "add_many", full_after_one)
    args = ["index", "add", str(path), "--db", url, "--id-field", "id", "--batch-size", "2"]
    assert main([*args, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert url in err and "storage full" in err and "2 documents were committed" in err
    monkeypatch.setattr(Detector, "add_many", real)
    assert main([*args, "--quiet"]) == 0  # the rerun resumes after them
    counts = json.loads(capsys.readouterr().err.splitlines()[-1])
    assert counts["already_done"] == 2 and counts["documents_in_store"] >= 4


def test_a_pipe_is_read_once_and_whole(tmp_path, capsys):
    """A named pipe (or ``<(cmd)``) as the input: its start was read a second time to identify
    it for resuming, and those bytes were lost to the reader (records dropped, exit 0)."""
    import os
    import threading

    rows = [{"id": f"r{i}", "text": f"{TEXTS[i % 40]}（第{i}号）"} for i in range(1500)]
    data = b"".join(orjson.dumps(r) + b"\n" for r in rows)
    fifo = tmp_path / "feed"
    os.mkfifo(fifo)

    def feed():
        with open(fifo, "wb") as pipe:
            pipe.write(data)

    writer = threading.Thread(target=feed)
    writer.start()
    url = f"sqlite:///{tmp_path / 'ix.db'}"
    args = ["index", "add", str(fifo), "--format", "jsonl", "--db", url, "--id-field", "id"]
    assert main([*args, "--method", "simhash", "--quiet"]) == 0
    writer.join()
    counts = json.loads(capsys.readouterr().err.splitlines()[-1])
    assert sum(counts[k] for k in ("inserted", "duplicate_not_stored")) == 1500


def test_adding_without_a_common_gram_table_warns_what_it_costs(tmp_path, capsys):
    """``index add`` of the default method without ``--tables`` warns that no text counts as
    common (templated documents all compared with each other, decisions unlike ``dedup``'s);
    with the table a batch run fitted it does not, and a simhash store never does."""
    path = tmp_path / "in.jsonl"
    write(path, TEXTS)
    add = ["index", "add", str(path), "--id-field", "id", "--quiet"]
    assert main([*add, "--db", f"sqlite:///{tmp_path}/a.db"]) == 0
    assert "warning: no common-gram table (--tables)" in capsys.readouterr().err
    assert main(["dedup", str(path), "--id-field", "id", "-o", str(tmp_path / "o"), "--quiet"]) == 0
    tables = ["--tables", str(tmp_path / "o" / "common_grams.npz")]
    assert main([*add, "--db", f"sqlite:///{tmp_path}/b.db", *tables]) == 0
    assert "warning" not in capsys.readouterr().err
    assert main([*add, "--db", f"sqlite:///{tmp_path}/c.db", "--method", "simhash"]) == 0
    assert "warning" not in capsys.readouterr().err


def test_adding_paragraphs_without_a_common_gram_table_warns_as_auto_does(tmp_path, capsys):
    """The ``paragraph`` method's copy evidence fits a common-gram table too (boilerplate
    paragraphs carry no evidence), so online decisions equal the batch's only with ``--tables``:
    ``index add --method paragraph`` without one said nothing (two digests of 460 CCTV stories
    got other representatives than `dedup` gave). It warns now, naming the method to fit the
    table with; not with the table, nor for ``evidence=topic`` (which takes none)."""
    path = tmp_path / "in.jsonl"
    write(path, TEXTS)
    add = ["index", "add", str(path), "--id-field", "id", "--quiet", "--method", "paragraph"]
    assert main([*add, "--db", f"sqlite:///{tmp_path}/a.db"]) == 0
    err = capsys.readouterr().err
    assert "warning: no common-gram table (--tables)" in err and "--method paragraph" in err
    out = str(tmp_path / "o")
    assert main(["dedup", str(path), "--id-field", "id", "-o", out, "--method", "paragraph"]) == 0
    capsys.readouterr()
    tables = ["--tables", str(tmp_path / "o" / "common_grams.npz")]
    assert main([*add, "--db", f"sqlite:///{tmp_path}/b.db", *tables]) == 0
    assert "warning" not in capsys.readouterr().err
    topic = ["--option", "evidence=topic"]
    assert main([*add, "--db", f"sqlite:///{tmp_path}/c.db", *topic]) == 0
    assert "warning" not in capsys.readouterr().err


def _summary(capsys) -> dict:
    return json.loads(capsys.readouterr().err.splitlines()[-1])


def test_several_inputs_are_added_in_order_as_one_file_would_be(tmp_path, capsys):
    """Oracle: the inputs joined into one file. Added as a file, a directory and a pattern in
    one command, the same documents are inserted and found duplicates; each input resumes on
    its own."""
    (tmp_path / "shard").mkdir()
    parts = [tmp_path / "a.jsonl", tmp_path / "shard" / "b.jsonl", tmp_path / "c-1.jsonl"]
    for k, path in enumerate(parts):
        rows = [{"id": f"{k}-{i}", "text": t} for i, t in enumerate(TEXTS[k * 13 : k * 13 + 16])]
        path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))  # copies across inputs
    joined = tmp_path / "joined.jsonl"
    joined.write_bytes(b"".join(p.read_bytes() for p in parts))
    one = ["--db", f"sqlite:///{tmp_path}/one.db", "--id-field", "id", "--quiet"]
    assert main(["index", "add", str(joined), *one]) == 0
    want = _summary(capsys)
    many = ["--db", f"sqlite:///{tmp_path}/many.db", "--id-field", "id", "--quiet"]
    args = [str(parts[0]), str(tmp_path / "shard"), str(tmp_path / "c-*.jsonl")]
    assert main(["index", "add", *args, *many]) == 0
    got = _summary(capsys)
    for field in ("inserted", "duplicates", "duplicate_not_stored", "documents_in_store"):
        assert got[field] == want[field], field
    assert want["duplicates"] > 0
    assert main(["index", "add", *args, *many]) == 0  # a rerun: every input resumes at its end
    again = _summary(capsys)
    records = sum(len(p.read_bytes().splitlines()) for p in parts)
    assert again["already_done"] == records and again["inserted"] == 0


def test_several_inputs_need_ids_of_their_own(tmp_path, capsys):
    """Without --id-field ids are record numbers, which every input repeats; a label naming
    the input would depend on the other inputs of the command line, so a stored id would not
    name one document from one run to the next. Refused before a store is created, as is
    standard input, which a rerun could not resume in."""
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl"
    write(first, TEXTS[:2])
    write(second, TEXTS[7:9])
    db = tmp_path / "ix.db"
    assert main(["index", "add", str(first), str(second), "--db", f"sqlite:///{db}"]) == 2
    assert "2 inputs need --id-field" in capsys.readouterr().err
    assert main(["index", "add", "-", "--db", f"sqlite:///{db}", "--id-field", "id"]) == 2
    assert "a rerun could not resume in it" in capsys.readouterr().err
    assert not db.exists()


def test_a_missing_input_among_several_is_an_error_before_a_store_exists(tmp_path, capsys):
    good = tmp_path / "good.jsonl"
    write(good, TEXTS[:3])
    db = tmp_path / "ix.db"
    code = main(
        ["index", "add", str(good), str(tmp_path / "nope.jsonl"), "--db", f"sqlite:///{db}"]
    )
    assert code == 2 and "nope.jsonl" in capsys.readouterr().err
    assert not db.exists()


def test_several_query_inputs_answer_as_each_alone(tmp_path, capsys):
    """Oracle: each input queried alone. Queried together, the rows come in input order, the
    same for each record, each naming its input."""
    db = f"sqlite:///{tmp_path}/ix.db"
    stored = tmp_path / "stored.jsonl"
    write(stored, TEXTS[:20])
    assert main(["index", "add", str(stored), "--db", db, "--id-field", "id", "--quiet"]) == 0
    (tmp_path / "q").mkdir()
    parts = [tmp_path / "q" / "a.jsonl", tmp_path / "q" / "b.jsonl"]
    for k, path in enumerate(parts):
        rows = [
            {"id": f"q{k}-{i}", "text": t + "！"} for i, t in enumerate(TEXTS[k * 15 : k * 15 + 10])
        ]
        path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in rows))
    capsys.readouterr()
    want = []
    for path in parts:
        assert main(["index", "query", str(path), "--db", db, "--id-field", "id"]) == 0
        want += [
            {"input": path.name, **json.loads(x)} for x in capsys.readouterr().out.splitlines()
        ]
    assert main(["index", "query", str(tmp_path / "q"), "--db", db, "--id-field", "id"]) == 0
    got = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert got == want and any(row["duplicate"] for row in got)
    assert any(not row["duplicate"] for row in got)


def test_adding_to_a_store_in_memory_warns_that_nothing_outlives_the_command(tmp_path, capsys):
    """``index add --db memory://`` reported its inserts as stored and then lost them all when
    it ended, without a word: it warns now, and a file store does not."""
    path = tmp_path / "in.jsonl"
    path.write_text(
        "".join(
            json.dumps({"id": f"d{i}", "text": f"第{i}条新闻的正文内容"}) + "\n" for i in range(3)
        )
    )
    warning = "keeps the store in this process only"
    assert main(["index", "add", str(path), "--db", "memory://", "--id-field", "id"]) == 0
    assert warning in capsys.readouterr().err
    assert main(["index", "add", str(path), "--db", "sqlite:///:memory:", "--id-field", "id"]) == 0
    assert warning in capsys.readouterr().err  # SQLite's own memory database alike
    db = f"sqlite:///{tmp_path}/s.db"
    assert main(["index", "add", str(path), "--db", db, "--id-field", "id"]) == 0
    assert warning not in capsys.readouterr().err


def test_a_store_weighed_by_an_idf_file_is_refused_once_the_file_changed(tmp_path, capsys):
    """The store kept the IDF file's path, not its contents: after the file was edited it
    reopened, and five exact copies got other fingerprints and were stored as new (audit)."""
    idf = tmp_path / "idf.txt"
    idf.write_text("新闻 5.0\n经济 3.0\n天气 4.0\n", encoding="utf-8")
    path = tmp_path / "in.jsonl"
    write(path, TEXTS[:5])
    url = f"sqlite:///{tmp_path / 'ix.db'}"
    options = ["--method", "simhash", "--option", "weights=tfidf", "--option", f"idf={idf}",
               "--option", "features=word"]  # fmt: skip
    assert main(["index", "add", str(path), "--db", url, "--quiet", *options]) == 0
    capsys.readouterr()
    idf.write_text("新闻 1.0\n经济 9.0\n天气 4.0\n", encoding="utf-8")
    from neardup.idf import load_idf

    load_idf.cache_clear()  # a new process reads the file again
    write(path, TEXTS[:5])
    assert main(["index", "add", str(path), "--db", url, "--quiet", *options]) == 2
    assert "idf_digest" in capsys.readouterr().err


def test_an_input_whose_name_is_not_utf8_is_added_and_resumed(tmp_path, capsys):
    """Its checkpoint is named with the bytes escaped (a store holds UTF-8 text)."""
    import os
    import sqlite3

    path = tmp_path / os.fsdecode(b"bad\xffname.jsonl")
    write(path, TEXTS[:10])
    db = tmp_path / "ix.db"
    base = ["index", "add", str(path), "--db", f"sqlite:///{db}", "--id-field", "id", "--quiet"]
    assert main([*base, "--limit", "4"]) == 0
    assert json.loads(capsys.readouterr().err.strip().splitlines()[-1])["inserted"] == 4
    assert main(base) == 0
    again = json.loads(capsys.readouterr().err.strip().splitlines()[-1])
    assert again["already_done"] == 4 and again["documents_in_store"] == 10
    with sqlite3.connect(db) as conn:
        (name,) = conn.execute("SELECT name FROM neardup_checkpoints").fetchone()
    assert name == f"index-add:{path.resolve().parent}/bad\\xffname.jsonl"


@pytest.mark.parametrize(
    ("command", "given", "said"),
    [
        (["index", "add"], ["--keep", "container"], "keeps the earlier document"),
        (["index", "query"], ["--keep=longest"], "keeps the earlier document"),
        (["serve"], ["--keep", "container"], "keeps the earlier document"),
        (["index", "add"], ["--partial"], "decides duplicates only"),
        (["serve"], ["--clusters", "components"], "greedy rule"),
    ],
)
def test_batch_only_options_are_refused_online_with_the_reason(
    tmp_path, capsys, command, given, said
):
    """``index``/``serve`` with ``--keep container`` (or longest, ``--partial``,
    ``--clusters``) said only "unrecognized arguments": the online rule is keep-first, the one a
    batch replays, and the others are choices of a batch run. Refused before a store exists."""
    data = tmp_path / "d.jsonl"
    write(data, TEXTS[:3])
    db = tmp_path / "ix.db"
    inputs = [] if command == ["serve"] else [str(data)]
    code = main([*command, *inputs, "--db", f"sqlite:///{db}", "--method", "paragraph", *given])
    err = capsys.readouterr().err
    assert code == 2 and not db.exists()
    flag = given[0].split("=")[0]
    assert f"{flag} is an option of `neardup dedup`" in err and said in err, err
    assert "unrecognized" not in err and "Traceback" not in err
