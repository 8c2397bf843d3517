"""``neardup serve``: the HTTP check-and-insert service."""

from __future__ import annotations

import argparse
import gc
import os
import sys

from ..errors import require
from .detector_options import add_detector_options, open_detector


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "serve",
        help="run the HTTP check-and-insert service",
        description="Serve the versioned JSON API (/v1/documents, /v1/check, ...; "
        "OpenAPI docs at /docs) over a durable store.",
    )
    add_detector_options(p)
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument(
        "--api-key",
        default=os.environ.get("NEARDUP_API_KEY"),
        help="require this key for write endpoints (default: $NEARDUP_API_KEY)",
    )
    p.add_argument(
        "--max-body-bytes",
        type=int,
        default=1 << 20,
        help="largest request body accepted (default 1 MiB)",
    )
    p.add_argument("--log-level", default="warning", help="uvicorn log level (default warning)")
    p.set_defaults(func=run)


def warm_up(app) -> None:
    """Run each request path once (loads compiled kernels and lazy imports) without side effects."""
    from fastapi.testclient import TestClient

    with TestClient(app) as client:
        client.post("/v1/check", json={"text": "warm up 预热 text for the kernels"})
        client.get("/v1/stats")


def run(args: argparse.Namespace) -> int:
    require("fastapi", extra="service", purpose="neardup serve")
    uvicorn = require("uvicorn", extra="service", purpose="neardup serve")
    from ..service import create_app

    detector = open_detector(args)
    app = create_app(detector, api_key=args.api_key, max_body_bytes=args.max_body_bytes)
    warm_up(app)
    # Everything loaded so far (libraries, compiled kernels, the index) lives as long as the
    # process: freeze it out of the cyclic collector, whose full passes over ~10^6 objects
    # otherwise stall every request in flight for ~80 ms.
    gc.collect()
    gc.freeze()
    print(
        f"neardup: serving {len(detector)} documents from {detector.store.url} on "
        f"http://{args.host}:{args.port}",
        file=sys.stderr,
        flush=True,
    )
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level)
    return 0
