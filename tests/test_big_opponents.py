"""A big league's players have no opponents page (sitegen/model/scale.py): the head to head
keeps its most frequent opponents as HTML, and the player's games.json holds every opponent's
row, which assets/games.js draws into the table when asked. Built twice from one input, as a
small league and (the threshold lowered) as a big one, the rows games.js draws must be the
rows of the small league's opponents page, in its order, with the same links."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta, timezone
from html.parser import HTMLParser
from pathlib import Path

import pytest

from helpers import elo_match, league_toml, write_files
from sitegen.commands.build import build
from sitegen.model import scale
from sitegen.output.pages import HEAD_TO_HEAD
from sitegen.output.render import fmt_delta

# Markup, a non-ASCII name, two names whose slugs clash ("ana", "ana-2"), a space.
ODD = ['<b>Bad</b> & "Co"', "Zoë", "Ana", "ana", "A B"]
OPPONENTS = ODD + [f"O{i:02d}" for i in range(25)]
START = datetime(2024, 1, 1, 12, tzinfo=timezone.utc)


def when(i: int) -> str:
    return (START + timedelta(hours=i)).strftime("%Y-%m-%dT%H:%M:%SZ")


def toml_name(name: str) -> str:
    return name.replace("\\", "\\\\").replace('"', '\\"')


def duels() -> str:
    """Hero against 30 opponents: the first ones more often, every result."""
    out, n = [], 0
    for k, name in enumerate(OPPONENTS):
        for j in range(1 + (k < 6) + (k < 3)):
            s = (1, 0.5, 0)[(k + j) % 3]
            out.append(elo_match(when(n), "Hero", s, toml_name(name), 1 - s))
            n += 1
    return "".join(out)


def lobbies() -> str:
    """Placement lobbies of five: Hero with four others, places shared at times."""
    out = []
    for i in range(12):
        four = [OPPONENTS[(i * 3 + j) % len(OPPONENTS)] for j in range(4)]
        places = [1 + (i + j) % 4 for j in range(5)]
        players = ", ".join(f'{{ name = "{toml_name(p)}", place = {places[j]} }}'
                            for j, p in enumerate(["Hero", *four]))
        out.append(f"[[match]]\nplayed = {when(i)}\nplayers = [{players}]\n\n")
    return "".join(out)


@pytest.fixture(scope="module")
def builds(tmp_path_factory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("opponents")
    root = write_files(tmp / "site", {
        "pyproject.toml": '[tool.sitegen]\ntitle = "Opponents"\nbase_url = "https://example.org/"\n',
        "matches/duel/league.toml": league_toml("elo", name="Duels"),
        "matches/duel/g.toml": duels(),
        "matches/lobby/league.toml": league_toml("placement", name="Lobbies"),
        "matches/lobby/g.toml": lobbies(),
    })
    small, big = tmp / "small", tmp / "big"
    build(root, small, cache=False)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(scale, "BIG_LEAGUE_ROWS", 0)        # every league with a match is big
        build(root, big, cache=False)
    return small, big


class Rows(HTMLParser):
    """The rows of a page's head-to-head table: each cell's text, and the first cell's link."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[tuple[str, list[str]]] = []
        self.table = self.body = False
        self.cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and "h2h" in (a.get("class") or "").split():
            self.table = True
        elif self.table and tag == "tbody":
            self.body = True
        elif self.body and tag == "tr":
            self.rows.append(("", []))
        elif self.body and tag == "td":
            self.rows[-1][1].append("")
        elif self.body and tag == "a" and not self.rows[-1][0]:
            self.rows[-1] = (a["href"], self.rows[-1][1])

    def handle_endtag(self, tag):
        if tag == "table":
            self.table = self.body = False

    def handle_data(self, data):
        if self.body and self.rows and self.rows[-1][1]:
            self.rows[-1][1][-1] += data


def h2h(page: Path) -> list[tuple[Path, list[str]]]:
    """(the linked player's folder, the cells' text) per row of the page's head to head."""
    parser = Rows()
    parser.feed(page.read_text(encoding="utf-8"))
    return [((page.parent / href).resolve(), [c.strip() for c in cells]) for href, cells in parser.rows]


