"""The `openskill` system: teams ranked by place, mu and sigma from the openskill package.

The reference is the package itself, used the way its documentation shows
(``model.rate(teams, ranks=...)`` on the rating objects it returned last time),
never sitegen's own wrapper: every number a league writes must be the package's.
"""

from __future__ import annotations

import filecmp
import math
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openskill.models import PlackettLuce

from helpers import REPO, league_data, load_script, league_toml, problems_of, rows_of
from sitegen.rating.base import Match, RatingDiverged
from sitegen.rating.openskill import OpenSkill

TOL = 1e-6          # the files carry 6 decimals


def team(place: int, *names: str) -> str:
    players = ", ".join(f'{{ name = "{n}" }}' for n in names)
    return f"[[match.teams]]\nplace = {place}\nplayers = [{players}]\n"


def match(played: str, *teams: str, head: str = "") -> str:
    return f"[[match]]\nplayed = {played}\n{head}" + "".join(teams) + "\n"


def site(make_site, matches: str, *, params: str = "", extra: str = "") -> Path:
    return make_site({"matches/os/league.toml": league_toml("openskill", params=params, extra=extra),
                      "matches/os/games.toml": matches})


def package_replay(games: list[tuple[list[list[str]], list[int]]], model: PlackettLuce | None = None,
                   starts: dict[str, tuple[float, float]] | None = None):
    """Each match's (player, mu, sigma) after it, by a plain loop over the package."""
    model = model or PlackettLuce()
    held = {name: model.rating(mu=mu, sigma=sigma) for name, (mu, sigma) in (starts or {}).items()}
    out = []
    for teams, places in games:
        rated = model.rate([[held.get(n) or model.rating() for n in t] for t in teams], ranks=list(places))
        after = []
        for names, ratings in zip(teams, rated):
            for n, r in zip(names, ratings):
                held[n] = r
                after.append((n, r.mu, r.sigma))
        out.append(after)
    return out


def assert_rows_match(rows: list[dict[str, str]], expected: list[list[tuple[str, float, float]]]) -> None:
    flat = [x for game in expected for x in game]
    assert [r["player"] for r in rows] == [n for n, _, _ in flat]
    for row, (name, mu, sigma) in zip(rows, flat):
        assert float(row["mu_after"]) == pytest.approx(mu, abs=TOL), name
        assert float(row["sigma_after"]) == pytest.approx(sigma, abs=TOL), name
        assert float(row["rating_after"]) == pytest.approx(mu - 3 * sigma, abs=TOL), name
        assert float(row["delta"]) == pytest.approx(float(row["rating_after"]) - float(row["rating_before"]),
                                                    abs=2 * TOL)


# --- the numbers are the package's ------------------------------------------------------

def test_two_teams_of_two(make_site):
    root = site(make_site, match("2024-01-01", team(1, "Ann", "Bo"), team(2, "Cy", "Dan")))
    rows = rows_of(league_data(root, "os"), "changes")
    assert list(rows[0])[6:] == ["mu_before", "mu_after", "sigma_before", "sigma_after"]
    assert_rows_match(rows, package_replay([([["Ann", "Bo"], ["Cy", "Dan"]], [1, 2])]))
    # The spec page's worked example.
    assert float(rows[0]["mu_after"]) == pytest.approx(26.964295, abs=TOL)
    assert float(rows[0]["sigma_after"]) == pytest.approx(8.177963, abs=TOL)
    assert float(rows[0]["rating_after"]) == pytest.approx(2.430407, abs=TOL)
    assert float(rows[2]["rating_after"]) == pytest.approx(-1.498182, abs=TOL)
    assert rows[0]["rating_before"] == "0.000000" and rows[0]["sigma_before"] == "8.333333"


