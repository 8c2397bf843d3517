"""A dash between two words is a word break in the compared text (copy rule 24)."""

import random

import pytest

from neardup import dedup_texts
from neardup.methods import create

STORY = (
    "Consumer borrowing rose in November 2003 - as consumer debt hit a record, the Federal "
    "Reserve said on Monday, and economists expect borrowing to slow in the coming months."
)


@pytest.mark.parametrize("dash", ["—", "–", "--", " — ", "―"])
def test_an_unspaced_dash_separates_words_as_a_spaced_one_does(dash):
    """ "2003—as" was compared as 2003as: the same story with " - " read a changed year."""
    method = create("auto")
    other = STORY.replace(" - ", dash)
    verdict = method.compare(STORY, other)
    assert verdict["duplicate"] and "2003 as" in verdict["compared_b"]
    assert dedup_texts([STORY, other]).clusters.representative.tolist() == [0, 0]


def test_hyphens_and_chinese_dashes_are_as_before():
    """A single hyphen joins (well-known, 1-2); a dash beside CJK text is punctuation."""
    compared = create("auto").compared(["well-known 1-2", "他说——我们", "x—", "—y", "a—b"])
    assert compared == ["wellknown 12", "他说我们", "x", "y", "a b"]


def test_compiled_and_python_compared_texts_agree(monkeypatch):
    method = create("auto")
    rng = random.Random(0)
    alphabet = "ab9éZ中-—–― ."
    batches = [
        ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 10))) for _ in range(8)]
        for _ in range(500)
    ]
    monkeypatch.setenv("NEARDUP_COMPILED_FROM", "0")  # the kernels, however few the texts
    for texts in batches:
        assert method._compared(texts) == method._compared_exactly(texts), texts
