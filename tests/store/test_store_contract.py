"""One contract, every backend: memory, SQLite, and a real PostgreSQL server."""

import threading

import numpy as np
import pytest

from neardup.errors import ConfigError, DocumentConflictError, IncompatibleIndexError
from neardup.store import StoredDocument, open_store, to_signed, to_unsigned


def doc(i, fp=None, text_hash=None, payload=None):
    return StoredDocument(
        f"d{i}", fp if fp is not None else i * 7919, i, text_hash or i, None, 1000.0 + i, payload
    )


def test_put_get_delete_snapshot(store_url):
    s = open_store(store_url)
    s.check_meta("v1", {"k": 3})
    big = (1 << 64) - 1
    s.put_many([doc(1, fp=big, text_hash=1 << 63, payload={"text": "中文"}), doc(2), doc(3)])
    got = s.get("d1")
    assert got.fingerprint == big and got.text_hash == 1 << 63 and got.payload == {"text": "中文"}
    assert s.get("nope") is None and s.count() == 3
    snap = s.snapshot()
    assert snap.ids == ["d1", "d2", "d3"]
    assert snap.fingerprints.dtype == np.uint64 and int(snap.fingerprints[0]) == big
    assert s.delete("d2") and not s.delete("d2") and s.count() == 2
    with pytest.raises(DocumentConflictError):  # a stored id is replaced only when named
        s.put_many([doc(4), doc(1, fp=5)])
    assert s.get("d1").fingerprint != 5 and s.get("d4") is None  # nothing of it written
    s.put_many([doc(1, fp=5)], replacing={"d1"})  # replace: same id, new data, moves to the end
    assert s.get("d1").fingerprint == 5 and s.snapshot().ids == ["d3", "d1"]
    s.close()


def test_reopen_and_metadata_mismatch(store_url):
    if store_url == "memory://":
        pytest.skip("memory stores do not persist")
    s = open_store(store_url)
    s.check_meta("v1", {"k": 3, "method": "simhash"})
    s.put_many([doc(1)])
    s.close()
    s = open_store(store_url)
    s.check_meta("v1", {"k": 3, "method": "simhash"})
    assert s.count() == 1
    with pytest.raises(IncompatibleIndexError, match=r"k: stored 3, now 4"):
        s.check_meta("v1", {"k": 4, "method": "simhash"})
    with pytest.raises(IncompatibleIndexError, match=r"algorithm version: stored 'v1', now 'v2'"):
        s.check_meta("v2", {"k": 3, "method": "simhash"})
    assert s.meta() == {"version": "v1", "params": {"k": 3, "method": "simhash"}}


def test_checkpoint_commits_with_the_batch(store_url):
    s = open_store(store_url)
    s.put_many([doc(1)], checkpoint=("job", "10"))
    assert s.get_checkpoint("job") == "10"
    bad = doc(3, payload={"x": object()})  # cannot be serialised: the whole batch fails
    with pytest.raises(TypeError):
        s.put_many([doc(2), bad], checkpoint=("job", "20"))
    assert s.get_checkpoint("job") == "10" and s.get("d2") is None


def test_concurrent_writers_lose_nothing(store_url):
    s = open_store(store_url)

    def writer(t):
        for i in range(50):
            s.put_many([doc(t * 1000 + i)])

    threads = [threading.Thread(target=writer, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert s.count() == 200 and len(set(s.snapshot().ids)) == 200


def test_signed_mapping():
    for v in (0, 1, (1 << 63) - 1, 1 << 63, (1 << 64) - 1):
        assert to_unsigned(to_signed(v)) == v and -(1 << 63) <= to_signed(v) < (1 << 63)
    with pytest.raises(ValueError):
        to_signed(1 << 64)


def test_bad_urls(tmp_path):
    with pytest.raises(ConfigError, match="not a store URL"):
        open_store("neardup.db")
    with pytest.raises(ConfigError, match="unknown store scheme 'redis'"):
        open_store("redis://x")
    with pytest.raises(ConfigError, match="does not exist"):
        open_store(f"sqlite:///{tmp_path}/no/such/dir/x.db")
    with pytest.raises(ConfigError, match="cannot connect"):
        open_store("postgresql://nobody@127.0.0.1:1/none")
    # a misspelt parameter was ignored (the store opened with synchronous=full)
    with pytest.raises(ConfigError, match="unknown parameter 'synchronus'"):
        open_store(f"sqlite:///{tmp_path}/x.db?synchronus=normal")
    assert not (tmp_path / "x.db").exists()
    open_store(f"sqlite:///{tmp_path}/x.db?synchronous=normal").close()
    # the scheme is read in any case, the path too: SQLITE:/// said "give a file"
    store = open_store(f"SQLite:///{tmp_path}/upper.db")
    assert store.count() == 0 and (tmp_path / "upper.db").exists()
    store.close()


def test_a_tilde_in_a_sqlite_url_is_the_home_folder_for_every_open(tmp_path, monkeypatch):
    """``sqlite:///~/x.db`` names a file in the home folder, as a shell would read it, for
    writes as for read-only opens (writes took the ``~`` literally and failed to create the
    lock in a folder ``./~``, while read-only opens looked in the home folder)."""
    home, elsewhere = tmp_path / "home", tmp_path / "cwd"
    home.mkdir()
    elsewhere.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(elsewhere)
    store = open_store("sqlite:///~/x.db")
    store.put_many([doc(1)])
    store.close()
    assert (home / "x.db").is_file() and not (elsewhere / "~").exists()
    reader = open_store("sqlite:///~/x.db", read_only=True)
    assert reader.count() == 1 and reader.get("d1") is not None
    reader.close()
