"""How Chinese characters read and look: what the copy rule forgives as a typing error.

A pinyin input method types a character of the same reading (合力 / 和利), an accent merges
readings (水准 / 岁尊), and a misread glyph is one of the same shape (人士 / 入土). The readings
come from pypinyin's per-character dictionary, toneless, every reading of a character in its
order (the first is the most common); they ship as package data (``data/readings.tsv.gz``,
``READINGS_VERSION``) so that a run neither imports pypinyin (a quarter of a second) nor
builds the table (another tenth), and so that a verdict cannot change with the installed
pypinyin. ``python -m neardup.readings`` rebuilds the file from the installed pypinyin; a test
checks the shipped file against it.
"""

from __future__ import annotations

import gzip
import re
import unicodedata
from functools import cache, lru_cache
from pathlib import Path

import numpy as np

READINGS_VERSION = "pypinyin-0.55-toneless-1"  # the source and the form of data/readings.tsv.gz
READINGS_PATH = Path(__file__).with_name("data") / "readings.tsv.gz"

_FUZZY_INITIAL = re.compile(r"^(zh|ch|sh|l)")
_FUZZY_FINAL = re.compile(r"(ang|eng|ing)$")


def fuzzy(reading: str) -> str:
    """A reading with the distinctions a fuzzy-pinyin input method gives up (zh / z, ch / c,
    sh / s, l / n, ang / an, eng / en, ing / in): a writer whose accent merges them types the
    characters of the other reading (岁尊 / 水准, 自此 / 支持)."""
    reading = _FUZZY_INITIAL.sub(
        lambda m: {"zh": "z", "ch": "c", "sh": "s", "l": "n"}[m[1]], reading
    )
    return _FUZZY_FINAL.sub(lambda m: m[1][:-1], reading)


def toneless(reading: str) -> str:
    """``zhòng`` → ``zhong``, ``lǜ`` → ``lv`` (pypinyin's ``Style.NORMAL``)."""
    bare = unicodedata.normalize("NFD", reading).replace("u\u0308", "v")
    return "".join(c for c in bare if not unicodedata.combining(c))


def build_readings() -> dict[str, tuple[str, ...]]:
    """Every character pypinyin reads, with its toneless readings in pypinyin's order."""
    from pypinyin.pinyin_dict import pinyin_dict

    table = {}
    for cp, found in pinyin_dict.items():
        table[chr(cp)] = tuple(dict.fromkeys(toneless(r) for r in found.split(",")))
    return table


@lru_cache(maxsize=1)
def char_readings() -> dict[str, tuple[str, ...]]:
    """The shipped table: character → toneless readings, the most common first."""
    with gzip.open(READINGS_PATH, "rt", encoding="utf-8") as f:
        rows = (line.rstrip("\n").split("\t") for line in f)
        return {char: tuple(found.split(",")) for char, found in rows}


def misheard(a: str, b: str) -> int:
    """How many characters of ``a`` share neither a reading (tone aside, fuzzy) nor a shape
    with the one of ``b`` at their place: 0 for homophones (合力 / 和利) and look-alikes
    (人士 / 入土) throughout, the two kinds of Chinese typing error."""
    if len(a) != len(b):
        return len(a)
    table = char_readings()
    return sum(
        not (_fuzzy_set(table.get(p, ())) & _fuzzy_set(table.get(q, ()))) and not looks_alike(p, q)
        for p, q in zip(a, b, strict=True)
    )


@cache
def _fuzzy_set(readings: tuple[str, ...]) -> frozenset[str]:
    return frozenset(fuzzy(r) for r in readings)


def looks_alike(a: str, b: str) -> bool:
    """Two characters with one four-corner code (the shape of each corner, a digit each): 人 /
    入, 日 / 曰, 末 / 未, 士 / 土, 已 / 己. About 0.1 % of pairs of the 3,000 most common
    characters share it (three corners of four: 1.5 %, too loose: 南 / 肃)."""
    codes = _corner_codes()
    ca, cb = codes.get(a), codes.get(b)
    return bool(ca and cb) and ca[:4] == cb[:4]


@lru_cache(maxsize=1)
def _corner_codes() -> dict[str, str]:
    from four_corner_method import FourCornerMethod

    return FourCornerMethod().data


