"""Candidate pairs on the cluster for the ``paragraph`` method, as batches of edges.

The same pairs as :meth:`neardup.methods.paragraph.ParagraphMethod.find_pairs`, for both
evidences; the decision is :func:`neardup.containment.document_shares`, on rows that meet by
document pair.

``copy`` evidence (the default):

1. every paragraph's compared text is made per document on the executors (the local code) and
   numbered in document order across the corpus;
2. the frozen common-gram table is fitted over all paragraphs exactly as locally
   (:func:`neardup.spark.auto.fit_table`), or the given one is used, and broadcast;
3. each paragraph's rare grams are counted with it (its weight; its document's total, since a
   document's paragraphs stay in one batch) and the usable paragraphs' sketch keys meet by key;
4. candidate paragraph pairs meet both compared texts by paragraph number and are judged by
   :meth:`ParagraphMethod.matches` (the copy rule) on the executors;
5. the document pairs that are duplicates by their shares meet both documents' paragraphs and
   are dropped when :meth:`ParagraphMethod.substitutions` finds a paragraph restated with other
   values (two stories from one template), as locally.

``topic`` evidence (the reference's DRPKP fingerprint):

1. paragraph fingerprints are made per document on the executors (the local code);
2. paragraph fingerprints held by more than ``max_paragraph_docs`` documents (boilerplate)
   meet by fingerprint and are dropped, as locally;
3. the others emit one row per permuted table keyed by ``(table, key bits)``; the local scan
   kernel finds the paragraph pairs within ``max_distance`` in each key's run.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from ..containment import document_shares, frame_rows, line_rows
from ..index.layout import choose_blocks, make_layout
from ..methods.auto import VERIFY_CHUNK
from ..methods.paragraph import boilerplate, paragraph_positions
from ..pairs import method_code
from .auto import fit_table
from .batches import (
    Batch,
    cogroup,
    concat,
    count_rows,
    pair_codes,
    pair_ends,
    route,
    size,
    tagged,
    take,
)
from .ngram import candidate_edges, exact_groups, text_hashes
from .simhash import with_ends
from .tables import scan, table_rows
from .workers import worker_method

PARAGRAPH = method_code("paragraph")


def document_batch(method: Any, texts: list[str], pos: np.ndarray) -> Batch:
    """Per document: its exact-copy key (``key``, :meth:`ParagraphMethod.document_keys`) and
    that key's hash (``h``, by which identical documents meet); ``paragraphs``: the nested
    paragraph rows of the configured evidence (:func:`compared_rows`, :func:`prints_rows`)."""
    compared, counts = method.evidence_paragraphs(texts)
    keys = method.document_keys(texts, compared, counts)
    out = {"h": text_hashes(keys), "key": np.array(keys, dtype=object)}
    if method.config.evidence == "copy":
        out["paragraphs"] = compared_rows(compared, counts, pos)
    else:
        pp = method.paragraph_prints(texts)
        out["paragraphs"] = prints_rows(pp, pos)
        out["short"] = counts - pp.counts  # paragraphs too short to print, per document
    return out


def prints_rows(pp: Any, pos: np.ndarray) -> Batch:
    """One row per kept paragraph of :class:`~neardup.drpkp.ParagraphPrints` ``pp``:
    fingerprint, document position, index, the document's count."""
    return {
        "pfp": pp.fingerprints,
        "doc": pos[pp.doc],
        "index": pp.index,
        "count": pp.counts[pp.doc],
    }


def _drop_boilerplate(batches: Iterator[Batch], limit: int) -> Iterator[tuple[str, Any]]:
    b = concat(batches)
    if not size(b):
        return
    order = np.lexsort((b["doc"], b["pfp"]))
    b = {c: v[order] for c, v in b.items()}
    boiler = boilerplate(b["pfp"], b["doc"], limit)  # the core's rule, on this fingerprint's rows
    yield "dropped", int(boiler.sum())
    yield "rows", {c: v[~boiler] for c, v in b.items()}


def _scan(batches: Iterator[Batch], masks: tuple[int, ...], k: int) -> Iterator[Batch]:
    b = concat(batches)
    if not size(b):
        return
    for left, right, _ in scan(b, masks, k, "pfp"):
        cross = b["doc"][left] != b["doc"][right]
        left, right = left[cross], right[cross]
        swap = b["doc"][left] > b["doc"][right]
        left, right = np.where(swap, right, left), np.where(swap, left, right)
        yield {
            "pair": pair_codes(b["doc"][left], b["doc"][right]),
            "ia": b["index"][left],
            "ib": b["index"][right],
            "wa": np.ones(len(left)),  # every topic paragraph weighs 1
            "wb": np.ones(len(left)),
            "whole": np.ones(len(left), np.bool_),
            "ta": b["count"][left],
            "tb": b["count"][right],
        }


