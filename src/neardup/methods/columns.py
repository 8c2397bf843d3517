"""The online index's kept documents as flat columns: what ``auto`` compares, one slot each.

A query against a million kept documents gathers the state of its few hundred candidates and
verifies them in one call. Kept as one small :class:`~neardup.methods.prepared.Prepared` per
document, that gathering cost a Python step and several small arrays per candidate, and a few
hundred bytes of array headers per document. Here every field lives in a growing flat array
(ragged fields as values plus a start and a length per slot), a removed document's slot is
reused, its values are garbage until the next compaction, and gathering any set of slots is a
fixed number of array operations.
"""

from __future__ import annotations

import numpy as np

from ..arrays import gather
from .prepared import Prepared


class _Ragged:
    """Variable-length rows of uint64 values in one growing buffer, addressed by slot."""

    def __init__(self) -> None:
        self.values = np.empty(1024, np.uint64)
        self.end = 0  # values in use, garbage included
        self.live = 0  # values of live rows
        self.start = np.zeros(0, np.int64)
        self.length = np.zeros(0, np.int64)

    def grow_slots(self, n: int) -> None:
        self.start = np.concatenate([self.start, np.zeros(n - len(self.start), np.int64)])
        self.length = np.concatenate([self.length, np.zeros(n - len(self.length), np.int64)])

    def put(self, slot: int, row: np.ndarray) -> None:
        size = len(row)
        if self.end + size > len(self.values):
            self._make_room(size)
        self.values[self.end : self.end + size] = row
        self.start[slot], self.length[slot] = self.end, size
        self.end += size
        self.live += size

    def drop(self, slot: int) -> None:
        self.live -= int(self.length[slot])
        self.length[slot] = 0

    def row(self, slot: int) -> np.ndarray:
        start = int(self.start[slot])
        return self.values[start : start + int(self.length[slot])]

    def take(self, slots: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The rows of ``slots`` as flat sets ``(values, offsets)``."""
        return gather(self.values, self.start[slots], self.length[slots])

    def _make_room(self, size: int) -> None:
        """Compact when at least half the buffer is garbage, else double it."""
        used = np.flatnonzero(self.length)
        if self.end - self.live >= self.live:
            values, offsets = self.take(used)
            self.start[used] = offsets[:-1]
            self.end = int(offsets[-1])
        else:
            values = self.values[: self.end]
        capacity = max(len(self.values), 1024)
        while capacity < 2 * (self.end + size):
            capacity *= 2
        self.values = np.empty(capacity, np.uint64)
        self.values[: self.end] = values


class PreparedColumns:
    """Single-text ``Prepared`` states by slot: :meth:`put`, :meth:`drop`, :meth:`take`."""

    def __init__(self) -> None:
        self.grams = _Ragged()
        self.sketch = _Ragged()
        self.sample = _Ragged()
        self.tokens = np.zeros(0, np.int64)
        self.compared: list[str] = []
        self.free: list[int] = []

    def put(self, state: Prepared) -> int:
        """Store one document's state (a ``Prepared`` of one text); returns its slot."""
        if not self.free:
            self._grow()
        slot = self.free.pop()
        self.grams.put(slot, state.grams[0])
        self.sketch.put(slot, state.sketch[0])
        self.sample.put(slot, state.sample[0])
        self.tokens[slot] = state.tokens[0]
        self.compared[slot] = state.compared[0]
        return slot

    def drop(self, slot: int) -> None:
        for ragged in (self.grams, self.sketch, self.sample):
            ragged.drop(slot)
        self.compared[slot] = ""
        self.free.append(slot)

    def sketch_keys(self, slot: int) -> list[int]:
        return self.sketch.row(slot).tolist()

    def take(self, slots: np.ndarray) -> Prepared:
        """The states of ``slots``, in that order, as one ``Prepared``."""
        slots = np.asarray(slots, np.int64)
        return Prepared(
            [self.compared[s] for s in slots.tolist()],
            self.grams.take(slots),
            self.sketch.take(slots),
            self.tokens[slots],
            self.sample.take(slots),
        )

    def _grow(self) -> None:
        old = len(self.tokens)
        new = max(2 * old, 1024)
        for ragged in (self.grams, self.sketch, self.sample):
            ragged.grow_slots(new)
        self.tokens = np.concatenate([self.tokens, np.zeros(new - old, np.int64)])
        self.compared.extend([""] * (new - old))
        self.free.extend(range(new - 1, old - 1, -1))  # the lowest slot first
