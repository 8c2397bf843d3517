"""Options of the online detector shared by `neardup serve` and `neardup index`."""

from __future__ import annotations

import argparse
import os
import sys
from functools import partial
from typing import Any

from ..errors import ConfigError
from ..methods import DEFAULT_METHOD, config_fields, online_methods
from ..store.url import backend, sqlite_path
from .method_help import flag_defaults, use_method_help
from .options import acts_only_if, parse_options, refuse_inert

DEFAULT_DB = "sqlite:///neardup.db"


def add_detector_options(p: argparse.ArgumentParser, *, writes: bool = True) -> None:
    """The store and method options; ``writes``: the command stores documents (not ``index
    query``, where ``--store-duplicates`` would do nothing)."""
    p.add_argument(
        "--db",
        default=DEFAULT_DB,
        help=f"store URL: sqlite:///file.db, postgresql://..., memory:// (default {DEFAULT_DB})",
    )
    p.add_argument(
        "--method",
        choices=online_methods(),
        default=None,
        help=f"decision method (default: the method an existing store was built with, else "
        f"{DEFAULT_METHOD}); its options are not read from the store: give again any that "
        "were not the defaults (a difference is refused, naming the stored value)",
    )
    use_method_help(p, online_methods(), omit=("partial",))  # batch runs only
    distance = p.add_argument(
        "--max-distance",
        type=int,
        help="simhash (and paragraph with --option evidence=topic): largest Hamming distance",
    )
    threshold = p.add_argument("--threshold", type=float, help="ngram/paragraph: similarity needed")
    for action in (distance, threshold):  # each sets the field of its name
        flag_defaults(action, action.dest, online_methods(), _same_name, condition=acts_only_if)
    p.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="any other option of the method's config (repeatable; listed below)",
    )
    p.add_argument(
        "--tables",
        help="auto, paragraph: the common-gram table a batch run of the method wrote "
        "(OUTDIR/common_grams.npz), so that online decisions equal that run's",
    )
    p.set_defaults(explain_unknown=partial(batch_only, p.prog))
    if writes:
        p.add_argument(
            "--store-duplicates",
            action=argparse.BooleanOptionalAction,
            default=True,
            help="store documents found to be duplicates (default: yes; never matched against)",
        )


# options of `neardup dedup` the online detector has not, and why
BATCH_ONLY = {
    "--keep": "the online detector keeps the earlier document (a new one is a duplicate of a "
    "kept one, never the reverse), which `neardup dedup --keep first` replays; longest and "
    "container reorder a whole batch",
    "--clusters": "the online detector decides by the greedy rule, each duplicate verified "
    "against its kept document",
    "--partial": "it reports a batch run's partial duplicates in pairs.csv; the online "
    "detector decides duplicates only",
    "--pairs": "the online detector answers each document's matches",
    "--against": "`neardup index query` checks documents against a store without adding them",
}


def batch_only(command: str, unknown: list[str]) -> str | None:
    """Why ``command`` (``neardup serve``, ``neardup index add``...) lacks the first of
    ``unknown`` that is an option of `neardup dedup`; None otherwise (argparse's
    "unrecognized arguments")."""
    flag = next((a.split("=", 1)[0] for a in unknown if a.split("=", 1)[0] in BATCH_ONLY), None)
    if flag is None:
        return None
    return f"{flag} is an option of `neardup dedup`, not of `{command}`: {BATCH_ONLY[flag]}"


def _same_name(flag: str, fields: set[str]) -> str | None:
    """The field ``--max-distance`` or ``--threshold`` sets here: the one of its name."""
    return flag if flag in fields else None


