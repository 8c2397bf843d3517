"""Cross-crawl copies among templated news: one page captured twice, with crawler residue.

    python benchmarks/bench_crawl.py [--stories 3000] [--seed 0] [--method auto]

Composition (fixed by ``--seed``): ``--stories`` CCTV 新闻联播 stories (``cctv_xwlb_news_zh``,
kind ``story``, at least 80 characters; the corpus is full of same-template stories, which are
the hard negatives), half of them captured a second time by "another crawler" with 1-4 kinds of
residue drawn from :data:`RESIDUE`: Markdown emphasis, backslash escapes, line breaks written as
escapes (``\\n``, ``\\r\\n``), list marks, a heading or title line, line breaks changed, HTML tags
and entities, wiki markup, a link or an image line, spacing. The corpus is the stories in their
order with each second capture right after its page.

Printed: the share of captures the method calls a copy of their page (per residue kind), and the
pairwise cluster precision, recall and F1 of ``dedup`` on the whole corpus, where the gold
clusters are page + capture (a removal of one distinct story by another counts against
precision).
"""

from __future__ import annotations

import argparse
import collections
import gzip
import random
import re
import time
from collections.abc import Callable

import numpy as np
import orjson
from _common import DATA

from neardup.dedup import dedup_texts
from neardup.evaluate.metrics import cluster_scores
from neardup.methods import DEFAULT_METHOD, create

Edit = Callable[[str, str, random.Random], str]


def _emphasis(text: str, title: str, rng: random.Random) -> str:
    text = text.replace("央视网消息（新闻联播）", "**央视网消息（新闻联播）**")
    sentences = re.split(r"(?<=。)", text)
    k = rng.randrange(len(sentences))
    if sentences[k].strip():
        sentences[k] = "**" + sentences[k].strip("\n") + "**"
    return "".join(sentences)


def _escapes(text: str, title: str, rng: random.Random) -> str:
    return re.sub(r"([*_#\-\[\]()（）.])", r"\\\1", text)


def _escaped_breaks(text: str, title: str, rng: random.Random) -> str:
    return text.replace("\n", rng.choice(["\\n", "\\n\\n", "\\r\\n"]))


def _list_marks(text: str, title: str, rng: random.Random) -> str:
    marks = ["- ", "* ", "+ ", "> "]
    return "\n".join(rng.choice(marks) + p for p in text.split("\n"))


def _heading(text: str, title: str, rng: random.Random) -> str:
    return rng.choice(["# ", "## ", "### "]) + title + "\n\n" + text


def _title_line(text: str, title: str, rng: random.Random) -> str:
    return title + "\n" + text


def _line_breaks(text: str, title: str, rng: random.Random) -> str:
    how = rng.randrange(3)
    if how == 0:
        return text.replace("\n", "")
    if how == 1:
        return re.sub(r"(?<=。)", "\n", text)
    return text.replace("\n", "\n\n")


def _html(text: str, title: str, rng: random.Random) -> str:
    return "<p>" + text.replace("\n", "</p><p>").replace("，", "，&nbsp;") + "</p>"


def _entities(text: str, title: str, rng: random.Random) -> str:
    return text.replace("“", "&ldquo;").replace("”", "&rdquo;")


def _wiki(text: str, title: str, rng: random.Random) -> str:
    return "== " + title + " ==\n" + re.sub(r"《([^》]+)》", r"[[\1]]", text)


def _link(text: str, title: str, rng: random.Random) -> str:
    label = rng.choice(["阅读原文", "返回顶部", "分享到微信"])
    return f"{text}\n\n[{label}](https://tv.cctv.com/v/VIDE{rng.randrange(10**9)}.shtml)"


def _image(text: str, title: str, rng: random.Random) -> str:
    return f"![](https://p1.img.cctvpic.com/photo/{rng.randrange(10**9)}.jpg)\n{text}"


def _spacing(text: str, title: str, rng: random.Random) -> str:
    return re.sub(r"(?<=[，。])", lambda m: rng.choice(["", " ", "  ", "\t"]), text)


RESIDUE: dict[str, Edit] = {
    "emphasis": _emphasis,
    "escapes": _escapes,
    "escaped_breaks": _escaped_breaks,
    "list_marks": _list_marks,
    "heading": _heading,
    "title_line": _title_line,
    "line_breaks": _line_breaks,
    "html": _html,
    "entities": _entities,
    "wiki": _wiki,
    "link": _link,
    "image": _image,
    "spacing": _spacing,
}


def build(
    n: int, seed: int
) -> tuple[list[str], np.ndarray, list[tuple[int, int, tuple[str, ...]]]]:
    """The corpus, its gold cluster per document, and (page, capture, residue kinds) triples."""
    rows = []
    with gzip.open(DATA / "cctv_xwlb_news_zh" / "corpus.jsonl.gz", "rb") as f:
        for line in f:
            r = orjson.loads(line)
            if r.get("kind") == "story" and len(r.get("text") or "") >= 80:
                rows.append(r)
    rng = random.Random(seed)
    rows = rng.sample(rows, min(n, len(rows)))
    texts: list[str] = []
    gold: list[int] = []
    captures = []
    for k, r in enumerate(rows):
        texts.append(r["text"])
        gold.append(k)
        if k % 2 == 0:
            kinds = tuple(rng.sample(sorted(RESIDUE), rng.randint(1, 4)))
            text = r["text"]
            for kind in kinds:
                text = RESIDUE[kind](text, r.get("title") or "", rng)
            captures.append((len(texts) - 1, len(texts), kinds))
            texts.append(text)
            gold.append(k)
    return texts, np.asarray(gold), captures


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--stories", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--method", default=DEFAULT_METHOD)
    args = ap.parse_args()
    texts, gold, captures = build(args.stories, args.seed)
    method = create(args.method)
    called = np.array([method.compare(texts[p], texts[c])["duplicate"] for p, c, _ in captures])
    seen: collections.Counter[str] = collections.Counter()
    missed: collections.Counter[str] = collections.Counter()
    for ok, (_, _, kinds) in zip(called.tolist(), captures, strict=True):
        for kind in kinds:
            seen[kind] += 1
            missed[kind] += not ok
    print(f"{len(texts):,} documents, {len(captures):,} second captures; method {args.method}")
    print(f"captures called a copy of their page: {called.mean():.4f}")
    for kind in sorted(RESIDUE):
        print(f"  {kind:15s} missed {missed[kind]:4d} of {seen[kind]:4d}")
    t0 = time.perf_counter()
    result = dedup_texts(texts, method=args.method)
    seconds = time.perf_counter() - t0
    rep = np.asarray(result.clusters.representative)
    s = cluster_scores(gold, rep, rep)
    print(
        f"dedup: pairwise precision {s.precision:.4f} recall {s.recall:.4f} F1 {s.f1:.4f}; "
        f"{s.removed:,} removed, {s.removed - s.removed_correctly:,} of them not a capture of "
        f"their representative's page; {seconds:.1f} s"
    )


if __name__ == "__main__":
    main()
