"""Reproducible builds: the same input gives the same bytes, whatever the machine's settings.

Two builds run as separate ``python -m sitegen build`` processes, side by side,
with everything a build must not depend on set differently: time zone, locale,
hash seed, working folder, output folder, and (for the fixture) where the site
repository sits on disk. Every file of both trees is compared by SHA-256.

A build that fails on invalid input must leave the previous output exactly as
it was (CONTRACT section 6: "nothing in the old output is touched").
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "tests" / "fixtures" / "small"
DEMO = REPO / "matches"
TIMEOUT = 300


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
ENV_A = dict(TZ="UTC", LC_ALL=None, LANG=None, LC_CTYPE=None, PYTHONHASHSEED="0")
# Build B: another time zone (UTC+05:30, no daylight saving), an explicit UTF-8 locale, another seed.
ENV_B = dict(TZ="Asia/Kolkata", LC_ALL="C.UTF-8", LANG="C.UTF-8", PYTHONHASHSEED="2718281")


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


def _two_builds(root_a: Path, root_b: Path, tmp_path: Path) -> tuple[Path, Path]:
    out_a, out_b = tmp_path / "a" / "site", tmp_path / "b" / "elsewhere" / "out"
    procs = [_start(root_a, out_a, REPO, ENV_A),
             _start(root_b, out_b, tmp_path / "b" / "cwd", ENV_B)]
    for proc, what in zip(procs, ("build A", "build B")):
        _finish(proc, what)
    return out_a, out_b


def test_fixture_builds_are_byte_identical(tmp_path):
    # Build B reads a copy of the fixture from another place on disk.
    copy = tmp_path / "copy" / "some where" / "small"
    shutil.copytree(FIXTURE, copy)
    out_a, out_b = _two_builds(FIXTURE, copy, tmp_path)
    _assert_same_trees(out_a, out_b)


@pytest.mark.skipif(not DEMO.is_dir(), reason="the repository has no demo matches/ folder")
def test_demo_builds_are_byte_identical(tmp_path):
    out_a, out_b = _two_builds(REPO, REPO, tmp_path)
    _assert_same_trees(out_a, out_b)


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
