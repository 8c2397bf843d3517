import unicodedata

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from neardup.config import NormalizeConfig
from neardup.normalize import normalize, normalize_many


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Ｈｅｌｌｏ，　ＷＯＲＬＤ！", "hello, world!"),  # full width -> half width, case folded
        ("<p>新闻<b>联播</b></p>&amp;", "新闻 联播 &"),
        ("<script>var x = 1;</script>正文", "正文"),
        ("a\u200bb\ufeffc\u00add", "abcd"),  # invisible characters removed
        ("  many \t\n  spaces  ", "many spaces"),
        ("Straße", "strasse"),
        ("&amp;lt;b&amp;gt;x", "x"),  # entity-escaped tags cannot survive a second pass
        ("1 < 2 and 3 > 2", "1 < 2 and 3 > 2"),  # not a tag
    ],
)
def test_examples(raw, expected):
    assert normalize(raw) == expected


def test_options():
    cfg = NormalizeConfig(remove_punctuation=True)
    assert normalize("你好，世界！Hello, world.", cfg) == "你好世界hello world"
    cfg = NormalizeConfig(cjk_only=True)
    assert normalize("新闻 News 联播 2024", cfg) == "新闻联播"
    assert normalize("<b>X</b>", NormalizeConfig(strip_html=False, casefold=False)) == "<b>X</b>"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=60))
def test_idempotent_and_nfkc(text):
    once = normalize(text)
    assert normalize(once) == once
    assert unicodedata.is_normalized("NFKC", once)
    assert once == once.strip()
    assert "  " not in once


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(alphabet="ab <>&;/\x00\u3000Ａ中\u200b\n", max_size=12), max_size=8))
def test_many_equals_one_by_one(texts):
    assert normalize_many(texts) == [normalize(t) for t in texts]


def test_rejects_non_str():
    with pytest.raises(TypeError, match="needs a str"):
        normalize(b"bytes")  # type: ignore[arg-type]
    # a str was normalised as its characters; an item not a str was not placed
    with pytest.raises(TypeError, match="needs a sequence of str, not a str"):
        normalize_many("abc")
    with pytest.raises(TypeError, match="got NoneType at position 2"):
        normalize_many(["a", "b", None] * 2000)  # type: ignore[list-item]


def test_config_may_be_a_mapping_of_its_fields():
    """``normalize("ABC", {"casefold": False})`` ended in an AttributeError."""
    assert normalize("ABC", {"casefold": False}) == "ABC"
    assert normalize_many(["ABC"], {"casefold": False}) == ["ABC"]
    with pytest.raises(TypeError, match="config must be a NormalizeConfig, not list"):
        normalize("ABC", [])  # type: ignore[arg-type]


_TRICKY = (
    "aeAE ßǅﬁ①㈱\u0301\u0316\u0308éÉ한글\u1100\u1161\u11a8가\u3131ｶﾞﾟ\uff9e中文，。！\u3000"
    "<>&;amp\u200b\ufeff\u00ad\t\n\r\x00\U00020000😀Σσς\u0f73\u0b47\u0b3e"
    "…‥℃‼㎡Ⅱ№\u00a8\ufdfa"  # expansions (the last two: a space and a combining mark; too long)
)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.text(alphabet=_TRICKY, max_size=15), min_size=1, max_size=6))
def test_compiled_path_equals_python_path(texts):
    assert normalize_many(texts) == [normalize(t) for t in texts]
    assert normalize_many(texts) == normalize_many(texts, fast=False)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=30), min_size=1, max_size=5))
def test_compiled_path_equals_python_path_any_unicode(texts):
    assert normalize_many(texts) == [normalize(t) for t in texts]


