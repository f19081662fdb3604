"""docs/configuration, real leagues: [initial] starting ratings for every system with an
initial rating, and elo's home advantage, margin multiplier, match weight and season reversion.

Published numbers are reproduced as sites built from league.toml and match files: Glickman's
Glicko-2 example (a player at 1500 / 200 against 1400 / 30, 1550 / 100 and 1700 / 300) and
the elo seed's worked example (001_41bcfd1597e08275.txt: 1500 against 1600, K = 20).
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import league_data, league_toml, problems_of, rows_of, run_cli
from sitegen.rating.base import Match
from sitegen.rating.elo import Elo, margin_multiplier

UTC = timezone.utc


def two(a: str, sa: float, b: str, sb: float, *, pa: float | None = None, pb: float | None = None) -> str:
    pts_a = "" if pa is None else f", points = {pa}"
    pts_b = "" if pb is None else f", points = {pb}"
    return f'players = [{{ name = "{a}", score = {sa}{pts_a} }}, {{ name = "{b}", score = {sb}{pts_b} }}]\n'


def match(played: str, body: str, **keys) -> str:
    lines = ["[[match]]", f"played = {played}"]
    for key, value in keys.items():
        if isinstance(value, bool):
            lines.append(f"{key} = {'true' if value else 'false'}")
        else:
            lines.append(f'{key} = "{value}"' if isinstance(value, str) else f"{key} = {value}")
    return "\n".join(lines) + "\n" + body + "\n"


def site_of(make_site, system: str, matches: str, *, params: str = "", initial: str = "", extra: dict | None = None):
    league = league_toml(system, params=params)
    if initial:
        league += "\n[initial]\n" + initial
    return make_site({"matches/lg/league.toml": league, "matches/lg/m.toml": matches, **(extra or {})})


def messages(make_site, *args, **kwargs) -> list[str]:
    return [str(p) for p in problems_of(site_of(make_site, *args, **kwargs))]


def standings(root) -> dict[str, dict[str, str]]:
    return {r["player"]: r for r in rows_of(league_data(root, "lg"), "standings")}


# --- the margin multiplier, by hand -------------------------------------------------------------

def test_nfl_multiplier_is_fivethirtyeights_formula():
    # ln(MOV + 1) * 2.2 / (elo_diff * 0.001 + 2.2): a 7-point win by a team 100 points better.
    # ln 8 = 2.079442; * 2.2 = 4.574771; / 2.3 = 1.989031.
    assert margin_multiplier("538-nfl", 7, 100, False) == pytest.approx(1.989031, abs=1e-6)
    assert margin_multiplier("538-nfl", 7, 100, False) == pytest.approx(math.log(7 + 1) * 2.2 / (100 * 0.001 + 2.2))
    # An underdog 50 points below wins by 1: ln 2 * 2.2 / 2.15 = 0.709267, more than a favourite's.
    assert margin_multiplier("538-nfl", 1, -50, False) == pytest.approx(0.709267, abs=1e-6)
    # A draw: ln(max(0, 1) + 1) * 2.2 = 1.524924, whatever the ratings.
    assert margin_multiplier("538-nfl", 0, 300, True) == pytest.approx(1.524924, abs=1e-6)
    # A win on equal points (a shoot-out) counts as a margin of 1.
    assert margin_multiplier("538-nfl", 0, 0, False) == margin_multiplier("538-nfl", 1, 0, False)


def test_nba_multiplier_is_fivethirtyeights_formula():
    # (MOV + 3)^0.8 / (7.5 + 0.006 * elo_diff): 13^0.8 = 7.783137; / 8.1 = 0.960881.
    assert margin_multiplier("538-nba", 10, 100, False) == pytest.approx(0.960881, abs=1e-6)
    # An underdog 50 below wins by 7: 10^0.8 = 6.309573; / 7.2 = 0.876330.
    assert margin_multiplier("538-nba", 7, -50, False) == pytest.approx(0.876330, abs=1e-6)
    # A draw: 3^0.8 / 7.5 = 2.408225 / 7.5 = 0.321097.
    assert margin_multiplier("538-nba", 0, 400, True) == pytest.approx(0.321097, abs=1e-6)


def test_no_margin_rule_is_one():
    assert margin_multiplier("none", 30, -900, False) == 1.0


@pytest.mark.parametrize("rule,gap", [("538-nfl", 2200), ("538-nfl", 3000), ("538-nba", 1250)])
def test_multiplier_off_its_domain_is_refused(rule, gap):
    with pytest.raises(ValueError):
        margin_multiplier(rule, 3, -gap, False)


# --- properties of the elo options --------------------------------------------------------------

NAMES = ["Ann", "Bo", "Cy", "Di"]
RESULTS = st.sampled_from([(1.0, 0.0), (0.5, 0.5), (0.0, 1.0)])


@st.composite
def games(draw, *, with_options: bool):
    out = []
    for i in range(draw(st.integers(1, 25))):
        a, b = draw(st.permutations(NAMES))[:2]
        sa, sb = draw(RESULTS)
        extra: dict = {}
        pa = pb = None
        if with_options:
            # Points that agree with the result: the winner has at least as many.
            lo, hi = draw(st.integers(0, 20)), draw(st.integers(0, 30))
            pa, pb = (lo + hi, lo) if sa == 1 else (lo, lo + hi) if sa == 0 else (lo, lo)
            if draw(st.booleans()):
                extra["home"] = draw(st.sampled_from([a, b]))
            if draw(st.booleans()):
                extra["season"] = str(draw(st.integers(2020, 2023)))
            extra["weight"] = draw(st.sampled_from([0.5, 1, 2, 3.5]))
            if draw(st.booleans()):
                extra["challenger"] = b
        out.append(Match(f"m{i}", datetime(2024, 1, 1, tzinfo=UTC) + timedelta(hours=i), "f", i + 1, None,
                         (a, b), ({"score": sa, "points": pa}, {"score": sb, "points": pb}), extra))
    return out


@settings(max_examples=150, deadline=None)
@given(games(with_options=True), st.sampled_from(["538-nfl", "538-nba"]), st.floats(0, 120),
       st.floats(0, 1), st.sampled_from(["fide", 24]))
def test_challenger_rule_is_zero_sum_with_weight_margin_home_and_reversion(ms, margin, home, w, k):
    system = Elo(k=k, k_of="challenger", margin=margin, home_advantage=home, season_reversion=w)
    for event in system.rate(ms):
        a, b = event.changes
        # Whatever one gains in the match the other loses; reversion happens before it.
        assert a.delta + b.delta == pytest.approx(0, abs=1e-9)
        assert a.terms["k"] == b.terms["k"]
        # Every change is recomputable from its own row (what changes.csv carries).
        for c in (a, b):
            t = c.terms
            assert c.after == pytest.approx(
                c.before + t["k"] * t["weight"] * t["margin_multiplier"] * (t["score"] - t["expected"]))


@settings(max_examples=150, deadline=None)
@given(st.floats(-5000, 5000), st.floats(0, 1), st.floats(1000, 2000))
def test_reversion_moves_towards_the_mean(rating, w, mean):
    ms = [Match("a", datetime(2024, 1, 1, tzinfo=UTC), "f", 1, None, ("A", "B"),
                ({"score": 0.5, "points": None},) * 2, {"season": "2023"}),
          Match("b", datetime(2025, 1, 1, tzinfo=UTC), "f", 2, None, ("A", "B"),
                ({"score": 0.5, "points": None},) * 2, {"season": "2024"})]
    system = Elo(k=20, season_reversion=w, reversion_mean=mean, starts={"A": rating, "B": rating})
    first, second = system.rate(ms)
    for c_first, c in zip(first.changes, second.changes):
        assert first.changes[0].terms["reverted_from"] is None      # no season before the first match
        if w == 0:
            assert c.terms["reverted_from"] is None and c.before == c_first.after
            continue
        held = c.terms["reverted_from"]
        assert held == c_first.after
        assert abs(c.before - mean) <= abs(held - mean) + 1e-9
        assert min(held, mean) - 1e-9 <= c.before <= max(held, mean) + 1e-9
        assert c.before == pytest.approx((1 - w) * held + w * mean)


def version1(ms, k_of: str) -> list[tuple[float, float]]:
    """Version 1's elo, written out again: R' = R + K (S - E), FIDE K, the challenger's K."""
    ratings, played, master = {}, {}, {}
    out = []
    for m in ms:
        a, b = m.players
        ra, rb = ratings.get(a, 1500), ratings.get(b, 1500)
        ks = []
        for p, r in ((a, ra), (b, rb)):
            reached = master.get(p, r >= 2400)
            ks.append(40.0 if played.get(p, 0) < 30 else 10.0 if reached else 20.0)
        if k_of == "challenger":
            ci = m.players.index(m.extra.get("challenger") or a)
            ks = [ks[ci]] * 2
        e = 1 / (1 + 10 ** ((rb - ra) / 400))
        s = m.entries[0]["score"]
        after = (ra + ks[0] * (s - e), rb + ks[1] * ((1 - s) - (1 - e)))
        for p, before, new in ((a, ra, after[0]), (b, rb, after[1])):
            ratings[p] = new
            played[p] = played.get(p, 0) + 1
            master[p] = master.get(p, before >= 2400) or new >= 2400
        out.append(after)
    return out


