"""64-bit weighted SimHash fingerprints (Charikar; reference 004) and Hamming distance.

Steps for each text: normalise (:mod:`neardup.normalize`) → features (character n-grams, words or
word shingles) → weights (uniform, term frequency, TF-IDF) → 64-bit feature hash
(:mod:`neardup._kernels` documents it) → add the weight to bit ``b``'s counter when the hash has
bit ``b`` set, subtract it otherwise → bit ``b`` of the fingerprint is 1 when its counter is
positive. An empty text (nothing left after normalisation) has fingerprint 0; a text shorter than
the n-gram size is one feature.

>>> fp = Fingerprinter()
>>> hex(fp.fingerprint("Hello, World!")), fp.fingerprint("  "), fp.fingerprint("hello,   world!") == fp.fingerprint("Hello, World!")
('0x3499c2ccf775caba', 0, True)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from . import _kernels
from .config import FingerprintConfig
from .errors import refuse_unordered
from .features import char_ngrams, raw_tokens, word_char_table, word_shingles, words
from .idf import IdfTable, load_idf
from .normalize import encode_texts, normalize, normalize_encoded, normalize_many

_ALL_WORD = np.ones(
    1, dtype=np.bool_
)  # a 1-entry table: every code point >= 1 counts as a word char


def feature_hash(feature: str) -> int:
    """The documented 64-bit hash of one feature (FNV-1a over code points, then fmix64)."""
    cps, _ = encode_texts([feature])
    return int(_kernels.hash_codepoints(cps))


def hash_features(features: Sequence[str]) -> np.ndarray:
    """Feature hashes of many strings at once (uint64)."""
    if not features:
        return np.empty(0, dtype=np.uint64)
    cps, offsets = encode_texts(features)
    # a feature is its own (only) n-gram when n exceeds its length; an empty one hashes as empty
    hashes, _ = _kernels.char_ngram_hashes(cps, offsets, 1 << 30)
    empty = np.diff(offsets) == 0
    if not empty.any():
        return hashes
    out = np.full(len(features), int(_kernels.hash_codepoints(cps[:0])), dtype=np.uint64)
    out[~empty] = hashes
    return out


def hamming_distance(a: int, b: int) -> int:
    """Number of differing bits between two 64-bit fingerprints (a signed one, as SQL stores
    hold them, is read as its unsigned bits, as :func:`hamming_distances` reads it)."""
    mask = (1 << 64) - 1
    for value in (a, b):
        if not -(1 << 63) <= int(value) <= mask:
            raise ValueError(f"{value!r} is not a 64-bit fingerprint")
    return ((int(a) & mask) ^ (int(b) & mask)).bit_count()


def hamming_distances(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Element-wise Hamming distances of two uint64 arrays (int16)."""
    a = np.ascontiguousarray(a, dtype=np.uint64)
    b = np.ascontiguousarray(b, dtype=np.uint64)
    a, b = np.broadcast_arrays(a, b)
    return _kernels.popcount_xor(np.ascontiguousarray(a), np.ascontiguousarray(b))


