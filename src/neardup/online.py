"""Online check-and-insert over a persistent store (reference 003's production shape).

A :class:`Detector` answers "is this text a near-duplicate, and of which documents?", inserts it,
and survives restarts: on construction it checks the store's algorithm version and parameters
and rebuilds its in-memory index from the store. Inserts are acknowledged only after the store
committed them. One lock covers check + insert, so two near-duplicates sent at the same moment
cannot both be reported unique, and an id is never inserted twice.

The decision is the method's own (:mod:`neardup.methods.incremental`): the detector keeps only
the lock, idempotency and the store transaction. Its configuration is a method name and that
method's options (the fields of its config class, as for ``neardup dedup``). A new document is
compared only with stored documents that were **kept** (not duplicates), and its matches come
best first (highest similarity, ties to the earliest stored): the first match is the
representative ``neardup dedup --keep first`` gives. Duplicates are stored when
``store_duplicates`` (the default) but never matched against; when their kept document is
deleted or replaced they are decided again, oldest first, against the documents kept then.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from dataclasses import replace as with_fields
from os import PathLike
from typing import Any

from .config import FINGERPRINT_VERSION
from .errors import (
    ConfigError,
    DocumentConflictError,
    InputError,
    NeardupError,
    StoreError,
    refuse_unordered,
)
from .groupcommit import GroupCommit, Request
from .methods import DEFAULT_METHOD, create, online_methods
from .methods.incremental import Doc, Match, restore_many
from .simhash import feature_hash
from .store.base import StoredDocument

DETECTOR_METHODS = online_methods()
# the longest id a document may be stored under, in characters: PostgreSQL's unique index on ids
# refuses an entry past 2,704 bytes (512 characters of at most 4 UTF-8 bytes each stay under
# it), and every store, every caller (HTTP API, index add, library) takes the same limit
MAX_ID_LENGTH = 512
RESTORE_CHUNK = 50_000  # stored documents put back into the index per call (bounded memory)
# a story and a near-copy of it (a homophone, a changed figure, a second paragraph): every
# step of every method's verification runs on them
_STORY = (
    "今年第三季度，本市新建的公共图书馆共接待读者十二万人次，比去年同期增长百分之十五。"
    "馆方表示，将在明年春天开放夜间阅览室，并增加儿童读物和外文书籍的采购。"
)
WARM_UP_TEXTS = (
    f"{_STORY}\n\nThe library received 120,000 visitors this quarter, up 15 percent.",
    f"{_STORY.replace('增加', '增家').replace('十五', '十六')}\n\n"
    "The library received 120,000 visitors this quarter, up 16 percent.",
)


@dataclass(frozen=True)
class CheckResult:
    duplicate: bool
    matches: list[Match]  # the best ``max_matches``, best first


@dataclass(frozen=True)
class AddResult:
    duplicate: bool
    matches: list[Match]  # the best ``max_matches``, best first
    inserted: bool
    status: str  # inserted | unchanged | duplicate_not_stored | replaced

    @property
    def found_duplicate(self) -> bool:
        """A write that found this document a duplicate (stored or not; a re-sent unchanged
        document was counted when it was first written)."""
        return self.duplicate and self.status != "unchanged"


@dataclass(frozen=True)
class _Item:
    doc_id: str
    text: str


@dataclass
class _Prepared:
    doc_id: str
    text_hash: int
    length: int
    doc: Doc
    # during a group: every match against the index as it stood before the group
    before_group: list[Match] | None = None
    # and the copies among the group's earlier documents (verified_within)
    within: list[tuple[_Prepared, Match]] | None = None


class Detector:
    """Check-and-insert over ``store`` (see the module docstring).

    ``method`` and ``options`` choose the decision; ``tables`` passes frozen tables a method
    fitted on a corpus (``auto``: the common-gram table ``neardup dedup`` writes beside its
    outputs), so that online decisions equal the batch run's.
    """

    def __init__(
        self,
        *,
        store: Any,
        method: str = DEFAULT_METHOD,
        options: dict[str, Any] | None = None,
        tables: Any = None,
        store_duplicates: bool = True,
        max_matches: int = 20,
        **more_options: Any,
    ):
        if not isinstance(method, str) or method not in DETECTOR_METHODS:
            raise ConfigError(
                f"method={method!r} cannot run online; choose one of {', '.join(DETECTOR_METHODS)}"
            )
        if isinstance(max_matches, bool) or not isinstance(max_matches, int) or max_matches < 1:
            raise ConfigError(f"max_matches={max_matches!r} must be a whole number of at least 1")
        if isinstance(store, (str, bytes, PathLike)):
            raise ConfigError(
                f"store={store!r} is a URL, not a store: open one with neardup.store.open_store"
            )
        options = {**(options or {}), **more_options}
        self.method_name = method
        self.method = (
            create(method, tables=tables, **options)
            if tables is not None
            else create(method, **options)
        )
        self.index = self.method.online_index()
        self.store = store
        self.store_duplicates = store_duplicates
        self.max_matches = max_matches
        self._lock = threading.RLock()
        self._commits = GroupCommit(self._write_group)
        self._hashes: dict[str, int] = {}  # every stored id -> text hash
        self._indexed: set[str] = set()  # the kept ids, in the index
        self._seq = 0  # the store position this process has seen (shared stores)
        self._stale = False
        self._duplicates = 0  # duplicates found by writes since start, stored
        self._not_stored = 0  # and not stored (``store_duplicates`` off)
        self._changed: set[str] | None = None  # ids the group being written changed so far
        self._group_docs: dict[str, _Prepared] = {}  # id -> the group document indexed for it
        self._within = False  # the group's own matches were verified at once, and still hold
        store.check_meta(FINGERPRINT_VERSION, self.persisted())
        self._load()

    def persisted(self) -> dict[str, Any]:
        """The parameters that define stored data (checked when a store is reopened)."""
        return {"method": self.method_name, "options": self.method.persisted()}

    def _load(self) -> None:
        snap = self.store.snapshot()
        kept: list[tuple[str, int, Any]] = []
        for doc_id, fp, th, payload, dup in zip(
            snap.ids,
            snap.fingerprints.tolist(),
            snap.text_hashes.tolist(),
            snap.payloads,
            snap.duplicate_of,
            strict=True,
        ):
            if dup is None:
                kept.append((doc_id, int(fp), payload))
                self._indexed.add(doc_id)
            self._hashes[doc_id] = int(th)
        for start in range(0, len(kept), RESTORE_CHUNK):  # in store order, a batch per call
            ids, fps, payloads = zip(*kept[start : start + RESTORE_CHUNK], strict=True)
            restore_many(self.index, ids, fps, payloads)
        self._seq = snap.last_seq

    def _reload(self) -> None:
        """Rebuild everything from the store (after a failure the index could not be repaired)."""
        self.index = self.method.online_index()
        self._hashes.clear()
        self._indexed.clear()
        self._load()
        self._stale = False

    def _catch_up(self) -> None:
        """Apply what other processes committed since we last looked (shared stores)."""
        if self._stale:
            self._reload()
            return
        if not self.store.shared:
            return
        for seq, item in self.store.changes_since(self._seq).in_order():
            if isinstance(item, str):
                self._forget(item)
            else:
                self._forget(item.id)
                self._remember(item)
            self._seq = max(self._seq, seq)

    def _forget(self, doc_id: str) -> None:
        if doc_id in self._indexed:
            self.index.remove(doc_id)
            self._indexed.discard(doc_id)
        self._hashes.pop(doc_id, None)

    def _remember(self, doc: StoredDocument) -> None:
        self._within = False  # the index now holds a version the group did not verify
        if doc.duplicate_of is None:
            restore_many(self.index, [doc.id], [doc.fingerprint], [doc.payload])
            self._indexed.add(doc.id)
        self._hashes[doc.id] = doc.text_hash

    def _repair(self, doc_ids: set[str]) -> None:
        """After a failed write: the documents it touched look as the store has them again."""
        for doc_id in doc_ids:
            self._forget(doc_id)
        try:
            for doc_id in doc_ids:
                stored = self.store.get(doc_id)
                if stored is not None:
                    self._remember(stored)
        except Exception:  # the store is unreadable now: rebuild before the next decision
            self._stale = True

    def _committed(self) -> None:
        """Our own write is committed: later catch-ups start after it."""
        if self.store.shared:
            self._seq = self.store.last_seq()

    def _item(self, doc_id: str, text: str) -> _Item:
        """A document the caller sent, checked before it is queued."""
        _check_id(doc_id)
        if not _encodable(doc_id):
            raise InputError(
                f"the id of document {doc_id!r} is not valid Unicode (an unpaired surrogate)"
            )
        too_long = id_too_long(doc_id)
        if too_long:
            raise InputError(too_long)
        _check_text(text, f"the text of document {doc_id!r}")
        return _Item(doc_id, text)

    def _items(self, items: Sequence[tuple[str, str]]) -> list[_Item]:
        """A batch's ``(id, text)`` items, each checked (:meth:`_item`), in order."""
        refuse_unordered(items, "items", "a list of (id, text) pairs")
        return [self._item(*_pair(k, item)) for k, item in enumerate(items)]

    def conflicting(self, items: Sequence[tuple[str, str]]) -> list[int]:
        """Positions of the ``(id, text)`` items whose id is stored with another text (as the
        detector knows the store now): what a write without ``replace`` would refuse, found
        before it (a caller that skips them writes the rest in one go)."""
        checked = self._items(items)
        with self._lock:
            self._catch_up()
            return [
                k
                for k, it in enumerate(checked)
                if self._hashes.get(it.doc_id, feature_hash(it.text)) != feature_hash(it.text)
            ]

    def _prepare(self, items: Sequence[_Item]) -> list[_Prepared]:
        """The method's view of each document, in one call for all of them."""
        docs = self.index.prepare_many([it.text for it in items])
        return [
            _Prepared(it.doc_id, feature_hash(it.text), len(it.text), doc)
            for it, doc in zip(items, docs, strict=True)
        ]

    def _prepare_group(self, group: list[Request]) -> list[list[_Prepared] | None]:
        """Every request's documents prepared together; a request whose documents cannot be
        prepared fails alone (its error set, None in its place)."""
        items = [it for request in group for it in request.work[0]]
        try:
            flat = self._prepare(items)
        except Exception:  # find the request at fault; the others go on
            out: list[list[_Prepared] | None] = []
            for request in group:
                try:
                    out.append(self._prepare(request.work[0]))
                except Exception as exc:
                    request.error = exc
                    out.append(None)
            return out
        out, start = [], 0
        for request in group:
            n = len(request.work[0])
            out.append(flat[start : start + n])
            start += n
        return out

    def _matches(self, p: _Prepared, *, exclude: str | None = None) -> list[Match]:
        """The document's matches against the index as it stands now. Inside a group whose
        matches were found in one batch before it began: those against documents the group has
        not changed, plus those against the group's own kept documents, found now."""
        if p.before_group is None or self._changed is None:
            return self.index.matches(p.doc, exclude=exclude)[: self.max_matches]
        kept = [m for m in p.before_group if m.id not in self._changed]
        among = self._changed & self._indexed
        if among and p.within is not None and self._within:
            kept += self.index.exact_among(p.doc, exclude=exclude, among=among)
            kept += [
                m
                for q, m in p.within
                if m.id != exclude and m.id in among and self._group_docs.get(m.id) is q
            ]
        elif among:
            kept += self.index.matches_among(p.doc, exclude=exclude, among=among)
        return self.index.best_first(kept)[: self.max_matches]

    def _match_group_at_once(self, prepared_group: list[list[_Prepared] | None]) -> None:
        """Every document of the group against the index before it, and the group's documents
        against each other, one verification call each (indexes that can: ``matches_many``,
        ``matches_among`` and ``verified_within``); :meth:`_matches` completes them one by one."""
        if not hasattr(self.index, "matches_among"):
            return
        docs = [p for prepared in prepared_group if prepared for p in prepared]
        if len(docs) < 2:
            return
        ids = [p.doc_id for p in docs]
        found = self.index.matches_many([p.doc for p in docs], ids)
        earlier = self.index.verified_within([p.doc for p in docs], ids)
        for p, matches, copies in zip(docs, found, earlier, strict=True):
            p.before_group = matches
            p.within = [(docs[j], m) for j, m in copies]
        self._changed = set()
        self._group_docs = {}
        self._within = True

    # -- public API ---------------------------------------------------------------------------
    def check(self, text: str) -> CheckResult:
        _check_text(text, "the text")
        return self.check_many([text])[0]

    def check_many(self, texts: Sequence[str]) -> list[CheckResult]:
        """Each text's answer as :meth:`check` gives it (nothing is inserted, so the texts are
        not compared with each other); prepared in one call."""
        refuse_unordered(texts, "texts", "a list of strings")
        for k, text in enumerate(texts):  # a text checked has no id to name: its position
            _check_text(text, f"texts[{k}]")
        prepared = self._prepare([_Item("", text) for text in texts])
        with self._lock:
            self._catch_up()
            many = getattr(self.index, "matches_many", None)
            if many is not None:  # one verification call for all of them
                found = many([p.doc for p in prepared], [None] * len(prepared))
            else:
                found = [self.index.matches(p.doc) for p in prepared]
        return [CheckResult(bool(m), m[: self.max_matches]) for m in found]

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
        item is checked against the earlier ones). An id may appear once per call."""
        return self.add_many_future(items, replace=replace, checkpoint=checkpoint).result()

    def add_many_future(
        self,
        items: Sequence[tuple[str, str]],
        *,
        replace: bool = False,
        checkpoint: tuple[str, str] | None = None,
    ) -> Future:
        """:meth:`add_many` without waiting: a future of its results (``asyncio.wrap_future``
        awaits it). Invalid documents raise here, before anything is queued."""
        checked = self._items(items)
        _refuse_repeated_ids(checked)
        return self._commits.submit_future((checked, replace, checkpoint))

    def _write_group(self, group: list[Request]) -> None:
        """Requests of concurrent callers in one transaction, in arrival order (group commit).

        A request that cannot be accepted (a conflict) fails alone: its index changes are
        repaired from the store inside the open transaction, which already holds the earlier
        requests' rows. A storage failure fails the group: rolled back and repaired.
        """
        prepared_group = self._prepare_group(group)  # before the store's lock: no one waits
        with self._lock:
            touched_all: set[str] = set()
            try:
                with self.store.writing():
                    self._catch_up()
                    self._match_group_at_once(prepared_group)
                    for request, prepared in zip(group, prepared_group, strict=True):
                        if prepared is None:
                            continue
                        _items, replace, checkpoint = request.work
                        touched: set[str] = set()
                        try:
                            results, rows, stored = self._decide(
                                prepared, replace=replace, touched=touched
                            )
                        except StoreError:  # a storage failure fails the group
                            touched_all |= touched
                            raise
                        except NeardupError as exc:
                            self._repair(touched)
                            request.error = exc
                            continue
                        except BaseException:
                            touched_all |= touched  # repaired with the group's below
                            raise
                        touched_all |= touched
                        self.store.put_many(rows, replacing=stored, checkpoint=checkpoint)
                        request.result = results
                    self._committed()
            except BaseException:
                self._repair(touched_all)  # nothing acknowledged: the index follows the store
                for request in group:
                    request.result = None
                raise
            finally:
                self._changed = None
                self._group_docs = {}
            for request in group:
                if request.result is not None:
                    for r in request.result:
                        self._duplicates += r.found_duplicate and r.inserted
                        self._not_stored += r.found_duplicate and not r.inserted

    def _decide(
        self, prepared: list[_Prepared], *, replace: bool, touched: set[str]
    ) -> tuple[list[AddResult], list[StoredDocument], set[str]]:
        """Each document in order: unchanged, conflict, duplicate or new; the index follows.
        Returns the results, the rows to write and the ids of those rows that replace stored
        ones (the others must be new to the store: a writer unseen that stored one is a
        conflict, not an overwrite)."""
        results: list[AddResult] = []
        pending: dict[str, StoredDocument] = {}  # the rows to write, by id (last version wins)
        stored: set[str] = set()
        for p in prepared:
            old = self._hashes.get(p.doc_id)
            status = "inserted"
            was_kept = False
            if old is not None:
                if old == p.text_hash:
                    results.append(self._unchanged(p, pending.get(p.doc_id)))
                    continue
                if not replace:
                    raise DocumentConflictError(
                        f"document {p.doc_id!r} is already stored with a different text; "
                        "send replace=true to replace it",
                        doc_id=p.doc_id,
                    )
                status = "replaced"
                stored.add(p.doc_id)
                touched.add(p.doc_id)
                self._note_change(p.doc_id)
                was_kept = p.doc_id in self._indexed
                self._forget(p.doc_id)
            matches = self._matches(p, exclude=p.doc_id)
            duplicate = bool(matches)
            if duplicate and not self.store_duplicates:
                if status == "replaced":  # nothing is written: the stored version stays
                    self._repair({p.doc_id})
                results.append(AddResult(True, matches, False, "duplicate_not_stored"))
                continue
            row = StoredDocument(
                p.doc_id,
                p.doc.fingerprint,
                p.length,
                p.text_hash,
                matches[0].id if duplicate else None,
                time.time(),
                p.doc.payload,
            )
            pending[p.doc_id] = row
            touched.add(p.doc_id)
            self._note_change(p.doc_id)
            if not duplicate:  # only kept documents are matched against
                self.index.add(p.doc_id, p.doc)
                self._indexed.add(p.doc_id)
                self._group_docs[p.doc_id] = p
            self._hashes[p.doc_id] = p.text_hash
            results.append(AddResult(duplicate, matches, True, status))
            if was_kept:  # its old text's duplicates: decided again, after its new text
                for again in self._decide_again(p.doc_id, touched, pending):
                    pending[again.id] = again
                    stored.add(again.id)
        return results, list(pending.values()), stored

    def _unchanged(self, p: _Prepared, written: StoredDocument | None) -> AddResult:
        """The answer to a document re-sent as stored: the decision the store holds, so that a
        client retrying an insert whose answer was lost is told what was recorded. A kept
        document has no match; a duplicate has its stored representative first (a document
        kept since may match it more closely: a new insert would name that one, the store
        does not). ``written``: its row when this request wrote it."""
        if p.doc_id in self._indexed:
            return AddResult(False, [], False, "unchanged")
        row = written if written is not None else self.store.get(p.doc_id)
        rep = row.duplicate_of if row is not None else None
        if rep is None:
            matches = self._matches(p, exclude=p.doc_id)
            return AddResult(bool(matches), matches, False, "unchanged")
        every = self.index.matches(p.doc, exclude=p.doc_id)  # not cut: the stored one is there
        first = [m for m in every if m.id == rep]
        rest = [m for m in every if m.id != rep]
        return AddResult(True, (first + rest)[: self.max_matches], False, "unchanged")

    def _decide_again(
        self,
        representative: str,
        touched: set[str],
        pending: dict[str, StoredDocument] | None = None,
    ) -> list[StoredDocument]:
        """The duplicates of a kept document that is deleted or replaced, decided again, oldest
        first, against the documents kept now: each becomes a duplicate of its best match, or
        kept (and matched against from then on, by the next ones too). Left as they were, they
        would name a representative that is gone and never be matched: their text would be new
        to every later check. ``pending``: the rows the request writes, which stand for the
        store's versions of their ids (a duplicate it replaced, one it added)."""
        pending = pending or {}
        stranded = [d for d in self.store.duplicates_of(representative) if d.id not in pending]
        stranded += [d for d in pending.values() if d.duplicate_of == representative]
        if not stranded:
            return []
        self._within = False  # the index changes in a way a write group did not verify
        # one decision per distinct text (a kept post can have thousands of identical reposts):
        # the later copies of a text follow its first — its exact duplicates when it is kept
        # (nothing else kept is an exact copy of it), its representative while nothing was
        # kept since; only the first of each text is prepared and matched
        first: dict[int, StoredDocument] = {}
        for d in stranded:
            first.setdefault(d.text_hash, d)
        heads = list(first.values())
        docs = dict(
            zip(
                (d.id for d in heads),
                self.index.stored_docs([d.fingerprint for d in heads], [d.payload for d in heads]),
                strict=True,
            )
        )
        decided: dict[int, tuple[str, bool, int]] = {}  # text -> (its representative or
        # its kept copy, whether that copy was kept, documents kept here when it was decided)
        kept = 0
        rows = []
        for stored in stranded:
            earlier = decided.get(stored.text_hash)
            if earlier is not None and (earlier[1] or earlier[2] == kept):
                rep: str | None = earlier[0]
            else:
                doc = (
                    docs.get(stored.id)
                    or self.index.stored_docs([stored.fingerprint], [stored.payload])[0]
                )
                matches = self.index.matches(doc, exclude=stored.id)
                rep = matches[0].id if matches else None
                if rep is None:
                    self.index.add(stored.id, doc)
                    self._indexed.add(stored.id)
                    kept += 1
                decided[stored.text_hash] = (rep or stored.id, rep is None, kept)
            rows.append(with_fields(stored, duplicate_of=rep))
            touched.add(stored.id)
            self._note_change(stored.id)
        return rows

    def _note_change(self, doc_id: str) -> None:
        if self._changed is not None:
            self._changed.add(doc_id)

    def remove(self, doc_id: str) -> bool:
        """Delete a stored document; a kept one's duplicates are decided again, oldest first,
        in the same transaction."""
        _check_id(doc_id)
        with self._lock:
            touched = {doc_id}
            try:
                with self.store.writing():
                    self._catch_up()
                    kept = doc_id in self._indexed
                    removed = self.store.delete(doc_id)
                    self._forget(doc_id)
                    if removed and kept:
                        again = self._decide_again(doc_id, touched)  # stored rows, rewritten
                        self.store.put_many(again, replacing={d.id for d in again})
                    self._committed()
            except BaseException:
                self._repair(touched)
                raise
            return removed

    def warm_up(self) -> None:
        """Run the method's whole path once — prepare, index, candidates, verification — on a
        throwaway index (loads compiled kernels and lazy imports, so the first requests do not
        pay for them). The store and the detector's index are untouched."""
        index = self.method.online_index()
        first, second = index.prepare_many(list(WARM_UP_TEXTS))
        index.add("warm-up", first)
        index.matches(second)

    def close(self) -> None:
        """Finish queued writes, then close the store (and release an SQLite store's writer
        lock)."""
        self._commits.close()
        self.store.close()

    def get(self, doc_id: str):
        _check_id(doc_id)
        return self.store.get(doc_id)

    def __contains__(self, doc_id: str) -> bool:
        return doc_id in self._hashes

    def __len__(self) -> int:
        return len(self._hashes)

    def stats(self) -> dict[str, Any]:
        with self._lock:
            self._catch_up()
        return {
            "documents": len(self._hashes),
            "method": self.method_name,
            "parameters": self.persisted(),
            "store": self.store.url,
            "fingerprint_version": FINGERPRINT_VERSION,
            "duplicates_inserted_since_start": self._duplicates,
            "duplicates_not_stored_since_start": self._not_stored,
        }


