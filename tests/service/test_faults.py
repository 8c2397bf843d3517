"""Fault injection against real `neardup serve` processes on loopback (real SQLite, PostgreSQL).

Each test names the fault: a failed batch, a second process on one store, oversized chunked
bodies, a locked or full database, kill -9 under concurrent writers, malformed requests.
"""

import json
import os
import random
import signal
import sqlite3
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

httpx = pytest.importorskip("httpx")
from serverproc import free_port, rss_mb, start, stop  # noqa: E402

STORY = (
    "国务院总理主持召开国务院常务会议，部署进一步稳外贸稳外资的措施，要求各地区各部门抓好落实，"
    "确保经济运行在合理区间，为全年经济社会发展目标任务的完成提供有力支撑。"
)


def unique_text(i: int) -> str:
    return f"第{i}条消息：" + "".join(
        chr(0x4E00 + (i * 7919 + j * 104729) % 20000) for j in range(40)
    )


@pytest.fixture
def server(tmp_path):
    port = free_port()
    proc = start(f"sqlite:///{tmp_path}/s.db", port)
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
        yield proc, client
    stop(proc)


def test_failed_batch_changes_nothing_and_overwrites_nothing(server):
    _, client = server
    for doc_id, text in (("X", STORY), ("Y", unique_text(1))):
        assert client.post("/v1/documents", json={"id": doc_id, "text": text}).status_code == 200
    batch = [{"id": "X", "text": "a" * 30}, {"id": "X", "text": "b" * 30}, {"id": "Y", "text": "c"}]
    r = client.post("/v1/documents/batch", params={"replace": "true"}, json={"documents": batch})
    assert r.status_code == 422 and "'X' appears twice" in r.json()["error"]
    assert client.post("/v1/check", json={"text": unique_text(1)}).json()["matches"][0]["id"] == "Y"
    assert client.get("/healthz").json()["documents"] == 2
    r = client.post("/v1/documents", json={"id": "Y", "text": "other"})
    assert r.status_code == 409
    assert client.get("/v1/documents/Y").json()["length"] == len(unique_text(1))


def test_second_server_on_one_sqlite_file_is_refused(tmp_path, server):
    proc, _ = server
    db = f"sqlite:///{tmp_path}/s.db"
    with pytest.raises(RuntimeError, match=rf"open for writing by pid {proc.pid}"):
        start(db, free_port())
    add = subprocess.run(
        ["neardup", "index", "stats", "--db", db], capture_output=True, text=True, timeout=60
    )
    assert add.returncode == 0 and '"documents": 0' in add.stdout  # readers are welcome


