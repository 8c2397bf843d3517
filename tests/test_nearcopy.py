"""The near-copy generator (benchmarks/nearcopy.py) and the pair-counting metrics of bench_quality."""

from __future__ import annotations

import gzip
import itertools
import random
import re
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
import orjson
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import bench_quality
import nearcopy

SENTENCES = [
    "国务院常务会议部署进一步稳外贸稳外资的措施。",
    "会议要求各地区各部门抓好落实，确保经济运行在合理区间。",
    "气象部门发布橙色预警，提醒市民减少外出。",
    "暴雨导致多地出现内涝，交通一度中断。",
    "今年前三季度全国粮食产量达到6.8亿吨，再创历史新高。",
    "农业农村部表示，秋收进度已过八成。",
    "新建的跨海大桥今天正式通车，全长约24公里。",
    "大桥通车后，两地车程由两小时缩短到半小时。",
    "国家统计局发布数据显示，消费市场持续恢复。",
    "社会消费品零售总额同比增长百分之五点二。",
    "科研团队在深海发现了一种新的发光生物。",
    "这种生物能在零下两度的海水中存活。",
    "全国中小学陆续开学，各地做好校园安全工作。",
    "教育部门要求严格落实课后服务制度。",
    "我国自主研制的大型客机完成首次商业飞行。",
    "航空公司表示，后续将开通更多国内航线。",
    "博物馆推出夜间开放活动，吸引大批游客。",
    "展览以文物为线索，讲述城市发展的历史。",
    "新能源汽车产销量继续保持快速增长。",
    "充电设施建设也在加快推进，覆盖更多县城。",
    "医疗机构开展义诊活动，为老人免费体检。",
    "社区志愿者上门帮助行动不便的居民。",
    "电影节在上海开幕，来自四十个国家的影片参展。",
    "评委会将在闭幕式上公布最佳影片等奖项。",
]


def long_texts() -> list[str]:
    """Eight texts of 3 paragraphs x 2 sentences, no sentence shared between texts."""
    out = []
    for k in range(8):
        s = SENTENCES[k * 3 : k * 3 + 3] + SENTENCES[(k * 3 + 12) % 24 : (k * 3 + 12) % 24 + 3]
        out.append("\n".join(s[i] + s[i + 3] for i in range(3)))
    return out


SHORT = [
    "故宫如何修文物？文物医院下月向公众开放",
    "深圳房价是沈阳6倍就是因为经济？错！",
    "千万不要乱申请网贷，否则后果很严重",
    "小米生态链出新品，智能聪明，老婆都变懒了",
    "为什么说这个冬天是新能源汽车的关键时刻？",
    "会议要求：各地区抓好粮食生产，确保秋粮丰收",
    "他在地铁站捡到钱包，等了两个小时还给失主",
    "大学生毕业后回到家乡开网店，年收入过百万",
]


def sources(kind: str) -> list[tuple[str, str]]:
    texts = long_texts() if kind == "long" else SHORT
    return [(f"{kind}-{i}", t) for i, t in enumerate(texts)]


def editor(kind: str, strength: str = "medium", seed: int = 3) -> nearcopy.Editor:
    donors = [t for _, t in sources(kind)]
    return nearcopy.Editor(
        random.Random(seed), nearcopy.STRENGTHS[strength], kind=kind, donors=donors
    )


def sentences_of(text: str, *, clauses: bool = False) -> list[str]:
    return [s for p in nearcopy.split_units(text, clauses=clauses) for s in p]


def is_subsequence(small: list[str], big: list[str]) -> bool:
    it = iter(big)
    return all(any(x == y for y in it) for x in small)


# --- every edit, applied and visible ----------------------------------------------------------

TEXT = long_texts()[1]  # has digits (6.8) for the width edit
TITLE = SHORT[0]


def test_boilerplate_edits_wrap_the_text_unchanged():
    ed = editor("long")
    out = ed.header(TEXT)
    assert out.split("\n", 1)[1] == TEXT and out.split("\n", 1)[0]
    out = ed.footer(TEXT)
    assert out.rsplit("\n", 1)[0] == TEXT and out.rsplit("\n", 1)[1]
    out = ed.ad(TEXT)
    extra = [line for line in out.split("\n") if line not in TEXT.split("\n")]
    assert len(extra) == 1 and len(extra[0]) > 30
    assert [line for line in out.split("\n") if line != extra[0]] == TEXT.split("\n")


