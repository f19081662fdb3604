"""The `arena` system (docs/curators, the Halo: Reach arena rating).

The seed's worked example: 4 players a team, 50 kills to win; the player made
21 kills, 7 deaths and 5 assists and their team won.
  raw         = (21 + 1 * 5) - (1/3 * 7 + 1 * 0) = 26 - 7/3 = 71/3 = 23.666...
  game_norm   = 4 / 50 = 0.08
  game rating = 1 * (1000 + 2000/pi * atan(23.666... * 0.08))
              = 1000 + 636.6198 * atan(1.893333) = 1000 + 636.6198 * 1.0848683
              = 1690.6 (the seed writes 1690)
Had the team lost: 0.96 * 1690.6486 = 1623.0227.
"""

from __future__ import annotations

import json
import math
import re
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import build_data, day, league_data, league_toml, problems_of, rows_of
from sitegen.rating.arena import Arena, game_rating, raw_rating, team_norm
from sitegen.rating.base import Match

WORKED_RAW = 21 + 5 - 7 / 3
WORKED = 1000 + 2000 / math.pi * math.atan(WORKED_RAW * 4 / 50)      # 1690.6485...


def player(name: str, kills: int, deaths: int, assists: int | None = None,
           betrayals: int | None = None) -> str:
    text = f'{{ name = "{name}", kills = {kills}, deaths = {deaths}'
    if assists is not None:
        text += f", assists = {assists}"
    if betrayals is not None:
        text += f", betrayals = {betrayals}"
    return text + " }"


def team(won: bool, *players: str) -> str:
    return f"{{ won = {str(won).lower()}, players = [{', '.join(players)}] }}"


def arena_match(played: str, score_to_win: int, *teams: str, id: str | None = None) -> str:
    """One [[match]] table of an arena league, one team a line."""
    lines = ["[[match]]"]
    if id is not None:
        lines.append(f'id = "{id}"')
    lines += [f"played = {played}", f"score_to_win = {score_to_win}", "teams = ["]
    lines += [f"  {t}," for t in teams]
    return "\n".join(lines) + "\n]\n\n"


def arena_site(make_site, matches, params="", players_toml=None):
    files = {"matches/halo/league.toml": league_toml("arena", params=params),
             "matches/halo/games.toml": "".join(matches)}
    if players_toml:
        files["matches/players.toml"] = players_toml
    return make_site(files)


def fours(played, won_stats, lost_stats, *, prefix=("w", "l"), score_to_win=50, id=None):
    """A 4v4 game: the first team wins; stats are (kills, deaths, assists) per player."""
    return arena_match(played, score_to_win,
                       team(True, *(player(f"{prefix[0]}{i}", *s) for i, s in enumerate(won_stats))),
                       team(False, *(player(f"{prefix[1]}{i}", *s) for i, s in enumerate(lost_stats))),
                       id=id)


# --- the seed's worked example ------------------------------------------------------------

def test_worked_example_pure():
    raw = raw_rating(21, 7, 5)
    assert raw == pytest.approx(23.666666, abs=1e-6)
    assert raw == pytest.approx(71 / 3, abs=1e-12)
    assert team_norm(4, 50) == 0.08
    assert math.atan(raw * 0.08) == pytest.approx(1.0848683, abs=5e-7)   # the seed's step
    rating = game_rating(raw, 0.08)
    assert rating == pytest.approx(1690.6, abs=0.05)
    assert rating == pytest.approx(WORKED, abs=1e-9)
    assert int(rating) == 1690                                           # the seed's figure, truncated


def test_loss_penalty_pure():
    assert game_rating(WORKED_RAW, 0.08, 0.96) == pytest.approx(0.96 * 1690.6486, abs=1e-4)
    assert game_rating(WORKED_RAW, 0.08, 0.96) == pytest.approx(1623.0227, abs=1e-4)
    assert game_rating(WORKED_RAW, 0.08, 0.96) == pytest.approx(0.96 * WORKED, abs=1e-9)


