"""A real server process over a real socket: concurrency and durability across kill -9."""

import os
import signal
from concurrent.futures import ThreadPoolExecutor

import pytest

httpx = pytest.importorskip("httpx")
from serverproc import free_port, start  # noqa: E402

TEXT = (
    "国务院总理主持召开国务院常务会议，部署进一步稳外贸稳外资的措施，要求各地区各部门抓好落实，"
    "确保经济运行在合理区间，为全年经济社会发展目标任务的完成提供有力支撑。"
)


@pytest.mark.slow
def test_concurrent_clients_and_kill_9(tmp_path):
    db = f"sqlite:///{tmp_path}/live.db"
    port = free_port()
    proc = start(db, port)
    base = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=base, timeout=30) as client:

            def send(i):
                text = (
                    TEXT
                    if i % 10 == 0
                    else f"第{i}条完全不同的消息："
                    + "".join(chr(0x4E00 + (i * 7919 + j * 104729) % 20000) for j in range(40))
                )
                return client.post("/v1/documents", json={"id": f"id{i}", "text": text}).json()

            with ThreadPoolExecutor(16) as pool:
                results = list(pool.map(send, range(200)))
            # the same id again from many threads: never inserted twice
            with ThreadPoolExecutor(8) as pool:
                repeats = list(
                    pool.map(
                        lambda _: client.post(
                            "/v1/documents", json={"id": "id0", "text": TEXT}
                        ).json(),
                        range(8),
                    )
                )
        assert all(r["inserted"] for r in results)
        copies = [r for i, r in enumerate(results) if i % 10 == 0]
        assert sum(not r["duplicate"] for r in copies) == 1  # 20 identical texts, one first copy
        assert all(r["status"] == "unchanged" for r in repeats)
        os.kill(proc.pid, signal.SIGKILL)  # no shutdown, no flush
        proc.wait(timeout=10)
        proc = start(db, port)
        with httpx.Client(base_url=base, timeout=30) as client:
            assert client.get("/v1/stats").json()["documents"] == 200
            assert client.get("/v1/documents/id199").status_code == 200
            assert client.post("/v1/check", json={"text": TEXT}).json()["duplicate"]
    finally:
        proc.kill()
        proc.wait(timeout=10)
