"""Traditional Chinese characters folded to simplified ones, for comparing texts.

A repost converted to traditional characters (or from them) keeps its meaning but shares no
character n-gram with the original where the characters differ. Folding each traditional
character to its simplified form (OpenCC's ``TSCharacters`` table, one character to its first
simplified candidate; phrases are not converted) makes the copies comparable again. Used by the
``ngram`` method with ``fold_traditional=True`` (the default on both routes of ``auto``); the
SimHash fingerprint contract does not include it.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from .errors import MissingDependencyError


@lru_cache(maxsize=1)
def _table() -> dict[int, int]:
    from importlib.resources import files

    try:
        source = files("opencc") / "dictionary" / "TSCharacters.txt"
        text = source.read_text(encoding="utf-8")
    except (ImportError, OSError) as exc:
        raise MissingDependencyError(
            "folding traditional characters needs the package 'opencc-python-reimplemented' "
            "(a dependency of neardup): pip install opencc-python-reimplemented"
        ) from exc
    table: dict[int, int] = {}
    for line in text.splitlines():
        source, _, targets = line.partition("\t")
        target = targets.split(" ")[0] if targets else ""
        if len(source) == 1 and len(target) == 1 and source != target:
            table[ord(source)] = ord(target)
    return table


def fold_traditional(texts: Sequence[str]) -> list[str]:
    """``texts`` with every traditional character replaced by its simplified form."""
    table = _table()
    return [t.translate(table) for t in texts]
