"""The leaderboard model (sitegen/model/board.py) and its settings ([tool.sitegen] in pyproject.toml).

Small hand-made leagues with numbers worked out by hand:

- elo with a flat K of 32: a win between two 1500s is +16 / -16; then a 1484
  beating a 1516 expects 1 / (1 + 10^(32/400)) = 0.454078 and gains
  32 x (1 - 0.454078) = 17.4695.
- glicko2 with the outcome transform: two newcomers (1500, RD 350, sigma 0.06)
  in one battle end at 1662.311 / 1337.689 with RD 290.319 (Glickman's steps
  2-8); two periods sat out grow that RD to 290.693.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import elo_match, league_toml, lunaro_match, problems_of, read_csv, build_data
from sitegen.model.board import Board, bins, build_board
from sitegen.commands.build import check, rate
from sitegen.load.config import BoardSettings, LeagueConfig, Roster
from sitegen.model.history import rank, rate_league
from sitegen.model.views import league_view
from sitegen.rating import SYSTEMS
from sitegen.rating.base import Match
from sitegen.load.validate import League


def board_of(root, slug: str) -> Board:
    site = check(root)
    for rated in rate(site):
        if rated.league.config.slug == slug:
            return build_board(league_view(rated, site.roster), site.settings.board_for(slug))
    raise AssertionError(f"no league {slug!r}")


def by_name(board: Board) -> dict:
    return {r.player.name: r for r in board.rows}


def pyproject(body: str) -> str:
    return f'[project]\nname = "x"\n\n[tool.sitegen]\n{body}\n'


# --- provisional ----------------------------------------------------------------------------

def lunaro_games(counts: dict[str, int]) -> str:
    """Each named player plays their count of games against "Host", one a day."""
    text, n = "", 0
    for name, count in counts.items():
        for _ in range(count):
            n += 1
            text += lunaro_match(f"2024-01-{n:02d}", "Host", 20, 0, name, 10, 50, host=0)
    return text


def test_provisional_by_games_uses_the_site_setting(make_site):
    files = {"matches/lu/league.toml": league_toml("lunaro"),
             "matches/lu/m.toml": lunaro_games({"A": 3, "B": 2, "C": 1})}
    board = board_of(make_site(files), "lu")
    rows = by_name(board)
    # Default 10: everyone, Host (6 games) too.
    assert {n: r.provisional for n, r in rows.items()} == {"Host": True, "A": True, "B": True, "C": True}
    assert board.provisional_rule == "fewer than 10 games"

    files["pyproject.toml"] = pyproject("provisional_games = 3")
    board = board_of(make_site(files), "lu")
    rows = by_name(board)
    assert {n: (r.games, r.provisional) for n, r in rows.items()} == {
        "Host": (6, False), "A": (3, False), "B": (2, True), "C": (1, True)}
    assert board.provisional_rule == "fewer than 3 games"


def test_provisional_in_elo_follows_the_leagues_own_provisional_games(make_site):
    text = (elo_match("2024-01-01", "A", 1, "B", 0) + elo_match("2024-01-02", "A", 1, "C", 0)
            + elo_match("2024-01-03", "A", 0.5, "B", 0.5))
    files = {"matches/el/league.toml": league_toml("elo", params="provisional_games = 2"),
             "matches/el/m.toml": text,
             # The site-wide count is for systems without a rule of their own.
             "pyproject.toml": pyproject("provisional_games = 5")}
    board = board_of(make_site(files), "el")
    assert {n: (r.games, r.provisional) for n, r in by_name(board).items()} == {
        "A": (3, False), "B": (2, False), "C": (1, True)}
    assert board.provisional_rule == "fewer than 2 games (the league's provisional_games)"


def glicko_text() -> str:
    """W10: A beats B, C beats D; W11 empty; W12: D beats C."""
    def match(played: str, a: str, b: str) -> str:
        return (f'[[match]]\nplayed = {played}\nplayers = [{{ name = "{a}", score = 1 }}, '
                f'{{ name = "{b}", score = 0 }}]\n\n')
    return (match("2024-03-05T20:00:00Z", "A", "B") + match("2024-03-06T20:00:00Z", "C", "D")
            + match("2024-03-19T20:00:00Z", "D", "C"))


def glicko_site(make_site, settings: str = "", period: str = "week"):
    files = {"matches/wv/league.toml": league_toml("glicko2", params=f'score_transform = "outcome"\n'
                                                                     f'period = "{period}"'),
             "matches/wv/m.toml": glicko_text()}
    if settings:
        files["pyproject.toml"] = pyproject(settings)
    return make_site(files)


def test_glicko2_ratings_rd_and_interval(make_site):
    board = board_of(glicko_site(make_site), "wv")
    rows = by_name(board)
    assert [r.player.name for r in board.active] == ["A", "D", "C", "B"]
    a, d = rows["A"], rows["D"]
    assert a.player.rating == pytest.approx(1662.311, abs=1e-3)
    assert a.player.extra["rd"] == pytest.approx(290.693, abs=1e-3)     # 290.319 grown by W11, W12
    assert d.player.rating == pytest.approx(1567.106, abs=1e-3)
    assert d.player.extra["rd"] == pytest.approx(260.632, abs=1e-3)
    # The 95% interval: rating +- 2 RD.
    assert board.has_interval
    assert a.spread == pytest.approx(581.386, abs=1e-3)
    assert (a.low, a.high) == (pytest.approx(1080.925, abs=1e-3), pytest.approx(2243.697, abs=1e-3))
    # Default 110: every RD here is far above it.
    assert all(r.provisional for r in board.rows)
    assert board.provisional_rule == "an RD above 110"


def test_provisional_by_rd_is_strictly_above_the_limit(make_site):
    board = board_of(glicko_site(make_site, "provisional_rd = 270"), "wv")
    assert {n: r.provisional for n, r in by_name(board).items()} == {
        "A": True, "B": True, "C": False, "D": False}          # 290.693 vs 260.632
    assert board_of(glicko_site(make_site, "provisional_rd = 290.7"), "wv").rows[0].provisional is False


def test_no_interval_without_rd(make_site):
    files = {"matches/lu/league.toml": league_toml("lunaro"),
             "matches/lu/m.toml": lunaro_games({"A": 1})}
    board = board_of(make_site(files), "lu")
    assert not board.has_interval
    assert [(r.spread, r.low, r.high) for r in board.rows] == [(None, None, None)] * 2


# --- inactive -------------------------------------------------------------------------------

def test_inactive_cutoff_is_exact_and_ranks_stay_official(make_site, tmp_path):
    text = (elo_match("2023-12-31T23:59:59Z", "A", 1, "B", 0)     # 1 s too early: inactive
            + elo_match("2024-01-01T00:00:00Z", "E", 1, "C", 0)   # exactly 10 days before: active
            + elo_match("2024-01-11T00:00:00Z", "C", 1, "D", 0))  # the league's last match
    root = make_site({"matches/el/league.toml": league_toml("elo", params="k = 32"),
                      "matches/el/m.toml": text, "pyproject.toml": pyproject("inactive_days = 10")})
    board = board_of(root, "el")
    assert board.last_played == datetime(2024, 1, 11, tzinfo=timezone.utc)
    assert board.active_since == datetime(2024, 1, 1, tzinfo=timezone.utc)
    # A and E 1516, B 1484; then C (1484) beats D (1500): E = 1 / (1 + 10^(16/400)) = 0.476990,
    # C 1484 + 32 x 0.523010 = 1500.74, D 1483.26, just below B.
    assert [(r.player.name, r.player.rank) for r in board.active] == [("E", 1), ("C", 3), ("D", 5)]
    assert [(r.player.name, r.player.rank) for r in board.inactive] == [("A", 1), ("B", 4)]
    assert by_name(board)["C"].player.rating == pytest.approx(1484 + 32 / (1 + 10 ** (-16 / 400)), abs=1e-9)
    standings = read_csv(build_data(root, "el", tmp_path / "out")["standings.csv"])
    assert {r["player"]: int(r["rank"]) for r in standings} == {
        r.player.name: r.player.rank for r in board.rows}
    assert not board.collapsed                       # 2 inactive players are listed as they are


def test_long_inactive_list_is_collapsed(make_site):
    text = "".join(elo_match(f"2020-01-{i + 1:02d}", f"P{i:02d}", 1, f"Q{i:02d}", 0) for i in range(6))
    text += elo_match("2024-01-01", "X", 1, "Y", 0)
    root = make_site({"matches/el/league.toml": league_toml("elo"), "matches/el/m.toml": text})
    board = board_of(root, "el")
    assert (len(board.active), len(board.inactive), board.collapsed) == (2, 12, True)
    # The distribution counts the active players only.
    assert sum(b.count for b in board.distribution) == 2
    assert board.distribution_of == "active players"


# --- movement, movers, activity ---------------------------------------------------------------

def movement_site(make_site):
    """Before the window: A beats B, C beats D (A, C 1516 tied first; B, D 1484 tied third).
    In the window: D beats C (+-17.4695), newcomers E and F draw twice (1500 each)."""
    text = (elo_match("2024-01-01", "A", 1, "B", 0) + elo_match("2024-01-02", "C", 1, "D", 0)
            + elo_match("2024-01-23T00:00:00Z", "D", 1, "C", 0)        # exactly at the window's start
            + elo_match("2024-01-24", "E", 0.5, "F", 0.5) + elo_match("2024-02-02", "F", 0.5, "E", 0.5))
    return make_site({"matches/el/league.toml": league_toml("elo", params="k = 32"),
                      "matches/el/m.toml": text, "pyproject.toml": pyproject("movement_days = 10")})


def test_rank_movement_with_ties_and_newcomers(make_site):
    board = board_of(movement_site(make_site), "el")
    assert board.window_start == datetime(2024, 1, 23, tzinfo=timezone.utc)
    assert board.since == "since 2024-01-23" and not board.by_period
    got = {n: (r.player.rank, r.movement.places, r.movement.text, r.movement.kind)
           for n, r in by_name(board).items()}
    assert got == {
        "A": (1, 0, "\u2013", "same"),            # 1 (tied with C) -> 1
        "D": (2, 1, "\u25b21", "up"),             # 3 (tied with B) -> 2
        "E": (3, None, "new", "new"),             # 1500, tied with F
        "F": (3, None, "new", "new"),
        "C": (5, -4, "\u25bc4", "down"),          # 1 -> 5
        "B": (6, -3, "\u25bc3", "down"),          # 3 -> 6, without playing
    }
    rows = by_name(board)
    assert rows["D"].movement.label == "up 1 place since 2024-01-23"
    assert rows["C"].movement.label == "down 4 places since 2024-01-23"
    assert rows["A"].movement.label == "no change since 2024-01-23"
    assert rows["E"].movement.label == "first rated since 2024-01-23"


def test_movers_and_most_active(make_site):
    board = board_of(movement_site(make_site), "el")
    gain = 32 * (1 - 1 / (1 + 10 ** (32 / 400)))          # 17.4695
    assert [(m.player.name, m.before, m.change) for m in board.gainers] == [
        ("D", 1484, pytest.approx(gain, abs=1e-9))]
    assert [(m.player.name, m.before, m.change) for m in board.losers] == [
        ("C", 1516, pytest.approx(-gain, abs=1e-9))]
    assert gain == pytest.approx(17.4695, abs=1e-4)
    # E and F are new: no change to show. Most active: E and F twice, C and D once.
    assert [(a.player.name, a.games) for a in board.most_active] == [("E", 2), ("F", 2), ("C", 1), ("D", 1)]
    assert board.same_games is None and board.window_players == 4


def test_movers_keep_the_top_five_each_way(make_site):
    # Ten draws between newcomers (nothing moves), then in the window each P beats its Q: +-16.
    text = "".join(elo_match(f"2024-01-{i + 1:02d}", f"P{i}", 0.5, f"Q{i}", 0.5) for i in range(10))
    text += "".join(elo_match(f"2024-02-{i + 1:02d}", f"P{i}", 1, f"Q{i}", 0) for i in range(10))
    root = make_site({"matches/el/league.toml": league_toml("elo", params="k = 32"),
                      "matches/el/m.toml": text, "pyproject.toml": pyproject("movement_days = 20")})
    board = board_of(root, "el")
    assert [(m.player.name, m.change) for m in board.gainers] == [(f"P{i}", 16) for i in range(5)]
    assert [(m.player.name, m.change) for m in board.losers] == [(f"Q{i}", -16) for i in range(5)]
    # Twenty players with one match each: no list of the most active.
    assert board.most_active == () and (board.same_games, board.window_players) == (1, 20)


def test_glicko2_moves_by_rating_period(make_site):
    board = board_of(glicko_site(make_site), "wv")
    assert board.by_period and board.since == "in rating period 2024-W12"
    got = {n: (r.player.rank, r.movement.text) for n, r in by_name(board).items()}
    # After 2024-W10: A and C tied first at 1662.311, B and D tied third at 1337.689.
    assert got == {"A": (1, "\u2013"), "D": (2, "\u25b21"), "C": (3, "\u25bc2"), "B": (4, "\u25bc1")}
    assert by_name(board)["C"].movement.label == "down 2 places in rating period 2024-W12"
    assert [(m.player.name, round(m.change, 3)) for m in board.gainers] == [("D", 229.417)]
    assert [(m.player.name, round(m.change, 3)) for m in board.losers] == [("C", -229.417)]
    # One match each in the period: no list, the sentence instead.
    assert board.most_active == () and (board.same_games, board.window_players) == (1, 2)


def test_glicko2_match_periods_move_over_days(make_site):
    board = board_of(glicko_site(make_site, "movement_days = 13", period="match"), "wv")
    assert not board.by_period and board.since == "since 2024-03-06"
    # 2024-03-19T20:00 - 13 days = 2024-03-06T20:00: C-D is at the start, in the window, and
    # only A (1662.311) and B (1337.689) were rated before it.
    got = {n: (r.player.rank, r.movement.text) for n, r in by_name(board).items()}
    assert got == {"A": (1, "\u2013"), "D": (2, "new"), "C": (3, "new"), "B": (4, "\u25bc2")}
    assert by_name(board)["D"].player.rating == pytest.approx(1566.940, abs=1e-3)


# --- distribution ----------------------------------------------------------------------------

def test_bins_on_round_bounds():
    # span 19 / 12 bins = 1.58 -> width 2, from 0.
    got = [(b.low, b.high, b.count) for b in bins([1, 5, 7.5, 20])]
    assert got[:5] == [(0, 2, 1), (2, 4, 0), (4, 6, 1), (6, 8, 1), (8, 10, 0)]
    assert got[-1] == (20, 22, 1) and len(got) == 11
    assert [(b.low, b.high, b.count) for b in bins([1500, 1500])] == [(1500, 1501, 2)]
    assert bins([]) == ()
    # 0.1 steps, rounded bounds; integer ratings never get bins below 1.
    assert [b.low for b in bins([0.3, 1.2])] == [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2]
    assert [(b.low, b.count) for b in bins([3, 5], integer=True)] == [(3, 1), (4, 0), (5, 1)]
    assert sum(b.count for b in bins([1337.5, 1400, 1662.3, 1662.3])) == 4
    # 324.8 / 12 = 27.07 -> 50: 1300, 1350, ..., 1650.
    assert [(b.low, b.count) for b in bins([1337.5, 1400, 1662.3, 1662.3])] == [
        (1300, 1), (1350, 0), (1400, 1), (1450, 0), (1500, 0), (1550, 0), (1600, 0), (1650, 2)]


def test_demo_distribution_chart_has_the_boards_bins(make_site):
    from sitegen.output.charts import distribution_chart

    board = board_of(glicko_site(make_site), "wv")
    spec = distribution_chart(board.distribution)
    rows = spec["datasets"]["distribution"]
    assert [(r["low"], r["high"], r["players"]) for r in rows] == [
        (b.low, b.high, b.count) for b in board.distribution]
    assert sum(r["players"] for r in rows) == 4
    assert spec["encoding"]["x"]["bin"] == {"binned": True, "step": 50.0}     # 324.6 / 12 -> 50
    assert board.bin_width == 50
    # The shared spec is not changed by a league's step.
    assert distribution_chart(bins([1, 2]))["encoding"]["x"]["bin"]["step"] == 0.1


# --- settings --------------------------------------------------------------------------------

THREE = {"matches/lu/league.toml": league_toml("lunaro"), "matches/lu/m.toml": lunaro_games({"A": 1}),
         "matches/el/league.toml": league_toml("elo"), "matches/el/m.toml": elo_match("2024-01-01", "A", 1, "B", 0),
         "matches/wv/league.toml": league_toml("glicko2"), "matches/wv/m.toml": glicko_text()}


def test_settings_problems_have_exact_field_paths(make_site):
    body = """inactive_days = 0
