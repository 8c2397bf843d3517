"""Credentials and paths stay inside: redacted URLs, keys never on the command line."""

import os
import subprocess
import sys

import pytest

httpx = pytest.importorskip("httpx")
from neardup.cli import main  # noqa: E402
from neardup.errors import ConfigError  # noqa: E402
from neardup.store import open_store, redact  # noqa: E402
from serverproc import free_port, start, stop  # noqa: E402


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://app:s3cret@db:5432/x", "postgresql://app:***@db:5432/x"),
        (
            "postgresql://app@db/x?password=s3cret&sslmode=require",
            "postgresql://app@db/x?password=***&sslmode=require",
        ),
        ("postgres://db/x?sslpassword=s3cret", "postgres://db/x?sslpassword=***"),
        ("postgresql://db/x?options=-c%20secret%3Ds3cret", "postgresql://db/x?options=***"),
        (
            "sqlite:////var/lib/x.db?synchronous=normal",
            "sqlite:////var/lib/x.db?synchronous=normal",
        ),
    ],
)
def test_redact(url, shown):
    assert redact(url) == shown and "s3cret" not in redact(url)


def test_connection_errors_do_not_show_the_password():
    with pytest.raises(ConfigError) as err:
        open_store("postgresql://u:s3cret@127.0.0.1:1/db?password=s3cret")
    assert "s3cret" not in str(err.value) and "127.0.0.1" in str(err.value)


def test_key_on_the_command_line_and_non_ascii_keys_are_refused(tmp_path, capsys):
    db = f"sqlite:///{tmp_path}/k.db"
    assert main(["serve", "--db", db, "--api-key", "abc"]) == 2
    assert "show the key in `ps`" in capsys.readouterr().err
    key_file = tmp_path / "key"
    key_file.write_text("schlüssel\n", encoding="utf-8")
    assert main(["serve", "--db", db, "--api-key-file", str(key_file)]) == 2
    assert "printable ASCII" in capsys.readouterr().err
    os.environ["NEARDUP_API_KEY"] = "clé"
    try:
        assert main(["serve", "--db", db]) == 2
        assert "$NEARDUP_API_KEY" in capsys.readouterr().err
    finally:
        del os.environ["NEARDUP_API_KEY"]


def test_stats_show_the_store_only_to_key_holders_and_start_up_redacts(tmp_path):
    key_file = tmp_path / "key"
    key_file.write_text("k3y\n")
    port = free_port()
    db = f"sqlite:///{tmp_path}/st.db"
    proc = start(db, port, "--api-key-file", str(key_file), "--host", "127.0.0.1")
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            anonymous = client.get("/v1/stats").json()
            assert anonymous["store"] == {"backend": "sqlite"} and str(tmp_path) not in str(
                anonymous
            )
            known = client.get("/v1/stats", headers={"X-API-Key": "k3y"}).json()
            assert known["store"]["url"] == db
            assert client.post("/v1/documents", json={"id": "a", "text": "x"}).status_code == 401
    finally:
        stop(proc)


@pytest.mark.postgres
def test_postgres_password_never_printed(pg_schema_url):
    url = pg_schema_url + "&password=s3cret-pw"  # ignored by trust auth, but must never show
    port = free_port()
    proc = start(url, port, env={"NEARDUP_API_KEY": "k3y"})
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            shown = client.get("/v1/stats", headers={"X-API-Key": "k3y"}).json()["store"]["url"]
        assert "s3cret-pw" not in shown and "password=***" in shown
    finally:
        log = stop(proc)
    assert "s3cret-pw" not in log and "password=***" in log
    stats = subprocess.run(
        [sys.executable, "-m", "neardup", "index", "stats", "--db", url],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert stats.returncode == 0 and "s3cret-pw" not in stats.stdout + stats.stderr


def test_warning_when_listening_beyond_loopback_without_a_key(tmp_path):
    port = free_port()
    proc = start(f"sqlite:///{tmp_path}/w.db", port, "--host", "0.0.0.0")
    log = stop(proc)
    assert "without an API key" in log
