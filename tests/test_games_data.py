"""A player's data file (output/gamesdata.py ``games_data``) reads each game's match, lines,
page and anchor without its view (matchviews.ViewMaker.row) and each lobby's once a worker for
all its players (``_rows_of``, ``_names``): its rows are the ones worked out from each game's
PlayerGame as the file was first written (time, page, anchor, the first three opponents,
result, change, rating), with the lines held or read from the columns, the lobbies kept, none
kept, and read again from what an earlier player's file kept. On the hostile fixture's names, the small fixture's five
systems (its rating periods' games a list of views, some rated with a later game) and the
demo's lobbies (battle royale), teams (cdl-2023) and three-way matchups (world vs world)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from sitegen.model.career import LeagueCareers
from sitegen.model import scale
from sitegen.model.scale import is_big
from sitegen.model.matchviews import MatchViews, ViewMaker
from sitegen.model.views import Games, league_view
from sitegen.output import gamesdata
from sitegen.output.gamesdata import _minute, _rating, games_data
from sitegen.output.render import fmt_delta

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"


def _rows(lv, player, decimals: int) -> str:
    """The file's groups and rows, each game's from its PlayerGame."""
    groups: dict[str, int] = {}
    rows = []
    for g in player.games:
        m, line = g.match, g.line
        opponents = g.opponents
        names = ", ".join(o.text for o in opponents[:3]) + (" …" if len(opponents) > 3 else "")
        result, score = line.result, line.score
        result = (f"{result} {score}" if score else result) if result else (score or line.details)
        if g.rated:
            change, rating = "new" if line.delta is None else fmt_delta(line.delta, decimals), _rating(line.after)
        else:
            change, rating = f"in {line.period}", None
        page = m.page[len(lv.url):]
        index = groups.setdefault(page, len(groups))
        rows.append(json.dumps([_minute(m.match.played), index, m.anchor, names, result, change, rating],
                               ensure_ascii=False, separators=(",", ":")))
    doc = {"player": player.name, "league": lv.url, "groups": list(groups), "columns": list(gamesdata.COLUMNS)}
    return json.dumps(doc, ensure_ascii=False, separators=(",", ":"))[:-1] + ',"games":[\n' + ",\n".join(rows) + "\n]"


def _demo(root: Path) -> None:
    for league in ("battle-royale", "cdl-2023", "world-vs-world"):
        shutil.copytree(REPO / "matches" / league, root / "matches" / league)
    shutil.copy(REPO / "matches" / "players.toml", root / "matches" / "players.toml")
    shutil.copy(FIXTURES / "small" / "pyproject.toml", root / "pyproject.toml")


@pytest.mark.parametrize("held", [True, False])
@pytest.mark.parametrize("fixture", ["small", "hostile", "demo"])
def test_games_data_rows_are_each_games_own(rated, fixture, held, tmp_path, monkeypatch) -> None:
    if not held:        # the lines read from the rating columns when asked (model/lines.py)
        monkeypatch.setattr(scale, "HELD_LINES", 0)
    root = FIXTURES / fixture
    if fixture == "demo":
        root = tmp_path / "site"
        _demo(root)
    site, leagues = rated(root)
    kinds = set()
    for kept in (gamesdata.KEPT_MATCHES, 0):
        monkeypatch.setattr(gamesdata, "KEPT_MATCHES", kept)
        for league in leagues:
            league.cache.pop(gamesdata.MATCHES_SEEN, None)
            lv = league_view(league, site.roster, False)
            decimals = 0 if lv.integer else 1
            big = is_big(league)
            careers = LeagueCareers(lv)
            maker = lv.matches.views if isinstance(lv.matches, MatchViews) else None
            if isinstance(maker, ViewMaker):
                # And as a league whose ids are not all plain reads them: each escaped (groups.anchor).
                for plain in (maker.plain, False):
                    maker.plain, was = plain, maker.plain
                    for k in range(len(maker)):
                        view = maker[k]
                        match, lines, page, frag = maker.row(k)
                        assert (match, list(lines), page, frag) == (view.match, list(view.lines), view.page,
                                                                    view.anchor)
                    maker.plain = was
                    kinds.add("plain" if plain else "escaped")
            # Twice: the second time every lobby's view and names are read from what the first kept.
            for _ in range(2):
                for pv in lv.leaderboard:
                    made = games_data(lv, pv, decimals, careers.of(pv).rivals, careers) if big \
                        else games_data(lv, pv, decimals)
                    want = _rows(lv, pv, decimals)
                    assert made.startswith(want), (lv.config.slug, pv.name)
                    assert big or made[len(want):] == "}\n", (lv.config.slug, pv.name)
                    for g in pv.games:
                        line = g.line
                        kinds.add("games" if isinstance(pv.games, Games) else "views")
                        kinds.add("duel" if len(g.match.lines) == 2 and line.team is None
                                  else "team" if line.team is not None else "lobby")
            if kept:
                assert not any(len(match.players) == 2 for match, *_ in
                               league.cache.get(gamesdata.MATCHES_SEEN, (None, {}))[1].values())
    assert {"small": {"games", "views", "duel", "lobby", "plain"}, "hostile": {"games", "duel", "lobby", "escaped"},
            "demo": {"games", "team", "lobby", "plain", "escaped"}}[fixture] <= kinds