@settings(max_examples=150, deadline=None)
@given(games(with_options=False), st.sampled_from(["challenger", "each"]))
def test_defaults_give_version_1s_numbers(ms, k_of):
    events = Elo(k_of=k_of).rate(ms)
    assert [(e.changes[0].after, e.changes[1].after) for e in events] == version1(ms, k_of)
    for e in events:
        for c in e.changes:
            assert (c.terms["home"], c.terms["margin_multiplier"], c.terms["weight"], c.terms["reverted_from"]) \
                == (None, 1.0, 1.0, None)


@settings(max_examples=100, deadline=None)
@given(games(with_options=True))
def test_new_keys_change_nothing_under_default_params(ms):
    """home, season and points are facts of a match: with the defaults (no home advantage, no
    margin rule, no reversion) only the weight acts; with weight 1 the numbers are version 1's."""
    plain = [Match(m.id, m.played, m.file, m.position, None, m.players, m.entries,
                   {**m.extra, "weight": 1}) for m in ms]
    bare = [Match(m.id, m.played, m.file, m.position, None, m.players, m.entries,
                  {k: v for k, v in m.extra.items() if k == "challenger"}) for m in ms]
    with_keys = [(e.changes[0].after, e.changes[1].after) for e in Elo().rate(plain)]
    assert with_keys == [(e.changes[0].after, e.changes[1].after) for e in Elo().rate(bare)]


