"""What a dedup run records for its report: distributions and a bounded, stated sample.

``report_data(...)`` builds the JSON ``neardup dedup`` writes as ``report_data.json``:

- distributions over *every* document: cluster sizes, similarity (and Hamming distance) of each
  removed document to its representative per method, text length of kept and removed documents;
- a sample with texts (each cut at ``text_chars``): the ``largest`` clusters with up to
  ``members`` members each (the least similar first), ``random`` removed documents (a seeded
  draw), the ``closest`` removals (lowest similarity, or highest distance) and the method's near
  misses (rejected candidates with the highest score, see :mod:`neardup.nearmiss`).

Its size does not grow with the corpus beyond the distributions (a few hundred numbers).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ..dedup import DedupResult
from ..pairs import METHODS

DATA_VERSION = "neardup-report-data-1"
_EXACT = METHODS.index("exact")
_SIM_BINS = 20


@dataclass(frozen=True)
class SampleSizes:
    """How much of a run the report shows (stated in the report)."""

    largest: int = 10
    members: int = 3
    random: int = 30
    closest: int = 20
    text_chars: int = 2000
    seed: int = 0


def sample_positions(
    result: DedupResult, near_misses: list[dict[str, Any]], sizes: SampleSizes
) -> dict[str, Any]:
    """The sampled rows (document positions, no texts yet)."""
    c = result.clusters
    n = len(c)
    rep = c.representative
    removed = np.flatnonzero(rep != np.arange(n))
    sim = result.similarity_to_representative
    dist = result.distance_to_representative
    code = result.method_to_representative

    evidence = result.pairs.evidence

    def row(doc: int) -> dict[str, Any]:
        s = float(sim[doc])
        r = int(rep[doc])
        out = {
            "doc": doc,
            "representative": r,
            "method": METHODS[int(code[doc])],
            "similarity": None if s != s else round(s, 6),
            "distance": None if dist[doc] < 0 else int(dist[doc]),
        }
        found = evidence.get((min(r, doc), max(r, doc)))
        if found:  # e.g. matched paragraphs, oriented as (earlier, later) document
            out["evidence"] = found
        return out

    sizes_of = np.bincount(c.cluster_id, minlength=c.n_clusters) if n else np.empty(0, np.int64)
    biggest = np.argsort(-sizes_of, kind="stable")[: sizes.largest]
    biggest = biggest[sizes_of[biggest] > 1]
    largest = []
    for cid in biggest.tolist():
        members = removed[c.cluster_id[removed] == cid]
        closeness = np.where(np.isnan(sim[members]), 1.0 - dist[members] / 64.0, sim[members])
        members = members[np.argsort(closeness, kind="stable")[: sizes.members]]
        first = int(np.flatnonzero(c.cluster_id == cid)[0])
        largest.append(
            {
                "cluster_id": cid,
                "size": int(sizes_of[cid]),
                "representative": int(rep[first]),
                "members": [row(int(d)) for d in members.tolist()],
            }
        )
    rng = np.random.default_rng(sizes.seed)
    drawn = np.sort(rng.choice(removed, size=min(sizes.random, len(removed)), replace=False))
    near = removed[code[removed] != _EXACT]
    closeness = np.where(np.isnan(sim[near]), 1.0 - dist[near] / 64.0, sim[near])
    closest = near[np.argsort(closeness, kind="stable")[: sizes.closest]]
    return {
        "largest_clusters": largest,
        "random_removed": [row(int(d)) for d in drawn.tolist()],
        "closest_removals": [row(int(d)) for d in closest.tolist()],
        "near_misses": near_misses[: sizes.closest],
    }


def wanted_documents(rows: dict[str, Any]) -> list[int]:
    """Every document position the sampled rows show."""
    docs: set[int] = set()
    for cluster in rows["largest_clusters"]:
        docs.add(cluster["representative"])
        docs.update(m["doc"] for m in cluster["members"])
    for key in ("random_removed", "closest_removals"):
        for r in rows[key]:
            docs.update((r["doc"], r["representative"]))
    for r in rows["near_misses"]:
        docs.update((r["left"], r["right"]))
    return sorted(docs)


def distributions(
    result: DedupResult, lengths: np.ndarray, thresholds: dict[str, float], *, start: int = 0
) -> dict[str, Any]:
    """Cluster sizes, similarity / distance per method, and lengths of kept vs removed inputs
    (the first ``start`` documents are an ``--against`` reference: neither kept nor removed
    by the run). A removed document without a measure to its representative (``--clusters
    components`` joins some through other members) is counted as ``unmeasured``."""
    c = result.clusters
    n = len(c)
    rep = c.representative
    removed = rep != np.arange(n)
    inputs = np.arange(n) >= start
    sizes = np.bincount(c.cluster_id, minlength=c.n_clusters) if n else np.empty(0, np.int64)
    size_values, size_counts = np.unique(sizes[sizes > 1], return_counts=True)
    per_method: dict[str, Any] = {}
    code = result.method_to_representative
    for m in np.unique(code[removed]).tolist():
        mine = removed & (code == m)
        sim = result.similarity_to_representative[mine]
        sim = sim[~np.isnan(sim)]
        dist = result.distance_to_representative[mine]
        dist = dist[dist >= 0]
        entry: dict[str, Any] = {"removed": int(mine.sum())}
        unmeasured = int(mine.sum()) - max(len(sim), len(dist))
        if unmeasured:
            entry["unmeasured"] = unmeasured
        if len(sim):
            counts, _ = np.histogram(sim, bins=_SIM_BINS, range=(0.0, 1.0))
            entry["similarity"] = counts.tolist()
        if len(dist) and METHODS[m] != "exact":
            entry["distance"] = np.bincount(dist, minlength=65).tolist()
        per_method[METHODS[m]] = entry
    top = int(lengths.max()) if len(lengths) else 1
    edges = np.unique(np.r_[0, np.logspace(0, np.log10(max(top, 1)) + 1e-9, 24).astype(np.int64)])
    edges[-1] = max(edges[-1], top) + 1
    return {
        "cluster_sizes": {"sizes": size_values.tolist(), "clusters": size_counts.tolist()},
        "similarity_bins": _SIM_BINS,
        "per_method": per_method,
        "thresholds": thresholds,
        "length_edges": edges.tolist(),
        "length_kept": np.histogram(lengths[~removed & inputs], bins=edges)[0].tolist(),
        "length_removed": np.histogram(lengths[removed & inputs], bins=edges)[0].tolist(),
    }


def report_data(
    result: DedupResult,
    *,
    ids: Sequence[str],
    lengths: np.ndarray,
    thresholds: dict[str, float],
    near_misses: list[dict[str, Any]],
    texts_of: Callable[[list[int]], dict[int, str]],
    sizes: SampleSizes | None = None,
    start: int = 0,
) -> dict[str, Any]:
    """The JSON-able report data of a run; ``texts_of(positions)`` supplies sampled texts;
    the first ``start`` documents are an ``--against`` reference."""
    sizes = sizes or SampleSizes()
    rows = sample_positions(result, near_misses, sizes)
    wanted = wanted_documents(rows)
    texts = texts_of(wanted)
    documents = {}
    for doc in wanted:
        text = texts.get(doc, "")
        documents[str(doc)] = {
            "id": ids[doc],
            "length": int(lengths[doc]),
            "text": text[: sizes.text_chars],
            "truncated": len(text) > sizes.text_chars,
        }
    return {
        "version": DATA_VERSION,
        "sample": asdict(sizes),
        "removed_total": int((result.clusters.representative != np.arange(len(ids))).sum()),
        **distributions(result, lengths, thresholds, start=start),
        **rows,
        "documents": documents,
    }


def texts_from_records(records: Iterable[Any], numbers: dict[int, int]) -> dict[int, str]:
    """Texts of the records whose numbers are keys of ``numbers`` (record number -> position),
    read in one pass that stops when all are found."""
    found: dict[int, str] = {}
    for rec in records:
        position = numbers.get(getattr(rec, "number", -1))
        if position is not None and hasattr(rec, "text"):
            found[position] = rec.text
            if len(found) == len(numbers):
                break
    return found
