"""``neardup compare TEXT_A TEXT_B``: explain why two texts are, or are not, near-duplicates."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..errors import ConfigError, InputError
from ..methods import create
from ..normalize import normalize
from .options import add_method_options, add_tables_option, loaded_tables, method_options


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "compare",
        help="explain one pair of texts",
        description="Compare two texts (strings, or @path to read a file; a text that starts "
        "with @ is written @@…) and print both fingerprints, the Hamming distance, "
        "character-3-gram Jaccard, edit similarity and the method's verdict as JSON. Exit code "
        "0 either way; an empty or blank text is an error (dedup skips such texts). "
        "paragraph: share_a / share_b are the shares of the first / second text's distinctive "
        "characters its matched paragraphs cover, containment a_in_b when the first text is "
        "contained in the second (b_in_a, mutual, partial), and matched_paragraphs [[i, j], "
        "...] pairs paragraph i of the first text with paragraph j of the second, 0-based over "
        "its paragraphs as the method splits them: its lines, blank lines skipped, hard-wrapped "
        "prose lines joined (docs/algorithms.md).",
    )
    p.add_argument("text_a", help="first text, @FILE, or @@… for a text starting with @")
    p.add_argument("text_b", help="second text, @FILE, or @@… for a text starting with @")
    add_method_options(p, batch=False)
    add_tables_option(p, what="judge the pair")
    p.set_defaults(func=run, explain_unknown=_batch_only)


def read_text_arg(value: str) -> str:
    """The text an argument names: itself, the file of ``@path``, or ``@…`` for ``@@…`` (a
    Weibo post starts with an @mention)."""
    if value.startswith("@@"):
        return value[1:]
    if not value.startswith("@"):
        return value
    if value == "@":
        raise InputError("'@' names no file: write @PATH to read a file, or @@… for a text")
    path = Path(value[1:])
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError("no such file", source=str(path)) from None
    except UnicodeDecodeError:
        raise InputError("not valid UTF-8", source=str(path)) from None
    except OSError as exc:
        raise InputError(f"cannot read ({exc.strerror})", source=str(path)) from None


EDIT_CELLS = 1 << 32  # character pairs past which ``edit_similarity`` is left out (null)


def explain(a: str, b: str, method) -> dict:
    """Plain measures of the pair beside the method's verdict: the SimHash fingerprints and
    normalisation are the method's own when it has them (``simhash``), else the defaults. The
    edit similarity takes time in the product of the two lengths (two texts of a million
    characters: minutes), so past ``EDIT_CELLS`` it is null; no verdict reads it."""
    from rapidfuzz.distance import Levenshtein

    from ..features import char_ngrams
    from ..simhash import Fingerprinter

    config = getattr(getattr(method, "config", None), "normalize", None)
    na, nb = (
        (normalize(a), normalize(b))
        if config is None
        else (normalize(a, config), normalize(b, config))
    )
    ga, gb = set(char_ngrams(na, 3)), set(char_ngrams(nb, 3))
    union = ga | gb
    fp = getattr(method, "fingerprinter", None) or Fingerprinter()
    fa, fb = (int(x) for x in fp.fingerprint_many([a, b]))
    report = {
        "length_a": len(a),
        "length_b": len(b),
        "simhash_a": f"{fa:016x}",
        "simhash_b": f"{fb:016x}",
        "hamming_distance": (fa ^ fb).bit_count(),
        "char3_jaccard": round(len(ga & gb) / len(union), 6) if union else 1.0,
        "edit_similarity": (
            round(Levenshtein.normalized_similarity(na, nb), 6)
            if len(na) * len(nb) <= EDIT_CELLS
            else None
        ),
    }
    report["verdict"] = method.compare(a, b)
    report["duplicate"] = bool(report["verdict"].get("duplicate"))
    return report


_PARTIAL = (
    "--partial reports the partial duplicates of a batch run (neardup dedup --pairs); "
    "for one pair's shared paragraphs, compare with --method paragraph"
)


def _batch_only(unknown: list[str]) -> str | None:
    """Why compare lacks ``--partial`` (a batch option), when it is among ``unknown``."""
    return _PARTIAL if any(a.split("=", 1)[0] == "--partial" for a in unknown) else None


def run(args: argparse.Namespace) -> int:
    options = method_options(args)
    if options.get("partial"):  # --option partial=true
        raise ConfigError(_PARTIAL)
    if options.get("idf") == "corpus":  # fitted on two texts, a word of both weighs nothing
        raise ConfigError(
            "--idf corpus fits the IDF table on the input, and two texts are no corpus: give "
            "--idf default (jieba's table) or the 'word idf' file of the corpus the texts are from"
        )
    method = create(args.method, tables=loaded_tables(args, {args.method: options}), **options)
    a, b = read_text_arg(args.text_a), read_text_arg(args.text_b)
    for name, text in (("first", a), ("second", b)):
        if not text.strip():
            raise InputError(
                f"the {name} text is empty or blank: there is nothing to compare (dedup skips "
                "such texts as empty_text)"
            )
    print(json.dumps(explain(a, b, method), indent=2, ensure_ascii=False, default=str))
    return 0
