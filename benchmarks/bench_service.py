"""Load test of `neardup serve` over loopback: check-and-insert requests/s and latency.

    python benchmarks/bench_service.py [--requests 100000] [--concurrency 16] [--postgres URL]
                                       [--method auto] [--processes 2]

Starts the real server as a separate process on 127.0.0.1 (durable SQLite by default), then
drives POST /v1/documents with real Weibo texts and unique ids from `wrk` (Debian package `wrk`:
a C load generator, so the client is not the bottleneck), `--concurrency` connections, stopping
after `--requests` responses or `--seconds`. Prints requests/s, latency percentiles, non-2xx
responses and the server's peak RSS; with --postgres (or NEARDUP_TEST_POSTGRES_URL) the same run
against PostgreSQL follows, and with --processes N also N server processes on that one database
(each driven by its own wrk with concurrency/N connections; several writers are correct there,
see docs/service.md), printed with their throughput relative to one process.
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

from neardup.methods import DEFAULT_METHOD

LUA = r"""
local counter, done, limit, bodies, tid, prefix = 0, 0, 0, {}, 0, "w"
local threads = {}
function setup(thread) thread:set("tid", #threads); table.insert(threads, thread) end
function init(args)
  for line in io.lines(args[1]) do bodies[#bodies + 1] = line end
  limit = tonumber(args[2])
  prefix = args[3] or "w"
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
end
function request()
  counter = counter + 1
  local text = bodies[((counter - 1) % #bodies) + 1]
  return wrk.format(nil, "/v1/documents", nil,
    '{"id":"' .. prefix .. tid .. '-' .. counter .. '","text":' .. text .. '}')
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


def start_wrk(port: int, connections: int, prefix: str, args, bodies: Path, script: Path):
    return subprocess.Popen(
        [
            "wrk",
            "-t1",
            f"-c{connections}",
            f"-d{int(args.seconds)}s",
            "--latency",
            "-s",
            str(script),
            f"http://127.0.0.1:{port}",
            "--",
            str(bodies),
            str(args.requests),
            prefix,
        ],
        stdout=subprocess.PIPE,
        text=True,
    )


def run(label: str, db: str, args, bodies: Path, script: Path, *, processes: int = 1) -> float:
    """One load run against ``processes`` servers on ``db``; prints and returns requests/s."""
    import httpx

    ports = [free_port() for _ in range(processes)]
    procs = [start_server(db, port, args.method) for port in ports]
    try:
        connections = max(1, args.concurrency // processes)
        wrks = [
            start_wrk(p, connections, f"p{i}w", args, bodies, script) for i, p in enumerate(ports)
        ]
        # wrk always waits out its duration: stop it (SIGINT prints its report) once the
        # store holds every document, and time the run ourselves
        start = time.perf_counter()
        with httpx.Client(base_url=f"http://127.0.0.1:{ports[0]}", timeout=30) as client:
            while any(w.poll() is None for w in wrks):
                time.sleep(0.2)
                if client.get("/v1/stats").json()["documents"] >= args.requests * processes:
                    break
            elapsed = time.perf_counter() - start
            for w in wrks:
                w.send_signal(signal.SIGINT)
            outs = [w.communicate(timeout=60)[0] for w in wrks]
            stored = client.get("/v1/stats").json()["documents"]
    finally:
        rss = max(peak_rss_mb(p.pid) for p in procs)
        for p in procs:
            p.terminate()
            p.wait(timeout=30)
    requests = sum(int(re.search(r"(\d+) requests in", o).group(1)) for o in outs)
    lat = dict(re.findall(r"^\s+(50|90|99)%\s+(\S+)", outs[0], re.M))
    non2xx = sum(
        int(m.group(1)) for o in outs if (m := re.search(r"Non-2xx or 3xx responses: (\d+)", o))
    )
    errors = [m.group(1) for o in outs if (m := re.search(r"Socket errors: (.*)", o))]
    rps = requests / elapsed
    print(
        f"{label:<14} {requests:>7,} requests in {elapsed:.1f}s  {rps:7.0f} req/s  "
        f"p50 {lat.get('50')}  p90 {lat.get('90')}  p99 {lat.get('99')} (first process)  "
        f"non-2xx {non2xx}  socket errors {errors or 0}  stored {stored:,}  "
        f"peak RSS {rss:.0f} MB per server  (method {args.method}, concurrency {args.concurrency}, "
        f"{processes} process{'es' if processes > 1 else ''})"
    )
    return rps


def drop_tables(url: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as conn:
        for t in ("neardup_documents", "neardup_meta", "neardup_checkpoints", "neardup_deletions"):
            conn.execute(f"DROP TABLE IF EXISTS {t}")


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--requests", type=int, default=100_000)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=600, help="upper bound on each run")
    ap.add_argument("--dataset", default="weibo_ced_zh")
    ap.add_argument("--method", default=DEFAULT_METHOD)
    ap.add_argument(
        "--processes", type=int, default=1, help="PostgreSQL: also run this many servers at once"
    )
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
        drop_tables(args.postgres)
        one = run("postgresql", args.postgres, args, bodies, script)
        if args.processes > 1:
            drop_tables(args.postgres)
            many = run(
                f"postgresql x{args.processes}",
                args.postgres,
                args,
                bodies,
                script,
                processes=args.processes,
            )
            print(f"{args.processes} processes / 1 process: {many / one:.2f}x requests/s")


if __name__ == "__main__":
    main()
