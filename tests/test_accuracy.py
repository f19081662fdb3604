"""accuracy.csv (docs/auditors, "How well the ratings predict").

The demo's accuracy files are recomputed from the other data files alone (changes.csv,
and for glicko2 pairings.csv and matches.csv) with the definitions written out here;
small leagues check each system's predictions against numbers worked by hand.
"""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sitegen.model.accuracy import EPS, log_loss_term
from helpers import elo_match, league_data, league_toml, read_csv, rows_of, write_files

HEADER = "period,predictions,log_loss,brier"
TOL = 1e-5      # E and S are read back with 6 decimals; a mean of log losses moves by a few 1e-6


def ln_loss(e: float, s: float) -> float:
    e = min(max(e, 1e-15), 1 - 1e-15)
    return -(s * math.log(e) + (1 - s) * math.log(1 - e))


def summary(predictions: list[tuple[int, float, float]]) -> list[tuple[str, int, float, float]]:
    """(period, n, log loss, brier) from (year, E, S): "all", then each year, oldest first."""
    def row(name, ps):
        return (name, len(ps), sum(ln_loss(e, s) for _, e, s in ps) / len(ps),
                sum((e - s) ** 2 for _, e, s in ps) / len(ps))
    years = sorted({y for y, _, _ in predictions})
    return [row("all", predictions)] + [row(str(y), [p for p in predictions if p[0] == y]) for y in years]


def assert_accuracy(text: str, expected: list[tuple[str, int, float, float]], tol: float = TOL) -> None:
    assert text.splitlines()[0] == HEADER
    rows = read_csv(text)
    assert [(r["period"], int(r["predictions"])) for r in rows] == [(p, n) for p, n, _, _ in expected]
    for r, (_, _, ll, br) in zip(rows, expected):
        for column, value in (("log_loss", ll), ("brier", br)):
            assert len(r[column].split(".")[1]) == 6, r
            assert abs(float(r[column]) - value) <= tol, (r, column, value)


# --- the demo, from its data files alone ---------------------------------------------------

@pytest.fixture(scope="module")
def demo(demo_site) -> Path:
    """The data files of the repository's own demo, built once a session (conftest's
    ``demo_site``, the build the browser tests view)."""
    return demo_site[0] / "data"


def read(data: Path, slug: str, table: str) -> list[dict[str, str]]:
    return read_csv((data / slug / f"{table}.csv").read_text(encoding="utf-8"))


def by_event(rows: list[dict[str, str]]) -> list[list[dict[str, str]]]:
    return [list(g) for _, g in itertools.groupby(rows, key=lambda r: r["event"])]


def first_listed(changes: list[dict[str, str]]) -> list[tuple[int, float, float]]:
    """lunaro and elo: the first row of each event is the first listed player."""
    return [(int(ev[0]["played"][:4]), float(ev[0]["expected"]), float(ev[0]["score"])) for ev in by_event(changes)]


def placement_pairs(changes: list[dict[str, str]]) -> list[tuple[int, float, float]]:
    """A higher score (players placed below, ties half) is a better place; equal scores tie."""
    out = []
    for ev in by_event(changes):
        year = int(ev[0]["played"][:4])
        for a, b in itertools.combinations(ev, 2):          # a is listed before b
            sa, sb = float(a["score"]), float(b["score"])
            better, other = (b, a) if sb > sa else (a, b)
            e = 1 / (1 + 10 ** ((float(other["rating_before"]) - float(better["rating_before"])) / 400))
            out.append((year, e, 0.5 if sa == sb else 1.0))
    return out


def glicko_pairs(changes, pairings, matches) -> list[tuple[int, float, float]]:
    """Each pair once, A the earlier listed: A's rows come first among a match's pairings."""
    year = {m["match_id"]: int(m["played"][:4]) for m in matches}
    start = {(r["event"], r["player"]): float(r["rating_before"]) for r in changes}
    out = []
    for match_id, rows in itertools.groupby(pairings, key=lambda r: r["match_id"]):
        rows = list(rows)
        order = list(dict.fromkeys(r["player"] for r in rows))
        for r in rows:
            if order.index(r["player"]) < order.index(r["opponent"]):
                phi_j = float(r["opponent_rd"]) / 173.7178
                g = 1 / math.sqrt(1 + 3 * phi_j ** 2 / math.pi ** 2)
                mu_diff = (start[(r["period"], r["player"])] - float(r["opponent_rating"])) / 173.7178
                out.append((year[match_id], 1 / (1 + math.exp(-g * mu_diff)), float(r["score"])))
    return out


@pytest.mark.parametrize("slug", ["lunaro-duels", "ranked-battle"])
def test_demo_accuracy_of_lunaro_and_elo_recomputes_from_changes_csv(demo, slug):
    expected = summary(first_listed(read(demo, slug, "changes")))
    assert len(expected) >= 3, "the demo spans at least two years"
    assert_accuracy((demo / slug / "accuracy.csv").read_text(encoding="utf-8"), expected)


