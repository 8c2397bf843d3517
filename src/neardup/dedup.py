"""The facade: texts in, verified pairs and clusters out, with one method chosen by name.

>>> result = dedup_texts(["The cat sat on the mat.", "THE  CAT SAT ON THE MAT.", "Dogs bark."])
>>> result.clusters.cluster_id.tolist(), result.clusters.representative.tolist()
([0, 0, 1], [0, 0, 2])
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .cluster import (
    CLUSTER_RULES,
    Clusters,
    cluster_pairs,
    clusters_from_representatives,
    greedy_representatives,
    processing_order,
)
from .errors import ConfigError, InputError, refuse_unordered
from .memory import batch_collection
from .methods import DEFAULT_METHOD, Method, create
from .pairs import METHODS, PairSet, method_code
from .parallel import resolve_workers
from .simhash import hamming_distances


@dataclass(eq=False)
class DedupResult:
    """Pairs, clusters and per-document evidence of one deduplication run (compared by
    identity: its fields are arrays, whose ``==`` has no single truth value)."""

    method: str
    pairs: PairSet
    clusters: Clusters
    distance_to_representative: np.ndarray  # int16, -1 where the method has no distance
    similarity_to_representative: np.ndarray  # float32, NaN where not verified
    method_to_representative: np.ndarray  # uint8 code into neardup.pairs.METHODS
    timings: dict[str, float] = field(default_factory=dict)
    fingerprints: np.ndarray | None = None
    # verified pairs that are not duplicates (the paragraph method's partial duplicates):
    # reported with --pairs, never part of the clusters
    related: PairSet | None = None

    def method_names(self) -> list[str]:
        return [METHODS[c] for c in self.method_to_representative.tolist()]


def evidence_to_representative(
    pairs: PairSet,
    clusters: Clusters,
    *,
    default_method: str,
    fingerprints: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distance, similarity and method linking each document to its representative.

    The distance is recomputed from fingerprints where there are any; the similarity and method
    come from the direct pair (representative, document) when the method reported one; the
    method otherwise from the smallest pair ``(left, right)`` that touches the document.
    """
    n = len(clusters)
    rep = clusters.representative
    dist = np.full(n, -1, np.int16)
    sim = np.full(n, np.nan, np.float32)
    code = np.full(n, method_code(default_method), np.uint8)
    if fingerprints is not None and n:
        dist = hamming_distances(fingerprints, fingerprints[rep])
    members = np.flatnonzero(rep != np.arange(n))
    if not len(pairs) or not len(members):
        dist[rep == np.arange(n)] = 0
        return dist, sim, code
    keys = pairs.left.astype(np.int64) * n + pairs.right
    order = np.argsort(keys)
    sorted_keys = keys[order]
    lo = np.minimum(rep[members], members)
    hi = np.maximum(rep[members], members)
    want = lo * n + hi
    pos = np.minimum(np.searchsorted(sorted_keys, want), len(sorted_keys) - 1)
    direct = sorted_keys[pos] == want
    idx = order[pos]
    # documents without a direct pair: the smallest (left, right) pair that touches them, a
    # rule that does not depend on the order pairs were found in (the Spark job applies it too)
    touch = np.concatenate([pairs.left, pairs.right])
    which = np.concatenate([np.arange(len(pairs)), np.arange(len(pairs))])
    first_pair = np.full(n, -1, np.int64)
    t_order = np.lexsort((np.concatenate([keys, keys]), touch))
    t_sorted = touch[t_order]
    starts = np.r_[True, t_sorted[1:] != t_sorted[:-1]]
    first_pair[t_sorted[starts]] = which[t_order][starts]
    chosen = np.where(direct, idx, first_pair[members])
    ok = chosen >= 0
    sim[members[ok & direct]] = pairs.similarity[chosen[ok & direct]]
    code[members[ok]] = pairs.method[chosen[ok]]
    if fingerprints is None:
        dist[members[ok & direct]] = pairs.distance[chosen[ok & direct]]
    dist[rep == np.arange(n)] = 0
    return dist, sim, code


