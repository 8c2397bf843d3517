"""HTTP edge: the check-and-insert service (needs ``pip install 'neardup[service]'``)."""

from __future__ import annotations

from ..errors import require


def create_app(*args, **kwargs):
    """Build the FastAPI application (see :func:`neardup.service.app.create_app`)."""
    require("fastapi", extra="service", purpose="the HTTP service")
    from .app import create_app as _create

    return _create(*args, **kwargs)


__all__ = ["create_app"]