def test_betrayals_and_weights_pure():
    assert raw_rating(21, 7, 5, 2) == pytest.approx(71 / 3 - 2, abs=1e-12)
    assert raw_rating(21, 7, 5, 2, betrayal_weight=0.5) == pytest.approx(71 / 3 - 1, abs=1e-12)
    assert raw_rating(21, 7, 5, assist_weight=0.5) == pytest.approx(21 + 2.5 - 7 / 3, abs=1e-12)
    assert raw_rating(21, 7, 5, death_weight=1) == pytest.approx(19, abs=1e-12)
    assert raw_rating(0, 0) == 0
    assert game_rating(0, 0.08) == 1000.0            # atan(0) = 0: an empty game is the middle
    assert game_rating(-12, 0.5) == pytest.approx(1000 - 2000 / math.pi * math.atan(6), abs=1e-9)
    assert game_rating(-12, 0.5) == pytest.approx(2000 - game_rating(12, 0.5), abs=1e-9)


def test_worked_example_through_a_real_build(make_site, tmp_path):
    match = fours("2024-05-01", [(21, 7, 5), (10, 8, 2), (10, 9, 0), (9, 10, 1)],
                  [(21, 7, 5), (8, 12, 0), (7, 12, 3), (6, 10, 0)], id="reach-beta")
    data = build_data(arena_site(make_site, [match]), "halo", tmp_path / "out")
    assert data["changes.csv"].split("\n", 1)[0] == (
        "event,played,player,rating_before,rating_after,delta,raw,game_norm,penalty,game_rating")
    rows = {r["player"]: r for r in rows_of(data, "changes")}
    assert list(rows) == ["w0", "w1", "w2", "w3", "l0", "l1", "l2", "l3"]
    w, loser = rows["w0"], rows["l0"]
    assert (w["event"], w["played"]) == ("reach-beta", "2024-05-01T00:00:00Z")
    assert (w["rating_before"], w["delta"]) == ("", "")
    assert w["raw"] == "23.666667"
    assert w["game_norm"] == loser["game_norm"] == "0.080000"
    assert (w["penalty"], loser["penalty"]) == ("1.000000", "0.960000")
    assert float(w["game_rating"]) == pytest.approx(1690.6, abs=0.05)
    assert w["game_rating"] == w["rating_after"] == f"{WORKED:.6f}" == "1690.648599"
    assert loser["game_rating"] == loser["rating_after"] == f"{0.96 * WORKED:.6f}"
    standings = rows_of(data, "standings")
    assert list(standings[0]) == ["rank", "player", "rating", "games"]
    assert standings[0] == {"rank": "1", "player": "w0", "rating": "1690.648599", "games": "1"}
    assert standings[1] == {"rank": "2", "player": "l0", "rating": f"{0.96 * WORKED:.6f}", "games": "1"}
    first = json.loads(data["changes.json"])[0]
    assert first["rating_before"] is None and first["delta"] is None


def test_parameters_change_the_result(make_site):
    params = "assist_weight = 0.5\ndeath_weight = 1\nbetrayal_weight = 2\nloss_penalty = 0.9"
    match = arena_match("2024-05-01", 50, team(True, player("a", 21, 7, 5, 1)),
                        team(False, player("b", 10, 4, 2, 3)))
    rows = {r["player"]: r for r in rows_of(league_data(arena_site(make_site, [match], params), "halo"), "changes")}
    raw_a = 21 + 0.5 * 5 - (1 * 7 + 2 * 1)                 # 14.5
    raw_b = 10 + 0.5 * 2 - (1 * 4 + 2 * 3)                 # 1
    assert float(rows["a"]["raw"]) == pytest.approx(raw_a, abs=5e-7) and rows["a"]["raw"] == "14.500000"
    assert rows["b"]["raw"] == "1.000000"
    assert rows["a"]["game_norm"] == "0.020000"           # 1 a team, 50 to win
    assert rows["b"]["penalty"] == "0.900000"
    assert float(rows["a"]["game_rating"]) == pytest.approx(game_rating(raw_a, 0.02), abs=5e-7)
    assert float(rows["b"]["game_rating"]) == pytest.approx(0.9 * game_rating(raw_b, 0.02), abs=5e-7)
    # the defaults give other numbers for the same game
    plain = {r["player"]: r for r in rows_of(league_data(arena_site(make_site, [match]), "halo"), "changes")}
    assert float(plain["a"]["raw"]) == pytest.approx(21 + 5 - 7 / 3 - 1, abs=5e-7)
    assert plain["b"]["penalty"] == "0.960000"
    assert float(plain["a"]["game_rating"]) > float(rows["a"]["game_rating"])