@batch_collection()
def dedup_with(
    method: Method,
    texts: Sequence[str],
    *,
    keep: str = "first",
    lengths: np.ndarray | None = None,
    clusters: str = "greedy",
    workers: int | None = None,
    compared: bool = False,
) -> DedupResult:
    """Run an already-built method over ``texts`` and cluster its pairs; ``workers`` threads
    (default: every core) where the method runs in parallel — the result is the same.
    ``compared``: ``texts`` are the method's compared texts (``method.compared``), made while
    the input was read, so that a batch holds no raw text; a list of them is taken over (the
    method empties it once it no longer needs every one)."""
    if hasattr(method, "workers"):
        method.workers = resolve_workers(workers)  # type: ignore[attr-defined]
    from .compiling import run_of_texts, texts_are_small
    from .warm import warm  # not at import: ``python -m neardup.warm`` runs it as a script

    warm(method.name, workers=resolve_workers(workers), large=not texts_are_small(texts))
    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    n = len(texts)  # with ``compared``, the method empties the list
    fingerprints = None
    if hasattr(method, "pairs_from_fingerprints"):
        from .normalize import normalize_many

        normalized = normalize_many(texts, method.config.normalize)  # type: ignore[attr-defined]
        fingerprints = method.fingerprinter.fingerprint_many(normalized, normalized=True)  # type: ignore[attr-defined]
        timings["fingerprint"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        pairs = method.pairs_from_fingerprints(fingerprints, normalized)  # type: ignore[attr-defined]
    else:
        with run_of_texts(texts):  # the batch, not each chunk of it, takes kernels or twins
            if compared:
                pairs = method.find_pairs(texts, compared=True)  # type: ignore[call-arg]
            else:
                pairs = method.find_pairs(texts)
    timings["find_pairs"] = time.perf_counter() - t0
    for stage, seconds in (getattr(method, "timings", None) or {}).items():
        timings[f"find_pairs.{stage}"] = seconds
    t0 = time.perf_counter()
    if lengths is None and keep == "longest":
        if compared:
            raise ConfigError("keep='longest' on compared texts needs the texts' lengths")
        lengths = np.fromiter((len(t) for t in texts), np.int64, count=len(texts))
    result = cluster_result(
        method.name,
        pairs,
        n,
        keep=keep,
        lengths=lengths,
        fingerprints=fingerprints,
        clusters=clusters,
    )
    timings["cluster"] = time.perf_counter() - t0
    result.timings = timings
    result.related = getattr(method, "related_pairs", None)
    return result


def containers(method_name: str, pairs: PairSet) -> tuple[np.ndarray, np.ndarray] | None:
    """``(container, contained)`` positions of the pairs whose evidence says one document holds
    the other (``a_in_b``/``b_in_a``); None for a method that does not report containment
    (only ``paragraph`` does)."""
    if method_name != "paragraph":
        return None
    outer, inner = [], []
    for (a, b), ev in pairs.evidence.items():
        if ev.get("containment") == "a_in_b":
            outer.append(b)
            inner.append(a)
        elif ev.get("containment") == "b_in_a":
            outer.append(a)
            inner.append(b)
    return np.asarray(outer, np.int64), np.asarray(inner, np.int64)


def check_cluster_rule(method_name: str, *, clusters: str, keep: str) -> None:
    """Refuse a cluster rule that would remove what the method's pairs do not say is copied:
    connected components of the paragraph method's containment pairs (a digest of three
    stories would remove all three), or ``keep="container"`` outside the greedy rule."""
    if clusters != "components":
        return
    if method_name == "paragraph":
        raise ConfigError(
            "the paragraph method's pairs are containment relations, not an equivalence: "
            "connected components would merge the stories a digest contains and remove "
            "them all (clusters='components'); use the greedy rule (clusters='greedy', "
            "--clusters greedy)"
        )
    if keep == "container":
        raise ConfigError(
            "keep='container' orders the greedy rule; with clusters='components' use "
            "keep='first' or 'longest'"
        )


def cluster_result(
    method_name: str,
    pairs: PairSet,
    n: int,
    *,
    keep: str = "first",
    lengths: np.ndarray | None = None,
    fingerprints: np.ndarray | None = None,
    clusters: str = "greedy",
) -> DedupResult:
    """Cluster a method's pairs over ``n`` documents and attach the per-document evidence.

    ``clusters="greedy"`` (the default) applies the non-chaining rule of :mod:`neardup.cluster`;
    ``"components"`` takes connected components.
    """
    if clusters not in CLUSTER_RULES:
        raise ConfigError(
            f"clusters={clusters!r} is not supported; choose one of {', '.join(CLUSTER_RULES)}"
        )
    default = method_name if method_name in METHODS else "exact"
    check_cluster_rule(method_name, clusters=clusters, keep=keep)
    if clusters == "components":
        found = cluster_pairs(n, pairs.left, pairs.right, keep=keep, lengths=lengths)
        dist, sim, code = evidence_to_representative(
            pairs, found, default_method=default, fingerprints=fingerprints
        )
        return DedupResult(method_name, pairs, found, dist, sim, code, {}, fingerprints)
    links = pairs.unit_links()
    unit = np.arange(n, dtype=np.int64)
    unit[pairs.right[links]] = pairs.left[links]
    order = processing_order(
        n,
        keep=keep,
        lengths=lengths,
        containers=containers(method_name, pairs) if keep == "container" else None,
        unit=unit,
    )
    link_of = np.full(n, -1, np.int64)
    link_of[pairs.right[links]] = np.flatnonzero(links)
    between = np.flatnonzero(~links & (unit[pairs.left] != unit[pairs.right]))
    rep, via = greedy_representatives(
        n,
        pairs.left[between],
        pairs.right[between],
        pairs.closeness()[between],
        unit=unit,
        order=order,
    )
    # the pair linking each duplicate to its representative: a verified pair, or the unit link
    # of the document (or of its representative) for identical documents
    chosen = np.full(n, -1, np.int64)
    chosen[via >= 0] = between[via[via >= 0]]
    copies = (via < 0) & (rep != np.arange(n))
    chosen[copies] = np.maximum(link_of[copies], link_of[rep[copies]])
    return linked_result(method_name, pairs, rep, chosen, fingerprints=fingerprints)


def linked_result(
    method_name: str,
    pairs: PairSet,
    representative: np.ndarray,
    chosen: np.ndarray,
    *,
    fingerprints: np.ndarray | None = None,
) -> DedupResult:
    """The result whose duplicates are linked to ``representative`` by the pairs ``chosen``
    (an index into ``pairs``, -1 for none); distances from fingerprints when there are any."""
    rep = np.asarray(representative, np.int64)
    n = len(rep)
    default = method_name if method_name in METHODS else "exact"
    has = chosen >= 0
    dist = np.full(n, -1, np.int16)
    sim = np.full(n, np.nan, np.float32)
    code = np.full(n, method_code(default), np.uint8)
    dist[has] = pairs.distance[chosen[has]]
    sim[has] = pairs.similarity[chosen[has]]
    code[has] = pairs.method[chosen[has]]
    if fingerprints is not None and n:
        dist = hamming_distances(fingerprints, fingerprints[rep])
    dist[rep == np.arange(n)] = 0
    found = clusters_from_representatives(rep)
    return DedupResult(method_name, pairs, found, dist, sim, code, {}, fingerprints)


def text_list(texts: Any) -> Sequence[str]:
    """``texts`` as a sequence of strings, checked: a ``str``, a dict or a set is refused (it
    would be read as characters, keys or in no order); the first item that is not a ``str``
    is named with its position."""
    refuse_unordered(texts, "texts", "a sequence of strings (a list)")
    if hasattr(texts, "to_pylist"):  # an Arrow array or chunked array
        texts = texts.to_pylist()
    elif not isinstance(texts, Sequence) or hasattr(texts, "iloc"):  # iterables, pandas
        try:
            texts = list(texts)
        except TypeError:  # None, a number: not a collection of texts at all
            raise InputError(
                f"texts must be a sequence of strings (a list), not {type(texts).__name__}"
            ) from None
    if all(type(t) is str for t in texts):
        return texts
    bad = first_non_string(texts)
    if bad is not None:
        raise InputError(f"texts[{bad[0]}] {bad[1]}")
    return [str(t) for t in texts]  # subclasses (NumPy's str_) as plain strings


def first_non_string(items: Iterable[Any]) -> tuple[int, str] | None:
    """The position of the first item that is not a ``str`` and what it is instead (``is a
    int, not a str: 5``); None when every item is one."""
    for k, item in enumerate(items):
        if not isinstance(item, str):
            return k, f"is a {type(item).__name__}, not a str: {f'{item!r}'[:60]}"
    return None


def dedup_texts(
    texts: Sequence[str],
    *,
    method: str = DEFAULT_METHOD,
    keep: str = "first",
    lengths: np.ndarray | None = None,
    clusters: str = "greedy",
    workers: int | None = None,
    **method_options: Any,
) -> DedupResult:
    """Deduplicate ``texts`` (a sequence of strings; any other iterable of them, an Arrow
    array or a pandas Series is taken as a list) with the named method (options: the fields of
    its config) on ``workers`` threads (default: every core; the result does not depend on
    it). An item that is not a string, or an empty text (or only white space: `neardup dedup`
    skips those; no method would compare anything of them), is an ``InputError`` naming its
    position."""
    texts = text_list(texts)
    if "" in texts or any(map(str.isspace, texts)):
        blank = next(k for k, t in enumerate(texts) if not t or t.isspace())
        raise InputError(
            f"texts[{blank}] is empty (or only white space), which `neardup dedup` skips; "
            "leave such texts out"
        )
    return dedup_with(
        create(method, **method_options),
        texts,
        keep=keep,
        lengths=lengths,
        clusters=clusters,
        workers=workers,
    )
