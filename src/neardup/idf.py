"""Inverse document frequency tables keyed by feature hash (for TF-IDF weights).

The default table is jieba's ``idf.txt`` (about 350,000 words; shipped inside the ``jieba``
package). A table can also be read from any ``word idf`` text file, or fitted on a corpus with
``idf = ln(N / df)``. A word missing from the table gets the table's median IDF (reference 003).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

import numpy as np

from .errors import ConfigError, InputError


@dataclass(frozen=True)
class IdfTable:
    hashes: np.ndarray  # sorted unique uint64 feature hashes
    values: np.ndarray  # float64 IDF of each hash
    median: float

    def lookup(self, hashes: np.ndarray) -> np.ndarray:
        """IDF of every hash in ``hashes`` (the median for unknown ones)."""
        if not len(self.hashes):
            return np.full(len(hashes), self.median)
        pos = np.searchsorted(self.hashes, hashes)
        pos = np.minimum(pos, len(self.hashes) - 1)
        found = self.hashes[pos] == hashes
        return np.where(found, self.values[pos], self.median)

    def digest(self) -> str:
        """A digest of the table's contents: stored beside a store's parameters, so that a store
        whose fingerprints were weighed by another table (the file edited, jieba upgraded) is
        refused by name rather than silently missing every copy."""
        h = hashlib.sha256(np.ascontiguousarray(self.hashes, np.uint64).tobytes())
        h.update(np.ascontiguousarray(self.values, np.float64).tobytes())
        h.update(np.float64(self.median).tobytes())
        return h.hexdigest()[:16]

    @classmethod
    def from_words(cls, words: list[str], values: np.ndarray) -> IdfTable:
        from .simhash import hash_features

        hashes = hash_features(words)
        order = np.argsort(hashes, kind="stable")
        hashes, vals = hashes[order], np.asarray(values, np.float64)[order]
        keep = np.r_[True, hashes[1:] != hashes[:-1]]
        median = float(np.median(vals)) if len(vals) else 1.0
        return cls(hashes[keep], vals[keep], median)

    @classmethod
    def fit(cls, hashes: np.ndarray, offsets: np.ndarray) -> IdfTable:
        """IDF fitted on a corpus given as feature hashes with per-document offsets."""
        n_docs = max(len(offsets) - 1, 1)
        doc = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
        pairs = (
            np.unique(np.stack([doc.astype(np.uint64), hashes]), axis=1) if len(hashes) else None
        )
        if pairs is None:
            return cls(np.empty(0, np.uint64), np.empty(0), 1.0)
        uniq, df = np.unique(pairs[1], return_counts=True)
        values = np.log(n_docs / df)
        return cls(uniq, values, float(np.median(values)))


def _read_table(lines, source: str) -> IdfTable:
    words: list[str] = []
    values: list[float] = []
    for number, line in enumerate(lines, 1):
        parts = line.strip().split()
        if not parts:
            continue
        if len(parts) != 2:
            raise InputError("expected 'word idf' on each line", source=source, record=number)
        try:
            value = float(parts[1])
        except ValueError:
            raise InputError(
                f"idf {parts[1]!r} is not a number", source=source, record=number
            ) from None
        if not math.isfinite(value):
            raise InputError(f"idf {parts[1]!r} is not finite", source=source, record=number)
        words.append(parts[0])
        values.append(value)
    if not words:
        raise InputError("holds no 'word idf' lines", source=source)
    return IdfTable.from_words(words, np.array(values))


@lru_cache(maxsize=4)
def load_idf(name: str = "default") -> IdfTable:
    """The IDF table named by ``FingerprintConfig.idf``: ``default`` (jieba's) or a file path."""
    if name == "corpus":
        raise ConfigError(
            "idf='corpus' is fitted on the input: call Fingerprinter.fit(texts) first"
        )
    if name == "default":
        try:
            ref = resources.files("jieba.analyse").joinpath("idf.txt")
            text = ref.read_text(encoding="utf-8")
        except (ModuleNotFoundError, FileNotFoundError) as exc:
            raise ConfigError(
                "the default IDF table comes from the 'jieba' package: pip install jieba "
                "(or pass idf='corpus' or the path of a 'word idf' file)"
            ) from exc
        return _read_table(text.splitlines(), "jieba/analyse/idf.txt")
    path = Path(name)
    if not path.is_file():
        raise ConfigError(
            f"idf={name!r}: no such file; use 'default', 'corpus' or a 'word idf' file"
        )
    try:
        with path.open(encoding="utf-8") as handle:
            return _read_table(handle, str(path))
    except UnicodeDecodeError as exc:
        raise InputError(f"not valid UTF-8 ({exc.reason})", source=str(path)) from None