# --- the mean of game ratings --------------------------------------------------------------

def test_rating_is_the_mean_of_all_game_ratings(make_site, tmp_path):
    # "ace" plays three 4v4 games with different teammates: won, lost, won.
    games = [
        fours(day(0), [(21, 7, 5), (5, 5, 0), (5, 5, 0), (5, 5, 0)], [(9, 9, 0)] * 4,
              prefix=("ace-", "x"), id="g1"),
        arena_match(day(1), 50, team(True, *(player(f"y{i}", 12, 3) for i in range(4))),
                    team(False, player("ace-0", 4, 12, 1, 1), *(player(f"z{i}", 6, 8) for i in range(3))),
                    id="g2"),
        arena_match(day(2), 50, team(True, player("ace-0", 30, 2), *(player(f"t{i}", i, i, i) for i in range(3))),
                    team(False, *(player(f"q{i}", 0, 15) for i in range(4))), id="g3"),
    ]
    data = build_data(arena_site(make_site, games), "halo", tmp_path / "out")
    for r in rows_of(data, "changes"):
        for col in ("rating_after", "raw", "game_norm", "penalty", "game_rating"):
            assert re.fullmatch(r"-?\d+\.\d{6}", r[col]), (col, r[col])
    ace = [r for r in rows_of(data, "changes") if r["player"] == "ace-0"]
    assert [r["event"] for r in ace] == ["g1", "g2", "g3"]
    g = [WORKED,
         0.96 * game_rating(4 + 1 - 4 - 1, 0.08),                  # raw 0: 0.96 * 1000
         game_rating(30 - 2 / 3, 0.08)]
    assert float(ace[1]["game_rating"]) == pytest.approx(960, abs=5e-7)
    for r, want in zip(ace, g):
        assert float(r["game_rating"]) == pytest.approx(want, abs=5e-7)
    assert (ace[0]["rating_before"], ace[0]["delta"]) == ("", "")
    assert float(ace[0]["rating_after"]) == pytest.approx(g[0], abs=5e-7)
    assert ace[1]["rating_before"] == ace[0]["rating_after"]
    assert float(ace[1]["rating_after"]) == pytest.approx((g[0] + g[1]) / 2, abs=5e-7)
    assert float(ace[1]["delta"]) == pytest.approx((g[0] + g[1]) / 2 - g[0], abs=2e-6)
    assert ace[2]["rating_before"] == ace[1]["rating_after"]
    assert float(ace[2]["rating_after"]) == pytest.approx(sum(g) / 3, abs=5e-7)
    # ace-1..3 played only g1, everyone else once too: rating = that game's rating, before empty
    for r in rows_of(data, "changes"):
        if r["player"] != "ace-0":
            assert (r["rating_before"], r["delta"]) == ("", "")
            assert r["rating_after"] == r["game_rating"]
    standings = rows_of(data, "standings")
    assert data["standings.csv"].split("\n", 1)[0] == "rank,player,rating,games"
    by_name = {r["player"]: r for r in standings}
    assert by_name["ace-0"]["games"] == "3"
    assert float(by_name["ace-0"]["rating"]) == pytest.approx(sum(g) / 3, abs=5e-7)
    ratings = [float(r["rating"]) for r in standings]
    assert ratings == sorted(ratings, reverse=True)
    # equal ratings share a rank: x0..x3 all played the same losing game
    xs = {by_name[f"x{i}"]["rank"] for i in range(4)}
    assert len(xs) == 1
    assert int(xs.pop()) == 1 + sum(r > float(by_name["x0"]["rating"]) for r in ratings)


def test_free_for_all_with_teams_of_one(make_site):
    stats = [(25, 3), (20, 6), (15, 9), (10, 10), (8, 12), (5, 14), (3, 15), (0, 17)]
    teams = [team(i == 0, player(f"p{i}", k, d)) for i, (k, d) in enumerate(stats)]
    root = arena_site(make_site, [arena_match("2024-06-01", 25, *teams, id="ffa")])
    data = league_data(root, "halo")
    rows = rows_of(data, "changes")
    assert [r["player"] for r in rows] == [f"p{i}" for i in range(8)]
    for i, (r, (k, d)) in enumerate(zip(rows, stats)):
        assert r["game_norm"] == "0.040000"                    # 1 / 25
        penalty = 1.0 if i == 0 else 0.96
        assert float(r["penalty"]) == penalty
        assert float(r["game_rating"]) == pytest.approx(penalty * game_rating(k - d / 3, 1 / 25), abs=5e-7)
    assert [r["player"] for r in rows_of(data, "standings")] == [f"p{i}" for i in range(8)]


