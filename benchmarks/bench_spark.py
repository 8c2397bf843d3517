"""`neardup spark-dedup` on Spark local mode beside the local `neardup dedup`, same data and options.

    python benchmarks/bench_spark.py [--datasets weibo_ced_zh cctv_xwlb_news_zh] [--master local[2]]
                                    [--method auto|simhash|ngram|paragraph]

The local run is a fresh process (`python -m neardup dedup`). The Spark run is in this process
with the Spark UI on loopback, so that its REST API gives the shuffle written/read over all
stages and the peak JVM heap and Python worker memory of the executor (process-tree metrics).
Both runs must agree on the counts; the script says so.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import httpx
from _common import data_path, dedup_command

from neardup.methods import SPARK_DEFAULT_METHOD, SPARK_METHODS


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def local_run(src: Path, out: Path, method: str) -> tuple[float, dict]:
    t0 = time.perf_counter()
    subprocess.run(dedup_command(src, out, method), check=True)
    return time.perf_counter() - t0, json.loads((out / "summary.json").read_text())


def spark_metrics(ui: str, app_id: str) -> dict[str, float]:
    base = f"{ui}/api/v1/applications/{app_id}"
    stages = httpx.get(f"{base}/stages", timeout=30).json()
    executors = httpx.get(f"{base}/executors", timeout=30).json()
    peak = {}
    for e in executors:
        for key, value in (e.get("peakMemoryMetrics") or {}).items():
            peak[key] = max(peak.get(key, 0), value)
    return {
        "shuffle_write_mb": sum(s.get("shuffleWriteBytes", 0) for s in stages) / 1e6,
        "shuffle_read_mb": sum(s.get("shuffleReadBytes", 0) for s in stages) / 1e6,
        "stages": len(stages),
        "peak_jvm_heap_mb": peak.get("JVMHeapMemory", 0) / 1e6,
        "peak_python_rss_mb": peak.get("ProcessTreePythonRSS", 0) / 1e6,
    }


def shuffle_by_stage(ui: str, app_id: str, after_job: int) -> dict[str, float]:
    """Shuffle bytes written per neardup stage (the jobs' description ``neardup: <stage>``),
    over the jobs numbered above ``after_job``."""
    base = f"{ui}/api/v1/applications/{app_id}"
    jobs = httpx.get(f"{base}/jobs", timeout=30).json()
    stages = {s["stageId"]: s for s in httpx.get(f"{base}/stages", timeout=30).json()}
    out: dict[str, float] = {}
    for job in jobs:
        if job["jobId"] <= after_job:
            continue
        name = (job.get("description") or "other").removeprefix("neardup: ")
        for sid in job.get("stageIds", []):
            out[name] = out.get(name, 0) + stages.get(sid, {}).get("shuffleWriteBytes", 0)
    return out


def last_job(ui: str, app_id: str) -> int:
    jobs = httpx.get(f"{ui}/api/v1/applications/{app_id}/jobs", timeout=30).json()
    return max((j["jobId"] for j in jobs), default=-1)


class RssSampler(threading.Thread):
    """Peak summed RSS of the Spark JVM and of the PySpark worker processes (from /proc)."""

    def __init__(self):
        super().__init__(daemon=True)
        self.peak_jvm = self.peak_workers = 0
        self.running = True

    def run(self) -> None:
        while self.running:
            jvm = workers = 0
            for proc in Path("/proc").iterdir():
                if not proc.name.isdigit() or int(proc.name) == os.getpid():
                    continue
                try:
                    cmd = (proc / "cmdline").read_bytes()
                    rss = int((proc / "statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")
                except (OSError, ValueError, IndexError):
                    continue
                if b"org.apache.spark" in cmd:
                    jvm += rss
                elif b"pyspark.daemon" in cmd or b"pyspark.worker" in cmd:
                    workers += rss
            self.peak_jvm = max(self.peak_jvm, jvm)
            self.peak_workers = max(self.peak_workers, workers)
            time.sleep(0.2)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--datasets", nargs="+", default=["weibo_ced_zh", "cctv_xwlb_news_zh"])
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--partitions", type=int, default=8)
    ap.add_argument("--method", default=SPARK_DEFAULT_METHOD, choices=SPARK_METHODS)
    args = ap.parse_args()

    from neardup.spark.job import spark_dedup
    from neardup.spark.session import spark_session

    port = free_port()
    spark = spark_session(
        master=args.master,
        app_name="neardup-bench",
        config={
            "spark.ui.port": port,
            "spark.ui.showConsoleProgress": "false",
            "spark.driver.memory": "8g",
            "spark.executor.processTreeMetrics.enabled": "true",
            "spark.executor.metrics.pollingInterval": "500ms",
        },
    )
    spark.sparkContext.setLogLevel("ERROR")
    ui = spark.sparkContext.uiWebUrl or f"http://127.0.0.1:{port}"
    print(f"{'dataset':<20} {'engine':<14} {'docs':>9} {'kept':>9} {'seconds':>8}  details")
    for name in args.datasets:
        src = data_path(name)
        with tempfile.TemporaryDirectory() as tmp:
            seconds, local = local_run(src, Path(tmp) / "local", args.method)
            c = local["counts"]
            print(f"{name:<20} {'local':<14} {c['documents']:>9,} {c['kept']:>9,} {seconds:8.1f}")
            app_id = spark.sparkContext.applicationId
            before = spark_metrics(ui, app_id)
            first_job = last_job(ui, app_id)
            sampler = RssSampler()
            sampler.start()
            t0 = time.perf_counter()
            summary = spark_dedup(
                spark,
                str(src),
                str(Path(tmp) / "spark"),
                method=args.method,
                partitions=args.partitions,
            )
            seconds = time.perf_counter() - t0
            sampler.running = False
            time.sleep(1.5)  # let the executor's last metrics poll land
            after = spark_metrics(ui, app_id)
            s = summary["counts"]
            per_stage = shuffle_by_stage(ui, app_id, first_job)
            stages = ", ".join(f"{k} {v:.1f}s" for k, v in summary["seconds"].items())
            print(
                f"{name:<20} {'spark ' + args.master:<14} {s['documents']:>9,} {s['kept']:>9,} "
                f"{seconds:8.1f}  stages: {stages}; shuffle written "
                f"{after['shuffle_write_mb'] - before['shuffle_write_mb']:.0f} MB, read "
                f"{after['shuffle_read_mb'] - before['shuffle_read_mb']:.0f} MB; peak JVM heap "
                f"{after['peak_jvm_heap_mb']:.0f} MB (JVM RSS {sampler.peak_jvm / 1e6:.0f} MB), "
                f"peak Python workers RSS {sampler.peak_workers / 1e6:.0f} MB; "
                f"same counts as local: {s['kept'] == c['kept'] and s['pairs'] == c['pairs']}"
            )
            docs = max(s["documents"], 1)
            print(
                f"{'':<20} shuffle written per stage: "
                + ", ".join(
                    f"{k} {v / 1e6:.0f} MB ({v / docs:.0f} B/doc)" for k, v in per_stage.items()
                )
            )
    spark.stop()


if __name__ == "__main__":
    main()
