"""The central rule: batch dedup equals online replay, for every method that runs online.

Inserting a corpus document by document through the detector (in input order) must mark the
same documents as duplicates, of the same representatives, as ``dedup --keep first``.
"""

import random
import re
import unicodedata
from pathlib import Path

import orjson
import pytest

from neardup.dedup import dedup_with
from neardup.methods import create, online_methods
from neardup.online import Detector
from neardup.store import open_store

SAMPLE = Path(__file__).resolve().parents[1] / "examples" / "sample_zh.jsonl"


def _words(text: str) -> str:
    """A text without case, marks and white space (exact copies may differ in those)."""
    return re.sub(r"[\W_]+", "", unicodedata.normalize("NFKC", text)).casefold()


def corpus() -> list[str]:
    """The bundled sample plus planted copies (truncated, wrapped in markup, re-punctuated)
    and repeated texts too short for any candidate key."""
    texts = [orjson.loads(line)["text"] for line in SAMPLE.read_bytes().splitlines()]
    rng = random.Random(7)
    planted = []
    for t in rng.sample(texts, 200):
        kind = rng.randrange(4)
        if kind == 0:
            planted.append(t[: max(8, int(len(t) * rng.uniform(0.6, 0.95)))])
        elif kind == 1:
            planted.append("**转发** " + t.replace("，", ",") + " http://t.cn/abc")
        elif kind == 2:
            planted.append(t.replace("。", "。\n\n"))
        else:
            planted.append("据报道，" + t)
    # texts too short for any candidate key (batch finds them as exact copies)
    tiny = ["[", "。。。", "哈哈哈", "！", "@", "[哈哈]", "哈哈~~~"] * 3
    out = texts + planted + tiny
    rng.shuffle(out)
    return out


@pytest.mark.parametrize("method_name", online_methods())
def test_batch_equals_online_replay(method_name):
    texts = corpus()
    method = create(method_name)
    batch = dedup_with(method, texts)
    rep = batch.clusters.representative.tolist()
    tables = getattr(method, "tables", None)
    det = Detector(store=open_store("memory://"), method=method_name, tables=tables, max_matches=5)
    online = []
    for i, text in enumerate(texts):
        r = det.add(f"d{i}", text)
        online.append(int(r.matches[0].id[1:]) if r.duplicate else i)
    assert sum(r != i for i, r in enumerate(rep)) > 20  # the corpus has duplicates to find
    mismatches = [(i, rep[i], online[i]) for i in range(len(texts)) if rep[i] != online[i]]
    assert not mismatches, mismatches[:10]


@pytest.mark.parametrize("method_name", online_methods())
def test_batch_equals_online_replay_in_groups(method_name):
    """The same replay with many documents per write (the service's group commits and
    `index add` batches: matched against the index before the group in one call, then against
    the group's own kept documents) gives the same decisions."""
    texts = corpus()
    method = create(method_name)
    rep = dedup_with(method, texts).clusters.representative.tolist()
    tables = getattr(method, "tables", None)
    det = Detector(store=open_store("memory://"), method=method_name, tables=tables, max_matches=5)
    online = []
    for start in range(0, len(texts), 37):
        part = [(f"d{i}", texts[i]) for i in range(start, min(start + 37, len(texts)))]
        for (doc_id, _text), r in zip(part, det.add_many(part), strict=True):
            i = int(doc_id[1:])
            online.append(int(r.matches[0].id[1:]) if r.duplicate else i)
    mismatches = [(i, rep[i], online[i]) for i in range(len(texts)) if rep[i] != online[i]]
    assert not mismatches, mismatches[:10]