def _shares(
    batches: Iterator[Batch],
    threshold: float,
    min_shared: float,
    contained: float,
    excerpts: bool,
) -> Iterator[tuple[str, Any]]:
    """The core's decision on matched paragraph rows ``pair, ia, ib, wa, wb, ta, tb`` (all rows
    of a document pair are in one partition)."""
    b = concat(batches)
    if not size(b):
        return
    doc_a, doc_b = pair_ends(b["pair"])
    shares = document_shares(
        doc_a,
        doc_b,
        b["ia"],
        b["ib"],
        b["wa"],
        b["wb"],
        b["ta"],
        b["tb"],
        whole=b["whole"],
        frame=b.get("frame"),  # the topic evidence has no frames
        contained=contained,
        excerpts=excerpts,
        lines=b.get("line"),  # the topic evidence has no lines
    )
    keep = shares.candidate(threshold=threshold, min_shared=min_shared)  # substitutions: later
    yield "candidates", len(shares)
    yield (
        "edges",
        {
            "a": shares.a[keep],
            "b": shares.b[keep],
            "d": np.full(int(keep.sum()), -1, np.int16),
            "sim": shares.score[keep],
            "m": np.full(int(keep.sum()), PARAGRAPH, np.uint8),
        },
    )


def _decided(
    matched: Any,
    threshold: float,
    min_shared: float,
    partitions: int,
    storage: Any,
    *,
    contained: float = 1.0,
    excerpts: bool = False,
) -> tuple[Any, int]:
    """The edges that are duplicates by their shares among matched paragraph rows (the ``copy``
    evidence then looks for substituted paragraphs: :func:`_unsubstituted`), and the candidate
    document pairs."""
    scored = route(matched, key="pair", partitions=partitions).mapPartitions(
        lambda it: _shares(it, threshold, min_shared, contained, excerpts)
    )
    scored = scored.persist(storage)
    return tagged(scored, "edges"), int(tagged(scored, "candidates").sum())


def paragraph_edges(
    prepared: Any,
    options: dict[str, Any],
    config: Any,
    *,
    tables: Any,
    documents: int,
    partitions: int,
    storage: Any,
) -> tuple[Any, dict[str, Any], Any]:
    """``(edges, info, table)`` for documents of :func:`document_batch`: exact copies first
    (identical keys meet by hash; each copy linked to the first document with that key, as
    :meth:`ParagraphMethod.find_pairs` does), then the configured evidence among the paragraphs
    of one document per key (``table``: the common-gram table, ``copy`` evidence only)."""
    extra = ("short",) if config.evidence == "topic" else ()
    reps, exact = exact_groups(
        prepared.map(
            lambda b: {"pos": b["pos"], "h": b["h"], "norm": b["key"], **{c: b[c] for c in extra}}
        ),
        partitions=partitions,
    )
    exact = exact.persist(storage)
    n_exact = count_rows(exact)
    rows = _without_copies(
        prepared.map(lambda b: b["paragraphs"]), exact, documents=documents, partitions=partitions
    )
    if config.evidence == "copy":
        edges, info, table = copy_edges(
            rows, options, tables=tables, partitions=partitions, storage=storage
        )
    else:
        (edges, info), table = (
            topic_edges(rows, config, partitions=partitions, storage=storage),
            None,
        )
        info["short_paragraphs_skipped"] = int(reps.map(lambda b: int(b["short"].sum())).sum())
    return exact.union(edges), {"exact_copies": n_exact, **info}, table


def _without_copies(rows: Any, exact: Any, *, documents: int, partitions: int) -> Any:
    """The paragraph rows of documents that are no exact copy of an earlier one (``exact``:
    copy -> first edges), in document order: partition ``k`` holds the ``k``-th range of
    document positions, its rows sorted by document and paragraph."""
    bounds = (np.arange(partitions, dtype=np.int64) * documents) // partitions
    both = cogroup(
        {"rows": (rows, "doc"), "copies": (exact, "b")}, partitions=partitions, bounds=bounds
    )
    return both.mapPartitions(_kept_rows, preservesPartitioning=True)


