"""The matchup predictor's server side (sitegen/model/predict.py) against the engine itself.

Every prediction is checked by rating the league again with one more match appended,
the match the prediction describes, and comparing the engine's change with the
prediction's to 1e-9; for every system that predicts, and for elo's options too
(FIDE K with the provisional count and the master flag, the challenger's K, home
advantage, a margin rule, a season reversion still to come).
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import elo_match, league_toml
from sitegen.commands.build import build, check, rate
from sitegen.model.history import rate_league
from sitegen.model.predict import (
    league_predictor, nearest, player_states, predict_lobby, predict_pair, rating_order, ratings_json,
)
from sitegen.rating.base import Match

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "small"
TOL = 1e-9


def leagues(root: Path) -> dict:
    return {r.league.config.slug: r for r in rate(check(root))}


def next_time(rated):
    """A time in the rating period after the league's last (glicko2), for every system."""
    last = rated.league.matches[-1].played
    return last + timedelta(days=7)


def entries_for(system: str, s: float, pings=(0, 0), margin=1.0):
    if system == "lunaro":
        goals = {1.0: (20, 0), 0.5: (10, 10), 0.0: (0, 20)}[s]
        return tuple({"goals": g, "ping": p, "host": False} for g, p in zip(goals, pings))
    if system == "elo":
        points = {1.0: (margin, 0.0), 0.5: (0.0, 0.0), 0.0: (0.0, margin)}[s]
        return ({"score": s, "points": points[0]}, {"score": 1.0 - s, "points": points[1]})
    if system == "placement":
        return tuple({"place": p} for p in {1.0: (1, 2), 0.5: (1, 1), 0.0: (2, 1)}[s])
    if system == "glicko2":
        return tuple({"score": x} for x in {1.0: (3, 0), 0.5: (2, 2), 0.0: (0, 3)}[s])
    raise AssertionError(system)


def engine_after(rated, players, entries, extra=None):
    """The ratings after one more match, as the engine computes them."""
    m = Match("predicted", next_time(rated), "x.toml", 1, None, tuple(players), tuple(entries), extra or {})
    league = replace(rated.league, matches=rated.league.matches + (m,))
    last = rate_league(league).events[-1]
    return {c.player: (c.before, c.after, c.terms) for c in last.changes}


def check_pair(rated, a, b, **options):
    system = rated.league.config.system
    states = player_states(rated)
    pred = predict_pair(system, a, b, states, **options)
    extra = {}
    if system.name == "elo":
        extra = {k: v for k, v in (("challenger", options.get("challenger")), ("home", options.get("home")))
                 if v is not None}
    for o in pred.outcomes:
        entries = entries_for(system.name, o.score, options.get("pings", (0, 0)), options.get("margin", 1.0))
        if system.name == "elo" and system.margin == "none":
            entries = tuple({"score": e["score"]} for e in entries)
        got = engine_after(rated, (a, b), entries, extra)
        assert got[a][0] == pytest.approx(pred.rating_a, abs=TOL)
        assert got[a][1] == pytest.approx(o.after_a, abs=TOL), (system.name, a, b, o)
        assert got[b][1] == pytest.approx(o.after_b, abs=TOL), (system.name, a, b, o)
        if "expected" in got[a][2]:
            assert got[a][2]["expected"] == pytest.approx(pred.expected_a, abs=TOL)
    return pred


@pytest.mark.parametrize("slug", ["duel", "ladder", "royale", "wvw"])
def test_every_pair_of_the_fixture_equals_the_engine(slug):
    rated = leagues(FIXTURE)[slug]
    names = [r.standing.player for r in rated.standings]
    for a in names:
        for b in names:
            if a != b:
                check_pair(rated, a, b, challenger=a)


def test_glicko2_expected_score_is_each_sides_own():
    rated = leagues(FIXTURE)["wvw"]
    names = [r.standing.player for r in rated.standings]
    pred = predict_pair(rated.league.config.system, names[0], names[-1], player_states(rated))
    # Each side's E uses the other's RD, so the two need not sum to 1.
    from sitegen.rating.glicko2 import Glicko, expected_score
    s = player_states(rated)
    ga = Glicko(s[names[0]]["r"], s[names[0]]["rd"], s[names[0]]["vol"])
    gb = Glicko(s[names[-1]]["r"], s[names[-1]]["rd"], s[names[-1]]["vol"])
    assert pred.expected_a == expected_score(ga, gb) and pred.expected_b == expected_score(gb, ga)