def test_team_sizes_may_differ():
    # 4 against 3 (a player left): each player's game_norm uses their own team's size.
    m = match_of(0, 40, [(True, [("a", 10, 5, 0, 0)] + [(f"a{i}", 5, 5, 0, 0) for i in range(3)]),
                         (False, [(f"b{i}", 5, 5, 0, 0) for i in range(3)])])
    (event,) = Arena().rate([m])
    norms = [c.terms["game_norm"] for c in event.changes]
    assert norms == [0.1] * 4 + [0.075] * 3


def test_teams_as_array_of_tables(make_site):
    text = ("[[match]]\nplayed = 2024-01-01\nscore_to_win = 50\n\n"
            "[[match.teams]]\nwon = true\nplayers = [\n"
            '  { name = "a", kills = 21, deaths = 7, assists = 5 },\n'
            '  { name = "b", kills = 1, deaths = 1 },\n'
            '  { name = "c", kills = 1, deaths = 1 },\n'
            '  { name = "d", kills = 1, deaths = 1 },\n]\n\n'
            "[[match.teams]]\nwon = false\nplayers = [\n"
            '  { name = "e", kills = 1, deaths = 1 },\n]\n')
    root = make_site({"matches/halo/league.toml": league_toml("arena"), "matches/halo/m.toml": text})
    rows = rows_of(league_data(root, "halo"), "changes")
    assert rows[0]["rating_after"] == f"{WORKED:.6f}"
    assert rows[4]["game_norm"] == "0.020000"


def test_describe_and_outcome():
    arena = Arena()
    assert arena.describe({"kills": 21, "deaths": 7, "assists": 5, "betrayals": 0}) == "21 kills, 7 deaths, 5 assists"
    assert arena.describe({"kills": 1, "deaths": 1, "assists": 1, "betrayals": 1}) == \
        "1 kill, 1 death, 1 assist, 1 betrayal"
    assert arena.describe({"kills": 0, "deaths": 2, "assists": 0, "betrayals": 3}) == \
        "0 kills, 2 deaths, 0 assists, 3 betrayals"
    m = match_of(0, 50, [(True, [("a", 1, 1, 0, 0)]), (False, [("b", 1, 1, 0, 0), ("c", 0, 0, 0, 0)])])
    assert [arena.outcome(m, i) for i in range(3)] == ["win", "loss", "loss"]
    assert Arena.has_outcomes is True


def test_params_declared():
    assert [(p.name, p.default) for p in Arena.params] == [
        ("assist_weight", 1), ("death_weight", 1 / 3), ("betrayal_weight", 1), ("loss_penalty", 0.96)]
    checks = {p.name: p.check for p in Arena.params}
    for name in ("assist_weight", "death_weight", "betrayal_weight"):
        assert checks[name](0) and checks[name](2.5)
        assert not checks[name](-0.1) and not checks[name](True) and not checks[name]("1")
    assert checks["loss_penalty"](1) and checks["loss_penalty"](0.5)
    assert not checks["loss_penalty"](0) and not checks["loss_penalty"](1.01)
    assert not checks["loss_penalty"](-0.96) and not checks["loss_penalty"](True)
    assert all("eed" in p.doc for p in Arena.params)                 # each cites the seed


# --- properties ---------------------------------------------------------------------------

T0 = datetime(2024, 1, 1, tzinfo=timezone.utc)


def match_of(i, score_to_win, teams):
    """A validated arena Match: teams are (won, [(name, kills, deaths, assists, betrayals), ...])."""
    names, entries = [], []
    for t, (won, players) in enumerate(teams):
        for name, k, d, a, b in players:
            names.append(name)
            entries.append({"kills": k, "deaths": d, "assists": a, "betrayals": b, "team": t + 1, "won": won})
    return Match(id=f"m-{i + 1}", played=T0 + timedelta(hours=i), file="matches/halo/m.toml", position=i + 1,
                 notes=None, players=tuple(names), entries=tuple(entries),
                 extra={"score_to_win": score_to_win, "team_sizes": tuple(len(p) for _, p in teams)})


