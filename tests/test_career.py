"""A player's career (sitegen/model/career.py) and the player pages built from it.

Elo leagues here use K = 20 for everyone (k = 20, k_of = "each") so that every
rating before a match is worked out by hand: a first win between two new players
leaves 1510 and 1490, since E = 0.5 and 20 x (1 - 0.5) = 10.
"""

from __future__ import annotations

import json
import re
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import build_data, day, elo_match, league_toml, read_csv, write_files
from sitegen.load import config as cfg
from sitegen.commands.build import build
from sitegen.model.career import LeagueCareers, periods, ranges
from sitegen.model.history import rate_league
from sitegen.load.site import load_site
from sitegen.model.views import LeagueView, league_view
from sitegen.output.pages import LATEST_GAMES
from sitegen.load.problems import Problems
from sitegen.load.validate import league_matches

FIXED_K = 'k = 20\nk_of = "each"'


def views(root: Path) -> dict[str, LeagueView]:
    """Every league's view model: the steps of `check` up to rating, without the content pages."""
    problems = Problems()
    source = load_site(root, problems)
    roster = cfg.roster(source.players, problems)
    leagues = [league_matches(ls, c, roster, problems) for ls in source.leagues
               if (c := cfg.league_config(ls, problems)) is not None]
    assert not problems, list(problems)
    return {lg.config.slug: league_view(rate_league(lg), roster) for lg in leagues}


def career_of(root: Path, league: str, player: str):
    lv = views(root)[league]
    careers = LeagueCareers(lv)
    return careers, careers.of(lv.players[player])


def elo_site(make_site, games: str, **kw):
    return make_site({"matches/x/league.toml": league_toml("elo", params=FIXED_K),
                      "matches/x/games.toml": games}, **kw)


def when(n: int) -> str:
    return day(n)


# --- record and streaks --------------------------------------------------------------

# Hero's results, in order: W W D W W W L D D W
RESULTS = [1, 1, 0.5, 1, 1, 1, 0, 0.5, 0.5, 1]


def test_streaks_draws_break_a_winning_run_not_an_unbeaten_one(make_site):
    games = "".join(elo_match(when(i), "Hero", s, f"Opp{i % 3}", 1 - s) for i, s in enumerate(RESULTS))
    _, career = career_of(elo_site(make_site, games), "x", "Hero")
    assert (career.record.wins, career.record.draws, career.record.losses) == (6, 3, 1)
    assert career.record.games == 10
    assert career.record.score == 75          # (6 + 3 / 2) / 10
    win = career.longest_win
    assert (win.kind, win.length, win.first.number, win.last.number) == ("win", 3, 4, 6)
    assert (win.start, win.end) == (datetime(2024, 1, 1, 0, 3, tzinfo=timezone.utc),
                                     datetime(2024, 1, 1, 0, 5, tzinfo=timezone.utc))
    unbeaten = career.longest_unbeaten
    assert (unbeaten.length, unbeaten.first.number, unbeaten.last.number) == (6, 1, 6)
    current = career.current
    assert (current.kind, current.length, current.first.number) == ("win", 1, 10)
    assert career.placings is None


def test_current_streak_is_the_run_of_the_last_result(make_site):
    results = [1, 1, 0, 0.5, 0, 0, 0]
    games = "".join(elo_match(when(i), "Hero", s, "Foe", 1 - s) for i, s in enumerate(results))
    lv = views(elo_site(make_site, games))["x"]
    careers = LeagueCareers(lv)
    career, foe = careers.of(lv.players["Hero"]), careers.of(lv.players["Foe"])
    assert (career.current.kind, career.current.length, career.current.first.number) == ("loss", 3, 5)
    assert career.longest_win.length == 2
    assert career.longest_unbeaten.length == 2      # the draw stands alone between losses
    # Foe: L L W D W W W
    assert (foe.current.kind, foe.current.length) == ("win", 3)
    assert (foe.longest_win.length, foe.longest_win.first.number) == (3, 5)
    assert (foe.longest_unbeaten.length, foe.longest_unbeaten.first.number) == (5, 3)


def test_a_player_who_never_won_has_no_winning_streak(make_site):
    games = elo_match(when(0), "Hero", 0, "Foe", 1) + elo_match(when(1), "Hero", 0.5, "Foe", 0.5)
    _, career = career_of(elo_site(make_site, games), "x", "Hero")
    assert career.longest_win is None
    assert career.longest_unbeaten.length == 1 and career.longest_unbeaten.first.number == 2
    assert career.best_wins == ()


