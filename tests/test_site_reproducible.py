"""Reproducible builds: the same input gives the same bytes, whatever the machine's settings.

Two builds run as separate ``python -m sitegen build`` processes, side by side,
with everything a build must not depend on set differently: time zone, locale,
hash seed, working folder, output folder, the order in which the file system
lists a folder, and (for the fixture) where the site repository sits on disk.
Every file of both trees is compared by SHA-256.

The build date is SOURCE_DATE_EPOCH's, else the committer date of HEAD, never the
clock: builds of a git checkout and of its clone elsewhere, run at different
times, are the same bytes, provenance of every match included.

A build that fails on invalid input must leave the previous output exactly as
it was (docs/curators: "nothing in the old output is touched").
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gitrepo import commit_all, git, init_repo

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "tests" / "fixtures" / "small"
DEMO = REPO / "matches"
TIMEOUT = 300

# Put on PYTHONPATH, it lists every folder in a fixed order: sorted, or sorted backwards.
# At exit it writes which listing functions the build called, so a test can tell it was active.
LISTING = """\
import atexit, json, os, pathlib

_mode = os.environ.get("SITEGEN_TEST_LISTING")
_calls = {}


def _count(name):
    _calls[name] = _calls.get(name, 0) + 1


def _order(items, key=None):
    return sorted(items, key=key, reverse=_mode == "reversed")


class _Listing:
    \"\"\"What os.scandir returns: an iterator that is also a context manager.\"\"\"

    def __init__(self, entries):
        self._it = iter(entries)

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._it)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def close(self):
        pass


if _mode in ("sorted", "reversed"):
    _listdir, _scandir = os.listdir, os.scandir

    def listdir(path="."):
        _count("os.listdir")
        return _order(_listdir(path))

    def scandir(path="."):
        _count("os.scandir")
        with _scandir(path) as it:
            entries = list(it)
        return _Listing(_order(entries, key=lambda e: e.name))

    os.listdir, os.scandir = listdir, scandir

    def _wrap(name):
        original = getattr(pathlib.Path, name)

        def listed(self, *args, **kwargs):
            _count("Path." + name)
            return iter(_order(original(self, *args, **kwargs), key=str))

        setattr(pathlib.Path, name, listed)

    for _name in ("iterdir", "glob", "rglob"):
        _wrap(_name)

    @atexit.register
    def _write_marker():
        with open(os.environ["SITEGEN_TEST_LISTING_MARKER"], "w", encoding="utf-8") as fh:
            json.dump({"mode": _mode, "calls": _calls}, fh)
"""


def _env(**changes: str | None) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    for key, value in changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


# Build A: the machine's defaults (no locale variables at all), UTC, one hash seed.
ENV_A = dict(TZ="UTC", LC_ALL=None, LANG=None, LC_CTYPE=None, PYTHONHASHSEED="0", SOURCE_DATE_EPOCH=None)
# Build B: another time zone (UTC+05:30, no daylight saving), an explicit UTF-8 locale, another seed.
ENV_B = dict(TZ="Asia/Kolkata", LC_ALL="C.UTF-8", LANG="C.UTF-8", PYTHONHASHSEED="2718281", SOURCE_DATE_EPOCH=None)


def _listing_env(folder: Path, mode: str) -> dict[str, str]:
    """Environment for a build whose folder listings come ``mode`` ("sorted" or "reversed")."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sitecustomize.py").write_text(LISTING, encoding="utf-8")
    pythonpath = os.pathsep.join([str(folder), str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])
    return {"PYTHONPATH": pythonpath, "SITEGEN_TEST_LISTING": mode,
            "SITEGEN_TEST_LISTING_MARKER": str(folder / "listing.json")}


def _listing_calls(folder: Path, mode: str) -> dict[str, int]:
    marker = folder / "listing.json"
    assert marker.is_file(), f"the {mode} listing was not active in the build: {marker} was not written"
    recorded = json.loads(marker.read_text(encoding="utf-8"))
    assert recorded["mode"] == mode
    return recorded["calls"]