def test_demo_accuracy_of_placement_recomputes_from_changes_csv(demo):
    expected = summary(placement_pairs(read(demo, "battle-royale", "changes")))
    assert_accuracy((demo / "battle-royale" / "accuracy.csv").read_text(encoding="utf-8"), expected)


def test_demo_accuracy_of_glicko2_recomputes_from_pairings_csv(demo):
    slug = "world-vs-world"
    expected = summary(glicko_pairs(read(demo, slug, "changes"), read(demo, slug, "pairings"),
                                    read(demo, slug, "matches")))
    # Every match of three worlds is three pairs.
    assert expected[0][1] == 3 * len(read(demo, slug, "matches"))
    assert_accuracy((demo / slug / "accuracy.csv").read_text(encoding="utf-8"), expected)


def test_demo_accuracy_files_sit_beside_the_other_tables(demo):
    assert not (demo / "arena" / "accuracy.csv").exists(), "arena predicts no pairs"
    for slug in ("lunaro-duels", "ranked-battle", "battle-royale", "formula-1", "world-vs-world"):
        text = (demo / slug / "accuracy.csv").read_text(encoding="utf-8")
        assert text.endswith("\n") and "\r" not in text
        objects = json.loads((demo / slug / "accuracy.json").read_text(encoding="utf-8"))
        assert objects == [{"period": r["period"], "predictions": int(r["predictions"]),
                            "log_loss": float(r["log_loss"]), "brier": float(r["brier"])} for r in read_csv(text)]


# --- small leagues, worked by hand ---------------------------------------------------------

def accuracy_of(tmp_path: Path, system: str, matches: str, params: str = "", players: str = "") -> str:
    files = {"matches/l/league.toml": league_toml(system, params=params), "matches/l/m.toml": matches}
    if players:
        files["matches/players.toml"] = players
    return league_data(write_files(tmp_path / "site", files), "l")["accuracy.csv"]


def test_elo_predictions_by_hand_with_year_rows(tmp_path):
    # 2024: both at 1500, E = 0.5, Ana wins. Ana 1520, Bo 1480 (K 40, provisional).
    # 2025: Bo listed first: E = 1 / (1 + 10^(40/400)), and Bo wins.
    text = accuracy_of(tmp_path, "elo", elo_match("2024-12-31T20:00:00Z", "Ana", 1, "Bo", 0)
                       + elo_match("2025-01-01T00:30:00+02:00", "Bo", 1, "Ana", 0))   # 2024-12-31 in UTC
    e2 = 1 / (1 + 10 ** 0.1)
    assert read_csv(text)[0]["predictions"] == "2"
    # The second match is played 2024-12-31T22:30Z: both predictions belong to 2024.
    both = [(math.log(2), 0.25), (-math.log(e2), (1 - e2) ** 2)]
    assert_accuracy(text, [("all", 2, sum(x for x, _ in both) / 2, sum(y for _, y in both) / 2),
                           ("2024", 2, sum(x for x, _ in both) / 2, sum(y for _, y in both) / 2)], 1e-6)


def test_elo_year_rows_follow_played_in_utc(tmp_path):
    text = accuracy_of(tmp_path, "elo", elo_match("2023-06-01T12:00:00Z", "Ana", 1, "Bo", 0)
                       + elo_match("2025-01-01T00:30:00Z", "Bo", 1, "Ana", 0)
                       + elo_match("2025-03-01T00:00:00Z", "Bo", 0.5, "Ana", 0.5))
    # Ana 1520 and Bo 1480 after the first match; then Bo (K 40) wins: Bo 1480 + 40 (1 - e2).
    e2 = 1 / (1 + 10 ** 0.1)
    bo = 1480 + 40 * (1 - e2)
    ana = 1520 - 40 * (1 - e2)
    e3 = 1 / (1 + 10 ** ((ana - bo) / 400))
    rows = [("2023", [(math.log(2), 0.25)]),
            ("2025", [(-math.log(e2), (1 - e2) ** 2),
                      (-(0.5 * math.log(e3) + 0.5 * math.log(1 - e3)), (e3 - 0.5) ** 2)])]
    every = [t for _, ts in rows for t in ts]
    expected = [("all", 3, sum(x for x, _ in every) / 3, sum(y for _, y in every) / 3)]
    expected += [(y, len(ts), sum(x for x, _ in ts) / len(ts), sum(b for _, b in ts) / len(ts)) for y, ts in rows]
    assert_accuracy(text, expected, 1e-6)          # no row for 2024: a year without matches has none