def test_home_advantage_is_added_to_the_home_players_rating():
    m = Match("m", datetime(2024, 1, 1, tzinfo=UTC), "f", 1, None, ("Away", "Host"),
              ({"score": 0.5, "points": None},) * 2, {"home": "Host"})
    (event,) = Elo(k=20, home_advantage=100, starts={"Away": 1600, "Host": 1500}).rate([m])
    away, host = event.changes
    assert away.terms["expected"] == pytest.approx(0.5)      # 1600 against 1500 + 100
    assert host.terms["expected"] == pytest.approx(0.5)
    assert away.terms["home"] == host.terms["home"] == "Host"


# --- published numbers as sites ------------------------------------------------------------------

GLICKMAN = (
    match("2024-03-04T18:00:00Z", 'players = [{ name = "Player", score = 1 }, { name = "Low", score = 0 }]')
    + match("2024-03-05T18:00:00Z", 'players = [{ name = "Player", score = 0 }, { name = "Mid", score = 1 }]')
    + match("2024-03-06T18:00:00Z", 'players = [{ name = "Player", score = 0 }, { name = "High", score = 1 }]')
)


def test_glickmans_example_as_a_site(make_site):
    """Three two-player matches in one ISO week are the paper's one rating period of three games."""
    root = site_of(make_site, "glicko2", GLICKMAN, params='tau = 0.5\nscore_transform = "outcome"\nperiod = "week"',
                   initial='Player = { rating = 1500, rd = 200 }\nLow = { rd = 30, rating = 1400 }\n'
                           'Mid = { rating = 1550, rd = 100, volatility = 0.06 }\n'
                           'High = { rating = 1700, rd = 300 }\n')
    rows = standings(root)
    player = rows["Player"]
    assert float(player["rating"]) == pytest.approx(1464.06, abs=0.01)
    assert float(player["rd"]) == pytest.approx(151.52, abs=0.01)
    assert float(player["volatility"]) == pytest.approx(0.05999, abs=1e-5)
    assert player["games"] == "3"
    changes = [r for r in rows_of(league_data(root, "lg"), "changes") if r["player"] == "Player"]
    assert len(changes) == 1 and changes[0]["event"] == "2024-W10"
    assert changes[0]["rating_before"] == "1500.000000" and changes[0]["rd_before"] == "200.000000"
    # An opponent's starting RD comes from its table, the volatility from the league's initial value.
    low = next(r for r in rows_of(league_data(root, "lg"), "changes") if r["player"] == "Low")
    assert (low["rating_before"], low["rd_before"], low["volatility_before"]) == \
        ("1400.000000", "30.000000", "0.060000")


