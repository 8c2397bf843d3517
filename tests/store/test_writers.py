"""Who may write a store, and what a failed write leaves behind.

SQLite: one writing process per file (a second is refused), readers never create or write.
PostgreSQL: several detectors (each its own connection, as separate processes have) stay
correct: every decision sees what the others committed before it.
"""

import sqlite3
import subprocess
import sys

import pytest

from neardup.errors import ConfigError, InputError, StoreBusyError, StoreError
from neardup.online import Detector, DocumentConflictError
from neardup.store import open_store

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
