"""DRPKP paragraph key-phrase fingerprints (reference 002): the ``topic`` evidence of ``paragraph``.

Per paragraph: segment and POS-tag with rjieba, keep nouns and verbs (for Latin text: words that
are not stop words), take the 10 most frequent as topic words, weight each by

    frequency  count / number of kept words in the paragraph
  + context    0.1 · n, n = most topic-word occurrences inside one 20-character window around it
  + position   0.3 in the title or first paragraph, 0.2 in the last, else 0.1 / x for the x-th,

and fingerprint the paragraph with a weighted 64-bit SimHash of those words. Paragraphs with fewer
than ``min_words`` topic words are left out (counted).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from . import _kernels
from .config import NormalizeConfig
from .features import paragraphs as split_paragraphs
from .normalize import normalize_many
from .simhash import hash_features

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


def topic_prints(
    texts: Sequence[str], *, normalize: NormalizeConfig, min_words: int, unwrap: bool = True
) -> ParagraphPrints:
    """Topic-word fingerprints of every paragraph of ``texts`` with at least ``min_words`` topic
    words (the others are counted in ``skipped_short``); ``unwrap``: join hard-wrapped lines
    (:func:`neardup.features.paragraphs`)."""
    paras_per_doc = [split_paragraphs(t, unwrap=unwrap) for t in texts]
    flat = [p for ps in paras_per_doc for p in ps]
    norm = normalize_many(flat, normalize)
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
            if len(words) < min_words:
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
