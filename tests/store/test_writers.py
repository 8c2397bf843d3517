"""Who may write a store, and what a failed write leaves behind.

SQLite: one writing process per file (a second is refused), readers never create or write.
PostgreSQL: several detectors (each its own connection, as separate processes have) stay
correct: every decision sees what the others committed before it.
"""

import json
import random
import sqlite3
import string
import subprocess
import sys
import threading
import time

import orjson
import pytest

from neardup.cli import main
from neardup.errors import ConfigError, InputError, StoreBusyError, StoreError
from neardup.online import MAX_ID_LENGTH, Detector, DocumentConflictError
from neardup.store import StoredDocument, open_store

STORY = (
    "国务院总理主持召开国务院常务会议，部署进一步稳外贸稳外资的措施，要求各地区各部门抓好落实，"
    "确保经济运行在合理区间，为全年经济社会发展目标任务的完成提供有力支撑。"
)
OTHER = (
    "气象台发布暴雨蓝色预警，预计今天夜间到明天白天，江南华南等地部分地区有大到暴雨，局地大暴雨，"
    "请注意防范强降雨可能引发的山洪地质灾害和城乡积涝。"
)


class FailOnce:
    """Wraps a store: the next put_many fails after the rows reached the database."""

    def __init__(self, store):
        self.store, self.armed = store, False

    def __getattr__(self, name):
        return getattr(self.store, name)

    def put_many(self, docs, *, replacing=(), checkpoint=None):
        self.store.put_many(docs, replacing=replacing, checkpoint=checkpoint)
        if self.armed:
            self.armed = False
            raise StoreError("injected failure before the commit")


def test_repeated_id_in_a_batch_is_refused_before_anything_changes(store_url):
    det = Detector(store=open_store(store_url))
    det.add_many([("X", STORY), ("Y", OTHER)])
    with pytest.raises(InputError, match="'X' appears twice"):
        det.add_many([("X", "a"), ("X", "b"), ("Y", "c")], replace=True)
    assert det.check(OTHER).matches[0].id == "Y"
    assert len(det) == 2 and det.store.count() == 2
    with pytest.raises(DocumentConflictError):
        det.add("Y", "other text")
    det.close()


def test_a_failed_replace_batch_leaves_index_and_store_as_before(store_url):
    store = FailOnce(open_store(store_url))
    det = Detector(store=store)
    det.add_many([("X", STORY), ("Y", OTHER)])
    store.armed = True
    with pytest.raises(StoreError):
        det.add_many(
            [("X", "完全不同的一段新文字内容，用来替换原来的文档。"), ("Y", "c" * 40)], replace=True
        )
    # the store rolled back; the detector answers as the store holds it
    assert store.get("Y").text_hash == det._hashes["Y"]
    assert det.check(OTHER).matches[0].id == "Y" and det.check(STORY).matches[0].id == "X"
    with pytest.raises(DocumentConflictError):
        det.add("Y", "other text")
    assert det.add("Y", OTHER).status == "unchanged"
    det.close()


def test_second_sqlite_writer_is_refused_readers_are_not(tmp_path):
    url = f"sqlite:///{tmp_path}/one.db"
    first = Detector(store=open_store(url))
    first.add("a", STORY)
    with pytest.raises(StoreBusyError, match=r"open for writing by pid \d+"):
        open_store(url)
    reader = open_store(url, read_only=True)  # no lock, sees the committed rows
    assert reader.count() == 1
    reader.close()
    first.close()
    second = open_store(url)  # the lock went with the first writer
    second.close()


def test_a_symbolic_link_to_the_file_is_the_same_store_for_the_lock(tmp_path):
    """A link names the file it points to: a second writer through it is refused too."""
    first = open_store(f"sqlite:///{tmp_path}/real.db")
    (tmp_path / "link.db").symlink_to(tmp_path / "real.db")
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "up.db").symlink_to("../real.db")
    for other in ("link.db", "dir/up.db"):
        with pytest.raises(StoreBusyError, match=r"open for writing by pid \d+"):
            open_store(f"sqlite:///{tmp_path}/{other}")
    first.close()
    open_store(f"sqlite:///{tmp_path}/link.db").close()


def test_a_hard_link_to_the_file_is_the_same_store_for_the_lock(tmp_path):
    """A hard link is another path to the same file, in any folder: a second writer through it
    was given its own lock beside the link, and wrote beside the first."""
    first = open_store(f"sqlite:///{tmp_path}/real.db")
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "hard.db").hardlink_to(tmp_path / "real.db")
    with pytest.raises(StoreBusyError, match=r"open for writing by pid \d+"):
        open_store(f"sqlite:///{tmp_path}/dir/hard.db")
    first.close()
    open_store(f"sqlite:///{tmp_path}/dir/hard.db").close()


