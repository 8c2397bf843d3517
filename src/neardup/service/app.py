"""The HTTP check-and-insert service: ``create_app(detector)`` returns an ASGI application.

Write endpoints (POST/DELETE, except POST /v1/check) need the API key when one is configured
(header ``X-API-Key`` or ``Authorization: Bearer <key>``); :mod:`.guard` checks it, and the body
limit, before the body is read. Every error is a JSON body ``{"error": ..., "detail": ...}``:
4xx for the client's mistakes, 503 with ``Retry-After`` when the store is busy or unreachable,
507 when it is full, 500 for a bug (logged with the request id). Error bodies never carry SQL or
file paths; the log does. Storage work runs in the detector's committer thread or a worker thread, never on the event
loop.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any
from urllib.parse import unquote_to_bytes

import orjson
from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.concurrency import run_in_threadpool
from starlette.convertors import Convertor, register_url_convertor
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import __version__
from ..errors import (
    DocumentConflictError,
    InputError,
    NeardupError,
    RequestError,
    StoreBusyError,
    StoreError,
    StoreFullError,
)
from ..online import AddResult, Detector
from ..store.url import backend, redact
from .guard import Guard, request_headers
from .metrics import CONTENT_TYPE, Metrics
from .schemas import (
    BatchIn,
    BatchOut,
    CheckIn,
    CheckOut,
    DocumentIn,
    DocumentResult,
    ErrorOut,
    StoredOut,
)

log = logging.getLogger("neardup.service")


class _WholeId(Convertor[str]):
    """A document id in a path, every character of it: Starlette's ``path`` stops at a line
    break, and its pattern's ``$`` also matches before a final one, so ``victim%0A`` would
    address the document ``victim``."""

    regex = "(?s:.*)"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("doc_id", _WholeId())


def _check_path_id(doc_id: str, request: Request) -> None:
    """Refuse an id whose percent-encoded bytes are not UTF-8: the server decodes them with
    U+FFFD in their place, so ``%FF%FE`` would address the document ``"\ufffd\ufffd"``."""
    if "\ufffd" not in doc_id:
        return
    raw = request.scope.get("raw_path") or b""
    try:
        unquote_to_bytes(raw).decode("utf-8")
    except UnicodeDecodeError:
        raise RequestError(400, "the document id in the path is not valid UTF-8") from None


DEFAULT_MAX_BODY = 1 << 20
RETRY_AFTER_SECONDS = 1


def _problem(error: dict) -> str:
    """A validation error's message in the API's words: pydantic's ``Value error, `` prefix off
    (a model's own check: "text is empty"), and a body that is not a JSON object said so."""
    if error.get("type") in ("model_attributes_type", "dict_type", "model_type"):
        return "expected a JSON object"
    message = str(error.get("msg", ""))
    return message.removeprefix("Value error, ")


def _error(status: int, error: str, detail: Any = None, headers: dict | None = None):
    body: dict[str, Any] = {"error": error}
    if detail is not None:
        body["detail"] = detail
    return JSONResponse(body, status_code=status, headers=headers)


def _json(body: dict[str, Any]) -> Response:
    return Response(orjson.dumps(body), media_type="application/json")


def _result(doc_id: str, r: AddResult) -> dict[str, Any]:
    return {
        "id": doc_id,
        "duplicate": r.duplicate,
        "matches": [m.__dict__ for m in r.matches],
        "inserted": r.inserted,
        "status": r.status,
    }


def create_app(
    detector: Detector,
    *,
    api_key: str | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY,
    access_log: bool = False,
) -> Guard:
    """The application over ``detector`` (its store is the durable state), behind the guard."""
    app = FastAPI(
        title="neardup",
        version=__version__,
        description="Near-duplicate check-and-insert service.",
        responses={
            code: {"model": ErrorOut} for code in (400, 401, 404, 409, 413, 415, 422, 503, 507)
        },
    )
    metrics = Metrics(lambda: len(detector))
    guard = Guard(
        app,
        api_key=api_key,
        max_body_bytes=max_body_bytes,
        metrics=metrics,
        access_log=access_log,
    )
    app.state.detector = detector
    _add_error_handlers(app, metrics)
    _add_routes(app, detector, guard, metrics)
    return guard


def _unreadable_body(cause: BaseException | None) -> str | None:
    """What made a body unreadable, where FastAPI says only "There was an error parsing the
    body" (it raises that from the decoder's own error)."""
    if isinstance(cause, UnicodeDecodeError):
        return (
            f"the request body is not UTF-8 (byte {cause.object[cause.start]:#04x} at offset "
            f"{cause.start}); send JSON encoded as UTF-8"
        )
    if isinstance(cause, RecursionError):
        return "the request body nests arrays or objects too deeply to be read"
    return None


def _add_error_handlers(app: FastAPI, metrics: Metrics) -> None:
    @app.exception_handler(RequestError)
    async def _api_error(_request: Request, exc: RequestError):
        return _error(exc.status, exc.error)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError):
        errors = exc.errors()
        if any(e.get("type") == "json_invalid" for e in errors):
            return _error(400, "the request body is not valid JSON")
        detail = [
            {
                "field": ".".join(str(p) for p in e.get("loc", ()) if p != "body"),
                "problem": _problem(e),
            }
            for e in errors
        ]
        summary = "; ".join(f"{d['field'] or 'body'}: {d['problem']}" for d in detail)
        return _error(422, f"invalid request: {summary}", detail)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_request: Request, exc: StarletteHTTPException):
        unreadable = _unreadable_body(exc.__cause__) if exc.status_code == 400 else None
        return _error(exc.status_code, unreadable or str(exc.detail))

    @app.exception_handler(DocumentConflictError)
    async def _conflict(_request: Request, exc: DocumentConflictError):
        return _error(409, str(exc))

    @app.exception_handler(StoreError)
    async def _storage(request: Request, exc: StoreError):
        kind = "full" if isinstance(exc, StoreFullError) else "busy"
        kind = kind if isinstance(exc, (StoreFullError, StoreBusyError)) else "error"
        metrics.storage_errors.labels(kind).inc()
        log.error("storage %s [request %s]: %s", kind, _request_id(request), exc)
        if kind == "full":
            return _error(507, "the store is full; free space, then retry")
        return _error(
            503,
            "the store is busy or unavailable; retry later",
            headers={"Retry-After": str(RETRY_AFTER_SECONDS)},
        )

    @app.exception_handler(InputError)
    async def _bad_document(_request: Request, exc: InputError):
        return _error(422, f"invalid request: {exc}")

    @app.exception_handler(NeardupError)
    async def _neardup(_request: Request, exc: NeardupError):
        return _error(400, str(exc))

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception):
        log.exception("unexpected error [request %s]", _request_id(request), exc_info=exc)
        return _error(500, f"internal error; see the server log (request {_request_id(request)})")


