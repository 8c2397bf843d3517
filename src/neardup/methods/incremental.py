"""Incremental indexes: each method's own decision, one document at a time (the online side).

An :class:`IncrementalIndex` holds the *kept* documents of a method and answers, for a new
document, which of them it duplicates — with the method's own preparation, candidates and
verification, so that inserting a corpus in input order through the online detector marks the
same documents as duplicates, of the same representatives, as ``neardup dedup --keep first``
(the greedy rule of :mod:`neardup.cluster`: the best match, ties to the earliest).

Interface: ``prepare_many(texts) -> [Doc]`` (per text: the fingerprint for the store, the payload
persisted beside it, and the state the method compares; one call for many texts, so a service
prepares a whole group of requests at once), ``stored_docs(fingerprints, payloads) -> [Doc]``
(the same from what the store holds: to rebuild the index with :func:`restore_many`, and to
decide a stored document again), ``add(doc_id, doc)``, ``remove(doc_id)``,
``matches(doc, exclude) -> [Match]`` (verified, best first).

Optional, for many documents at once (``auto``; the detector falls back to ``matches`` per
document without them): ``matches_many(docs, excludes)`` — each against the index as it stands,
in one verification call (checks, and a write group's documents before the group);
``matches_among(doc, exclude, among)`` — only against the kept documents ``among`` (those a write
group added itself) with ``verified_within(docs, ids)`` — a write group's documents against
each other, in one verification call; ``best_first(matches)`` — the order ``matches`` gives.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from ..errors import ConfigError
from ..index.ngram import NgramIndex
from ..index.permuted import PermutedIndex
from ..normalize import normalize_many
from ..simhash import Fingerprinter
from ..verify import similarity_pairs
from .columns import PreparedColumns
from .prepared import merge_prepared, split_documents, split_prepared
from .simhash import featureless


@dataclass(frozen=True)
class Match:
    id: str
    distance: int | None
    similarity: float | None
    method: str


@dataclass
class Doc:
    fingerprint: int
    payload: dict[str, Any] | None
    state: Any = None


class IncrementalIndex(Protocol):
    def prepare_many(self, texts: Sequence[str]) -> list[Doc]: ...
    def stored_docs(self, fingerprints: Sequence[int], payloads: Sequence[Any]) -> list[Doc]: ...
    def add(self, doc_id: str, doc: Doc) -> None: ...
    def remove(self, doc_id: str) -> None: ...
    def matches(self, doc: Doc, *, exclude: str | None = None) -> list[Match]: ...


def restore_many(
    index: IncrementalIndex,
    doc_ids: Sequence[str],
    fingerprints: Sequence[int],
    payloads: Sequence[Any],
) -> None:
    """Stored documents back into ``index`` (kept documents, in store order)."""
    for doc_id, doc in zip(doc_ids, index.stored_docs(fingerprints, payloads), strict=True):
        index.add(doc_id, doc)


@dataclass
class _Order:
    """Insertion order of the kept documents: ties go to the earliest."""

    seq: dict[str, int] = field(default_factory=dict)
    next: int = 0

    def add(self, doc_id: str) -> None:
        self.seq[doc_id] = self.next
        self.next += 1

    def remove(self, doc_id: str) -> None:
        self.seq.pop(doc_id, None)


def _best_first(found: list[Match], order: _Order) -> list[Match]:
    def key(m: Match) -> tuple[float, int]:
        close = m.similarity if m.similarity is not None else 1.0 - (m.distance or 0) / 64.0
        return (-close, order.seq.get(m.id, 0))

    return sorted(found, key=key)


class SimhashIndex:
    """Kept fingerprints in permuted tables; a match is within ``max_distance``."""

    def __init__(self, method: Any):
        cfg = method.config
        if cfg.verify is not None:
            raise ConfigError(
                "simhash with verify= cannot run online (it needs every stored text); "
                "use the default method 'auto', which verifies online"
            )
        self.method = method
        self.index = PermutedIndex(max_distance=cfg.max_distance, blocks=cfg.blocks)
        self.order = _Order()

    def prepare_many(self, texts: Sequence[str]) -> list[Doc]:
        norm = normalize_many(list(texts), self.method.config.normalize)
        fps = self.method.fingerprinter.fingerprint_many(norm, normalized=True).tolist()
        return [Doc(fp, None, fp) for fp in fps]

    def stored_docs(self, fingerprints: Sequence[int], payloads: Sequence[Any]) -> list[Doc]:
        return [Doc(int(fp), None, int(fp)) for fp in fingerprints]

    def add(self, doc_id: str, doc: Doc) -> None:
        if not featureless(doc.fingerprint):  # such a text is never matched
            self.index.add(doc_id, doc.fingerprint)
        self.order.add(doc_id)

    def remove(self, doc_id: str) -> None:
        if doc_id in self.index:
            self.index.remove(doc_id)
        self.order.remove(doc_id)

    def matches(self, doc: Doc, *, exclude: str | None = None) -> list[Match]:
        if featureless(doc.state):  # as the batch pairs, it matches nothing
            return []
        found = [
            Match(i, d, None, "simhash") for i, d in self.index.query(doc.state) if i != exclude
        ]
        return _best_first(found, self.order)


class _Identical:
    """Kept documents by their exact-copy key: batch's ``exact`` copies, found online by
    identity (also texts too short for any candidate key)."""

    def __init__(self) -> None:
        self.key_of: dict[str, str] = {}
        self.ids: dict[str, dict[str, None]] = {}

    def add(self, doc_id: str, key: str) -> None:
        self.key_of[doc_id] = key
        self.ids.setdefault(key, {})[doc_id] = None

    def remove(self, doc_id: str) -> None:
        key = self.key_of.pop(doc_id, None)
        if key is not None:
            same = self.ids[key]
            same.pop(doc_id, None)
            if not same:
                del self.ids[key]

    def matches(self, key: str, exclude: str | None) -> list[Match]:
        """Kept documents with this key: exact copies, similarity 1."""
        return [Match(i, None, 1.0, "exact") for i in self.ids.get(key, {}) if i != exclude]


class _TextIndex:
    """Shared by ``ngram`` and ``auto``: the kept compared texts, found by identity (batch's
    ``exact`` copies: also texts too short for any candidate key) and by the method's keys."""

    def __init__(self, method: Any):
        self.method = method
        self.texts: dict[str, str] = {}
        self.identical = _Identical()
        self.order = _Order()
        self._fingerprinter = Fingerprinter()

    def _keep_text(self, doc_id: str, compared: str) -> None:
        self.texts[doc_id] = compared
        self.identical.add(doc_id, compared)

    def _identical(self, compared: str, exclude: str | None) -> list[Match]:
        """Kept documents with the same compared text: exact copies, similarity 1."""
        return self.identical.matches(compared, exclude)

    def _fingerprints(self, texts: Sequence[str]) -> list[int]:
        return self._fingerprinter.fingerprint_many(list(texts)).tolist()

    def stored_docs(self, fingerprints: Sequence[int], payloads: Sequence[Any]) -> list[Doc]:
        return [
            Doc(fp, payload, (payload or {}).get("text", ""))
            for fp, payload in zip(fingerprints, payloads, strict=True)
        ]

    def remove(self, doc_id: str) -> None:
        if self.texts.pop(doc_id, None) is not None:
            self.identical.remove(doc_id)
            self._unindex(doc_id)
        self.order.remove(doc_id)


