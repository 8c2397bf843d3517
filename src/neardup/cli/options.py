"""Method options shared by the commands that run a method (dedup, compare, spark-dedup, eval)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ..config import FEATURE_KINDS, WEIGHT_KINDS, NormalizeConfig
from ..errors import ConfigError
from ..methods import DEFAULT_METHOD, names
from .method_help import flag_defaults, use_method_help

METHOD_NAMES = names()

# CLI flag -> method config field; only flags the user gave are passed on
_FLAG_FIELDS = {
    "max_distance": "max_distance",
    "blocks": "blocks",
    "ngram": "ngram",
    "features": "features",
    "weights": "weights",
    "idf": "idf",
    "verify": "verify",
    "key_length": "key_length",
    "match": "match",
    "partial": "partial",
}
# fields ``--threshold`` sets: the first a method's config has
_THRESHOLD_FIELDS = ("threshold", "min_similarity", "text_threshold")


def flag_field(flag: str, fields: set[str]) -> str | None:
    """The config field the flag ``flag`` (its argparse dest) sets for a method whose config
    has ``fields``; None when the method has no such option."""
    if flag == "threshold":
        return next((f for f in _THRESHOLD_FIELDS if f in fields), None)
    if flag == "verify" and "verify" not in fields and "measure" in fields:
        return "measure"  # ngram verifies every pair: --verify says how
    name = _FLAG_FIELDS[flag]
    return name if name in fields else None


def add_method_options(parser: argparse.ArgumentParser, *, batch: bool = True) -> None:
    """The method options; ``batch`` off (spark-dedup, compare) leaves out ``--partial`` and
    does not offer ``--idf corpus``, which only a local batch run has. The help shows each
    method's defaults (:mod:`neardup.cli.method_help`)."""
    use_method_help(parser, METHOD_NAMES, omit=() if batch else ("partial",))
    g = parser.add_argument_group("method options (each applies to the methods that have it)")
    g.add_argument(
        "--method",
        choices=METHOD_NAMES,
        default=DEFAULT_METHOD,
        help="auto (copies of any length, template-aware; the default), simhash (fingerprints "
        "within a Hamming distance), ngram (shared text of short texts), paragraph (DRPKP)",
    )
    g.add_argument(
        "--match",
        choices=("copy", "text"),
        help="auto: 'copy' (is B a copy of A) or 'text' (do A and B share text)",
    )
    if batch:
        _add_partial(g)
    g.add_argument("--max-distance", type=int, help="largest Hamming distance of a duplicate (k)")
    g.add_argument("--blocks", type=int, help="permuted-table blocks (> max distance)")
    g.add_argument("--ngram", type=int, help="n of character n-grams / word shingles")
    g.add_argument("--features", choices=FEATURE_KINDS, help="SimHash features")
    g.add_argument("--weights", choices=WEIGHT_KINDS, help="feature weights")
    g.add_argument(
        "--idf",
        help="IDF table for tfidf: "
        + ("default (jieba), corpus (fitted on the input) " if batch else "default (jieba) ")
        + "or a file",
    )
    g.add_argument("--verify", choices=("jaccard", "edit"), help="verify candidate pairs exactly")
    g.add_argument(
        "--threshold",
        type=float,
        help="similarity a verified pair needs (the method's own measure)",
    )
    g.add_argument("--key-length", type=int, help="ngram method: m of the m-gram keys")
    g.add_argument(
        "--remove-punctuation",
        action="store_true",
        help="normalisation: drop punctuation and symbols",
    )
    g.add_argument(
        "--cjk-only", action="store_true", help="normalisation: keep only CJK characters"
    )
    g.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="any other option of the method's config (repeatable; listed below)",
    )
    for action in g._group_actions:
        if action.dest in (*_FLAG_FIELDS, "threshold") and action.dest != "partial":
            flag_defaults(
                action,
                action.dest,
                METHOD_NAMES,
                flag_field,
                condition=acts_only_if,
                none="auto" if action.dest == "blocks" else "none",
            )


def _add_partial(g: argparse._ArgumentGroup) -> None:
    g.add_argument(
        "--partial",
        action="store_const",
        const=True,
        help="auto: also report partial duplicates of long documents — paragraphs shared, "
        "whole texts not copies — as the paragraph method finds them (pairs.csv rows with "
        "duplicate=false, so it implies --pairs; never removed; batch runs only)",
    )