# --- best wins and head to head ------------------------------------------------------

# A beats B and C beats D (1510 / 1490 each); Hero (1500) then beats D (1490), A (1510),
# B (1490), E, F and G (1500 each, new), loses to C (1510) and draws with C.
BEST = [("A", 1, "B"), ("C", 1, "D"), ("Hero", 1, "D"), ("Hero", 1, "A"), ("Hero", 1, "B"),
        ("Hero", 1, "E"), ("Hero", 1, "F"), ("Hero", 1, "G"), ("Hero", 0, "C"), ("C", 0.5, "Hero")]


def best_site(make_site):
    games = "".join(elo_match(when(i), a, s, b, 1 - s, id=f"m{i + 1}") for i, (a, s, b) in enumerate(BEST))
    return elo_site(make_site, games)


def test_best_wins_highest_rated_opponents_first_earlier_first_among_equals(make_site):
    _, career = career_of(best_site(make_site), "x", "Hero")
    shown = [(w.opponents[0].text, round(w.rating, 9), w.game.match.id) for w in career.best_wins]
    # Six wins, five shown: B (1490, m5) loses its place to D (1490, m3), played earlier.
    assert shown == [("A", 1510, "m4"), ("E", 1500, "m6"), ("F", 1500, "m7"), ("G", 1500, "m8"),
                     ("D", 1490, "m3")]


def test_head_to_head_lists_every_opponent_with_the_net_change(make_site):
    root = best_site(make_site)
    careers, career = career_of(root, "x", "Hero")
    assert careers.duels and careers.outcome_labels == ("Won", "Drawn", "Lost")
    rows = {r.opponent.text: r for r in career.rivals}
    assert [r.opponent.text for r in career.rivals] == ["C", "A", "B", "D", "E", "F", "G"]
    assert (rows["C"].games, rows["C"].wins, rows["C"].draws, rows["C"].losses) == (2, 0, 1, 1)
    assert all((rows[o].games, rows[o].wins, rows[o].losses) == (1, 1, 0) for o in "ABDEFG")
    changes = read_csv(build_data(root, "x")["changes.csv"])
    hero = {r["event"]: float(r["delta"]) for r in changes if r["player"] == "Hero"}
    assert rows["C"].change == pytest.approx(hero["m9"] + hero["m10"], abs=2e-6)   # 6 decimals in the CSV
    # Hand-worked: Hero's first game, 1500 against D's 1490: E = 1 / (1 + 10^(-10/400)), 20 (1 - E) = +9.712
    assert rows["D"].change == pytest.approx(20 * (1 - 1 / (1 + 10 ** (-10 / 400))), abs=1e-9)
    assert sum(r.change for r in career.rivals) == pytest.approx(sum(hero.values()), abs=1e-5)


PLACEMENT = """
[[match]]
id = "m1"
played = 2024-01-01
players = [{ name = "A", place = 1 }, { name = "B", place = 2 }, { name = "C", place = 2 }, { name = "D", place = 4 }]

[[match]]
id = "m2"
played = 2024-01-02
players = [{ name = "C", place = 2 }, { name = "A", place = 3 }, { name = "B", place = 1 }]
"""


def test_placement_head_to_head_counts_ahead_level_behind(make_site):
    root = make_site({"matches/br/league.toml": league_toml("placement"), "matches/br/s.toml": PLACEMENT})
    lv = views(root)["br"]
    careers = LeagueCareers(lv)
    assert careers.outcome_labels == ("Ahead", "Level", "Behind") and not careers.duels
    table = {(p, r.opponent.text): (r.games, r.wins, r.draws, r.losses)
             for p in "ABCD" for r in careers.of(lv.players[p]).rivals}
    assert table[("A", "B")] == (2, 1, 0, 1)
    assert table[("A", "C")] == (2, 1, 0, 1)
    assert table[("A", "D")] == (1, 1, 0, 0)
    assert table[("B", "C")] == (2, 1, 1, 0)
    assert table[("C", "B")] == (2, 0, 1, 1)
    assert table[("D", "A")] == (1, 0, 0, 1)
    assert all(r.change is None for r in careers.of(lv.players["A"]).rivals)
    a, b, d = (careers.of(lv.players[p]).placings for p in "ABD")
    assert (a.games, a.firsts, a.podiums, a.average, a.best_place) == (2, 1, 2, 2.0, "1st")
    assert (b.firsts, b.podiums, b.average) == (1, 2, 1.5)
    assert (d.firsts, d.podiums, d.average, d.best_place) == (0, 0, 4.0, "4th")
    assert careers.of(lv.players["A"]).record is None