class NgramOnline(_TextIndex):
    """The ``ngram`` method online: shared m-gram key, then the method's verification."""

    def __init__(self, method: Any):
        super().__init__(method)
        if method.config.sketch is not None:
            raise ConfigError(
                "ngram's sketch= samples each text's keys in batch runs only: the online "
                "detector uses every key of a text; leave sketch unset online"
            )
        # no posting cap: batch drops a key held by more than max_posting texts of the whole
        # corpus, which a stream cannot know; online finds those pairs too
        self.keys = NgramIndex(key_length=method.config.key_length, max_posting=None)

    def prepare_many(self, texts: Sequence[str]) -> list[Doc]:
        compared = self.method.normalized(list(texts))
        return [
            Doc(fp, {"text": c}, c)
            for fp, c in zip(self._fingerprints(texts), compared, strict=True)
        ]

    def add(self, doc_id: str, doc: Doc) -> None:
        self._keep_text(doc_id, doc.state)
        self.keys.add(doc_id, doc.state)
        self.order.add(doc_id)

    def _unindex(self, doc_id: str) -> None:
        self.keys.remove(doc_id)

    def matches(self, doc: Doc, *, exclude: str | None = None) -> list[Match]:
        cfg = self.method.config
        if not doc.state:  # nothing left once normalised: never a copy, as in batch
            return []
        exact = self._identical(doc.state, exclude)
        same = {m.id for m in exact}
        ids = [i for i in self.keys.query(doc.state) if i != exclude and i not in same]
        if not ids:
            return exact
        texts = [doc.state] + [self.texts[i] for i in ids]
        sims = similarity_pairs(
            texts,
            np.zeros(len(ids), np.int64),
            np.arange(1, len(ids) + 1),
            measure=cfg.measure,
            ngram=cfg.ngram,
        )
        found = [
            Match(i, None, float(s), "ngram")
            for i, s, ok in zip(ids, sims.tolist(), self.method.passes(sims).tolist(), strict=True)
            if ok
        ]
        return _best_first(exact + found, self.order)