@pytest.mark.parametrize(
    ("name", "pattern"),
    [
        ("repost", r"^(转发微博 |.+//@[^:]+:)"),
        ("mention", r"@\S+"),
        ("hashtag", r"^#[^#]+#"),
        ("emoji", r"\[[^\]]+\]|[\U0001F300-\U0001FAFF]"),
        ("url", r" http://t\.cn/[A-Za-z0-9]{7}$"),
    ],
)
def test_social_edits_add_their_marks_and_keep_the_text(name, pattern):
    for seed in range(10):
        out = getattr(editor("short", seed=seed), name)(TITLE)
        assert re.search(pattern, out), out
        if name != "emoji":  # emoji may land inside the text
            assert TITLE in out
        else:
            assert re.sub(r"\[[^\]]+\]|[\U0001F300-\U0001FAFF]", "", out) == TITLE


def test_sentence_deletion_keeps_an_ordered_subset():
    out = editor("long", "heavy").delete_sentences(TEXT)
    before, after = sentences_of(TEXT), sentences_of(out)
    assert len(after) < len(before) and is_subsequence(after, before)
    # heavy (30%) on 6 sentences: 2 deleted
    assert len(before) - len(after) == 2


def test_sentence_insertion_adds_sentences_from_another_text():
    out = editor("long", "heavy").insert_sentences(TEXT)
    before, after = sentences_of(TEXT), sentences_of(out)
    assert is_subsequence(before, after) and len(after) == len(before) + 2
    others = {s for t in long_texts()[1:] for s in sentences_of(t)}
    added = list(after)
    for s in before:
        added.remove(s)
    assert added and set(added) <= others


def test_sentence_edits_do_not_apply_when_a_single_sentence_is_too_large_a_share():
    # light strength (5%) would have to remove 1 of 6 sentences (17%, more than twice 5%)
    assert editor("long", "light").delete_sentences(TEXT) is None
    assert editor("long", "light").insert_sentences(TEXT) is None
    assert editor("short", "heavy").delete_sentences("一句话没有逗号") is None


def test_short_texts_edit_clauses():
    out = editor("short", "heavy").delete_sentences(TITLE)
    assert out in ("故宫如何修文物？", "文物医院下月向公众开放")
    out = editor("short", "heavy").insert_sentences(TITLE)
    assert out != TITLE
    assert any(out.replace(c + "，", "", 1) == TITLE for c in nearcopy.COMMENTS)


@pytest.mark.parametrize("strength", ["light", "medium", "heavy"])
def test_paragraph_reordering_permutes_lines(strength):
    out = editor("long", strength).reorder_paragraphs(TEXT)
    assert out != TEXT and sorted(out.split("\n")) == sorted(TEXT.split("\n"))
    assert editor("long").reorder_paragraphs("只有一段。没有换行。") is None


@pytest.mark.parametrize("strength", ["light", "medium", "heavy"])
def test_truncation_keeps_a_prefix_of_the_strengths_share(strength):
    lo, hi = nearcopy.STRENGTHS[strength].truncate_keep
    for seed in range(5):
        out = editor("long", strength, seed).truncate(TEXT)
        body = re.sub(r"(……|（未完）|\n阅读全文)$", "", out)
        assert body != out and TEXT.startswith(body)
        assert lo * len(TEXT) - 2 <= len(body) <= hi * len(TEXT) + 1


def test_homophones_replace_only_confusable_characters():
    out = editor("long", "heavy").homophones(TEXT)
    assert len(out) == len(TEXT) and out != TEXT
    changed = [(a, b) for a, b in zip(TEXT, out, strict=True) if a != b]
    n_cjk = len(re.findall(r"[\u4e00-\u9fff]", TEXT))
    assert len(changed) == round(0.06 * n_cjk)
    assert all(b in nearcopy.CONFUSABLE[a] for a, b in changed)


def test_punctuation_noise_touches_only_punctuation():
    out = editor("long", "heavy").punctuation_noise(TEXT)
    assert out != TEXT
    strip = re.compile(r"[，。：；！？、,.:;!?~ ]")
    assert strip.sub("", out) == strip.sub("", TEXT)


def test_width_swaps_full_and_half_width_forms():
    out = editor("long").width(TEXT)
    assert "６.８" in out and "，" not in out and "。" not in out
    assert out.replace(",", "，").replace(".", "。").replace("６", "6").replace("８", "8") == (
        TEXT.replace(".", "。")
    )
    assert editor("long").width("没有标点也没有数字") is None


