"""SQLite store (the default): one file, WAL journal, durable commits, one writing process.

A process that opens the store for writing holds an exclusive lock on ``<file>.lock`` (of the
file's real path: a symbolic link to the store names the same lock) until it closes the store or
exits (also by ``kill -9``: the kernel drops the lock), and locks shared by every hard link
(:meth:`SqliteStore._lock_inode`). A second writing
process is refused with a message naming the holder; readers (``index stats``, ``index query``)
open the file read-only, never create it and take no lock. Several writers need PostgreSQL.
"""

from __future__ import annotations

import errno
import fcntl
import os
import sqlite3
import struct
import sys
from contextlib import suppress
from pathlib import Path
from stat import S_ISDIR

from ..errors import ConfigError, StoreBusyError, StoreError, StoreFullError
from .sql import TABLES, SqlStore

SYNCHRONOUS = ("full", "normal")
SQLITE_HEADER = b"SQLite format 3\x00"  # the first 16 bytes of every SQLite database file
BUSY_TIMEOUT_MS = 5000


class SqliteStore(SqlStore):
    """``sqlite:///path/to.db`` (``sqlite:////abs/path.db``; ``?synchronous=normal`` to trade
    power-loss durability for speed — a committed insert then survives a process crash, such as
    ``kill -9``, but not an operating-system crash). The default ``full`` survives both."""

    def __init__(self, url: str, path: str, *, synchronous: str = "full", read_only: bool = False):
        if synchronous not in SYNCHRONOUS:
            raise ConfigError(f"synchronous={synchronous!r}: choose 'full' or 'normal'")
        self._writer_locks: list[int] = []
        if read_only:
            conn = _open_read_only(url, path)
        else:
            if path != ":memory:":
                parent = Path(path).expanduser().resolve().parent
                if not parent.is_dir():
                    raise ConfigError(f"{url}: the folder {parent} does not exist")
                _refuse_foreign(url, path)  # before the lock and the journal mode touch it
                self._writer_locks.append(_lock_writer(url, f"{os.path.realpath(path)}.lock"))
                if os.path.exists(path):  # before SQLite opens it: a hard link's log is apart
                    self._lock_inode(url, path)
            conn = _open_writable(url, path, synchronous)
            if path != ":memory:" and len(self._writer_locks) == 1:  # a file created now
                try:
                    self._lock_inode(url, path)
                except BaseException:
                    conn.close()
                    raise
        try:
            super().__init__(url, conn, read_only=read_only)
        except BaseException:
            self.close()
            raise

    def _lock_inode(self, url: str, path: str) -> None:
        """The locks every hard link to the file shares: a lock file named by its inode
        (:func:`_inode_lock_path`, which names the holder), and a lock on the file itself
        (:func:`_lock_file_itself`, which holds whatever each process's temporary folder)."""
        try:
            inode = _inode_lock_path(path)
            if inode is not None:
                self._writer_locks.append(_lock_writer(url, inode))
            itself = _lock_file_itself(url, path)
            if itself is not None:
                self._writer_locks.append(itself)
        except BaseException:
            self.close()
            raise

    def _existing_tables(self) -> set[str]:
        rows = self._execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
        return {r[0] for r in rows}

    def _classify(self, exc: Exception) -> StoreError:
        text = str(exc).lower()
        if "full" in text:
            return StoreFullError(f"storage full: {exc}")
        if "locked" in text or "busy" in text:
            return StoreBusyError(f"storage busy: {exc}")
        return StoreError(f"storage error: {exc}")

    def close(self) -> None:
        conn = getattr(self, "_conn", None)
        if conn is not None:
            super().close()
        while self._writer_locks:
            os.close(self._writer_locks.pop())  # releases the flock


def _open_writable(url: str, path: str, synchronous: str) -> sqlite3.Connection:
    try:
        conn = sqlite3.connect(path, check_same_thread=False, isolation_level="DEFERRED")
        conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(f"PRAGMA synchronous={synchronous.upper()}")
        return conn
    except sqlite3.Error as exc:
        raise ConfigError(f"{url}: cannot open the SQLite database ({exc})") from None


def _refuse_foreign(url: str, path: str) -> None:
    """A file that is not an SQLite database, or a database that holds other tables and none of
    a store's, is someone else's file: a store is written to a new file (or an empty one), never
    into another application's — which is looked at read-only, before anything (a lock file
    beside it, the journal mode) changes it."""
    file = Path(path)
    if not file.is_file() or file.stat().st_size == 0:
        return
    with suppress(OSError), file.open("rb") as f:  # unreadable: opening it for writing says why
        if f.read(len(SQLITE_HEADER)) != SQLITE_HEADER:
            raise ConfigError(
                f"{url}: {path} is not an SQLite database (it holds other data); a store takes "
                "a file of its own: name a new file"
            )
    try:
        conn = _open_read_only(url, path)
    except ConfigError:
        return  # unreadable: opening it for writing says why
    try:
        rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    finally:
        conn.close()
    tables = sorted(r[0] for r in rows if not r[0].startswith("sqlite_"))
    if tables and not set(tables) & set(TABLES):
        shown = ", ".join(tables[:5]) + (", ..." if len(tables) > 5 else "")
        raise ConfigError(
            f"{url} is a database of something else (tables: {shown}), not a neardup store; "
            "a store takes a file of its own: name a new file"
        )