def test_glicko2_head_to_head_counts_who_scored_more(make_site):
    games = ('[[match]]\nplayed = 2024-01-01\nplayers = [{ name = "A", score = 10 }, '
             '{ name = "B", score = 5 }, { name = "C", score = 5 }]\n')
    root = make_site({"matches/w/league.toml": league_toml("glicko2"), "matches/w/g.toml": games})
    lv = views(root)["w"]
    careers = LeagueCareers(lv)
    rows = {r.opponent.text: (r.games, r.wins, r.draws, r.losses) for r in careers.of(lv.players["B"]).rivals}
    assert rows == {"A": (1, 0, 0, 1), "C": (1, 0, 1, 0)}


ARENA = """
[[match]]
id = "t1"
played = 2024-05-01
score_to_win = 50
[[match.teams]]
won = true
players = [{ name = "Ana", kills = 20, deaths = 5 }, { name = "Kai", kills = 10, deaths = 10 }]
[[match.teams]]
won = false
players = [{ name = "Bo", kills = 5, deaths = 20 }, { name = "Zed", kills = 10, deaths = 10 }]

[[match]]
id = "t2"
played = 2024-05-02
score_to_win = 50
[[match.teams]]
won = false
players = [{ name = "Bo", kills = 5, deaths = 20 }, { name = "Kai", kills = 10, deaths = 10 }]
[[match.teams]]
won = true
players = [{ name = "Ana", kills = 20, deaths = 5 }, { name = "Zed", kills = 30, deaths = 3 }]
"""


def test_team_best_wins_use_the_opposing_sides_mean_rating(make_site):
    root = make_site({"matches/a/league.toml": league_toml("arena"), "matches/a/g.toml": ARENA})
    lv = views(root)["a"]
    careers = LeagueCareers(lv)
    ana = careers.of(lv.players["Ana"])
    # t1: nobody had a rating yet, so the win cannot be weighed; t2: Bo and Kai's means after t1.
    bo, kai = (lv.players[p].games[0].line.after for p in ("Bo", "Kai"))
    assert [(w.game.match.id, [o.text for o in w.opponents]) for w in ana.best_wins] == [("t2", ["Bo", "Kai"])]
    assert ana.best_wins[0].rating == pytest.approx((bo + kai) / 2, abs=1e-9)
    rows = {r.opponent.text: (r.games, r.wins, r.losses) for r in ana.rivals}
    assert rows == {"Bo": (2, 2, 0), "Zed": (1, 1, 0), "Kai": (1, 1, 0)}
    assert not careers.duels


# --- the chart's ranges and text alternative -------------------------------------------

def test_month_table_values(make_site):
    # Hero (1500) beats new players on 31 Jan and 1 Feb, loses on 15 Mar 2024 and 2 Jan 2025.
    games = (elo_match("2024-01-31T23:00:00Z", "Hero", 1, "A", 0)
             + elo_match("2024-02-01T00:30:00Z", "Hero", 1, "B", 0)
             + elo_match("2024-03-15T12:00:00Z", "Hero", 0, "C", 1)
             + elo_match("2025-01-02T12:00:00Z", "Hero", 0, "D", 1))
    lv = views(elo_site(make_site, games))["x"]
    rows, unit = periods(lv.players["Hero"].games)
    ratings = [g.line.after for g in lv.players["Hero"].games]
    assert ratings[0] == 1510                  # 1500 + 20 x 0.5
    assert unit == "month"
    assert [(p.label, p.games) for p in rows] == [("2024-01", 1), ("2024-02", 1), ("2024-03", 1), ("2025-01", 1)]
    assert [(p.end, p.high, p.low) for p in rows] == [(r, r, r) for r in ratings]
    # Hand-worked second game: 1510 against a new 1500, 20 (1 - 1 / (1 + 10^(-10/400))) = +9.712
    assert ratings[1] == pytest.approx(1510 + 20 * (1 - 1 / (1 + 10 ** (-10 / 400))), abs=1e-9)


