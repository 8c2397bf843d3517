"""Deduplicate new documents *against a reference*: remove what duplicates the reference only.

Positions ``0 .. n_reference-1`` of a batch are the reference (an already cleaned corpus, a
training set), the rest are new documents (a new crawl, a test set). The answer is the one the
online detector gives for ``index add REFERENCE`` then ``index query NEW``:

- the reference is deduplicated among itself by the greedy rule, which decides which reference
  documents a new one may match (only kept ones, as in the detector) — but the reference is
  *untouched*: every reference document stays its own representative in the result;
- a new document is removed when it matches a kept reference document (it joins the best one);
  new documents are never compared with each other (a query does not insert), so two new copies
  of one story that is not in the reference are both kept.

Methods report identical texts as a star around the first (unit links, see
:mod:`neardup.cluster`) with verified pairs only between the first members; a new document
therefore takes the kept reference document it is identical to, else the best kept reference
match of its unit's first member — what checking its own text against the detector finds.

The reference may also be a **store** (:func:`match_store`): a corpus indexed by ``neardup index
add`` or the service. Each new document is checked against the store's kept documents, as
``index query`` does; the stored documents it matches become the reference positions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .dedup import DedupResult, cluster_result, linked_result
from .errors import ConfigError
from .pairs import PairSet, method_code

STORE_CHUNK = 10_000  # documents checked per call: bounds the memory of their preparation


@dataclass(frozen=True)
class StoreMatches:
    """What a store holds of the documents some new text duplicates, and those pairs.

    ``ids``, ``lengths``, ``texts`` (what the store keeps of a text: the method's compared form,
    or "" when it keeps none) describe reference positions ``0 .. len(ids)-1``, in order of first
    match; ``pairs`` link each matched new text ``i`` (position ``len(ids) + i``) to its best
    match."""

    ids: list[str]
    lengths: np.ndarray
    texts: list[str]
    pairs: PairSet


def match_store(detector: Any, texts: Sequence[str], *, chunk: int = STORE_CHUNK) -> StoreMatches:
    """Each text checked against ``detector``'s store (never inserted; see the module text)."""
    best = []
    for start in range(0, len(texts), chunk):
        best += [
            r.matches[0] if r.matches else None
            for r in detector.check_many(texts[start : start + chunk])
        ]
    position: dict[str, int] = {}
    for m in best:
        if m is not None:
            position.setdefault(m.id, len(position))
    stored = [detector.store.get(doc_id) for doc_id in position]
    topic = getattr(detector.method.config, "evidence", None) == "topic"  # prints, not text
    new = np.array([i for i, m in enumerate(best) if m is not None], np.int64)
    found = [best[i] for i in new.tolist()]
    pairs = PairSet(
        np.array([position[m.id] for m in found], np.int64),
        new + len(position),
        np.array([-1 if m.distance is None else m.distance for m in found], np.int16),
        np.array([np.nan if m.similarity is None else m.similarity for m in found], np.float32),
        np.array([method_code(m.method) for m in found], np.uint8),
    )
    # a document another process deleted since the check: no length, no text to show
    return StoreMatches(
        list(position),
        np.array([0 if d is None else d.length for d in stored], np.int64),
        [_stored_text(None if d is None else d.payload, topic=topic) for d in stored],
        pairs,
    )


def _stored_text(payload: dict[str, Any] | None, *, topic: bool) -> str:
    payload = payload or {}
    if isinstance(payload.get("text"), str):
        return payload["text"]
    paragraphs = payload.get("paragraphs")
    if not topic and paragraphs and all(isinstance(p, str) for p in paragraphs):
        return "\n".join(paragraphs)
    return ""


def against_result(
    method_name: str,
    pairs: PairSet,
    n: int,
    *,
    n_reference: int,
    fingerprints: np.ndarray | None = None,
) -> DedupResult:
    """Clusters of ``n`` documents whose first ``n_reference`` are the reference (see above)."""
    if not 0 <= n_reference <= n:
        raise ConfigError(f"n_reference={n_reference} must be between 0 and n={n}")
    # 1. which reference documents a new one may match: the reference's own greedy answer
    inside = pairs.select(pairs.right < n_reference)
    ref_fps = None if fingerprints is None else fingerprints[:n_reference]
    ref = cluster_result(method_name, inside, n_reference, keep="first", fingerprints=ref_fps)
    kept = np.zeros(n, np.bool_)
    kept[:n_reference] = ref.clusters.is_representative
    # 2. each new document: the kept reference document it is identical to, else the best
    #    verified match of its unit's first member among kept reference documents
    links = pairs.unit_links()
    unit = np.arange(n, dtype=np.int64)
    unit[pairs.right[links]] = pairs.left[links]
    link_of = np.full(n, -1, np.int64)
    link_of[pairs.right[links]] = np.flatnonzero(links)
    best, best_pair = _best_kept_match(pairs, ~links, kept, n)
    rep = np.arange(n, dtype=np.int64)
    chosen = np.full(n, -1, np.int64)
    new = np.arange(n_reference, n)
    first = unit[new]
    identical = kept[first] & (first != new)
    rep[new[identical]] = first[identical]
    chosen[new[identical]] = link_of[new[identical]]
    matched = ~identical & (best[first] >= 0)
    rep[new[matched]] = best[first[matched]]
    chosen[new[matched]] = best_pair[first[matched]]
    return linked_result(method_name, pairs, rep, chosen, fingerprints=fingerprints)


def _best_kept_match(
    pairs: PairSet, usable: np.ndarray, kept: np.ndarray, n: int
) -> tuple[np.ndarray, np.ndarray]:
    """Per document, its closest kept partner over the ``usable`` pairs (ties to the earliest)
    and that pair's index; -1 where there is none."""
    idx = np.flatnonzero(usable)
    close = pairs.closeness()[idx]
    source = np.concatenate([pairs.left[idx], pairs.right[idx]])
    target = np.concatenate([pairs.right[idx], pairs.left[idx]])
    which = np.concatenate([idx, idx])
    closeness = np.concatenate([close, close])
    ok = kept[target]
    source, target, which, closeness = source[ok], target[ok], which[ok], closeness[ok]
    order = np.lexsort((target, -closeness, source))
    source, target, which = source[order], target[order], which[order]
    firsts = np.r_[True, source[1:] != source[:-1]] if len(source) else np.empty(0, np.bool_)
    best = np.full(n, -1, np.int64)
    best_pair = np.full(n, -1, np.int64)
    best[source[firsts]] = target[firsts]
    best_pair[source[firsts]] = which[firsts]
    return best, best_pair