def _check_id(doc_id: Any) -> None:
    """An id is a string: ``5`` and ``"5"`` would be one row in an SQL store and two keys here;
    without NUL, which PostgreSQL's text cannot hold (every store refuses it alike)."""
    if not isinstance(doc_id, str):
        raise InputError(f"a document id must be a string, not {type(doc_id).__name__} {doc_id!r}")
    if "\x00" in doc_id:
        raise InputError(f"document id {doc_id!r} holds a NUL character; ids cannot")


def id_too_long(doc_id: str) -> str | None:
    """Why ``doc_id`` cannot be stored (longer than :data:`MAX_ID_LENGTH`), or None. Only new
    documents are refused: an id stored before the limit can still be read and removed."""
    if len(doc_id) <= MAX_ID_LENGTH:
        return None
    return (
        f"id {doc_id[:40]!r}... is {len(doc_id)} characters long; ids are at most "
        f"{MAX_ID_LENGTH} characters"
    )


def _check_text(text: Any, name: str) -> None:
    """A text is a string with something besides white space (as the service, the batch and
    dedup_texts require) and valid Unicode; ``name`` says which text in the error."""
    if not isinstance(text, str):
        raise InputError(f"{name} is a {type(text).__name__}, not a str")
    if not text.strip():
        raise InputError(f"{name} is empty")
    if not _encodable(text):
        raise InputError(f"{name} is not valid Unicode (an unpaired surrogate)")


def _pair(k: int, item: Any) -> tuple[Any, Any]:
    """Item ``k`` of a batch as ``(id, text)``: a tuple, a list or a NumPy row of two. A dict
    unpacked into its keys stored the document ``"id"`` with the text ``"text"``; a set, in an
    order of its own, could swap the two."""
    ordered = isinstance(item, tuple | list) or getattr(item, "ndim", None) == 1
    if not ordered or len(item) != 2:
        raise InputError(
            f"item {k} of the batch is {type(item).__name__} {item!r:.80}: give (id, text) pairs"
        )
    doc_id, text = item
    # a NumPy row holds numpy.str_: stored as str, as a store gives it back
    return (str(doc_id) if isinstance(doc_id, str) else doc_id), (
        str(text) if isinstance(text, str) else text
    )


def _refuse_repeated_ids(items: list[_Item]) -> None:
    first: dict[str, int] = {}
    for i, p in enumerate(items):
        if p.doc_id in first:
            raise InputError(
                f"document id {p.doc_id!r} appears twice in one batch (items {first[p.doc_id]} "
                f"and {i}); send each id once per batch"
            )
        first[p.doc_id] = i


def _encodable(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
