"""dedup_frame: a frame gives the clusters `neardup dedup` gives for the same records in a file."""

import csv
import json
import sys
from pathlib import Path

import pyarrow as pa
import pytest

from neardup import dedup_frame, dedup_texts
from neardup.cli import main
from neardup.errors import ConfigError, InputError, MissingDependencyError

SAMPLE = Path(__file__).resolve().parents[1] / "examples" / "sample_zh.jsonl"


@pytest.fixture(scope="module")
def records():
    return [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def cli_clusters(records, tmp_path_factory):
    out = tmp_path_factory.mktemp("frames") / "out"
    assert main(["dedup", str(SAMPLE), "--id-field", "id", "-o", str(out), "--quiet"]) == 0
    with open(out / "clusters.csv", newline="", encoding="utf-8") as f:
        return {row["id"]: row for row in csv.DictReader(f)}


def _check_against_cli(rows, cli):
    """rows: dicts with id, cluster_id, representative_id, similarity, method, duplicate."""
    assert len(rows) == len(cli)
    assert sum(r["duplicate"] for r in rows) == sum(
        r["representative_id"] != r["id"] for r in cli.values()
    )
    for r in rows:
        want = cli[str(r["id"])]
        assert r["cluster_id"] == int(want["cluster_id"])
        assert r["representative_id"] == want["representative_id"]
        assert r["duplicate"] == (want["representative_id"] != want["id"])
        assert (r["method"] or "") == want["method"]
        if want["similarity"]:
            assert r["similarity"] == pytest.approx(float(want["similarity"]), abs=1e-6)
        else:
            assert r["similarity"] is None or r["similarity"] != r["similarity"]  # null/NaN


def test_arrow_table(records, cli_clusters):
    table = pa.table({"id": [r["id"] for r in records], "text": [r["text"] for r in records]})
    out = dedup_frame(table, id="id")
    assert isinstance(out, pa.Table) and out.column_names[:2] == ["id", "text"]
    assert (
        out.column("text").chunks[0].buffers()[2].address
        == table.column("text").chunks[0].buffers()[2].address
    )  # the input's columns are shared, not copied
    _check_against_cli(out.to_pylist(), cli_clusters)


def test_pandas_frame(records, cli_clusters):
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(records, index=[f"r{i}" for i in range(len(records))])
    out = dedup_frame(frame, id="id")
    assert isinstance(out, pd.DataFrame) and list(out.index) == list(frame.index)
    assert "cluster_id" not in frame.columns  # the input is not modified
    rows = [
        {
            **r,
            "similarity": None if pd.isna(r["similarity"]) else r["similarity"],
            "method": None if pd.isna(r["method"]) else r["method"],
        }
        for r in out.to_dict("records")
    ]
    _check_against_cli(rows, cli_clusters)


def test_polars_frame(records, cli_clusters):
    pl = pytest.importorskip("polars")
    frame = pl.DataFrame(records)
    out = dedup_frame(frame, id="id")
    assert isinstance(out, pl.DataFrame)
    _check_against_cli(out.to_dicts(), cli_clusters)


def test_row_numbers_without_an_id_column(records):
    table = pa.table({"text": [r["text"] for r in records]})
    out = dedup_frame(table).to_pylist()
    for i, r in enumerate(out):
        assert r["duplicate"] == (r["representative_id"] != i)
        assert out[r["representative_id"]]["duplicate"] is False


def test_clear_errors():
    table = pa.table({"body": ["a"], "cluster_id": [1]})
    with pytest.raises(ConfigError, match="text='text' is not a column; the columns are: body"):
        dedup_frame(table)
    with pytest.raises(ConfigError, match=r"already has column.*cluster_id"):
        dedup_frame(table, text="body")
    with pytest.raises(InputError, match=r"1 row.*no text.*row 1"):
        dedup_frame(pa.table({"text": ["一段文字", None]}))
    with pytest.raises(ConfigError, match="holds int64"):
        dedup_frame(pa.table({"text": [1, 2]}))
    with pytest.raises(ConfigError, match="pyarrow Table, a pandas or a polars DataFrame"):
        dedup_frame([{"text": "x"}])
    with pytest.raises(InputError, match=r"row 2 has an empty text"):
        dedup_frame(pa.table({"text": ["一段文字", "另一段", "  "]}))
    two = ["今天天气很好，适合出门散步。", "完全不同的一句话。"]
    with pytest.raises(InputError, match=r"id 'a' is used twice \(rows 0 and 1\)"):
        dedup_frame(pa.table({"text": two, "id": ["a", "a"]}), id="id")
    with pytest.raises(InputError, match=r"1 row\(s\) have no id \(null\), the first is row 0"):
        dedup_frame(pa.table({"text": two, "id": [None, "b"]}), id="id")


def test_missing_extra_names_it(monkeypatch):
    pl = pytest.importorskip("polars")
    frame = pl.DataFrame({"text": ["x"]})
    monkeypatch.setitem(sys.modules, "polars", None)  # as if it were not installed
    with pytest.raises(MissingDependencyError, match=r"neardup\[frames\]"):
        dedup_frame(frame)


def test_pandas_columns_arrow_cannot_type(records, cli_clusters):
    """Only the text and id columns go to Arrow: another column mixing numbers and strings (as
    weibo_ced_zh's time does) is kept as it is; a text column that is not all strings is a
    clear error naming it and the row, as dedup_texts names it."""
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(records)
    frame["time"] = [
        1349768694 if i % 2 else "Sat Jun 29 12:40:09 +0800 2013" for i in range(len(frame))
    ]
    out = dedup_frame(frame, id="id")
    assert list(out["time"]) == list(frame["time"])
    rows = [
        {
            **r,
            "similarity": None if pd.isna(r["similarity"]) else r["similarity"],
            "method": None if pd.isna(r["method"]) else r["method"],
        }
        for r in out.drop(columns=["time"]).to_dict("records")
    ]
    _check_against_cli(rows, cli_clusters)
    bad = frame.assign(text=[1 if i == 3 else t for i, t in enumerate(frame["text"])])
    with pytest.raises(InputError, match=r"texts\[3\] is a int, not a str: 1$"):
        dedup_texts(bad["text"])  # the frame names the same row as dedup_texts
    with pytest.raises(InputError, match=r"column 'text': row 3 is a int, not a str: 1;"):
        dedup_frame(bad, id="id")


def test_pandas_columns_are_named_as_strings(records):
    """Integer column labels are named by their string, as Arrow names them; a label that is
    not a string, or one that names two columns, is a clear error."""
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame([[r["id"], r["text"]] for r in records])  # columns 0 and 1
    out = dedup_frame(frame, text="1", id="0")
    assert out["duplicate"].sum() > 0 and list(out.columns[:2]) == [0, 1]
    with pytest.raises(ConfigError, match="as a string"):
        dedup_frame(frame, text=1)
    twice = pd.DataFrame([[r["text"], r["text"]] for r in records], columns=["text", "text"])
    with pytest.raises(ConfigError, match="column 'text'"):
        dedup_frame(twice)


def test_dictionary_columns_are_read_as_their_values(records):
    """A pandas ``category``, a polars ``Categorical`` or an Arrow dictionary column (text or
    id) gives what the same frame with plain columns gives, as ``dedup_texts`` reads one; it
    failed in Arrow's duplicate-id check (ids) or was refused as not strings (texts)."""
    from neardup.frames import ADDED_COLUMNS

    ids, texts = [r["id"] for r in records], [r["text"] for r in records]
    plain = pa.table({"id": ids, "text": texts})
    want = dedup_frame(plain, id="id").select(ADDED_COLUMNS)
    assert sum(want.column("duplicate").to_pylist()) > 0
    coded = pa.table({"id": pa.array(ids).dictionary_encode(), "text": pa.array(texts)})
    for frame in (coded, coded.set_column(1, "text", pa.array(texts).dictionary_encode())):
        assert dedup_frame(frame, id="id").select(ADDED_COLUMNS).equals(want)
    numbers = pa.table({"id": range(len(ids)), "text": texts})
    by_number = dedup_frame(numbers, id="id").select(ADDED_COLUMNS)
    coded_numbers = numbers.set_column(0, "id", numbers.column("id").dictionary_encode())
    assert dedup_frame(coded_numbers, id="id").select(ADDED_COLUMNS).equals(by_number)
    if hasattr(pa, "string_view"):  # pyarrow >= 16; representative_id comes as large strings
        views = pa.table({"id": pa.array(ids, pa.string_view()), "text": plain.column("text")})
        views = views.set_column(1, "text", views.column("text").cast(pa.string_view()))
        assert dedup_frame(views, id="id").select(ADDED_COLUMNS).to_pylist() == want.to_pylist()

    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"id": ids, "text": texts})
    expected = dedup_frame(frame, id="id")[list(ADDED_COLUMNS)]
    categories = frame.astype({"id": "category", "text": "category"})
    got = dedup_frame(categories, id="id")[list(ADDED_COLUMNS)]
    pd.testing.assert_frame_equal(got, expected)

    pl = pytest.importorskip("polars")
    frame = pl.DataFrame({"id": ids, "text": texts})
    expected = dedup_frame(frame, id="id").select(ADDED_COLUMNS)
    categorical = frame.with_columns(pl.col("id", "text").cast(pl.Categorical))
    assert dedup_frame(categorical, id="id").select(ADDED_COLUMNS).equals(expected)