def test_month_table_high_low_and_years_past_36_months(make_site):
    results = [1, 1, 0, 0, 1]       # 1510, 1519.7, 1509.2, 1498.6, 1508.7
    games = "".join(elo_match(f"2024-06-0{i + 1}T10:00:00Z", "Hero", s, f"O{i}", 1 - s)
                    for i, s in enumerate(results))
    lv = views(elo_site(make_site, games))["x"]
    (june,), unit = periods(lv.players["Hero"].games)
    after = [g.line.after for g in lv.players["Hero"].games]
    assert after[3] < after[4] < after[0] < after[1]
    assert (june.label, june.games, june.end, june.high, june.low) == ("2024-06", 5, after[4], after[1], after[3])
    long = "".join(elo_match(f"{2020 + i // 12}-{i % 12 + 1:02d}-01", "Hero", 1, f"O{i}", 0) for i in range(40))
    lv = views(elo_site(make_site, long))["x"]
    rows, unit = periods(lv.players["Hero"].games)
    assert unit == "year"
    assert [(p.label, p.games) for p in rows] == [("2020", 12), ("2021", 12), ("2022", 12), ("2023", 4)]


def test_chart_ranges_count_back_from_the_last_game(make_site):
    # 130 games, one every 4 days: the last year before the last game holds games 39..130.
    start = datetime(2023, 1, 1, 12, tzinfo=timezone.utc)
    games = "".join(elo_match((start + timedelta(days=4 * i)).strftime("%Y-%m-%dT%H:%M:%SZ"),
                              "Hero", 1, f"O{i % 5}", 0) for i in range(130))
    lv = views(elo_site(make_site, games))["x"]
    hero = lv.players["Hero"].games
    last = hero[-1].match.match.played
    first_in_year = min(g.number for g in hero if g.match.match.played >= last.replace(year=last.year - 1))
    assert first_in_year == 39               # 4 x 91 = 364 days back; 4 x 92 = 368 is too far
    assert [(r.key, r.first) for r in ranges(hero)] == [("all", 1), ("year", 39), ("recent", 31)]
    # The pages take them from the league's table of games: the same ranges, for every player.
    careers = LeagueCareers(lv)
    for pv in lv.players.values():
        assert careers.of(pv).ranges == ranges(pv.games)
    few = views(elo_site(make_site, "".join(elo_match(when(i), "Hero", 1, "Foe", 0) for i in range(5))))
    assert [r.key for r in ranges(few["x"].players["Hero"].games)] == ["all"]


# --- the pages ---------------------------------------------------------------------------

def _page(out: Path, url: str) -> str:
    return (out / url / "index.html").read_text(encoding="utf-8")


def _games_rows(html: str) -> list[int]:
    table = html.split('<table class="gl">', 1)[1].split("</table>", 1)[0]
    return [int(n) for n in re.findall(r'<tr><td>(\d+)<td>', table)]


@pytest.mark.parametrize("count", [5, 20, 21, 250])
def test_player_page_shows_the_latest_games_and_the_data_file_holds_them_all(make_site, tmp_path, count):
    games = "".join(elo_match(when(i), "Hero", 1, "Foe", 0) for i in range(count))
    out = tmp_path / f"out{count}"
    build(elo_site(make_site, games), out)
    player = "leagues/x/players/hero/"
    first = _page(out, player)
    assert _games_rows(first) == list(range(count, max(count - LATEST_GAMES, 0), -1))
    assert not (out / player / "games").exists()        # no numbered pages: the data file has them
    assert ('id="games-all"' in first) == (count > LATEST_GAMES)
    assert 'href="../../../../leagues/x/players/hero/games.json"' in first
    assert 'href="../../../../data/x/changes.csv"' in first
    doc = json.loads((out / player / "games.json").read_text(encoding="utf-8"))
    assert doc["player"] == "Hero" and doc["league"] == "leagues/x/"
    assert doc["columns"] == ["played", "group", "anchor", "opponents", "result", "change", "rating"]
    assert len(doc["games"]) == count
    changes = [r for r in read_csv((out / "data/x/changes.csv").read_text(encoding="utf-8")) if r["player"] == "Hero"]
    for row, change in zip(doc["games"], changes):
        played, group, frag, opponents, result, _, rating = row
        assert frag == "m-" + change["event"] and opponents == "Foe" and result.startswith("win")
        assert rating == pytest.approx(float(change["rating_after"]), abs=0.005)   # two decimals
        assert played[:16] == change["played"][:16]
        # The data file's link is the match's own anchor on its file's page.
        page = _page(out, doc["league"] + doc["groups"][group])
        assert f'<tbody id="{frag}">' in page


