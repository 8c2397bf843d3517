"""Helpers shared by the benchmark scripts: data paths, timers, peak memory."""

from __future__ import annotations

import gzip
import os
import resource
import sys
from pathlib import Path

import orjson

DATA = Path(os.environ.get("NEARDUP_DATA", Path(__file__).resolve().parents[2] / "shared" / "data"))


def data_path(name: str, file: str = "corpus.jsonl.gz") -> Path:
    path = DATA / name / file
    if not path.exists():
        sys.exit(f"benchmark data not found: {path} (set NEARDUP_DATA to the shared data folder)")
    return path


def load_texts(name: str, limit: int | None = None) -> list[str]:
    texts = []
    with gzip.open(data_path(name)) as f:
        for line in f:
            texts.append(orjson.loads(line)["text"])
            if limit and len(texts) >= limit:
                break
    return texts


def dedup_command(src: Path, out: Path, method: str, *extra: str) -> list[str]:
    """``neardup dedup`` of ``src`` into ``out`` in a fresh Python process, quietly."""
    return [sys.executable, "-m", "neardup", "dedup", str(src), "-o", str(out), "--quiet",
            "--method", method, *extra]  # fmt: skip


def peak_rss_mb(children: bool = False) -> float:
    who = resource.RUSAGE_CHILDREN if children else resource.RUSAGE_SELF
    return resource.getrusage(who).ru_maxrss / 1024


def percentiles(values, ps=(50, 90, 99, 99.9)) -> dict[str, float]:
    import numpy as np

    arr = np.asarray(values, dtype=float)
    return {f"p{p:g}": float(np.percentile(arr, p)) for p in ps}
