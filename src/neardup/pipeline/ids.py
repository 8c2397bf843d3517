"""The ids of a run's documents, held as UTF-8 bytes with offsets (one buffer per block read).

A batch names every document, and a list of Python strings costs about 60 bytes per id (the
string objects alone: 48 MB for weibo_ced_zh's 772k record numbers); a buffer costs the
characters plus 8 bytes. The outputs take the ids whole as an Arrow column made on the same
buffers (``clusters.csv``, ``pairs.csv``); the report and the summary look up a few by
position. Plain bytes and NumPy, so that a run does not load Arrow before it writes.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

_ENCODING = ("utf-8", "surrogatepass")  # any str round-trips


class Ids(Sequence[str]):
    """A sequence of document ids, appended a block at a time."""

    def __init__(self, chunks: Iterable[tuple[bytes, np.ndarray]] = ()) -> None:
        self._chunks = [(data, offsets) for data, offsets in chunks if len(offsets) > 1]
        self._ends = np.cumsum([len(o) - 1 for _, o in self._chunks], dtype=np.int64).tolist()

    @classmethod
    def of(cls, ids: Iterable[str]) -> Ids:
        out = cls()
        out.extend(list(ids))
        return out

    def extend(self, ids: list[str]) -> None:
        """Append one block's ids."""
        if not ids:
            return
        joined = "".join(ids)
        if joined.isascii():  # one encoding; each id's bytes are its characters (3x faster)
            data, sized = joined.encode("ascii"), ids
        else:
            sized = [i.encode(*_ENCODING) for i in ids]
            data = b"".join(sized)
        offsets = np.zeros(len(ids) + 1, np.int64)
        np.cumsum(np.fromiter(map(len, sized), np.int64, count=len(ids)), out=offsets[1:])
        self._chunks.append((data, offsets))
        self._ends.append(len(self) + len(ids))

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    def __getitem__(self, position: int) -> str:  # type: ignore[override]
        if not 0 <= position < len(self):
            raise IndexError(position)
        k = bisect_right(self._ends, position)
        at = position - (self._ends[k - 1] if k else 0)
        data, offsets = self._chunks[k]
        return data[offsets[at] : offsets[at + 1]].decode(*_ENCODING)

    def __add__(self, other: Ids) -> Ids:
        return Ids([*self._chunks, *other._chunks])

    def arrow(self) -> Any:
        """All ids as one Arrow string column on the same buffers (no copy of the bytes)."""
        import pyarrow as pa

        chunks = [
            pa.LargeStringArray.from_buffers(
                len(offsets) - 1, pa.py_buffer(offsets), pa.py_buffer(data)
            ).cast(pa.string())
            for data, offsets in self._chunks
        ]
        return pa.chunked_array(chunks, pa.string())
