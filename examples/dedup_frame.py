"""Deduplicate a data frame in memory (pandas, polars or a pyarrow Table), then keep the kept rows.

    python examples/dedup_frame.py            # uses the bundled examples/sample_zh.jsonl

Needs ``pip install 'neardup[frames]'`` for pandas/polars (pyarrow alone works without it).
"""

from __future__ import annotations

from pathlib import Path

import pyarrow.compute as pc
import pyarrow.json as pj

import neardup

SAMPLE = Path(__file__).with_name("sample_zh.jsonl")


def main() -> None:
    table = pj.read_json(SAMPLE)  # a pyarrow Table: id, text, ...
    marked = neardup.dedup_frame(table, text="text", id="id")
    kept = marked.filter(pc.invert(marked.column("duplicate")))
    print(f"{table.num_rows} rows, {kept.num_rows} kept")
    try:
        import pandas as pd
    except ImportError:
        return
    frame = pd.read_json(SAMPLE, lines=True)
    marked = neardup.dedup_frame(frame, id="id")
    removed = marked[marked["duplicate"]]
    print(removed[["id", "representative_id", "similarity", "method"]].head().to_string())


if __name__ == "__main__":
    main()
