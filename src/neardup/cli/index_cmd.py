"""``neardup index add|query|remove|stats``: a persistent index fed from files, resumable."""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import stat
import sys
from collections.abc import Iterator
from itertools import chain
from pathlib import Path
from typing import Any

import orjson

from ..compiling import kernels_preferred
from ..errors import ConfigError, DocumentConflictError, InputError, StoreError
from ..inputs import Inputs
from ..online import id_too_long
from ..pipeline.reading import progress, warn_lost_tail
from ..readers import FORMATS, LOST_TAIL, Record, Skipped
from ..shown import shown_path
from ..store.url import redact
from .detector_options import (
    DEFAULT_DB,
    add_detector_options,
    open_detector,
    open_store_for,
    warn_writer,
)
from .options import add_on_error_option, add_workers_option, reader_options


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "index",
        help="persistent index: add, query, remove, stats",
        description="Work with a persistent index (SQLite file or PostgreSQL).",
    )
    isub = p.add_subparsers(dest="index_command", metavar="ACTION", required=True)

    for name, helptext in (
        ("add", "check and insert the records of files (resumable)"),
        ("query", "print each record's matches as JSON lines"),
    ):
        a = isub.add_parser(name, help=helptext)
        a.add_argument(
            "input",
            nargs="+",
            help="files, directories (every file of a known format under them) or glob "
            "patterns, in the order given; "
            + (
                "each resumes on its own, and several inputs need --id-field"
                if name == "add"
                else "with several, each row names its input"
            ),
        )
        a.add_argument(
            "--format", choices=FORMATS, help="format of every input (default: from each name)"
        )
        a.add_argument(
            "--text-field", default="text", help="field/column holding the text (default: text)"
        )
        a.add_argument("--id-field", help="id field (default: the record number)")
        add_on_error_option(a)
        a.add_argument(
            "--batch-size",
            type=int,
            default=1000,
            help="records per transaction" if name == "add" else "records checked at a time",
        )
        a.add_argument(
            "--quiet", action="store_true", help="no progress bar (the counts are still printed)"
        )
        a.add_argument("--limit", type=int, help=argparse.SUPPRESS)  # stop early (tests)
        if name == "add":
            a.add_argument(
                "--replace",
                action="store_true",
                help="an id already stored with another text takes the new text (without it: "
                "an error naming the record, or with --on-error skip a counted skip)",
            )
        add_workers_option(a)
        add_detector_options(a, writes=name == "add")
        a.set_defaults(func=run_add if name == "add" else run_query)

    r = isub.add_parser(
        "remove",
        help="remove documents by id (a kept one's duplicates are decided again: give the "
        "store's options and --tables as for add)",
    )
    r.add_argument("ids", nargs="+", metavar="ID")
    add_detector_options(r)
    r.set_defaults(func=run_remove)

    s = isub.add_parser("stats", help="documents, parameters and version of a store")
    s.add_argument("--db", default=DEFAULT_DB, help=f"store URL (default {DEFAULT_DB})")
    s.set_defaults(func=run_stats)


def _reading(reader, counts: dict[str, int]):
    """The reader's items; an input error also says how many documents were committed."""
    try:
        yield from reader
    except InputError as exc:
        if not _committed_note(counts):
            raise
        reason = exc.reason + _committed_note(counts)
        raise InputError(reason, source=exc.source, record=exc.record) from None


COMMITTED = ("inserted", "replaced", "unchanged", "duplicate_not_stored")  # counts in the store


def _committed_note(counts: dict[str, int]) -> str:
    """``"; N documents were committed before it, ..."`` when any were, else ``""``."""
    done = sum(counts[s] for s in COMMITTED)
    return (
        f"; {done} documents were committed before it, a rerun resumes after them" if done else ""
    )


