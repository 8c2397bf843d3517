"""The shipped reading table (data/readings.tsv.gz) and what the copy rule reads from it."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.readings import (
    HEARD_BASE,
    READINGS_VERSION,
    as_heard,
    build_readings,
    char_readings,
    fuzzy,
    heard_codes,
    heard_table,
    misheard,
    toneless,
)
from neardup.simhash import hash_features


def test_shipped_table_is_the_one_pypinyin_gives():
    """The persisted table equals a fresh build from the pypinyin it names."""
    import pypinyin

    assert READINGS_VERSION.startswith(f"pypinyin-{pypinyin.__version__.rsplit('.', 1)[0]}-")
    assert char_readings() == build_readings()


def test_readings_golden():
    table = char_readings()
    assert len(table) == 41_923
    assert table["中"] == ("zhong",)
    assert table["行"] == ("xing", "hang", "heng")
    assert table["绿"] == ("lv", "lu")  # ü is v, not u: 女 (nv) does not read as 努 (nu)
    assert toneless("lǜ") == "lv" and toneless("zhòng") == "zhong"
    assert fuzzy("zhang") == "zan" and fuzzy("ling") == "nin" and fuzzy("shi") == "si"


@pytest.mark.parametrize(
    ("a", "b", "want"),
    [
        ("合力", "和利", 0),  # homophones
        ("人士", "入土", 0),  # look-alikes (one four-corner code)
        ("水准", "岁尊", 0),  # an accent's fuzzy readings
        ("安阳", "银川", 2),
        ("湖南", "甘肃", 2),  # 南 / 肃 share three corners of four: not alike
        ("行", "航", 0),  # a second reading counts (xing, hang)
        ("女", "努", 1),
        ("ab", "abc", 2),
    ],
)
def test_misheard(a, b, want):
    assert misheard(a, b) == want


def test_heard_codes_replace_characters_by_their_first_reading():
    codes = hash_features(["星", "期", "天", "间", "见", "x"])
    heard = heard_codes(codes)
    assert heard[3] == heard[4]  # 间 / 见: jian
    assert heard[5] == codes[5]  # not a character with a reading: unchanged
    assert len(set(heard[:4].tolist())) == 4


def test_heard_code_points_golden():
    """The heard code of each character (persisted in every common-gram table of heard grams)
    is frozen: a change of the table or of the rule moves the digest."""
    import hashlib

    import numpy as np

    table = heard_table()
    assert hashlib.sha256(table.tobytes()).hexdigest()[:16] == "14cc70bfa77045a8"
    cps = np.frombuffer("在再是事人入的ab1 ".encode("utf-32-le"), np.uint32)
    heard = as_heard(cps).tolist()
    assert heard[0] == heard[1] == HEARD_BASE + 276  # zai
    assert heard[2] == heard[3] and heard[4] != heard[5]  # shi; ren / ru
    assert heard[6] == HEARD_BASE + 39  # de
    assert heard[7:] == [ord(c) for c in "ab1 "]  # no reading: unchanged
    distinct = {fuzzy(found[0]) for found in char_readings().values()}
    assert int(table.max()) == HEARD_BASE + len(distinct) - 1


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 2**64 - 1), unique=True, max_size=300),
    st.lists(st.integers(0, 2**64 - 1), max_size=200),
    st.integers(0, 3),
)
def test_replaced_codes_equal_a_dictionary(keys, others, spread):
    """The compiled hash-table lookup of heard readings replaces exactly the codes found among
    the keys (also keys alike in their low or high bits), whatever the table's size."""
    from neardup import _tokenkernels

    keys = np.array(sorted({k << (8 * spread) & (2**64 - 1) for k in keys}), np.uint64)
    values = np.arange(len(keys), dtype=np.uint64) + np.uint64(7)
    table = dict(zip(keys.tolist(), values.tolist(), strict=True))
    codes = np.array(keys.tolist()[::2] + others, np.uint64)
    bits = max(4, int(np.ceil(np.log2(2 * max(len(keys), 1)))))
    slots = _tokenkernels.key_slots(keys, bits)
    got = _tokenkernels.replaced_codes(codes, keys, values, slots, bits)
    assert got.tolist() == [table.get(c, c) for c in codes.tolist()]


def test_heard_codes_compiled_and_sorted_agree():
    from neardup.compiling import run_of_texts
    from neardup.readings import heard_codes, heard_codes_sorted, sound_table

    keys, _sounds = sound_table()
    rng = np.random.default_rng(3)
    codes = np.concatenate([rng.choice(keys, 5000), rng.integers(0, 2**63, 5000).astype(np.uint64)])
    with run_of_texts(["字" * 10**7]):  # a large run: the compiled lookup
        assert np.array_equal(heard_codes(codes), heard_codes_sorted(codes))
    assert np.array_equal(heard_codes(codes[:10]), heard_codes_sorted(codes[:10]))
