"""The verbatim-text oracle of benchmarks/bench_partial.py, against texts built to share known
passages (the background of each side drawn from its own alphabet, so nothing else matches)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_partial

SHARED = "".join(chr(0x4E00 + k) for k in range(200))  # each passage its own characters
LEFT, RIGHT = "abcdefghijklm", "nopqrstuvwxyz"


def noise(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


@pytest.mark.parametrize("seed", range(20))
def test_shared_passages_counts_planted_passages_in_any_order(seed):
    rng = random.Random(seed)
    sizes = [rng.randint(10, 40) for _ in range(rng.randint(1, 4))]
    starts = [50 * k for k in range(len(sizes))]
    passages = [SHARED[s : s + n] for s, n in zip(starts, sizes, strict=True)]
    a = "".join(noise(rng, LEFT, rng.randint(1, 30)) + p for p in passages)
    order = passages[::-1] if seed % 2 else passages  # the other text quotes them in any order
    b = " ".join(noise(rng, RIGHT, rng.randint(1, 30)) + p for p in order)  # white space ignored
    assert bench_partial.shared_passages(a, b) == sum(sizes)
    cut = [p[: rng.randint(0, 9)] for p in passages]  # under 10 characters: not a passage
    assert bench_partial.shared_passages(a, "x".join(cut)) == 0


def test_shared_passages_ignores_passages_shorter_than_a_run():
    assert bench_partial.shared_passages("abc" + SHARED[:9] + "def", "xyz" + SHARED[:9]) == 0
    assert bench_partial.shared_passages("abc" + SHARED[:10], "xyz" + SHARED[:10]) == 10


def test_shared_passages_finds_a_passage_that_moved_past_the_alignment():
    """One shared passage at the start of one text and the end of the other, beside unrelated
    text of a small alphabet: the longest alignment threads through the unrelated text (no
    common run of 10 there) and holds no block of the passage, yet it is shared text."""
    rng = random.Random(0)
    passage = SHARED[:71]
    a = passage + "".join(rng.choice("甲乙丙丁") for _ in range(400))
    b = "".join(rng.choice("甲乙丙丁") for _ in range(400)) + passage
    assert bench_partial.shared_passages(a, b) == 71