def test_a_hard_link_is_refused_also_under_another_temporary_folder(tmp_path, monkeypatch):
    """The lock every hard link shares was a file in the temporary folder: two processes with
    different ones (``PrivateTmp``, another ``$TMPDIR``) both wrote through two links, each in
    its own write-ahead log, and the store ended corrupt (a helper's run). The file itself is
    locked too now."""
    import tempfile

    for name in ("tmp_a", "tmp_b"):
        (tmp_path / name).mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp_a"))
    first = Detector(store=open_store(f"sqlite:///{tmp_path}/real.db"))
    first.add("a", STORY)
    (tmp_path / "dir").mkdir()
    (tmp_path / "dir" / "hard.db").hardlink_to(tmp_path / "real.db")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp_b"))
    with pytest.raises(StoreBusyError, match="through another path to the same file"):
        open_store(f"sqlite:///{tmp_path}/dir/hard.db")
    first.close()  # its log applied to the file: what a link opens next holds "a"
    second = Detector(store=open_store(f"sqlite:///{tmp_path}/dir/hard.db"))  # the lock went
    assert second.add("b", OTHER).status == "inserted" and len(second) == 2
    second.close()


def test_second_writing_process_is_refused_and_the_lock_dies_with_kill_9(tmp_path):
    url = f"sqlite:///{tmp_path}/p.db"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from neardup.store import open_store; open_store(sys.argv[1]); "
            "print('ready', flush=True); time.sleep(60)",
            url,
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "ready"
        src = tmp_path / "in.jsonl"
        src.write_text('{"text": "一段文字"}\n', encoding="utf-8")
        cmd = [sys.executable, "-m", "neardup", "index", "add", str(src), "--db", url, "--quiet"]
        refused = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        assert refused.returncode == 2, refused.stderr
        assert f"pid {holder.pid}" in refused.stderr and "Traceback" not in refused.stderr
        holder.kill()
        holder.wait(timeout=10)
        again = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
        assert again.returncode == 0, again.stderr
    finally:
        holder.kill()
        holder.wait(timeout=10)


def test_read_only_open_never_creates_or_writes(tmp_path):
    missing = tmp_path / "typo.db"
    with pytest.raises(ConfigError, match="no store at"):
        open_store(f"sqlite:///{missing}", read_only=True)
    assert not missing.exists()
    foreign = tmp_path / "foreign.db"
    with sqlite3.connect(foreign) as conn:
        conn.execute("CREATE TABLE people (name TEXT)")
    before = foreign.read_bytes()
    with pytest.raises(StoreError, match="is not a neardup store"):
        open_store(f"sqlite:///{foreign}", read_only=True)
    assert foreign.read_bytes() == before
    with sqlite3.connect(foreign) as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    assert tables == {"people"}


@pytest.mark.postgres
def test_postgres_detectors_see_each_others_commits(pg_schema_url):
    one = Detector(store=open_store(pg_schema_url))
    two = Detector(store=open_store(pg_schema_url))
    assert one.add("a", STORY).status == "inserted"
    r = two.add("b", STORY)  # two never loaded "a": it catches up before deciding
    assert r.duplicate and r.matches[0].id == "a"
    assert two.check(STORY).matches[0].id == "a"
    with pytest.raises(DocumentConflictError):
        two.add("a", OTHER)  # the id is taken in the other process
    assert one.remove("a")
    # the deletion reached two, and so did "b", its duplicate, kept now in "a"'s place
    assert [m.id for m in two.check(STORY).matches] == ["b"]
    assert two.get("b").duplicate_of is None
    assert two.add("a", OTHER).status == "inserted"
    assert one.check(OTHER).matches[0].id == "a" and len(one) == len(two) == 2
    one.close()
    two.close()


OPEN_AT_ONCE = """
import sys, time
from neardup.online import Detector
from neardup.store import open_store
start = float(sys.argv[2])
while time.time() < start:
    pass
detector = Detector(store=open_store(sys.argv[1]))
detector.add(sys.argv[3], "一篇新闻报道的正文，" + sys.argv[3])
detector.close()
"""