class AutoOnline(_TextIndex):
    """The default method online: rare-gram sketch keys, then the copy rule."""

    def __init__(self, method: Any):
        super().__init__(method)
        self.postings: dict[int, dict[str, None]] = {}
        self.columns = PreparedColumns()  # the kept documents' states, one slot each
        self.slots: dict[str, int] = {}

    def prepare_many(self, texts: Sequence[str]) -> list[Doc]:
        compared = self.method.compared(list(texts))
        prepared = split_prepared(self.method.prepare(compared))
        return [
            Doc(fp, {"text": c}, p)
            for fp, c, p in zip(self._fingerprints(texts), compared, prepared, strict=True)
        ]

    def stored_docs(self, fingerprints: Sequence[int], payloads: Sequence[Any]) -> list[Doc]:
        """Stored documents as the index compares them, their compared texts prepared in one
        call."""
        compared = [(payload or {}).get("text", "") for payload in payloads]
        prepared = split_prepared(self.method.prepare(compared)) if compared else []
        return [
            Doc(fp, payload, state)
            for fp, payload, state in zip(fingerprints, payloads, prepared, strict=True)
        ]

    def add(self, doc_id: str, doc: Doc) -> None:
        self._keep_text(doc_id, doc.state.compared[0])
        self.slots[doc_id] = self.columns.put(doc.state)
        for key in doc.state.sketch[0].tolist():
            self.postings.setdefault(key, {})[doc_id] = None
        self.order.add(doc_id)

    def _unindex(self, doc_id: str) -> None:
        slot = self.slots.pop(doc_id)
        for key in self.columns.sketch_keys(slot):
            posting = self.postings.get(key)
            if posting is not None:
                posting.pop(doc_id, None)
                if not posting:
                    del self.postings[key]
        self.columns.drop(slot)

    def matches(self, doc: Doc, *, exclude: str | None = None) -> list[Match]:
        return self.matches_many([doc], [exclude])[0]

    def matches_many(
        self, docs: Sequence[Doc], excludes: Sequence[str | None]
    ) -> list[list[Match]]:
        """:meth:`matches` of each document against the index as it stands (the documents
        are not added, so they are not compared with each other): one verification call for
        every candidate of every document."""
        exacts, ids = [], []
        for doc, exclude in zip(docs, excludes, strict=True):
            exact = self._identical(doc.state.compared[0], exclude)
            same = {m.id for m in exact}
            found: dict[str, None] = {}
            for key in doc.state.sketch[0].tolist():
                found.update(self.postings.get(key, {}))
            exacts.append(exact)
            ids.append([i for i in found if i != exclude and i not in same])
        return self._verified(docs, exacts, ids)

    def exact_among(self, doc: Doc, *, exclude: str | None, among: set[str]) -> list[Match]:
        """The kept documents ``among`` with the same compared text (exact copies)."""
        return [m for m in self._identical(doc.state.compared[0], exclude) if m.id in among]

    def matches_among(self, doc: Doc, *, exclude: str | None, among: set[str]) -> list[Match]:
        """:meth:`matches` restricted to the kept documents ``among``."""
        exact = self.exact_among(doc, exclude=exclude, among=among)
        same = {m.id for m in exact}
        found: dict[str, None] = {}
        for key in doc.state.sketch[0].tolist():
            found.update(self.postings.get(key, {}))
        ids = [i for i in found if i in among and i != exclude and i not in same]
        return self._verified([doc], [exact], [ids])[0] if ids else exact

    def verified_within(
        self, docs: Sequence[Doc], ids: Sequence[str]
    ) -> list[list[tuple[int, Match]]]:
        """For each document ``k`` of a list, the earlier ones ``j < k`` sharing a sketch key
        whose pair the copy rule accepts, as ``(j, match)`` (identical compared texts aside:
        those are exact matches). One verification call for the whole list, so that a group
        of new documents is judged against itself at once; each verdict is the one
        :meth:`matches_among` gives the pair, the later document as the query."""
        postings: dict[int, list[int]] = {}
        later: list[int] = []
        earlier: list[int] = []
        for k, doc in enumerate(docs):
            seen: dict[int, None] = {}
            for key in doc.state.sketch[0].tolist():
                posting = postings.setdefault(key, [])
                seen.update(dict.fromkeys(posting))
                posting.append(k)
            text = doc.state.compared[0]
            for j in seen:
                if docs[j].state.compared[0] != text:
                    later.append(k)
                    earlier.append(j)
        out: list[list[tuple[int, Match]]] = [[] for _ in docs]
        if not later:
            return out
        both = merge_prepared([d.state for d in docs])
        sim, ok = self.method.verify(both, np.array(later), both, np.array(earlier))
        for k, j, x, y in zip(later, earlier, sim.tolist(), ok.tolist(), strict=True):
            if y:
                out[k].append((j, Match(ids[j], None, float(x), "auto")))
        return out

    def best_first(self, found: list[Match]) -> list[Match]:
        return _best_first(found, self.order)

    def _verified(
        self, docs: Sequence[Doc], exacts: list[list[Match]], ids: list[list[str]]
    ) -> list[list[Match]]:
        """Each document's exact matches plus its candidates ``ids`` that the copy rule accepts,
        best first; one verification call for all."""
        stored_ids = list(dict.fromkeys(i for found in ids for i in found))
        if not stored_ids:
            return [_best_first(exact, self.order) for exact in exacts]
        where = {doc_id: k for k, doc_id in enumerate(stored_ids)}
        query = docs[0].state if len(docs) == 1 else merge_prepared([d.state for d in docs])
        stored = self.columns.take(np.array([self.slots[i] for i in stored_ids], np.int64))
        ia = np.repeat(np.arange(len(docs), dtype=np.int64), [len(found) for found in ids])
        ib = np.array([where[i] for found in ids for i in found], np.int64)
        sim, ok = self.method.verify(query, ia, stored, ib)
        out, at = [], 0
        for exact, found in zip(exacts, ids, strict=True):
            verdicts = zip(
                found,
                sim[at : at + len(found)].tolist(),
                ok[at : at + len(found)].tolist(),
                strict=True,
            )
            at += len(found)
            good = [Match(i, None, float(x), "auto") for i, x, y in verdicts if y]
            out.append(_best_first(exact + good, self.order))
        return out


