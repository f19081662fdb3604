"""A rating system is one module: nothing outside sitegen/rating names one, and a new system
registered at run time builds a whole site without any other module knowing it."""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar

import pytest

from helpers import build_data, league_toml, read_csv
from sitegen.rating import SYSTEMS, register
from sitegen.rating.base import (
    Change, Example, Field, MatchSystem, ParsedMatch, RatingEvent, Reporter, count, parse_entries,
)
from sitegen.rating.protocol import Forecaster, MatchReader, Presenter, Rater, Scaffold
from sitegen.rating.replay import Round, replay

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "sitegen"
TEMPLATES = REPO / "templates"
NAMES = ("elo", "lunaro", "arena", "placement", "glicko2", "openskill")


# --- nothing outside sitegen/rating names a system --------------------------------------------

def _outside_rating() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "rating" not in p.relative_to(PACKAGE).parts[:1])


def _named(path: Path, names: set[str]) -> list[str]:
    """Every string literal of ``path`` that is a system's name, with its line."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return [f"{path.name}:{node.lineno}: {node.value!r}" for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in names]


def test_the_registry_holds_the_six_systems_in_the_contracts_order():
    assert list(SYSTEMS)[:6] == ["lunaro", "elo", "placement", "glicko2", "arena", "openskill"]


def test_no_module_outside_rating_names_a_system():
    names = set(SYSTEMS) | set(NAMES)
    found = [f"{path.parent.name}/{hit}" for path in _outside_rating() for hit in _named(path, names)]
    assert found == [], "\n".join(found)


def test_the_scan_finds_a_name(tmp_path):
    """The scan above can fail: a comparison with a system's name is found."""
    path = tmp_path / "bad.py"
    path.write_text('def f(system):\n    return system.name == "glicko2"\n', encoding="utf-8")
    assert _named(path, {"glicko2"}) == ["bad.py:2: 'glicko2'"]


def _quoted(text: str, names: set[str]) -> list[str]:
    pattern = re.compile(r"""(["'])(%s)\1""" % "|".join(re.escape(n) for n in sorted(names)))
    return [m.group(0) for m in pattern.finditer(text)]


def test_no_template_names_a_system():
    names = set(SYSTEMS) | set(NAMES)
    found = []
    for path in sorted(TEMPLATES.rglob("*.html")):
        for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            found += [f"{path.relative_to(REPO)}:{i}: {q}" for q in _quoted(line, names)]
    assert found == [], "\n".join(found)
    assert _quoted('{% if sys == "placement" %}', names) == ['"placement"']


# --- every system satisfies the Protocols --------------------------------------------------------

PROTOCOLS = (MatchReader, Rater, Presenter, Scaffold, Forecaster)


def _members(protocol: type) -> set[str]:
    own = set(getattr(protocol, "__annotations__", {}))
    own |= {k for k, v in vars(protocol).items() if callable(v) or isinstance(v, classmethod)}
    return {k for k in own if not k.startswith("_")}


@pytest.mark.parametrize("name", NAMES)
def test_every_system_has_what_each_protocol_asks(name):
    system = SYSTEMS[name]()
    for protocol in PROTOCOLS:
        missing = sorted(m for m in _members(protocol) if not hasattr(system, m))
        assert missing == [], f"{name} lacks {protocol.__name__}: {missing}"
    assert system.label and system.explain
    assert set(system.terms) <= set(system.term_labels)
    assert set(system.standing_terms) <= set(system.term_labels)


@pytest.mark.parametrize("name", NAMES)
def test_every_system_draws_its_curve(name):
    curve = SYSTEMS[name].curve()
    assert curve is not None and curve.rows and curve.series


# --- a new system is one module -------------------------------------------------------------------

