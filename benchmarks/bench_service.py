"""Load test of `neardup serve` over loopback: check-and-insert requests/s and latency.

    python benchmarks/bench_service.py [--requests 100000] [--concurrency 16] [--postgres URL]

Starts the real server as a separate process on 127.0.0.1 (durable SQLite by default), then
drives POST /v1/documents with real Weibo texts and unique ids from `wrk` (Debian package `wrk`:
a C load generator, so the client is not the bottleneck), `--concurrency` connections, stopping
after `--requests` responses or `--seconds`. Prints requests/s, latency percentiles, non-2xx
responses and the server's peak RSS; with --postgres (or NEARDUP_TEST_POSTGRES_URL) the same run
against PostgreSQL follows.
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson
from _common import data_path

LUA = r"""
local counter, done, limit, bodies, tid = 0, 0, 0, {}, 0
local threads = {}
function setup(thread) thread:set("tid", #threads); table.insert(threads, thread) end
function init(args)
  for line in io.lines(args[1]) do bodies[#bodies + 1] = line end
  limit = tonumber(args[2])
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
end
function request()
  counter = counter + 1
  local text = bodies[((counter - 1) % #bodies) + 1]
  return wrk.format(nil, "/v1/documents", nil,
    '{"id":"w' .. tid .. '-' .. counter .. '","text":' .. text .. '}')
end
function response(status, headers, body)
  done = done + 1
  if done >= limit then wrk.thread:stop() end
end
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(db: str, port: int, method: str) -> subprocess.Popen:
    import httpx

    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "neardup",
            "serve",
            "--db",
            db,
            "--port",
            str(port),
            "--method",
            method,
        ],
        stderr=subprocess.DEVNULL,
    )
    for _ in range(300):
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    sys.exit("server did not start")


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def write_inputs(tmp: Path, dataset: str, n: int) -> tuple[Path, Path]:
    bodies = tmp / "bodies.txt"
    with gzip.open(data_path(dataset)) as f, open(bodies, "wb") as out:
        count = 0
        for line in f:
            text = orjson.loads(line)["text"]
            if text.strip():
                out.write(orjson.dumps(text) + b"\n")
                count += 1
                if count >= n:
                    break
    script = tmp / "post.lua"
    script.write_text(LUA)
    return bodies, script


def run(label: str, db: str, args, bodies: Path, script: Path) -> None:
    port = free_port()
    proc = start_server(db, port, args.method)
    try:
        import httpx

        wrk = subprocess.Popen(
            [
                "wrk",
                "-t1",
                f"-c{args.concurrency}",
                f"-d{int(args.seconds)}s",
                "--latency",
                "-s",
                str(script),
                f"http://127.0.0.1:{port}",
                "--",
                str(bodies),
                str(args.requests),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        # wrk always waits out its duration: stop it (SIGINT prints its report) once the
        # server holds every document, and time the run ourselves
        start = time.perf_counter()
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            while wrk.poll() is None:
                time.sleep(0.2)
                if client.get("/v1/stats").json()["documents"] >= args.requests:
                    break
            elapsed = time.perf_counter() - start
            wrk.send_signal(signal.SIGINT)
            out = wrk.communicate(timeout=60)[0]
            stored = client.get("/v1/stats").json()["documents"]
    finally:
        rss = peak_rss_mb(proc.pid)
        proc.terminate()
        proc.wait(timeout=30)
    lat = dict(re.findall(r"^\s+(50|90|99)%\s+(\S+)", out, re.M))
    total = re.search(r"(\d+) requests in ([\d.]+)(\w+)", out)
    rps = int(total.group(1)) / elapsed
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = re.search(r"Socket errors: (.*)", out)
    print(
        f"{label:<10} {int(total.group(1)):>7,} requests in {elapsed:.1f}s  "
        f"{float(rps):7.0f} req/s  p50 {lat.get('50')}  p90 {lat.get('90')}  p99 {lat.get('99')}  "
        f"non-2xx {non2xx.group(1) if non2xx else 0}  socket errors {errors.group(1) if errors else 0}  "
        f"stored {stored:,}  server peak RSS {rss:.0f} MB  (concurrency {args.concurrency})"
    )


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--requests", type=int, default=100_000)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=600, help="upper bound on each run")
    ap.add_argument("--dataset", default="weibo_ced_zh")
    ap.add_argument("--method", default="simhash")
    ap.add_argument("--db", help="store URL (default: a new SQLite file, synchronous=FULL)")
    ap.add_argument(
        "--postgres",
        default=os.environ.get("NEARDUP_TEST_POSTGRES_URL"),
        help="also run against this PostgreSQL URL (its neardup tables are dropped)",
    )
    args = ap.parse_args()
    if not shutil.which("wrk"):
        sys.exit("this benchmark needs wrk: apt-get install wrk")
    tmp = Path(tempfile.mkdtemp())
    bodies, script = write_inputs(tmp, args.dataset, args.requests)
    run("sqlite", args.db or f"sqlite:///{tmp}/service.db", args, bodies, script)
    if args.postgres:
        import psycopg

        with psycopg.connect(args.postgres, autocommit=True) as conn:
            for t in ("neardup_documents", "neardup_meta", "neardup_checkpoints"):
                conn.execute(f"DROP TABLE IF EXISTS {t}")
        run("postgresql", args.postgres, args, bodies, script)


if __name__ == "__main__":
    main()