class ParagraphOnline:
    """The ``paragraph`` method online: the kept documents' paragraphs (``copy`` evidence: their
    compared text, found by sketch keys and judged by the copy rule; ``topic``: their topic-word
    fingerprints in permuted tables), scored by :mod:`neardup.containment` as in batch."""

    def __init__(self, method: Any):
        cfg = method.config
        self.method = method
        self.topic = cfg.evidence == "topic"
        self.index = PermutedIndex(max_distance=cfg.max_distance, blocks=cfg.blocks)
        self.postings: dict[int, dict[tuple[str, int], None]] = {}
        self.docs: dict[str, Any] = {}  # doc id -> prepared paragraphs (copy) or prints (topic)
        self.identical = _Identical()  # by :meth:`_key`
        self.order = _Order()
        self._fingerprinter = Fingerprinter()

    def prepare_many(self, texts: Sequence[str]) -> list[Doc]:
        texts = list(texts)
        if not texts:
            return []
        fps = self._fingerprinter.fingerprint_many(texts).tolist()
        compared, counts = self.method.evidence_paragraphs(texts)
        keys = self.method.document_keys(texts, compared, counts)
        if self.topic:  # the key's digest: a topic payload holds no compared text
            docs = []
            for text, fp, key in zip(texts, fps, keys, strict=True):
                prints = self.method.paragraph_prints([text]).fingerprints.tolist()
                payload = {"paragraphs": [f"{f:016x}" for f in prints], "key": _digest(key)}
                docs.append(Doc(fp, payload, prints))
            return docs
        paras = self._paragraphs(compared, counts)
        docs, lo = [], 0
        for fp, key, n, part in zip(fps, keys, counts.tolist(), paras, strict=True):
            payload: dict[str, Any] = {"paragraphs": compared[lo : lo + n]}
            if not n:  # its key is the text as written, which the payload does not hold
                payload["key"] = _digest(key)
            docs.append(Doc(fp, payload, part))
            lo += n
        return docs

    def stored_docs(self, fingerprints: Sequence[int], payloads: Sequence[Any]) -> list[Doc]:
        stored = [(p or {}).get("paragraphs", []) for p in payloads]
        if not stored:
            return []
        if self.topic:
            return [
                Doc(fp, p, [int(h, 16) for h in s])
                for fp, p, s in zip(fingerprints, payloads, stored, strict=True)
            ]
        counts = np.array([len(s) for s in stored], np.int64)
        paras = self._paragraphs([c for s in stored for c in s], counts)
        return [Doc(fp, p, d) for fp, p, d in zip(fingerprints, payloads, paras, strict=True)]

    def _paragraphs(self, compared: list[str], counts: np.ndarray) -> list[Any]:
        """Each document's prepared paragraphs (``counts[k]`` of ``compared`` for document
        ``k``): prepared in one batch, then cut per document. One document at a time, a store
        of 21,000 stories took 96 s to open (each looking its grams up in the common-gram
        table on its own)."""
        whole = self.method.inner.prepare(compared, buckets=self.method._buckets())
        return [
            self.method.prepared_paragraphs(part, counts[k : k + 1])
            for k, part in enumerate(split_documents(whole, counts.tolist()))
        ]

    def _key(self, doc: Doc) -> str:
        """What makes two documents exact copies (:meth:`ParagraphMethod.document_keys`, as
        batch and Spark group them): the compared paragraphs, or where the payload does not hold
        them (``topic``; a document without paragraphs) the key's digest. Empty: none known (a
        topic document stored before keys were kept), never an exact copy."""
        compared = "" if self.topic else "\n".join(doc.state.prepared.compared)
        if compared:
            return compared
        digest = (doc.payload or {}).get("key", "")
        return f"digest:{digest}" if digest else ""

    def add(self, doc_id: str, doc: Doc) -> None:
        self.docs[doc_id] = doc.state
        if key := self._key(doc):
            self.identical.add(doc_id, key)
        if self.topic:
            for j, f in enumerate(doc.state):
                self.index.add((doc_id, j), f)
        else:
            for j, key in self._keys(doc.state):
                self.postings.setdefault(key, {})[(doc_id, j)] = None
        self.order.add(doc_id)

    def remove(self, doc_id: str) -> None:
        state = self.docs.pop(doc_id, None)
        self.identical.remove(doc_id)
        if state is not None and self.topic:
            for j in range(len(state)):
                self.index.remove((doc_id, j))
        elif state is not None:
            for j, key in self._keys(state):
                posting = self.postings.get(key)
                if posting is not None:
                    posting.pop((doc_id, j), None)
                    if not posting:
                        del self.postings[key]
        self.order.remove(doc_id)

    def _keys(self, paras: Any) -> list[tuple[int, int]]:
        """(paragraph index, sketch key) of each usable paragraph's keys."""
        values, offsets = self.method.usable_sketch(paras)
        para = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
        return list(zip(para.tolist(), values.tolist(), strict=True))

    def _candidates(self, doc: Doc, skip: set[str]) -> tuple[list[str], np.ndarray, ...]:
        """(query paragraph, kept document, its paragraph) sharing a key, each once, in the
        order the query's paragraphs (and each one's keys) meet them; kept documents in
        ``skip`` left out. Returns the kept documents in the order they are met, and per
        candidate its query paragraph, its document (a place in that list) and paragraph."""
        if self.topic:
            found: dict[tuple[int, str, int], None] = {}
            for i, f in enumerate(doc.state):
                for (doc_id, j), _d in self.index.query(f):
                    found[(i, doc_id, j)] = None
            triples = [c for c in found if c[1] not in skip]
            ids = list(dict.fromkeys(d for _i, d, _j in triples))
            rank = {d: k for k, d in enumerate(ids)}
            return ids, *(
                np.array(column, np.int64)
                for column in (
                    [i for i, _d, _j in triples],
                    [rank[d] for _i, d, _j in triples],
                    [j for _i, _d, j in triples],
                )
            )
        return self._copy_candidates(doc, skip)

    def _copy_candidates(self, doc: Doc, skip: set[str]) -> tuple[list[str], np.ndarray, ...]:
        """:meth:`_candidates` of the copy evidence. A paragraph's candidates are those of its
        keys, so paragraphs with the same keys (a line repeated thousands of times) have them
        looked up once; the rest is array work."""
        values, offsets = self.method.usable_sketch(doc.state)
        values, bounds = values.tolist(), offsets.tolist()
        shared: dict[tuple[int, ...], int] = {}  # a paragraph's keys -> their candidates' place
        met: dict[str, int] = {}  # kept documents in the order their candidates are made
        docs: list[int] = []
        paras: list[int] = []
        starts = [0]
        which = np.empty(len(bounds) - 1, np.int64)
        for i in range(len(bounds) - 1):
            keys = tuple(values[bounds[i] : bounds[i + 1]])
            at = shared.get(keys)
            if at is None:
                at = shared[keys] = len(shared)
                found = dict.fromkeys(e for key in keys for e in self.postings.get(key, ()))
                for doc_id, j in found:
                    if doc_id not in skip:
                        docs.append(met.setdefault(doc_id, len(met)))
                        paras.append(j)
                starts.append(len(docs))
            which[i] = at
        lo, n = np.array(starts[:-1], np.int64)[which], np.diff(starts)[which]
        at = np.repeat(lo - (np.cumsum(n) - n), n) + np.arange(int(n.sum()), dtype=np.int64)
        qi = np.repeat(np.arange(len(which), dtype=np.int64), n)
        dj, pj = np.array(docs, np.int64)[at], np.array(paras, np.int64)[at]
        seen, first = np.unique(dj, return_index=True)
        seen = seen[np.argsort(first, kind="stable")]  # in the order of the candidates
        place = np.zeros(len(met), np.int64)
        place[seen] = np.arange(len(seen))
        order = list(met)
        return [order[k] for k in seen.tolist()], qi, place[dj], pj

    def matches(self, doc: Doc, *, exclude: str | None = None) -> list[Match]:
        from ..containment import document_shares, frame_rows, line_rows

        key = self._key(doc)  # exact copies, as a batch groups them first
        exact = self.identical.matches(key, exclude) if key else []
        skip = {m.id for m in exact} | ({exclude} if exclude is not None else set())
        ids, qi, dj, pj = self._candidates(doc, skip)
        if not ids:
            return _best_first(exact, self.order)
        query_pos = len(ids)  # kept documents come first: a < query
        if self.topic:
            ones = np.ones(len(qi))
            counts = np.array([len(self.docs[d]) for d in ids], np.int64)
            shares = document_shares(
                dj,
                np.full(len(qi), query_pos),
                pj,
                qi,
                ones,
                ones,
                counts[dj],
                np.full(len(qi), len(doc.state)),
            )
        else:
            stored = [self.docs[d] for d in ids]
            base = np.cumsum([0] + [len(s) for s in stored])[:-1]
            merged = _merge_paragraphs(self.method, stored)
            ok, whole, cq, cs = self.method.matches(doc.state, qi, merged, base[dj] + pj)
            totals = np.array([int(s.total[0]) for s in stored], np.int64)
            shares = document_shares(
                dj[ok],
                np.full(int(ok.sum()), query_pos),
                pj[ok],
                qi[ok],
                cs[ok],
                cq[ok],
                totals[dj[ok]],
                np.full(int(ok.sum()), int(doc.state.total[0])),
                whole=whole[ok],
                frame=frame_rows(merged.end[base[dj] + pj][ok], doc.state.end[qi][ok]),
                contained=self.method.config.contained,
                excerpts=self.method.config.excerpts,
                lines=line_rows(merged.end[base[dj] + pj][ok], doc.state.end[qi][ok]),
            )
            query = np.zeros(len(shares), np.int64)  # the query is document 0 of its own
            self.method.veto_substituted(shares, merged, shares.a, doc.state, query)
        cfg = self.method.config
        keep = shares.duplicate(threshold=cfg.threshold, min_shared=self.method.min_shared)
        score = shares.score
        out = [
            Match(ids[a], None, float(s), "paragraph")
            for a, s, k in zip(shares.a.tolist(), score.tolist(), keep.tolist(), strict=True)
            if k
        ]
        return _best_first(exact + out, self.order)


def _digest(key: str) -> str:
    """A 128-bit digest of an exact-copy key, as 32 hexadecimal digits."""
    return hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def _merge_paragraphs(method: Any, parts: list[Any]) -> Any:
    """One batch of paragraphs from several documents' (their positions renumbered)."""
    prepared = merge_prepared([p.prepared for p in parts])
    counts = np.array([len(p) for p in parts], np.int64)
    return method.prepared_paragraphs(prepared, counts)