@pytest.mark.parametrize("group", [37, 400])
def test_group_writes_give_every_match_of_one_by_one_writes(group):
    """Whole answers, not only representatives: with many documents per write (the group's own
    documents verified against each other in one call), every document gets the same matches,
    in the same order and with the same similarities, as when written one at a time, replaced
    documents included."""
    texts = corpus()
    method = create("auto")
    dedup_with(method, texts)  # fits the table the detectors share
    edits = [(f"d{i}", texts[i]) for i in range(len(texts))]
    edits += [(f"d{i}", texts[i + 1]) for i in range(0, 60, 3)]  # replaced, later on

    def answers(size):
        det = Detector(store=open_store("memory://"), method="auto", tables=method.tables)
        out = []
        for start in range(0, len(edits), size):
            part = edits[start : start + size]
            out += [
                (r.status, [(m.id, round(m.similarity, 6)) for m in r.matches])
                for r in det.add_many(part, replace=True)
            ]
        return out

    one = answers(1)
    assert sum(bool(m) for _s, m in one) > 20
    assert answers(group) == one


def test_tables_file_round_trip_and_bad_files(tmp_path, capsys):
    """The table `dedup` writes is what `index --tables` loads; other files are clear errors."""
    from neardup.cli import main

    src = tmp_path / "in.jsonl"
    src.write_bytes(SAMPLE.read_bytes())
    assert main(["dedup", str(src), "-o", str(tmp_path / "out"), "--quiet"]) == 0
    table = tmp_path / "out" / "common_grams.npz"
    db = f"sqlite:///{tmp_path}/s.db"
    assert main(["index", "add", str(src), "--db", db, "--tables", str(table)]) == 0
    bad = tmp_path / "bad.npz"
    bad.write_text("not a table")
    for path in (bad, tmp_path / "missing.npz"):
        code = main(["index", "add", str(src), "--db", "memory://", "--tables", str(path)])
        assert code == 2
        assert str(path) in capsys.readouterr().err


@pytest.mark.parametrize("method_name", online_methods())
def test_restart_restores_the_same_index(tmp_path, method_name):
    """The index rebuilt from the store (in batches) answers every check as the live one did."""
    texts = corpus()[:600]
    url = f"sqlite:///{tmp_path}/r.db"
    det = Detector(store=open_store(url), method=method_name, max_matches=5)
    det.add_many([(f"d{i}", t) for i, t in enumerate(texts)])
    live = [[(m.id, m.similarity, m.distance) for m in det.check(t).matches] for t in texts]
    det.close()
    again = Detector(store=open_store(url, read_only=True), method=method_name, max_matches=5)
    restored = [[(m.id, m.similarity, m.distance) for m in again.check(t).matches] for t in texts]
    assert sum(bool(x) for x in live) > 100
    assert restored == live


def test_checks_in_one_batch_equal_checks_one_by_one():
    """Detector.check_many (one verification call for all texts) answers as check does."""
    texts = corpus()
    det = Detector(store=open_store("memory://"), max_matches=5)
    det.add_many([(f"d{i}", t) for i, t in enumerate(texts[:500])])
    queries = texts[400:900]
    one_by_one = [det.check(t) for t in queries]
    together = det.check_many(queries)
    assert sum(r.duplicate for r in one_by_one) > 50
    assert [(r.duplicate, r.matches) for r in together] == [
        (r.duplicate, r.matches) for r in one_by_one
    ]


@pytest.mark.parametrize("method_name", ["simhash", "ngram"])
def test_texts_with_nothing_left_once_normalised_are_never_matched(method_name):
    """A text that normalising leaves empty (markup alone; with cjk_only, English; with
    remove_punctuation, marks) has nothing to compare: it is no copy of another such text or of
    itself repeated, in batch and online alike, while real copies are still found."""
    story = "国务院召开常务会议，部署进一步稳外贸稳外资的政策措施，要求各地抓好落实。"
    texts = [
        "<p></p>",
        "Apple shares rose 5 percent on Monday after strong iPhone sales.",
        story,
        "<br/>",
        "The central bank left interest rates unchanged on Thursday.",
        "<p></p>",
        story.replace("，", ","),
        "&nbsp;",
    ]
    options = {"normalize": {"cjk_only": True}}
    method = create(method_name, **options)
    rep = dedup_with(method, texts).clusters.representative.tolist()
    assert rep[6] == 2  # the copy is found
    assert [rep[i] for i in (0, 1, 3, 4, 5, 7)] == [0, 1, 3, 4, 5, 7]  # nothing else matched
    det = Detector(store=open_store("memory://"), method=method_name, options=options)
    online = []
    for i, text in enumerate(texts):
        r = det.add(f"d{i}", text)
        online.append(int(r.matches[0].id[1:]) if r.duplicate else i)
    assert online == rep


