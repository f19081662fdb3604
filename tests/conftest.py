"""Shared fixtures. ``make_site(files)`` writes ``{relative path: text}`` (text as
UTF-8, bytes as they are) into a fresh folder under tmp_path and returns its root,
MkDocs-style::

    root = make_site({
        "matches/duel/league.toml": 'name = "Duel"\\nsystem = "lunaro"\\n',
        "matches/duel/2024.toml": MATCHES,
    })
"""

from __future__ import annotations

import itertools
import os
import shutil
from pathlib import Path

import pytest

from helpers import write_files

# On a GitHub runner sitegen also writes workflow commands and a job summary; the tests'
# deliberately invalid sites must do neither, and tests that want them set these themselves.
for _name in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE"):
    os.environ.pop(_name, None)

# The browser tests drive Debian's Chromium (``make test`` installs it); nothing is downloaded.
CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]


SMALL = Path(__file__).resolve().parent / "fixtures" / "small"


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """A copy of the small fixture site (every system), without any build cache it holds;
    a module's own ``site`` fixture takes its place there."""
    from sitegen.load.cache import FOLDER
    root = tmp_path / "site"
    shutil.copytree(SMALL, root, ignore=shutil.ignore_patterns(FOLDER))
    return root


@pytest.fixture
def here(monkeypatch) -> None:
    """The background jobs run in this process, where what they do can be counted."""
    from sitegen.output import parallel
    monkeypatch.setattr(parallel, "cores", lambda: 1)


# Per module, not per session: Playwright's sync API keeps an event loop running in this
# thread, and a module's own site is built before it starts.
@pytest.fixture(scope="module")
def browser():
    """Headless Chromium through Playwright, launched once for each browser test module."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} not found: install Debian's chromium (`make test` does) to run the browser tests")
    with sync_api.sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        yield chromium
        chromium.close()


@pytest.fixture
def make_site(tmp_path: Path):
    """A helper writing a small site into tmp_path; returns the site's root."""
    counter = itertools.count(1)

    def _make(files: dict[str, str | bytes], name: str | None = None) -> Path:
        root = tmp_path / (name or f"site{next(counter)}")
        root.mkdir(parents=True)
        return write_files(root, files)

    return _make


@pytest.fixture(params=["off", "on"], scope="module")
def kernel_mode(request: pytest.FixtureRequest):
    """The rating kernels plain, then compiled (numba is a dependency: "on" must really compile).

    Module-scoped: the same for every example hypothesis runs in a test."""
    from sitegen.rating import arrays
    if request.param == "on":
        assert arrays.compiler() is not None
    saved = arrays.MODE
    arrays.MODE = request.param
    yield request.param
    arrays.MODE = saved