def _request_id(request: Request) -> str:
    return request.scope.get("state", {}).get("request_id", "-")


def _add_routes(app: FastAPI, detector: Detector, guard: Guard, metrics: Metrics) -> None:
    _add_service_routes(app, detector, guard, metrics)
    _add_write_routes(app, detector, metrics)
    _add_read_routes(app, detector)


async def _in_thread(function, *args, **kwargs):
    """Detector work (index + store) in a worker thread: the event loop never waits on it.
    Writes need none: they are queued to the detector's committer thread and awaited."""
    return await run_in_threadpool(function, *args, **kwargs)


def _add_service_routes(app: FastAPI, detector: Detector, guard: Guard, metrics: Metrics) -> None:
    """Health, Prometheus metrics and statistics."""

    @app.get("/healthz")
    def healthz() -> dict[str, Any]:
        return {"status": "ok", "documents": len(detector)}

    # HEAD for load balancers; out of the schema, where it repeated GET's operation id
    app.head("/healthz", include_in_schema=False)(healthz)

    @app.get("/metrics", include_in_schema=False)
    def prometheus() -> Response:
        return Response(metrics.exposition(), media_type=CONTENT_TYPE)

    @app.get("/v1/stats")
    async def stats(request: Request) -> dict[str, Any]:
        """Counts and parameters; the store's location only to a client with the key."""
        out = await _in_thread(detector.stats)
        url = out.pop("store")
        out["store"] = {"backend": backend(url)}
        if guard.api_key is not None and guard.authorized(request_headers(request.scope)):
            out["store"]["url"] = redact(url)
        return out


