"""Partial duplicates at corpus level: what a corpus run reports, per kind and per method.

    python benchmarks/bench_partial.py [--language zh|en] [--background 3000] [--per-kind 150]
        [--seed 0] [--methods paragraph paragraph:topic auto simhash minhash]

Composition (fixed by ``--seed 0`` and the counts; sources are CCTV 新闻联播 stories with at least
3 paragraphs and 300 characters, exact repeats dropped, each story used once; ``--language en``:
BBC News and Reuters-21578 stories, the same way, their paragraphs as
:func:`neardup.features.paragraphs` finds them — Reuters wraps its lines at 65 characters —
and an English header and footer for the kits):

- ``background``: 3,000 distinct stories, left as they are. CCTV is full of templates (welcome
  ceremonies, condolences, broadcast notices, yearly sessions), so these are the natural hard
  negatives; a third of them are also put in groups of 3 sharing one made-up header and footer
  paragraph (``kit`` negatives: sharing boilerplate is not duplication).
- per kind, ``--per-kind`` (150) source stories, each kept in the corpus with its partial copy:
  ``repost`` (the story with 1-3 commentary paragraphs from an unused story before and/or after
  it), ``excerpt`` (30-70 % of its paragraphs, in order), ``lead`` (its first paragraph replaced
  by one from an unused story), and ``digest`` (the first 1-2 paragraphs of at least 60
  characters of each of 2-4 stories, one document; a labelled pair per story — CCTV stories
  often open with a bare dateline line or headline, which a digest does not quote as text, and
  a story without such a paragraph, e.g. a programme rundown of short headlines, is skipped).

A labelled pair is (source, its copy) or (digest, each story in it). What a method **reports**
is its verified pairs (``neardup dedup --pairs``): precision is the share of reported pairs that
are labelled, recall per kind the share of labelled pairs reported. The background is natural
text and holds partial duplicates nobody planted (a programme rundown lists other stories'
headlines word for word, a follow-up quotes a speech), so a reported pair that is not labelled
is also checked against an oracle that knows nothing of paragraphs or fingerprints: ``natural``
counts those sharing at least ``NATURAL_MIN_CHARS`` (50) characters of verbatim passages of at
least 10 characters, in any order (:func:`shared_passages`), and ``text P`` is the share of
reported pairs that are labelled or natural — the precision of "these two share text". For a
method that *removes* what it reports, ``precision`` is the one that counts. ``paragraph`` counts the
duplicates it would remove; ``paragraph+partial`` also the partial duplicates it reports
(``duplicate=false`` rows: shared text, too small a share to remove). ``kit_fp`` counts reported
pairs inside a kit group. ``Given pairs`` scores each method's ``compare`` verdict on the labelled
pairs and on as many kit and random background pairs (the reference-002 setting).
"""

from __future__ import annotations

import argparse
import gzip
import random
import time

import numpy as np
import orjson
from _common import DATA, peak_rss_mb

from neardup.methods import create

KINDS = ("repost", "excerpt", "lead", "digest")
DIGEST_MIN_CHARS = 60
NATURAL_MIN_CHARS = (
    50  # verbatim characters that make an unlabelled pair a natural partial duplicate
)
PARTIAL = "+partial"  # a method spec suffix: count the partial duplicates it reports too
HEADERS = {
    "zh": ("【本台综合报道】", "来源：新闻联播　编辑：张明", "（本网讯）以下为今日要闻。"),
    "en": (
        "From our correspondents in London and New York.",
        "Source: World Service desk. Editor: John Smith.",
        "Here are today's top stories from our newsroom.",
    ),
}
FOOTERS = {
    "zh": (
        "（责任编辑：王芳）",
        "欢迎关注我们的公众号，获取更多新闻资讯。",
        "本文转载自网络，版权归原作者所有。",
    ),
    "en": (
        "(Reporting by staff; editing by Jane Doe.)",
        "Follow us for more news and analysis every day.",
        "This article is reproduced from the web; copyright belongs to its author.",
    ),
}
SOURCES = {"zh": ("cctv_xwlb_news_zh",), "en": ("bbc_news_en", "reuters21578_en")}


def stories(seed: int, language: str = "zh") -> list[list[str]]:
    """Distinct stories of the ``language``'s corpora as paragraph lists, shuffled by ``seed``."""
    from neardup.features import paragraphs

    seen, out = set(), []
    for name in SOURCES[language]:
        with gzip.open(DATA / name / "corpus.jsonl.gz") as f:
            for line in f:
                text = orjson.loads(line).get("text") or ""
                if language == "zh":
                    paras = [p.strip() for p in text.split("\n") if p.strip()]
                else:
                    paras = paragraphs(text)
                key = "".join(text.split()).lower()
                if len(paras) >= 3 and len(text) >= 300 and key not in seen:
                    seen.add(key)
                    out.append(paras)
    random.Random(seed).shuffle(out)
    return out