def test_lunaro_pings_enter_the_ability(make_site):
    rated = leagues(FIXTURE)["duel"]
    names = [r.standing.player for r in rated.standings]
    flat = check_pair(rated, names[0], names[1])
    laggy = check_pair(rated, names[0], names[1], pings=(250, 0))
    assert laggy.expected_a < flat.expected_a


ELO_MATCHES = "".join(
    elo_match(f"2024-0{1 + i // 10}-{1 + i % 10:02d}", a, s, b, 1 - s)
    for i, (a, s, b) in enumerate([
        ("Ann", 1, "Bob"), ("Bob", 0.5, "Cy"), ("Cy", 1, "Ann"), ("Ann", 1, "Dee"), ("Dee", 0, "Bob"),
        ("Ann", 1, "Cy"), ("Bob", 1, "Ann"), ("Cy", 0.5, "Dee"), ("Ann", 1, "Bob"), ("Dee", 1, "Cy"),
    ]))


@pytest.mark.parametrize("params", [
    "provisional_games = 3\nmaster_rating = 1510",          # some players past the count, one a master
    'provisional_games = 3\nk_of = "each"',
    "k = 32\nhome_advantage = 65",
    'provisional_games = 2\nmargin = "538-nfl"',
    'margin = "538-nba"\nhome_advantage = 100',
])
def test_elo_options_equal_the_engine(make_site, params):
    matches = ELO_MATCHES
    if "margin" in params:
        # A margin rule needs points on every match: the winner's 2 to 1, a draw 1 to 1.
        matches = matches.replace("score = 1 }", "score = 1, points = 2 }").replace(
            "score = 0 }", "score = 0, points = 1 }").replace("score = 0.5 }", "score = 0.5, points = 1 }")
    root = make_site({"matches/l/league.toml": league_toml("elo", params=params), "matches/l/m.toml": matches})
    rated = leagues(root)["l"]
    names = ["Ann", "Bob", "Cy", "Dee"]
    for a in names:
        for b in names:
            if a == b:
                continue
            for home in (None, a, b):
                for challenger in (a, b):
                    check_pair(rated, a, b, home=home, challenger=challenger, margin=2.0)


def test_elo_master_flag_and_games_follow_the_engine(make_site):
    root = make_site({"matches/l/league.toml": league_toml("elo", params="provisional_games = 3\nmaster_rating = 1510"),
                      "matches/l/m.toml": ELO_MATCHES})
    states = player_states(leagues(root)["l"])
    assert {n: s["games"] for n, s in states.items()} == {"Ann": 6, "Bob": 5, "Cy": 5, "Dee": 4}
    # Ann passed 1510 at some point: master for good, even if below it now.
    assert states["Ann"]["master"] is True


def test_elo_season_reversion_is_applied_before_the_next_match(make_site):
    matches = (elo_match("2024-01-01", "Ann", 1, "Bob", 0).replace("[[match]]", '[[match]]\nseason = 2023')
               + elo_match("2024-02-01", "Cy", 1, "Bob", 0).replace("[[match]]", '[[match]]\nseason = 2024'))
    root = make_site({"matches/l/league.toml": league_toml("elo", params="season_reversion = 0.5"),
                      "matches/l/m.toml": matches})
    rated = leagues(root)["l"]
    states = player_states(rated)
    assert "rev" in states["Ann"] and "rev" not in states["Cy"]
    pred = check_pair(rated, "Ann", "Cy")
    assert pred.rating_a == states["Ann"]["rev"] != states["Ann"]["r"]


def test_placement_lobby_equals_the_engine():
    rated = leagues(FIXTURE)["royale"]
    system = rated.league.config.system
    names = [r.standing.player for r in rated.standings][:5]
    lobby = predict_lobby(system, names, player_states(rated))
    n = len(names)
    for shift in range(n):
        places = [(i + shift) % n + 1 for i in range(n)]
        got = engine_after(rated, names, [{"place": p} for p in places])
        for i, name in enumerate(names):
            assert got[name][2]["expected"] == pytest.approx(lobby.expected[i], abs=TOL)
            assert got[name][1] == pytest.approx(lobby.after(i, n - places[i]), abs=TOL)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.text("abcdef", min_size=1, max_size=3),
                       st.integers(0, 40).map(float), min_size=2, max_size=25),
       st.data())