@pytest.mark.parametrize("evidence", ["copy", "topic"])
def test_paragraph_repeated_story_is_an_exact_copy_batch_and_online(evidence):
    """A story repeated more often than the paragraph evidence's commonness limits (60 > 20
    documents for ``copy``, > 50 for ``topic``) made its own paragraphs common, and a copy too
    short to be paragraph evidence matched nothing: both are exact copies of their first
    occurrence, in batch (grouped before the evidence is looked for) and online."""
    texts = [orjson.loads(line)["text"] for line in SAMPLE.read_bytes().splitlines()][:200]
    story = max(texts, key=len)
    short = min((t for t in texts if len(t.strip()) >= 4), key=len)
    texts = texts + [story] * 60 + [short] * 2
    random.Random(5).shuffle(texts)
    method = create("paragraph", evidence=evidence)
    rep = dedup_with(method, texts).clusters.representative.tolist()
    first: dict[str, int] = {}  # the oracle: each repeat is removed, kept with the same words
    for i, t in enumerate(texts):
        first.setdefault(t, i)
    repeats = [i for i, t in enumerate(texts) if t in (story, short) and first[t] != i]
    assert len(repeats) >= 61
    same = [_words(texts[rep[i]]) == _words(texts[i]) for i in repeats]  # marks may differ
    assert all(rep[i] != i for i in repeats) and all(same)
    det = Detector(
        store=open_store("memory://"),
        method="paragraph",
        tables=getattr(method, "tables", None),
        max_matches=5,
        evidence=evidence,
    )
    online = []
    for i, text in enumerate(texts):
        r = det.add(f"d{i}", text)
        online.append(int(r.matches[0].id[1:]) if r.duplicate else i)
    mismatches = [(i, rep[i], online[i]) for i in range(len(texts)) if rep[i] != online[i]]
    assert not mismatches, mismatches[:10]


@pytest.mark.parametrize("evidence", ["copy", "topic"])
def test_paragraph_exact_copies_online_as_batch_when_the_payload_holds_no_text(evidence):
    """Exact copies by the paragraphs as the evidence reads them: texts in two scripts (the
    compared paragraphs fold them; topic prints do not, so for ``topic`` the two are two texts,
    as ``compare`` says, and the online key is the digest of the normalised paragraphs) and
    documents without any paragraph the evidence reads (keyed by their text as written, which a
    payload does not hold; a blank text, which has none either way, is refused online as by
    every surface): the detector groups them as batch does."""
    trad = "中國經濟今年增長強勁，消費投資出口三駕馬車協同發力，呈現穩中向好的良好態勢。"
    simp = "中国经济今年增长强劲，消费投资出口三驾马车协同发力，呈现稳中向好的良好态势。"
    texts = [trad, "。。。", simp, "另一篇完全不同的文章，讲的是别的事情。", "。。。"]
    rep = dedup_with(create("paragraph", evidence=evidence), texts).clusters.representative
    folded = evidence == "copy"  # the oracle: identical after script folding, or not folded
    assert rep.tolist() == ([0, 1, 0, 3, 1] if folded else [0, 1, 2, 3, 1])
    assert create("paragraph", evidence=evidence).compare(trad, simp)["duplicate"] == folded
    det = Detector(store=open_store("memory://"), method="paragraph", evidence=evidence)
    online = []
    for i, text in enumerate(texts):
        r = det.add(f"d{i}", text)
        online.append(int(r.matches[0].id[1:]) if r.duplicate else i)
    assert online == rep.tolist()


