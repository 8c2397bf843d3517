"""The ``paragraph`` method on alphabetic text: word grams (``word_grams``), re-written
headlines over a copied body, and copies whose paragraphs change values in all."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import neardup.methods.paragraph as paragraph_module
from neardup import _kernels, _tokenkernels
from neardup.dedup import dedup_with
from neardup.errors import ConfigError
from neardup.methods import create
from neardup.methods.commongrams import CommonGrams
from neardup.normalize import encode_texts
from neardup.online import Detector
from neardup.store import open_store
from wordstories import corpus, story


def _cjk(c: str) -> bool:
    return "\u4e00" <= c <= "\u9fff"


def _fnv(cps: list[int]) -> int:
    h = 0xCBF29CE484222325
    for c in cps:
        h = ((h ^ c) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    h ^= h >> 33
    h = (h * 0xFF51AFD7ED558CCD) & 0xFFFFFFFFFFFFFFFF
    h ^= h >> 33
    h = (h * 0xC4CEB9FE1A85EC53) & 0xFFFFFFFFFFFFFFFF
    return h ^ (h >> 33)


def word_grams_by_definition(text: str, n: int, words: int) -> list[int]:
    """The kernel's definition, read from its docstring, one position at a time."""
    if not text:
        return []
    out = []
    for p in range(max(1, len(text) - n + 1)):
        stop = min(p + n, len(text))
        if not any(_cjk(c) for c in text[p:stop]):
            seen, q = 0, p
            while q < min(len(text), p + 64) and seen < words and not _cjk(text[q]):
                after = text[q + 1] if q + 1 < len(text) else " "
                if text[q] != " " and (after == " " or _cjk(after)):
                    seen += 1
                q += 1
            stop = max(stop, q)
        out.append(_fnv([ord(c) for c in text[p:stop]]))
    return out


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.text(alphabet="ab1 中文", max_size=30), min_size=1, max_size=5),
    st.integers(1, 6),
    st.integers(1, 4),
)
def test_word_gram_hashes_equal_their_definition(texts, n, words):
    cps, offsets = encode_texts(texts)
    hashes, hash_offsets = _tokenkernels.word_gram_hashes(cps, offsets, n, words, cps)
    for d, text in enumerate(texts):
        got = hashes[hash_offsets[d] : hash_offsets[d + 1]].tolist()
        assert got == word_grams_by_definition(text, n, words)


def test_chinese_text_keeps_its_character_grams():
    texts = ["国务院总理主持召开国务院常务会议部署稳外贸措施", "央视网消息新闻联播2023年11月3日"]
    cps, offsets = encode_texts(texts)
    words, _ = _tokenkernels.word_gram_hashes(cps, offsets, 5, 3, cps)
    chars, _ = _kernels.char_ngram_hashes(cps, offsets, 5)
    assert (words == chars).all()


def test_an_english_repost_is_found_where_letter_grams_are_common():
    """In English most letter 5-grams are held by many paragraphs, so a paragraph keeps few
    rare ones and a repost with commentary was missed; runs of words stay rare. Oracle: the
    planted repost is removed as a copy of its source, and nothing else is."""
    docs, source = corpus()
    found = dedup_with(create("paragraph"), docs)
    rep = np.asarray(found.clusters.representative)
    assert rep[-1] == source
    assert (rep[:-1] == np.arange(len(docs) - 1)).all()
    letters = dedup_with(create("paragraph", word_grams=0), docs)
    assert (np.asarray(letters.clusters.representative) == np.arange(len(docs))).all()


def test_the_online_detector_finds_the_english_repost_like_a_batch():
    docs, source = corpus()
    method = create("paragraph")
    dedup_with(method, docs[:-1])  # the table a batch fits on the stored documents
    det = Detector(store=open_store("memory://"), method="paragraph", tables=method.tables)
    for i, text in enumerate(docs[:-1]):
        det.add(str(i), text)
    assert [m.id for m in det.check(docs[-1]).matches] == [str(source)]


def _headline_pair() -> tuple[str, str, list[str]]:
    body = story(random.Random(3)).split("\n\n")
    a = "Bank holds interest rate at 4.75%\n\n" + "\n\n".join(body)
    b = "UK interest rates held at 4.75%\n\n" + "\n\n".join(body)
    return a, b, body


def test_a_copy_may_rewrite_its_headline(monkeypatch):
    """The same body under another headline is a copy; the headlines, versions of one line
    with other words, vetoed it as two stories of a template."""
    a, b, _body = _headline_pair()
    method = create("paragraph")
    assert method.compare(a, b)["duplicate"]
    monkeypatch.setattr(paragraph_module, "HEADLINE_TOKENS", 0)  # no first line is a headline
    vetoed = method.compare(a, b)
    assert not vetoed["duplicate"] and vetoed["substituted_paragraphs"] == [[0, 0]]