def test_opponents_page_lists_every_opponent(make_site, tmp_path):
    names = ['<b>Bad</b> & "Co"', "Zoë", "Ana", "{{ x }}"]
    games = "".join(elo_match(when(i), "Hero", 1, names[i % 4].replace('"', '\\"'), 0)
                    for i in range(60) if i % 4 or i < 8)   # Bad plays 2 games, the others 15 each
    out = tmp_path / "out"
    build(elo_site(make_site, games), out)
    html = _page(out, "leagues/x/players/hero/opponents/")
    cells = re.findall(r'<tr><td><a href="[^"]+" class="name" title="[^"]*">([^<]*)</a></td><td>(\d+)</td>', html)
    assert cells == [("Ana", "15"), ("Zoë", "15"), ("{{ x }}", "15"),
                     ("&lt;b&gt;Bad&lt;/b&gt; &amp; &#34;Co&#34;", "2")]
    assert "<h1>Opponents of Hero</h1>" in html
    assert 'class="h2h"' in _page(out, "leagues/x/players/hero/")


# --- properties --------------------------------------------------------------------------

PLAYERS = ["A", "B", "C", "D"]
game = st.tuples(st.sampled_from(PLAYERS), st.sampled_from(PLAYERS), st.sampled_from([1, 0.5, 0])).filter(
    lambda t: t[0] != t[1])


def _site(files: dict[str, str]):
    folder = tempfile.TemporaryDirectory(prefix="career-")
    write_files(Path(folder.name), files)
    return folder


@settings(max_examples=100, deadline=None)
@given(st.lists(game, min_size=1, max_size=30))
def test_record_and_head_to_head_add_up(games):
    text = "".join(elo_match(when(i), a, s, b, 1 - s) for i, (a, b, s) in enumerate(games))
    with _site({"matches/x/league.toml": league_toml("elo", params=FIXED_K), "matches/x/g.toml": text}) as root:
        lv = views(Path(root))["x"]
    careers = LeagueCareers(lv)
    by_pair = {}
    for name, pv in lv.players.items():
        career = careers.of(pv)
        rec = career.record
        assert rec.wins + rec.draws + rec.losses == len(pv.games) == rec.games
        assert sum(r.games for r in career.rivals) == sum(len(g.opponents) for g in pv.games)
        assert sum(r.wins for r in career.rivals) == rec.wins
        assert sum(r.change for r in career.rivals) == pytest.approx(pv.rating - 1500, abs=1e-6)
        if career.longest_win:
            assert career.longest_win.length <= career.longest_unbeaten.length <= rec.wins + rec.draws
        for r in career.rivals:
            by_pair[(name, r.opponent.text)] = r
    for (a, b), r in by_pair.items():
        mirror = by_pair[(b, a)]
        assert (r.games, r.wins, r.draws, r.losses) == (mirror.games, mirror.losses, mirror.draws, mirror.wins)
        assert r.change == pytest.approx(-mirror.change, abs=1e-6)     # K is the same for both


lobby = st.lists(st.tuples(st.sampled_from(PLAYERS + ["E", "F"]), st.integers(1, 4)), min_size=2, max_size=6,
                 unique_by=lambda t: t[0])


@settings(max_examples=100, deadline=None)
@given(st.lists(lobby, min_size=1, max_size=12))
def test_placement_head_to_head_is_symmetric(lobbies):
    text = "".join(f"[[match]]\nplayed = {when(i)}\nplayers = ["
                   + ", ".join(f'{{ name = "{n}", place = {p} }}' for n, p in lob) + "]\n\n"
                   for i, lob in enumerate(lobbies))
    with _site({"matches/br/league.toml": league_toml("placement"), "matches/br/g.toml": text}) as root:
        lv = views(Path(root))["br"]
    careers = LeagueCareers(lv)
    rows = {}
    for name, pv in lv.players.items():
        career = careers.of(pv)
        assert sum(r.games for r in career.rivals) == sum(len(g.opponents) for g in pv.games)
        assert career.placings.games == len(pv.games)
        for r in career.rivals:
            assert r.wins + r.draws + r.losses == r.games
            rows[(name, r.opponent.text)] = r
    for (a, b), r in rows.items():
        assert (r.wins, r.draws, r.losses) == (rows[(b, a)].losses, rows[(b, a)].draws, rows[(b, a)].wins)