@pytest.mark.parametrize("order", [(0, 1, 2), (0, 2, 1)])
def test_topic_exact_copies_are_what_the_topic_words_read(order):
    """Two posts whose compared texts are one text (an emoji, a URL dropped) were grouped as
    exact copies for the topic evidence, which reads its words from the normalised text, where
    the URL is a topic word: the group's first member decided for the other, so batch removed a
    post that neither ``compare`` nor the online detector calls a duplicate (a helper's fuzzing).
    Oracle: ``compare`` of every pair, and the online detector, in both input orders."""
    posts = [
        "龚琳娜老师打扮给力",
        "龚琳娜老师的打扮也很😀给力啊",
        "龚琳娜老师的打扮也很http/给力啊",
    ]
    texts = [posts[k] for k in order]
    method = create("paragraph", evidence="topic")
    rep = dedup_with(method, texts).clusters.representative.tolist()
    det = Detector(store=open_store("memory://"), method="paragraph", evidence="topic")
    online = []
    for i, text in enumerate(texts):
        r = det.add(str(i), text)
        online.append(int(r.matches[0].id) if r.duplicate else i)
    assert rep == online
    judge = create("paragraph", evidence="topic")
    for i, r in enumerate(rep):  # each removal is a duplicate of its representative
        assert r == i or judge.compare(texts[r], texts[i])["duplicate"]
    assert rep != [0, 0, 0]  # the first post is a duplicate of at most one of the others


def test_topic_documents_that_normalise_to_nothing_are_no_exact_copies():
    """Documents whose paragraphs all normalise to nothing were keyed by their empty
    paragraphs joined ("\\n"), so any two with as many paragraphs were exact copies (a review
    of the topic key): keyed by their text as written, they are copies only when identical."""
    texts = ['<img src="a.jpg">\n\n<img src="b.jpg">', "<br>\n\n<hr>", "<br>\n\n<hr>"]
    for evidence in ("topic", "copy"):
        rep = dedup_with(create("paragraph", evidence=evidence), texts).clusters.representative
        assert rep.tolist() == [0, 1, 1]
        assert not create("paragraph", evidence=evidence).compare(*texts[:2])["exact_copy"]


def test_a_topic_store_built_before_its_key_was_recorded_is_refused(tmp_path, monkeypatch):
    """Its stored key digests are of the compared paragraphs: reopened under the new key it
    would miss exact copies and find false ones, so it is refused (re-index). The store of the
    previous release is made by this code without the recorded key."""
    from neardup.errors import IncompatibleIndexError
    from neardup.methods.paragraph import ParagraphMethod

    url = f"sqlite:///{tmp_path}/t.db"
    current = ParagraphMethod.persisted

    def before(self):
        return {k: v for k, v in current(self).items() if k != "exact_key"}

    monkeypatch.setattr(ParagraphMethod, "persisted", before)
    det = Detector(store=open_store(url), method="paragraph", evidence="topic")
    det.add("a", "中国经济今年增长强劲，消费投资出口三驾马车协同发力。")
    det.close()
    monkeypatch.setattr(ParagraphMethod, "persisted", current)
    store = open_store(url)
    with pytest.raises(IncompatibleIndexError, match="exact_key: stored None") as no:
        Detector(store=store, method="paragraph", evidence="topic")
    assert "--option" not in str(no.value)  # no option opens it: re-index
    store.close()
    again = Detector(
        store=open_store(f"sqlite:///{tmp_path}/new.db"), method="paragraph", evidence="topic"
    )
    again.add("a", "中国经济今年增长强劲，消费投资出口三驾马车协同发力。")
    again.close()
    reopened = Detector(
        store=open_store(f"sqlite:///{tmp_path}/new.db"), method="paragraph", evidence="topic"
    )
    assert len(reopened) == 1
    reopened.close()