def test_a_rewritten_headline_over_a_changed_body_still_vetoes():
    """Only a headline over a body copied whole is exempt: with one body paragraph another
    story's, the headline is again a substituted version (a template's two stories)."""
    a, _, body = _headline_pair()
    body[2] = story(random.Random(11), 1)
    c = "UK interest rates held at 4.75%\n\n" + "\n\n".join(body)
    found = create("paragraph").compare(a, c)
    assert found["share_a"] >= 0.5 and not found["duplicate"]
    assert found["substituted_paragraphs"] == [[0, 0]]


def test_copies_that_change_a_value_in_two_paragraphs_are_two_stories():
    """The copy rule lets a paragraph correct one figure; a document whose paragraphs change
    two in all is another report of a template (a Fed operation of another day)."""
    body = story(random.Random(3)).split("\n\n")
    x, y = list(body), list(body)
    x[0] += " It rose 12 pct to 45 mln dlrs."
    y[0] += " It rose 14 pct to 45 mln dlrs."
    x[2] += " Shares were 31 cents."
    y[2] += " Shares were 37 cents."
    method = create("paragraph")
    two = method.compare("\n\n".join(x), "\n\n".join(y))
    assert not two["duplicate"] and two["substituted_paragraphs"] == [[0, 0], [2, 2]]
    y[2] = x[2]  # one corrected figure: a copy
    assert method.compare("\n\n".join(x), "\n\n".join(y))["duplicate"]


def test_the_table_records_its_word_grams_and_a_method_refuses_others(tmp_path):
    docs, _ = corpus()
    method = create("paragraph")
    dedup_with(method, docs)
    method.tables.save(tmp_path / "t.npz")
    table = CommonGrams.load(tmp_path / "t.npz")
    assert table.words == 3 and (table.values == method.tables.values).all()
    with pytest.raises(ConfigError, match="alphabetic grams of 3 words"):
        create("paragraph", word_grams=0, tables=table)
    create("paragraph", word_grams=3, tables=table)  # the same grams: taken


def test_a_short_paragraph_with_another_figure_counts_as_a_changed_copy():
    """A short paragraph (under ``short_tokens`` tokens) that changes one figure is no copy (the
    copy rule allows none there) and was no substituted version either, so the rest of two
    reports of a template carried them (a Fed operation of another day: another amount and
    another rate). It counts as a copy that changes one value: alone, a corrected figure; with
    another changed figure elsewhere, two reports."""
    body = story(random.Random(4)).split("\n\n")
    a = [*body, "It arranged 1.5 billion dlrs of customer repurchase agreements."]
    b = [*body, "It arranged 2.5 billion dlrs of customer repurchase agreements."]
    method = create("paragraph")
    assert method.compare("\n\n".join(a), "\n\n".join(b))["duplicate"]
    a[1] += " Funds traded at 6 pct."
    b[1] += " Funds traded at 7 pct."
    found = method.compare("\n\n".join(a), "\n\n".join(b))
    assert found["share_a"] >= 0.5 and not found["duplicate"]
    assert found["substituted_paragraphs"] == [[1, 1], [4, 4]]
    assert not method.compare("\n\n".join(b), "\n\n".join(a))["duplicate"]


def _two_figure_pair() -> tuple[str, str]:
    """A: P, Q, S, R. B: P, P' (P with another figure), Q, S' (S with another figure), R."""
    body = story(random.Random(3)).split("\n\n")
    p, p2 = body[0] + " It rose 12 pct to 45 mln dlrs.", body[0] + " It rose 14 pct to 45 mln dlrs."
    s, s2 = body[2] + " Shares were 31 cents.", body[2] + " Shares were 37 cents."
    return "\n\n".join([p, body[1], s, body[3]]), "\n\n".join([p, p2, body[1], s2, body[3]])


def test_the_changed_copies_veto_is_the_same_either_way_round():
    """Review: changes were counted on one side only, so a paragraph of B kept whole beside
    its changed version made the answer depend on which document came first — in compare, in
    a batch and online."""
    a, b = _two_figure_pair()
    method = create("paragraph")
    assert method.compare(a, b)["duplicate"] == method.compare(b, a)["duplicate"]
    docs = corpus(size=100)[0][:-1]
    ab = dedup_with(create("paragraph"), [*docs, a, b]).clusters.representative[-2:]
    ba = dedup_with(create("paragraph"), [*docs, b, a]).clusters.representative[-2:]
    assert (ab[0] == ab[1]) == (ba[0] == ba[1])