def _add_write_routes(app: FastAPI, detector: Detector, metrics: Metrics) -> None:
    """Check-and-insert, one document or a batch."""

    # the write routes build their bodies from the detector's own results (the response model
    # documents them): returned as JSON directly, not validated a second time per request
    @app.post("/v1/documents", response_model=DocumentResult)
    async def add_document(doc: DocumentIn, replace: bool = Query(False)) -> Response:
        """Check a document and insert it (idempotent by id); answered after the commit."""
        future = detector.add_many_future([(doc.id, doc.text)], replace=replace)
        [result] = await asyncio.wrap_future(future)
        metrics.duplicates.inc(int(result.found_duplicate))
        return _json(_result(doc.id, result))

    @app.post("/v1/documents/batch", response_model=BatchOut)
    async def add_batch(batch: BatchIn, replace: bool = Query(False)) -> Response:
        """Check and insert many documents in one transaction, in order (each id once)."""
        items = [(d.id, d.text) for d in batch.documents]
        try:
            results = await asyncio.wrap_future(detector.add_many_future(items, replace=replace))
        except DocumentConflictError as exc:  # one transaction: say that none was stored
            at = next((k for k, d in enumerate(batch.documents) if d.id == exc.doc_id), None)
            where = f"documents[{at}]: " if at is not None else ""
            raise DocumentConflictError(
                f"{where}{exc}; none of the batch's {len(items)} documents was stored (a batch "
                "is one transaction)",
                doc_id=exc.doc_id,
            ) from None
        metrics.duplicates.inc(sum(r.found_duplicate for r in results))
        pairs = zip(batch.documents, results, strict=True)
        return _json({"results": [_result(d.id, r) for d, r in pairs]})


def _add_read_routes(app: FastAPI, detector: Detector) -> None:
    """Check without inserting, read and delete a stored document."""

    @app.post("/v1/check", response_model=CheckOut)
    async def check(doc: CheckIn) -> dict[str, Any]:
        """Same answer as POST /v1/documents, without inserting."""
        r = await _in_thread(detector.check, doc.text)
        matches = [m.__dict__ for m in r.matches if m.id != doc.id]
        return {"duplicate": bool(matches), "matches": matches}

    # an id may contain "/" (percent-encode it as %2F or send it as is) and any other character
    @app.get("/v1/documents/{doc_id:doc_id}", response_model=StoredOut)
    async def get_document(doc_id: str, request: Request) -> StoredOut:
        _check_path_id(doc_id, request)
        stored = await _in_thread(detector.get, doc_id)
        if stored is None:
            raise RequestError(404, f"no document with id {doc_id!r}")
        return StoredOut(
            id=stored.id,
            fingerprint=f"{stored.fingerprint:016x}",
            length=stored.length,
            duplicate_of=stored.duplicate_of,
            added_at=stored.added_at,
        )

    @app.delete("/v1/documents/{doc_id:doc_id}")
    async def delete_document(doc_id: str, request: Request) -> dict[str, Any]:
        _check_path_id(doc_id, request)
        if not await _in_thread(detector.remove, doc_id):
            raise RequestError(404, f"no document with id {doc_id!r}")
        return {"id": doc_id, "deleted": True}