def test_a_port_in_use_or_out_of_range_is_refused_before_the_store_is_made(tmp_path, server):
    """A second server on the first one's port, a port past 65535 (the system would wrap it:
    99999 listened on 34463), a host this machine lacks and an empty body limit are refused with
    the reason (exit 2, no traceback) before any store file is created; the first server keeps
    serving."""
    _, client = server
    port = client.base_url.port
    for args, says in (
        (["--port", str(port)], f"cannot listen on 127.0.0.1:{port}"),
        (["--port", "99999"], "99999 is not a port: give 1 to 65535"),
        (["--host", "no.such.host.invalid", "--port", str(free_port())], "not an address"),
        (["--port", str(free_port()), "--max-body-bytes", "0"], "0 must be at least 1"),
    ):
        db = tmp_path / "second.db"
        run = subprocess.run(
            ["neardup", "serve", "--db", f"sqlite:///{db}", *args],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert run.returncode == 2 and says in run.stderr and "Traceback" not in run.stderr
        assert "serving" not in run.stderr and not list(tmp_path.glob("second.db*"))
    assert client.get("/healthz").status_code == 200


def test_chunked_and_oversized_bodies_are_cut_off_while_reading(tmp_path):
    port = free_port()
    proc = start(
        f"sqlite:///{tmp_path}/s.db", port, env={"NEARDUP_API_KEY": "k3y"}, stderr=subprocess.PIPE
    )
    try:
        before = rss_mb(proc.pid)
        sent = {"bytes": 0}

        def chunks(total_mb: int):
            piece = b"x" * (1 << 20)
            for _ in range(total_mb):
                sent["bytes"] += len(piece)
                yield piece

        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
            headers = {"X-API-Key": "k3y", "Content-Type": "application/json"}
            try:
                r = client.post("/v1/documents", content=chunks(200), headers=headers)
                assert r.status_code == 413 and "over the limit" in r.json()["error"]
            except httpx.HTTPError:
                pass  # the server may close the connection while the client still sends
            assert sent["bytes"] < 200 << 20 or rss_mb(proc.pid) - before < 50
            # without the key nothing is read at all
            sent["bytes"] = 0
            try:
                r = client.post("/v1/documents", content=chunks(200))
                assert r.status_code == 401
            except httpx.HTTPError:
                pass
            assert client.get("/healthz").status_code == 200
        assert rss_mb(proc.pid) - before < 50, (before, rss_mb(proc.pid))
    finally:
        stop(proc)


def test_locked_database_is_503_and_the_loop_stays_responsive(tmp_path, server):
    _, client = server
    blocker = sqlite3.connect(tmp_path / "s.db", timeout=1)
    blocker.execute("BEGIN IMMEDIATE")  # another program holds the write lock
    try:
        answer = {}
        worker = threading.Thread(
            target=lambda: answer.update(
                r=client.post("/v1/documents", json={"id": "a", "text": STORY})
            )
        )
        worker.start()
        time.sleep(0.5)
        started = time.time()
        assert client.get("/healthz").status_code == 200
        assert time.time() - started < 1.0  # not stuck behind the waiting write
        worker.join(timeout=30)
        r = answer["r"]
        assert r.status_code == 503 and r.headers["retry-after"] == "1"
        assert r.headers["connection"] == "close"
        assert "busy" in r.json()["error"] and "SQL" not in r.text and "locked" not in r.text
    finally:
        blocker.rollback()
        blocker.close()
    r = client.post("/v1/documents", json={"id": "a", "text": STORY})
    assert r.status_code == 200 and r.json()["inserted"]


def test_disk_full_is_507_and_the_server_stays_up(tmp_path):
    mount = tmp_path / "small"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=600k", "tmpfs", str(mount)]).returncode:
        pytest.skip("cannot mount a small tmpfs here (needs root)")
    port = free_port()
    proc = None
    try:
        proc = start(f"sqlite:///{mount}/full.db", port)
        statuses = []
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            for i in range(400):
                r = client.post("/v1/documents", json={"id": f"d{i}", "text": unique_text(i) * 8})
                statuses.append(r.status_code)
                if r.status_code == 507:
                    assert "full" in r.json()["error"] and r.headers["connection"] == "close"
                    break
            assert statuses[-1] == 507 and set(statuses[:-1]) == {200}
            stored = client.get("/healthz").json()["documents"]
            assert stored == len(statuses) - 1  # the refused document is not counted
            assert client.post("/v1/check", json={"text": unique_text(0) * 8}).json()["duplicate"]
    finally:
        if proc is not None:
            stop(proc)
        subprocess.run(["umount", str(mount)])


def test_kill_9_cycles_under_concurrent_writers_lose_nothing_acknowledged(tmp_path):
    db = f"sqlite:///{tmp_path}/k.db"
    port = free_port()
    acknowledged: dict[str, str] = {}
    lock = threading.Lock()
    counter = iter(range(10**9))
    for cycle in range(3):
        proc = start(db, port)
        stop_at = time.time() + 1.5
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as client:
            threads = [
                threading.Thread(
                    target=_writer,
                    args=(
                        client,
                        random.Random(w + 100 * cycle),
                        stop_at,
                        counter,
                        acknowledged,
                        lock,
                    ),
                )
                for w in range(8)
            ]
            for t in threads:
                t.start()
            time.sleep(random.Random(cycle).uniform(0.5, 1.2))
            os.kill(proc.pid, signal.SIGKILL)
            for t in threads:
                t.join()
        proc.wait(timeout=10)
    proc = start(db, port)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            assert client.get("/healthz").json()["documents"] >= len(acknowledged) > 50
            for doc_id, text in acknowledged.items():
                r = client.post("/v1/documents", json={"id": doc_id, "text": text})
                assert r.json()["status"] == "unchanged", doc_id
    finally:
        stop(proc)


def _writer(client, rng, stop_at, counter, acknowledged, lock):
    """Insert single documents and batches until ``stop_at``; record what was acknowledged."""
    while time.time() < stop_at:
        n = [next(counter) for _ in range(rng.choice([1, 1, 5]))]
        docs = [{"id": f"c{i}", "text": unique_text(i)} for i in n]
        try:
            if len(docs) == 1:
                r = client.post("/v1/documents", json=docs[0])
            else:
                r = client.post("/v1/documents/batch", json={"documents": docs})
        except httpx.HTTPError:
            return  # killed mid-request: not acknowledged
        if r.status_code == 200:
            with lock:
                acknowledged.update({d["id"]: d["text"] for d in docs})


def _malformed_requests():
    """At least 100 bad requests over every route: (method, path, kwargs)."""
    bodies = [
        b"",
        b"{",
        b"[]",
        b"null",
        b'"text"',
        b"123",
        b'{"id": 1, "text": "x"}',
        b'{"id": "a"}',
        b'{"text": "x"}',
        b'{"id": "a", "text": null}',
        b'{"id": "a", "text": ["x"]}',
        b'{"id": "a", "text": "   "}',
        b'{"id": "", "text": "x"}',
        b'{"id": "a", "text": "x", "extra": 1}',
        b'{"id": "a", "text": "\\ud800"}',
        b'{"id": "\\udfff", "text": "x"}',
        b'{"id": "' + b"i" * 600 + b'", "text": "x"}',
        b'{"id": "a", "text": "x"',
        b"\xff\xfe",
        b'{"documents": []}',
        b'{"documents": [{"id": "a"}]}',
        b'{"documents": "x"}',
        b'{"documents": [{"id": "a", "text": "x"}, {"id": "a", "text": "y"}]}',
        b'{"documents": [{"id": "a", "text": "\\ud800"}]}',
        b'{"documents": ['
        + b",".join(b'{"id": "%d", "text": "x"}' % i for i in range(10_001))
        + b"]}",
        b'{"id": true, "text": "x"}',
        b'{"id": "a", "text": {"zh": "x"}}',
        b'{"id": "a", "text": 1e999}',
        b"[" * 5000 + b"]" * 5000,
        b'{"id": "a", "text": "x"} trailing',
    ]
    routes = ["/v1/documents", "/v1/documents/batch", "/v1/check"]
    out = [
        ("POST", r, {"content": b, "headers": {"content-type": "application/json"}})
        for r in routes
        for b in bodies
    ]
    out += [
        ("POST", "/v1/documents?replace=maybe", {"json": {"id": "a", "text": "x"}}),
        ("POST", "/v1/documents", {"content": b"id=a", "headers": {"content-type": "text/plain"}}),
        ("POST", "/v1/documents/batch?replace=2", {"json": {"documents": [{"id": "a"}]}}),
        ("PUT", "/v1/documents", {"json": {"id": "a", "text": "x"}}),
        ("PATCH", "/v1/check", {"json": {"text": "x"}}),
        ("DELETE", "/v1/documents/never-stored", {}),
        ("DELETE", "/v1/check", {}),
        ("GET", "/v1/documents/never-stored", {}),
        ("GET", "/v1/documents/", {}),
        ("GET", "/v1/nothing", {}),
        ("GET", "/v1/documents/batch", {}),
        ("POST", "/healthz", {}),
        ("POST", "/v1/stats", {}),
        ("POST", "/metrics", {}),
    ]
    return out


def test_malformed_requests_are_4xx_json_never_5xx(server):
    _, client = server
    requests = _malformed_requests()
    assert len(requests) >= 100
    for method, path, kwargs in requests:
        r = client.request(method, path, **kwargs)
        if path == "/v1/check" and r.status_code == 200:
            continue  # an id is optional there: {"id": "", "text": "x"} is a valid check
        assert 400 <= r.status_code < 500, (method, path, kwargs, r.status_code, r.text)
        assert "error" in r.json(), (method, path, r.text)
    assert client.get("/healthz").json()["documents"] == 0


def test_ids_with_slashes_are_addressable(server):
    _, client = server
    assert (
        client.post("/v1/documents", json={"id": "news/2026/1", "text": STORY}).status_code == 200
    )
    assert client.get("/v1/documents/news/2026/1").json()["id"] == "news/2026/1"
    assert client.get("/v1/documents/news%2F2026%2F1").json()["id"] == "news/2026/1"
    assert client.delete("/v1/documents/news/2026/1").json() == {
        "id": "news/2026/1",
        "deleted": True,
    }


def test_request_id_json_access_log_and_metrics(tmp_path):
    port = free_port()
    proc = start(f"sqlite:///{tmp_path}/m.db", port, "--access-log", "json")
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            r = client.post(
                "/v1/documents", json={"id": "a", "text": STORY}, headers={"X-Request-ID": "req-42"}
            )
            assert r.headers["x-request-id"] == "req-42"
            client.post("/v1/documents", json={"id": "b", "text": STORY})  # a duplicate
            assert len(client.get("/healthz").headers["x-request-id"]) == 32  # one made up
            text = client.get("/metrics").text
        assert (
            'neardup_requests_total{method="POST",route="/v1/documents",status="200"} 2.0' in text
        )
        assert "neardup_documents 2.0" in text and "neardup_duplicates_total 1.0" in text
        assert 'neardup_request_duration_seconds_bucket{le="0.05",route="/v1/documents"}' in text
    finally:
        log = stop(proc)
    lines = [json.loads(x) for x in log.splitlines() if x.startswith("{")]
    first = next(x for x in lines if x["request_id"] == "req-42")
    assert first["route"] == "/v1/documents" and first["status"] == 200 and first["duration_ms"] > 0


@pytest.mark.postgres
def test_two_servers_on_one_postgres_database_decide_as_one(pg_schema_url):
    ports = [free_port(), free_port()]
    procs = [start(pg_schema_url, p) for p in ports]
    try:
        clients = [httpx.Client(base_url=f"http://127.0.0.1:{p}", timeout=30) for p in ports]

        def send(i):
            text = STORY if i % 10 == 0 else unique_text(i)
            return clients[i % 2].post("/v1/documents", json={"id": f"id{i}", "text": text}).json()

        with ThreadPoolExecutor(16) as pool:
            results = list(pool.map(send, range(200)))
        copies = [r for i, r in enumerate(results) if i % 10 == 0]
        assert sum(not r["duplicate"] for r in copies) == 1  # one first copy across both
        with ThreadPoolExecutor(8) as pool:  # one id, both servers, at once: one insert
            same = list(
                pool.map(
                    lambda i: clients[i % 2].post(
                        "/v1/documents", json={"id": "race", "text": STORY + str(i % 2)}
                    ),
                    range(8),
                )
            )
        codes = sorted(r.status_code for r in same)
        assert codes.count(200) >= 1 and set(codes) <= {200, 409}
        bodies = [r.json() for r in same if r.status_code == 200]
        assert sum(b["status"] == "inserted" for b in bodies) == 1
        assert all(c.get("/v1/stats").json()["documents"] == 201 for c in clients)
        for c in clients:
            c.close()
    finally:
        for p in procs:
            stop(p)
