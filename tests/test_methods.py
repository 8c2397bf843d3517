"""The ngram, paragraph and auto methods against brute-force oracles built from the definitions."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz.distance import Levenshtein

import reference
from neardup.config import NormalizeConfig
from neardup.errors import ConfigError
from neardup.index.ngram import NgramIndex, candidate_pairs
from neardup.methods import available, create
from neardup.normalize import normalize
from neardup.verify import similarity, similarity_pairs


def grams(t, n):
    return set(reference.char_grams(t, n))


def jaccard(a, b, n=3):
    ga, gb = grams(a, n), grams(b, n)
    return 1.0 if not ga and not gb else len(ga & gb) / len(ga | gb)


SHORT = st.text(alphabet="今天气很好我们去公园转发微博abc ，！", min_size=0, max_size=14)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(SHORT, min_size=2, max_size=8), st.sampled_from(["jaccard", "edit"]), st.integers(1, 4)
)
def test_similarity_pairs_equal_definitions(texts, measure, n):
    left, right = zip(*itertools.combinations(range(len(texts)), 2), strict=True)
    got = similarity_pairs(texts, np.array(left), np.array(right), measure=measure, ngram=n)
    for (a, b), s in zip(zip(left, right, strict=True), got.tolist(), strict=True):
        if measure == "jaccard":
            want = jaccard(texts[a], texts[b], n)
        else:
            want = Levenshtein.normalized_similarity(texts[a], texts[b])
        assert s == pytest.approx(want, abs=1e-6)


def test_similarity_empty_conventions():
    assert similarity("", "") == 1.0 and similarity("", "x") == 0.0
    with pytest.raises(ConfigError, match="measure='cosine'"):
        similarity("a", "b", measure="cosine")


def brute_ngram_pairs(texts, *, key_length=4, ngram=3, threshold=0.5):
    """Definition: same normalised text, or shares an m-gram key and Jaccard >= threshold."""
    norm = [normalize(t) for t in texts]
    out = set()
    for a, b in itertools.combinations(range(len(texts)), 2):
        if norm[a] == norm[b] or (
            grams(norm[a], key_length) & grams(norm[b], key_length)
            and jaccard(norm[a], norm[b], ngram) >= threshold
        ):
            out.add((a, b))
    return out


def components(n, pairs):
    return reference.components(n, list(pairs))


@settings(max_examples=120, deadline=None)
@given(
    st.lists(SHORT, min_size=1, max_size=14), st.integers(2, 4), st.sampled_from([0.3, 0.5, 0.8])
)
def test_ngram_equals_brute_force(texts, key_length, threshold):
    method = create("ngram", key_length=key_length, threshold=threshold, max_posting=None)
    pairs = method.find_pairs(texts)
    want = brute_ngram_pairs(texts, key_length=key_length, threshold=threshold)
    got = set(zip(pairs.left.tolist(), pairs.right.tolist(), strict=True))
    # exact copies are linked to their first copy: compare what they connect
    assert got <= want
    assert components(len(texts), got) == components(len(texts), want)
    for a, b, s in zip(
        pairs.left.tolist(), pairs.right.tolist(), pairs.similarity.tolist(), strict=True
    ):
        assert s == pytest.approx(jaccard(normalize(texts[a]), normalize(texts[b])), abs=1e-6)


def test_ngram_posting_cap_is_reported():
    texts = ["转发微博" + c for c in "甲乙丙丁戊己庚辛壬癸"] + ["完全无关的文字"]
    method = create("ngram", max_posting=5)
    method.find_pairs(texts)
    assert method.stats["pruned_keys"] >= 1 and method.stats["pruned_postings"] >= 10
    left, _right, stats = candidate_pairs(texts, key_length=4, max_posting=None)
    assert stats.pruned_keys == 0 and len(left) == 45  # every pair of the ten shares 转发微博


@settings(max_examples=80, deadline=None)
@given(st.lists(SHORT, min_size=1, max_size=12), st.integers(1, 6), st.integers(2, 3))
def test_ngram_sketch_equals_bottom_k_definition(texts, sketch, key_length):
    """Candidates with a sketch: pairs sharing one of their ``sketch`` smallest key hashes."""
    from neardup.index.ngram import key_sets

    values, offsets = key_sets(texts, key_length)
    bottom = [set(values[offsets[i] : offsets[i + 1]].tolist()[:sketch]) for i in range(len(texts))]
    want = {
        (a, b) for a, b in itertools.combinations(range(len(texts)), 2) if bottom[a] & bottom[b]
    }
    left, right, _ = candidate_pairs(texts, key_length=key_length, sketch=sketch, max_posting=None)
    assert set(zip(left.tolist(), right.tolist(), strict=True)) == want
    assert len(left) == len(want)  # each pair once


def test_strip_markup():
    from neardup.markup import strip_markup

    got = strip_markup(
        [
            "转发微博//@小明:太可怕了 #社会新闻# 今天下午发生地震[泪] http://t.cn/A6x9Kp @新浪新闻 😭",
            "[哈哈]",
            "no markup here",
        ]
    )
    assert got[0].split() == ["太可怕了", "今天下午发生地震"]
    assert got[1] == "[哈哈]"  # nothing but markup: left as it is
    assert got[2] == "no markup here"
    damaged = strip_markup(
        ["看这里 ｈｔｔｐ://ｔ.ｃｎ/ａＥＰ８ x", "好 http : //t.cn/6G y", "呵 http//t.cn/R… z"]
    )
    assert [t.split() for t in damaged] == [["看这里", "x"], ["好", "y"], ["呵", "z"]]
    assert strip_markup(["#话题#… http://t.cn/A6"]) == ["#话题#... http://t.cn/A6"]  # nothing else
    method = create("ngram", strip_markup=True)
    a = "地震局：今天下午本市发生三级地震，暂无人员伤亡报告"
    b = "转发微博 #地震# " + a + " http://t.cn/A6x9Kp"
    assert method.compare(a, b)["duplicate"]
    assert not create("ngram").compare(a, b)["duplicate"]


def test_fold_traditional():
    from neardup.variants import fold_traditional

    assert fold_traditional(["國務院總理主持召開會議，經濟發展", "abc 简体不变"]) == [
        "国务院总理主持召开会议，经济发展",
        "abc 简体不变",
    ]
    simplified = "国务院总理主持召开常务会议，部署经济发展工作"
    traditional = "國務院總理主持召開常務會議，部署經濟發展工作"
    assert create("ngram", fold_traditional=True).compare(simplified, traditional)["duplicate"]
    assert not create("ngram").compare(simplified, traditional)["duplicate"]


def test_ngram_online_index():
    index = NgramIndex(key_length=4)
    index.add_many(["a", "b"], ["今天天气很好", "完全无关"])
    assert index.query("今天天气真好啊") == ["a"]
    assert index.query("短") == []
    index.add("c", "短")
    assert index.query("短") == ["c"]  # shorter than m: keyed whole
    assert index.remove("a") and index.query("今天天气很好") == []


PARA = [
    "国家统计局今天发布数据显示，全国规模以上工业增加值同比增长，制造业投资保持较快增长。",
    "从投资对经济增长的贡献看，资本形成率平均每年保持稳定，有效投资与消费升级良好互动。",
    "按产业看，第三产业投资增长较快，高技术产业投资保持两位数增长，民间投资持续恢复。",
]


def test_paragraph_containment_and_evidence():
    a = "\n".join(PARA[:2])
    b = "\n".join(PARA)  # a's paragraphs all inside b
    c = "体育新闻：足球联赛今晚继续进行，主队在主场迎战客队，比赛吸引大量球迷到场观看。"
    method = create("paragraph")
    pairs = method.find_pairs([a, b, c])
    assert list(zip(pairs.left.tolist(), pairs.right.tolist(), strict=True)) == [(0, 1)]
    ev = pairs.evidence[(0, 1)]
    assert ev["containment"] == "a_in_b" and ev["share_a"] == 1.0
    assert ev["share_b"] == pytest.approx(2 / 3, abs=1e-3)
    assert ev["matched_paragraphs"] == [[0, 0], [1, 1]]
    verdict = method.compare(a, b)
    assert verdict["duplicate"] and verdict["share_a"] == 1.0


def test_paragraph_pairs_equal_brute_force():
    """Document pairs from the index equal a brute-force comparison of paragraph fingerprints."""
    import gzip

    from conftest import SHARED_DATA

    path = SHARED_DATA / "cctv_xwlb_news_zh" / "corpus.jsonl.gz"
    if not path.exists():
        pytest.skip("shared data not found")
    import orjson

    with gzip.open(path) as f:
        texts = [orjson.loads(line)["text"] for _, line in zip(range(300), f, strict=False)]
    method = create("paragraph", max_paragraph_docs=10**6)
    pairs = method.find_pairs(texts)
    pp = method.paragraph_prints(texts)
    fps = pp.fingerprints.tolist()
    matched = {}
    for i, j, _ in reference.brute_pairs(fps, 3):
        da, db = int(pp.doc[i]), int(pp.doc[j])
        if da == db:
            continue
        (a, ia), (b, ib) = sorted([(da, int(pp.index[i])), (db, int(pp.index[j]))])
        m = matched.setdefault((a, b), (set(), set()))
        m[0].add(ia)
        m[1].add(ib)
    want = {
        k
        for k, (ma, mb) in matched.items()
        if max(len(ma) / pp.counts[k[0]], len(mb) / pp.counts[k[1]]) >= 0.5
    }
    assert set(zip(pairs.left.tolist(), pairs.right.tolist(), strict=True)) == want


NO_PUNCTUATION = NormalizeConfig(remove_punctuation=True)


def test_auto_routes_by_length():
    long_a = "。".join(PARA) * 3
    long_b = long_a.replace("今天", "昨天", 1)
    short_a, short_b = "今天天气很好我们去公园散步", "今天天气很好，我们去公园散步吧！"
    method = create("auto")
    pairs = method.find_pairs([short_a, long_a, short_b, long_b, "无关"])
    got = dict(
        zip(
            zip(pairs.left.tolist(), pairs.right.tolist(), strict=True),
            pairs.method_names(),
            strict=True,
        )
    )
    assert got == {(0, 2): "ngram", (1, 3): "simhash"}
    # heavier edits than the SimHash radius reaches: found by the m-gram sketch, verified
    extra = "另据报道，相关部门表示将继续加强监测，并及时发布预警信息，提醒市民注意出行安全。"
    long_c = "。".join([PARA[2], PARA[0], extra, PARA[1]]) * 2
    long_d = "。".join([PARA[1], PARA[2], PARA[0]]) * 2
    pairs = method.find_pairs([long_c, long_d, long_a])
    found = {
        (a, b): (m, s)
        for a, b, m, s in zip(
            pairs.left.tolist(),
            pairs.right.tolist(),
            pairs.method_names(),
            pairs.similarity.tolist(),
            strict=True,
        )
    }
    for (a, b), (_m, s) in found.items():
        texts = [long_c, long_d, long_a]
        a_, b_ = (normalize(texts[i], NO_PUNCTUATION) for i in (a, b))  # auto ignores punctuation
        assert s == pytest.approx(jaccard(a_, b_), abs=1e-6)
        assert s >= 0.3
    assert found[(0, 1)][0] == "ngram"  # SimHash distance 12: beyond the radius of 8
    assert method.compare(short_a, short_b)["route"] == "ngram"
    assert method.compare(long_a, long_b)["route"] == "simhash"
    with pytest.raises(ConfigError, match="leaves texts of"):
        create("auto", short_max_length=50, long_min_length=100)


def test_registry():
    assert set(available()) == {"simhash", "ngram", "paragraph", "auto"}
    with pytest.raises(ConfigError, match="method='bogus' is not known"):
        create("bogus")
    with pytest.raises(ConfigError, match="has no option max_distance"):
        create("ngram", max_distance=3)
    for name in available():
        m = create(name)
        assert m.score_pairs(["今天天气很好"], ["今天天气很好"]).shape == (1,)


def test_auto_long_threshold_depends_on_script():
    """Latin-script long pairs need latin_long_threshold (0.4); CJK ones long_threshold (0.3)."""
    en = (
        "The committee met on Monday to review the budget for the coming year. Members agreed "
        "that spending on schools and hospitals should rise, while road building would wait. "
        "The chair said the plan balanced the needs of cities and of the countryside. A final "
        "vote is expected next month after a public consultation closes in the spring."
    )
    zh = "。".join(PARA) + "。" + "。".join(p[::-1] for p in PARA)
    method = create("auto")
    for text, cut, want in ((en, 0.35, 0.4), (zh, 0.35, 0.3)):
        other = text[: int(len(text) * cut)] + (
            " extra words here and there" * 3 if text is en else "另外补充的评论内容" * 3
        )
        a_, b_ = (normalize(t, NO_PUNCTUATION) for t in (text, other))
        sim = jaccard(a_, b_)
        assert 0.3 <= sim < 0.4, sim  # a pair only the CJK threshold accepts
        verdict = method.compare(text, other)
        assert verdict["route"] == "simhash" and verdict["duplicate"] == (sim >= want)
        pairs = method.find_pairs([text, other])
        assert (len(pairs) == 1) == (sim >= want)
