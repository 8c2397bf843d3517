"""Arrow columns made from NumPy arrays and strings on their buffers.

``pyarrow.array`` first asks whether its argument is a pandas object, and that question imports
pandas wherever it is installed (0.14 s and about 30 MB, on every ``neardup dedup`` that writes
``clusters.csv``). These build the same arrays from their buffers, which asks nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def numbers(values: np.ndarray, dtype: Any, *, null: np.ndarray | None = None) -> Any:
    """``values`` as an Arrow array of the numeric NumPy ``dtype``; ``null``: where it is null."""
    import pyarrow as pa

    data = np.ascontiguousarray(values, dtype=dtype)
    buffers = [_validity(null), pa.py_buffer(data)]
    return pa.Array.from_buffers(pa.from_numpy_dtype(data.dtype), len(data), buffers)


def flags(values: np.ndarray) -> Any:
    """Booleans as an Arrow boolean array (bits, least significant first)."""
    import pyarrow as pa

    bits = np.packbits(np.asarray(values, np.bool_), bitorder="little")
    return pa.Array.from_buffers(pa.bool_(), len(values), [None, pa.py_buffer(bits)])


def strings(values: Sequence[str]) -> Any:
    """Python strings as an Arrow string array."""
    import pyarrow as pa

    encoded = [v.encode("utf-8") for v in values]
    offsets = np.zeros(len(encoded) + 1, np.int32)
    np.cumsum([len(e) for e in encoded], out=offsets[1:])
    buffers = [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]
    return pa.Array.from_buffers(pa.string(), len(encoded), buffers)


def _validity(null: np.ndarray | None) -> Any:
    import pyarrow as pa

    if null is None:
        return None
    return pa.py_buffer(np.packbits(~np.asarray(null, np.bool_), bitorder="little"))