@lru_cache(maxsize=1)
def sound_table() -> tuple[np.ndarray, np.ndarray]:
    """Token hashes of the characters with a reading, sorted, and the hash of each one's first
    (most common) reading, fuzzy (:func:`fuzzy`); cached on disk (:mod:`neardup.tablecache`,
    keyed by this module, the hashing module and the shipped readings)."""
    from .tablecache import cached_array

    both = cached_array("sounds", sounds_digest(), _sounds, usable=_usable_sounds)
    return both[0], both[1]


def sounds_digest() -> str:
    """What :func:`sound_table` is built from: the contents of this module, of the hashing
    module and of the shipped readings."""
    from . import simhash
    from .tablecache import digest_of

    return digest_of([Path(__file__), Path(simhash.__file__), READINGS_PATH])


def _sounds() -> np.ndarray:
    from .simhash import hash_features

    table = char_readings()
    keys = hash_features(list(table))
    sounds = hash_features(["\x00" + fuzzy(found[0]) for found in table.values()])
    order = np.argsort(keys)
    return np.stack([keys[order], sounds[order]])


def _usable_sounds(both: np.ndarray) -> bool:
    return both.ndim == 2 and both.shape[0] == 2 and both.dtype == np.uint64


def heard_codes(codes: np.ndarray) -> np.ndarray:
    """Token hashes with each character's replaced by the hash of its reading
    (:func:`sound_table`); other tokens unchanged. A compiled hash-table lookup (weibo_ced_zh:
    1.8 million tokens, 0.14 s by binary search); a small run, :mod:`neardup.compiling`: its
    NumPy twin, :func:`heard_codes_sorted`."""
    from . import _tokenkernels
    from .compiling import small

    if small(len(codes)):
        return heard_codes_sorted(codes)
    keys, sounds = sound_table()
    slots, bits = _sound_slots()
    return _tokenkernels.replaced_codes(
        np.ascontiguousarray(codes, np.uint64), keys, sounds, slots, bits
    )


def heard_codes_sorted(codes: np.ndarray) -> np.ndarray:
    """:func:`heard_codes` by binary search in the sorted table (its twin and oracle)."""
    keys, sounds = sound_table()
    at = np.minimum(np.searchsorted(keys, codes), len(keys) - 1)
    return np.where(keys[at] == codes, sounds[at], codes)


@lru_cache(maxsize=1)
def _sound_slots() -> tuple[np.ndarray, int]:
    """The hash table of :func:`sound_table`'s keys (at most a quarter full) and its bits."""
    from . import _tokenkernels

    keys = sound_table()[0]
    bits = max(4, int(np.ceil(np.log2(4 * max(len(keys), 1)))))
    return _tokenkernels.key_slots(keys, bits), bits


HEARD_BASE = 0x110000  # heard code points start past Unicode: they never equal a character


@lru_cache(maxsize=1)
def heard_table() -> np.ndarray:
    """Per code point (every one of Unicode's): itself, or for a character with a reading
    ``HEARD_BASE`` + the rank of its first (most common) reading, fuzzy (:func:`fuzzy`), among
    the table's distinct fuzzy first readings. Homophones get one code (在 / 再, 是 / 事, 水 /
    岁); look-alikes and characters of other readings keep their own (人 / 入)."""
    table = char_readings()
    heard = [fuzzy(found[0]) for found in table.values()]
    rank = {reading: k for k, reading in enumerate(sorted(set(heard)))}
    out = np.arange(HEARD_BASE, dtype=np.uint32)
    chars = np.fromiter(map(ord, table), np.int64, count=len(table))
    out[chars] = HEARD_BASE + np.fromiter(map(rank.__getitem__, heard), np.uint32, count=len(table))
    return out


def as_heard(cps: np.ndarray) -> np.ndarray:
    """Code points (uint32, as :func:`neardup.normalize.encode_texts` gives them) with each
    character that has a reading replaced by its heard code (:func:`heard_table`): character
    grams of a text typed with homophones (what a pinyin input method gets wrong) equal the
    original's, where one typo in 17 characters otherwise breaks a quarter of its 5-grams."""
    return heard_table()[cps]


def write_readings(path: Path = READINGS_PATH) -> None:
    """Write the table of the installed pypinyin (``python -m neardup.readings``)."""
    lines = "".join(f"{c}\t{','.join(r)}\n" for c, r in sorted(build_readings().items()))
    with gzip.GzipFile(path, "wb", compresslevel=9, mtime=0) as f:
        f.write(lines.encode("utf-8"))


if __name__ == "__main__":
    write_readings()
    print(f"wrote {READINGS_PATH} ({len(char_readings.__wrapped__())} characters)")
