"""Online check-and-insert over a persistent store (reference 003's production shape).

A :class:`Detector` answers "is this text a near-duplicate, and of which documents?", inserts it,
and survives restarts: on construction it checks the store's algorithm version and parameters
and rebuilds its in-memory index from the store. Inserts are acknowledged only after the store
committed them. One lock covers check + insert, so two near-duplicates sent at the same moment
cannot both be reported unique, and an id is never inserted twice.

Methods: ``simhash`` (64-bit SimHash within ``max_distance``), ``ngram`` (short texts: shared
m-gram + Jaccard ≥ ``threshold``), ``auto`` (short texts by ``ngram``, long texts by SimHash
within ``long_max_distance`` verified by Jaccard ≥ ``threshold``), ``paragraph`` (DRPKP: a
stored document shares at least ``threshold`` of its paragraphs, or of the new document's,
within ``max_distance``; paragraphs of fewer than 3 topic words are not fingerprinted).
For ``ngram`` and ``auto``, texts are compared as the batch ``auto`` method compares short
texts: social-media markup stripped (``strip_markup``), traditional characters folded to
simplified (``fold_traditional``) and punctuation removed (``ignore_punctuation``); documents are
routed by the length of that compared text. What is stored beside each fingerprint: nothing for
``simhash``, that compared text for ``ngram``/``auto`` (to verify), the paragraph fingerprints for
``paragraph``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from .config import FINGERPRINT_VERSION, FingerprintConfig, HammingConfig, NormalizeConfig
from .errors import ConfigError, NeardupError
from .index.ngram import NgramIndex
from .index.permuted import PermutedIndex
from .markup import MARKUP_VERSION, strip_markup
from .methods.paragraph import ParagraphConfig, ParagraphMethod
from .normalize import normalize_many
from .simhash import Fingerprinter, feature_hash
from .variants import fold_traditional
from .verify import similarity_pairs

DETECTOR_METHODS = ("simhash", "ngram", "auto", "paragraph")


class DocumentConflictError(NeardupError):
    """The id is stored with a different text and ``replace`` was not asked for."""


@dataclass(frozen=True)
class DetectorConfig:
    method: str = "simhash"
    max_distance: int = 3
    blocks: int | None = None
    key_length: int = 4
    threshold: float = 0.5
    short_max_length: int = 200
    long_min_length: int = 100
    long_max_distance: int = 8
    store_duplicates: bool = True
    strip_markup: bool = True
    fold_traditional: bool = True
    ignore_punctuation: bool = True
    max_matches: int = 20

    def __post_init__(self) -> None:
        if self.method not in DETECTOR_METHODS:
            raise ConfigError(
                f"method={self.method!r} is not supported online; choose one of "
                f"{', '.join(DETECTOR_METHODS)}"
            )
        HammingConfig(max_distance=self.max_distance, blocks=self.blocks)
        HammingConfig(max_distance=self.long_max_distance)
        if not 0 < self.threshold <= 1:
            raise ConfigError(f"threshold={self.threshold} must be in (0, 1]")

    def persisted(self) -> dict[str, Any]:
        """The parameters that define stored data (checked when a store is reopened)."""
        params = {
            k: v for k, v in asdict(self).items() if k not in ("store_duplicates", "max_matches")
        }
        params["fingerprint"] = FingerprintConfig().to_dict()
        if self.method in ("ngram", "auto") and self.strip_markup:
            params["markup_version"] = MARKUP_VERSION
        if self.method == "paragraph":
            params["paragraph"] = self.paragraph_config().to_dict()
        return params

    def paragraph_config(self) -> ParagraphConfig:
        return ParagraphConfig(
            max_distance=self.max_distance, blocks=self.blocks, threshold=self.threshold
        )


@dataclass(frozen=True)
class Match:
    id: str
    distance: int | None
    similarity: float | None
    method: str


@dataclass(frozen=True)
class CheckResult:
    duplicate: bool
    matches: list[Match]  # the nearest ``max_matches``


@dataclass(frozen=True)
class AddResult:
    duplicate: bool
    matches: list[Match]  # the nearest ``max_matches``
    inserted: bool
    status: str  # inserted | unchanged | duplicate_not_stored | replaced


@dataclass
class _Prepared:
    doc_id: str
    text_hash: int
    normalized: str
    fingerprint: int
    length: int
    compare: str = ""  # what ngram/auto index and verify: markup stripped, variants folded
    paragraphs: list[int] = field(default_factory=list)
    matches: list[Match] = field(default_factory=list)


class Detector:
    """Check-and-insert over ``store`` (see the module docstring)."""

    def __init__(self, *, store: Any, config: DetectorConfig | None = None, **options: Any):
        self.config = config or DetectorConfig(**options)
        self.store = store
        self._lock = threading.RLock()
        self._fingerprinter = Fingerprinter(FingerprintConfig())
        cfg = self.config
        radius = cfg.long_max_distance if cfg.method == "auto" else cfg.max_distance
        self._simhash = PermutedIndex(max_distance=radius, blocks=cfg.blocks)
        self._ngram = NgramIndex(key_length=cfg.key_length, max_posting=None)
        self._texts: dict[str, str] = {}
        self._paragraph = ParagraphMethod(cfg.paragraph_config())
        self._paragraphs = PermutedIndex(max_distance=cfg.max_distance, blocks=cfg.blocks)
        self._paragraph_counts: dict[str, int] = {}
        self._compare_normalize = NormalizeConfig(remove_punctuation=cfg.ignore_punctuation)
        self._hashes: dict[str, int] = {}
        self._duplicates = 0
        store.check_meta(FINGERPRINT_VERSION, cfg.persisted())
        self._load()

    def _load(self) -> None:
        snap = self.store.snapshot()
        for doc_id, fp, th, payload in zip(
            snap.ids,
            snap.fingerprints.tolist(),
            snap.text_hashes.tolist(),
            snap.payloads,
            strict=True,
        ):
            self._index(doc_id, int(fp), payload)
            self._hashes[doc_id] = int(th)

    # -- routing -------------------------------------------------------------------------------
    def _uses_simhash(self, length: int) -> bool:
        cfg = self.config
        return cfg.method == "simhash" or (cfg.method == "auto" and length >= cfg.long_min_length)

    def _uses_ngram(self, length: int) -> bool:
        cfg = self.config
        return cfg.method == "ngram" or (cfg.method == "auto" and length <= cfg.short_max_length)

    def _payload(self, p: _Prepared) -> dict[str, Any] | None:
        """What is stored beside the fingerprint to answer after a restart."""
        if self.config.method == "simhash":
            return None
        if self.config.method == "paragraph":
            return {"paragraphs": [f"{f:016x}" for f in p.paragraphs]}
        return {"text": p.compare}

    def _index(self, doc_id: str, fp: int, payload: dict[str, Any] | None) -> None:
        self._simhash.add(doc_id, fp)
        if self.config.method == "paragraph":
            prints = [int(h, 16) for h in (payload or {}).get("paragraphs", [])]
            for j, f in enumerate(prints):
                self._paragraphs.add((doc_id, j), f)
            self._paragraph_counts[doc_id] = len(prints)
        elif self.config.method != "simhash":
            text = (payload or {}).get("text", "")
            self._texts[doc_id] = text
            if self._uses_ngram(len(text)):
                self._ngram.add(doc_id, text)

    def _unindex(self, doc_id: str) -> None:
        self._simhash.remove(doc_id)
        self._ngram.remove(doc_id)
        for j in range(self._paragraph_counts.pop(doc_id, 0)):
            self._paragraphs.remove((doc_id, j))
        self._texts.pop(doc_id, None)
        self._hashes.pop(doc_id, None)

    def _prepare(self, doc_id: str, text: str) -> _Prepared:
        if not isinstance(text, str):
            raise TypeError(f"text must be a string, got {type(text).__name__}")
        norm = normalize_many([text])[0]
        fp = int(self._fingerprinter.fingerprint_many([norm], normalized=True)[0])
        prepared = _Prepared(doc_id, feature_hash(text), norm, fp, len(text), norm)
        cfg = self.config
        if cfg.method in ("ngram", "auto") and (
            cfg.strip_markup or cfg.fold_traditional or cfg.ignore_punctuation
        ):
            texts = strip_markup([text]) if cfg.strip_markup else [text]
            texts = fold_traditional(texts) if cfg.fold_traditional else texts
            prepared.compare = normalize_many(texts, self._compare_normalize)[0]
        if self.config.method == "paragraph":
            prepared.paragraphs = self._paragraph.paragraph_prints([text]).fingerprints.tolist()
        return prepared

    def _paragraph_matches(self, p: _Prepared, exclude: str | None) -> list[Match]:
        """Stored documents sharing at least ``threshold`` of the paragraphs, either way round."""
        mine: dict[str, set[int]] = {}
        theirs: dict[str, set[int]] = {}
        for i, f in enumerate(p.paragraphs):
            for (doc_id, j), _d in self._paragraphs.query(f):
                if doc_id != exclude:
                    mine.setdefault(doc_id, set()).add(i)
                    theirs.setdefault(doc_id, set()).add(j)
        out = []
        for doc_id, matched in mine.items():
            share = max(
                len(matched) / len(p.paragraphs),
                len(theirs[doc_id]) / self._paragraph_counts[doc_id],
            )
            if share >= self.config.threshold:
                out.append(Match(doc_id, None, round(share, 6), "paragraph"))
        out.sort(key=lambda m: -(m.similarity or 0))
        return out[: self.config.max_matches]

    def _matches(self, p: _Prepared, *, exclude: str | None = None) -> list[Match]:
        cfg = self.config
        if cfg.method == "paragraph":
            return self._paragraph_matches(p, exclude)
        found: dict[str, Match] = {}
        n = len(p.compare)  # stored documents are routed by their compared text too
        if self._uses_simhash(n) or cfg.method == "simhash":
            limit = cfg.max_matches + 1 if cfg.method == "simhash" else None
            for doc_id, d in self._simhash.query(p.fingerprint, limit=limit):
                if doc_id == exclude:
                    continue
                if cfg.method == "simhash" or self._uses_simhash(len(self._texts.get(doc_id, ""))):
                    found[doc_id] = Match(doc_id, d, None, "simhash")
        if self._uses_ngram(n):
            for doc_id in self._ngram.query(p.compare):
                if doc_id != exclude:
                    found.setdefault(doc_id, Match(doc_id, None, None, "ngram"))
        if cfg.method == "simhash" or not found:
            return [m for m in found.values() if m.id != exclude][: cfg.max_matches]
        ids = list(found)
        texts = [p.compare] + [self._texts[i] for i in ids]
        sims = similarity_pairs(
            texts,
            np.zeros(len(ids), np.int64),
            np.arange(1, len(ids) + 1),
            measure="jaccard",
            ngram=3,
        )
        out = [
            Match(i, found[i].distance, round(float(s), 6), found[i].method)
            for i, s in zip(ids, sims.tolist(), strict=True)
            if s >= cfg.threshold
        ]
        out.sort(key=lambda m: (-(m.similarity or 0), m.distance or 0))
        return out[: cfg.max_matches]

    # -- public API ---------------------------------------------------------------------------
    def check(self, text: str) -> CheckResult:
        p = self._prepare("", text)
        with self._lock:
            matches = self._matches(p)
        return CheckResult(bool(matches), matches)

    def add(self, doc_id: str, text: str, *, replace: bool = False) -> AddResult:
        return self.add_many([(doc_id, text)], replace=replace)[0]

    def add_many(
        self,
        items: Sequence[tuple[str, str]],
        *,
        replace: bool = False,
        checkpoint: tuple[str, str] | None = None,
    ) -> list[AddResult]:
        """Check and insert several documents in one store transaction (order matters: a later
        item is checked against the earlier ones)."""
        from .store.base import StoredDocument  # the record type only; no I/O happens here

        prepared = [self._prepare(str(doc_id), text) for doc_id, text in items]
        with self._lock:
            results: list[AddResult] = []
            rows: list[StoredDocument] = []
            added: list[_Prepared] = []
            replaced: list[str] = []
            batch_hashes: dict[str, int] = {}
            try:
                for p in prepared:
                    old = batch_hashes.get(p.doc_id, self._hashes.get(p.doc_id))
                    status = "inserted"
                    if old is not None:
                        if old == p.text_hash:
                            matches = self._matches(p, exclude=p.doc_id)
                            results.append(AddResult(bool(matches), matches, False, "unchanged"))
                            continue
                        if not replace:
                            raise DocumentConflictError(
                                f"document {p.doc_id!r} is already stored with a different text; "
                                "send replace=true to replace it"
                            )
                        status = "replaced"
                        self._unindex(p.doc_id)
                        replaced.append(p.doc_id)
                    matches = self._matches(p, exclude=p.doc_id)
                    duplicate = bool(matches)
                    if duplicate and not self.config.store_duplicates:
                        results.append(AddResult(True, matches, False, "duplicate_not_stored"))
                        continue
                    rows.append(
                        StoredDocument(
                            p.doc_id,
                            p.fingerprint,
                            p.length,
                            p.text_hash,
                            matches[0].id if duplicate else None,
                            time.time(),
                            self._payload(p),
                        )
                    )
                    self._index(p.doc_id, p.fingerprint, self._payload(p))
                    self._hashes[p.doc_id] = p.text_hash
                    batch_hashes[p.doc_id] = p.text_hash
                    added.append(p)
                    results.append(AddResult(duplicate, matches, True, status))
                self.store.put_many(rows, checkpoint=checkpoint)
            except BaseException:
                for p in added:  # nothing acknowledged: the index follows the store
                    self._unindex(p.doc_id)
                for doc_id in replaced:
                    self._restore(doc_id)
                raise
            self._duplicates += sum(1 for r in results if r.inserted and r.duplicate)
        return results

    def _restore(self, doc_id: str) -> None:
        doc = self.store.get(doc_id)
        if doc is not None:
            self._index(doc.id, doc.fingerprint, doc.payload)
            self._hashes[doc.id] = doc.text_hash

    def remove(self, doc_id: str) -> bool:
        with self._lock:
            removed = self.store.delete(doc_id)
            self._unindex(doc_id)
            return removed

    def get(self, doc_id: str):
        return self.store.get(doc_id)

    def __contains__(self, doc_id: str) -> bool:
        return doc_id in self._hashes

    def __len__(self) -> int:
        return len(self._hashes)

    def stats(self) -> dict[str, Any]:
        return {
            "documents": len(self._hashes),
            "method": self.config.method,
            "parameters": self.config.persisted(),
            "store": self.store.url,
            "fingerprint_version": FINGERPRINT_VERSION,
            "duplicates_inserted_since_start": self._duplicates,
            "index_blocks": self._simhash.blocks,
        }