def test_nearest_are_the_closest_ratings(ratings, data):
    states = {n: {"r": r} for n, r in ratings.items()}
    me = data.draw(st.sampled_from(sorted(states)))
    got = nearest(states, me)
    # The order sorted once per league gives every player the same list as sorting for each.
    assert nearest(states, me, order=rating_order(states)) == got
    assert me not in got and len(got) == min(10, len(states) - 1) and len(set(got)) == len(got)
    # No player left out is strictly closer than one taken.
    taken = max(abs(states[p]["r"] - states[me]["r"]) for p in got)
    for p in set(states) - set(got) - {me}:
        assert abs(states[p]["r"] - states[me]["r"]) >= taken


def test_player_pages_list_the_ten_nearest_with_the_engine_numbers(tmp_path, make_site):
    """The built player page's list (data attributes at full precision) equals the engine."""
    matches = "".join(
        elo_match(f"2024-03-{1 + i:02d}", f"P{i % 13}", 1, f"P{(i * 5 + 3) % 13}", 0)
        for i in range(28) if i % 13 != (i * 5 + 3) % 13)
    root = make_site({"matches/l/league.toml": league_toml("elo"), "matches/l/m.toml": matches})
    out = tmp_path / "out"
    build(root, out)
    rated = leagues(root)["l"]
    states = player_states(rated)
    for name in states:
        html = (out / "leagues" / "l" / "players" / name.lower() / "index.html").read_text(encoding="utf-8")
        rows = re.findall(r'<tr data-opponent="([^"]+)" data-expected="([^"]+)">(.*?)</tr>', html)
        assert [r[0] for r in rows] == nearest(states, name)
        assert len(rows) == 10
        for opponent, expected, cells in rows:
            pred = check_pair(rated, name, opponent, challenger=name)
            assert float(expected) == pytest.approx(pred.expected_a, abs=TOL)
            changes = [float(x) for x in re.findall(r'data-change="([^"]+)"', cells)]
            assert changes == pytest.approx([o.after_a - pred.rating_a for o in pred.outcomes], abs=TOL)


def test_an_upset_beyond_the_margin_formula_has_no_prediction(tmp_path, make_site):
    """538-nba's M leaves its domain when a player 1,250+ points below wins: the engine
    refuses such a match, the prediction leaves that result empty, and the build goes on."""
    from sitegen.rating.base import RatingDiverged
    matches = elo_match("2024-01-01", "Big", 1, "Small", 0).replace(
        "score = 1 }", "score = 1, points = 3 }").replace("score = 0 }", "score = 0, points = 1 }")
    root = make_site({"matches/l/league.toml": league_toml(
        "elo", extra='[initial]\n"Big" = 3000\n', params='margin = "538-nba"'), "matches/l/m.toml": matches})
    rated = leagues(root)["l"]
    pred = predict_pair(rated.league.config.system, "Small", "Big", player_states(rated))
    win, draw, loss = pred.outcomes
    assert win.after_a is None and win.after_b is None and pred.change(win) == (None, None)
    assert draw.after_a is not None and loss.after_a is not None
    with pytest.raises(RatingDiverged):
        engine_after(rated, ("Small", "Big"), ({"score": 1.0, "points": 2.0}, {"score": 0.0, "points": 1.0}))
    build(root, tmp_path / "out")
    html = (tmp_path / "out" / "leagues" / "l" / "players" / "small" / "index.html").read_text(encoding="utf-8")
    assert 'data-change=""' in html


def test_ratings_json_holds_every_rated_player_and_no_arena():
    rated = leagues(FIXTURE)
    assert ratings_json(rated["arena"]) is None and league_predictor(rated["arena"]) is None
    for slug in ("duel", "ladder", "royale", "wvw"):
        doc = json.loads(ratings_json(rated[slug]))
        assert [p["n"] for p in doc["players"]] == [r.standing.player for r in rated[slug].standings]
        assert [p["r"] for p in doc["players"]] == [r.standing.rating for r in rated[slug].standings]
        assert doc["system"] == rated[slug].league.config.system.name


# --- openskill ------------------------------------------------------------------------------

def openskill_games() -> str:
    """A small openskill league: duels, a team match and a three-team lobby with a tie."""
    def game(played, *teams):
        body = "".join(f"[[match.teams]]\nplace = {p}\nplayers = [{', '.join(f'{{ name = {n!r} }}' for n in names)}]\n"
                       for p, names in teams)
        return f"[[match]]\nplayed = {played}\n{body}\n"
    return "".join([
        game("2024-01-01", (1, ["Ann"]), (2, ["Bob"])),
        game("2024-01-02", (2, ["Ann", "Cy"]), (1, ["Bob", "Dee"])),
        game("2024-01-03", (1, ["Cy"]), (1, ["Dee"]), (3, ["Eve"])),
        game("2024-01-04", (1, ["Eve"]), (2, ["Ann"])),
        game("2024-01-05", (1, ["Bob"]), (1, ["Eve"])),
    ])


