"""A big league's player page leaves where the player stands to standing.html beside it
(templates/player_standing.html; assets/games.js reads it in): the rank, its movement and grouped
rank, the opponent pool and the predictions against the nearest-rated players, which other
players' matches move. So one appended match remakes the pages of its own players only, and the
standing.html of everyone it passes; the rebuilt site still equals a cold build."""

from __future__ import annotations

import csv
import html
import random
import re
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from helpers import elo_match, league_toml, write_files
from sitegen.commands.build import build
from sitegen.model import scale
from test_incremental import assert_same_as_cold

PLAYERS = [f"P{i:02d}" for i in range(40)] + ['<b>Odd</b> & "Co"']
START = datetime(2024, 1, 1, 12, tzinfo=timezone.utc)


def when(i: int) -> str:
    return (START + timedelta(hours=i)).strftime("%Y-%m-%dT%H:%M:%SZ")


def duels(n: int, seed: int = 7) -> str:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        a, b = rng.sample(PLAYERS, 2)
        s = rng.choice((1, 0.5, 0))
        out.append(elo_match(when(i), a.replace('"', '\\"'), s, b.replace('"', '\\"'), 1 - s))
    return "".join(out)


@pytest.fixture
def big(monkeypatch) -> None:
    monkeypatch.setattr(scale, "BIG_LEAGUE_ROWS", 0)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return write_files(tmp_path / "root", {"matches/duel/league.toml": league_toml("elo", name="Duels"),
                                           "matches/duel/g.toml": duels(400)})


def players_dir(out: Path) -> Path:
    return out / "leagues/duel/players"


def test_the_page_links_where_its_player_stands_and_standing_html_shows_it(root: Path, tmp_path: Path, big) -> None:
    out = tmp_path / "out"
    build(root, out, cache=False)
    with (out / "data/duel/standings.csv").open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert rows
    for slug in ("p00", "b-odd-b-co"):
        page = (players_dir(out) / slug / "index.html").read_text(encoding="utf-8")
        standing = (players_dir(out) / slug / "standing.html").read_text(encoding="utf-8")
        # The page itself names no rank and links the standing page, which the script reads in.
        assert 'data-standing="standing.html" data-part="rank"' in page
        assert 'data-part="around"' in page and 'href="standing.html"' in page
        assert "Your opponent pool" not in page and "<b>Odd</b>" not in page
        rank = re.search(r'<dd class="big" id="rank">\s*#(\d+)', standing)
        assert rank is not None
        name = re.search(r"<h1>Where (.*) stands</h1>", standing)
        assert name is not None
        player = next(r for r in rows if r["rank"] == rank.group(1))
        assert name.group(1) == player["player"].replace("&", "&amp;").replace("<", "&lt;").replace(
            ">", "&gt;").replace('"', "&#34;")
        assert 'id="around"' in standing and "Your opponent pool" in standing
        assert "<b>Odd</b>" not in standing     # escaped wherever the name is shown


def test_a_small_league_keeps_where_its_player_stands_on_the_page(root: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    build(root, out, cache=False)
    page = (players_dir(out) / "p00" / "index.html").read_text(encoding="utf-8")
    assert "data-standing" not in page and "Your opponent pool" in page
    assert not (players_dir(out) / "p00" / "standing.html").exists()


def test_an_appended_match_remakes_its_players_pages_and_the_standing_of_those_it_moves(
        root: Path, tmp_path: Path, big) -> None:
    out = tmp_path / "out"
    build(root, out)
    pages = sorted(players_dir(out).glob("*/index.html"))
    standings = sorted(players_dir(out).glob("*/standing.html"))
    before = {p: p.stat().st_ino for p in pages + standings}
    # The lowest-rated player beats the highest: both move far, passing many others.
    with (out / "data/duel/standings.csv").open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    top, bottom = rows[0]["player"], rows[-1]["player"]
    with (root / "matches/duel/g.toml").open("a", encoding="utf-8") as fh:
        fh.write(elo_match(when(400), bottom.replace('"', '\\"'), 1, top.replace('"', '\\"'), 0))
    build(root, out)
    remade_pages = {p.parent.name for p in pages if p.stat().st_ino != before[p]}
    remade_standing = {p.parent.name for p in standings if p.stat().st_ino != before[p]}
    slugs = {html.unescape(re.search(r"<h1>(.*)</h1>", p.read_text(encoding="utf-8")).group(1)):  # type: ignore[union-attr]
             p.parent.name for p in pages}
    assert remade_pages == {slugs[top], slugs[bottom]}
    assert {slugs[top], slugs[bottom]} < remade_standing
    assert len(remade_standing) > 10       # passed on their way up and down
    assert_same_as_cold(root, out, tmp_path)


def test_a_kept_standing_page_is_remade_exactly_where_what_it_shows_changed(root: Path, tmp_path: Path, big) -> None:
    """After a match in the middle of the standings: every standing.html whose bytes changed is
    made again (the key is never coarser than the page), and every other one is kept but the
    two players' own, whose key also holds their rating."""
    out = tmp_path / "out"
    build(root, out)
    standings = sorted(players_dir(out).glob("*/standing.html"))
    before = {p: (p.stat().st_ino, p.read_bytes()) for p in standings}
    with (out / "data/duel/standings.csv").open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    a, b = rows[len(rows) // 3]["player"], rows[2 * len(rows) // 3]["player"]
    with (root / "matches/duel/g.toml").open("a", encoding="utf-8") as fh:
        fh.write(elo_match(when(400), b.replace('"', '\\"'), 1, a.replace('"', '\\"'), 0))
    build(root, out)
    changed = {p.parent.name for p in standings if p.read_bytes() != before[p][1]}
    remade = {p.parent.name for p in standings if p.stat().st_ino != before[p][0]}
    def shown(name: str) -> str:
        return "<h1>Where " + name.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace(
            '"', "&#34;") + " stands</h1>"

    players = {p.parent.name for p in standings if any(shown(n) in p.read_text(encoding="utf-8") for n in (a, b))}
    assert len(players) == 2 and changed and changed <= remade
    assert remade - changed <= players
    assert_same_as_cold(root, out, tmp_path)
