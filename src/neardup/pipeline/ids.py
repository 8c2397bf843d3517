"""The ids of a run's documents, held as Arrow string arrays (one per block read).

A batch names every document, and a list of Python strings costs about 60 bytes per id (the
string objects alone: 48 MB for weibo_ced_zh's 772k record numbers); an Arrow string array
costs the characters plus 4 bytes. The outputs take the ids whole (``clusters.csv``,
``pairs.csv``); the report and the summary look up a few by position.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence

import numpy as np
import pyarrow as pa


class Ids(Sequence[str]):
    """A sequence of document ids, appended a block at a time."""

    def __init__(self, chunks: Iterable[pa.Array] = ()) -> None:
        self._chunks: list[pa.Array] = [c for c in chunks if len(c)]
        self._ends = np.cumsum([len(c) for c in self._chunks], dtype=np.int64).tolist()

    @classmethod
    def of(cls, ids: Iterable[str]) -> Ids:
        return cls([pa.array(list(ids), pa.string())])

    def extend(self, ids: list[str]) -> None:
        """Append one block's ids."""
        if ids:
            self._chunks.append(pa.array(ids, pa.string()))
            self._ends.append(len(self) + len(ids))

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    def __getitem__(self, position: int) -> str:  # type: ignore[override]
        if not 0 <= position < len(self):
            raise IndexError(position)
        k = bisect_right(self._ends, position)
        before = self._ends[k - 1] if k else 0
        return self._chunks[k][position - before].as_py()

    def __add__(self, other: Ids) -> Ids:
        return Ids([*self._chunks, *other._chunks])

    def arrow(self) -> pa.ChunkedArray:
        """All ids as one Arrow column (no copy)."""
        return pa.chunked_array(self._chunks, pa.string())