def _conflict_message(doc_id: str, *, numbered: bool, skipped: bool = False) -> str:
    """Why a record was refused, and the ways on. ``numbered``: ids are record numbers (no
    ``--id-field``), so a second input's records meet the first's: replacing would overwrite
    another document, and the fix is naming documents by a field of theirs. ``skipped``: the
    run goes on without it (``--on-error skip``), which is then no way on to offer."""
    if numbered:
        return (
            f"document {doc_id!r} is already stored with a different text: without --id-field "
            "a document's id is its record number, and another input added to this store "
            f"(or an earlier version of this one) has a record {doc_id}; give --id-field to "
            "name documents by a field of theirs"
            + (
                ", or --replace to replace the stored text; it is left as stored"
                if skipped
                else ", --replace to replace the stored text, or --on-error skip to leave it"
            )
        )
    if skipped:
        return (
            f"document {doc_id!r} is already stored with a different text; it is left as "
            "stored (give --replace to replace it)"
        )
    return (
        f"document {doc_id!r} is already stored with a different text; give --replace to "
        "replace it, or --on-error skip to leave it"
    )


SKIPS_SHOWN = 20  # skipped records named on stderr, one line each; the rest are counted


def run_add(args: argparse.Namespace) -> int:
    if args.batch_size < 1:
        raise ConfigError(f"--batch-size {args.batch_size} must be at least 1")
    if "-" in args.input:
        raise ConfigError(
            "standard input ('-') is not an input of index add: a rerun could not resume in "
            "it; write it to a file and add that"
        )
    # every input found, and the first one's first record read, before a store is created
    inputs = Inputs(args.input, **reader_options(args))
    if len(inputs) > 1 and args.id_field is None:
        raise ConfigError(
            f"{len(inputs)} inputs need --id-field: without it a document's id is its record "
            "number, which every input repeats, and a stored id must name one document from "
            "one run to the next; give --id-field, or add the inputs one at a time"
        )
    readers = inputs.readers
    counts = {
        "inserted": 0,
        "replaced": 0,
        "unchanged": 0,
        "duplicate_not_stored": 0,
        "duplicates": 0,
        "skipped": 0,
        "already_done": 0,
    }
    reasons: dict[str, int] = {}  # skipped records by reason
    first_items = _reading(readers[0], counts)
    first = next(first_items, None)  # an empty or unreadable input too: before a store exists
    detector = open_detector(args)
    warn_writer(detector)
    bar = progress(args.quiet, "indexing")
    seen = 0
    with kernels_preferred(_large(readers)):
        for reader in readers:
            if reader is readers[0]:
                items = chain([] if first is None else [first], first_items)
            else:
                items = _reading(reader, counts)
            limit = None if args.limit is None else args.limit - seen
            seen += _add_input(args, detector, reader, items, counts, reasons, bar, limit)
    bar.close()
    counts["documents_in_store"] = len(detector)
    if counts["skipped"] > SKIPS_SHOWN:
        print(f"neardup: ... {counts['skipped'] - SKIPS_SHOWN} more skipped", file=sys.stderr)
    print(json.dumps({**counts, "skipped_by_reason": reasons}), file=sys.stderr)
    return 0


def _large(readers: Any) -> bool:
    """Whether the inputs make a large run (``LARGE_INPUT_BYTES`` on disk, as ``dedup`` judges
    one), which takes the compiled kernels for every group of documents."""
    from ..pipeline.run import LARGE_INPUT_BYTES

    total = 0
    for reader in readers:
        try:
            total += os.path.getsize(reader.path)
        except OSError:
            continue
    return total >= LARGE_INPUT_BYTES


