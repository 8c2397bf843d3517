import os
import sys
import uuid
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
# the kernels in every run, however small (test_compiling.py tests their twins against them)
os.environ["NEARDUP_COMPILED_FROM"] = "0"

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


@pytest.fixture
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA}")
    return SHARED_DATA


PG_URL = os.environ.get("NEARDUP_TEST_POSTGRES_URL")


def pg_url() -> str:
    if not PG_URL:
        pytest.skip(
            "no PostgreSQL server: set NEARDUP_TEST_POSTGRES_URL (bash .ci/postgres.sh starts one)"
        )
    return PG_URL


def _fresh_schema():
    """A PostgreSQL URL whose search_path is a fresh, empty schema (dropped afterwards)."""
    url = pg_url()
    psycopg = pytest.importorskip("psycopg")
    schema = "t_" + uuid.uuid4().hex[:12]
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    sep = "&" if "?" in url else "?"
    yield f"{url}{sep}options=-csearch_path%3D{schema}"
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA {schema} CASCADE")


@pytest.fixture
def pg_schema_url():
    """A PostgreSQL URL whose search_path is a fresh, empty schema (dropped afterwards)."""
    yield from _fresh_schema()


@pytest.fixture
def pg_other_schema_url():
    """Another fresh schema of the same database (a second store beside ``pg_schema_url``)."""
    yield from _fresh_schema()


@pytest.fixture(params=["memory", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def store_url(request, tmp_path):
    if request.param == "memory":
        return "memory://"
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path}/store.db"
    return request.getfixturevalue("pg_schema_url")
