import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import reference
from neardup.config import FINGERPRINT_VERSION, FingerprintConfig
from neardup.errors import ConfigError
from neardup.features import char_ngrams, word_shingles, words
from neardup.normalize import normalize
from neardup.simhash import Fingerprinter, feature_hash, hamming_distance, hamming_distances

GOLDEN = Path(__file__).parent / "golden" / "fingerprints.json"


def test_feature_hash_matches_reference():
    for f in ["", "a", "ab", "新闻联", "hello world", "😀x"]:
        assert feature_hash(f) == reference.feature_hash(f)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80), st.integers(1, 6))
def test_char_fingerprint_equals_reference(text, n):
    fp = Fingerprinter(FingerprintConfig(ngram=n))
    norm = normalize(text)
    assert fp.fingerprint(text) == reference.simhash(reference.char_grams(norm, n))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.sampled_from(["新闻", "联播", "北京", "hello", "world", "2024", "，", " ", "!"]),
        max_size=20,
    )
)
def test_word_and_shingle_fingerprints_equal_reference(tokens):
    text = "".join(tokens)
    norm = normalize(text)
    w = words(norm)
    assert Fingerprinter(FingerprintConfig(features="word")).fingerprint(text) == reference.simhash(
        w
    )
    uniq = list(dict.fromkeys(w))
    assert Fingerprinter(FingerprintConfig(features="word", weights="uniform")).fingerprint(
        text
    ) == reference.simhash(uniq)
    sh = word_shingles(w, 2)
    assert Fingerprinter(FingerprintConfig(features="shingle", ngram=2)).fingerprint(
        text
    ) == reference.simhash(sh)


def test_tfidf_uses_idf_and_median_for_unknown():
    from neardup.idf import load_idf

    table = load_idf("default")
    text = "央视新闻联播报道北京天气 zzqxunknownword"
    w = words(normalize(text))
    from neardup.simhash import hash_features

    weights = table.lookup(hash_features(w)).tolist()
    assert weights[-1] == table.median  # the made-up word gets the median IDF
    fp = Fingerprinter(FingerprintConfig(features="word", weights="tfidf")).fingerprint(text)
    assert fp == reference.simhash(w, weights)


def test_corpus_idf(tmp_path):
    texts = ["北京 天气 很好", "北京 新闻", "上海 天气"]
    fper = Fingerprinter(FingerprintConfig(features="word", weights="tfidf", idf="corpus"))
    fitted = fper.fit(texts)
    import math

    docs = [words(normalize(t)) for t in texts]
    w = docs[0]
    df = {x: sum(x in d for d in docs) for x in w}
    assert df["北京"] == 2 and df["天气"] == 2
    expected = reference.simhash(w, [math.log(3 / df[x]) for x in w])
    assert fitted.fingerprint(texts[0]) == expected
    # a file table: 'word idf' lines
    f = tmp_path / "idf.txt"
    f.write_text("北京 1.5\n天气 0.5\n", encoding="utf-8")
    table_fp = Fingerprinter(FingerprintConfig(features="word", weights="tfidf", idf=str(f)))
    # median of {1.5, 0.5} = 1.0 for every unknown word
    table = {"北京": 1.5, "天气": 0.5}
    assert table_fp.fingerprint(texts[0]) == reference.simhash(w, [table.get(x, 1.0) for x in w])


def test_empty_and_short_documents():
    fp = Fingerprinter()
    assert fp.fingerprint("") == 0
    assert fp.fingerprint(" \n\t<br/> ") == 0  # nothing left after normalisation
    assert fp.is_empty("<p> </p>")
    assert fp.fingerprint("ab") == reference.simhash(["ab"])  # shorter than n: one feature
    assert char_ngrams("ab", 3) == ["ab"]


def test_batch_equals_single():
    texts = ["新闻联播", "", "Hello World", "a", "今天天气很好" * 20]
    fp = Fingerprinter()
    batch = fp.fingerprint_many(texts)
    assert batch.dtype == np.uint64
    assert [int(x) for x in batch] == [fp.fingerprint(t) for t in texts]


def test_fingerprint_features_weighted():
    fp = Fingerprinter()
    assert fp.fingerprint_features(["北京", "天气"], [2.0, 0.5]) == reference.simhash(
        ["北京", "天气"], [2.0, 0.5]
    )
    assert fp.fingerprint_features([]) == 0
    with pytest.raises(ValueError):
        fp.fingerprint_features(["a"], [1.0, 2.0])


def test_hamming():
    assert hamming_distance(0, (1 << 64) - 1) == 64
    a = np.array([0, 5, 2**63], dtype=np.uint64)
    b = np.array([1, 6, 0], dtype=np.uint64)
    assert hamming_distances(a, b).tolist() == [1, 2, 1]


def test_config_errors_name_the_fix():
    with pytest.raises(ConfigError, match="features='bag' is not supported; choose one of char"):
        FingerprintConfig(features="bag")
    with pytest.raises(ConfigError, match="ngram=0 is out of range"):
        FingerprintConfig(ngram=0)
    with pytest.raises(ConfigError, match="bits=32"):
        FingerprintConfig(bits=32)


def _golden_corpus():
    return json.loads(GOLDEN.read_text(encoding="utf-8"))


def test_golden_fingerprints_are_frozen():
    """Fingerprints are persisted data: any change to hashing, features or normalisation fails here.

    The frozen values were checked against tests/reference.py (a separate pure-Python SimHash)
    when they were written; a deliberate change must bump FINGERPRINT_VERSION and the file.
    """
    golden = _golden_corpus()
    assert golden["version"] == FINGERPRINT_VERSION
    for case in golden["cases"]:
        cfg = FingerprintConfig(**case["config"])
        got = [f"{int(x):016x}" for x in Fingerprinter(cfg).fingerprint_many(golden["texts"])]
        assert got == case["fingerprints"], case["config"]
    # the char case, independently recomputed by the reference implementation
    char = golden["cases"][0]
    assert char["config"] == {"features": "char", "ngram": 3, "weights": "tf"}
    for text, frozen in zip(golden["texts"], char["fingerprints"], strict=True):
        assert f"{reference.simhash(reference.char_grams(normalize(text), 3)):016x}" == frozen