@pytest.mark.parametrize("strength", ["light", "medium", "heavy"])
def test_traditional_conversion_uses_the_table_on_a_span(strength):
    out = editor("long", strength).traditional(TEXT)
    changed = [(a, b) for a, b in zip(TEXT, out, strict=True) if a != b]
    assert changed and all(nearcopy.TRADITIONAL[a] == b for a, b in changed)
    if strength == "heavy":  # the whole text
        assert out == "".join(nearcopy.TRADITIONAL.get(c, c) for c in TEXT)


# --- copies and corpora -----------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["long", "short"])
@pytest.mark.parametrize("strength", ["light", "medium", "heavy"])
def test_copies_differ_and_record_their_edits(kind, strength):
    ed = editor(kind, strength)
    hi = nearcopy.STRENGTHS[strength].edits[1]
    for _, text in sources(kind):
        copy, edits = nearcopy.make_copy(text, ed)
        assert copy != text
        assert 1 <= len(edits) <= hi and len(set(edits)) == len(edits)
        assert set(edits) <= set(nearcopy.EDITS[kind])
        stages = [nearcopy.STAGES[e] for e in edits]
        assert stages == sorted(stages), edits  # content, then wrapping, then noise


def jaccard(a: str, b: str) -> float:
    def grams(t: str) -> set[str]:
        t = re.sub(r"\s+", " ", t).strip()
        return {t[i : i + 3] for i in range(max(1, len(t) - 2))}

    ga, gb = grams(a), grams(b)
    return len(ga & gb) / len(ga | gb)


@pytest.mark.parametrize("kind", ["long", "short"])
def test_strengths_are_graded(kind):
    mean = {}
    for strength in nearcopy.STRENGTHS:
        sims = []
        for seed in range(8):
            ed = editor(kind, strength, seed)
            sims += [jaccard(t, nearcopy.make_copy(t, ed)[0]) for _, t in sources(kind)]
        mean[strength] = np.mean(sims)
    assert mean["light"] > mean["medium"] > mean["heavy"]