OPENSKILL_PARAMS = ["", "beta = 3.0\ntau = 0.4\nkappa = 0.01", "limit_sigma = true\ntau = 2.0", "tau = 0"]


@pytest.mark.parametrize("params", OPENSKILL_PARAMS)
def test_openskill_pairs_equal_the_engine_and_the_package(make_site, params):
    from openskill.models import PlackettLuce
    root = make_site({"matches/os/league.toml": league_toml("openskill", params=params),
                      "matches/os/m.toml": openskill_games()})
    rated = leagues(root)["os"]
    system = rated.league.config.system
    states = player_states(rated)
    # The package itself, set up from league.toml's values as its documentation shows.
    kw = dict(line.split(" = ") for line in params.splitlines())
    model = PlackettLuce(**{k: (v == "true") if k == "limit_sigma" else float(v) for k, v in kw.items()})
    names = list(states)
    assert len(names) == 5
    for a in names:
        for b in names:
            if a == b:
                continue
            pred = predict_pair(system, a, b, states)
            ra = model.rating(mu=states[a]["mu"], sigma=states[a]["sigma"])
            rb = model.rating(mu=states[b]["mu"], sigma=states[b]["sigma"])
            win = model.predict_win([[ra], [rb]])
            assert (pred.expected_a, pred.expected_b) == pytest.approx(win, abs=TOL)
            assert pred.rating_a == pytest.approx(states[a]["r"], abs=TOL)
            assert [o.label for o in pred.outcomes] == ["win", "draw", "loss"]
            for o, places in zip(pred.outcomes, [(1, 2), (1, 1), (2, 1)]):
                fresh = [[model.rating(mu=r.mu, sigma=r.sigma)] for r in (ra, rb)]
                [[na], [nb]] = model.rate(fresh, ranks=list(places), limit_sigma=model.limit_sigma)
                assert o.skills[0] + o.skills[1] == pytest.approx((na.mu, na.sigma, nb.mu, nb.sigma), abs=TOL)
                assert (o.after_a, o.after_b) == pytest.approx((na.ordinal(), nb.ordinal()), abs=TOL)
                # And the engine, the match appended to the league.
                got = engine_after(rated, (a, b), ({"team": 1, "place": places[0]}, {"team": 2, "place": places[1]}),
                                   {"places": places})
                assert got[a][0] == pytest.approx(pred.rating_a, abs=TOL)
                assert (got[a][1], got[b][1]) == pytest.approx((o.after_a, o.after_b), abs=TOL)
                assert (got[a][2]["mu_after"], got[a][2]["sigma_after"]) == pytest.approx(o.skills[0], abs=TOL)
                assert (got[b][2]["mu_after"], got[b][2]["sigma_after"]) == pytest.approx(o.skills[1], abs=TOL)


def test_openskill_ratings_json_and_player_pages(tmp_path, make_site):
    root = make_site({"matches/os/league.toml": league_toml("openskill", params="beta = 3.0"),
                      "matches/os/m.toml": openskill_games()})
    rated = leagues(root)["os"]
    doc = json.loads(ratings_json(rated))
    assert doc["params"] == {"beta": 3.0, "tau": 25 / 300, "kappa": 0.0001, "limit_sigma": False, "z": 3}
    for p, r in zip(doc["players"], rated.standings):
        assert (p["n"], p["r"], p["mu"], p["sigma"]) == (
            r.standing.player, r.standing.rating, r.standing.extra["mu"], r.standing.extra["sigma"])
    out = tmp_path / "out"
    build(root, out)
    states = player_states(rated)
    for name in states:
        html = (out / "leagues" / "os" / "players" / name.lower() / "index.html").read_text(encoding="utf-8")
        rows = re.findall(r'<tr data-opponent="([^"]+)" data-expected="([^"]+)">(.*?)</tr>', html)
        assert [r[0] for r in rows] == nearest(states, name)
        assert len(rows) == 4
        for opponent, expected, cells in rows:
            pred = predict_pair(rated.league.config.system, name, opponent, states)
            assert float(expected) == pytest.approx(pred.expected_a, abs=TOL)
            changes = [float(x) for x in re.findall(r'data-change="([^"]+)"', cells)]
            assert changes == pytest.approx([o.after_a - pred.rating_a for o in pred.outcomes], abs=TOL)
        assert f"{name}&#39;s chance of winning against" in html or f"{name}'s chance of winning against" in html