class Coin(MatchSystem):
    """A toy: each player's heads are added up; the rating is the total."""

    name: ClassVar[str] = "coin"
    label: ClassVar[str] = "Coin tally"
    explain: ClassVar[str] = "Each change adds the heads the player threw."
    terms: ClassVar[tuple[str, ...]] = ("heads",)
    term_labels: ClassVar[Mapping[str, str]] = {"heads": "Heads"}
    integer_ratings: ClassVar[bool] = True
    has_outcomes: ClassVar[bool] = False
    has_initial: ClassVar[bool] = False
    fields: ClassVar[tuple[Field, ...]] = (Field("heads", count, "an integer from 0"),)
    example: ClassVar[Example] = Example(players=(2, None), entry={"heads": 0})

    def __init__(self) -> None:
        self.starts = {}

    def parse_match(self, raw: Mapping[str, Any], report: Reporter) -> ParsedMatch | None:
        parsed = parse_entries(raw.get("players"), report, self.fields, system=self.name)
        return None if parsed is None else ParsedMatch(*parsed)

    def start(self, player: str) -> int:
        return 0

    def step(self, round: Round, before: Mapping[str, int]) -> tuple[RatingEvent, dict[str, int]]:
        (m,) = round.matches
        changes = [Change(p, before[p], before[p] + e["heads"], {"heads": e["heads"]})
                   for p, e in zip(m.players, m.entries)]
        return round.event(changes), {c.player: int(c.after) for c in changes}


@pytest.fixture
def coin():
    register(Coin)
    try:
        yield Coin
    finally:
        del SYSTEMS["coin"]


def test_the_replay_walks_a_history_once(coin):
    from datetime import datetime, timezone

    from sitegen.rating.base import Match

    def match(i: int, *throws: tuple[str, int]) -> Match:
        return Match(f"m{i}", datetime(2024, 1, i, tzinfo=timezone.utc), "matches/c/a.toml", i, None,
                     tuple(p for p, _ in throws), tuple({"heads": h} for _, h in throws))

    events = replay(Coin(), [match(1, ("Ann", 2), ("Bo", 1)), match(2, ("Bo", 3), ("Cy", 0))])
    assert [[(c.player, c.before, c.after) for c in e.changes] for e in events] == [
        [("Ann", 0, 2), ("Bo", 0, 1)], [("Bo", 1, 4), ("Cy", 0, 0)]]
    assert Coin().rate([]) == []


GAMES = """
[[match]]
id = "first"
played = 2024-01-01T10:00:00Z
players = [{ name = "Ann", heads = 3 }, { name = "Bo", heads = 1 }]

[[match]]
id = "second"
played = 2024-01-02T10:00:00Z
players = [{ name = "Bo", heads = 4 }, { name = "Cy", heads = 2 }, { name = "Ann", heads = 0 }]
"""


def test_a_system_registered_at_run_time_builds_a_whole_site(coin, make_site):
    root = make_site({"matches/flips/league.toml": league_toml("coin", name="Flips"),
                      "matches/flips/games.toml": GAMES})
    out = root / "_site"
    data = build_data(root, "flips", out)
    standings = read_csv(data["standings.csv"])
    assert [(r["player"], r["rating"]) for r in standings] == [("Bo", "5"), ("Ann", "3"), ("Cy", "2")]
    changes = read_csv(data["changes.csv"])
    assert [float(c["heads"]) for c in changes] == [3, 1, 4, 2, 0]
    assert "accuracy.csv" not in data and "ratings.json" not in data
    assert json.loads(data["standings.json"])
    board = (out / "leagues" / "flips" / "index.html").read_text(encoding="utf-8")
    assert "Coin tally" in board and "Bo" in board
    players = sorted((out / "leagues" / "flips" / "players").iterdir())
    assert players and all((p / "index.html").is_file() for p in players)
    # The match file games.toml has one page, each match at its anchor.
    page = (out / "leagues" / "flips" / "matches" / "games" / "index.html").read_text(encoding="utf-8")
    assert 'id="m-second"' in page
    assert "Each change adds the heads the player threw." in page and "Heads" in page


def test_glicko2_standings_take_plain_events_too():
    """Standings read any event: a plain RatingEvent counts as the next period, one game each,
    which is what a rating period of one match is."""
    from datetime import datetime, timezone

    from sitegen.rating.base import Match
    from sitegen.rating.glicko2 import Glicko2

    matches = [Match(f"m{i}", datetime(2024, 1, i, tzinfo=timezone.utc), "matches/w/a.toml", i, None, players,
                     tuple({"score": s} for s in scores))
               for i, (players, scores) in enumerate([(("A", "B"), (3, 1)), (("B", "C"), (2, 2)),
                                                      (("A", "C"), (0, 5))], 1)]
    system = Glicko2(period="match")
    events = system.rate(matches)
    plain = [RatingEvent(e.key, e.played, e.matches, e.changes) for e in events]
    assert system.standings(plain) == system.standings(events)