def _kept_rows(parts: Iterator[dict[str, Batch]]) -> Iterator[Batch]:
    for part in parts:
        b = part.get("rows")
        if not size(b):
            continue
        copies = part["copies"]["b"] if "copies" in part else np.empty(0, np.int64)
        b = take(b, np.flatnonzero(~np.isin(b["doc"], copies)))
        if size(b):
            yield take(b, np.lexsort((b["index"], b["doc"])))


def topic_edges(prints: Any, config: Any, *, partitions: int, storage: Any):
    """``(edges, info)`` for topic paragraph rows (see :func:`prints_rows`)."""
    rows = prints
    limit = config.max_paragraph_docs
    kept = route(rows, key="pfp", partitions=partitions).mapPartitions(
        lambda it: _drop_boilerplate(it, limit)
    )
    kept = kept.persist(storage)
    dropped = int(tagged(kept, "dropped").sum())
    usable = tagged(kept, "rows")
    n_usable = count_rows(usable)
    blocks = config.blocks or choose_blocks(n_usable, config.max_distance)
    layout = make_layout(max_distance=config.max_distance, blocks=blocks)
    masks, k = layout.masks, layout.max_distance
    rows_per_table = usable.mapPartitions(lambda it: table_rows(it, masks, "pfp"))
    pairs = route(rows_per_table, key="bucket", partitions=partitions).mapPartitions(
        lambda it: _scan(it, masks, k)
    )
    edges, candidates = _decided(pairs, config.threshold, 0.0, partitions, storage)
    info = {
        "paragraphs": n_usable + dropped,
        "boilerplate_paragraphs_skipped": dropped,
        "candidate_document_pairs": candidates,
        "blocks": blocks,
        "tables": layout.tables,
    }
    return edges, info


# -- the copy evidence -----------------------------------------------------------------------------
def compared_rows(compared: list[str], counts: np.ndarray, pos: np.ndarray) -> Batch:
    """One row per paragraph: document position, paragraph index, compared text."""
    doc, index = paragraph_positions(counts)
    return {"doc": pos[doc], "index": index, "norm": np.array(compared, dtype=object)}


def _numbered(batches: Iterator[Batch], start: int) -> Iterator[Batch]:
    """The rows with their paragraph number (``pos``) from ``start`` on, in order."""
    for b in batches:
        n = size(b)
        if n:
            yield {"pos": np.arange(start, start + n, dtype=np.int64), **b}
            start += n


def _weighed(batches: Iterator[Batch], options: dict, tables: Any) -> Iterator[tuple[str, Any]]:
    """Per batch of whole documents: the usable paragraphs' sketch keys, and the rows with
    their document's total weight (rare grams; :meth:`ParagraphMethod.prepared_paragraphs`)."""
    method = worker_method("paragraph", options, tables.value)
    for b in batches:
        if not size(b):
            continue
        _, runs = np.unique(b["doc"], return_counts=True)  # a document's rows are adjacent
        paras = method.prepared_paragraphs(method.inner.prepare(list(b["norm"])), runs)
        values, offsets = method.usable_sketch(paras)
        yield "keys", {"key": values, "pos": np.repeat(b["pos"], np.diff(offsets))}
        yield "rows", {**b, "total": paras.total[paras.doc], "end": paras.end}
        yield "usable", int(paras.usable.sum())


def _matched(batches: Iterator[Batch], options: dict, tables: Any) -> Iterator[Batch]:
    """The copy rule on each candidate paragraph pair of two documents; matched rows out."""
    method = worker_method("paragraph", options, tables.value)
    for b in batches:
        b = take(b, np.flatnonzero(b["doc_a"] != b["doc_b"]))
        m = size(b)
        if not m:
            continue
        _, first, where = np.unique(np.r_[b["a"], b["b"]], return_index=True, return_inverse=True)
        texts = np.r_[b["norm_a"], b["norm_b"]][first]
        paras = method.prepared_paragraphs(
            method.inner.prepare(list(texts)), np.ones(len(texts), np.int64)
        )
        where = where.reshape(-1)
        ok, whole = np.zeros(m, np.bool_), np.zeros(m, np.bool_)
        wa, wb = np.zeros(m), np.zeros(m)
        for lo in range(0, m, VERIFY_CHUNK):  # bounded memory, as on one machine
            hi = min(m, lo + VERIFY_CHUNK)
            ok[lo:hi], whole[lo:hi], wa[lo:hi], wb[lo:hi] = method.matches(
                paras, where[lo:hi], paras, where[m + lo : m + hi]
            )
        yield {
            "pair": pair_codes(b["doc_a"][ok], b["doc_b"][ok]),
            "ia": b["index_a"][ok],
            "ib": b["index_b"][ok],
            "wa": wa[ok],
            "wb": wb[ok],
            "whole": whole[ok],
            "ta": b["total_a"][ok],
            "tb": b["total_b"][ok],
            "frame": frame_rows(b["end_a"][ok], b["end_b"][ok]),
            "line": line_rows(b["end_a"][ok], b["end_b"][ok]),
        }


