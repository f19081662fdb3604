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
from served import serving

# On a GitHub runner sitegen also writes workflow commands and a job summary; the tests'
# deliberately invalid sites must do neither, and tests that want them set these themselves.
for _name in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE"):
    os.environ.pop(_name, None)

# The browser tests drive Debian's Chromium (``make test`` installs it); nothing is downloaded.
CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]


SMALL = Path(__file__).resolve().parent / "fixtures" / "small"
REPO = Path(__file__).resolve().parent.parent


# make test runs `pytest -n 2 --dist loadfile --no-loadscope-reorder`: each module is one unit
# of work for a worker, except the modules of a group in GROUPS, which are one unit together
# (pytest_xdist_make_scheduler below), so that a session fixture they share is made once; the
# units are handed out in the order the tests are collected, to whichever worker is free first.
# The slowest modules come first, so that no long one
# starts near the end while the other worker has nothing left to do: heaviest first, by their
# measured times on two cores (only the order counts); the rest after them as collected.
SLOWEST_FIRST = [
    "test_browser_quality.py", "test_browser.py", "test_fuzz.py", "test_kept_pages.py", "test_views_columns.py",
    "test_output_safety.py", "test_site_reproducible.py", "test_resume.py", "test_search_kept.py",
    "test_incremental.py", "test_placement.py", "test_serve.py", "test_placement_kernel.py", "test_memo_keys.py",
    "test_browser_player.py", "test_provenance.py", "test_ledger.py", "test_browser_search.py",
    "test_strict_progress.py", "test_kernels_elo.py", "test_browser_predict.py", "test_hostile.py",
    "test_history.py", "test_safety.py", "test_cli.py", "test_bench.py", "test_content_kept.py", "test_tune.py",
    "test_scale.py", "test_toml_fast.py", "test_events.py", "test_fivethirtyeight.py", "test_career.py",
    "test_matchcolumns.py", "test_standing_page.py", "test_kernels_glicko2.py", "test_real_leagues.py",
    "test_search_feeds.py", "test_check_fast.py", "test_lunaro.py", "test_browser_opponents.py", "test_pools.py",
]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(SLOWEST_FIRST)}
    # A stable sort: each module's tests stay together and in their own order.
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


# Modules that read one build of the demo (``demo_site``) or of the small fixture (``small_site``),
# or the demo's check and rating (``checked``, ``rated``: some 10 s of a worker's time, twice that
# under load): on the same worker, they are made once. A group's place in SLOWEST_FIRST is its first module's.
GROUPS = {"test_browser.py": "demo-site", "test_accuracy.py": "demo-site",
          "test_browser_quality.py": "small-site", "test_browser_board.py": "small-site",
          **dict.fromkeys(["test_views_columns.py", "test_ledger_table.py", "test_views_lazy.py",
                           "test_honest_ranks.py", "test_scores_kept.py"], "demo-checked")}


@pytest.hookimpl(optionalhook=True)     # pytest without xdist (-p no:xdist) knows no such hook
def pytest_xdist_make_scheduler(config, log):
    """With ``--dist loadfile``: xdist's scheduling by module, the modules of a group in GROUPS
    being one unit. (xdist_group marks cannot do it here: pytest 9 no longer lets xdist rename
    a test's node id, which is how ``--dist loadgroup`` groups them.)"""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class GroupedFiles(LoadFileScheduling):
        def _split_scope(self, nodeid: str) -> str:
            module = super()._split_scope(nodeid)
            return GROUPS.get(module.rsplit("/", 1)[-1], module)

    return GroupedFiles(config, log)


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """A copy of the small fixture site (every system), without any build cache it holds;
    a module's own ``site`` fixture takes its place there."""
    from sitegen.load.cache import FOLDER
    root = tmp_path / "site"
    shutil.copytree(SMALL, root, ignore=shutil.ignore_patterns(FOLDER))
    return root


@pytest.fixture(scope="session")
def demo_site(tmp_path_factory):
    """The repository's demo (``matches/`` at its root) built once a session and served on
    127.0.0.1 by a thread of this process: yields (its folder, the URL it is served at, ending
    in "/"). It knows that address, as a project site does (the 404 page links from there).
    The browser tests and the accuracy files' tests read the same build (one group of work
    for the workers, DEMO_GROUP below)."""
    from sitegen.commands.build import build

    if not (REPO / "matches").is_dir():
        pytest.skip("the repository has no demo matches/ folder")
    base = tmp_path_factory.mktemp("demo-served")
    with serving(base, name="demo-server") as root:
        url = root + "demo/"
        build(REPO, base / "demo", base_url=url)
        yield base / "demo", url


@pytest.fixture(scope="session")
def small_site(tmp_path_factory):
    """The fixture site (tests/fixtures/small) built once a session as it is (no base URL) and
    served at the root of a port of its own: yields (its folder, its URL, ending in "/"). For
    the browser tests that only read it (one group of work for the workers, GROUPS above)."""
    from sitegen.commands.build import build

    out = tmp_path_factory.mktemp("small-served") / "small"
    build(SMALL, out)
    with serving(out, name="small-server") as url:
        yield out, url


@pytest.fixture(scope="session")
def checked():
    """``checked(root)``: ``check(root, cache=False)`` once a session (a worker's) for each root,
    the same Site for every module that asks (the demo takes seconds a check). What a check
    gives is frozen: a league, its config and its matches cannot be changed by a test."""
    from sitegen.commands.build import check
    done: dict[Path, object] = {}

    def _checked(root: Path):
        root = Path(root).resolve()
        if root not in done:
            done[root] = check(root, cache=False)
        return done[root]

    return _checked


@pytest.fixture(scope="session")
def rated(checked):
    """``rated(root)``: the site ``checked(root)`` and its leagues rated, once a session for each
    root; each call gives the leagues with caches of their own, empty, as a fresh rating leaves
    them (a view fills its league's cache)."""
    from dataclasses import replace

    from sitegen.commands.build import rate
    done: dict[Path, list] = {}

    def _rated(root: Path):
        site = checked(root)
        root = Path(root).resolve()
        if root not in done:
            done[root] = rate(site)
        return site, [replace(league, cache={}) for league in done[root]]

    return _rated


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
