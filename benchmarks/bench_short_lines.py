"""One request of many short lines to `neardup serve`: how long it holds the writer.

    python benchmarks/bench_short_lines.py [--lines 20000] [--method paragraph]
                                           [--kind near|shared|repeated|distinct] [--stored 3]

Starts the real server as a separate process on 127.0.0.1 (durable SQLite in a temporary
folder), stores ``--stored`` pages of ``--lines`` short lines each (POST /v1/documents), then
sends one more such page and, while it is being decided, a small document from another
thread: prints the seconds each stored page, the page and the small write took, and what the
page was found to be. The lines are clauses of cctv_xwlb_news_zh (6 to 16 characters: a few
words each). ``--kind``: ``near``, every page the same lines with one of them replaced (pages
that are copies of each other, the hardest case: every line of one is a copy of a line of the
other); ``shared``, each page ``--lines`` draws from one pool of 3,000 lines (a few thousand
distinct lines repeated); ``repeated``, each page draws from 3,000 lines of its own;
``distinct``, lines of its own.

Before the paragraph method's substitution veto found its paragraph pairs by a prefix join
(``near``, 20,000 lines, 3 stored pages: each stored page took 100 s or more and the page did
not finish in 400 s in process; every other write waited meanwhile) it went through every pair
of the two pages' lines.
"""

from __future__ import annotations

import argparse
import gzip
import random
import re
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import orjson
from _common import data_path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from serverproc import free_port, start, stop


def clauses(count: int) -> list[str]:
    """Clauses of cctv_xwlb_news_zh of 6 to 16 characters, in corpus order."""
    found: list[str] = []
    with gzip.open(data_path("cctv_xwlb_news_zh")) as lines:
        for line in lines:
            text = orjson.loads(line).get("text") or ""
            found += [c for c in re.split(r"[，。；：！？\s]", text) if 6 <= len(c) <= 16]
            if len(found) >= count:
                break
    return found[:count]


def pages(kind: str, lines: int, count: int) -> list[str]:
    pool = clauses(max(lines, 3000) * 2)
    out = []
    for seed in range(count):
        rng = random.Random(seed)
        if kind == "near":
            page = pool[:lines]
            page[seed % lines] = "这一行换成了一句新的话"
        elif kind == "shared":
            page = [rng.choice(pool[:3000]) for _ in range(lines)]
        elif kind == "repeated":
            own = rng.sample(pool, 3000)
            page = [rng.choice(own) for _ in range(lines)]
        else:
            page = rng.sample(pool, lines)
        out.append("\n".join(page))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=20_000)
    parser.add_argument("--method", default="paragraph")
    parser.add_argument(
        "--kind", choices=("near", "shared", "repeated", "distinct"), default="near"
    )
    parser.add_argument("--stored", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=900)
    args = parser.parse_args()
    texts = pages(args.kind, args.lines, args.stored + 1)
    with tempfile.TemporaryDirectory() as folder:
        port = free_port()
        server = start(
            f"sqlite:///{folder}/bench.db",
            port,
            "--method",
            args.method,
            "--max-body-bytes",
            str(4 << 20),
        )
        url = f"http://127.0.0.1:{port}/v1/documents"
        try:
            with httpx.Client(timeout=args.timeout) as client:
                client.post(url, json={"id": "warm", "text": "先来一句话。\n再来一句话。"})
                for k, text in enumerate(texts[:-1]):
                    t = time.perf_counter()
                    answer = client.post(url, json={"id": f"page{k}", "text": text}).json()
                    print(f"stored page{k}: {time.perf_counter() - t:.2f} s, {_found(answer)}")
                small: dict[str, float] = {}

                def small_write() -> None:
                    time.sleep(0.5)  # once the page is being decided
                    t = time.perf_counter()
                    httpx.post(url, json={"id": "small", "text": "一句新的话。"}, timeout=900)
                    small["seconds"] = time.perf_counter() - t

                other = threading.Thread(target=small_write)
                other.start()
                t = time.perf_counter()
                answer = client.post(url, json={"id": "page", "text": texts[-1]}).json()
                page_seconds = time.perf_counter() - t
                other.join()
        finally:
            stop(server)
    lines = texts[-1].count("\n") + 1
    print(f"{args.method} {args.kind}: a page of {lines:,} lines ({len(texts[-1]):,} characters)")
    print(f"  the page: {page_seconds:.2f} s, {_found(answer)}")
    print(f"  a small write sent 0.5 s later: {small['seconds']:.2f} s")


def _found(answer: dict) -> str:
    matches = answer.get("matches") or []
    best = f" of {matches[0]['id']} ({matches[0]['similarity']})" if matches else ""
    return f"duplicate{best}" if answer.get("duplicate") else "kept"


if __name__ == "__main__":
    main()
