"""Deduplicate a table in memory: a pyarrow Table, a pandas or a polars DataFrame.

``dedup_frame`` returns the same kind of table with five columns added — the columns of
``clusters.csv`` plus a ``duplicate`` flag — computed by the same core as ``neardup dedup``
(:func:`cluster_columns` builds them for both), so a frame and a file give the same clusters.
The input's own columns are not copied where Arrow allows (pyarrow and polars share buffers;
pandas gets a shallow copy with new columns).

>>> import pyarrow as pa
>>> t = pa.table({"text": ["新闻联播：今天天气晴。", "新闻联播:今天天气晴。", "完全不同"]})
>>> dedup_frame(t).column("duplicate").to_pylist()
[False, True, False]
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .arrowcols import flags, numbers, strings
from .dedup import DedupResult, dedup_texts, first_non_string
from .errors import ConfigError, InputError, require
from .methods import DEFAULT_METHOD
from .pairs import METHODS

_STRING_VIEW = pa.string_view() if hasattr(pa, "string_view") else None  # pyarrow >= 16
ADDED_COLUMNS = ("cluster_id", "representative_id", "similarity", "method", "duplicate")


def cluster_columns(
    ids: pa.Array | pa.ChunkedArray,
    result: DedupResult,
    rows: slice = slice(None),
    *,
    no_method: str | None = None,
) -> dict[str, pa.Array]:
    """Per document (of ``rows``): cluster, representative's id, distance, similarity and
    method to it.

    ``method`` is ``no_method`` (null by default; distance and similarity are null) for a
    representative; ``ids`` may be any Arrow array (string ids in a file, row numbers or the
    frame's id column in memory) naming every document of ``result``.
    """
    c = result.clusters
    return {
        "cluster_id": numbers(c.cluster_id[rows], np.int64),
        "representative_id": ids.take(numbers(c.representative[rows], np.int64)),
        **evidence_columns(
            result.distance_to_representative[rows],
            result.similarity_to_representative[rows],
            result.method_to_representative[rows],
            c.is_representative[rows],
            no_method=no_method,
        ),
    }


def evidence_columns(
    distance: np.ndarray,
    similarity: np.ndarray,
    code: np.ndarray,
    is_rep: np.ndarray,
    *,
    no_method: str | None = None,
) -> dict[str, pa.Array]:
    """``distance``, ``similarity``, ``method`` and ``duplicate`` columns: null where no
    distance (< 0) or similarity (NaN) was measured; a representative's method is
    ``no_method`` (None: null)."""
    if no_method is None:
        method = strings(METHODS).take(numbers(code, np.int32, null=is_rep))
    else:
        codes = np.where(is_rep, len(METHODS), code)
        method = strings([*METHODS, no_method]).take(numbers(codes, np.int32))
    return {
        "distance": numbers(distance, np.int32, null=distance < 0),
        "similarity": numbers(similarity, np.float32, null=np.isnan(similarity)),
        "method": method,
        "duplicate": flags(~is_rep),
    }


def dedup_frame(
    frame: Any,
    *,
    text: str = "text",
    id: str | None = None,
    method: str = DEFAULT_METHOD,
    keep: str = "first",
    clusters: str = "greedy",
    workers: int | None = None,
    **method_options: Any,
) -> Any:
    """``frame`` with :data:`ADDED_COLUMNS`; the same type as given (see the module docstring).
    ``workers``: threads (default: every core; the result does not depend on it).

    ``text`` names the text column; ``id`` an id column for ``representative_id`` (default: the
    row number). A null text is an error naming its row: fill or drop it first.
    """
    kind = _kind(frame)
    table = _to_arrow(frame, kind, text, id)
    texts = _texts(table, text)
    ids = _ids(table, id)
    clash = sorted(set(ADDED_COLUMNS) & set(table.column_names))
    if clash:
        raise ConfigError(
            f"the frame already has column(s) {', '.join(clash)}; rename or drop them first"
        )
    result = dedup_texts(
        texts, method=method, keep=keep, clusters=clusters, workers=workers, **method_options
    )
    columns = cluster_columns(ids, result)
    added = {name: columns[name] for name in ADDED_COLUMNS}
    return _with_columns(frame, kind, table, added)


def _kind(frame: Any) -> str:
    if isinstance(frame, pa.Table):
        return "arrow"
    module = type(frame).__module__.split(".")[0]
    if module == "pandas" and type(frame).__name__ == "DataFrame":
        return "pandas"
    if module == "polars" and type(frame).__name__ == "DataFrame":
        return "polars"
    if module == "datasets":
        raise ConfigError(
            "pass a Hugging Face Dataset's Arrow table: dedup_frame(dataset.data.table, ...)"
        )
    raise ConfigError(
        f"dedup_frame takes a pyarrow Table, a pandas or a polars DataFrame, not "
        f"{type(frame).__module__}.{type(frame).__name__}"
    )


def _to_arrow(frame: Any, kind: str, text: str, id: str | None) -> pa.Table:
    """The frame as Arrow: the whole table for Arrow and polars (zero-copy), only the text and
    id columns for pandas (the others never leave pandas, so a column Arrow cannot type — mixed
    numbers and strings — is no obstacle; in the text column it is an error naming the row)."""
    if kind == "arrow":
        return frame
    if kind == "pandas":
        require("pandas", extra="frames", purpose="dedup_frame on a pandas DataFrame")
        labels: dict[str, list[Any]] = {}  # columns are named as strings (as Arrow does)
        for label in frame.columns:
            labels.setdefault(str(label), []).append(label)
        columns = {}
        for name in dict.fromkeys([text] if id is None else [text, id]):
            if not isinstance(name, str):
                raise ConfigError(f"name the column {name!r} as a string: {str(name)!r}")
            if len(labels.get(name, ())) > 1:
                raise ConfigError(f"column {name!r} names {len(labels[name])} columns; rename them")
            if name in labels:
                columns[name] = _pandas_column(frame[labels[name][0]], name, text=name == text)
        table = pa.table(columns)
        return _PandasColumns(table, [str(c) for c in frame.columns], len(frame))
    require("polars", extra="frames", purpose="dedup_frame on a polars DataFrame")
    return frame.to_arrow()


def _pandas_column(series: Any, name: str, *, text: bool) -> pa.Array:
    """A pandas column as Arrow; one Arrow cannot type is an error naming the column (the text
    column's first item that is not a string by its row, as ``dedup_texts`` names it)."""
    try:
        return pa.array(series, from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError) as exc:
        bad = first_non_string(series) if text else None
        if bad is not None:
            raise InputError(
                f"row {bad[0]} {bad[1]}; convert or drop such rows first",
                source=f"column {name!r}",
            ) from None
        raise ConfigError(f"column {name!r} cannot be read as one type: {exc}") from None


class _PandasColumns:
    """The needed columns of a pandas frame, answering for all of the frame's column names."""

    def __init__(self, table: pa.Table, names: list[str], rows: int):
        self.table, self.column_names, self.num_rows = table, names, rows

    def column(self, name: str) -> pa.ChunkedArray:
        return self.table.column(name)


def _column(table: pa.Table, name: str, option: str) -> pa.ChunkedArray:
    if name not in table.column_names:
        raise ConfigError(
            f"{option}={name!r} is not a column; the columns are: {', '.join(table.column_names)}"
        )
    return table.column(name)


def _values(column: pa.ChunkedArray) -> pa.ChunkedArray:
    """``column`` as its values: a dictionary column (a pandas ``category``, a polars
    ``Categorical``) decoded, as ``dedup_texts`` reads one; string views as large strings (the
    kernels that find repeated ids take no views)."""
    if pa.types.is_dictionary(column.type):
        column = column.cast(column.type.value_type)
    if column.type == _STRING_VIEW:
        column = column.cast(pa.large_string())
    return column


def _is_string(type_: pa.DataType) -> bool:
    return pa.types.is_string(type_) or pa.types.is_large_string(type_)


def _texts(table: pa.Table, name: str) -> list[str]:
    given = _column(table, name, "text")
    column = _values(given)
    if not len(column):  # an empty pandas column is float64: no row, no text to check
        return []
    if not _is_string(column.type):
        raise ConfigError(f"text column {name!r} holds {given.type}, not strings")
    if column.null_count:
        first = int(np.flatnonzero(column.is_null().to_numpy(zero_copy_only=False))[0])
        raise InputError(
            f"{column.null_count} row(s) have no text (null), the first is row {first}; "
            "fill or drop them first",
            source=f"column {name!r}",
        )
    texts = column.to_pylist()
    blank = next((k for k, t in enumerate(texts) if not t or t.isspace()), None)
    if blank is not None:  # the command skips them (empty_text); a frame keeps every row
        raise InputError(
            f"row {blank} has an empty text (or only white space), which `neardup dedup` "
            "skips; drop such rows first",
            source=f"column {name!r}",
        )
    return texts


def _ids(table: pa.Table, name: str | None) -> pa.Array:
    """The id column: strings or integers, as ``neardup dedup`` reads ids (a float id has no
    one value to name: NaN is not equal to itself, -0.0 is 0.0), a dictionary column decoded;
    no null, no id twice (``representative_id`` must name one row)."""
    if name is None:
        return pa.array(np.arange(table.num_rows, dtype=np.int64))
    given = _column(table, name, "id")
    ids = _values(given).combine_chunks()
    if not len(ids):  # an empty pandas column is float64: no row, no id to check
        return pa.array([], pa.int64())
    if not (_is_string(ids.type) or pa.types.is_integer(ids.type)):
        raise ConfigError(
            f"id column {name!r} holds {given.type}; ids are strings or integers, as "
            "`neardup dedup` reads them: cast the column to one, or leave id out (row numbers)"
        )
    if ids.null_count:
        first = int(np.flatnonzero(ids.is_null().to_numpy(zero_copy_only=False))[0])
        raise InputError(
            f"{ids.null_count} row(s) have no id (null), the first is row {first}",
            source=f"column {name!r}",
        )
    if pc.count_distinct(ids).as_py() < len(ids):
        seen: dict[Any, int] = {}
        for row, value in enumerate(ids.to_pylist()):
            if value in seen:
                raise InputError(
                    f"id {value!r} is used twice (rows {seen[value]} and {row}): "
                    "representative_id would not name one row",
                    source=f"column {name!r}",
                )
            seen[value] = row
    return ids


def _with_columns(frame: Any, kind: str, table: pa.Table, added: dict[str, pa.Array]) -> Any:
    if kind == "arrow":
        for name, values in added.items():
            table = table.append_column(name, values)
        return table
    if kind == "pandas":
        new = {name: values.to_pandas() for name, values in added.items()}
        for series in new.values():
            series.index = frame.index
        return frame.assign(**new)
    import polars as pl

    return frame.with_columns([pl.from_arrow(values).alias(n) for n, values in added.items()])
