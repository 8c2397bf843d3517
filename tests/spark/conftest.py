import gzip
import random
import shutil
from pathlib import Path

import orjson
import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED_DATA = ROOT.parent / "shared" / "data"
SAMPLE = ROOT / "examples" / "sample_zh.jsonl"


@pytest.fixture(scope="session")
def spark():
    if shutil.which("java") is None:
        pytest.skip("no Java runtime: Spark needs one (apt-get install openjdk-17-jre-headless)")
    pytest.importorskip("pyspark", reason="pyspark is not installed (pip install neardup[spark])")
    from neardup.spark.session import spark_session

    session = spark_session(
        master="local[2]",
        app_name="neardup-tests",
        config={
            "spark.ui.enabled": "false",
            "spark.ui.showConsoleProgress": "false",
            "spark.sql.shuffle.partitions": "4",
            "spark.default.parallelism": "4",
            "spark.driver.memory": "2g",
        },
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def _texts(path: Path, field: str, limit: int) -> list[str]:
    out = []
    with gzip.open(path, "rb") as f:
        for line in f:
            text = orjson.loads(line).get(field)
            if isinstance(text, str) and text.strip():
                out.append(text)
                if len(out) >= limit:
                    break
    return out


def _edit(text: str, rng: random.Random) -> str:
    chars = list(text)
    for _ in range(max(1, len(chars) // 200)):
        i = rng.randrange(len(chars))
        op = rng.randrange(3)
        if op == 0:
            chars.insert(i, rng.choice("，。的了 "))
        elif op == 1 and len(chars) > 1:
            del chars[i]
        else:
            chars[i] = rng.choice("的一是在不了有和人这")
    return "".join(chars)


@pytest.fixture(scope="session")
def corpus_texts() -> list[str]:
    """A few thousand real documents with planted near-duplicates (deterministic)."""
    weibo = SHARED_DATA / "weibo_ced_zh" / "corpus.jsonl.gz"
    cctv = SHARED_DATA / "cctv_xwlb_news_zh" / "corpus.jsonl.gz"
    if weibo.exists() and cctv.exists():
        texts = _texts(weibo, "text", 2500) + _texts(cctv, "text", 400)
    else:  # the bundled sample keeps the test meaningful without ../shared/data
        texts = [orjson.loads(line)["text"] for line in SAMPLE.read_bytes().splitlines()]
    rng = random.Random(7)
    planted = [_edit(rng.choice(texts), rng) for _ in range(len(texts) // 10)]
    mixed = texts + planted
    rng.shuffle(mixed)
    return mixed