def drawn(out: Path, games_json: Path, decimals: int) -> list[tuple[Path, list[str]]]:
    """What games.js draws from the file (its opponents, fillOpponents and delta), in Python."""
    doc = json.loads(games_json.read_text(encoding="utf-8"))
    columns = doc["opponent_columns"]
    change = columns.index("change") if "change" in columns else -1
    if "opponents" in doc:
        rows = [(o[0], [fmt_delta(v, decimals) if i == change else str(v) for i, v in enumerate(o) if i])
                for o in doc["opponents"]]
    else:           # counted from the games
        count: dict[str, list] = {}
        for g in doc["games"]:
            c = count.setdefault(g[3], [0, 0, 0, 0, ""])
            c[0] += 1
            word = g[4].split(" ")[0]
            if word in ("win", "draw", "loss"):
                c[1 + ("win", "draw", "loss").index(word)] += 1
            c[4] = g[5]
        rows = []
        for name in sorted(count, key=lambda n: (-count[n][0], n)):
            c = count[name]
            cells = [str(c[0])]
            if len(columns) - 2 - (change >= 0) > 0:
                cells += [str(v) for v in c[1:4]]
            if change >= 0:
                sums = doc["opponent_changes"]
                cells.append(fmt_delta(sums[name], decimals) if name in sums else c[4])
            rows.append((name, cells))
    return [((out / doc["league"] / "players" / doc["slugs"].get(name, name.lower())).resolve(), [name, *cells])
            for name, cells in rows]


@pytest.mark.parametrize("league", ["duel", "lobby"])
def test_the_data_file_holds_every_opponent_as_the_opponents_page_lists_them(builds, league):
    small, big = builds
    players = sorted((small / "leagues" / league / "players").iterdir())
    assert len(players) > 20
    for folder in players:
        listed = h2h(folder / "opponents/index.html")
        own = big / "leagues" / league / "players" / folder.name
        rows = drawn(big, own / "games.json", decimals=1)
        # Links resolved in the other build: the same player's folder.
        assert [(p.relative_to(big), c) for p, c in rows] == [(p.relative_to(small), c) for p, c in listed], folder
        assert all(p.is_dir() for p, _ in rows)
        # The page's own rows are the first of them.
        shown = h2h(own / "index.html")
        assert shown == rows[:HEAD_TO_HEAD]
    hero = json.loads((big / "leagues" / league / "players/hero/games.json").read_text(encoding="utf-8"))
    if league == "duel":
        assert hero["opponent_columns"] == ["opponent", "games", "won", "drawn", "lost", "change"]
        # Only the names whose slug is not their lower case are spelt out.
        assert hero["slugs"] == {'<b>Bad</b> & "Co"': "b-bad-b-co", "Zoë": "zoe", "ana": "ana-2", "A B": "a-b"}
        # Duels: counted from the games; only the sums over several games are written.
        assert "opponents" not in hero
        assert sorted(hero["opponent_changes"]) == sorted(OPPONENTS[:6])
    else:
        assert hero["opponent_columns"] == ["opponent", "games", "ahead", "level", "behind"]
        assert len(hero["opponents"]) == len(OPPONENTS) and "opponent_changes" not in hero


def test_a_small_leagues_data_file_is_as_before(builds):
    small, _ = builds
    for games_json in (small / "leagues").rglob("games.json"):
        assert list(json.loads(games_json.read_text(encoding="utf-8"))) == ["player", "league", "groups",
                                                                           "columns", "games"]


def test_a_big_league_links_no_opponents_page_and_has_none(builds):
    small, big = builds
    assert list(small.rglob("opponents"))
    assert not list(big.rglob("opponents"))
    for page in big.rglob("*.html"):
        assert not re.search(r'href="[^"]*opponents/', page.read_text(encoding="utf-8")), page
    assert "/opponents/" not in (big / "sitemap.xml").read_text(encoding="utf-8")
    assert "/opponents/" in (small / "sitemap.xml").read_text(encoding="utf-8")


def test_the_head_to_head_offers_the_rest_and_says_where_it_is_without_scripts(builds):
    _, big = builds
    page = big / "leagues/duel/players/hero/index.html"
    html = page.read_text(encoding="utf-8")
    button = re.search(r'<button type="button" id="opponents-all" data-rows="([^"]+)" data-root="([^"]+)" '
                       r'data-decimals="1" hidden>Show all (\d+) opponents</button>', html)
    assert button and int(button[3]) == len(OPPONENTS)
    assert (page.parent / button[1]).resolve() == (page.parent / "games.json").resolve()
    assert (page.parent / button[2]).resolve() == big.resolve()
    noscript = re.search(r"<noscript>(.*?)</noscript>", html[html.index('id="h2h-h"'):], re.S)[1]
    for href in re.findall(r'href="([^"]+)"', noscript):
        assert (page.parent / href).resolve().is_file(), href
    assert "changes.csv" in noscript and "matches.csv" in noscript and "games.json" in noscript
    # A player with no more opponents than the table holds gets no button.
    few = big / "leagues/duel/players/o10/index.html"
    assert 'id="opponents-all"' not in few.read_text(encoding="utf-8")