def test_lunaro_prediction_is_the_first_players_goal_share(tmp_path):
    # Equal ratings, both at ping 0: E = 0.5 against S = 20 / 30.
    matches = ('[[match]]\nplayed = 2024-05-01\nplayers = [{ name = "Kestrel", goals = 20, ping = 0 }, '
               '{ name = "Ana", goals = 10, ping = 0 }]\n')
    text = accuracy_of(tmp_path, "lunaro", matches)
    s = 2 / 3
    ll = -(s * math.log(0.5) + (1 - s) * math.log(0.5))
    assert_accuracy(text, [("all", 1, ll, (0.5 - s) ** 2), ("2024", 1, ll, (0.5 - s) ** 2)], 1e-6)


def placement_match(played: str, *players: tuple[str, int]) -> str:
    entries = ", ".join(f'{{ name = "{n}", place = {p} }}' for n, p in players)
    return f"[[match]]\nplayed = {played}\nplayers = [{entries}]\n"


def test_placement_predicts_the_better_placed_and_the_earlier_listed_on_a_tie(tmp_path):
    # Match 1: Cy beats Bo, both at 0 (K 32): Cy 16, Bo 0. Match 2 lists Bo, Cy, then the
    # newcomer Al (0) who wins; Bo and Cy share second place.
    text = accuracy_of(tmp_path, "placement",
                       placement_match("2024-01-01", ("Bo", 2), ("Cy", 1))
                       + placement_match("2024-01-02", ("Bo", 2), ("Cy", 2), ("Al", 1)))
    e16 = 1 / (1 + 10 ** (16 / 400))       # the one rated 0 against the one rated 16
    predictions = [
        (0.5, 1.0),              # match 1: Cy (better placed) against Bo, both 0
        # Bo and Cy tie: Bo, listed first, is predicted. (Predicting Cy would give the same
        # terms: with S = 0.5 both the log loss and (E - S)^2 are the same for E and 1 - E.)
        (e16, 0.5),
        (0.5, 1.0),              # Al (0) placed above Bo (0)
        (e16, 1.0),              # Al (0) placed above Cy (16)
    ]
    ll = sum(ln_loss(e, s) for e, s in predictions) / 4
    br = sum((e - s) ** 2 for e, s in predictions) / 4
    assert_accuracy(text, [("all", 4, ll, br), ("2024", 4, ll, br)], 1e-6)


def glicko_match(played: str, *players: tuple[str, float]) -> str:
    entries = ", ".join(f'{{ name = "{n}", score = {s} }}' for n, s in players)
    return f"[[match]]\nplayed = {played}\nplayers = [{entries}]\n"


def test_glicko2_predicts_every_pair_from_the_values_held_at_the_start_of_the_period(tmp_path):
    # Week 1 (2024-W01) holds two matches of three newcomers: every prediction uses the
    # values going into the period (1500, RD 350), even in its second match, so E = 0.5.
    # Week 2: Ana against Bo, from their values after week 1 (changes.csv), then the
    # newcomer Dee (listed first, so predicted) against Ana: E uses Ana's RD, not Dee's 350.
    root = write_files(tmp_path / "site", {
        "matches/l/league.toml": league_toml("glicko2", params='score_transform = "share"'),
        "matches/l/m.toml": glicko_match("2024-01-01", ("Ana", 3), ("Bo", 1), ("Cy", 0))
                            + glicko_match("2024-01-03", ("Cy", 2), ("Ana", 2), ("Bo", 0))
                            + glicko_match("2024-01-09", ("Ana", 1), ("Bo", 3))
                            + glicko_match("2024-01-10", ("Dee", 2), ("Ana", 1)),
    })
    data = league_data(root, "l")
    changes = rows_of(data, "changes")
    week1 = {r["player"]: r for r in changes if r["event"] == "2024-W01"}
    assert set(week1) == {"Ana", "Bo", "Cy"}
    # Share transform: p = A / (A + B), 0.5 when both are 0.
    first = [(0.5, 3 / 4), (0.5, 1.0), (0.5, 1.0),            # Ana-Bo, Ana-Cy, Bo-Cy
             (0.5, 0.5), (0.5, 1.0), (0.5, 1.0)]              # Cy-Ana, Cy-Bo, Ana-Bo
    ana, bo = week1["Ana"], week1["Bo"]
    phi_bo = float(bo["rd_after"]) / 173.7178
    g = 1 / math.sqrt(1 + 3 * phi_bo ** 2 / math.pi ** 2)
    e = 1 / (1 + math.exp(-g * (float(ana["rating_after"]) - float(bo["rating_after"])) / 173.7178))
    assert e > 0.5, "Ana did better than Bo in week 1"
    phi_ana = float(ana["rd_after"]) / 173.7178
    g_ana = 1 / math.sqrt(1 + 3 * phi_ana ** 2 / math.pi ** 2)
    e_dee = 1 / (1 + math.exp(-g_ana * (1500 - float(ana["rating_after"])) / 173.7178))
    predictions = first + [(e, 1 / 4), (e_dee, 2 / 3)]
    ll = sum(ln_loss(x, s) for x, s in predictions) / 8
    br = sum((x - s) ** 2 for x, s in predictions) / 8
    assert_accuracy(data["accuracy.csv"], [("all", 8, ll, br), ("2024", 8, ll, br)], 1e-6)


