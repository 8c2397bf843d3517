import json
import random
import threading

import pytest

import reference
from neardup.errors import IncompatibleIndexError, InputError
from neardup.normalize import normalize
from neardup.online import Detector, DocumentConflictError
from neardup.simhash import Fingerprinter
from neardup.store import open_store

BASE = (
    "国务院总理主持召开国务院常务会议，部署进一步稳外贸稳外资的措施，要求各地区各部门抓好落实，"
    "确保经济运行在合理区间，为全年经济社会发展目标任务的完成提供有力支撑。"
)


def variants(n, seed=0):
    rng = random.Random(seed)
    out = []
    for i in range(n):
        t = BASE if i % 3 else f"第{i}条：" + "".join(rng.sample(BASE, len(BASE)))
        if i % 5 == 0:
            t = t.replace("，", ",", 1)
        out.append(t)
    return out


@pytest.mark.parametrize("max_matches", [5, 1000])
def test_simhash_detector_equals_brute_force(tmp_path, max_matches):
    texts = variants(60)
    det = Detector(
        store=open_store(f"sqlite:///{tmp_path}/d.db"),
        method="simhash",
        max_distance=3,
        max_matches=max_matches,
    )
    fp = Fingerprinter()
    fps = [fp.fingerprint(t) for t in texts]
    kept: list[int] = []
    for i, t in enumerate(texts):
        r = det.add(f"id{i}", t)
        # kept documents only, nearest first, ties in insertion order, at most max_matches
        want = sorted(
            (reference.hamming(fps[i], fps[j]), j)
            for j in kept
            if reference.hamming(fps[i], fps[j]) <= 3
        )
        want = [(f"id{j}", d) for d, j in want][:max_matches]
        assert [(m.id, m.distance) for m in r.matches] == want
        assert r.inserted and r.duplicate == bool(want)
        if not want:
            kept.append(i)


def test_ngram_detector_verifies_jaccard():
    det = Detector(store=open_store("memory://"), method="ngram", threshold=0.5)
    det.add("a", "今天天气很好我们去公园散步")
    r = det.check("今天天气很好，我们去公园散步！")
    assert [m.id for m in r.matches] == ["a"] and r.matches[0].similarity >= 0.5
    assert not det.check("完全无关的文字内容").duplicate


def test_auto_detector_ignores_markup_and_script(tmp_path):
    url = f"sqlite:///{tmp_path}/m.db"
    det = Detector(store=open_store(url), method="auto")
    det.add("orig", "国务院总理主持召开常务会议，部署经济发展工作")
    repost = (
        "转发微博//@小明: #要闻# 國務院總理主持召開常務會議，部署經濟發展工作 http://t.cn/A6x9Kp"
    )
    assert [m.id for m in det.check(repost).matches] == ["orig"]
    plain = Detector(
        store=open_store("memory://"), method="auto", strip_markup=False, fold_traditional=False
    )
    plain.add("orig", "国务院总理主持召开常务会议，部署经济发展工作")
    assert not plain.check(repost).duplicate
    det.close()
    again = Detector(store=open_store(url), method="auto")  # the compared text was stored
    assert [m.id for m in again.check(repost).matches] == ["orig"]
    again.close()
    with pytest.raises(IncompatibleIndexError, match="fold_traditional"):
        Detector(store=open_store(url), method="auto", fold_traditional=False)
    stored = open_store(url, read_only=True).snapshot().payloads[0]["text"]
    assert stored == "国务院总理主持召开常务会议部署经济发展工作"  # punctuation ignored


def test_full_width_and_damaged_urls_are_markup():
    det = Detector(store=open_store("memory://"), method="auto")
    det.add("a", "长沙恒大童世界开业首日… ｈｔｔｐ://ｔ.ｃｎ/ａＥＰ８ＲＫｆ")
    det.add("b", "日本国歌翻译成中文… http : //t.cn/xPSqJ27")
    # only the URL prefix and the ellipsis are shared: not duplicates once the URLs are gone
    assert not det.check("国足今晚对阵叙利亚… ｈｔｔｐ//ｔ.ｃｎ/ＸｈｎＱＪ８").duplicate