def test_three_teams_with_a_tie_and_teams_of_unequal_size(make_site):
    games = [([["Ann"], ["Bo", "Cy"], ["Dan", "Eve", "Fay"]], [2, 1, 2]),      # a shared second place
             ([["Bo"], ["Ann", "Fay"], ["Cy"]], [3, 1, 1]),                     # a shared first place
             ([["Eve", "Ann", "Bo", "Cy"], ["Dan"]], [2, 1])]                   # four against one
    text = "".join(match(f"2024-01-0{i + 1}", *(team(p, *t) for t, p in zip(teams, places)))
                   for i, (teams, places) in enumerate(games))
    rows = rows_of(league_data(site(make_site, text), "os"), "changes")
    assert_rows_match(rows, package_replay(games))
    by = {(r["event"], r["player"]): r for r in rows}
    # Tied teams of equal strength move alike; a tie is not a loss for the better placed.
    assert by[("games-2", "Ann")]["mu_after"] != by[("games-2", "Cy")]["mu_after"]   # different histories
    assert float(by[("games-1", "Dan")]["mu_after"]) < 25 < float(by[("games-1", "Bo")]["mu_after"])


def test_parameters_and_initial_reach_the_package(make_site):
    params = "mu = 30\nsigma = 6\nbeta = 3\ntau = 0.5\nkappa = 0.001\nlimit_sigma = true"
    extra = '[initial]\nAnn = 40\nBo = { sigma = 2 }\n'
    games = [([["Ann", "Bo"], ["Cy"]], [2, 1]), ([["Cy"], ["Ann"]], [1, 2])]
    text = "".join(match(f"2024-01-0{i + 1}", *(team(p, *t) for t, p in zip(teams, places)))
                   for i, (teams, places) in enumerate(games))
    rows = rows_of(league_data(site(make_site, text, params=params, extra=extra), "os"), "changes")
    model = PlackettLuce(mu=30, sigma=6, beta=3, tau=0.5, kappa=0.001, limit_sigma=True)
    # openskill 5 applies limit_sigma only when rate() is told: the package's own reference call.
    expected = []
    held = {"Ann": model.rating(mu=40), "Bo": model.rating(sigma=2)}
    for teams, places in games:
        rated = model.rate([[held.get(n) or model.rating() for n in t] for t in teams], ranks=places,
                           limit_sigma=True)
        expected.append([(n, r.mu, r.sigma) for names, rs in zip(teams, rated) for n, r in zip(names, rs)
                         if not held.__setitem__(n, r)])
    assert_rows_match(rows, expected)
    assert rows[0]["mu_before"] == "40.000000" and rows[1]["sigma_before"] == "2.000000"
    for r in rows:      # limit_sigma: never above the sigma held before the match
        assert float(r["sigma_after"]) <= float(r["sigma_before"]) + TOL


names = st.sampled_from(["Ann", "Bo", "Cy", "Dan", "Eve", "Fay", "Gus", "Hal"])


@st.composite
def games(draw):
    out = []
    for _ in range(draw(st.integers(1, 12))):
        players = draw(st.lists(names, min_size=2, max_size=8, unique=True))
        cuts = sorted(draw(st.sets(st.integers(1, len(players) - 1), min_size=1, max_size=len(players) - 1)))
        teams = [players[a:b] for a, b in zip([0, *cuts], [*cuts, len(players)])]
        places = draw(st.lists(st.integers(1, 4), min_size=len(teams), max_size=len(teams)))
        out.append((teams, places))
    return out


def as_matches(played: list[tuple[list[list[str]], list[int]]]) -> list[Match]:
    system = OpenSkill()
    start = datetime(2024, 1, 1, tzinfo=timezone.utc)
    out = []
    for i, (teams, places) in enumerate(played):
        raw = {"teams": [{"place": p, "players": [{"name": n} for n in t]} for t, p in zip(teams, places)]}
        problems: list = []
        parsed = system.parse_match(raw, lambda path, message: problems.append((path, message)))
        assert parsed is not None and not problems
        out.append(Match(f"m{i}", start + timedelta(minutes=i), "matches/os/x.toml", i + 1, None,
                         parsed.names, parsed.entries, parsed.extra))
    return out


@settings(max_examples=60, deadline=None)
@given(games())
def test_replay_equals_a_plain_loop_over_the_package(played):
    events = OpenSkill().rate(as_matches(played))
    expected = package_replay(played)
    assert len(events) == len(expected)
    for event, game in zip(events, expected):
        assert [(c.player, c.terms["mu_after"], c.terms["sigma_after"]) for c in event.changes] == game
        for c in event.changes:
            assert c.after == c.terms["mu_after"] - 3 * c.terms["sigma_after"]
    # Each player's row starts from where their previous one ended.
    last: dict[str, tuple[float, float]] = {}
    for event in events:
        for c in event.changes:
            assert (c.terms["mu_before"], c.terms["sigma_before"]) == last.get(c.player, (25.0, 25 / 3))
            last[c.player] = (c.terms["mu_after"], c.terms["sigma_after"])