@pytest.mark.parametrize("sa,sb,after_a,after_b", [
    (1, 0, 1512.8, 1587.2), (0.5, 0.5, 1502.8, 1597.2), (0, 1, 1492.8, 1607.2)])
def test_elo_seeds_worked_example_as_a_site(make_site, sa, sb, after_a, after_b):
    """Seed 001: A (1500) challenges B (1600) with K = 20; no warm-up match, [initial] sets the ratings."""
    root = site_of(make_site, "elo", match("2024-05-01T18:00:00Z", two("A", sa, "B", sb), challenger="A"),
                   params="k = 20", initial='A = 1500\nB = 1600\n')
    rows = standings(root)
    assert float(rows["A"]["rating"]) == pytest.approx(after_a, abs=0.05)
    assert float(rows["B"]["rating"]) == pytest.approx(after_b, abs=0.05)
    (first, _) = rows_of(league_data(root, "lg"), "changes")
    assert float(first["expected"]) == pytest.approx(0.360, abs=0.0005)
    assert first["rating_before"] == "1500.000000"


# --- the elo options in a built league -----------------------------------------------------------

SPEC_EXAMPLE = match("2025-01-12T18:00:00Z", two("Harbor", 1, "Ridge", 0, pa=27, pb=17), home="Harbor",
                     weight=2, season=2024)


def test_the_spec_pages_worked_example(make_site):
    """The elo spec page's numbers: Harbor (1520, at home, +65) beats Ridge (1560) 27-17 in a
    match of weight 2 under the NFL margin rule, K = 20."""
    root = site_of(make_site, "elo", SPEC_EXAMPLE, params='k = 20\nhome_advantage = 65\nmargin = "538-nfl"',
                   initial="Harbor = 1520\nRidge = 1560\n")
    harbor, ridge = rows_of(league_data(root, "lg"), "changes")
    assert float(harbor["expected"]) == pytest.approx(0.5359, abs=1e-4)
    assert float(harbor["margin_multiplier"]) == pytest.approx(2.3710, abs=1e-4)
    assert (harbor["home"], harbor["weight"], harbor["challenger"]) == ("Harbor", "2.000000", "Harbor")
    assert float(harbor["delta"]) == pytest.approx(44.01, abs=0.005)
    assert float(ridge["delta"]) == pytest.approx(-44.01, abs=0.005)
    assert harbor["margin_multiplier"] == ridge["margin_multiplier"]