counts = st.integers(0, 200)
norms = st.builds(team_norm, st.integers(1, 16), st.integers(1, 200))
penalties = st.sampled_from([1.0, 0.96, 0.5, 0.01])


@settings(max_examples=300, deadline=None)
@given(counts, counts, counts, counts, norms, penalties)
def test_game_rating_lies_in_0_to_2000_times_penalty(k, d, a, b, norm, penalty):
    g = game_rating(raw_rating(k, d, a, b), norm, penalty)
    assert 0 < g < 2000 * penalty


@settings(max_examples=300, deadline=None)
@given(counts, counts, counts, counts, norms, penalties)
def test_game_rating_increases_with_kills_and_decreases_with_deaths(k, d, a, b, norm, penalty):
    g = game_rating(raw_rating(k, d, a, b), norm, penalty)
    assert game_rating(raw_rating(k + 1, d, a, b), norm, penalty) > g
    assert game_rating(raw_rating(k, d + 1, a, b), norm, penalty) < g


NAMES = ["ann", "bob", "cy", "dee", "eve", "fay"]


@st.composite
def histories(draw):
    out = []
    for i in range(draw(st.integers(1, 12))):
        names = draw(st.permutations(NAMES))[:draw(st.integers(2, len(NAMES)))]
        n_teams = draw(st.integers(2, len(names)))
        cuts = sorted(draw(st.lists(st.integers(1, len(names) - 1), min_size=n_teams - 1,
                                    max_size=n_teams - 1, unique=True)))
        groups = [names[a:b] for a, b in zip([0, *cuts], [*cuts, len(names)])]
        winner = draw(st.integers(0, len(groups) - 1))
        teams = [(t == winner, [(n, *draw(st.tuples(counts, counts, counts, st.integers(0, 3)))) for n in g])
                 for t, g in enumerate(groups)]
        out.append(match_of(i, draw(st.integers(1, 100)), teams))
    return out


@settings(max_examples=150, deadline=None)
@given(histories(), st.sampled_from([0.96, 0.5, 1]))
def test_rating_is_the_running_mean_and_lies_between_lowest_and_highest_game(matches, loss_penalty):
    events = Arena(loss_penalty=loss_penalty).rate(matches)
    assert [e.key for e in events] == [m.id for m in matches]
    games: dict[str, list[float]] = {}
    for m, event in zip(matches, events):
        assert [c.player for c in event.changes] == list(m.players)
        for c, e in zip(event.changes, m.entries):
            seen = games.setdefault(c.player, [])
            assert c.before == (None if not seen else pytest.approx(math.fsum(seen) / len(seen), abs=1e-9))
            assert c.terms["penalty"] == (1.0 if e["won"] else loss_penalty)
            assert c.terms["game_norm"] == m.extra["team_sizes"][e["team"] - 1] / m.extra["score_to_win"]
            seen.append(c.terms["game_rating"])
            assert c.after == pytest.approx(math.fsum(seen) / len(seen), abs=1e-9)
            assert min(seen) - 1e-9 <= c.after <= max(seen) + 1e-9
    standings = {s.player: s for s in Arena(loss_penalty=loss_penalty).standings(events)}
    assert set(standings) == set(games)
    for name, seen in games.items():
        assert standings[name].games == len(seen)
        assert min(seen) - 1e-9 <= standings[name].rating <= max(seen) + 1e-9


# --- validation ---------------------------------------------------------------------------

A = player("A", 5, 1)
B = player("B", 1, 5)


def layout(*team_lines: str, head: str = "score_to_win = 50", extra: str = "") -> str:
    """line 1 [[match]], 2 played, 3 head, 4 extra, 5 teams = [, 6.. one team a line."""
    body = "".join(f"  {t},\n" for t in team_lines)
    return f"[[match]]\nplayed = 2024-01-01\n{head}\n{extra}\nteams = [\n{body}]\n"


def invalid(make_site, text, players_toml=None):
    files = {"matches/halo/league.toml": league_toml("arena"), "matches/halo/m.toml": text}
    if players_toml:
        files["matches/players.toml"] = players_toml
    return problems_of(make_site(files))