def parse_options(items: list[str]) -> dict[str, Any]:
    """``--option NAME=VALUE`` items as config fields (values parsed as JSON when they are)."""
    given: dict[str, Any] = {}
    for item in items:
        name, sep, raw = item.partition("=")
        if not sep:
            raise ConfigError(f"--option {item!r} must look like NAME=VALUE")
        try:
            given[name.strip().replace("-", "_")] = json.loads(raw)
        except json.JSONDecodeError:
            given[name.strip().replace("-", "_")] = raw
    return given


def method_options(args: argparse.Namespace) -> dict[str, Any]:
    """The options the user gave, checked against the chosen method's config fields."""
    from ..methods import config_fields

    fields = config_fields(args.method)
    given: dict[str, Any] = {}
    for flag in (*_FLAG_FIELDS, "threshold"):
        value = getattr(args, flag, None)
        if value is not None:  # a flag the method lacks: refused below under its own name
            given[flag_field(flag, fields) or _FLAG_FIELDS.get(flag, flag)] = value
    if getattr(args, "remove_punctuation", False) or getattr(args, "cjk_only", False):
        given["normalize"] = NormalizeConfig(
            remove_punctuation=args.remove_punctuation, cjk_only=args.cjk_only
        )
    options = parse_options(getattr(args, "option", []) or [])
    if "normalize" in given and "normalize" in options:  # one would silently replace the other
        raise ConfigError(
            "--remove-punctuation and --cjk-only set normalisation options, and so does "
            '--option normalize=...: give them in one place (e.g. --option \'normalize={"cjk_only": '
            "true, ...}')"
        )
    if "measure" in given and "measure" in options and given["measure"] != options["measure"]:
        raise ConfigError(
            f"--verify {given['measure']} and --option measure={options['measure']} disagree: "
            "give one of them"
        )
    given.update(options)
    unknown = sorted(set(given) - fields)
    if unknown:
        flags = ", ".join(  # as the user gave each: --option NAME=... or its own flag
            f"--option {u}" if u in options else "--" + u.replace("_", "-") for u in unknown
        )
        raise ConfigError(
            f"method {args.method!r} does not take {flags}; its options are: {', '.join(sorted(fields))}"
        )
    refuse_inert(args.method, given, options)
    return given


# the paragraph method's options that one evidence reads and the other does not
_TOPIC_ONLY = ("min_words", "max_paragraph_docs")
_COPY_ONLY = (
    "min_shared_chars",
    "gram",
    "sketch",
    "common_min_df",
    "common_share",
    "min_paragraph_grams",
    "version_coverage",
    "overlap",
    "heard_grams",
    "word_grams",
    "contained_paragraphs",
    "excerpts",
    "ignore_frames",
)

# options a method takes but uses only with another one: (method, option, the other, its value
# (None: any but None), how to give it with dedup's flags, and with --option alone (serve, index))
_ACTS_ONLY_WITH = (
    ("auto", "text_threshold", "match", "text", "--match text", "--option match=text"),
    ("simhash", "min_similarity", "verify", None, "--verify jaccard or --verify edit",
     "--option verify=jaccard or --option verify=edit"),
    ("simhash", "verify_ngram", "verify", None, "--verify jaccard or --verify edit",
     "--option verify=jaccard or --option verify=edit"),
    ("simhash", "idf", "weights", "tfidf", "--weights tfidf", "--option weights=tfidf"),
    ("paragraph", "max_distance", "evidence", "topic", "--option evidence=topic",
     "--option evidence=topic"),
    ("paragraph", "blocks", "evidence", "topic", "--option evidence=topic",
     "--option evidence=topic"),
    *(("paragraph", o, "evidence", "topic", "--option evidence=topic", "--option evidence=topic")
      for o in _TOPIC_ONLY),
    *(("paragraph", o, "evidence", "copy", "--option evidence=copy (the default)",
       "--option evidence=copy (the default)") for o in _COPY_ONLY),
)  # fmt: skip


