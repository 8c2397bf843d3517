"""The central replay through a real `neardup serve` process: the corpus posted one document per
request, in input order, gets the decisions of `neardup dedup --keep first` on that corpus."""

from __future__ import annotations

import csv

import httpx
import orjson
import pytest

from neardup.cli import main
from neardup.methods import online_methods
from serverproc import free_port, start, stop
from test_replay import corpus


@pytest.mark.parametrize("method_name", online_methods())
def test_serve_equals_dedup_keep_first(tmp_path, method_name):
    texts = corpus()
    src = tmp_path / "in.jsonl"
    src.write_bytes(
        b"".join(orjson.dumps({"id": f"d{i}", "text": t}) + b"\n" for i, t in enumerate(texts))
    )
    out = tmp_path / "out"
    args = ["dedup", str(src), "-o", str(out), "--id-field", "id", "--method", method_name]
    assert main([*args, "--quiet"]) == 0
    with open(out / "clusters.csv", newline="", encoding="utf-8") as f:
        batch = {r["id"]: r["representative_id"] for r in csv.DictReader(f)}
    tables = out / "common_grams.npz"
    extra = ["--tables", str(tables)] if tables.exists() else []
    port = free_port()
    proc = start(f"sqlite:///{tmp_path}/s.db", port, "--method", method_name, *extra)
    online = {}
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            for i, text in enumerate(texts):
                r = client.post("/v1/documents", json={"id": f"d{i}", "text": text})
                assert r.status_code == 200, r.text
                body = r.json()
                online[f"d{i}"] = body["matches"][0]["id"] if body["duplicate"] else f"d{i}"
    finally:
        stop(proc)
    assert sum(k != v for k, v in batch.items()) > 20  # the corpus has duplicates to find
    mismatches = [(k, batch[k], online[k]) for k in batch if batch[k] != online[k]]
    assert not mismatches, mismatches[:10]
