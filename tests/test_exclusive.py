"""Characters that exclude each other (another country, colour, opposite): the compiled shortcut's
list covers every pair the exact reading calls exclusive, and a batch of texts without a single
replaced character never loads the readings that reading needs."""

from __future__ import annotations

import subprocess
import sys

import numpy as np

from neardup.copyrule.tokens import token_codes
from neardup.copyrule.values import _exclusive, _exclusive_pairs, exclusive_codes


def test_the_shortcuts_characters_cover_every_exclusive_pair():
    codes = set(exclusive_codes().tolist())
    for x, y in _exclusive_pairs():
        for c in (x, y):
            assert int(token_codes([c])[0][0]) in codes, c
    assert np.all(np.diff(exclusive_codes().astype(np.float64)) >= 0)


def test_exclusive_reads_single_characters_only():
    assert _exclusive(["中"], ["美"])  # another country
    assert _exclusive(["今天", "红"], ["今天", "蓝"])
    assert not _exclusive(["买"], ["卖"])  # read alike: a typo's reach
    assert not _exclusive(["china"], ["japan"]) and not _exclusive(["中国"], ["美国"])
    assert not _exclusive(["中"], ["美", "国"])


_ENGLISH_BATCH = """
import neardup.readings as R
from neardup import dedup_texts
base = "The company said first quarter revenue rose to {} million dlrs from {} million a year ago"
texts = [base.format(10 + i, 5 + i) + " and it expects growth in the second half" for i in range(40)]
texts += [t + " Reuters" for t in texts]
dedup_texts(texts)
print(R.char_readings.cache_info().currsize, R._corner_codes.cache_info().currsize)
"""


def test_an_english_batch_loads_no_readings():
    done = subprocess.run(
        [sys.executable, "-c", _ENGLISH_BATCH], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", "0"]