def test_ids_that_name_no_one_value_are_refused():
    """Ids are strings or integers, as ``neardup dedup`` reads them: a list or struct id
    failed in Arrow's kernels with a raw traceback; float ids passed the check for an id used
    twice when NaN (Arrow counts two NaNs as one id, Python finds neither again)."""
    two = ["今天天气很好，适合出门散步。", "今天天气很好,适合出门散步。", "完全不同的一句话。"]
    for ids, kind in (
        ([[1], [2], [3]], "list<item: int64>"),
        ([{"a": 1}, {"a": 2}, {"a": 3}], "struct<a: int64>"),
        ([float("nan"), float("nan"), 1.0], "double"),
        ([0.0, -0.0, 1.0], "double"),  # two ids to Arrow, one to Python
        (pa.array([0.5, 1.5, 0.5]).dictionary_encode(), r"dictionary<values=double"),
    ):
        with pytest.raises(ConfigError, match=rf"id column 'id' holds {kind}.*strings or integ"):
            dedup_frame(pa.table({"text": two, "id": ids}), id="id")
    pd = pytest.importorskip("pandas")
    with pytest.raises(ConfigError, match="id column 'id' holds double"):
        dedup_frame(pd.DataFrame({"text": two, "id": [2.0, 1.0, 3.0]}), id="id")


def test_an_empty_frame_gives_an_empty_result():
    """An empty pandas frame's columns are float64: it was refused as 'holds double, not
    strings' (helper audit)."""
    pd = pytest.importorskip("pandas")
    from neardup import dedup_frame

    out = dedup_frame(pd.DataFrame({"id": [], "text": []}), id="id")
    assert len(out) == 0 and "representative_id" in out.columns
    assert len(dedup_frame(pd.DataFrame({"text": []}))) == 0


def test_results_compare_by_identity():
    from neardup import dedup_texts

    a = dedup_texts(["一样的文本", "一样的文本"])
    assert a == a and a != dedup_texts(["一样的文本", "一样的文本"])  # no ValueError from arrays
