"""Paragraph splitting (:func:`neardup.features.paragraphs`): hard-wrapped prose is unwrapped."""

from __future__ import annotations

import re

import pytest

from neardup.features import paragraphs
from neardup.methods import create

WIRE = (
    "Benetton Group SpA said it would expand\n"
    "into financial services, with a stake in a\n"
    "leasing company, in a move into the services sector.\n"
    "    A Benetton spokeswoman said the group had been studying\n"
    "the market for two years and expected the leasing unit to\n"
    "break even by the end of next year, with the help of its\n"
    "retail network.\n"
)


def old_split(text: str) -> list[str]:
    return [p for p in re.split(r"\s*\n\s*", text.strip()) if p]


def test_wrapped_lines_join_into_their_paragraph():
    assert paragraphs(WIRE) == [
        "Benetton Group SpA said it would expand into financial services, with a stake in a "
        "leasing company, in a move into the services sector.",
        "A Benetton spokeswoman said the group had been studying the market for two years and "
        "expected the leasing unit to break even by the end of next year, with the help of its "
        "retail network.",
    ]
    assert paragraphs(WIRE, unwrap=False) == old_split(WIRE)


@pytest.mark.parametrize(
    "text",
    [
        "Shr 34 cts vs 1.19 dlrs\n    Net 807,000 vs 2,858,000\n    Revs 1.2 mln vs 1.1 mln",
        "MAY7  287 1/2 UP  1 1/4\nJUL7  273 1/2 UP   3/4\nSEP7  262 UP  1",
        "Key points\n- output fell\n- prices rose\n1. first\n2) second\n(a) third",
        'Prices rose.\nOutput fell!\nWhy? He said:\nthe end;\n"Quoted."\nnext (sic.)\nlast',
        "Title line\n\nBody after a blank line\n   \n  indented",
        "Results\n---\nmore text",
        "本期节目主要内容：\n1.【领航中国】共护一江水\n增长46.2%\n1—6月，中欧班列长安号共开行2619列\nA320系列飞机\nok",
        "English line with 中文\nnext line",
        "one line only",
        "",
    ],
)
def test_hard_breaks_stay(text):
    """Sentence ends, indented lines, list items, separators, blank lines and CJK lines keep
    their line breaks: these texts split as before."""
    assert paragraphs(text) == old_split(text)


def test_a_copy_wrapped_differently_is_a_duplicate():
    """One word moved to the next line: the same paragraphs, found as a copy."""
    other = WIRE.replace("expand\ninto ", "expand into\n").replace(
        "studying\nthe ", "studying the\n"
    )
    assert other != WIRE and paragraphs(other) == paragraphs(WIRE)
    for unwrap, same in ((True, True), (False, False)):
        method = create("paragraph", unwrap_lines=unwrap)
        assert method.compare(WIRE, other)["exact_copy"] is same


def test_joining_lines_is_linear_in_the_text():
    """One hard-wrapped paragraph of 80,000 lines took 92 s when each joined line copied the
    paragraph so far; it takes about as long as the same lines split by blank lines."""
    import time

    line = "word " * 12
    for n in (20_000, 80_000):
        joined, split = line.join(["\n"] * n), (line + "\n\n") * n
        t0 = time.perf_counter()
        assert len(paragraphs(joined)) == 1
        t1 = time.perf_counter()
        assert len(paragraphs(split)) == n
        t2 = time.perf_counter()
        assert t1 - t0 < 20 * (t2 - t1) + 0.5, (n, t1 - t0, t2 - t1)
