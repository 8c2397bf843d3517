"""Real `neardup serve` processes on loopback, for the tests that need a socket and a PID."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(
    db: str, port: int, *args: str, env: dict[str, str] | None = None, stderr=subprocess.PIPE
) -> subprocess.Popen:
    """Start the server and wait until /healthz answers (RuntimeError with its stderr if not)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "neardup", "serve", "--db", db, "--port", str(port), *args],
        stdout=subprocess.DEVNULL,
        stderr=stderr,
        env={**os.environ, **(env or {})},
    )
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.2)
        if proc.poll() is not None:
            raise RuntimeError(proc.stderr.read().decode() if proc.stderr else "exited")
    proc.kill()
    raise RuntimeError("server did not start")


def stop(proc: subprocess.Popen) -> str:
    """Kill the server; its stderr so far."""
    proc.kill()
    proc.wait(timeout=10)
    return proc.stderr.read().decode() if proc.stderr else ""


def rss_mb(pid: int) -> float:
    """Resident set size of a process now, in MB (Linux)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")
