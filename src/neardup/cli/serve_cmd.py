"""``neardup serve``: the HTTP check-and-insert service."""

from __future__ import annotations

import argparse
import gc
import ipaddress
import os
import socket
import sys
import warnings
from pathlib import Path

from ..errors import ConfigError, require
from ..store.url import redact
from .detector_options import add_detector_options, open_detector, warn_writer


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "serve",
        help="run the HTTP check-and-insert service",
        description="Serve the versioned JSON API (/v1/documents, /v1/check, ...; "
        "OpenAPI docs at /docs) over a durable store.",
    )
    add_detector_options(p)
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=_port, default=8000, help="port (default 8000)")
    p.add_argument(
        "--api-key-file",
        help="require the key in this file (first line) for write endpoints; or set "
        "$NEARDUP_API_KEY (a key on the command line would show in `ps`)",
    )
    p.add_argument("--api-key", help=argparse.SUPPRESS)  # refused with a pointer to the above
    p.add_argument(
        "--max-body-bytes",
        type=_positive,
        default=1 << 20,
        help="largest request body accepted (default 1 MiB)",
    )
    p.add_argument(
        "--log-level",
        default="warning",
        type=str.lower,
        choices=("critical", "error", "warning", "info", "debug", "trace"),
        help="the server's log level (default warning)",
    )
    p.add_argument(
        "--access-log",
        choices=("none", "json"),
        default="none",
        help="one JSON line per request on stderr (request id, route, status, duration)",
    )
    p.set_defaults(func=run)


def _port(value: str) -> int:
    """A TCP port, 1..65535 (the operating system would wrap larger numbers)."""
    port = _integer(value)
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{value} is not a port: give 1 to 65535")
    return port


def _positive(value: str) -> int:
    number = _integer(value)
    if number < 1:
        raise argparse.ArgumentTypeError(f"{value} must be at least 1")
    return number


def _integer(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number") from None


def listening_socket(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port``, made before the store is opened: an address in use or
    one this machine does not have is refused with the reason, and nothing is created."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except (socket.gaierror, UnicodeError) as exc:
        raise ConfigError(f"--host {host}: not an address to listen on ({exc})") from None
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        raise ConfigError(
            f"cannot listen on {host}:{port} ({exc.strerror or exc}); choose another --port "
            "or --host, or stop what uses it"
        ) from None
    return sock


def warm_up(app) -> None:
    """Run each request path once (loads compiled kernels and lazy imports) without side effects."""
    with warnings.catch_warnings():  # starlette's note on its test client's HTTP library
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient

    app.app.state.detector.warm_up()

    with TestClient(app.app) as client:  # past the guard: no metrics, no access log
        client.post("/v1/check", json={"text": "warm up 预热 text for the kernels"})
        client.get("/v1/stats")


def api_key(args: argparse.Namespace) -> str | None:
    """The key from --api-key-file or $NEARDUP_API_KEY; printable ASCII only (HTTP headers)."""
    if args.api_key is not None:
        raise ConfigError(
            "--api-key would show the key in `ps`; put it in a file for --api-key-file, or in "
            "the environment variable NEARDUP_API_KEY"
        )
    key, source = os.environ.get("NEARDUP_API_KEY"), "$NEARDUP_API_KEY"
    if args.api_key_file:
        source = args.api_key_file
        try:
            lines = Path(args.api_key_file).read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(
                f"--api-key-file {args.api_key_file}: cannot read it ({exc})"
            ) from None
        key = lines[0].strip() if lines else ""
    if key is None:
        return None
    if not key or not all(33 <= ord(c) < 127 for c in key):
        raise ConfigError(
            f"the API key in {source} must be non-empty printable ASCII without spaces "
            "(clients send it in an HTTP header, which cannot carry other characters)"
        )
    return key


def run(args: argparse.Namespace) -> int:
    require("fastapi", extra="service", purpose="neardup serve")
    uvicorn = require("uvicorn", extra="service", purpose="neardup serve")
    from ..service import create_app

    key = api_key(args)
    sock = listening_socket(args.host, args.port)
    if key is None and not _loopback(args.host):
        print(
            f"neardup: warning: serving on {args.host} without an API key: anyone who can "
            "reach it can write and delete; set NEARDUP_API_KEY or --api-key-file",
            file=sys.stderr,
        )
    try:
        detector = open_detector(args)
        warn_writer(detector)
    except BaseException:
        sock.close()
        raise
    app = create_app(
        detector,
        api_key=key,
        max_body_bytes=args.max_body_bytes,
        access_log=args.access_log == "json",
    )
    warm_up(app)
    # Everything loaded so far (libraries, compiled kernels, the index) lives as long as the
    # process: freeze it out of the cyclic collector, whose full passes over ~10^6 objects
    # otherwise stall every request in flight for ~80 ms. Young collections run every 20,000
    # allocations, not 700: a request allocates hundreds of objects, and each collection walks
    # every request in flight (measured: 1,600 collections and 0.4 s in 10 s at 1,000 req/s).
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 10, 10)
    print(
        f"neardup: serving {len(detector)} documents from {redact(detector.store.url)} on "
        f"http://{args.host}:{args.port}",
        file=sys.stderr,
        flush=True,
    )
    config = uvicorn.Config(
        app,
        log_level=args.log_level,
        access_log=False,  # --access-log json is ours (service.guard); uvicorn's stays off
    )
    uvicorn.Server(config).run(sockets=[sock])
    return 0


def _loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"