def test_season_reversion_in_changes_csv(make_site):
    """w = 1/3 towards 1505: 1650 becomes 1601.67 at the new season's first match, once."""
    text = (match("2024-01-01", two("A", 0.5, "B", 0.5), season="2024")
            + match("2024-02-01", two("A", 0.5, "C", 0.5))                  # 2024 too: no season given
            + match("2025-01-01", two("A", 0.5, "B", 0.5), season=2025)
            + match("2025-02-01", two("A", 0.5, "B", 0.5)))
    root = site_of(make_site, "elo", text, params="k = 20\nseason_reversion = 0.3333333333333333",
                   initial="A = 1650\nB = 1505\nC = 1505\n")
    rows = rows_of(league_data(root, "lg"), "changes")
    by_event = {}
    for r in rows:
        by_event.setdefault(r["event"], {})[r["player"]] = r
    assert by_event["m-1"]["A"]["reverted_from"] == "" and by_event["m-2"]["A"]["reverted_from"] == ""
    third = by_event["m-3"]["A"]
    held = float(by_event["m-2"]["A"]["rating_after"])
    assert float(third["reverted_from"]) == pytest.approx(held, abs=1e-6)
    assert float(third["rating_before"]) == pytest.approx(held * 2 / 3 + 1505 / 3, abs=1e-5)
    # delta is the match's own change: after minus the reverted rating.
    assert float(third["delta"]) == pytest.approx(float(third["rating_after"]) - float(third["rating_before"]),
                                                  abs=2e-6)
    assert by_event["m-3"]["B"]["reverted_from"] != ""          # B's previous match was in 2024 as well
    assert by_event["m-4"]["A"]["reverted_from"] == ""          # once, not again within 2025


def test_a_match_without_season_takes_the_league_previous_matchs_season(make_site):
    # C's first match is in 2024; C's next match follows a 2025 match of others: reverted.
    text = (match("2024-01-01", two("A", 1, "C", 0), season="2024")
            + match("2025-01-01", two("A", 1, "B", 0), season="2025")
            + match("2025-01-02", two("C", 1, "B", 0)))
    root = site_of(make_site, "elo", text, params="k = 20\nseason_reversion = 0.5")
    rows = {(r["event"], r["player"]): r for r in rows_of(league_data(root, "lg"), "changes")}
    assert rows[("m-3", "C")]["reverted_from"] != ""
    assert rows[("m-3", "B")]["reverted_from"] == ""        # B's previous match was in 2025 too


def test_initial_with_an_alias_counts_for_its_player(make_site):
    root = site_of(make_site, "lunaro", match("2024-01-01",
                   'players = [{ name = "Kes", goals = 5, ping = 0 }, { name = "Ana", goals = 5, ping = 0 }]'),
                   initial='"old kes" = 1700\n" Ana " = 1300\n',
                   extra={"matches/players.toml": '[players."Kes"]\naliases = ["old kes"]\n'})
    rows = {r["player"]: r for r in rows_of(league_data(root, "lg"), "changes")}
    assert rows["Kes"]["rating_before"] == "1700" and rows["Ana"]["rating_before"] == "1300"


def test_placement_initial(make_site):
    root = site_of(make_site, "placement", match("2024-01-01",
                   'players = [{ name = "A", place = 1 }, { name = "B", place = 2 }]'),
                   params="k = 32", initial="B = 400\n")
    rows = {r["player"]: r for r in rows_of(league_data(root, "lg"), "changes")}
    assert rows["A"]["rating_before"] == "0.000000" and rows["B"]["rating_before"] == "400.000000"


def test_fide_k_counts_a_starting_rating_as_reached(make_site):
    root = site_of(make_site, "elo", match("2024-01-01", two("A", 0, "B", 1)),
                   params="provisional_games = 0\nk_of = \"each\"", initial="A = 2450\n")
    rows = {r["player"]: r for r in rows_of(league_data(root, "lg"), "changes")}
    assert rows["A"]["k"] == "10.000000" and rows["B"]["k"] == "20.000000"


# --- every misuse: file, line, field, what is allowed ---------------------------------------------

def test_misused_initial(make_site):
    text = match("2024-01-01", two("Ann", 1, "Bob", 0))
    got = messages(make_site, "elo", text, initial='Ann = "1600"\nBob = nan\nAnne = 1500\n"" = 1\n')
    assert got == [
        "matches/lg/league.toml:5: initial.Ann: must be a number from -1,000,000 to 1,000,000 (the player's "
        'rating before their first match), got the text "1600" (numbers are written without quotes)',
        "matches/lg/league.toml:6: initial.Bob: must be a number from -1,000,000 to 1,000,000 (the player's "
        "rating before their first match), got nan",
        "matches/lg/league.toml:7: initial.Anne: 'Anne' plays in no match of this league; did you mean 'Ann'? "
        "[initial] gives starting ratings to the league's players only",
        'matches/lg/league.toml:8: initial."": player name must be a non-empty name',
    ]