def test_expansions_take_the_compiled_path_within_their_room():
    from neardup._kernels import normalize_codepoints
    from neardup._normtable import norm_table
    from neardup.normalize import decode_texts, encode_texts

    texts = ["他说……好吧 ß ㈱", "…" * 100, "Ⅱ\u00a8", "\ufdfa"]
    out, out_off, complex_docs = normalize_codepoints(*encode_texts(texts), norm_table(), True)
    # past its room (a quarter more than the input), and mappings the table cannot hold alone
    assert complex_docs.tolist() == [False, True, True, True]
    assert decode_texts(out, out_off)[0] == normalize(texts[0]) == "他说......好吧 ss (株)"
    assert normalize_many(texts) == [normalize(t) for t in texts]


_HTML = "<>&;/!?aAsSbp=' \u200b\x00\n中"


@settings(max_examples=500, deadline=None)
@given(st.lists(st.text(alphabet=_HTML, max_size=20), min_size=1, max_size=6))
def test_compiled_tags_equal_the_python_path(texts):
    assert normalize_many(texts) == [normalize(t) for t in texts]


def test_simple_tags_take_the_compiled_path():
    """A tag is white space in the compiled path; a ``<`` that opens no tag, a possible script
    or style block, an ``&`` outside a tag and a tag cut by NUL are the Python path's."""
    from neardup._kernels import normalize_codepoints
    from neardup._normtable import norm_table
    from neardup.normalize import decode_texts, encode_texts

    texts = [
        "<TEXACO INC> said <b>it</b> <a href='x&y'>sold</a>",
        "<p>新闻<b>联播</b></p>",
        "<!-- note -->x<?xml v?>",
        "1 < 2",
        "<a<b>>",  # the second pass of the Python path makes "<a >" a tag
        "<style>p{}</style>正文",
        "<Script>x</Script>y",
        "AT&T <b>x</b>",
        "<b\x00>x",
        "x <b",
    ]
    cps, offsets = encode_texts(texts)
    out, out_off, complex_docs = normalize_codepoints(cps, offsets, norm_table(), True)
    assert complex_docs.tolist() == [False] * 3 + [True] * 7
    assert decode_texts(out, out_off)[:3] == [normalize(t) for t in texts[:3]]
    assert decode_texts(out, out_off)[0] == "said it sold"
    assert normalize_many(texts) == [normalize(t) for t in texts]


FILTERING = [
    NormalizeConfig(remove_punctuation=True),
    NormalizeConfig(cjk_only=True),
    NormalizeConfig(remove_punctuation=True, strip_html=False),
]


@pytest.mark.parametrize("config", FILTERING)
@settings(max_examples=200, deadline=None)
@given(texts=st.lists(st.text(alphabet=_TRICKY + ",.!?_-·…", max_size=15), min_size=1, max_size=6))
def test_filtered_fast_path_equals_python_path(config, texts):
    assert normalize_many(texts, config) == [normalize(t, config) for t in texts]


def test_compiled_path_on_real_text(shared_data):
    import gzip

    import orjson

    for name, limit in (
        ("weibo_ced_zh", 20000),
        ("cctv_xwlb_news_zh", 2000),
        ("reuters21578_en", 2000),
    ):
        with gzip.open(shared_data / name / "corpus.jsonl.gz") as f:
            texts = [orjson.loads(line)["text"] for _, line in zip(range(limit), f, strict=False)]
        assert normalize_many(texts) == [normalize(t) for t in texts], name
        punct = FILTERING[0]
        assert normalize_many(texts, punct) == [normalize(t, punct) for t in texts], name


def test_cached_table_is_keyed_on_its_builder(tmp_path, monkeypatch):
    """A table cached by other builder code is never reused: the cache name holds a digest of
    the module that builds it and the Unicode version."""
    import hashlib
    import unicodedata
    from pathlib import Path

    from neardup import _normtable
    from neardup.normalize import _INVISIBLE
    from neardup.tablecache import cache_file

    monkeypatch.setenv("NEARDUP_CACHE", str(tmp_path))
    name = cache_file("normtable", _normtable.source_digest()).name
    digest = hashlib.sha256(Path(_normtable.__file__).read_bytes())
    digest.update(_INVISIBLE.pattern.encode())
    assert name == f"normtable-{digest.hexdigest()[:12]}-unicode{unicodedata.unidata_version}.npy"