def substantive(paras: list[str]) -> list[str]:
    """A story's paragraphs of at least ``DIGEST_MIN_CHARS`` characters: a digest quotes text,
    not the dateline line "央视网消息（新闻联播）：", a bare headline or the "本期节目主要内容："
    line of a programme rundown (a story with no such paragraph is not put in a digest)."""
    return [p for p in paras if len(p) >= DIGEST_MIN_CHARS]


def _quotable(pool) -> list[str]:
    """The next story of ``pool`` with a paragraph a digest can quote (others are skipped)."""
    story = next(pool)
    while not substantive(story):
        story = next(pool)
    return story


def build(background: int, per_kind: int, seed: int, language: str = "zh"):
    """Texts, labelled pairs ``{(i, j): kind}``, kit groups and the kind of each copy."""
    rng = random.Random(seed)
    pool = iter(stories(seed, language))
    texts: list[str] = []
    labels: dict[tuple[int, int], str] = {}
    kits: list[list[int]] = []

    def add(paras: list[str]) -> int:
        texts.append("\n".join(paras))
        return len(texts) - 1

    for g in range(background // 3):
        members = [next(pool) for _ in range(3)]
        if g % 3 == 0:  # a third share a header and footer
            head, foot = rng.choice(HEADERS[language]), rng.choice(FOOTERS[language])
            kits.append([add([head, *m, foot]) for m in members])
        else:
            for m in members:
                add(m)
    for kind in KINDS:
        for _ in range(per_kind):
            if kind == "digest":
                parts = [_quotable(pool) for _ in range(rng.randint(2, 4))]
                ids = [add(p) for p in parts]
                taken = [substantive(p)[: rng.randint(1, 2)] for p in parts]
                digest = add([q for t in taken for q in t])
                for i in ids:
                    labels[(i, digest)] = kind
                continue
            src = next(pool)
            s = add(src)
            if kind == "repost":
                extra = next(pool)
                before = extra[: rng.randint(0, 2)]
                after = extra[len(before) : len(before) + rng.randint(0 if before else 1, 2)]
                copy = [*before, *src, *after]
            elif kind == "excerpt":
                k = max(1, round(len(src) * rng.uniform(0.3, 0.7)))
                start = rng.randint(0, len(src) - k)
                copy = src[start : start + k]
            else:
                copy = [next(pool)[0], *src[1:]]
            labels[(s, add(copy))] = kind
    return texts, labels, kits


def shared_passages(a: str, b: str, *, run: int = 10) -> int:
    """Characters of ``a`` and ``b`` (white space removed) in common passages of at least ``run``
    characters, in any order: the passages of a longest common subsequence (rapidfuzz's
    bit-parallel alignment) cut out of both, and again; when an alignment holds none, a passage
    that moved (the other text holds it elsewhere) is found from a shared ``run``-character
    seed (:func:`_moved_passage`), cut out, and the alignment tried again."""
    from rapidfuzz.distance import Indel

    a, b = "".join(a.split()), "".join(b.split())
    total = 0
    while True:
        blocks = [
            (op.src_start, op.dest_start, op.src_end - op.src_start)
            for op in Indel.opcodes(a, b)
            if op.tag == "equal" and op.src_end - op.src_start >= run
        ]
        if not blocks:
            moved = _moved_passage(a, b, run)
            if moved is None:
                return total
            blocks = [moved]
        total += sum(n for _, _, n in blocks)
        for i, j, n in sorted(blocks, reverse=True):  # distinct marks: a cut matches nothing
            a = a[:i] + "\x00" + a[i + n :]
            b = b[:j] + "\x01" + b[j + n :]


def _moved_passage(a: str, b: str, run: int) -> tuple[int, int, int] | None:
    """A common passage of at least ``run`` characters, ``(start in a, start in b, length)``,
    grown both ways from the first ``run`` characters of ``a`` that ``b`` holds (None: none)."""
    seeds = {b[j : j + run]: j for j in range(len(b) - run, -1, -1)}
    for i in range(len(a) - run + 1):
        j = seeds.get(a[i : i + run])
        if j is not None:
            while i and j and a[i - 1] == b[j - 1]:
                i, j = i - 1, j - 1
            n = run
            while i + n < len(a) and j + n < len(b) and a[i + n] == b[j + n]:
                n += 1
            return i, j, n
    return None


def minhash_pairs(texts: list[str], threshold: float = 0.5) -> set[tuple[int, int]]:
    from datasketch import MinHash, MinHashLSH

    lsh = MinHashLSH(threshold=threshold, num_perm=128)
    found = set()
    for i, t in enumerate(texts):
        t = "".join(t.split())
        m = MinHash(num_perm=128)
        m.update_batch([t[k : k + 3].encode() for k in range(max(1, len(t) - 2))])
        for j in lsh.query(m):
            found.add((j, i))
        lsh.insert(i, m)
    return found


def method_of(spec: str):
    name, _, evidence = spec.removesuffix(PARTIAL).partition(":")
    if evidence:
        return create(name, evidence=evidence)
    if name == "auto" and spec.endswith(PARTIAL):  # auto reports partial duplicates on request
        return create(name, partial=True)
    return create(name)


def reported(spec: str, texts: list[str]) -> set[tuple[int, int]]:
    """The pairs ``dedup --pairs`` writes: the duplicates, and with ``+partial`` also the
    partial duplicates (rows with duplicate=false)."""
    if spec == "minhash":
        return minhash_pairs(texts)
    method = method_of(spec)
    pairs = method.find_pairs(texts)
    found = set(zip(pairs.left.tolist(), pairs.right.tolist(), strict=True))
    if spec.endswith(PARTIAL):
        related = method.related_pairs
        found |= set(zip(related.left.tolist(), related.right.tolist(), strict=True))
    return found


def given_pairs(spec: str, texts, labels, kits, rng) -> tuple[float, float]:
    """Precision and recall of ``compare``'s verdict on labelled pairs vs as many negatives."""
    method = method_of(spec)
    positives = list(labels)
    negatives = [(a, b) for g in kits for a in g for b in g if a < b]
    while len(negatives) < len(positives):
        a, b = sorted(rng.sample(range(len(texts)), 2))
        if (a, b) not in labels:
            negatives.append((a, b))
    negatives = negatives[: len(positives)]

    def verdict(a: str, b: str) -> bool:
        found = method.compare(a, b)
        return found["duplicate"] or (spec.endswith(PARTIAL) and found["partial_duplicate"])

    said = {p: verdict(texts[p[0]], texts[p[1]]) for p in positives + negatives}
    tp = sum(said[p] for p in positives)
    fp = sum(said[p] for p in negatives)
    return tp / max(tp + fp, 1), tp / len(positives)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--language", choices=tuple(SOURCES), default="zh")
    ap.add_argument("--background", type=int, default=3000)
    ap.add_argument("--per-kind", type=int, default=150)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--methods",
        nargs="+",
        default=[
            "paragraph",
            "paragraph+partial",
            "paragraph:topic",
            "auto",
            "auto+partial",
            "simhash",
            "minhash",
        ],
    )
    ap.add_argument("--no-given", action="store_true", help="skip the given-pairs scoring")
    args = ap.parse_args()
    texts, labels, kits = build(args.background, args.per_kind, args.seed, args.language)
    kit_pairs = {(a, b) for g in kits for a in g for b in g if a < b}
    print(f"{len(texts):,} documents, {len(labels):,} labelled pairs, {len(kit_pairs)} kit pairs")
    head = f"{'method':<17}{'reported':>9}{'precision':>10}" + "".join(f"{k:>9}" for k in KINDS)
    print(head + f"{'kit_fp':>7}{'natural':>8}{'text P':>8}{'time':>8}{'given P':>9}{'given R':>9}")
    for spec in args.methods:
        t0 = time.perf_counter()
        got = reported(spec, texts)
        took = time.perf_counter() - t0
        correct = got & set(labels)
        recall = [np.mean([p in got for p, k in labels.items() if k == kind]) for kind in KINDS]
        row = f"{spec:<17}{len(got):>9,}{len(correct) / max(len(got), 1):>10.3f}"
        row += "".join(f"{r:>9.3f}" for r in recall)
        natural = [
            p
            for p in got - set(labels)
            if shared_passages(texts[p[0]], texts[p[1]]) >= NATURAL_MIN_CHARS
        ]
        text_p = (len(correct) + len(natural)) / max(len(got), 1)
        row += f"{len(got & kit_pairs):>7}{len(natural):>8}{text_p:>8.3f}{took:>7.1f}s"
        if not args.no_given and spec != "minhash":
            gp, gr = given_pairs(spec, texts, labels, kits, random.Random(args.seed))
            row += f"{gp:>9.3f}{gr:>9.3f}"
        print(row, flush=True)
    print(f"peak RSS {peak_rss_mb():,.0f} MB")


if __name__ == "__main__":
    main()