W, L = team(True, A), team(False, B)

CASES = {
    # name: (match text, field, line, words of the message)
    "score_to_win missing": (layout(W, L, head=""), "score_to_win", None, ("missing", "integer from 1 to 1,000,000")),
    "score_to_win 0": (layout(W, L, head="score_to_win = 0"), "score_to_win", 3,
                       ("integer from 1 to 1,000,000", "got 0")),
    "score_to_win 1.5": (layout(W, L, head="score_to_win = 1.5"), "score_to_win", 3,
                         ("integer from 1 to 1,000,000", "1.5")),
    "score_to_win true": (layout(W, L, head="score_to_win = true"), "score_to_win", 3,
                          ("integer from 1 to 1,000,000", "got true")),
    "score_to_win a string": (layout(W, L, head='score_to_win = "50"'), "score_to_win", 3,
                              ("integer from 1 to 1,000,000",)),
    "teams missing": ("[[match]]\nplayed = 2024-01-01\nscore_to_win = 50\n", "teams", None,
                      ("missing", "list", "won", "players")),
    "teams not a list": ('[[match]]\nplayed = 2024-01-01\nscore_to_win = 50\nteams = "red vs blue"\n', "teams",
                         4, ("list", 'got the text "red vs blue"')),
    "one team": (layout(W), "teams", 5, ("at least 2", "got 1")),
    "no winner": (layout(team(False, A), L), "teams", 5, ("exactly one", "won = true", "none")),
    "two winners": (layout(W, team(True, B)), "teams", 5, ("exactly one", "teams[0] and teams[1]")),
    "won not a bool": (layout(W, f'{{ won = "no", players = [{B}] }}'), "teams[1].won", 7,
                       ("true", "false", 'got the text "no"')),
    "won 1": (layout(f"{{ won = 1, players = [{A}] }}", L), "teams[0].won", 6, ("true", "false")),
    "won missing": (layout(W, f"{{ players = [{B}] }}"), "teams[1].won", 7, ("missing", "true", "false")),
    "players empty": (layout(W, "{ won = false, players = [] }"), "teams[1].players", 7, ("at least 1", "got 0")),
    "players missing in a team": (layout(W, "{ won = false }"), "teams[1].players", 7, ("missing", "list")),
    "players not a list": (layout(W, '{ won = false, players = "B" }'), "teams[1].players", 7, ("list",)),
    "team not a table": (layout(W, '"blue"'), "teams[1]", 7, ("table", 'got the text "blue"')),
    "unknown key in a team": (layout(W, f'{{ won = false, colour = "red", players = [{B}] }}'), "teams[1].colour",
                              7, ("unknown", "won", "players")),
    "unknown key in a player": (layout(W, team(False, '{ name = "B", kills = 1, deaths = 2, score = 3 }')),
                                "teams[1].players[0].score", 7, ("unknown", "kills", "deaths", "assists",
                                                                 "betrayals")),
    "players key at match level": (layout(W, L, extra=f"players = [{A}]"), "players", 4,
                                   ("unknown", "score_to_win", "teams")),
    "kills negative": (layout(W, team(False, player("B", -1, 5))), "teams[1].players[0].kills", 7,
                       ("integer from 0 to 1,000,000", "-1")),
    "kills a float": (layout(W, team(False, '{ name = "B", kills = 2.0, deaths = 5 }')),
                      "teams[1].players[0].kills", 7, ("integer from 0 to 1,000,000", "2.0")),
    "kills a boolean": (layout(W, team(False, '{ name = "B", kills = true, deaths = 5 }')),
                        "teams[1].players[0].kills", 7, ("integer from 0 to 1,000,000",)),
    "kills missing": (layout(W, team(False, '{ name = "B", deaths = 5 }')), "teams[1].players[0].kills", 7,
                      ("missing", "integer from 0 to 1,000,000")),
    "deaths missing": (layout(team(True, '{ name = "A", kills = 5 }'), L), "teams[0].players[0].deaths", 6,
                       ("missing",)),
    "assists negative": (layout(team(True, player("A", 5, 1, -2)), L), "teams[0].players[0].assists", 6,
                         ("integer from 0 to 1,000,000", "-2")),
    "betrayals a string": (layout(W, team(False, '{ name = "B", kills = 1, deaths = 5, betrayals = "1" }')),
                           "teams[1].players[0].betrayals", 7, ("integer from 0 to 1,000,000",)),
    "name missing": (layout(W, team(False, "{ kills = 1, deaths = 5 }")), "teams[1].players[0].name", 7,
                     ("missing",)),
    "same player in two teams": (layout(team(True, A, player("C", 1, 1)), team(False, player("A", 1, 5))),
                                 "teams[1].players[0].name", 7, ("'A'", "once")),
    "same player twice in a team": (layout(team(True, A, player(" A ", 1, 1)), L),
                                    "teams[0].players[1].name", 6, ("'A'", "once")),
}