def test_derived_tables_are_keyed_on_the_contents_of_their_sources():
    """The punctuation and readings tables are named by a digest of the bytes of the files
    they are built from (not of the files' paths: an edited builder at the same place must not
    find the old table)."""
    import hashlib
    import importlib
    from pathlib import Path

    from neardup import readings, simhash

    norm = importlib.import_module("neardup.normalize")

    def digest(*files) -> str:
        h = hashlib.sha256()
        for file in files:
            h.update(Path(file).read_bytes())
        return h.hexdigest()[:12]

    assert norm.punctuation_digest() == digest(norm.__file__)
    assert readings.sounds_digest() == digest(
        readings.__file__, simhash.__file__, readings.READINGS_PATH
    )


def test_punctuation_table_is_cached_on_disk_and_equals_a_fresh_build(tmp_path, monkeypatch):
    """Without a shipped table, the punctuation table is read from the disk cache once built
    there (a planted entry shows it is read), equals a fresh build, and an unusable cache file
    is rebuilt."""
    import importlib

    from neardup import tablecache
    from neardup._normtable import DELETE

    norm = importlib.import_module("neardup.normalize")
    monkeypatch.setenv("NEARDUP_CACHE", str(tmp_path))
    monkeypatch.setattr(tablecache, "SHIPPED", tmp_path / "none shipped")
    fresh = norm._marked_table()
    assert fresh[ord(",")] == DELETE and fresh[ord("a")] == ord("a")
    assert np.array_equal(norm._punctuation_table.__wrapped__(False), fresh)
    (cached,) = tmp_path.glob("punctuation-*.npy")
    planted = fresh.copy()
    planted[ord("a")] = DELETE
    np.save(cached, planted)
    assert norm._punctuation_table.__wrapped__(False)[ord("a")] == DELETE
    np.save(cached, np.zeros(5, np.uint32))
    assert np.array_equal(norm._punctuation_table.__wrapped__(False), fresh)


def test_sound_table_is_cached_on_disk_and_equals_a_fresh_build(tmp_path, monkeypatch):
    """Without a shipped table, the readings' hashes are read from the disk cache once built
    there (a planted entry shows it), equal a fresh build, and an unusable file is rebuilt."""
    from neardup import readings, tablecache

    monkeypatch.setenv("NEARDUP_CACHE", str(tmp_path))
    monkeypatch.setattr(tablecache, "SHIPPED", tmp_path / "none shipped")
    fresh = readings._sounds()
    keys, sounds = readings.sound_table.__wrapped__()
    assert np.array_equal(keys, fresh[0]) and np.array_equal(sounds, fresh[1])
    assert len(keys) > 20_000 and (np.diff(keys.astype(np.float64)) >= 0).all()
    (cached,) = tmp_path.glob("sounds-*.npy")
    planted = fresh.copy()
    planted[1, 0] = 7
    np.save(cached, planted)
    assert readings.sound_table.__wrapped__()[1][0] == 7
    for unusable in (np.zeros(5, np.uint64), None):  # a foreign array, an empty file
        if unusable is None:
            cached.write_bytes(b"")
        else:
            np.save(cached, unusable)
        assert np.array_equal(readings.sound_table.__wrapped__()[1], fresh[1])