def test_initial_lunaro_and_placement_values(make_site):
    lu = match("2024-01-01", 'players = [{ name = "A", goals = 1, ping = 0 }, { name = "B", goals = 2, ping = 0 }]')
    assert messages(make_site, "lunaro", lu, initial="A = 1500.5\nB = -3\n") == [
        "matches/lg/league.toml:5: initial.A: must be a whole number from 0 to 1,000,000 (lunaro ranks are whole "
        "numbers and never below 0), got 1500.5",
        "matches/lg/league.toml:6: initial.B: must be a whole number from 0 to 1,000,000 (lunaro ranks are whole "
        "numbers and never below 0), got -3",
    ]
    pl = match("2024-01-01", 'players = [{ name = "A", place = 1 }, { name = "B", place = 2 }]')
    assert messages(make_site, "placement", pl, params="floor = 100", initial="A = 99\n") == [
        "matches/lg/league.toml:8: initial.A: must be at least the league's floor 100 (no rating goes below it), "
        "got 99"]


def test_initial_glicko2_tables(make_site):
    text = match("2024-01-01",
                 'players = [{ name = "A", score = 1 }, { name = "B", score = 2 }, { name = "C", score = 0 }]')
    got = messages(make_site, "glicko2", text,
                   initial='A = { rating = 1400, rd = 0 }\nB = { volatility = -0.1, rdd = 50 }\nC = 2e6\n')
    assert got == [
        "matches/lg/league.toml:5: initial.A.rd: must be a number > 0 and at most 1,000, got 0",
        "matches/lg/league.toml:6: initial.B.rdd: unknown key; did you mean 'rd'? allowed keys: rating, rd, volatility",
        "matches/lg/league.toml:6: initial.B.volatility: must be a number > 0 and at most 1, got -0.1",
        "matches/lg/league.toml:7: initial.C: must be a number from -1,000,000 to 1,000,000, or a table "
        "{ rating = ..., rd = ..., volatility = ... } (missing keys take the league's initial values), got 2000000.0",
    ]


def test_initial_in_an_arena_league_says_why(make_site):
    text = ('[[match]]\nplayed = 2024-01-01\nscore_to_win = 1\nteams = [\n'
            '  { won = true, players = [{ name = "A", kills = 1, deaths = 0 }] },\n'
            '  { won = false, players = [{ name = "B", kills = 0, deaths = 1 }] },\n]\n')
    assert messages(make_site, "arena", text, initial="A = 1000\n") == [
        "matches/lg/league.toml:4: initial: arena has no starting rating: a player's rating is the mean of their "
        "own game ratings, from their first game on; remove [initial]"]


def test_one_player_given_twice_by_name_and_alias(make_site):
    text = match("2024-01-01", two("Kes", 1, "Ana", 0))
    got = messages(make_site, "elo", text, initial='Kes = 1600\n"old kes" = 1650\n',
                   extra={"matches/players.toml": '[players."Kes"]\naliases = ["old kes"]\n'})
    assert got == ["matches/lg/league.toml:6: initial.\"old kes\": 'Kes' is already given a starting rating as "
                   "'Kes' ('old kes' is an alias of 'Kes' in matches/players.toml); give each player one "
                   "starting rating"]


def test_initial_that_is_not_a_table(make_site):
    league = league_toml("elo", extra="initial = 1600\n")
    root = make_site({"matches/lg/league.toml": league, "matches/lg/m.toml": match("2024-01-01", two("A", 1, "B", 0))})
    assert [str(p) for p in problems_of(root)] == [
        'matches/lg/league.toml:3: initial: must be a table of starting ratings by player ([initial], then '
        '"Name" = 1650 on lines of their own), got 1600; the rating every new player starts at is a parameter: '
        "write it under [params]"]