def test_a_runaway_is_reported_with_its_match():
    system = OpenSkill(mu=1_000_000, beta=0.001, sigma=0.001)
    with pytest.raises(RatingDiverged) as info:
        system.rate(as_matches([([["Ann"], ["Bo"]], [1, 2])]))
    assert info.value.event == "m0"


# --- standings ---------------------------------------------------------------------------

def test_standings_rank_by_mu_minus_three_sigma(make_site):
    # Cy wins once and stops; Ann and Bo trade wins ten times, ending near mu 25 but sure of it:
    # the ranking is by mu - 3 sigma, not by mu.
    text = match("2024-01-01", team(1, "Cy"), team(2, "Dan"))
    for i in range(10):
        text += match(f"2024-01-{i + 2:02d}", team(1 + i % 2, "Ann"), team(2 - i % 2, "Bo"))
    data = league_data(site(make_site, text), "os")
    rows = rows_of(data, "standings")
    assert list(rows[0]) == ["rank", "player", "rating", "games", "mu", "sigma"]
    ratings = [float(r["rating"]) for r in rows]
    assert ratings == sorted(ratings, reverse=True)
    for r in rows:
        assert float(r["rating"]) == pytest.approx(float(r["mu"]) - 3 * float(r["sigma"]), abs=4 * TOL)
        assert int(r["rank"]) == 1 + sum(x > float(r["rating"]) for x in ratings)
    mu = {r["player"]: float(r["mu"]) for r in rows}
    order = [r["player"] for r in rows]
    assert mu["Cy"] > mu["Ann"] and order.index("Ann") < order.index("Cy")


# --- problems ----------------------------------------------------------------------------

def test_every_problem_with_file_line_and_field(make_site):
    text = ("[[match]]\n"                                             # 1
            "played = 2024-01-01\n"                                   # 2
            "won = true\n"                                            # 3
            "[[match.teams]]\n"                                       # 4
            "place = 0\n"                                             # 5
            'players = [{ name = "Ann", kills = 3 }]\n'               # 6
            "[[match.teams]]\n"                                       # 7
            "plac = 2\n"                                              # 8
            'players = [{ name = "" }]\n'                             # 9
            "\n[[match]]\n"                                           # 10, 11
            "played = 2024-01-02\n"                                   # 12
            'teams = [{ place = "1", players = [] }]\n'               # 13
            "\n[[match]]\n"                                           # 14, 15
            "played = 2024-01-03\n"                                   # 16
            'players = [{ name = "Ann" }, { name = "Bo" }]\n')        # 17
    problems = problems_of(site(make_site, text))
    found = sorted((p.file, p.line, p.match.split()[0], p.field) for p in problems)
    f = "matches/os/games.toml"
    assert found == sorted([
        (f, 3, "#1", "won"),
        (f, 5, "#1", "teams[0].place"),
        (f, 6, "#1", "teams[0].players[0].kills"),
        (f, 7, "#1", "teams[1].place"),
        (f, 8, "#1", "teams[1].plac"),
        (f, 9, "#1", "teams[1].players[0].name"),
        (f, 13, "#2", "teams"),
        (f, 13, "#2", "teams[0].place"),
        (f, 13, "#2", "teams[0].players"),
        (f, 17, "#3", "players"),
        (f, 15, "#3", "teams"),
    ]), "\n".join(map(str, problems))
    by = {p.field: p.message for p in problems}
    assert "did you mean 'place'" in by["teams[1].plac"]
    assert "numbers are written without quotes" in by["teams[0].place"]
    assert "1 = the winners; equal places tie" in by["teams[1].place"]


def test_a_player_in_two_teams_is_named_where_they_appear_again(make_site):
    problems = problems_of(site(make_site, match("2024-01-01", team(1, "Ann", "Bo"), team(2, "Cy", "Ann"))))
    (p,) = problems
    assert (p.field, p.line) == ("teams[1].players[1].name", 8)