@pytest.mark.postgres
def test_processes_that_open_a_new_database_at_once_all_start(pg_schema_url):
    """Two service replicas started together on a new database: concurrent ``CREATE TABLE IF
    NOT EXISTS`` (and the first parameters stored twice) failed one of them with a raw
    duplicate-key error (3-4 of 6 such opens in a helper's runs)."""
    import time

    start = time.time() + 3  # every child imported and waiting
    children = [
        subprocess.Popen(
            [sys.executable, "-c", OPEN_AT_ONCE, pg_schema_url, str(start), f"doc{k}"],
            stderr=subprocess.PIPE,
        )
        for k in range(6)
    ]
    errors = [c.communicate(timeout=120)[1].decode() for c in children]
    assert [c.returncode for c in children] == [0] * 6, errors
    store = open_store(pg_schema_url, read_only=True)
    assert sorted(store.snapshot().ids) == [f"doc{k}" for k in range(6)]
    store.close()


@pytest.mark.postgres
def test_a_commit_between_two_reads_of_the_changes_is_not_skipped(pg_schema_url):
    """Another detector stores a document and deletes one while this one reads what changed
    (between its statements, under read committed). Before, the deletion moved this detector
    past the document, which it then took for new and overwrote with another text; now it
    sees the document, and a write of another text under its id is a conflict."""
    writer = Detector(store=open_store(pg_schema_url))
    writer.add("old", OTHER)
    reader = Detector(store=open_store(pg_schema_url))
    execute = reader.store._execute
    fired = []

    def interleaved(sql, *args):
        out = execute(sql, *args)
        if "FROM neardup_documents WHERE seq >" in sql and not fired:
            fired.append(sql)
            writer.add("n1", STORY)  # acknowledged
            writer.remove("old")
        return out

    reader.store._execute = interleaved
    reader.check(STORY[:30])  # catches up, reading the changes
    reader.store._execute = execute
    reader.check(STORY[:30])  # the next look finds what was committed during the last
    assert fired and "n1" in reader and "old" not in reader
    with pytest.raises(DocumentConflictError):
        reader.add("n1", OTHER + "另一段文字")
    assert writer.store.get("n1").text_hash == reader.store.get("n1").text_hash
    assert writer.check(STORY).duplicate


@pytest.mark.postgres
def test_an_id_stored_by_a_writer_unseen_is_a_conflict_not_an_overwrite(pg_schema_url):
    """Whatever a detector missed, the store never replaces a row it was not asked to."""
    writer = Detector(store=open_store(pg_schema_url))
    blind = Detector(store=open_store(pg_schema_url))
    writer.add("n1", STORY)
    blind._seq = 10**9  # as if it had read past the commit
    with pytest.raises(DocumentConflictError):
        blind.add("n1", OTHER)
    assert writer.check(STORY).duplicate and not writer.check(OTHER).duplicate


def test_a_store_is_never_written_into_another_applications_database(tmp_path):
    path = tmp_path / "app.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE orders (id INTEGER)")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    with pytest.raises(ConfigError, match=r"a database of something else \(tables: orders\)"):
        open_store(f"sqlite:///{path}")
    assert path.read_bytes() == before  # not a byte changed (journal mode included)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["app.db"]  # no lock file beside it
    open_store(f"sqlite:///{tmp_path}/new.db").close()  # a new file, or an empty one, is a store
    (tmp_path / "empty.db").touch()
    open_store(f"sqlite:///{tmp_path}/empty.db").close()


