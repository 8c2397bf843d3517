"""Open a local HTML page in a real headless Chromium: its DOM after scripts ran, a screenshot."""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest


@dataclass
class PageLoad:
    dom: str  # the DOM after the page's scripts ran
    log: str  # Chromium's log: console messages appear as ":CONSOLE(" lines
    screenshot: Path


def chromium_or_skip() -> str:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        pytest.skip("chromium is not installed (apt-get install chromium)")
    return chromium


def load_page(page: Path, workdir: Path, *, size: str = "1200,1600") -> PageLoad:
    """Load ``page`` twice (DOM dump, then screenshot) with networking features off."""
    text = page.read_text(encoding="utf-8")
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", text), "the page loads from outside"
    chromium = chromium_or_skip()
    flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={workdir / 'chromium-profile'}",
        "--enable-logging=stderr",
        "--v=0",
    ]
    url = page.as_uri()
    dom = subprocess.run(
        [chromium, *flags, "--dump-dom", url], capture_output=True, text=True, timeout=120
    )
    assert dom.returncode == 0, dom.stderr[-2000:]
    shot = workdir / "page.png"
    subprocess.run(
        [chromium, *flags, f"--window-size={size}", f"--screenshot={shot}", url],
        capture_output=True,
        timeout=120,
        check=True,
    )
    return PageLoad(dom.stdout, dom.stderr, shot)


def console_errors(log: str) -> list[str]:
    return [line for line in log.splitlines() if ":CONSOLE(" in line or "Uncaught" in line]


def distinct_grey_levels(screenshot: Path) -> int:
    """How many grey levels a screenshot has (a blank page has one or two)."""
    import numpy as np
    from PIL import Image

    return len(np.unique(np.asarray(Image.open(screenshot).convert("L"))))
