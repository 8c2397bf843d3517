"""The HTTP check-and-insert service: ``create_app(detector)`` returns a FastAPI application.

Write endpoints (POST/DELETE) need the API key when one is configured (header ``X-API-Key`` or
``Authorization: Bearer <key>``). Every error is a JSON body ``{"error": ..., "detail": ...}``
with a 4xx status; unexpected failures are 500 with a generic message (and logged).
"""

from __future__ import annotations

import hmac
import logging
from typing import Any

from fastapi import Depends, FastAPI, Header, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import __version__
from ..errors import NeardupError
from ..online import AddResult, Detector, DocumentConflictError
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
DEFAULT_MAX_BODY = 1 << 20


class ApiError(Exception):
    def __init__(self, status: int, error: str):
        self.status, self.error = status, error


def _error(status: int, error: str, detail: Any = None) -> JSONResponse:
    body: dict[str, Any] = {"error": error}
    if detail is not None:
        body["detail"] = detail
    return JSONResponse(body, status_code=status)


def _result(doc_id: str, r: AddResult) -> dict[str, Any]:
    return {
        "id": doc_id,
        "duplicate": r.duplicate,
        "matches": [m.__dict__ for m in r.matches],
        "inserted": r.inserted,
        "status": r.status,
    }


def create_app(
    detector: Detector, *, api_key: str | None = None, max_body_bytes: int = DEFAULT_MAX_BODY
) -> FastAPI:
    """The application over ``detector`` (its store is the durable state)."""
    app = FastAPI(
        title="neardup",
        version=__version__,
        description="Near-duplicate check-and-insert service.",
        responses={
            400: {"model": ErrorOut},
            401: {"model": ErrorOut},
            404: {"model": ErrorOut},
            409: {"model": ErrorOut},
            413: {"model": ErrorOut},
            422: {"model": ErrorOut},
        },
    )
    app.state.detector = detector

    def require_key(
        x_api_key: str | None = Header(default=None),
        authorization: str | None = Header(default=None),
    ) -> None:
        if api_key is None:
            return
        given = x_api_key or None
        if given is None and authorization and authorization.lower().startswith("bearer "):
            given = authorization[7:].strip()
        if given is None or not hmac.compare_digest(given.encode(), api_key.encode()):
            raise ApiError(
                401, "missing or wrong API key (send X-API-Key or Authorization: Bearer)"
            )

    @app.middleware("http")
    async def limit_body(request: Request, call_next):
        length = request.headers.get("content-length")
        if length is not None:
            if not length.isdigit():
                return _error(400, "invalid Content-Length header")
            if int(length) > max_body_bytes:
                return _error(
                    413,
                    f"request body of {length} bytes is over the limit of {max_body_bytes} bytes",
                )
        elif request.method in ("POST", "PUT", "PATCH"):
            body = await request.body()  # chunked upload: measure what arrived
            if len(body) > max_body_bytes:
                return _error(413, f"request body is over the limit of {max_body_bytes} bytes")
        return await call_next(request)

    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, exc: ApiError):
        return _error(exc.status, exc.error)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError):
        errors = exc.errors()
        if any(e.get("type") == "json_invalid" for e in errors):
            return _error(400, "the request body is not valid JSON")
        detail = [
            {
                "field": ".".join(str(p) for p in e.get("loc", ()) if p != "body"),
                "problem": e.get("msg", ""),
            }
            for e in errors
        ]
        summary = "; ".join(f"{d['field'] or 'body'}: {d['problem']}" for d in detail)
        return _error(422, f"invalid request: {summary}", detail)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_request: Request, exc: StarletteHTTPException):
        return _error(exc.status_code, str(exc.detail))

    @app.exception_handler(DocumentConflictError)
    async def _conflict(_request: Request, exc: DocumentConflictError):
        return _error(409, str(exc))

    @app.exception_handler(NeardupError)
    async def _neardup(_request: Request, exc: NeardupError):
        return _error(400, str(exc))

    @app.exception_handler(Exception)
    async def _unexpected(_request: Request, exc: Exception):
        log.exception("unexpected error", exc_info=exc)
        return _error(500, "internal error; see the server log")

    @app.get("/healthz")
    def healthz() -> dict[str, Any]:
        return {"status": "ok", "documents": len(detector)}

    # The detector serialises check + insert under one lock and its work is short (well under a
    # millisecond plus the commit), so the hot endpoints run on the event loop rather than hopping
    # to a thread pool.
    @app.post("/v1/documents", response_model=DocumentResult, dependencies=[Depends(require_key)])
    async def add_document(doc: DocumentIn, replace: bool = Query(False)) -> dict[str, Any]:
        """Check a document and insert it (idempotent by id); answered after the commit."""
        return _result(doc.id, detector.add(doc.id, doc.text, replace=replace))

    @app.post("/v1/documents/batch", response_model=BatchOut, dependencies=[Depends(require_key)])
    async def add_batch(batch: BatchIn, replace: bool = Query(False)) -> dict[str, Any]:
        """Check and insert many documents in one transaction, in order."""
        results = detector.add_many([(d.id, d.text) for d in batch.documents], replace=replace)
        pairs = zip(batch.documents, results, strict=True)
        return {"results": [_result(d.id, r) for d, r in pairs]}

    @app.post("/v1/check", response_model=CheckOut)
    async def check(doc: CheckIn) -> dict[str, Any]:
        """Same answer as POST /v1/documents, without inserting."""
        r = detector.check(doc.text)
        matches = [m.__dict__ for m in r.matches if m.id != doc.id]
        return {"duplicate": bool(matches), "matches": matches}

    @app.get("/v1/documents/{doc_id}", response_model=StoredOut)
    def get_document(doc_id: str) -> StoredOut:
        stored = detector.get(doc_id)
        if stored is None:
            raise ApiError(404, f"no document with id {doc_id!r}")
        return StoredOut(
            id=stored.id,
            fingerprint=f"{stored.fingerprint:016x}",
            length=stored.length,
            duplicate_of=stored.duplicate_of,
            added_at=stored.added_at,
        )

    @app.delete("/v1/documents/{doc_id}", dependencies=[Depends(require_key)])
    def delete_document(doc_id: str) -> dict[str, Any]:
        if not detector.remove(doc_id):
            raise ApiError(404, f"no document with id {doc_id!r}")
        return {"id": doc_id, "deleted": True}

    @app.get("/v1/stats")
    def stats() -> dict[str, Any]:
        return detector.stats()

    return app