@pytest.mark.parametrize("params, field", [
    ("sigma = 0", "params.sigma"), ("beta = -1", "params.beta"), ("kappa = 1", "params.kappa"),
    ("limit_sigma = 1", "params.limit_sigma"), ("tau = -0.1", "params.tau"), ("z = 3", "params.z"),
])
def test_bad_parameters(make_site, params, field):
    (p,) = problems_of(site(make_site, match("2024-01-01", team(1, "Ann"), team(2, "Bo")), params=params))
    assert (p.file, p.field) == ("matches/os/league.toml", field)


def test_bad_initial_values(make_site):
    extra = '[initial]\nAnn = "30"\nBo = { mu = 20, sigma = 0, nu = 1 }\n'
    problems = problems_of(site(make_site, match("2024-01-01", team(1, "Ann"), team(2, "Bo")), extra=extra))
    assert sorted(p.field for p in problems) == ["initial.Ann", "initial.Bo.nu", "initial.Bo.sigma"]


# --- the pages' words --------------------------------------------------------------------

def test_titles_results_and_outcomes():
    system = OpenSkill()
    (duel, tie, lobby) = as_matches([([["Ann", "Bo"], ["Cy", "Dan"]], [2, 1]),
                                     ([["Ann"], ["Bo"]], [1, 1]),
                                     ([["Ann", "Bo", "Cy"], ["Dan"], ["Eve", "Fay"]], [1, 3, 2])])
    assert system.headline(duel) == "Cy and Dan beat Ann and Bo"
    assert [system.outcome(duel, i) for i in range(4)] == ["loss", "loss", "win", "win"]
    assert system.result(duel, 0) == "2nd of 2"
    assert system.headline(tie) == "Ann and Bo draw"
    assert system.outcome(tie, 0) == "draw" and system.result(tie, 1) == "1st of 2 (tied)"
    assert system.headline(lobby) == "Ann's team wins (3 teams)"
    assert system.result(lobby, 3) == "3rd of 3"


# --- the CDL converter -------------------------------------------------------------------

def load_converter():
    return load_script("cdl_league")


FIXTURE = Path(__file__).parent / "fixtures" / "cdl"


def test_cdl_converter_is_deterministic_and_builds(tmp_path, capsys):
    cdl = load_converter()
    a, b = tmp_path / "a" / "matches" / "cdl", tmp_path / "b"
    assert cdl.main(["--data", str(FIXTURE), "--out", str(a)]) == 0
    (b / "2000-01-01.toml").parent.mkdir(parents=True)
    (b / "2000-01-01.toml").write_text("stale", encoding="utf-8")       # a day no longer in the data
    assert cdl.main(["--data", str(FIXTURE), "--out", str(b)]) == 0
    assert sorted(p.name for p in a.iterdir()) == sorted(p.name for p in b.iterdir()) == [
        "2022-12-02.toml", "2022-12-03.toml", "LICENSE", "league.toml"]
    for p in a.iterdir():
        assert filecmp.cmp(p, b / p.name, shallow=False), p.name
    err = capsys.readouterr().err
    assert "map 4 (game 7): no player rows; left out" in err
    rows = rows_of(league_data(tmp_path / "a", "cdl"), "changes")
    assert len(rows) == 11 * 8                     # 12 maps in the slice, one without players
    first = [r for r in rows if r["event"] == "2022-12-02-boston-breach-vs-atlanta-faze-map-1"]
    # Atlanta FaZe won the map 250-207: their four gain, Boston Breach's four lose.
    assert [math.copysign(1, float(r["delta"])) for r in first] == [-1] * 4 + [1] * 4


@pytest.mark.skipif(not (REPO.parent / "shared" / "data" / "cdl").is_dir(), reason="the full CDL data is absent")
def test_the_demo_league_regenerates_byte_for_byte(tmp_path):
    cdl = load_converter()
    assert cdl.main(["--out", str(tmp_path)]) == 0
    demo = REPO / "matches" / "cdl-2023"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in demo.iterdir())
    for p in tmp_path.iterdir():
        assert filecmp.cmp(p, demo / p.name, shallow=False), p.name