def test_a_certain_prediction_that_fails_gives_a_finite_log_loss(tmp_path):
    # K = 10,000 sends Ana to 6500 and Bo to -3500: in floats E = 1.0 exactly, and Bo wins.
    text = accuracy_of(tmp_path, "elo", elo_match("2024-01-01", "Ana", 1, "Bo", 0)
                       + elo_match("2024-01-02", "Ana", 0, "Bo", 1), params="k = 10000")
    row = read_csv(text)[0]
    ll = float(row["log_loss"])
    assert math.isfinite(ll) and "nan" not in text and "inf" not in text
    assert (math.log(2) + -math.log(1 - (1 - EPS))) / 2 == pytest.approx(ll, abs=1e-6)
    assert float(row["brier"]) == pytest.approx((0.25 + 1.0) / 2, abs=1e-6)


@given(st.floats(0, 1), st.floats(0, 1))
@example(1.0, 0.0)
@example(0.0, 1.0)
def test_log_loss_is_finite_for_every_e_and_s(e, s):
    x = log_loss_term(e, s)
    assert math.isfinite(x) and x >= 0
    # The clamp's upper end, 1 - EPS, rounds in floats: its miss costs -ln(1.11e-15).
    assert x <= max(-math.log(EPS), -math.log(1 - (1 - EPS))) + 1e-9


def test_a_league_without_pairs_has_no_accuracy_file_and_an_empty_league_has_no_means(tmp_path):
    root = write_files(tmp_path / "site", {
        "matches/e/league.toml": league_toml("elo"),
        "matches/a/league.toml": league_toml("arena"),
    })
    assert league_data(root, "e")["accuracy.csv"] == HEADER + "\nall,0,,\n"
    assert json.loads(league_data(root, "e")["accuracy.json"]) == [
        {"period": "all", "predictions": 0, "log_loss": None, "brier": None}]
    assert "accuracy.csv" not in league_data(root, "a")


scores = st.sampled_from([(1, 0), (0.5, 0.5), (0, 1)])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 4), st.integers(0, 4), scores),
                min_size=1, max_size=25))
def test_the_all_row_is_the_mean_of_the_year_rows(tmp_path_factory, games):
    """Per-year rows weigh into "all" by their counts; each is a mean of per-match terms."""
    text = ""
    for i, (year, a, b, (sa, sb)) in enumerate(games):
        if a == b:
            continue
        text += elo_match(f"{2020 + year}-01-01T00:00:{i:02d}Z", f"P{a}", sa, f"P{b}", sb)
    if not text:
        return
    rows = read_csv(accuracy_of(tmp_path_factory.mktemp("p"), "elo", text))
    assert rows[0]["period"] == "all"
    years = rows[1:]
    assert [r["period"] for r in years] == sorted({r["period"] for r in years})
    n = sum(int(r["predictions"]) for r in years)
    assert int(rows[0]["predictions"]) == n
    for column in ("log_loss", "brier"):
        mean = sum(float(r[column]) * int(r["predictions"]) for r in years) / n
        assert abs(mean - float(rows[0][column])) < 1e-5


def test_league_pages_show_the_accuracy_table_and_the_next_matchups(demo):
    site = demo.parent
    for slug in ("lunaro-duels", "ranked-battle", "battle-royale", "world-vs-world"):
        page = (site / "leagues" / slug / "index.html").read_text(encoding="utf-8")
        assert "How well do these ratings predict?" in page
        assert f'data/{slug}/accuracy.csv"' in page
        first = read(demo, slug, "accuracy")[0]
        assert f'<td class="num">{first["predictions"]}</td><td class="num">{float(first["log_loss"]):.4f}</td>' in page
    arena = (site / "leagues" / "arena" / "index.html").read_text(encoding="utf-8")
    assert "How well do these ratings predict?" not in arena
    wvw = (site / "leagues" / "world-vs-world" / "index.html").read_text(encoding="utf-8")
    assert "Next week&#39;s matchups" in wvw or "Next week's matchups" in wvw
    # Every group of three shows its three pairs.
    assert wvw.count("<caption>Tier ") == 4 and wvw.count("% · ") == 12
    assert "Next week" not in (site / "leagues" / "ranked-battle" / "index.html").read_text(encoding="utf-8")