def _documents(batches: Iterator[Batch]) -> Iterator[Batch]:
    """One row per document: its compared paragraphs, in order (``pos`` is the document)."""
    for b in batches:
        if not size(b):
            continue
        docs, first = np.unique(b["doc"], return_index=True)  # a document's rows are adjacent
        paras = np.empty(len(docs), dtype=object)
        for k, part in enumerate(np.split(b["norm"], first[1:])):
            paras[k] = list(part)
        yield {"pos": docs, "paras": paras}


def _unsubstituted(
    batches: Iterator[Batch], options: dict, tables: Any
) -> Iterator[tuple[str, Any]]:
    """The duplicate edges by shares whose documents hold no substituted paragraph pair
    (:meth:`ParagraphMethod.substitutions`, on both documents' paragraphs)."""
    method = worker_method("paragraph", options, tables.value)
    for b in batches:
        m = size(b)
        if not m:
            continue
        pa, pb = list(b.pop("pa")), list(b.pop("pb"))
        counts = np.array([len(p) for p in pa + pb], np.int64)
        texts = [t for p in pa + pb for t in p]
        paras = method.prepared_paragraphs(method.inner.prepare(texts), counts)
        k, _, _ = method.substitutions(paras, np.arange(m), paras, np.arange(m, 2 * m))
        keep = np.bincount(k, minlength=m) == 0
        yield "substituted", int((~keep).sum())
        yield "edges", take(b, np.flatnonzero(keep))


def copy_edges(
    compared: Any, options: dict[str, Any], *, tables: Any, partitions: int, storage: Any
) -> tuple[Any, dict[str, Any], Any]:
    """``(edges, info, table)`` for compared paragraph rows (see :func:`compared_batch`): the
    ``copy`` evidence's duplicate edges, its counts, and the common-gram table it judged with."""
    per_part = compared.mapPartitions(lambda it: [sum(size(b) for b in it)]).collect()
    starts = np.r_[0, np.cumsum(per_part)].tolist()
    numbered = compared.mapPartitionsWithIndex(lambda i, it: _numbered(it, starts[i]))
    numbered = numbered.persist(storage)
    n_paragraphs = int(starts[-1])
    method = worker_method("paragraph", options, tables)
    table = tables if tables is not None else fit_table(numbered, method.inner, n_paragraphs)
    shared = numbered.context.broadcast(table)
    weighed = numbered.mapPartitions(lambda it: _weighed(it, options, shared)).persist(storage)
    rows = tagged(weighed, "rows")
    candidates, _stats = candidate_edges(
        tagged(weighed, "keys"), max_posting=None, partitions=partitions
    )
    ends = {c: (f"{c}_a", f"{c}_b") for c in ("doc", "index", "total", "end", "norm")}
    both = with_ends(candidates, rows, columns=ends, partitions=partitions)
    matched = both.mapPartitions(lambda it: _matched(it, options, shared)).persist(storage)
    config = method.config
    tentative, candidate_docs = _decided(
        matched,
        config.threshold,
        float(config.min_shared_chars),
        partitions,
        storage,
        contained=config.contained,
        excerpts=config.excerpts,
    )
    documents = rows.mapPartitions(_documents)
    ends = with_ends(tentative, documents, columns={"paras": ("pa", "pb")}, partitions=partitions)
    vetted = ends.mapPartitions(lambda it: _unsubstituted(it, options, shared)).persist(storage)
    edges = tagged(vetted, "edges")
    info = {
        "paragraphs": n_paragraphs,
        "usable_paragraphs": int(tagged(weighed, "usable").sum()),
        "common_grams": len(table.values),
        "matched_paragraph_pairs": count_rows(matched),
        "candidate_document_pairs": candidate_docs,
        "substituted_document_pairs": int(tagged(vetted, "substituted").sum()),
    }
    numbered.unpersist()
    return edges, info, table