def test_misused_elo_keys(make_site):
    text = (match("2024-01-01", two("A", 1, "B", 0), home="C")
            + match("2024-01-02", two("A", 1, "B", 0), weight=0)
            + match("2024-01-03", two("A", 1, "B", 0), weight=-2.5, season="")
            + match("2024-01-04", two("A", 1, "B", 0), season=True)
            + match("2024-01-05", two("A", 1, "B", 0, pa=-1, pb=0))
            + match("2024-01-06", two("A", 0, "B", 1, pa=3, pb=1))
            + match("2024-01-07", two("A", 0.5, "B", 0.5, pa=3, pb=1)))
    got = messages(make_site, "elo", text)
    assert got == [
        "matches/lg/m.toml:3: match #1 (m-1): home: 'C' does not play in this match; must be one of 'A', 'B'",
        "matches/lg/m.toml:8: match #2 (m-2): weight: must be a number > 0 and at most 1,000 (the match's "
        "importance; 1 is an ordinary match), got 0",
        "matches/lg/m.toml:13: match #3 (m-3): weight: must be a number > 0 and at most 1,000 (the match's "
        "importance; 1 is an ordinary match), got -2.5",
        "matches/lg/m.toml:14: match #3 (m-3): season: must be a non-empty text of at most 64 characters or a "
        'whole number from 0 to 1,000,000 (such as "2024-25" or 2024), got the text ""',
        "matches/lg/m.toml:19: match #4 (m-4): season: must be a non-empty text of at most 64 characters or a "
        'whole number from 0 to 1,000,000 (such as "2024-25" or 2024), got true',
        "matches/lg/m.toml:24: match #5 (m-5): players[0].points: must be a number from 0 to 1,000,000 (the game "
        "score, such as goals), got -1",
        "matches/lg/m.toml:28: match #6 (m-6): players[0].score: this player has more points (3 to 1) and so "
        "must have score 1 (a win), got 0; correct the points or the scores",
        "matches/lg/m.toml:32: match #7 (m-7): players[0].score: this player has more points (3 to 1) and so "
        "must have score 1 (a win), got 0.5; correct the points or the scores",
    ]


def test_a_margin_rule_needs_both_players_points(make_site):
    text = match("2024-01-01", two("A", 1, "B", 0, pa=3)) + match("2024-01-02", two("A", 1, "B", 0))
    got = messages(make_site, "elo", text, params='margin = "538-nba"')
    missing = ('is missing; with margin = "538-nba" both players need points '
               '(a number >= 0, the game score such as goals)')
    assert got == [f"matches/lg/m.toml:3: match #1 (m-1): players[1].points: {missing}",
                   f"matches/lg/m.toml:7: match #2 (m-2): players[0].points: {missing}",
                   f"matches/lg/m.toml:7: match #2 (m-2): players[1].points: {missing}"]


def test_bad_elo_params(make_site):
    text = match("2024-01-01", two("A", 1, "B", 0))
    got = messages(make_site, "elo", text, params='margin = "538"\nseason_reversion = 1.5\nhome_advantage = "48"')
    assert got == [
        "matches/lg/league.toml:5: params.margin: must be \"none\", \"538-nfl\" or \"538-nba\", got the text \"538\" "
        "(numbers are written without quotes)",
        "matches/lg/league.toml:6: params.season_reversion: must be a number from 0 to 1, got 1.5",
        "matches/lg/league.toml:7: params.home_advantage: must be a number from -1,000,000 to 1,000,000, got the "
        'text "48" (numbers are written without quotes)',
    ]


def test_an_upset_beyond_the_nfl_formulas_reach_is_a_problem_not_a_traceback(make_site):
    root = site_of(make_site, "elo", match("2024-01-01", two("Low", 1, "High", 0, pa=3, pb=0)),
                   params='margin = "538-nfl"', initial="Low = 0\nHigh = 2500\n")
    result = run_cli("build", "--root", str(root))
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert ("matches/lg/m.toml:1: match m-1: league 'lg': the 538-nfl margin multiplier leaves the finite numbers "
            "in match 'm-1'") in result.stderr
    assert "rated 2,500 points below the loser" in result.stderr


