"""Helpers shared by the tests: reading built data, running the CLI, snapshots of folders."""

from __future__ import annotations

import csv
import http.client
import re
import shutil
import struct
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sitegen.commands.build import build, check
from sitegen.load.problems import InvalidInput

REPO = Path(__file__).resolve().parent.parent


def load_script(name: str):
    """scripts/<name>.py imported as module ``name`` (the scripts are not a package)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module      # a script's dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def write_files(root: Path, files: dict[str, str | bytes]) -> Path:
    """Write ``{relative path: text or bytes}`` under root (text as UTF-8, "\\n" kept as is)."""
    for rel, content in files.items():
        path = root.joinpath(*rel.split("/"))
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            with open(path, "w", encoding="utf-8", newline="") as fh:
                fh.write(content)
    return root


def league_toml(system: str, *, name: str = "Test League", params: str = "", extra: str = "") -> str:
    text = f'name = "{name}"\nsystem = "{system}"\n{extra}'
    if params:
        text += f"\n[params]\n{params}\n"
    return text


def problems_of(root: Path) -> list:
    """The problems `check(root)` raises (fails the test if the site is valid)."""
    with pytest.raises(InvalidInput) as info:
        check(root)
    return info.value.problems


def build_data(root: Path, league: str, out: Path | None = None) -> dict[str, str]:
    """Build root in-process and return data/<league>/* as {file name: text} (bytes for Parquet)."""
    out = out or root / "_site"
    build(root, out)
    folder = out / "data" / league
    return {p.name: p.read_bytes() if p.suffix == ".parquet" else p.read_bytes().decode("utf-8")
            for p in folder.iterdir()}


def read_csv(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text, newline="")))


def run_cli(*args: str, cwd: Path | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run `python -m sitegen ARGS` in a child process, importing this checkout's package."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return subprocess.run([sys.executable, "-m", "sitegen", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)


def tree_snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every file (its bytes) and folder (None) under ``folder``, by relative path."""
    out: dict[str, bytes | None] = {}
    for p in sorted(folder.rglob("*")):
        rel = p.relative_to(folder).as_posix()
        out[rel] = p.read_bytes() if p.is_file() else None
    return out


def looks_like_traceback(text: str) -> bool:
    return "Traceback (most recent call last)" in text or bool(
        re.search(r'^\s*File ".*", line \d+', text, re.M))


def league_data(root: Path, slug: str) -> dict[str, str]:
    """data/<slug>/* as a build writes them, without rendering pages: check -> rate -> tables."""
    from sitegen.commands.build import rate
    from sitegen.model.ledger import league_files

    site = check(root)
    for rated in rate(site):
        if rated.league.config.slug == slug:
            # The CSV files come as parts of their UTF-8 bytes, written as they come in a build.
            return {name: content if isinstance(content, (str, bytes)) else b"".join(content).decode("utf-8")
                    for name, content in league_files(rated, roster=site.roster)}
    raise AssertionError(f"no league {slug!r} in {root}")


def rows_of(data: dict[str, str], table: str) -> list[dict[str, str]]:
    return read_csv(data[f"{table}.csv"])


def elo_match(played: str, a: str, s_a: float, b: str, s_b: float, *,
              challenger: str | None = None, id: str | None = None) -> str:
    """One [[match]] table of an elo league."""
    lines = ["[[match]]"]
    if id is not None:
        lines.append(f'id = "{id}"')
    lines.append(f"played = {played}")
    if challenger is not None:
        lines.append(f'challenger = "{challenger}"')
    lines.append(f'players = [{{ name = "{a}", score = {s_a} }}, {{ name = "{b}", score = {s_b} }}]')
    return "\n".join(lines) + "\n\n"


def lunaro_match(played: str, a: str, goals_a: int, ping_a: int, b: str, goals_b: int, ping_b: int, *,
                 host: int | None = None, id: str | None = None) -> str:
    """One [[match]] table of a lunaro league; ``host`` is 0 or 1 (the player with host = true)."""
    lines = ["[[match]]"]
    if id is not None:
        lines.append(f'id = "{id}"')
    lines.append(f"played = {played}")
    players = []
    for i, (name, goals, ping) in enumerate(((a, goals_a, ping_a), (b, goals_b, ping_b))):
        h = ", host = true" if host == i else ""
        players.append(f'{{ name = "{name}", goals = {goals}, ping = {ping}{h} }}')
    lines.append(f"players = [{', '.join(players)}]")
    return "\n".join(lines) + "\n\n"


def day(n: int) -> str:
    """The n-th (0-based) of a run of distinct UTC timestamps, one minute apart."""
    from datetime import datetime, timedelta, timezone

    t = datetime(2024, 1, 1, tzinfo=timezone.utc) + timedelta(minutes=n)
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def same_bits(a: object, b: object) -> bool:
    """Equal to the last bit: a float only equals a float (a Python float, not a NumPy scalar)
    with the same IEEE bytes, 0.0 differing from -0.0; any NaN equals any NaN (their payloads
    are not the arithmetic's); anything else by ==."""
    if (isinstance(a, float) or isinstance(b, float)) and not type(a) is type(b) is float:
        return False
    return bit_key(a) == bit_key(b)


def bit_key(x: object) -> object:
    """A value to compare with == that is equal only where ``same_bits`` is."""
    if type(x) is not float:
        return x
    return ("nan",) if x != x else ("float", struct.pack("<d", x))


def season_league(root: Path) -> Path:
    """An elo league under season reversion of 40 duels among four players: the first ten name
    season "s1", the eleventh "s2", the rest none (they are played in "s2")."""
    names = ["A", "B", "C", "D"]
    blocks = []
    for i in range(40):
        season = 'season = "s1"\n' if i < 10 else 'season = "s2"\n' if i == 10 else ""
        a, b = names[i % 4], names[(i + 1 + i // 4) % 4]
        b = names[(i + 2) % 4] if a == b else b
        blocks.append(f"[[match]]\nplayed = 2024-01-{1 + i // 2:02d}T{10 + i % 2}:00:00Z\n{season}"
                      f'players = [{{ name = "{a}", score = 1 }}, {{ name = "{b}", score = 0 }}]\n')
    return write_files(root, {
        "matches/l/league.toml": 'name = "L"\nsystem = "elo"\n[params]\nseason_reversion = 0.5\nk = 40\n',
        "matches/l/m.toml": "\n".join(blocks)})



def fetch(port: int, path: str, timeout: float = 10) -> tuple[int, bytes]:
    """GET ``path`` from a server on 127.0.0.1:``port``: its status and body."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def site_files(out: Path) -> dict[str, bytes]:
    """Every file of a built site by its path in it."""
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


def fixture_site(fixture: str, root: Path, demo: dict[str, str] | None = None) -> None:
    """tests/fixtures/<fixture> copied to ``root``, or where ``demo`` names it (fixture name ->
    league folder), that league of the demo alone with the demo's players.toml."""
    if fixture not in (demo or {}):
        shutil.copytree(REPO / "tests" / "fixtures" / fixture, root)
        return
    league = demo[fixture]
    shutil.copytree(REPO / "matches" / league, root / "matches" / league)
    shutil.copy(REPO / "matches" / "players.toml", root / "matches" / "players.toml")
    shutil.copy(REPO / "tests" / "fixtures" / "small" / "pyproject.toml", root / "pyproject.toml")