def test_a_file_that_is_not_a_database_is_refused_untouched(tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("hello, these are my notes\n")
    with pytest.raises(ConfigError, match=r"notes.txt is not an SQLite database"):
        open_store(f"sqlite:///{notes}")
    assert notes.read_text() == "hello, these are my notes\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]  # no lock file beside it


# an id far past PostgreSQL's 2,704-byte limit on a unique-index entry, even compressed
LONG_ID = "".join(random.Random(7).choices(string.ascii_letters, k=4000))
THIRD = "体育新闻：昨晚的足球联赛中，主队在补时阶段打进制胜一球，以二比一战胜来访的客队。"


def test_an_id_past_the_limit_is_refused_before_any_store_sees_it(store_url):
    """One limit for every caller and every store (the HTTP API's): an id no request could
    send again is not stored by the library either."""
    det = Detector(store=open_store(store_url))
    assert det.add("x" * MAX_ID_LENGTH, STORY).status == "inserted"
    with pytest.raises(InputError, match=rf"is {MAX_ID_LENGTH + 1} characters long; ids are at"):
        det.add("y" * (MAX_ID_LENGTH + 1), OTHER)
    with pytest.raises(InputError, match="ids are at most 512 characters"):
        det.add_many([("ok", OTHER), (LONG_ID, THIRD)])
    assert "ok" not in det and len(det) == det.store.count() == 1
    det.close()


def test_an_over_long_id_is_a_named_bad_record_of_index_add(store_url, tmp_path, capsys):
    """On PostgreSQL one such id failed its whole batch as "storage unavailable" (exit 2, no
    record named, --on-error skip ignored, every rerun failing at the same place); on SQLite
    it was stored under an id the HTTP API can never send."""
    path = tmp_path / "in.jsonl"
    rows = [("a", STORY), (LONG_ID, OTHER), ("c", THIRD)]
    path.write_bytes(b"".join(orjson.dumps({"id": i, "text": t}) + b"\n" for i, t in rows))
    base = ["index", "add", str(path), "--db", store_url, "--id-field", "id", "--quiet"]
    assert main(base) == 2
    err = capsys.readouterr().err
    assert "in.jsonl, record 2: id '" in err and "is 4000 characters long" in err
    assert "unavailable" not in err and LONG_ID not in err  # named, not printed whole
    assert main([*base, "--on-error", "skip"]) == 0
    err = capsys.readouterr().err
    assert "skipped " in err and "in.jsonl, record 2: id '" in err
    counts = json.loads(err.strip().splitlines()[-1])
    assert counts["skipped_by_reason"] == {"bad_id": 1} and counts["skipped"] == 1
    assert counts["inserted"] == 2 and counts["documents_in_store"] == 2


@pytest.mark.postgres
def test_data_the_database_refuses_is_an_error_not_busy(pg_schema_url):
    """psycopg files "index row size exceeds btree maximum" (a program limit) under
    OperationalError: it was reported as "storage unavailable", retry-later wording, though
    sending it again fails the same way."""
    store = open_store(pg_schema_url)
    with pytest.raises(StoreError, match="refused the data") as caught:
        store.put_many([StoredDocument(LONG_ID, 1, 1, 1)])
    assert not isinstance(caught.value, StoreBusyError)
    store.put_many([StoredDocument("ok", 1, 1, 1)])  # the connection goes on
    assert store.count() == 1
    store.close()


def _in_thread(call):
    """Start ``call`` in a thread; the thread, and a dict that gets its result or error and
    the seconds it took."""
    out = {}

    def run():
        start = time.monotonic()
        try:
            out["result"] = call()
        except Exception as exc:
            out["error"] = exc
        out["seconds"] = time.monotonic() - start

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, out


@pytest.mark.postgres
def test_a_store_in_another_schema_does_not_wait_for_this_ones_lock(
    pg_schema_url, pg_other_schema_url
):
    """Every store of a database shared one advisory-lock key: a long write on store A (a
    DELETE deciding thousands of duplicates again) held up every write of store B."""
    a = open_store(pg_schema_url)
    b = open_store(pg_other_schema_url)
    with a.writing():  # A's writer lock held, as by a long write
        thread, out = _in_thread(lambda: b.put_many([StoredDocument("b1", 1, 1, 1)]))
        thread.join(timeout=3)
        waited = thread.is_alive()
    thread.join()
    assert not waited and "error" not in out
    assert b.get("b1") is not None and a.count() == 0
    a.close()
    b.close()


@pytest.mark.postgres
def test_a_write_behind_a_held_lock_is_busy_within_the_timeout(pg_schema_url):
    """A write waited for a held writer lock without end (and /v1/check with it, behind the
    detector's lock): now it fails as busy (the service's 503 with Retry-After) after the
    store's lock timeout, and a check waits no longer than that."""
    holder = open_store(pg_schema_url)
    det = Detector(store=open_store(pg_schema_url))
    det.add("kept", OTHER)
    det.store.lock_timeout = 0.5
    with holder.writing():  # another process's write, holding the lock
        writing, wrote = _in_thread(lambda: det.add("a", STORY))
        time.sleep(0.2)  # the write is waiting, holding the detector's lock
        checking, checked = _in_thread(lambda: det.check(OTHER))
        writing.join(timeout=10)
        checking.join(timeout=10)
        waited = writing.is_alive() or checking.is_alive()
    writing.join()
    checking.join()
    assert not waited
    assert isinstance(wrote.get("error"), StoreBusyError), wrote
    assert "retry later" in str(wrote["error"]) and wrote["seconds"] < 5
    assert checked["result"].matches[0].id == "kept"
    assert "a" not in det and det.store.get("a") is None  # nothing of it committed
    assert det.add("a", STORY).status == "inserted"  # the lock is free again
    holder.close()
    det.close()