def _add_input(
    args: argparse.Namespace,
    detector: Any,
    reader: Any,
    items: Iterator[Record | Skipped],
    counts: dict[str, int],
    reasons: dict[str, int],
    bar: Any,
    limit: int | None,
) -> int:
    """Check and insert one input's ``items`` a batch (one transaction) at a time, after the
    records its checkpoint (named by the input's path) says were committed; how many records
    were read past it."""
    path = str(reader.path)
    name = "index-add:" + shown_path(Path(path).resolve())  # a store holds UTF-8 text
    head = _head(path)
    done = _resume_after(detector.store.get_checkpoint(name), path, reader.source)
    batch: list[Record] = []
    last = done
    numbered = args.id_field is None  # ids are record numbers

    def flush(upto: int) -> None:
        mark = json.dumps({"record": upto, **(head or {})})
        if not args.replace:  # the records whose id is stored with another text, found at once
            refused = set(detector.conflicting([(r.id, r.text) for r in batch]))
            for k in sorted(refused):
                _refuse_conflict(batch[k], reader, counts, numbered=numbered)
                skipped(Skipped(batch[k].number, batch[k].id, "id_conflict",
                                _conflict_message(batch[k].id, numbered=numbered,
                                                  skipped=True)))  # fmt: skip
            batch[:] = [r for k, r in enumerate(batch) if k not in refused]
        try:
            results = detector.add_many(
                [(r.id, r.text) for r in batch], replace=args.replace, checkpoint=(name, mark)
            )
        except DocumentConflictError as exc:  # another writer stored an id meanwhile
            record = next((r for r in batch if r.id == exc.doc_id), None)
            if record is not None:
                _refuse_conflict(record, reader, counts, numbered=numbered, force=True)
            raise StoreError(f"{redact(args.db)}: {exc}{_committed_note(counts)}") from None
        except StoreError as exc:  # the store, and what is safe, named
            raise type(exc)(f"{redact(args.db)}: {exc}{_committed_note(counts)}") from None
        for r in results:
            counts[r.status] += 1
            counts["duplicates"] += r.duplicate
        batch.clear()

    def skipped(item: Skipped) -> None:
        counts["skipped"] += 1
        reasons[item.reason] = reasons.get(item.reason, 0) + 1
        if item.reason in LOST_TAIL:
            warn_lost_tail(reader, item)
        elif counts["skipped"] <= SKIPS_SHOWN:
            print(f"neardup: skipped {reader.source}, record {item.number}: {item.message}",
                  file=sys.stderr)  # fmt: skip

    seen = 0
    first_at: dict[str, int] = {}  # id -> record number: an id the file repeats is a bad record
    for item in items:
        if isinstance(item, Record) and item.number > done:
            item = _storable(reader, item, counts)
        if isinstance(item, Record):
            item = _first_use(reader, item, first_at, counts)
        if item.number <= done:
            counts["already_done"] += 1
            continue
        if limit is not None and seen >= limit:
            break
        seen += 1
        bar.update(1)
        if isinstance(item, Skipped):
            skipped(item)
        else:
            batch.append(item)
        if not (isinstance(item, Skipped) and item.reason in LOST_TAIL):
            last = item.number  # not past a lost tail: the repaired file resumes there
        if len(batch) >= args.batch_size:
            flush(last)
    if batch or last > done:
        flush(last)
    return seen


HASH_BLOCK = 1 << 20  # bytes read at a time while an input is hashed for resuming


def _head(path: str, size: int | None = None) -> dict[str, Any] | None:
    """The length and a digest of the input's first ``size`` bytes (all of it by default;
    None for standard input or a pipe, which resume by record number alone): a rerun resumes
    only in the input the checkpoint was made in, or one that grew at its end — not in one
    whose records before the checkpoint changed (a file rewritten in place: its first 64 kB
    were all that was compared, and a record changed past them was never stored). Reading the
    input once more costs far less than checking and inserting its records."""
    if path == "-" or not stat.S_ISREG(os.stat(path).st_mode):  # a pipe: reading would eat it
        return None
    digest = hashlib.sha256()
    read = 0
    with open(path, "rb") as handle:
        while size is None or read < size:
            block = handle.read(HASH_BLOCK if size is None else min(HASH_BLOCK, size - read))
            if not block:
                break
            digest.update(block)
            read += len(block)
    return {"head_bytes": read, "head": digest.hexdigest()[:16]}


def _resume_after(mark: str | None, path: str, source: str) -> int:
    """The record after which a rerun continues: the checkpoint's, unless the input at that
    path is another file than the one indexed before (its start differs), which is read from
    the start (documents already stored come back unchanged)."""
    if mark is None:
        return 0
    try:
        found = json.loads(mark)
    except ValueError:
        found = None
    if isinstance(found, int):  # a checkpoint of an earlier version: the record alone
        return found
    if not isinstance(found, dict) or not isinstance(found.get("record"), int):
        return 0
    size = found.get("head_bytes")
    known = {"head_bytes": size, "head": found.get("head")}
    if isinstance(size, int) and _head(path, size) not in (None, known):
        print(
            f"neardup: {source} is not the file indexed before at this path (its start "
            "changed): reading it from the start; documents already stored come back "
            "unchanged",
            file=sys.stderr,
        )
        return 0
    return found["record"]