def test_idempotence_conflict_replace_policy():
    det = Detector(store=open_store("memory://"), store_duplicates=False)
    assert det.add("a", BASE).status == "inserted"
    assert det.add("a", BASE).status == "unchanged" and len(det) == 1
    with pytest.raises(DocumentConflictError, match="already stored with a different text"):
        det.add("a", "别的内容")
    assert det.add("a", "别的内容", replace=True).status == "replaced"
    det.add("b", BASE)
    r = det.add("c", BASE)
    assert r.duplicate and not r.inserted and r.status == "duplicate_not_stored" and "c" not in det


def test_restart_and_settings_check(tmp_path):
    url = f"sqlite:///{tmp_path}/d.db"
    det = Detector(store=open_store(url), method="auto")
    det.add_many([(f"id{i}", t) for i, t in enumerate(variants(10))])
    det.close()
    again = Detector(store=open_store(url), method="auto")
    assert len(again) == 10 and again.check(BASE).matches
    again.close()
    with pytest.raises(IncompatibleIndexError, match="stored 'auto', now 'simhash'"):
        Detector(store=open_store(url), method="simhash")


def test_concurrent_near_duplicates_not_both_unique(tmp_path):
    det = Detector(store=open_store(f"sqlite:///{tmp_path}/c.db"))
    results = {}
    barrier = threading.Barrier(8)

    def send(i):
        barrier.wait()
        results[i] = det.add(f"id{i}", BASE)

    threads = [threading.Thread(target=send, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(not r.duplicate for r in results.values()) == 1  # exactly one first copy
    assert len(det) == 8 and det.store.count() == 8


def test_failed_commit_leaves_no_trace():
    class FailingStore(type(open_store("memory://"))):
        def put_many(self, docs, *, replacing=(), checkpoint=None):
            raise RuntimeError("disk full")

    det = Detector(store=FailingStore())
    with pytest.raises(RuntimeError):
        det.add("a", BASE)
    assert "a" not in det and not det.check(BASE).duplicate
    assert normalize(BASE)


def _paragraph_docs():
    import json
    from pathlib import Path

    sample = Path(__file__).resolve().parents[1] / "examples" / "sample_zh.jsonl"
    stories = [json.loads(x)["text"] for x in sample.read_text().splitlines()]
    stories = [s for s in stories if s.count("\n") >= 3][:12]
    rng = random.Random(5)
    docs = []
    for i, s in enumerate(stories):
        paras = [p for p in s.split("\n") if p.strip()]
        docs.append(s)
        if i % 2 == 0:  # a repost with commentary: the story's paragraphs plus new ones
            docs.append("\n".join(["网友评论：这件事值得关注，大家怎么看？", *paras]))
        if i % 3 == 0:  # an excerpt: some of its paragraphs only
            docs.append("\n".join(rng.sample(paras, max(1, len(paras) // 2))))
        if i % 3 == 1:  # the same template, another event: its numbers restated, names too
            docs.append("\n".join([_restated(paras[0]), *paras[1:]]))
        if i % 4 == 3:  # edited: each paragraph gains a long sentence of another story
            other = stories[(i + 5) % len(stories)].split("\n")
            docs.append("\n".join(p + rng.choice(other) for p in paras))
    return docs


def _restated(paragraph: str) -> str:
    """A paragraph of one template with other values: every digit and the names swapped."""
    shifted = paragraph.translate(str.maketrans("0123456789", "3456789012"))
    return shifted.replace("习近平", "王沪宁").replace("李强", "蔡奇") + "2026年3月5日。"


@pytest.mark.parametrize("overlap", [None, 0.5])
def test_paragraph_detector_equals_pairwise_shares(tmp_path, overlap):
    from neardup.methods.paragraph import ParagraphConfig, ParagraphMethod

    docs = _paragraph_docs()
    assert len(docs) >= 20
    oracle = ParagraphMethod(ParagraphConfig(max_distance=3, threshold=0.5, overlap=overlap))
    url = f"sqlite:///{tmp_path}/p.db"
    det = Detector(store=open_store(url), method="paragraph", max_matches=1000, overlap=overlap)
    found_any = False
    by_overlap = False  # a duplicate only because paragraphs that are no copies overlap
    plain = ParagraphMethod(ParagraphConfig(max_distance=3, threshold=0.5))
    kept: list[int] = []
    for i, text in enumerate(docs):
        r = det.add(f"p{i}", text)
        want = {}
        for j in kept:
            c = oracle.compare(text, docs[j])
            if c["duplicate"]:
                want[f"p{j}"] = max(c["share_a"], c["share_b"])
                by_overlap = by_overlap or not plain.compare(text, docs[j])["duplicate"]
        got = {m.id: m.similarity for m in r.matches}
        assert set(got) == set(want), (i, got, want)
        assert all(abs(got[k] - want[k]) < 1e-3 for k in want)
        found_any = found_any or bool(want)
        if not want:
            kept.append(i)
    assert found_any
    assert by_overlap == (overlap is not None)  # the option changes answers, online as batch
    restated = [d for d in docs if d.endswith("2026年3月5日。") or "2026年3月5日。\n" in d]
    vetoed = [
        d
        for d in restated
        for j in kept
        if (c := oracle.compare(d, docs[j]))["substituted_paragraphs"] and c["partial_duplicate"]
    ]
    assert vetoed  # the template pairs are there, and the detector kept them apart as batch does
    # after a restart the paragraph fingerprints come back from the store: same answers
    again = Detector(
        store=open_store(url, read_only=True),
        method="paragraph",
        max_matches=1000,
        overlap=overlap,
    )
    for text in docs:
        before = {m.id for m in det.check(text).matches}
        assert {m.id for m in again.check(text).matches} == before
    with pytest.raises(IncompatibleIndexError):
        Detector(store=open_store(url, read_only=True), method="paragraph", threshold=0.7)


@pytest.mark.parametrize(
    "option, off, on",
    [
        ("heard_grams", False, True),
        ("contained_paragraphs", False, True),
        ("excerpts", False, True),
        ("unwrap_lines", False, True),
        ("word_grams", 0, 3),
        ("ignore_frames", False, True),
    ],
)
def test_paragraph_store_built_before_an_option_reopens_with_it_off(tmp_path, option, off, on):
    """A ``paragraph`` store written with an option off (grams as written, of characters; no
    contained paragraphs; every line break a paragraph break) holds exactly the parameters of a
    store built before the option: it reopens with the option off and is refused, naming the
    option and the fix, with the new default."""
    url = f"sqlite:///{tmp_path}/p.db"
    det = Detector(store=open_store(url), method="paragraph", **{option: off})
    det.add("a", BASE + "\n" + BASE[::-1])
    det.close()
    assert option not in str(open_store(url, read_only=True).meta())
    store = open_store(url)
    with pytest.raises(IncompatibleIndexError, match=f"{option}: stored None, now {on}") as no:
        Detector(store=store, method="paragraph")
    hint = "false" if off is False else "0"
    assert f"--option {option}={hint}" in str(no.value)  # the refusal says how to open it
    store.close()
    again = Detector(store=open_store(url), method="paragraph", **{option: off})
    assert len(again) == 1
    again.close()


def test_a_store_without_contained_paragraphs_does_not_hold_excerpts(tmp_path):
    """``excerpts`` decides nothing without contained paragraphs: a store built with them off
    holds what one built before either option holds, and reopens with the one option off."""
    url = f"sqlite:///{tmp_path}/p.db"
    det = Detector(store=open_store(url), method="paragraph", contained_paragraphs=False)
    det.add("a", BASE + "\n" + BASE[::-1])
    det.close()
    meta = str(open_store(url, read_only=True).meta())
    assert "contained_paragraphs" not in meta and "excerpts" not in meta
    again = Detector(store=open_store(url), method="paragraph", contained_paragraphs=False)
    assert len(again) == 1
    again.close()


def test_a_topic_store_does_not_hold_the_copy_evidence_option(tmp_path):
    """``contained_paragraphs`` decides nothing for the topic evidence: a topic store does not
    record it, so one built before the option reopens without it."""
    url = f"sqlite:///{tmp_path}/t.db"
    det = Detector(store=open_store(url), method="paragraph", evidence="topic")
    det.add("a", BASE + "\n" + BASE[::-1])
    det.close()
    meta = str(open_store(url, read_only=True).meta())
    assert "contained_paragraphs" not in meta and "word_grams" not in meta
    assert "ignore_frames" not in meta and "excerpts" not in meta
    assert "unwrap_lines" in meta


def test_group_commit_gives_each_caller_its_own_answer(tmp_path):
    """Concurrent writers share transactions; a conflict fails only its own request."""
    det = Detector(store=open_store(f"sqlite:///{tmp_path}/g.db"), method="simhash")
    barrier = threading.Barrier(16)
    answers: dict[int, object] = {}

    def send(i):
        barrier.wait()
        try:
            if i % 2:
                answers[i] = det.add("same", f"第{i}个不同的文本，内容各不相同：{i * 7919}")
            else:
                answers[i] = det.add_many([(f"u{i}", f"独立文档{i}号，编号{i * 104729}")])
        except DocumentConflictError as exc:
            answers[i] = exc

    threads = [threading.Thread(target=send, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    same = [answers[i] for i in range(1, 16, 2)]
    assert sum(not isinstance(a, Exception) for a in same) == 1
    assert sum(isinstance(a, DocumentConflictError) for a in same) == 7
    assert all(answers[i][0].status == "inserted" for i in range(0, 16, 2))
    assert len(det) == 9 and det.store.count() == 9
    det.close()


def test_unpaired_surrogates_are_input_errors_before_anything_is_stored():
    det = Detector(store=open_store("memory://"))
    for doc_id, text in (("a", "文字\ud800"), ("\udfff", "文字")):
        with pytest.raises(InputError, match="not valid Unicode"):
            det.add(doc_id, text)
    assert len(det) == 0 and det.store.count() == 0


def test_an_id_holding_a_nul_is_an_input_error_on_every_store(store_url, tmp_path):
    """PostgreSQL refused it as a storage error (a 503, and ``index add --on-error skip``
    stopped); SQLite and memory stored it. Every store refuses it before anything is written,
    and a file's record with one is a counted skip."""
    from neardup.cli import main

    det = Detector(store=open_store(store_url))
    for call in (lambda: det.add("x\x00y", "文字"), lambda: det.get("x\x00y")):
        with pytest.raises(InputError, match="NUL"):
            call()
    assert len(det) == 0 and det.store.count() == 0
    det.close()
    path = tmp_path / "in.jsonl"
    rows = [
        {"id": "a", "text": "今天天气很好，我们去公园散步。"},
        {"id": "b\x00", "text": "另一篇"},
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    args = ["index", "add", str(path), "--db", store_url, "--id-field", "id", "--on-error", "skip"]
    if store_url != "memory://":
        assert main(args) == 0
        store = open_store(store_url)
        assert store.count() == 1 and store.get("a") is not None
        store.close()


def test_the_detector_refuses_what_the_other_surfaces_refuse():
    """A dict given as an item was unpacked into its keys (the document "id" with the text
    "text"); three values ended in a raw ValueError; an empty or blank text was stored, and
    then ``check("")`` answered an exact duplicate of it."""
    det = Detector(store=open_store("memory://"))
    for items, message in (
        ([{"id": "x1", "text": "今天天气很好"}], "item 0 of the batch is dict"),
        ([("x", "a", "b")], "item 0 of the batch is tuple"),
        (["xy"], "item 0 of the batch is str"),
        ([("e", "")], "the text of document 'e' is empty"),
        ([("e2", "  \n")], "the text of document 'e2' is empty"),
    ):
        with pytest.raises(InputError, match=message):
            det.add_many(items)
    with pytest.raises(InputError, match="the text is empty"):
        det.check(" ")
    assert len(det) == 0 and det.store.count() == 0
    with pytest.raises(InputError, match="item 0 of the batch is dict"):
        det.conflicting([{"id": "x1", "text": "今天天气很好"}])
    assert det.add_many([["x", "今天天气很好"]])[0].status == "inserted"  # a list is a pair
    import numpy as np

    rows = np.array([["y", "明天也是好天气，出门走走"]], dtype=object)  # a frame's rows
    assert det.add_many(rows)[0].status == "inserted"
    assert type(det.get("y").id) is str
    for unordered in ({"z", "后天下雨，记得带伞"}, iter(["z", "后天下雨，记得带伞"])):
        with pytest.raises(InputError, match="give \\(id, text\\) pairs"):
            det.add_many([unordered])  # a set's order is its own: id and text could swap


def test_a_cancelled_write_is_skipped_and_the_committer_goes_on():
    """A caller that gives up before its turn (asyncio cancels the future it awaits) is not
    written; the writes queued beside it and after it are, and each gets its answer."""
    import concurrent.futures

    from neardup.groupcommit import GroupCommit

    started, release = threading.Event(), threading.Event()
    done: list = []

    def run_group(group):
        for request in group:
            if request.work == "slow":
                started.set()
                release.wait(10)
            done.append(request.work)
            request.result = request.work

    commits = GroupCommit(run_group)
    slow = commits.submit_future("slow")
    assert started.wait(10)
    cancelled, kept = commits.submit_future("b"), commits.submit_future("c")
    assert cancelled.cancel()
    release.set()
    assert slow.result(10) == "slow" and kept.result(10) == "c"
    assert commits.submit("d") == "d"
    with pytest.raises(concurrent.futures.CancelledError):
        cancelled.result(1)
    assert done == ["slow", "c", "d"]
    commits.close()


def test_replacing_with_a_duplicate_that_is_not_stored_keeps_the_stored_version(tmp_path):
    """With store_duplicates off, replace=true with a text that duplicates another document
    writes nothing: the old version stays, in memory as in the store (also after a restart)."""
    url = f"sqlite:///{tmp_path}/r.db"
    other = "完全不同的另一条新闻：教育部发布通知，要求各地做好高校毕业生就业创业工作，拓宽渠道。"
    det = Detector(store=open_store(url), store_duplicates=False)
    det.add("x", BASE)
    det.add("y", other)
    r = det.add("x", other + "！", replace=True)
    assert r.status == "duplicate_not_stored" and r.matches[0].id == "y"
    assert "x" in det and len(det) == 2
    live = [m.id for m in det.check(BASE).matches]
    assert live == ["x"]
    det.close()
    again = Detector(store=open_store(url, read_only=True), store_duplicates=False)
    assert [m.id for m in again.check(BASE).matches] == live and len(again) == 2


def _reopened(url, store):
    """A second detector over what ``store`` holds (rebuilt from the store alone)."""
    if url.startswith("memory"):
        return Detector(store=store)
    if url.startswith("sqlite"):
        return Detector(store=open_store(url, read_only=True))
    return Detector(store=open_store(url))


def _stored_state(store):
    snap = store.snapshot()
    return dict(zip(snap.ids, snap.duplicate_of, strict=True))


OTHER_STORY = (
    "教育部发布通知，要求各地做好高校毕业生就业创业工作，拓宽就业渠道，加强就业指导和服务保障。"
)


def test_deleting_or_replacing_a_kept_document_decides_its_duplicates_again(store_url):
    """A kept document's duplicates do not point at a document that is gone: the oldest becomes
    kept (nothing else matches it), the next is its duplicate; a check of their text finds them;
    a detector rebuilt from the store answers as the live one."""
    store = open_store(store_url)
    det = Detector(store=store)
    near = BASE.replace("抓好落实", "抓好落地")
    det.add_many([("orig", BASE), ("copy1", BASE), ("copy2", near), ("other", OTHER_STORY)])
    assert _stored_state(store) == {"orig": None, "copy1": "orig", "copy2": "orig", "other": None}
    assert det.remove("orig")
    assert _stored_state(store) == {"copy1": None, "copy2": "copy1", "other": None}
    assert [m.id for m in det.check(BASE).matches] == ["copy1"]
    again = _reopened(store_url, store)
    assert [m.id for m in again.check(near).matches] == [m.id for m in det.check(near).matches]
    again.close() if not store_url.startswith("memory") else None
    # replacing the new representative: its old text's duplicate is decided again too
    assert det.add(
        "copy1", "一条完全无关的新文本，讲的是城市公园里新开的图书角。", replace=True
    ).inserted
    assert _stored_state(store)["copy2"] is None
    assert [m.id for m in det.check(BASE).matches] == ["copy2"]
    det.close()


def test_after_random_writes_every_duplicate_names_a_kept_document(store_url):
    """Random inserts, replacements and deletions of variants of two stories: after each, every
    stored duplicate names a stored kept document, and a detector rebuilt from the store gives
    the live detector's answers (an oracle that does not share the live index)."""
    rng = random.Random(7)
    texts = [
        *variants(6, seed=1),
        OTHER_STORY,
        OTHER_STORY.replace("拓宽", "开拓"),
        OTHER_STORY + "各地要抓紧落实。",
    ]
    store = open_store(store_url)
    det = Detector(store=store)
    for step in range(60):
        doc_id = f"d{rng.randrange(8)}"
        if doc_id in det and rng.random() < 0.25:
            det.remove(doc_id)
        else:  # a batch of 1-3 distinct ids (a kept document and its duplicates, often)
            ids = rng.sample([f"d{k}" for k in range(8)], rng.randint(1, 3))
            det.add_many([(i, rng.choice(texts)) for i in ids], replace=True)
        state = _stored_state(store)
        for name, rep in state.items():
            assert rep is None or state.get(rep, "gone") is None, (step, name, rep, state)
        stored = {i: store.get(i).text_hash for i in state}
        assert stored == {i: det._hashes[i] for i in stored} and set(det._hashes) == set(stored)
    again = _reopened(store_url, store)
    for text in texts:
        assert [m.id for m in again.check(text).matches] == [m.id for m in det.check(text).matches]
    if not store_url.startswith("memory"):
        again.close()
    det.close()


@pytest.mark.parametrize("method", ["auto", "simhash"])
def test_a_representative_of_many_copies_is_deleted_as_if_never_stored(method):
    """A kept post with hundreds of identical reposts, near copies and other texts among them:
    after it is deleted, its duplicates are decided exactly as a detector that never stored it
    decides them (the oracle: a second detector fed the same documents without it) — one
    decision per distinct text, not one per repost."""
    rng = random.Random(3)
    near = [BASE.replace("抓好落实", w) for w in ("抓好落地", "抓紧落实", "狠抓落实")]
    copies = [rng.choice([BASE] * 8 + near) for _ in range(400)]
    docs = [(f"c{i}", t) for i, t in enumerate(copies)]
    live = Detector(store=open_store("memory://"), method=method)
    live.add("rep", BASE)
    live.add_many(docs)
    assert live.remove("rep")
    oracle = Detector(store=open_store("memory://"), method=method)
    oracle.add_many(docs)
    assert _stored_state(live.store) == _stored_state(oracle.store)
    for text in [BASE, *near]:
        assert [m.id for m in live.check(text).matches] == [
            m.id for m in oracle.check(text).matches
        ]


def test_a_store_of_another_copy_rule_is_not_offered_an_option_that_cannot_open_it():
    """Review: a paragraph store of the previous release (copy rule 15, no ``word_grams``) was
    refused with the hint ``--option word_grams=0``, which is refused again (the rule differs);
    the hint is given only when options alone differ."""
    import json

    from neardup.methods import create
    from neardup.store.base import compare_meta

    stored = dict(create("paragraph", word_grams=0).persisted(), rule_version="neardup-copy-15")
    wanted = create("paragraph").persisted()
    with pytest.raises(IncompatibleIndexError, match="rule_version") as no:
        compare_meta({"version": "v", "params": json.dumps(stored)}, "v", wanted, "sqlite:///x")
    assert "word_grams=0" not in str(no.value)
    same_rule = create("paragraph", word_grams=0).persisted()
    with pytest.raises(IncompatibleIndexError) as no:
        compare_meta({"version": "v", "params": json.dumps(same_rule)}, "v", wanted, "sqlite:///x")
    assert "--option word_grams=0" in str(no.value)


def test_a_document_re_sent_unchanged_is_told_its_stored_decision(tmp_path):
    """Q is a copy of A (inserted first); L, kept later, is closer to Q. Re-sending Q (a retry
    whose first answer was lost) recomputed the matches and named L first, while the store — and
    a batch of A, Q, L — say A. A kept document re-sent is told it has no match. Also when two
    requests send one document (perhaps in one group commit), and after a restart."""
    from neardup import dedup_texts

    story = (
        "国务院总理李强主持召开国务院常务会议，听取关于加快发展现代化产业体系工作情况的汇报，"
        "研究部署进一步优化营商环境有关工作，审议通过相关法规草案。会议指出，要坚持稳中求进工作"
        "总基调，完整准确全面贯彻新发展理念，加快构建新发展格局，着力推动高质量发展。"
    )
    a = story + "本次会议于2020年召开，出席人员包括各部委负责同志和地方代表。"
    q, later = story, story + "本次会议于2021年召开。"
    assert dedup_texts([a, q, later]).clusters.representative.tolist() == [0, 0, 2]
    url = f"sqlite:///{tmp_path}/d.db"
    det = Detector(store=open_store(url))
    first = [det.add(i, t) for i, t in (("A", a), ("Q", q), ("L", later))]
    assert [r.duplicate for r in first] == [False, True, False] and first[1].matches[0].id == "A"
    again = det.add("Q", q)
    assert again.status == "unchanged" and again.duplicate
    assert again.matches[0].id == det.get("Q").duplicate_of == "A"
    assert again.matches[0].similarity == first[1].matches[0].similarity
    assert {m.id for m in again.matches} == {"A", "L"}  # the closer one is still shown, after
    kept = det.add("L", later)
    assert kept.status == "unchanged" and not kept.duplicate and kept.matches == []
    futures = [det.add_many_future([("R", q + "。")]) for _ in range(2)]  # maybe one commit
    twice = [f.result()[0] for f in futures]
    assert twice[1].status == "unchanged" and twice[1].matches[0].id == twice[0].matches[0].id
    det.close()
    reopened = Detector(store=open_store(url))
    assert reopened.add("Q", q).matches[0].id == "A"
    reopened.close()
    one = Detector(store=open_store(url), max_matches=1)  # A is not the best match any more
    told = one.add("Q", q).matches
    assert [(m.id, m.similarity, m.method) for m in told] == [
        ("A", first[1].matches[0].similarity, "auto")
    ]