def test_cli_reports_misuse_with_exit_1(make_site):
    root = site_of(make_site, "elo", match("2024-01-01", two("A", 1, "B", 0)), initial="Zed = 1500\n")
    result = run_cli("check", "--root", str(root))
    assert result.returncode == 1
    assert result.stderr.startswith("matches/lg/league.toml:5: initial.Zed: 'Zed' plays in no match")


# --- sitegen new-match -----------------------------------------------------------------------------

def test_new_match_offers_the_elo_keys_and_points_where_the_margin_rule_needs_them(make_site):
    root = site_of(make_site, "elo", match("2024-01-01", two("A", 1, "B", 0, pa=2, pb=1)),
                   params='margin = "538-nba"')
    result = run_cli("new-match", "lg", "--root", str(root), "--played", "2024-02-01", "--player", "A",
                     "--player", "B", "--append", str(root / "matches/lg/m.toml"))
    assert result.returncode == 0, result.stderr
    text = (root / "matches/lg/m.toml").read_text(encoding="utf-8")
    for key in ("# home = ", "# season = ", "# weight = "):
        assert key in text
    assert '{ name = "A", score = 0.5, points = 0 }' in text
    assert run_cli("check", "--root", str(root)).returncode == 0
    # Without a margin rule points are optional, and not printed in the rows.
    plain = site_of(make_site, "elo", match("2024-01-01", two("A", 1, "B", 0)))
    result = run_cli("new-match", "lg", "--root", str(plain), "--played", "2024-02-01")
    assert "points = " not in result.stdout and "#   points (optional): a number" in result.stdout


def test_diff_names_a_changed_starting_rating(make_site):
    from sitegen.commands.build import check
    from sitegen.commands.diff import _settings

    text = match("2024-01-01", two("A", 1, "B", 0))
    before = check(site_of(make_site, "elo", text, initial="A = 1600\n")).leagues[0].config
    after = check(site_of(make_site, "elo", text, initial="A = 1650\nB = 1400\n")).leagues[0].config
    assert _settings(before, after) == ("initial.A", "initial.B")
    assert _settings(before, before) == ()


# --- no value of [initial] ends in a traceback ------------------------------------------------------

TOML_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=8) | st.dates(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(["lunaro", "elo", "placement", "glicko2", "arena"]),
       st.dictionaries(st.text(max_size=70), TOML_VALUES, max_size=4) | TOML_VALUES)
def test_any_initial_table_is_checked_without_a_traceback(system, table):
    from pathlib import Path

    from sitegen.load.config import Roster, _initial
    from sitegen.load.site import TomlFile
    from sitegen.load.problems import Problems
    from sitegen.rating import SYSTEMS

    src = TomlFile(Path("league.toml"), "matches/lg/league.toml", "", {"initial": table})
    problems = Problems()
    starts, keys = _initial(src, SYSTEMS[system](), Roster(), problems)
    assert set(starts) <= set(keys)
    for p in problems:
        assert p.field.startswith("initial") and p.message
    if system == "arena" or not isinstance(table, dict):
        assert not starts and len(problems) == (0 if table is None else 1)


def test_match_page_formula_shows_weight_margin_and_reversion():
    from sitegen.model.lines import formula

    terms = {"k": 20.0, "score": 1.0, "expected": 0.5359, "weight": 2.0, "margin_multiplier": 2.371,
             "reverted_from": None}
    change = 20 * 2 * 2.371 * (1 - 0.5359)
    assert formula(terms, 1520, 1520 + change, False) == "20 × 2 × 2.371 × (1 − 0.536) = +44.02"
    plain = {**terms, "weight": 1.0, "margin_multiplier": 1.0}
    assert formula(plain, 1520, 1520 + 20 * (1 - 0.5359), False) == "20 × (1 − 0.536) = +9.28"
    reverted = {**plain, "reverted_from": 1650.0}
    assert formula(reverted, 1601.67, 1601.67 + 20 * (1 - 0.5359), False) == \
        "season reversion 1650.0 → 1601.7, then 20 × (1 − 0.536) = +9.28"
