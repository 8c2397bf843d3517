"""The outermost layer of the service, in front of every route (plain ASGI).

In this order, before the application sees a byte of the body:

1. a request id: the client's ``X-Request-ID`` when it is short and plain, else a new one; echoed
   in the response and in the log;
2. the API key, for write routes (so an unauthenticated client cannot make the server read a
   large body);
3. the body limit, enforced while reading for every transfer encoding (``Content-Length`` or
   chunked): at most ``max_body_bytes`` are ever buffered, a larger body is a 413;
4. a POST body declared as something other than JSON is a 415; one without a declared type is
   read as JSON;
5. after the response: metrics, and one JSON access-log line when asked.

Every response with status 5xx carries ``Connection: close``: the server drops the connection, so
a client never reuses one after a failure it cannot see into.
"""

from __future__ import annotations

import hmac
import json
import re
import sys
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

from .metrics import Metrics

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
WRITE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
OPEN_WRITE_PATHS = frozenset({"/v1/check"})  # POST, but only reads


class Guard:
    """Wraps the application ``app`` (see the module docstring)."""

    def __init__(
        self,
        app: Any,
        *,
        api_key: str | None,
        max_body_bytes: int,
        metrics: Metrics,
        access_log: bool = False,
    ):
        self.app, self.api_key, self.max_body = app, api_key, max_body_bytes
        self.metrics, self.access_log = metrics, access_log

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = request_headers(scope)
        request_id = headers.get("x-request-id", "")
        if not _REQUEST_ID.fullmatch(request_id):
            request_id = uuid.uuid4().hex
        scope.setdefault("state", {})["request_id"] = request_id
        seen: dict[str, Any] = {"status": 500}
        started = time.perf_counter()

        async def send_with_id(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                seen["status"] = message["status"]
                extra = [(b"x-request-id", request_id.encode())]
                if message["status"] >= 500:
                    extra.append((b"connection", b"close"))
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        try:
            refusal = self._refusal(scope, headers)
            if refusal is not None:
                await _json(send_with_id, *refusal)
                return
            if scope["method"] == "POST" and "content-type" not in headers:  # read as JSON
                scope["headers"] = [*scope["headers"], (b"content-type", b"application/json")]
            body = await self._read_body(scope, headers, receive)
            if isinstance(body, tuple):
                await _json(send_with_id, *body)
                return
            await self.app(scope, _replay(body, receive), send_with_id)
        finally:
            elapsed = time.perf_counter() - started
            route = _route(scope)
            self.metrics.observe(scope["method"], route, seen["status"], elapsed)
            if self.access_log:
                _log(scope, route, seen["status"], elapsed, request_id)

    def authorized(self, headers: dict[str, str]) -> bool:
        """The request carries the configured key (always true when none is configured)."""
        if self.api_key is None:
            return True
        given = headers.get("x-api-key", "").strip()  # a header's surrounding space is not in it
        auth = headers.get("authorization", "")
        if not given and auth.lower().startswith("bearer "):
            given = auth[7:].strip()
        return bool(given) and hmac.compare_digest(
            given.encode("utf-8", "surrogateescape"), self.api_key.encode()
        )

    def _refusal(self, scope: Scope, headers: dict[str, str]) -> tuple[int, str] | None:
        method, path = scope["method"], scope["path"]
        if (
            method in WRITE_METHODS
            and path not in OPEN_WRITE_PATHS
            and not self.authorized(headers)
        ):
            return 401, "missing or wrong API key (send X-API-Key or Authorization: Bearer)"
        if method == "POST" and not _json_body(headers):
            return (
                415,
                f"send the body as JSON with Content-Type: application/json (got "
                f"{headers['content-type']!r})",
            )
        length = headers.get("content-length")
        if length is not None:
            if not length.isdigit():
                return 400, "invalid Content-Length header"
            if int(length) > self.max_body:
                return (
                    413,
                    f"request body of {length} bytes is over the limit of {self.max_body} bytes",
                )
        return None

    async def _read_body(
        self, scope: Scope, headers: dict[str, str], receive: Receive
    ) -> bytes | tuple[int, str]:
        """The whole body, or (413, message) as soon as it grows past the limit."""
        if scope["method"] not in WRITE_METHODS:
            return b""
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return 400, "the client disconnected before the body was complete"
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                return 413, f"request body is over the limit of {self.max_body} bytes"
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)


def _json_body(headers: dict[str, str]) -> bool:
    """The request declares a JSON body, or no type at all (then it is parsed as JSON)."""
    declared = headers.get("content-type")
    if declared is None:
        return True
    media = declared.split(";", 1)[0].strip().lower()
    return media == "application/json" or media.endswith("+json")


def request_headers(scope: Scope) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}


def _replay(body: bytes, receive: Receive) -> Receive:
    """A receive that hands the buffered body over once, then waits for the client as before."""
    sent = False

    async def replay() -> dict[str, Any]:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


async def _json(send: Send, status: int, error: str) -> None:
    body = json.dumps({"error": error}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),  # the rest of the body is not read
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _route(scope: Scope) -> str:
    """The route template (``/v1/documents/{doc_id}``), never the raw path: bounded labels."""
    route = scope.get("route")
    return getattr(route, "path", None) or "unmatched"


def _log(scope: Scope, route: str, status: int, elapsed: float, request_id: str) -> None:
    client = scope.get("client") or ("", 0)
    line = {
        "time": round(time.time(), 3),
        "request_id": request_id,
        "method": scope["method"],
        "route": route,
        "status": status,
        "duration_ms": round(elapsed * 1000, 3),
        "client": client[0],
    }
    sys.stderr.write(json.dumps(line) + "\n")