def _start(root: Path, out: Path, cwd: Path, env: dict[str, str | None]) -> subprocess.Popen:
    cwd.mkdir(parents=True, exist_ok=True)
    return subprocess.Popen([sys.executable, "-m", "sitegen", "build", "--root", str(root), "--out", str(out)],
                            cwd=cwd, env=_env(**env), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def _finish(proc: subprocess.Popen, what: str) -> None:
    try:
        stdout, stderr = proc.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail(f"{what}: the build did not finish in {TIMEOUT} s")
    assert proc.returncode == 0, f"{what}: exit {proc.returncode}\n{stdout}\n{stderr}"


def hashes(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _assert_same_trees(a: Path, b: Path) -> None:
    ha, hb = hashes(a), hashes(b)
    assert ha, f"{a} is empty"
    only_a, only_b = sorted(set(ha) - set(hb)), sorted(set(hb) - set(ha))
    differing = sorted(p for p in set(ha) & set(hb) if ha[p] != hb[p])
    if only_a or only_b or differing:
        pytest.fail("the two builds differ:\n"
                    + "".join(f"  only in build A: {p}\n" for p in only_a)
                    + "".join(f"  only in build B: {p}\n" for p in only_b)
                    + "".join(f"  different bytes: {p}\n" for p in differing), pytrace=False)


def _two_builds(root_a: Path, root_b: Path, tmp_path: Path, **env: str | None) -> tuple[Path, Path]:
    """Build A lists every folder sorted, build B sorted backwards; ``env`` applies to both."""
    out_a, out_b = tmp_path / "a" / "site", tmp_path / "b" / "elsewhere" / "out"
    listing_a, listing_b = tmp_path / "a" / "listing", tmp_path / "b" / "listing"
    procs = [_start(root_a, out_a, REPO, {**ENV_A, **_listing_env(listing_a, "sorted"), **env}),
             _start(root_b, out_b, tmp_path / "b" / "cwd", {**ENV_B, **_listing_env(listing_b, "reversed"), **env})]
    for proc, what in zip(procs, ("build A", "build B")):
        _finish(proc, what)
    for folder, mode in ((listing_a, "sorted"), (listing_b, "reversed")):
        calls = _listing_calls(folder, mode)
        # The match files are found through os.scandir (sitegen/load/files.py), the content
        # pages and sitegen's own files through Path.rglob (load/content.py, load/cache.py).
        assert calls.get("os.scandir", 0) > 0 and calls.get("Path.rglob", 0) > 0, calls
    return out_a, out_b


def _copy_outside_git(source: Path, target: Path) -> Path:
    """A copy of a site where git finds no repository (the fixture itself sits in this one)."""
    shutil.copytree(source, target)
    assert subprocess.run(["git", "-C", str(target), "rev-parse", "--show-toplevel"],
                          capture_output=True).returncode != 0, f"{target} is inside a git repository"
    return target


def _build_line(out: Path) -> str:
    home = (out / "index.html").read_text(encoding="utf-8")
    found = re.search(r'<p class="build-info">(.*?)</p>', home, re.S)
    return " ".join(re.sub(r"<[^>]+>", "", found.group(1)).split()) if found else ""


def test_fixture_builds_are_byte_identical(tmp_path):
    # The two builds read copies of the fixture from two places on disk.
    copy_a = _copy_outside_git(FIXTURE, tmp_path / "copy-a" / "small")
    copy_b = _copy_outside_git(FIXTURE, tmp_path / "copy" / "some where" / "small")
    out_a, out_b = _two_builds(copy_a, copy_b, tmp_path)
    _assert_same_trees(out_a, out_b)
    assert _build_line(out_a) == ""       # no SOURCE_DATE_EPOCH, no commit: no build date, never the clock


def test_listings_in_another_order_are_really_another_order(tmp_path):
    # The reversed listing must change what a program sees, or the tests above prove nothing.
    folder = tmp_path / "listing"
    code = ("import os, pathlib; root = pathlib.Path(os.environ['DIR']);"
            "print([p.name for p in root.iterdir()], [p.name for p in root.rglob('*.toml')],"
            " os.listdir(root), [e.name for e in os.scandir(root)])")
    data = tmp_path / "data"
    for name in ("a.toml", "b.toml", "c.toml"):
        (data / "x").mkdir(parents=True, exist_ok=True)
        (data / name).write_text("", encoding="utf-8")
    seen = {}
    for mode in ("sorted", "reversed"):
        env = _env(**_listing_env(folder / mode, mode), DIR=str(data))
        proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
        assert proc.returncode == 0, proc.stderr
        seen[mode] = proc.stdout.strip()
    forward, backward = "['a.toml', 'b.toml', 'c.toml', 'x']", "['x', 'c.toml', 'b.toml', 'a.toml']"
    assert seen["sorted"] == f"{forward} ['a.toml', 'b.toml', 'c.toml'] {forward} {forward}"
    assert seen["reversed"] == f"{backward} ['c.toml', 'b.toml', 'a.toml'] {backward} {backward}"


@pytest.mark.skipif(not DEMO.is_dir(), reason="the repository has no demo matches/ folder")
def test_demo_builds_are_byte_identical(tmp_path):
    out_a, out_b = _two_builds(REPO, REPO, tmp_path)
    _assert_same_trees(out_a, out_b)


# --- SOURCE_DATE_EPOCH and git ----------------------------------------------------------

EPOCH = "1714566000"           # 2024-05-01 12:20:00 UTC


def test_source_date_epoch_gives_the_same_bytes_and_its_date(tmp_path):
    copy_a = _copy_outside_git(FIXTURE, tmp_path / "copy-a" / "small")
    copy_b = _copy_outside_git(FIXTURE, tmp_path / "copy-b" / "small")
    out_a, out_b = _two_builds(copy_a, copy_b, tmp_path, SOURCE_DATE_EPOCH=EPOCH)
    _assert_same_trees(out_a, out_b)
    assert _build_line(out_a) == "Built 2024-05-01."
    assert '<time datetime="2024-05-01T12:20:00Z">2024-05-01</time>' in (out_a / "index.html").read_text("utf-8")


def test_another_source_date_epoch_changes_the_home_page_only(tmp_path):
    root = _copy_outside_git(FIXTURE, tmp_path / "small")
    procs = [_start(root, tmp_path / name, tmp_path, {**ENV_A, "SOURCE_DATE_EPOCH": epoch})
             for name, epoch in (("may", EPOCH), ("june", "1717200000"))]
    for proc, what in zip(procs, ("May", "June")):
        _finish(proc, what)
    may, june = hashes(tmp_path / "may"), hashes(tmp_path / "june")
    assert may.keys() == june.keys()
    assert sorted(p for p in may if may[p] != june[p]) == ["index.html"]
    assert _build_line(tmp_path / "june") == "Built 2024-06-01."


@pytest.fixture(scope="module")
def git_site(tmp_path_factory) -> tuple[Path, Path, str, str]:
    """The fixture committed in a repository (in a subfolder), and a clone of it elsewhere:
    (root, the clone's root, the first commit, HEAD)."""
    base = tmp_path_factory.mktemp("git-site")
    top = init_repo(base / "origin")
    shutil.copytree(FIXTURE, top / "site")
    (top / "README.md").write_text("Leagues\n", encoding="utf-8")
    first = commit_all(top, "The fixture leagues", when="2026-03-01T10:00:00+00:00")
    with open(top / "site/matches/duel/round-1.toml", "a", encoding="utf-8") as fh:
        fh.write("\n# checked by the referee\n")
    head = commit_all(top, "Note on round 1", when="2026-04-02T23:30:00+00:00")
    clone = base / "clone" / "another name"
    git(base, "clone", "-q", str(top), str(clone))
    assert git(clone, "rev-parse", "HEAD").strip() == head
    return top / "site", clone / "site", first, head


def test_git_checkout_and_its_clone_build_the_same_bytes(git_site, tmp_path):
    root, clone, first, head = git_site
    out_a, out_b = _two_builds(root, clone, tmp_path)
    _assert_same_trees(out_a, out_b)
    # Without SOURCE_DATE_EPOCH the date is HEAD's committer date in UTC (not Kolkata's 3 May).
    assert _build_line(out_a) == f"Built 2026-04-02 from commit {head[:7]}."
    rows = (out_a / "data/duel/matches.csv").read_text(encoding="utf-8").splitlines()
    assert rows[0] == "match_id,played,file,commit"
    commits = {row.split(",")[2]: row.split(",")[3] for row in rows[1:]}
    assert commits == {"matches/duel/round-1.toml": head, "matches/duel/2024/cup/day-2.toml": first}
    page = (out_a / "leagues/duel/matches/round-1/index.html").read_text(encoding="utf-8")   # round-1.toml's page
    assert f"last changed in commit\n<code>{head[:7]}</code>" in page


def test_source_date_epoch_wins_over_the_commit_date(git_site, tmp_path):
    root, clone, first, head = git_site
    out_a, out_b = _two_builds(root, clone, tmp_path, SOURCE_DATE_EPOCH=EPOCH)
    _assert_same_trees(out_a, out_b)
    assert _build_line(out_a) == f"Built 2024-05-01 from commit {head[:7]}."


def test_an_invalid_source_date_epoch_writes_nothing(tmp_path):
    root = _copy_outside_git(FIXTURE, tmp_path / "small")
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-m", "sitegen", "build", "--root", str(root), "--out", str(out)],
                          cwd=tmp_path, env=_env(SOURCE_DATE_EPOCH="2024-05-01"), capture_output=True, text=True,
                          timeout=TIMEOUT)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.splitlines()[0] == (
        "SOURCE_DATE_EPOCH: must be a whole number of seconds since 1970-01-01 00:00 UTC, such as "
        "1714521600 (the output of `date +%s`), got '2024-05-01'")
    assert not out.exists()


# --- a failed build leaves the previous output alone ------------------------------------

def _snapshot(folder: Path) -> dict[str, tuple[bytes, int] | None]:
    """Every file's bytes and modification time, and every folder, under ``folder``."""
    snap: dict[str, tuple[bytes, int] | None] = {".": None}
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder).as_posix()
        snap[rel] = (p.read_bytes(), p.stat().st_mtime_ns) if p.is_file() and not p.is_symlink() else None
    return snap


