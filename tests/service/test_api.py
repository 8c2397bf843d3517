"""Every endpoint and error case, in-process through FastAPI's test client."""

import pytest

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient

from neardup.online import Detector
from neardup.service import create_app
from neardup.store import open_store

TEXT = (
    "国务院总理主持召开国务院常务会议，部署进一步稳外贸稳外资的措施，要求各地区各部门抓好落实，"
    "确保经济运行在合理区间，为全年经济社会发展目标任务的完成提供有力支撑。"
)


@pytest.fixture
def client(tmp_path):
    det = Detector(store=open_store(f"sqlite:///{tmp_path}/s.db"))
    return TestClient(
        create_app(det, api_key="sekret", max_body_bytes=4096), headers={"X-API-Key": "sekret"}
    )


def test_insert_check_get_delete(client):
    r = client.post("/v1/documents", json={"id": "a", "text": TEXT})
    assert r.status_code == 200
    assert r.json() == {
        "id": "a",
        "duplicate": False,
        "matches": [],
        "inserted": True,
        "status": "inserted",
    }
    r = client.post("/v1/documents", json={"id": "b", "text": TEXT.replace("，", ",", 1)})
    body = r.json()
    assert body["duplicate"] and body["matches"][0]["id"] == "a"
    # the same text once punctuation is ignored: an exact copy, as `neardup dedup` calls it
    assert body["matches"][0]["method"] == "exact" and body["matches"][0]["similarity"] == 1.0
    check = client.post("/v1/check", json={"text": TEXT}).json()
    # b is stored as a duplicate of a: only kept documents are matched against
    assert check["duplicate"] and [m["id"] for m in check["matches"]] == ["a"]
    got = client.get("/v1/documents/b").json()
    assert got["id"] == "b" and got["duplicate_of"] == "a" and len(got["fingerprint"]) == 16
    assert client.get("/v1/stats").json()["documents"] == 2
    assert client.delete("/v1/documents/a").json() == {"id": "a", "deleted": True}
    assert client.get("/v1/documents/a").status_code == 404
    assert client.get("/healthz").json() == {"status": "ok", "documents": 1}


def test_idempotent_conflict_replace(client):
    assert client.post("/v1/documents", json={"id": "a", "text": TEXT}).json()["inserted"]
    again = client.post("/v1/documents", json={"id": "a", "text": TEXT}).json()
    assert again["status"] == "unchanged" and not again["inserted"]
    r = client.post("/v1/documents", json={"id": "a", "text": "另一条"})
    assert r.status_code == 409 and "different text" in r.json()["error"]
    r = client.post("/v1/documents?replace=true", json={"id": "a", "text": "另一条内容"})
    assert r.json()["status"] == "replaced"


def test_a_batch_refused_for_a_conflict_names_the_document_and_says_none_was_stored(client):
    """Audit: the 409 of a batch named the id but not its place, nor that the batch (one
    transaction) stored none of its documents."""
    assert client.post("/v1/documents", json={"id": "a", "text": TEXT}).json()["inserted"]
    docs = [{"id": "n", "text": "全新的一条内容，与别的都不同"}, {"id": "a", "text": "另一条"}]
    r = client.post("/v1/documents/batch", json={"documents": docs})
    error = r.json()["error"]
    assert r.status_code == 409 and "documents[1]" in error and "none of the batch's 2" in error
    assert client.get("/v1/documents/n").status_code == 404


def test_batch(client):
    docs = [{"id": f"d{i}", "text": TEXT + ("" if i % 2 else "。")} for i in range(4)]
    r = client.post("/v1/documents/batch", json={"documents": docs})
    results = r.json()["results"]
    assert [x["id"] for x in results] == ["d0", "d1", "d2", "d3"]
    assert not results[0]["duplicate"] and all(x["inserted"] for x in results)
    assert results[1]["duplicate"] and results[1]["matches"][0]["id"] == "d0"
    # the write routes answer without response validation: their bodies must still be the
    # documented models, exactly (no field more, none missing)
    from neardup.service.schemas import BatchOut, DocumentResult

    assert BatchOut.model_validate(r.json()).model_dump() == r.json()
    one = client.post("/v1/documents", json={"id": "e", "text": TEXT}).json()
    assert DocumentResult.model_validate(one).model_dump() == one
    assert r.headers["content-type"] == "application/json"