def _refuse_conflict(
    record: Record, reader, counts: dict[str, int], *, numbered: bool, force: bool = False
):
    """With ``--on-error fail`` (or ``force``), an error naming the record whose id is stored
    with another text, and what was committed before it; with ``skip``, nothing (skipped).
    ``numbered``: ids are record numbers (:func:`_conflict_message`)."""
    if force or reader.on_error == "fail":
        raise InputError(
            _conflict_message(record.id, numbered=numbered) + _committed_note(counts),
            source=reader.source,
            record=record.number,
        )


def _storable(reader, item: Record, counts: dict[str, int]) -> Record | Skipped:
    """``item``, or (``--on-error skip``) a ``bad_id`` skip when its id is too long for any
    store (:data:`~neardup.online.MAX_ID_LENGTH`); with ``--on-error fail`` an error naming the
    record. Refused before its batch is written: the other records of the batch are stored."""
    too_long = id_too_long(item.id)
    if too_long is None:
        return item
    if reader.on_error == "fail":
        raise InputError(
            too_long + _committed_note(counts), source=reader.source, record=item.number
        )
    return Skipped(item.number, None, "bad_id", too_long)


def _first_use(
    reader, item: Record, first_at: dict[str, int], counts: dict[str, int]
) -> Record | Skipped:
    """``item``, or (``--on-error skip``) a ``duplicate_id`` skip when its id was used before in
    the file; with ``--on-error fail`` an error naming both records."""
    first = first_at.setdefault(item.id, item.number)
    if first == item.number:
        return item
    message = f"duplicate id {item.id!r} (first at record {first})"
    if reader.on_error == "fail":
        raise InputError(
            message + _committed_note(counts), source=reader.source, record=item.number
        )
    return Skipped(item.number, item.id, "duplicate_id", message)


def run_query(args: argparse.Namespace) -> int:
    if args.batch_size < 1:
        raise ConfigError(f"--batch-size {args.batch_size} must be at least 1")
    inputs = Inputs(args.input, **reader_options(args))  # every input found first
    detector = open_detector(args, read_only=True)
    out = sys.stdout.buffer
    batch: list = []

    def flush() -> None:
        records = [e.item for e in batch if not isinstance(e.item, Skipped)]
        answers = iter(detector.check_many([r.text for r in records]))
        for entry in batch:
            item = entry.item
            if isinstance(item, Skipped):
                row = {"record": item.number, "id": item.id, "skipped": item.reason}
            else:
                # a stored document does not match itself: only when the record names its id
                # (without --id-field, ids are record numbers and say nothing about the store)
                own = item.id if args.id_field else None
                matches = [m.__dict__ for m in next(answers).matches if m.id != own]
                row = {
                    "record": item.number,
                    "id": item.id,
                    "duplicate": bool(matches),
                    "matches": matches,
                }
            if len(inputs) > 1:
                row = {"input": inputs.labels[entry.source], **row}
            out.write(orjson.dumps(row) + b"\n")
        batch.clear()

    for entry in inputs:  # checked a batch at a time, printed in input order
        batch.append(entry)
        if len(batch) >= args.batch_size:
            flush()
    flush()
    out.flush()
    return 0


def run_remove(args: argparse.Namespace) -> int:
    """Delete documents. A kept document with stored duplicates goes through the detector,
    which decides them again as the service's DELETE does (so the store's options and
    ``--tables`` are needed then); the others are deleted directly. A store that does not exist
    is an error, not a new empty store."""
    open_store_for(args, read_only=True).close()  # exists, and is a neardup store
    store = open_store_for(args)
    if not any(store.duplicates_of(i) for i in args.ids):
        missing = [i for i in args.ids if not store.delete(i)]
    else:
        store.close()  # the detector opens its own (one writer per SQLite file)
        detector = open_detector(args)
        missing = [i for i in args.ids if not detector.remove(i)]
    for i in missing:
        print(f"neardup: no document with id {i!r}", file=sys.stderr)
    return 1 if missing else 0


def run_stats(args: argparse.Namespace) -> int:
    store = open_store_for(args, read_only=True)
    print(json.dumps({"store": store.url, "documents": store.count(), **store.meta()}, indent=2))
    return 0
