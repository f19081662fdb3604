"""accuracy.csv of an openskill league, recomputed from changes.csv with the package alone.

One prediction per pair of teams of a match: the better placed team's win probability by
``PlackettLuce.predict_win`` from the mu and sigma each player held before the match (the
changes.csv terms mu_before and sigma_before), against S = 1, or 0.5 on a tie with the
earlier listed team predicted. The accuracy page compares it with the same baselines as
every other system.
"""

from __future__ import annotations

import itertools

from openskill.models import PlackettLuce

from helpers import league_data, league_toml, read_csv, rows_of
from sitegen.commands.build import build
from sitegen.model.accuracy import predictions
from sitegen.model.baselines import compare
from sitegen.commands.build import check, rate
from test_accuracy import assert_accuracy, summary
from test_openskill import match, team

GAMES = [
    # (played, [(place, players), ...]) in listing order
    ("2023-03-01", [(1, ("Ann",)), (2, ("Bob",))]),
    ("2023-06-01", [(2, ("Ann", "Cy")), (1, ("Bob", "Dee"))]),
    ("2023-09-01", [(1, ("Cy",)), (1, ("Dee",)), (3, ("Ann", "Bob"))]),
    ("2024-01-05", [(3, ("Bob",)), (1, ("Ann",)), (2, ("Cy",)), (2, ("Dee",))]),
    ("2024-02-05", [(1, ("Dee", "Ann")), (1, ("Bob", "Cy"))]),
]


def games_toml() -> str:
    return "".join(match(played, *(team(p, *names) for p, names in teams)) for played, teams in GAMES)


def recomputed(changes: list[dict[str, str]], model: PlackettLuce) -> list[tuple[int, float, float]]:
    """(year, E, S) per pair of teams, from changes.csv's rows alone (one event per match)."""
    out = []
    events = [list(g) for _, g in itertools.groupby(changes, key=lambda r: r["event"])]
    assert len(events) == len(GAMES)
    for rows, (played, teams) in zip(events, GAMES):
        before = {r["player"]: model.rating(mu=float(r["mu_before"]), sigma=float(r["sigma_before"]))
                  for r in rows}
        sides = [[before[n] for n in names] for _, names in teams]
        places = [p for p, _ in teams]
        for i, j in itertools.combinations(range(len(teams)), 2):
            a, b = (j, i) if places[j] < places[i] else (i, j)
            e = model.predict_win([sides[a], sides[b]])[0]
            out.append((int(played[:4]), e, 0.5 if places[i] == places[j] else 1.0))
    return out


def test_accuracy_csv_recomputes_from_changes_csv_with_the_package(make_site):
    params = "beta = 3.0\ntau = 0.2\nkappa = 0.001"
    root = make_site({"matches/os/league.toml": league_toml("openskill", params=params),
                      "matches/os/games.toml": games_toml()})
    files = league_data(root, "os")
    preds = recomputed(rows_of(files, "changes"), PlackettLuce(beta=3.0, tau=0.2, kappa=0.001))
    assert len(preds) == 1 + 1 + 3 + 6 + 1
    # Held to the six decimals changes.csv gives mu and sigma.
    assert_accuracy(files["accuracy.csv"], summary(preds))
    # And at full precision in memory, each pair in its place.
    own = list(predictions(rate(check(root))[0]))
    assert [(p.year, p.score) for p in own] == [(y, s) for y, _, s in preds]
    for p, (_, e, _) in zip(own, preds):
        assert abs(p.expected - e) < 1e-5
    assert (own[0].a, own[0].b) == ("Ann", "Bob")
    assert (own[1].a, own[1].b) == ("Bob & Dee", "Ann & Cy")       # the better placed team first
    assert (own[2].a, own[2].b, own[2].score) == ("Cy", "Dee", 0.5)  # a tie: the earlier listed


def test_the_accuracy_page_compares_openskill_with_its_baselines(make_site):
    games = games_toml()
    own = make_site({"matches/os/league.toml": league_toml("openskill", params="beta = 3.0"),
                     "matches/os/games.toml": games})
    plain = make_site({"matches/os/league.toml": league_toml("openskill"), "matches/os/games.toml": games})
    models = compare(rate(check(own))[0]).models
    assert [m.key for m in models] == ["league", "default", "coin-flip"]
    # The default-parameter baseline is the league built without params.
    expected = read_csv(league_data(plain, "os")["accuracy.csv"])
    assert [(a.period, str(a.predictions), f"{a.log_loss:.6f}", f"{a.brier:.6f}") for a in models[1].rows] == \
        [(r["period"], r["predictions"], r["log_loss"], r["brier"]) for r in expected]
    assert models[2].rows[0].predictions == 12
    # A league on the defaults is set beside plain Elo; the page builds either way.
    assert [m.key for m in compare(rate(check(plain))[0]).models] == ["league", "plain-elo", "coin-flip"]
    build(own, own / "_site")
    page = (own / "_site" / "leagues" / "os" / "accuracy" / "index.html").read_text(encoding="utf-8")
    assert "chance of winning by the Plackett-Luce model" in page