@pytest.mark.parametrize(
    "body,status,message",
    [
        ({"id": "a"}, 422, "text: Field required"),
        ({"id": "a", "text": ""}, 422, "invalid request: text: text is empty"),
        ({"id": "a", "text": "   "}, 422, "invalid request: text: text is empty"),
        ({"id": "a", "text": 5}, 422, "text: Input should be a valid string"),
        ({"id": 5, "text": "x"}, 422, "id: Input should be a valid string"),
        ({"id": "x\u0000y", "text": "x"}, 422, "invalid request: id: holds a NUL character"),
        ({"id": "a", "text": "x", "extra": 1}, 422, "extra: Extra inputs are not permitted"),
        ([1, 2], 422, "invalid request: body: expected a JSON object"),
    ],
)
def test_bad_bodies(client, body, status, message):
    r = client.post("/v1/documents", json=body)
    assert r.status_code == status and message in r.json()["error"]


def test_a_body_that_cannot_be_read_says_why(client):
    """A body that is not UTF-8, or nests too deeply for the decoder, got FastAPI's "There was
    an error parsing the body", which says neither; still 400, and the service serves on."""
    for body, says in (
        ('{"id": "u8", "text": "abc \xff\xfe def"}'.encode("latin-1"), "is not UTF-8 (byte 0xff"),
        (b"[" * 2000 + b"]" * 2000, "nests arrays or objects too deeply"),
    ):
        r = client.post("/v1/documents", content=body, headers={"Content-Type": "application/json"})
        assert r.status_code == 400 and says in r.json()["error"], r.text
    assert client.post("/v1/documents", json={"id": "a", "text": TEXT}).status_code == 200


def test_invalid_json_oversized_auth_unknown(client, tmp_path):
    r = client.post(
        "/v1/documents",
        content=b'{"id": "a", "text": ',
        headers={"Content-Type": "application/json"},
    )
    assert r.status_code == 400 and r.json()["error"] == "the request body is not valid JSON"
    r = client.post("/v1/documents", json={"id": "a", "text": "x" * 5000})
    assert r.status_code == 413 and "over the limit of 4096 bytes" in r.json()["error"]
    r = client.post("/v1/documents", json={"id": "a", "text": TEXT}, headers={"X-API-Key": "no"})
    assert r.status_code == 401
    r = client.post(
        "/v1/documents",
        json={"id": "a", "text": TEXT},
        headers={"X-API-Key": "", "Authorization": "Bearer sekret"},
    )
    assert r.status_code == 200
    assert client.delete("/v1/documents/zzz").status_code == 404
    assert client.get("/v1/nothing").status_code == 404
    assert (
        client.post("/v1/check", json={"text": TEXT}, headers={"X-API-Key": "no"}).status_code
        == 200
    )
    schema = client.get("/openapi.json").json()
    assert {
        "/v1/documents",
        "/v1/check",
        "/v1/documents/batch",
        "/v1/stats",
        "/v1/documents/{doc_id}",
        "/healthz",
    } <= set(schema["paths"])


def test_an_id_is_addressed_whole_also_with_line_breaks(client):
    """``victim%0A`` is the document "victim\\n", never "victim" (a path pattern's ``$`` also
    matches before a final line break); an id with a line break inside can be read and deleted."""
    other = TEXT.replace("国务院", "市政府")[::-1]
    for doc_id, text in (("victim", TEXT), ("victim\n", other), ("a\nb", other + "。")):
        assert client.post("/v1/documents", json={"id": doc_id, "text": text}).status_code == 200
    assert client.get("/v1/documents/victim%0A").json()["id"] == "victim\n"
    assert client.get("/v1/documents/a%0Ab").json()["id"] == "a\nb"
    assert client.delete("/v1/documents/victim%0A").json() == {"id": "victim\n", "deleted": True}
    assert client.get("/v1/documents/victim").json()["id"] == "victim"
    assert client.delete("/v1/documents/a%0Ab").status_code == 200
    assert client.get("/v1/documents/a%0Ab").status_code == 404