@pytest.mark.parametrize("text, field, line, says", CASES.values(), ids=list(CASES))
def test_each_rule(make_site, text, field, line, says):
    problems = invalid(make_site, text)
    report = "\n".join(map(str, problems))
    assert len(problems) == 1, report
    (p,) = problems
    assert p.file == "matches/halo/m.toml"
    assert p.field == field, report
    if line is not None:
        assert p.line == line, report
    assert p.match is not None and "#1" in p.match
    assert all(w.lower() in p.message.lower() for w in says), report


def test_same_player_in_two_teams_through_an_alias(make_site):
    text = layout(W, team(False, player("Al", 1, 5)))
    (p,) = invalid(make_site, text, players_toml='[players."A"]\naliases = ["Al"]\n')
    assert (p.field, p.line) == ("teams[1].players[0].name", 7)
    assert "'Al'" in p.message and "alias" in p.message and "once" in p.message


def test_every_problem_of_a_match_in_one_run(make_site):
    text = layout(
        team(True, player("A", -1, 1), '{ name = "C", kills = 1, deaths = 1.5 }'),     # line 6
        f'{{ won = true, side = "blue", players = [{B}, {{ name = "", kills = 1, deaths = 1 }}] }}',  # 7
        '{ won = "maybe", players = [{ name = "D", kills = 1, deaths = 1, assists = -3 }] }',       # 8
        head="score_to_win = 0", extra=f"players = [{A}]")
    problems = invalid(make_site, text)
    found = sorted((p.field, p.line) for p in problems)
    assert found == sorted([
        ("score_to_win", 3),
        ("players", 4),
        ("teams", 5),                             # two winners, although player fields are bad too
        ("teams[0].players[0].kills", 6),
        ("teams[0].players[1].deaths", 6),
        ("teams[1].side", 7),
        ("teams[1].players[1].name", 7),
        ("teams[2].won", 8),
        ("teams[2].players[0].assists", 8),
    ]), "\n".join(map(str, problems))
    winners = next(p for p in problems if p.field == "teams")
    assert "teams[0] and teams[1]" in winners.message


def test_no_winner_is_not_claimed_while_a_won_flag_is_unreadable(make_site):
    # teams[1] might be the winner: only its own flag is reported.
    (p,) = invalid(make_site, layout(team(False, A), f"{{ won = 2, players = [{B}] }}"))
    assert p.field == "teams[1].won"


def test_every_problem_of_several_matches_in_one_run(make_site):
    text = (layout(team(True, player("A", -1, 1)), L)
            + "\n" + layout(W, team(False, '{ name = "B", deaths = 1 }'), head="score_to_win = 1.5"))
    problems = invalid(make_site, text)
    assert sorted((p.match.split()[0], p.field) for p in problems) == [
        ("#1", "teams[0].players[0].kills"), ("#2", "score_to_win"), ("#2", "teams[1].players[0].kills")]


@pytest.mark.parametrize("params, field", [
    ("loss_penalty = 0", "params.loss_penalty"),
    ("loss_penalty = 1.5", "params.loss_penalty"),
    ("death_weight = -1", "params.death_weight"),
    ('assist_weight = "1"', "params.assist_weight"),
    ("betrayal_weight = true", "params.betrayal_weight"),
    ("players_per_team = 4", "params.players_per_team"),
])
def test_bad_parameters(make_site, params, field):
    files = {"matches/halo/league.toml": league_toml("arena", params=params),
             "matches/halo/m.toml": layout(W, L)}
    (p,) = problems_of(make_site(files))
    assert (p.file, p.field) == ("matches/halo/league.toml", field), str(p)