def refuse_inert(
    method: str,
    given: dict[str, Any],
    options: dict[str, Any],
    *,
    flags: bool = True,
    recorded: dict[str, Any] | None = None,
) -> None:
    """An option the method would take and ignore (``--threshold`` for ``auto`` without ``--match
    text``, for ``simhash`` without ``--verify``; ``--max-distance`` for ``paragraph``'s default
    evidence) is an error naming what it needs: a user would believe it tuned the run.
    ``flags``: the command has dedup's flags (``--match``, ``--verify``), else the fix is
    given as ``--option``. ``recorded``: the options a store was built with — one it records
    with the same value is taken (refused, the store could not be opened at all)."""
    from ..methods import create

    recorded = recorded or {}
    names = {
        o
        for m, o, *_ in _ACTS_ONLY_WITH
        if m == method and o in given and (o not in recorded or recorded[o] != given[o])
    }
    if not names:
        return
    config = create(method, **{k: v for k, v in given.items() if k not in names}).config
    for m, option, other, value, flag_fix, option_fix in _ACTS_ONLY_WITH:
        if m != method or option not in names:
            continue
        now = getattr(config, other)
        if (now is None) if value is None else (now != value):
            shown = f"--option {option}" if option in options else _flag_of(option)
            raise ConfigError(
                f"{shown} acts only with {flag_fix if flags else option_fix} for method "
                f"{method!r} ({other} is {now!r} "
                "here): add it, or leave the option out"
            )


def acts_only_if(method: str, option: str) -> str:
    """`` if OTHER=VALUE`` when ``method`` uses ``option`` only with another option so set
    (see ``_ACTS_ONLY_WITH``), else ``""``."""
    for m, o, other, value, *_ in _ACTS_ONLY_WITH:
        if (m, o) == (method, option):
            return f" if {other} is set" if value is None else f" if {other}={value}"
    return ""


def _flag_of(option: str) -> str:
    """The command-line flag that sets ``option``."""
    if option in ("text_threshold", "min_similarity", "threshold"):
        return "--threshold"
    return "--" + option.replace("_", "-")


def reader_options(args: argparse.Namespace) -> dict[str, Any]:
    """What the --format/--text-field/--id-field/--on-error options tell a reader."""
    return {
        "text_field": args.text_field,
        "id_field": args.id_field,
        "fmt": args.format,
        "on_error": args.on_error,
    }


def add_on_error_option(parser: Any) -> None:
    """``--on-error``: what a command that reads records does with a bad one."""
    from ..readers import ON_ERROR

    parser.add_argument(
        "--on-error",
        choices=ON_ERROR,
        default="fail",
        help="bad records: fail with an error naming them, or skip and count them "
        "(default: %(default)s)",
    )


def add_workers_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--workers",
        type=int,
        default=0,
        metavar="N",
        help="threads (default 0: every core); the results do not depend on it",
    )


def output_directory(value: str) -> str:
    """An ``-o`` value: a directory name, not empty (the current directory, by accident) and
    not ``-`` (standard output is ``--kept -``)."""
    if not value.strip():
        raise argparse.ArgumentTypeError("is empty: name a directory for the outputs (-o out/)")
    if value == "-":
        raise argparse.ArgumentTypeError(
            "'-' is no directory: name one for the outputs (the kept records go to standard "
            "output with --kept -)"
        )
    return value


def add_tables_option(p: argparse.ArgumentParser, *, what: str) -> None:
    """``--tables FILE``: a frozen common-gram table for the auto and paragraph methods."""
    p.add_argument(
        "--tables",
        metavar="common_grams.npz",
        help=f"auto, paragraph: {what} with this frozen common-gram table (the one a run "
        "wrote: OUTDIR/common_grams.npz), so that a corpus's boilerplate decides as in that run",
    )


def loaded_tables(args: argparse.Namespace, options: dict[str, dict[str, Any]]) -> Any:
    """The table of ``--tables`` (None: not given), checked before any work against each of
    the methods ``options`` names (method → its options): refused unless one takes tables, and
    unless it fits every one that does (one table fits one method's grams)."""
    from ..methods import TABLE_METHODS, create
    from ..pipeline.run import load_tables

    path = getattr(args, "tables", None)
    if path is None:
        return None
    if not path:
        raise ConfigError("--tables needs a file: the common_grams.npz a run wrote")
    names = list(options)
    if not set(names) & set(TABLE_METHODS):
        raise ConfigError(
            f"--tables is a common-gram table of the {' and '.join(TABLE_METHODS)} methods, "
            f"not of {' or '.join(map(repr, names))}"
        )
    tables = load_tables(path)
    for name in (n for n in names if n in TABLE_METHODS):
        create(name, **options[name])  # its options' own errors, said as such
        try:
            create(name, tables=tables, **options[name])
        except ConfigError as exc:
            raise ConfigError(f"--tables {path} does not fit method {name!r}: {exc}") from None
    return tables