def test_an_id_holding_a_nul_is_refused_by_every_route(client):
    """PostgreSQL's text cannot hold NUL: such an id was a 503 "retry later" there (a client
    retries for ever) and stored on SQLite. Every route and store refuses it as bad input."""
    r = client.post("/v1/check", json={"id": "x\u0000y", "text": TEXT})
    assert r.status_code == 422 and "NUL" in r.json()["error"]
    batch = {"documents": [{"id": "a", "text": TEXT}, {"id": "b\u0000", "text": TEXT + "。"}]}
    assert client.post("/v1/documents/batch", json=batch).status_code == 422
    for verb in (client.get, client.delete):
        r = verb("/v1/documents/x%00y")
        assert r.status_code == 422 and "NUL" in r.json()["error"]
    assert client.get("/v1/documents/a").status_code == 404  # the batch stored nothing


def test_an_id_whose_bytes_are_not_utf8_addresses_nothing(client):
    """``%FF%FE`` was decoded to two U+FFFD and deleted the document of that id; it is a 400
    now, and the real U+FFFD id, percent-encoded as UTF-8, is still addressable."""
    assert (
        client.post("/v1/documents", json={"id": "\ufffd\ufffd", "text": TEXT}).status_code == 200
    )
    for path in ("%FF%FE", "%ED%A0%80", "a%C3"):
        r = client.delete(f"/v1/documents/{path}")
        assert r.status_code == 400 and "not valid UTF-8" in r.json()["error"]
        assert client.get(f"/v1/documents/{path}").status_code == 400
    assert client.get("/v1/documents/%EF%BF%BD%EF%BF%BD").json()["id"] == "\ufffd\ufffd"
    assert client.delete("/v1/documents/%EF%BF%BD%EF%BF%BD").status_code == 200


def test_duplicates_not_stored_are_counted(tmp_path):
    det = Detector(store=open_store(f"sqlite:///{tmp_path}/n.db"), store_duplicates=False)
    client = TestClient(create_app(det))
    for doc_id in ("a", "b", "c"):
        client.post("/v1/documents", json={"id": doc_id, "text": TEXT})
    client.post("/v1/documents/batch", json={"documents": [{"id": "d", "text": TEXT}]})
    client.post("/v1/documents", json={"id": "a", "text": TEXT})  # unchanged: counted before
    stats = client.get("/v1/stats").json()
    assert stats["duplicates_not_stored_since_start"] == 3
    assert stats["duplicates_inserted_since_start"] == 0
    assert "neardup_duplicates_total 3.0" in client.get("/metrics").text


def test_a_body_that_is_not_declared_json_is_415_and_health_answers_head(client):
    form = {"Content-Type": "application/x-www-form-urlencoded"}  # what `curl -d` sends
    r = client.post("/v1/documents", content=b'{"id": "a", "text": "x"}', headers=form)
    assert r.status_code == 415 and "Content-Type: application/json" in r.json()["error"]
    r = client.post("/v1/check", content=b'{"text": "x"}', headers={"Content-Type": "text/plain"})
    assert r.status_code == 415
    typed = {"Content-Type": "application/json; charset=utf-8"}
    assert client.post("/v1/check", content=b'{"text": "x"}', headers=typed).status_code == 200
    assert client.post("/v1/check", content=b'{"text": "x"}', headers={}).status_code == 200
    assert client.head("/healthz").status_code == 200
    ids = [
        op["operationId"]
        for path in client.get("/openapi.json").json()["paths"].values()
        for op in path.values()
    ]
    assert len(ids) == len(set(ids))  # client generators need each operation named once
    spaced = {"X-API-Key": " sekret "}  # the space around a header value is not part of it
    r = client.post("/v1/documents", json={"id": "s", "text": TEXT}, headers=spaced)
    assert r.status_code == 200


def test_stats_of_a_store_whose_path_is_not_utf8_name_it_escaped(tmp_path):
    import os

    folder = tmp_path / os.fsdecode(b"db\xff")
    folder.mkdir()
    det = Detector(store=open_store(f"sqlite:///{folder}/s.db"))
    client = TestClient(create_app(det, api_key="sekret"), headers={"X-API-Key": "sekret"})
    r = client.get("/v1/stats")
    assert r.status_code == 200
    assert r.json()["store"]["url"] == f"sqlite:///{tmp_path}/db\\xff/s.db"
