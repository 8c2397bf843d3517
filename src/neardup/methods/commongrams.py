"""The frozen table of common grams of ``auto`` (and ``paragraph``): grams that many documents
share are not evidence (datelines, headers, footers, templates).

The table is persisted data: fitted on the input by ``neardup dedup``, written beside the
outputs as ``common_grams.npz`` and loaded by the online detector and Spark, versioned by
:data:`TABLE_VERSION`, so every surface decides the same. Fitting counts the distinct grams of
every text exactly, without sorting them all (:func:`frequent_values`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import _kernels
from ..arrays import concat, run_firsts
from ..errors import ConfigError, InputError
from ..parallel import chunk_ranges, map_ranges, per_worker

if TYPE_CHECKING:
    from .auto import AutoConfig

TABLE_VERSION = "neardup-common-grams-1"
PARALLEL_UNIQUE = 1 << 20  # values at which the common-gram count is split over threads
FREQUENT_CHUNK = 1 << 22  # gram hashes bucketed at once when the common grams are counted
FREQUENT_MIN_FLOOR = 16  # below it, the common grams are counted without the bucket prefilter


@dataclass(frozen=True)
class CommonGrams:
    """The frozen table of common grams (sorted uint64 gram hashes) and what it was fitted on."""

    values: np.ndarray
    documents: int
    min_df: int
    version: str = TABLE_VERSION
    gram: int = 0  # the gram length it counts (0: a table saved before it was recorded)
    words: int = 0  # alphabetic grams run over this many words (0: character grams only)

    @classmethod
    def empty(cls) -> CommonGrams:
        return cls(np.empty(0, np.uint64), 0, 0)

    @classmethod
    def fit(
        cls,
        values: np.ndarray | Sequence[np.ndarray],
        offsets: np.ndarray | Sequence[np.ndarray],
        config: AutoConfig,
        *,
        workers: int = 1,
    ) -> CommonGrams:
        """Grams held by more than ``max(common_min_df, common_share · N)`` of the N sets; the
        sets as one ``(values, offsets)`` or as parts of them (lists of both, in order: no
        joined copy of every gram)."""
        parts = [offsets] if isinstance(offsets, np.ndarray) else list(offsets)
        n = sum(len(o) - 1 for o in parts)
        min_df = max(config.common_min_df, int(config.common_share * n))
        values = frequent_values(values, min_df, workers=workers)
        return cls(values, n, min_df, gram=config.gram, words=config.word_grams)

    def digest(self) -> str:
        """A short identity of the table (persisted with stores built on it)."""
        import hashlib

        h = hashlib.sha256(np.ascontiguousarray(self.values, np.uint64).tobytes())
        return f"{self.version}:{len(self.values)}:{h.hexdigest()[:16]}"

    def save(self, path: Any) -> None:
        np.savez_compressed(
            path,
            values=self.values,
            documents=self.documents,
            min_df=self.min_df,
            version=np.array(self.version),
            gram=self.gram,
            words=self.words,
        )

    @classmethod
    def load(cls, path: Any) -> CommonGrams:
        """Read a table :meth:`save` wrote; a missing or foreign file is an ``InputError``."""
        import zipfile
        import zlib

        try:
            z = np.load(path, allow_pickle=False)
            if not isinstance(z, np.lib.npyio.NpzFile):  # a .npy array: not an archive
                raise ValueError("a NumPy array, not a .npz archive")
            with z:
                version = str(z["version"])
                values = z["values"].astype(np.uint64)
                documents, min_df = int(z["documents"]), int(z["min_df"])
                gram = int(z["gram"]) if "gram" in z.files else 0
                words = int(z["words"]) if "words" in z.files else 0  # older: characters
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, zlib.error) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            if "pickle" in reason:  # numpy's advice to load it unsafely: not ours to give
                reason = "not a NumPy .npz archive"
            raise InputError(
                f"not a neardup common-gram table ({reason}); pass the common_grams.npz "
                "that `neardup dedup` wrote",
                source=str(path),
            ) from None
        if version != TABLE_VERSION:
            raise ConfigError(
                f"{path}: common-gram table version {version!r}, this neardup reads "
                f"{TABLE_VERSION!r}; refit it with `neardup dedup` on the original input"
            )
        return cls(values, documents, min_df, gram=gram, words=words)

    def check_gram(self, gram: int, words: int = 0) -> None:
        """Refuse a table that counts other grams than the method that uses it (``auto``'s
        3-grams, ``paragraph``'s 5-grams and word grams): its values would match nothing, or
        the wrong grams, silently."""
        if (self.gram and self.gram != gram) or self.words != words:  # gram 0: before words
            raise ConfigError(
                f"the common-gram table counts {_kind(self.gram, self.words)} and this method "
                f"uses {_kind(gram, words)}: pass the common_grams.npz a run of the same method "
                "and options wrote (or none, to fit one)"
            )


def _kind(gram: int, words: int) -> str:
    """How a table's grams are made, in words."""
    if not gram:  # saved before tables recorded it
        return "character grams of an unrecorded length"
    return f"{gram}-grams" + (f" (alphabetic grams of {words} words)" if words else "")


def frequent_values(
    values: np.ndarray | Sequence[np.ndarray], floor: int, *, workers: int = 1
) -> np.ndarray:
    """The values (uint64 hashes) that occur more than ``floor`` times, sorted — exactly, without
    sorting them all: a value occurring more than ``floor`` times lies in a bucket (by its low
    bits) counted more than ``floor`` times, and only the values of such buckets are sorted and
    counted. Hashes spread evenly over the buckets (about ``floor / 4`` values each, 2^10 to
    2^22 buckets), so almost every bucket is light. A floor under ``FREQUENT_MIN_FLOOR`` (a
    Spark partition's share of it, say) leaves few light buckets: everything is counted.
    ``values`` may be one array or parts of one (counted where they are, never joined unless
    most values are in heavy buckets)."""
    parts = [values] if isinstance(values, np.ndarray) else list(values)
    parts = [np.asarray(p, np.uint64) for p in parts]
    size = sum(len(p) for p in parts)
    if floor < FREQUENT_MIN_FLOOR:
        return _frequent_of_all(concat(parts, np.uint64), floor, workers)
    bits = int(np.clip(np.ceil(np.log2(max(1, 4 * size // floor))), 10, 22))
    mask = np.uint64((1 << bits) - 1)
    pieces = [(p, a, b) for p in parts for a, b in chunk_ranges(len(p), FREQUENT_CHUNK)]

    def count(lo: int, hi: int) -> np.ndarray:  # one thread's share, a piece at a time
        total = np.zeros(1 << bits, np.int64)
        for p, a, b in pieces[lo:hi]:
            total += np.bincount((p[a:b] & mask).astype(np.intp), minlength=1 << bits)
        return total

    total = np.zeros(1 << bits, np.int64)
    for part in map_ranges(
        count, len(pieces), size=per_worker(len(pieces), workers), workers=workers
    ):
        total += part
    heavy = total > floor
    if 2 * int(total[heavy].sum()) > size:  # most values are common (English text)
        return _frequent_of_all(concat(parts, np.uint64), floor, workers)
    # weibo_ced_zh: 3 % of the values are in heavy buckets, cctv_xwlb_news_zh: 30 %
    held = [p[a:b][heavy[(p[a:b] & mask).astype(np.intp)]] for p, a, b in pieces]
    return _frequent_of_all(concat(held, np.uint64), floor, workers)


def _frequent_of_all(values: np.ndarray, floor: int, workers: int) -> np.ndarray:
    uniq, counts = _value_counts(values, workers=workers)
    return uniq[counts > floor].astype(np.uint64)


def _value_counts(values: np.ndarray, *, workers: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values, return_counts=True)`` of uint64 hashes, sorted on ``workers``
    threads: the values are split by their top bits into ranges (hashes fill them evenly), each
    range is counted on its own, and the ranges joined in order are the same arrays."""
    if workers <= 1 or len(values) < PARALLEL_UNIQUE:
        return _unique_counts(values)
    bits = max(1, int(np.ceil(np.log2(2 * workers))))
    top = values >> np.uint64(64 - bits)
    ranges = [values[top == b] for b in range(1 << bits)]
    del top
    found = map_ranges(
        lambda lo, _hi: _unique_counts(ranges[lo]),
        len(ranges),
        size=1,
        workers=workers,
    )
    return np.concatenate([u for u, _ in found]), np.concatenate([c for _, c in found])


def _unique_counts(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(values, return_counts=True)`` of hashes, sorted by the compiled bucket sort
    (``_kernels.sort_per_doc`` of one document: 0.6 s for 13 million where numpy takes 0.9)."""
    values = np.ascontiguousarray(values, np.uint64)
    ordered = _kernels.sort_per_doc(values, np.array([0, len(values)], np.int64))
    starts = np.flatnonzero(run_firsts(ordered))
    return ordered[starts], np.diff(np.r_[starts, len(ordered)]).astype(np.int64)