def corpus(kind: str, strength: str = "medium", seed: int = 0, n_sources: int = 40):
    base = sources(kind)
    # more sources than the fixtures: suffix a number so every source is distinct
    srcs = [(f"{sid}-{k}", f"{t}\n第{k}号。" if kind == "long" else f"{t}{k}")
            for k in range(n_sources // len(base) + 1) for sid, t in base][:n_sources]  # fmt: skip
    return nearcopy.build_corpus(srcs, kind=kind, strength=strength, seed=seed), dict(srcs)


@pytest.mark.parametrize("kind", ["long", "short"])
def test_corpus_is_deterministic_for_a_seed(kind):
    a, _ = corpus(kind, seed=7)
    b, _ = corpus(kind, seed=7)
    c, _ = corpus(kind, seed=8)
    assert [r.to_dict() for r in a] == [r.to_dict() for r in b]
    assert [r.to_dict() for r in a] != [r.to_dict() for r in c]


@pytest.mark.parametrize("kind", ["long", "short"])
def test_labels_are_consistent(kind):
    rows, srcs = corpus(kind, "heavy")
    assert len({r.id for r in rows}) == len(rows)
    by_cluster = defaultdict(list)
    for r in rows:
        by_cluster[r.cluster].append(r)
    assert len(by_cluster) == len(srcs)  # one gold cluster per source
    for members in by_cluster.values():
        roles = sorted(r.role for r in members)
        assert len({r.source for r in members}) == 1
        if "original" in roles:
            assert roles.count("original") == 1 and 2 <= len(members) <= 5
            assert set(roles) == {"original", "copy"}
            original = next(r for r in members if r.role == "original")
            assert original.text == srcs[original.source] and not original.edits
        else:
            assert len(members) == 1 and roles[0] in ("singleton", "negative")
    counts = {role: sum(r.role == role for r in rows) for role in ("singleton", "negative")}
    assert counts == {"singleton": 8, "negative": 8}  # 20% each of 40 sources


def test_sources_first_puts_each_original_before_its_copies_and_moves_nothing_else():
    rows, _ = corpus("long", "heavy")
    ordered = nearcopy.sources_first(rows)
    assert sorted(r.id for r in ordered) == sorted(r.id for r in rows)  # a permutation
    seen: set[str] = set()
    for r in ordered:  # an original comes before every other row of its cluster
        assert (r.role == "copy") <= (r.cluster in seen)
        seen.add(r.cluster)
    assert any(r.role == "copy" and r.cluster not in {x.cluster for x in rows[:k]}
               for k, r in enumerate(rows))  # the generator's own order had a copy first  # fmt: skip
    others = [r.id for r in rows if r.role not in ("original",)]
    assert [r.id for r in ordered if r.role != "original"] == others  # the rest keep their order


@pytest.mark.parametrize("kind", ["long", "short"])
def test_every_edit_kind_occurs_in_a_corpus(kind):
    rows, _ = corpus(kind, "heavy", n_sources=80)
    seen = {e for r in rows if r.role == "copy" for e in r.edits}
    assert seen == set(nearcopy.EDITS[kind])


@pytest.mark.parametrize("kind", ["long", "short"])
def test_boilerplate_negatives_share_a_kit_but_not_a_cluster(kind):
    rows, srcs = corpus(kind, n_sources=80)
    groups = defaultdict(list)
    for r in rows:
        if r.role == "negative":
            groups[r.boilerplate_group].append(r)
    assert groups and all(len(g) >= 2 for g in groups.values())
    kits = []
    for members in groups.values():
        assert len({r.cluster for r in members}) == len(members)
        # the source text is kept whole; what is around it is identical in every member
        rest = {r.text.replace(srcs[r.source], "\x00") for r in members}
        assert len(rest) == 1 and all(srcs[r.source] in r.text for r in members)
        kit = rest.pop()
        assert len(kit) > 5
        kits.append(kit)
    assert len(set(kits)) > 1  # different groups get different kits


def test_build_corpus_rejects_bad_options():
    with pytest.raises(ValueError, match="strength"):
        nearcopy.build_corpus(sources("long"), kind="long", strength="extreme", seed=0)
    with pytest.raises(ValueError, match="kind"):
        nearcopy.build_corpus(sources("long"), kind="medium", strength="light", seed=0)
    with pytest.raises(ValueError, match="sum to at most 1"):
        nearcopy.Layout(singleton_share=0.7, negative_share=0.5)


# --- sources and the command line -------------------------------------------------------------


def test_drop_duplicates_keeps_the_first_of_exact_and_near_copies():
    texts = long_texts()
    texts = [*texts, texts[2].replace("，", ","), "  " + texts[5].upper(), texts[3]]
    # an edited copy: one character changed in a long text stays within Hamming distance 3
    texts.append(texts[0].replace("稳外资", "稳外企"))
    assert nearcopy.drop_duplicates(texts) == list(range(8))


def _write_gz(path: Path, rows: list[dict]) -> None:
    path.parent.mkdir(parents=True)
    with gzip.open(path, "wb") as f:
        for r in rows:
            f.write(orjson.dumps(r) + b"\n")


def fake_data(tmp_path: Path) -> Path:
    stories = [{"id": f"xwlb-{i}", "kind": "story", "text": t} for i, t in enumerate(long_texts())]
    stories.append({"id": "xwlb-s", "kind": "daily_summary", "text": long_texts()[0] + "摘要"})
    stories.append({"id": "xwlb-short", "kind": "story", "text": "太短的新闻。"})
    _write_gz(tmp_path / "cctv_xwlb_news_zh" / "corpus.jsonl.gz", stories)
    weibo = [{"id": f"ced-{i}", "text": t} for i, t in enumerate(SHORT[:4])]
    weibo += [
        {"id": "ced-x", "text": "转发微博"},
        {"id": "ced-y", "text": SHORT[1] + " http://t.cn/x"},
    ]
    _write_gz(tmp_path / "weibo_ced_zh" / "corpus.jsonl.gz", weibo)
    titles = [{"id": f"toutiao-test-{i}", "text": t} for i, t in enumerate(SHORT[4:])]
    _write_gz(tmp_path / "toutiao_titles_zh" / "corpus.jsonl.gz", titles)
    return tmp_path


@pytest.fixture
def short_long_sources(monkeypatch):
    """The fixture stories are about 130 characters: accept them as long sources."""
    monkeypatch.setattr(nearcopy, "LONG_MIN_CHARS", 100)


@pytest.mark.usefixtures("short_long_sources")
def test_source_filters(tmp_path):
    data = fake_data(tmp_path)
    long = nearcopy.source_pool("long", data)
    assert [sid for sid, _ in long] == [f"xwlb-{i}" for i in range(8)]  # no summary, no short story
    short = nearcopy.source_pool("short", data)
    assert {sid for sid, _ in short} == {f"ced-{i}" for i in range(4)} | {
        f"toutiao-test-{i}" for i in range(4)
    }
    picked = nearcopy.load_sources("short", 6, seed=1, data_dir=data)
    ids = [sid for sid, _ in picked]
    assert [i.startswith("toutiao") for i in ids] == [False, True] * 3  # alternating halves
    with pytest.raises(ValueError, match="only 8 distinct"):
        nearcopy.load_sources("long", 9, seed=0, data_dir=data)


@pytest.mark.usefixtures("short_long_sources")
def test_cli_writes_labelled_jsonl(tmp_path, capsys):
    data = fake_data(tmp_path / "data")
    out = tmp_path / "c.jsonl"
    argv = ["--kind", "long", "--strength", "light", "-n", "8", "-o", str(out), "--data-dir", str(data)]  # fmt: skip
    assert nearcopy.main(argv) == 0
    rows = [orjson.loads(line) for line in out.read_bytes().splitlines()]
    assert {"id", "text", "cluster", "role", "source", "edits"} <= set(rows[0])
    assert len({r["cluster"] for r in rows}) == 8
    first = out.read_bytes()
    assert nearcopy.main(argv) == 0 and out.read_bytes() == first
    assert nearcopy.main([*argv[:-2], "--data-dir", str(tmp_path / "nowhere")]) == 2
    assert "source data not found" in capsys.readouterr().err


# --- metrics ----------------------------------------------------------------------------------


def brute_scores(gold, pred, group):
    pairs = list(itertools.combinations(range(len(gold)), 2))
    same_g = {p for p in pairs if gold[p[0]] == gold[p[1]]}
    same_p = {p for p in pairs if pred[p[0]] == pred[p[1]]}
    neg = [p for p in pairs if group[p[0]] is not None and group[p[0]] == group[p[1]]]
    precision = len(same_g & same_p) / len(same_p) if same_p else 1.0
    recall = len(same_g & same_p) / len(same_g) if same_g else 1.0
    bp = 1 - sum(p in same_p for p in neg) / len(neg) if neg else float("nan")
    return precision, recall, bp


@pytest.mark.parametrize("seed", range(6))
def test_pairwise_scores_match_brute_force(seed):
    rng = random.Random(seed)
    n = rng.randint(5, 40)
    gold = [f"g{rng.randrange(n // 2 + 1)}" for _ in range(n)]
    pred = [rng.randrange(n // 3 + 1) for _ in range(n)]
    group = [rng.choice([None, None, "b1", "b2"]) for _ in range(n)]
    s = bench_quality.pairwise_scores(gold, pred, negative_group=group, source_mask=[True] * n)
    precision, recall, bp = brute_scores(gold, pred, group)
    assert s.precision == pytest.approx(precision) and s.recall == pytest.approx(recall)
    assert s.f1 == pytest.approx(2 * precision * recall / (precision + recall) if precision + recall else 0)  # fmt: skip
    assert s.boilerplate_precision == pytest.approx(bp, nan_ok=True)
    pairs = itertools.combinations(range(n), 2)
    assert s.source_false_pairs == sum(pred[a] == pred[b] and gold[a] != gold[b] for a, b in pairs)


def test_scores_of_a_perfect_and_an_all_in_one_clustering():
    rows, _ = corpus("long")
    perfect = bench_quality.score_rows(rows, [r.cluster for r in rows])
    assert (perfect.precision, perfect.recall, perfect.boilerplate_precision) == (1.0, 1.0, 1.0)
    merged = bench_quality.score_rows(rows, [0] * len(rows))
    assert merged.recall == 1.0 and merged.boilerplate_precision == 0.0 and merged.precision < 0.1


@pytest.mark.usefixtures("short_long_sources")
def test_donors_are_not_in_the_corpus(tmp_path):
    data = fake_data(tmp_path)
    sources, donors = nearcopy.load_sources_and_donors("long", 6, seed=0, data_dir=data)
    assert len(sources) == 6 and len(donors) == 2  # a quarter of 6, rounded
    assert not set(donors) & {t for _, t in sources}
    donated = {s for d in donors for p in nearcopy.split_units(d) for s in p}
    ed = nearcopy.Editor(random.Random(0), nearcopy.STRENGTHS["heavy"], kind="long", donors=donors)
    added = set()
    for _, text in sources:  # inserted sentences come from the donors only
        new = set(sentences_of(ed.insert_sentences(text))) - set(sentences_of(text))
        assert new <= donated
        added |= new
    assert added
    short_sources, short_donors = nearcopy.load_sources_and_donors(
        "short", 6, seed=0, data_dir=data
    )
    assert short_donors == [] and len(short_sources) == 6
