"""The ``paragraph`` method: DRPKP paragraph key-phrase fingerprints (reference 002).

Each document is split into paragraphs (its line breaks). Per paragraph: segment and POS-tag
with rjieba, keep nouns and verbs (for Latin text: words that are not stop words), take the 10
most frequent as topic words, weight each by

    frequency  count / number of kept words in the paragraph
  + context    0.1 · n, n = most topic-word occurrences inside one 20-character window around it
  + position   0.3 in the title or first paragraph, 0.2 in the last, else 0.1 / x for the x-th,

and fingerprint the paragraph with a weighted 64-bit SimHash of those words. A document is its
set of paragraph fingerprints. Paragraph pairs within ``max_distance`` are found with the
permuted-table index; for two documents A and B, ``share_a`` is the share of A's paragraphs with
a match in B and ``share_b`` the reverse. A pair is a duplicate when ``max(share_a, share_b) >=
threshold``; ``containment`` says which way (``a_in_b``, ``b_in_a`` or ``mutual``).

Paragraphs with fewer than ``min_words`` topic words carry no evidence and are left out, and so
are paragraph fingerprints shared by more than ``max_paragraph_docs`` documents (boilerplate
headers and footers); both are counted in ``stats``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from .. import _kernels
from ..config import HammingConfig, NormalizeConfig
from ..errors import ConfigError
from ..features import paragraphs as split_paragraphs
from ..index.permuted import hamming_pairs
from ..nearmiss import NearMisses
from ..normalize import normalize_many
from ..pairs import PairSet
from ..simhash import hash_features

_KEEP_POS = ("n", "v", "eng")
_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "if",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "with",
        "from",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "he",
        "she",
        "they",
        "we",
        "you",
        "i",
        "his",
        "her",
        "their",
        "our",
        "your",
        "not",
        "no",
        "so",
        "than",
        "then",
        "there",
        "which",
        "who",
        "whom",
        "what",
        "when",
        "where",
        "how",
        "all",
        "any",
        "each",
        "some",
        "such",
        "can",
        "could",
        "will",
        "would",
        "shall",
        "should",
        "may",
        "might",
        "must",
        "do",
        "does",
        "did",
        "has",
        "have",
        "had",
        "also",
        "into",
        "about",
        "over",
        "after",
        "before",
        "more",
        "most",
        "other",
    ]
)
_WORD = re.compile(r"[^\W_]")
TOPIC_WORDS = 10
WINDOW = 20


@dataclass(frozen=True)
class ParagraphConfig:
    """Options of the ``paragraph`` method (see the module docstring)."""

    max_distance: int = 3
    blocks: int | None = None
    threshold: float = 0.5
    min_words: int = 3
    max_paragraph_docs: int = 50
    normalize: NormalizeConfig = field(default_factory=NormalizeConfig)

    def __post_init__(self) -> None:
        HammingConfig(max_distance=self.max_distance, blocks=self.blocks)
        if not 0.0 < float(self.threshold) <= 1.0:
            raise ConfigError(f"threshold={self.threshold} must be in (0, 1] (share of paragraphs)")
        if not isinstance(self.min_words, int) or self.min_words < 1:
            raise ConfigError(f"min_words={self.min_words!r} must be an integer >= 1")
        if not isinstance(self.max_paragraph_docs, int) or self.max_paragraph_docs < 2:
            raise ConfigError(
                f"max_paragraph_docs={self.max_paragraph_docs!r} must be an integer >= 2"
            )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def topic_words(paragraph: str, *, index: int, count: int) -> tuple[list[str], list[float]]:
    """The weighted topic words of the ``index``-th of ``count`` paragraphs (already normalised)."""
    import rjieba

    words: list[tuple[str, int]] = []  # (word, character position)
    pos = 0
    for word, tag in rjieba.tag(paragraph):
        start = pos
        pos += len(word)
        if not _WORD.search(word):
            continue
        if tag == "eng":
            if word in _STOP or len(word) < 2:
                continue
        elif not tag.startswith(_KEEP_POS):
            continue
        words.append((word, start))
    if not words:
        return [], []
    counts = Counter(w for w, _ in words)
    topics = [w for w, _ in counts.most_common(TOPIC_WORDS)]
    topic_set = set(topics)
    starts = [p for w, p in words if w in topic_set]
    context: dict[str, float] = {}
    for w, p in words:
        if w in topic_set:
            n = sum(1 for q in starts if p - WINDOW // 2 <= q < p + WINDOW // 2)
            context[w] = max(context.get(w, 0.0), 0.1 * n)
    if index == 0:
        position = 0.3
    elif index == count - 1:
        position = 0.2
    else:
        position = 0.1 / (index + 1)
    total = len(words)
    return topics, [counts[w] / total + context[w] + position for w in topics]


@dataclass
class ParagraphPrints:
    """Paragraph fingerprints of a batch: ``doc`` and ``index`` of each kept paragraph."""

    fingerprints: np.ndarray  # uint64
    doc: np.ndarray  # int64 document position
    index: np.ndarray  # int64 paragraph index within the document
    counts: np.ndarray  # int64 kept paragraphs per document
    skipped_short: int


class ParagraphMethod:
    """Documents as sets of paragraph fingerprints; duplicates share most paragraphs."""

    name = "paragraph"
    measure = "paragraph_share"
    higher_is_closer = True

    def __init__(self, config: ParagraphConfig | None = None):
        self.config = config or ParagraphConfig()
        self.stats: dict[str, int] = {}
        self.near_misses = NearMisses()  # the last batch's closest rejected candidates

    def online_index(self) -> Any:
        from .incremental import ParagraphOnline

        return ParagraphOnline(self)

    def persisted(self) -> dict[str, Any]:
        """What defines stored data (checked when a store is reopened)."""
        return self.config.to_dict()

    @property
    def threshold(self) -> float:
        return float(self.config.threshold)

    def paragraph_prints(self, texts: Sequence[str]) -> ParagraphPrints:
        paras_per_doc = [split_paragraphs(t) for t in texts]
        flat = [p for ps in paras_per_doc for p in ps]
        norm = normalize_many(flat, self.config.normalize)
        feats: list[str] = []
        weights: list[float] = []
        offsets = [0]
        doc, index = [], []
        short = 0
        k = 0
        for d, ps in enumerate(paras_per_doc):
            kept = 0
            for i in range(len(ps)):
                words, w = topic_words(norm[k], index=i, count=len(ps))
                k += 1
                if len(words) < self.config.min_words:
                    short += 1
                    continue
                feats.extend(words)
                weights.extend(w)
                offsets.append(len(feats))
                doc.append(d)
                index.append(kept)
                kept += 1
        hashes = hash_features(feats) if feats else np.empty(0, np.uint64)
        fps = _kernels.simhash_weighted(
            hashes, np.asarray(weights, np.float64), np.asarray(offsets, np.int64), False
        )
        doc_arr = np.asarray(doc, np.int64)
        return ParagraphPrints(
            fps,
            doc_arr,
            np.asarray(index, np.int64),
            np.bincount(doc_arr, minlength=len(texts)).astype(np.int64),
            short,
        )

    def thresholds(self) -> dict[str, float]:
        """The decision point a report marks, by the measure it applies to."""
        return {"paragraph share": self.config.threshold}

    def find_pairs(self, texts: Sequence[str]) -> PairSet:
        cfg = self.config
        pp = self.paragraph_prints(texts)
        usable = np.flatnonzero(~self._boilerplate(pp))
        pl, pr, _ = hamming_pairs(
            pp.fingerprints[usable], max_distance=cfg.max_distance, blocks=cfg.blocks
        )
        pl, pr = usable[pl], usable[pr]
        cross = pp.doc[pl] != pp.doc[pr]
        pl, pr = pl[cross], pr[cross]
        swap = pp.doc[pl] > pp.doc[pr]
        pl, pr = np.where(swap, pr, pl), np.where(swap, pl, pr)
        da, db = pp.doc[pl], pp.doc[pr]
        n = len(texts)
        pair_key = da * n + db
        keys, inverse = np.unique(pair_key, return_inverse=True)
        matched_a = self._distinct_count(inverse, pp.index[pl], len(keys))
        matched_b = self._distinct_count(inverse, pp.index[pr], len(keys))
        a, b = keys // n, keys % n
        share_a = matched_a / np.maximum(pp.counts[a], 1)
        share_b = matched_b / np.maximum(pp.counts[b], 1)
        score = np.maximum(share_a, share_b)
        keep = score >= cfg.threshold
        self.near_misses = NearMisses()
        self.near_misses.offer(
            a[~keep], b[~keep], score[~keep], threshold=cfg.threshold, route="paragraph share"
        )
        evidence = self._evidence(keys[keep], share_a[keep], share_b[keep], pair_key, pp, pl, pr, n)
        self.stats = {
            "documents": n,
            "paragraphs": len(pp.fingerprints),
            "short_paragraphs_skipped": pp.skipped_short,
            "boilerplate_paragraphs_skipped": len(pp.fingerprints) - len(usable),
            "candidate_document_pairs": len(keys),
            "verified_pairs": int(keep.sum()),
        }
        return PairSet.build(
            a[keep],
            b[keep],
            method="paragraph",
            similarity=score[keep].astype(np.float32),
            evidence=evidence,
        )

    def _boilerplate(self, pp: ParagraphPrints) -> np.ndarray:
        """Paragraphs whose exact fingerprint is held by more than ``max_paragraph_docs`` documents."""
        fps = pp.fingerprints
        if not len(fps):
            return np.zeros(0, bool)
        uniq, inv = np.unique(fps, return_inverse=True)
        per_doc = np.unique(np.stack([inv, pp.doc]), axis=1)
        docs_per_fp = np.bincount(per_doc[0], minlength=len(uniq))
        return docs_per_fp[inv] > self.config.max_paragraph_docs

    @staticmethod
    def _distinct_count(group: np.ndarray, values: np.ndarray, ngroups: int) -> np.ndarray:
        if not len(group):
            return np.zeros(ngroups, np.int64)
        both = np.unique(np.stack([group, values]), axis=1)
        return np.bincount(both[0], minlength=ngroups)

    @staticmethod
    def _evidence(keys, share_a, share_b, pair_key, pp, pl, pr, n) -> dict:
        evidence: dict[tuple[int, int], dict[str, Any]] = {}
        if not len(keys):
            return evidence
        order = np.argsort(pair_key, kind="stable")
        sk = pair_key[order]
        lo = np.searchsorted(sk, keys, side="left")
        hi = np.searchsorted(sk, keys, side="right")
        for key, sa, sb, s, e in zip(
            keys.tolist(), share_a.tolist(), share_b.tolist(), lo.tolist(), hi.tolist(), strict=True
        ):
            idx = order[s:e]
            matched = sorted({(int(pp.index[pl[i]]), int(pp.index[pr[i]])) for i in idx})[:50]
            if sa >= 1.0 and sb >= 1.0:
                containment = "mutual"
            elif sa >= 1.0:
                containment = "a_in_b"
            elif sb >= 1.0:
                containment = "b_in_a"
            else:
                containment = "partial"
            evidence[(key // n, key % n)] = {
                "share_a": round(sa, 4),
                "share_b": round(sb, 4),
                "containment": containment,
                "matched_paragraphs": [list(m) for m in matched],
            }
        return evidence

    def _shares(self, a: str, b: str) -> tuple[float, float, list[list[int]], int, int]:
        pp = self.paragraph_prints([a, b])
        fa, fb = pp.fingerprints[pp.doc == 0], pp.fingerprints[pp.doc == 1]
        if not len(fa) or not len(fb):
            return 0.0, 0.0, [], len(fa), len(fb)
        d = np.bitwise_count(fa[:, None] ^ fb[None, :])
        close = d <= self.config.max_distance
        matched = [[int(i), int(j)] for i, j in zip(*np.nonzero(close), strict=True)]
        return (
            float(close.any(axis=1).mean()),
            float(close.any(axis=0).mean()),
            matched,
            len(fa),
            len(fb),
        )

    def score_pairs(self, left: Sequence[str], right: Sequence[str]) -> np.ndarray:
        if len(left) != len(right):
            raise ValueError(f"{len(left)} left texts but {len(right)} right texts")
        return np.array(
            [max(self._shares(a, b)[:2]) for a, b in zip(left, right, strict=True)],
            dtype=np.float64,
        )

    def compare(self, a: str, b: str) -> dict[str, Any]:
        sa, sb, matched, na, nb = self._shares(a, b)
        return {
            "method": self.name,
            "paragraphs_a": na,
            "paragraphs_b": nb,
            "share_a": round(sa, 4),
            "share_b": round(sb, 4),
            "matched_paragraphs": matched[:50],
            "max_distance": self.config.max_distance,
            "threshold": self.config.threshold,
            "duplicate": bool(max(sa, sb) >= self.config.threshold),
        }