def test_one_synonym_in_a_short_paragraph_does_not_veto_a_copy():
    """Review: one word replaced in one short paragraph of a document copied whole vetoed it as
    two stories of a template; it is one changed value."""
    body = story(random.Random(4), 8).split("\n\n")
    a = "\n\n".join([*body[:4], "The company declined to comment on the deal.", *body[4:]])
    b = "\n\n".join([*body[:4], "The firm declined to comment on the deal.", *body[4:]])
    assert create("paragraph").compare(a, b)["duplicate"]


def test_a_word_gram_runs_on_no_further_than_its_cap():
    """Review: a run without spaces (a data URI, a URL) made every gram as long as the run
    (quadratic: 40,000 letters took 6 s); a gram stops at ``WORD_GRAM_MAX`` characters."""
    from neardup._tokenkernels import WORD_GRAM_MAX, word_gram_ends

    blob = "".join(random.Random(0).choice("abcdefgh") for _ in range(5_000))
    cps, offsets = encode_texts([blob, "one two three four " * 20])
    ends = word_gram_ends(cps, offsets, 5, 3)
    starts = np.r_[np.arange(len(blob) - 4), np.arange(len(ends) - len(blob) + 4)]
    assert (ends - starts <= WORD_GRAM_MAX).all() and (ends - starts >= 5).all()
    hashes, _ = _tokenkernels.word_gram_hashes(cps, offsets, 5, 3, cps)
    assert hashes[: len(blob) - 4].tolist() == word_grams_by_definition(blob, 5, 3)


def test_boilerplate_covers_the_whole_of_a_common_word_gram():
    """Review: a run of common grams covered ``gram`` characters past its last gram's start,
    while a word gram runs further: the last number of a footer was left out."""
    from neardup.copyrule import Boilerplate, tokenize
    from neardup.methods.prepared import gram_sets

    footer = "来源 新华社 12 34 56"
    tails = ["alpha beta gamma delta", "one two three four five", "zeta eta theta iota"]
    docs = [f"{footer} {t}" for t in [*tails, "kappa lambda mu nu", "xi omicron pi rho"]]
    for words in (0, 3):
        values, _ = gram_sets(docs, 5, words=words)
        uniq, counts = np.unique(values, return_counts=True)
        marks = Boilerplate(np.sort(uniq[counts >= 3]), 5, words).tokens(docs[0])
        assert tokenize(docs[0])[7] == "56" and marks[7], words


def test_a_table_of_character_grams_is_refused_for_word_grams():
    """Review: a table saved before tables recorded their gram length counts character grams;
    with word grams its values match none of the alphabetic grams, silently."""
    old = CommonGrams(np.array([1, 2, 3], np.uint64), 100, 2, gram=0)
    with pytest.raises(ConfigError, match="alphabetic grams of 3 words"):
        create("paragraph", tables=old)
    create("paragraph", word_grams=0, tables=old)


FED = (
    "The Federal Reserve entered the U.S.\nGovernment securities market to arrange 1.5 billion "
    "dlrs of\ncustomer repurchase agreements, a Fed spokesman said.\n    Dealers said Federal "
    "funds were trading at {rate} pct when\nthe Fed began its temporary and indirect supply of "
    "reserves to\nthe banking system."
)


def test_a_short_report_with_another_figure_is_another_day():
    """reuters21578_en: the Fed's customer repurchases of 2 March and of 13 April 1987, word for
    word but the funds rate (6-3/16 / 6-1/2 pct), were one story to the paragraph method, which
    lets copied paragraphs correct one figure. In a report of under ``typo_tokens`` tokens the
    figure is the news: no duplicate, in compare, a batch and online; a long story with one
    corrected figure stays a copy (``test_copies_that_change_a_value_in_two_paragraphs``)."""
    march, april = FED.format(rate="6-3/16"), FED.format(rate="6-1/2")
    method = create("paragraph")
    found = method.compare(march, april)
    assert found["share_a"] >= 0.9 and not found["duplicate"] and found["partial_duplicate"]
    assert method.compare(march, march.replace("1.5", "1.5 "))["duplicate"]  # no figure changed
    docs, _source = corpus(size=100)
    docs = [*docs[:-1], march, april]
    batch = create("paragraph")
    rep = np.asarray(dedup_with(batch, docs).clusters.representative)
    assert rep[-1] == len(docs) - 1
    det = Detector(store=open_store("memory://"), method="paragraph", tables=batch.tables)
    for i, text in enumerate(docs[:-1]):
        det.add(str(i), text)
    assert not det.check(april).duplicate
    assert det.check(march.replace("1.5", "1.5 ")).duplicate  # the detector does find copies
    longer = story(random.Random(6)).split("\n\n")  # over typo_tokens: a corrected figure
    assert method.compare("\n\n".join([*longer, march]), "\n\n".join([*longer, april]))["duplicate"]