def test_shipped_tables_equal_a_fresh_build_and_come_first(tmp_path, monkeypatch):
    """Every table ships with the package for this Python's Unicode version (a fresh install
    builds none), equals a fresh build, and is read before the disk cache; a table whose
    builder changed (another digest) finds no shipped file and is built and cached."""
    import importlib
    import unicodedata

    from neardup import _normtable, markup, readings, tablecache

    norm = importlib.import_module("neardup.normalize")
    monkeypatch.setenv("NEARDUP_CACHE", str(tmp_path))
    if not list(tablecache.SHIPPED.glob(f"table-*-unicode{unicodedata.unidata_version}.npz")):
        pytest.skip(f"no tables shipped for Unicode {unicodedata.unidata_version}")
    fresh = {
        "normtable": _normtable.build_table(),
        "punctuation": norm._marked_table(),
        "sounds": readings._sounds(),
        "charclasses": markup.build_character_classes(),
    }
    got = {
        "normtable": _normtable.norm_table.__wrapped__(),
        "punctuation": norm._punctuation_table.__wrapped__(False),
        "sounds": np.stack(readings.sound_table.__wrapped__()),
        "charclasses": markup.character_classes.__wrapped__(),
    }
    digests = {
        "normtable": _normtable.source_digest(),
        "punctuation": norm.punctuation_digest(),
        "sounds": readings.sounds_digest(),
        "charclasses": markup.classes_digest(),
    }
    for name, table in fresh.items():
        stale = f"the shipped {name} table is stale: run python -m neardup.tablecache --ship"
        assert tablecache.shipped_file(name, digests[name]).exists(), stale
        assert np.array_equal(got[name], table) and got[name].dtype == table.dtype, stale
    assert list(tmp_path.iterdir()) == []  # nothing built, nothing cached
    built = tablecache.cached_array(
        "normtable", "0" * 12, _normtable.build_table, usable=lambda t: t.shape == (0x110000,)
    )
    assert np.array_equal(built, fresh["normtable"])
    assert [p.name for p in tmp_path.iterdir()] == [
        tablecache.cache_file("normtable", "0" * 12).name
    ]


def test_shipped_tables_round_trip(tmp_path):
    """The shipped form (differences of neighbours for per-code-point tables) reads back as
    the array written, wrapping included."""
    from neardup.tablecache import load_shipped, ship

    for array in (
        np.array([5, 0, 0xFFFFFFFF, 3, 0xFFFFFFFD], np.uint32),
        np.arange(10, dtype=np.uint64).reshape(2, 5) * np.uint64(0x9E3779B97F4A7C15),
    ):
        path = tmp_path / "t.npz"
        ship(path, array)
        back = load_shipped(path)
        assert back.dtype == array.dtype and np.array_equal(back, array)


@given(
    st.lists(st.lists(st.integers(0, 99), max_size=4), min_size=1, max_size=8),
    st.data(),
)
@settings(max_examples=100, deadline=None)
def test_splice_documents_replaces_exactly_the_given_documents(docs, data):
    """Against building the documents one by one: the replaced ones hold their replacement,
    every other one is unchanged, and the dtype is the base's."""
    from neardup.normalize import splice_documents

    which = sorted(data.draw(st.sets(st.integers(0, len(docs) - 1))))
    repl_docs = [data.draw(st.lists(st.integers(100, 199), max_size=4)) for _ in which]
    flat = lambda parts: np.array([x for p in parts for x in p], np.uint32)  # noqa: E731
    offsets = lambda parts: np.cumsum([0] + [len(p) for p in parts])  # noqa: E731
    out, out_off = splice_documents(
        flat(docs), offsets(docs), flat(repl_docs), offsets(repl_docs), np.array(which, np.int64)
    )
    expected = list(docs)
    for j, d in enumerate(which):
        expected[d] = repl_docs[j]
    assert [out[out_off[d] : out_off[d + 1]].tolist() for d in range(len(docs))] == expected
    assert out.dtype == np.uint32


def test_joined_html_keeps_the_separators(monkeypatch):
    """Texts with entities and tags are normalised joined, in one pass (unescaping never yields
    the separator), not one by one after a failed split — and equal to one by one."""
    import importlib

    nz = importlib.import_module("neardup.normalize")  # the package exports a function of that name
    texts = ["AT&T &amp; S&P <BBLB.B> up", "a&lt;b&gt;c &#0; d", "<p>x</p>&nbsp;y", "plain"]
    want = [normalize(t) for t in texts]

    def no_fallback(*_args, **_kwargs):
        raise AssertionError("a joined chunk fell back to one text at a time")

    monkeypatch.setattr(nz, "normalize", no_fallback)
    assert nz._normalize_chunk(texts, NormalizeConfig()) == want
