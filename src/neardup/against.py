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
"""

from __future__ import annotations

import numpy as np

from .dedup import DedupResult, cluster_result, linked_result
from .errors import ConfigError
from .pairs import PairSet


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
