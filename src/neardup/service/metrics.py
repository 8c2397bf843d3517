"""Prometheus metrics of one service instance (its own registry: several apps per process work).

``neardup_requests_total{method,route,status}``, ``neardup_request_duration_seconds{route}``
(histogram), ``neardup_documents`` (stored, read at scrape time), ``neardup_duplicates_total``
(duplicates found by inserts, stored or not) and ``neardup_storage_errors_total{kind}`` (busy, full, error).
"""

from __future__ import annotations

from collections.abc import Callable

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

CONTENT_TYPE = CONTENT_TYPE_LATEST
_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class Metrics:
    def __init__(self, documents: Callable[[], int]):
        self.registry = CollectorRegistry()
        self.requests = Counter(
            "neardup_requests",
            "HTTP requests by method, route template and status",
            ("method", "route", "status"),
            registry=self.registry,
        )
        self.latency = Histogram(
            "neardup_request_duration_seconds",
            "Time from the first byte of the request to the end of the response",
            ("route",),
            buckets=_BUCKETS,
            registry=self.registry,
        )
        stored = Gauge("neardup_documents", "Documents in the store", registry=self.registry)
        stored.set_function(documents)
        self.duplicates = Counter(
            "neardup_duplicates",
            "Duplicates found by inserts, stored or not",
            registry=self.registry,
        )
        self.storage_errors = Counter(
            "neardup_storage_errors",
            "Requests that failed in the store, by kind (busy, full, error)",
            ("kind",),
            registry=self.registry,
        )

    def observe(self, method: str, route: str, status: int, seconds: float) -> None:
        self.requests.labels(method, route, str(status)).inc()
        self.latency.labels(route).observe(seconds)

    def exposition(self) -> bytes:
        return generate_latest(self.registry)