@pytest.fixture(scope="module")
def first_build(tmp_path_factory) -> tuple[Path, Path]:
    """A copy of the fixture and a good build of it, made once; tests copy the output."""
    base = tmp_path_factory.mktemp("failed-build")
    root = base / "site"
    shutil.copytree(FIXTURE, root)
    out = base / "out"
    proc = _start(root, out, base, {})
    _finish(proc, "first build")
    return root, out


BREAKAGES = {
    "bad value": ("matches/ladder/2024/april.toml",
                  '\n[[match]]\nplayed = 2024-05-01\nplayers = [{ name = "Ana", score = 2 }, '
                  '{ name = "Cid", score = 0 }]\n'),
    "bad TOML": ("matches/duel/round-1.toml", "\n[[match]\nplayed = \n"),
    # league.toml ends in [params]: a misspelt parameter must not fall back to a default.
    "unknown parameter": ("matches/ladder/league.toml", "k_factr = 16\n"),
}


@pytest.mark.parametrize("breakage", sorted(BREAKAGES))
def test_failed_build_leaves_previous_output_untouched(first_build, tmp_path, breakage):
    good_root, good_out = first_build
    root, parent = tmp_path / "site", tmp_path / "public"
    shutil.copytree(good_root, root)
    out = parent / "site"
    shutil.copytree(good_out, out)
    before = _snapshot(out)
    around = sorted(p.name for p in parent.iterdir())

    rel, text = BREAKAGES[breakage]
    with open(root / rel, "a", encoding="utf-8") as fh:
        fh.write(text)
    proc = subprocess.run([sys.executable, "-m", "sitegen", "build", "--root", str(root), "--out", str(out)],
                          cwd=tmp_path, env=_env(), capture_output=True, text=True, timeout=TIMEOUT)

    assert proc.returncode == 1, f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    assert rel in proc.stderr, f"the problem is not reported against {rel}:\n{proc.stderr}"
    assert "Traceback" not in proc.stderr, proc.stderr
    after = _snapshot(out)
    changed = sorted(p for p in set(before) | set(after) if before.get(p, 0) != after.get(p, 0))
    assert not changed, "the failed build touched the old output:\n" + "\n".join(f"  {p}" for p in changed)
    assert sorted(p.name for p in parent.iterdir()) == around, "the failed build left files next to the output"
