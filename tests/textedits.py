"""Random character edits for test corpora: the near copies that tests feed the methods."""

from __future__ import annotations

import random


def edited(rng: random.Random, text: str, alphabet: str, edits: int, ops: str = "dir") -> str:
    """``text`` with ``edits`` random edits from ``ops``: ``d`` deletes a character, ``i``
    inserts one, ``r`` replaces one, ``R`` inserts a run of 3-8 (characters from ``alphabet``)."""
    chars = list(text)
    for _ in range(edits):
        k = rng.randrange(len(chars) + 1)
        op = rng.choice(ops)
        if op == "d" and k < len(chars):
            del chars[k]
        elif op == "i":
            chars.insert(k, rng.choice(alphabet))
        elif op == "R":
            chars[k:k] = [rng.choice(alphabet) for _ in range(rng.randint(3, 8))]
        elif op == "r" and k < len(chars):
            chars[k] = rng.choice(alphabet)
    return "".join(chars)