class Fingerprinter:
    """Turns texts into 64-bit SimHash fingerprints according to a :class:`FingerprintConfig`.

    ``fingerprint_many`` is the fast path (compiled kernels, no per-feature Python); ``fingerprint``
    is a convenience for one text. With ``weights="tfidf"`` and ``idf="corpus"``, call :meth:`fit`
    on the corpus first (``fingerprint_many`` fits on its own input otherwise).
    """

    def __init__(
        self, config: FingerprintConfig | None = None, *, idf_table: IdfTable | None = None
    ):
        self.config = config or FingerprintConfig()
        self._idf = idf_table

    def __repr__(self) -> str:
        return f"Fingerprinter({self.config!r})"

    # -- IDF --------------------------------------------------------------------------------
    def fit(self, texts: Iterable[str]) -> Fingerprinter:
        """A Fingerprinter whose IDF table is fitted on ``texts`` (only for ``idf="corpus"``)."""
        normalized = normalize_many(texts, self.config.normalize)
        hashes, offsets = self._token_hashes(normalized)
        return Fingerprinter(self.config, idf_table=IdfTable.fit(hashes, offsets))

    def _idf_table(self, hashes: np.ndarray, offsets: np.ndarray) -> IdfTable:
        if self._idf is not None:
            return self._idf
        if self.config.idf == "corpus":
            return IdfTable.fit(hashes, offsets)
        self._idf = load_idf(self.config.idf)
        return self._idf

    # -- features ---------------------------------------------------------------------------
    def normalize(self, text: str) -> str:
        return normalize(text, self.config.normalize)

    def features(self, text: str) -> list[str]:
        """The readable features of one text (for explanations and tests)."""
        norm = self.normalize(text)
        cfg = self.config
        if cfg.features == "char":
            return char_ngrams(norm, cfg.ngram)
        tokens = words(norm)
        return tokens if cfg.features == "word" else word_shingles(tokens, cfg.ngram)

    def _token_hashes(self, normalized: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        sep = chr(_kernels.SEP)
        docs = [sep.join(raw_tokens(t)) for t in normalized]
        cps, offsets = encode_texts(docs)
        shingle = 1 if self.config.features == "word" else self.config.ngram
        return _kernels.token_hashes(cps, offsets, word_char_table(), shingle)

    def feature_hashes(self, normalized: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Feature hashes of already-normalised texts, with per-text offsets into them."""
        if self.config.features == "char":
            cps, offsets = encode_texts(normalized)
            return _kernels.char_ngram_hashes(cps, offsets, self.config.ngram)
        return self._token_hashes(normalized)

    # -- fingerprints -------------------------------------------------------------------------
    def fingerprint_many(self, texts: Iterable[str], *, normalized: bool = False) -> np.ndarray:
        """Fingerprints of many texts as a uint64 array (the fast path)."""
        refuse_unordered(texts, "texts", "a sequence of strings (a list)")
        seq = texts if isinstance(texts, (list, tuple)) else list(texts)
        if not seq:
            return np.empty(0, dtype=np.uint64)
        if self.config.features == "char":
            cps, offsets = (
                encode_texts(seq) if normalized else normalize_encoded(seq, self.config.normalize)
            )
            hashes, offsets = _kernels.char_ngram_hashes(cps, offsets, self.config.ngram)
        else:
            norm = seq if normalized else normalize_many(seq, self.config.normalize)
            hashes, offsets = self._token_hashes(norm)
        weights = self.config.weights
        if weights == "tf":
            return _kernels.simhash_counts(hashes, offsets)
        if weights == "uniform":
            return _kernels.simhash_weighted(hashes, np.empty(0), offsets, True)
        idf = self._idf_table(hashes, offsets).lookup(hashes)
        return _kernels.simhash_weighted(hashes, idf, offsets, False)

    def fingerprint(self, text: str) -> int:
        """The fingerprint of one text as an unsigned Python int."""
        if not isinstance(text, str):
            raise TypeError(f"fingerprint() needs a str, got {type(text).__name__}")
        return int(self.fingerprint_many([text])[0])

    def is_empty(self, text: str) -> bool:
        """True when nothing is left of ``text`` after normalisation (its fingerprint is 0)."""
        return not self.normalize(text)

    def fingerprint_features(
        self, features: Sequence[str], weights: Sequence[float] | None = None
    ) -> int:
        """Weighted SimHash of explicit features (e.g. a paragraph's topic words and their weights).

        Features are hashed as given (no normalisation); repeated features add up.
        """
        if weights is not None and len(weights) != len(features):
            raise ValueError(f"{len(features)} features but {len(weights)} weights")
        if not len(features):
            return 0
        hashes = hash_features(list(features))
        w = np.ones(len(features)) if weights is None else np.asarray(weights, dtype=np.float64)
        offsets = np.array([0, len(hashes)], dtype=np.int64)
        return int(_kernels.simhash_weighted(hashes, w, offsets, False)[0])