def detector_options(
    args: argparse.Namespace, *, recorded: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The method options the command gives (``recorded``: those of the store, see
    :func:`neardup.cli.options.refuse_inert`)."""
    fields = config_fields(args.method)
    given: dict[str, Any] = {}
    if args.max_distance is not None:
        given["max_distance"] = args.max_distance
    if args.threshold is not None:
        given["threshold"] = args.threshold
    options = parse_options(args.option or [])
    given.update(options)
    unknown = sorted(set(given) - fields)
    if unknown:
        raise ConfigError(
            f"method {args.method!r} does not take {', '.join(unknown)}; "
            f"its options are: {', '.join(sorted(fields))}"
        )
    # as dedup does: stored, it would bind the store to an option that does nothing
    refuse_inert(args.method, given, options, flags=False, recorded=recorded)
    return given


def open_store_for(args: argparse.Namespace, *, read_only: bool = False):
    """The store of ``--db``, closed when the command ends (see :mod:`neardup.cli`)."""
    from ..store import open_store

    store = open_store(args.db, read_only=read_only)
    resources = getattr(args, "resources", None)
    if resources is not None:
        resources.callback(store.close)
    return store


def new_store(url: str) -> bool:
    """Whether ``url`` names a store that cannot exist yet (in memory, or a SQLite file not
    there): its options can be checked before it is created."""
    if url.lower().startswith("memory://"):
        return True
    path = sqlite_path(url)
    return bool(path) and not os.path.exists(path)


def stored_method(store: Any) -> str | None:
    """The method a store was built with (None for a new store)."""
    method = store.meta()["params"].get("method")
    return method if isinstance(method, str) else None


def open_detector(args: argparse.Namespace, *, read_only: bool = False):
    """The detector of the command's options; ``read_only`` for commands that only look."""
    from ..online import Detector

    tables = None
    if getattr(args, "tables", None):
        from ..methods.commongrams import CommonGrams

        tables = CommonGrams.load(args.tables)
    if hasattr(args, "workers"):  # checked before a store is created
        from ..parallel import resolve_workers

        resolve_workers(args.workers)
    if args.method is not None and new_store(args.db):  # checked before a store is created
        from ..methods import create

        create(args.method, tables=tables, **detector_options(args))  # tables it takes?
    store = open_store_for(args, read_only=read_only)
    if args.method is None:
        args.method = stored_method(store) or DEFAULT_METHOD
    params = store.meta()["params"]
    same = params.get("method") == args.method and isinstance(params.get("options"), dict)
    options = detector_options(args, recorded=params["options"] if same else None)
    detector = Detector(
        store=store,
        method=args.method,
        options=options,
        tables=tables,
        store_duplicates=getattr(args, "store_duplicates", True),  # index query: no writes
    )
    if hasattr(detector.method, "workers") and hasattr(args, "workers"):
        from ..parallel import resolve_workers

        detector.method.workers = resolve_workers(args.workers)  # preparing each batch
    return detector


def warn_writer(detector: Any) -> None:
    """The warnings of a command that writes to a store: :func:`warn_in_memory` and
    :func:`warn_without_tables`."""
    warn_in_memory(detector.store.url)
    warn_without_tables(detector)


def warn_in_memory(url: str) -> None:
    """Tell a user writing to ``memory://`` (or SQLite's ``sqlite:///:memory:``) that nothing
    written outlives the process: an acknowledged insert is gone when the command or the
    service stops."""
    if backend(url) != "memory" and sqlite_path(url) != ":memory:":
        return
    print(
        f"neardup: warning: {url} keeps the store in this process only: every document it "
        "takes is gone when the process ends; give --db sqlite:///FILE.db (or "
        "postgresql://…) for a store that lasts",
        file=sys.stderr,
    )


def warn_without_tables(detector: Any) -> None:
    """Tell a user writing to a store of a method that fits a common-gram table (the default
    ``auto``; ``paragraph`` with its default ``copy`` evidence) without one what that costs: no
    text counts as common, so documents of one template (notices, headers) are all candidates
    of each other — checks slow down as the store grows — and the decisions are not those of
    ``neardup dedup`` over the same documents, which fits a table first."""
    method = detector.method
    name = getattr(method, "name", None)
    if name not in ("auto", "paragraph") or method.tables is not None:
        return
    if name == "paragraph" and method.config.evidence != "copy":
        return  # the topic evidence takes no table
    fit = "neardup dedup CORPUS -o DIR" + ("" if name == "auto" else f" --method {name}")
    print(
        "neardup: warning: no common-gram table (--tables): no text counts as common, so "
        "documents built from one template are all compared with each other (checks slow "
        "down as the store grows), and decisions differ from `neardup dedup`, which fits one; "
        f"fit it with `{fit}` and pass --tables DIR/common_grams.npz to a new store",
        file=sys.stderr,
    )