movement_days = "30"
provisional_games = true
provisional_rd = -1

[tool.sitegen.leagues.nope]
inactive_days = 5

[tool.sitegen.leagues.lu]
inactive = 5
provisional_rd = 100
movement_days = 1.5

[tool.sitegen.leagues.el]
provisional_games = 3

[tool.sitegen.leagues.wv]
provisional_games = 3
"""
    found = {(p.file, p.field): p.message for p in problems_of(make_site({**THREE, "pyproject.toml": pyproject(body)}))}
    assert found == {
        ("pyproject.toml", "tool.sitegen.inactive_days"): "must be a whole number of days from 1 to 36,600, got 0",
        ("pyproject.toml", "tool.sitegen.movement_days"): "must be a whole number of days from 1 to 36,600, got '30'",
        ("pyproject.toml", "tool.sitegen.provisional_games"):
            "must be a whole number of games from 1 to 1,000,000, got True",
        ("pyproject.toml", "tool.sitegen.provisional_rd"): "must be a number > 0 (a rating deviation), got -1",
        ("pyproject.toml", "tool.sitegen.leagues.nope"): "no league folder matches/nope/; leagues: el, lu, wv",
        ("pyproject.toml", "tool.sitegen.leagues.lu.inactive"):
            "unknown key; allowed keys: inactive_days, movement_days, provisional_games, provisional_rd",
        ("pyproject.toml", "tool.sitegen.leagues.lu.provisional_rd"):
            "applies only to leagues with an RD (glicko2); 'lu' is rated with lunaro",
        ("pyproject.toml", "tool.sitegen.leagues.lu.movement_days"):
            "must be a whole number of days from 1 to 36,600, got 1.5",
        ("pyproject.toml", "tool.sitegen.leagues.el.provisional_games"):
            "'el' is rated with elo, which has its own provisional_games parameter; "
            "set it under [params] in matches/el/league.toml",
        ("pyproject.toml", "tool.sitegen.leagues.wv.provisional_games"):
            "'wv' is rated with glicko2, where a rating is provisional by its RD; set provisional_rd instead",
    }


def test_settings_leagues_must_be_tables(make_site):
    found = {p.field: p.message for p in problems_of(make_site({**THREE, "pyproject.toml": pyproject("leagues = 5")}))}
    assert found == {"tool.sitegen.leagues": "must be tables like [tool.sitegen.leagues.<slug>], got an integer"}
    site = make_site({**THREE, "pyproject.toml": pyproject("leagues = { lu = 5 }")})
    found = {p.field: p.message for p in problems_of(site)}
    assert found == {"tool.sitegen.leagues.lu": "must be a table of inactive_days, movement_days, "
                                                "provisional_games, provisional_rd, got an integer"}
    found = {p.field: p.message for p in problems_of(make_site({**THREE, "pyproject.toml": pyproject("inactive = 5")}))}
    assert "inactive_days" in found["tool.sitegen.inactive"] and "title" in found["tool.sitegen.inactive"]


def test_per_league_overrides_merge_over_the_site_settings(make_site):
    body = ("inactive_days = 30\nprovisional_rd = 80.5\n\n[tool.sitegen.leagues.lu]\nmovement_days = 7\n\n"
            "[tool.sitegen.leagues.wv]\nprovisional_rd = 200\ninactive_days = 3\n")
    settings = check(make_site({**THREE, "pyproject.toml": pyproject(body)})).settings
    assert settings.board == BoardSettings(inactive_days=30, movement_days=30, provisional_games=10,
                                           provisional_rd=80.5)
    assert settings.board_for("lu") == BoardSettings(30, 7, 10, 80.5)
    assert settings.board_for("wv") == BoardSettings(3, 30, 10, 200)
    assert settings.board_for("el") == settings.board
    assert check(make_site(THREE)).settings.board_for("el") == BoardSettings(365, 30, 10, 110)


def test_override_changes_the_board(make_site):
    board = board_of(glicko_site(make_site, "[tool.sitegen.leagues.wv]\ninactive_days = 13\n"
                                            "provisional_rd = 270"), "wv")
    # Last match 2024-03-19T20:00; A and B last played 2024-03-05T20:00, 14 days before.
    assert [r.player.name for r in board.active] == ["D", "C"]
    assert [r.player.name for r in board.inactive] == ["A", "B"]
    assert [r.provisional for r in board.rows] == [False, False, True, True]


# --- one pass equals recomputing the ranks at the cutoff ---------------------------------------

START = datetime(2024, 1, 1, tzinfo=timezone.utc)


def league_of(system: str, games: list[tuple[int, int, int, int, int]], **params) -> League:
    cls = SYSTEMS[system]
    values = {p.name: p.default for p in cls.params} | params
    config = LeagueConfig("lg", "League", system, cls(**values), values, frozenset(params))
    matches = []
    for i, (hour, a, b, x, y) in enumerate(sorted(games, key=lambda g: g[0])):
        if a == b:
            b = (a + 1) % 7
        if system == "lunaro":
            entries = ({"goals": x, "ping": 10 * y, "host": False}, {"goals": y, "ping": 10 * x, "host": False})
        else:
            entries = ({"score": x}, {"score": y})
        matches.append(Match(f"m{i}", START + timedelta(hours=hour), "m.toml", i + 1, None,
                             (f"P{a}", f"P{b}"), entries))
    return League(config, tuple(matches))


game = st.tuples(st.integers(0, 24 * 20), st.integers(0, 6), st.integers(0, 6),
                 st.integers(0, 20), st.integers(0, 20))


@settings(max_examples=60, deadline=None)
@given(st.lists(game, min_size=1, max_size=40), st.integers(1, 25))
def test_movement_equals_ranks_recomputed_at_the_cutoff(games, days):
    rated = rate_league(league_of("lunaro", games))      # whole-number ratings: many ties
    board = build_board(league_view(rated, Roster()), BoardSettings(movement_days=days))
    start = rated.league.matches[-1].played - timedelta(days=days)
    system = rated.league.config.system
    then = {r.standing.player: r.rank
            for r in rank(system.standings([e for e in rated.events if e.played < start]))}
    for row in board.rows:
        name = row.player.name
        assert row.movement.places == (then[name] - row.player.rank if name in then else None)
    # The window's games, counted again.
    counted = {}
    for m in rated.league.matches:
        if m.played >= start:
            for p in m.players:
                counted[p] = counted.get(p, 0) + 1
    busiest = sorted(counted.items(), key=lambda kv: (-kv[1], kv[0]))[:10]
    same = len(counted) > 1 and len(set(counted.values())) == 1
    assert [(a.player.name, a.games) for a in board.most_active] == ([] if same else busiest)


@settings(max_examples=30, deadline=None)
@given(st.lists(game, min_size=1, max_size=30))
def test_glicko2_movement_equals_ranks_after_the_previous_period(games):
    games = [(g[0], g[1], g[2], g[3] * 1000, g[4] * 1000) for g in games]
    rated = rate_league(league_of("glicko2", games, period="day"))
    board = build_board(league_view(rated, Roster()), BoardSettings())
    system = rated.league.config.system
    then = {r.standing.player: r.rank for r in rank(system.standings(rated.events[:-1]))}
    assert board.since == f"in rating period {rated.events[-1].key}"
    for row in board.rows:
        name = row.player.name
        assert row.movement.places == (then[name] - row.player.rank if name in then else None)