def _open_read_only(url: str, path: str) -> sqlite3.Connection:
    """Open without creating or writing anything; read-only media work (immutable fallback)."""
    file = Path(path).expanduser()
    if not file.is_file():
        raise ConfigError(f"{url}: no store at {file} (only index add and serve create one)")
    last: Exception | None = None
    for flags in ("mode=ro", "mode=ro&immutable=1"):
        if "immutable" in flags:
            _refuse_unapplied_log(url, file)
        conn = None
        try:
            conn = sqlite3.connect(
                f"{file.resolve().as_uri()}?{flags}", uri=True, check_same_thread=False
            )
            conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            conn.execute("SELECT name FROM sqlite_master LIMIT 1").fetchall()
            return conn
        except sqlite3.Error as exc:
            if conn is not None:  # the failed attempt's file stays open until collected
                conn.close()
            last = exc
    raise ConfigError(f"{url}: cannot open the SQLite database read-only ({last})")


def _refuse_unapplied_log(url: str, file: Path) -> None:
    """Opened as immutable (read-only media), SQLite ignores the write-ahead log: the writes
    in a non-empty ``-wal`` beside the file would be missing, silently, or read as damage."""
    log = file.with_name(file.name + "-wal")
    if log.is_file() and log.stat().st_size > 0:
        raise ConfigError(
            f"{url}: the store's latest writes are in {log}, which cannot be applied on "
            "read-only media; open the store where it can be written (any neardup command "
            f"applies the log), or apply it first: sqlite3 {file} 'PRAGMA wal_checkpoint'"
        )


def _inode_lock_path(path: str) -> str | None:
    """A lock file named by the store file's device and inode, which every hard link to it
    shares (the lock beside the file is named by one of its paths), in a folder of this user's
    own (``$TMPDIR/neardup-sqlite-locks-<uid>``, mode 0700: nobody else can plant a link
    there); None when that folder is unusable (the lock beside the file still holds)."""
    import tempfile

    st = os.stat(path)
    folder = Path(tempfile.gettempdir()) / f"neardup-sqlite-locks-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        mine = folder.lstat()
    except OSError:
        return None
    if not S_ISDIR(mine.st_mode) or mine.st_uid != os.getuid() or mine.st_mode & 0o077:
        return None  # a link, or a folder another user made or others may write in
    return str(folder / f"{st.st_dev}-{st.st_ino}.lock")


# A byte of the store file far past anything SQLite locks (its locks lie at 1 GiB): a writer
# holds a write lock on it, which no other open of the file — through any path — can take.
FILE_LOCK_OFFSET = 1 << 62


def _lock_file_itself(url: str, path: str) -> int | None:
    """An open-file-description lock (Linux ``F_OFD_SETLK``) on :data:`FILE_LOCK_OFFSET` of the
    store file: it follows the inode, so a hard link is refused also when the two processes'
    temporary folders differ (``PrivateTmp``, another ``$TMPDIR``), where the inode lock file
    of :func:`_inode_lock_path` is not one file; SQLite's own byte locks are elsewhere and
    unaffected. None where the system has no such lock (the lock files still hold)."""
    command = getattr(fcntl, "F_OFD_SETLK", None)
    if command is None:
        return None
    try:
        fd = os.open(path, os.O_RDWR | os.O_CLOEXEC)
    except OSError:
        return None  # SQLite's own open says what is wrong with the file
    request = struct.pack("hhqqi4x", fcntl.F_WRLCK, os.SEEK_SET, FILE_LOCK_OFFSET, 1, 0)
    try:
        fcntl.fcntl(fd, command, request)
    except OSError as exc:
        os.close(fd)
        if exc.errno in (errno.EAGAIN, errno.EACCES):
            raise StoreBusyError(
                f"{url} is open for writing by another process, through another path to the "
                "same file (a hard link); an SQLite store takes one writing process. Stop that "
                "process, read with `neardup index query`/`stats`, or use PostgreSQL "
                "(--db postgresql://...) for several writers"
            ) from None
        return None  # a file system without such locks: the lock files still hold
    return fd


def _lock_writer(url: str, lock_path: str) -> int:
    """An exclusive, non-blocking lock on ``lock_path`` (``<real path>.lock``: symbolic links
    resolved, so that a link to the file cannot open a second writer; and one per inode, for
    hard links); the holder's pid and command inside."""
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    except OSError as exc:
        raise ConfigError(
            f"{url}: cannot create the writer lock {lock_path} ({exc.strerror})"
        ) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        holder = os.pread(fd, 1000, 0).decode("utf-8", "replace").strip() or "another process"
        os.close(fd)
        raise StoreBusyError(
            f"{url} is open for writing by {holder}; an SQLite store takes one writing process. "
            "Stop that process, read with `neardup index query`/`stats`, or use PostgreSQL "
            "(--db postgresql://...) for several writers"
        ) from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"pid {os.getpid()} ({' '.join(sys.argv[:3])})".encode(), 0)
    return fd
