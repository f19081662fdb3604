"""The auditor's ledger: every changes.csv of the demo recomputed from the data files alone.

For each league of the repository's own demo (matches/ at the root), the test reads
the CSV files a build writes (changes.csv, matches.csv and, for glicko2, pairings.csv),
the league's parameters from league.toml and the players' own numbers from the match
files matches.csv names, and replays the league with an implementation of the
documented formulas written here, never sitegen's rating code. Every column of every
row must agree to 1e-6 (a number written with 6 decimals is within 5e-7 of its value).
"""

from __future__ import annotations

import csv
import io
import json
import math
import shutil
import tomllib
import unicodedata
from datetime import date, datetime, timezone
from pathlib import Path

import pytest

from sitegen.model.scale import TWIN_ROWS
from helpers import REPO, elo_match, league_data, league_toml, rows_of, write_files

DEMO = REPO / "matches"
LEAGUES = sorted(p.name for p in DEMO.iterdir() if (p / "league.toml").is_file())
TOL = 1e-6

DEFAULTS = {
    "lunaro": {"initial": 1500, "k": 50, "k_bands": [[0, 40], [1500, 20], [2500, 10]], "ping_influence": 300},
    "elo": {"initial": 1500, "k": "fide", "k_of": "challenger", "provisional_games": 30, "k_provisional": 40,
            "k_standard": 20, "k_master": 10, "master_rating": 2400},
    "placement": {"initial": 0, "floor": 0, "k": "bands", "k_bands": [[0, 32], [2100, 24], [2400, 16]],
                  "normalize": False},
    "glicko2": {"initial_rating": 1500, "initial_rd": 350, "initial_volatility": 0.06, "tau": 0.6,
                "period": "week", "score_transform": "sine", "epsilon": 0.000001},
    "arena": {"assist_weight": 1, "death_weight": 1 / 3, "betrayal_weight": 1, "loss_penalty": 0.96},
    "openskill": {"mu": 25, "sigma": 25 / 3, "beta": 25 / 6, "tau": 25 / 300, "kappa": 0.0001,
                  "limit_sigma": False},
}

ELO_COLUMNS = ["expected", "score", "k", "challenger", "home", "margin_multiplier", "weight", "reverted_from"]


# --- reading the files ---------------------------------------------------------------

class Demo:
    """One league of the demo as an auditor has it: its data files and its repository files."""

    def __init__(self, root: Path, slug: str, data: dict[str, str]) -> None:
        self.data = data
        league = tomllib.loads((root / "matches" / slug / "league.toml").read_text(encoding="utf-8"))
        self.system = league["system"]
        self.params = {**DEFAULTS[self.system], **league.get("params", {})}
        self.initial = league.get("initial", {})
        self.changes = rows_of(data, "changes")
        self.match_rows = rows_of(data, "matches")
        self.aliases = aliases(root / "matches" / "players.toml")
        self.matches = match_tables(root, slug, [r["file"] for r in self.match_rows])

    def events(self) -> list[tuple[str, list[dict[str, str]]]]:
        """The rows of changes.csv grouped by event, in file order."""
        out: list[tuple[str, list[dict[str, str]]]] = []
        for row in self.changes:
            if out and out[-1][0] == row["event"]:
                out[-1][1].append(row)
            else:
                out.append((row["event"], [row]))
        return out

    def name(self, raw: str) -> str:
        key = unicodedata.normalize("NFC", raw.strip())
        return self.aliases.get(key, key)


def aliases(path: Path) -> dict[str, str]:
    if not path.is_file():
        return {}
    table = tomllib.loads(path.read_text(encoding="utf-8")).get("players", {})
    return {unicodedata.normalize("NFC", a.strip()): unicodedata.normalize("NFC", name.strip())
            for name, info in table.items() for a in info.get("aliases", [])}


def match_tables(root: Path, slug: str, files: list[str]) -> dict[str, dict]:
    """Every [[match]] of the files matches.csv names, by id (explicit, or path-derived)."""
    out: dict[str, dict] = {}
    for rel in dict.fromkeys(files):
        inside = Path(rel).relative_to(Path("matches") / slug).as_posix()
        stem = inside[:-len(".toml")].replace("/", "-")
        for n, m in enumerate(tomllib.loads((root / rel).read_text(encoding="utf-8-sig"))["match"], 1):
            out[m.get("id", f"{stem}-{n}")] = m
    return out


def num(text: str) -> float:
    return float(text)


def close(row: dict[str, str], column: str, value: float | None) -> None:
    if value is None:
        assert row[column] == "", (column, row)
        return
    assert row[column] != "", (column, row)
    assert abs(float(row[column]) - value) <= TOL, (column, value, row)


def expected(r: float, r_other: float) -> float:
    return 1.0 / (1.0 + 10.0 ** ((r_other - r) / 400.0))


def band_k(bands: list[list[float]], rating: float) -> float:
    k = bands[0][1]
    for low, band in bands:
        if rating >= low:
            k = band
    return float(k)


def common(row: dict[str, str], before: float | None, after: float) -> None:
    close(row, "rating_before", before)
    close(row, "rating_after", after)
    close(row, "delta", None if before is None else after - before)


# --- one replay per system ---------------------------------------------------------------

def replay_lunaro(d: Demo) -> None:
    p = d.params
    ratings: dict[str, int] = {}
    for key, rows in d.events():
        m = d.matches[key]
        assert [r["player"] for r in rows] == [d.name(e["name"]) for e in m["players"]]
        before = [ratings.get(r["player"], p["initial"]) for r in rows]
        abil = [r * (1.0 / math.cosh(e["ping"] / p["ping_influence"])) for r, e in zip(before, m["players"])]
        goals = [e["goals"] for e in m["players"]]
        share = 0.5 if sum(goals) == 0 else goals[0] / sum(goals)
        e_a = expected(abil[0], abil[1])
        for i, row in enumerate(rows):
            r = before[i]
            e, s = (e_a, share) if i == 0 else (1.0 - e_a, 1.0 - share)
            k = band_k(p["k_bands"], r) if p["k"] == "bands" else float(p["k"])
            x = r + k * (s - e)
            after = max(0, int(math.copysign(math.floor(abs(x) + 0.5), x)))    # half away from zero
            assert row["rating_before"] == str(r) and row["rating_after"] == str(after), row
            assert row["delta"] == str(after - r), row
            for column, value in (("ability", abil[i]), ("expected", e), ("score", s), ("k", k)):
                close(row, column, value)
            ratings[row["player"]] = after


def margin_multiplier(rule: str, m: dict, before: list[float], s_a: float, h: list[float]) -> float:
    """Contract section 8's M from the match's points, d the winner's edge, home advantage included."""
    if rule == "none":
        return 1.0
    margin = abs(m["players"][0]["points"] - m["players"][1]["points"])
    if s_a == 0.5:
        d = None
    else:
        w, lo = (0, 1) if s_a == 1 else (1, 0)
        d = (before[w] + h[w]) - (before[lo] + h[lo])
    if rule == "538-nfl":
        top = math.log(max(margin, 1) + 1) * 2.2
        return top if d is None else top / (0.001 * d + 2.2)
    top = (margin + 3) ** 0.8
    return top / 7.5 if d is None else top / (7.5 + 0.006 * d)


def replay_elo(d: Demo) -> None:
    """Version 1's Elo with section 8's rules: starting ratings, home advantage, margin,
    match weights and season reversion, recomputed from the files alone."""
    p = d.params
    assert list(d.changes[0])[6:] == ELO_COLUMNS
    home_advantage = float(p.get("home_advantage", 0))
    rule = p.get("margin", "none")
    w_rev, mean = float(p.get("season_reversion", 0)), float(p.get("reversion_mean", 1505))
    ratings: dict[str, float] = {}
    games: dict[str, int] = {}
    reached: dict[str, bool] = {}
    season_of: dict[str, object] = {}
    season: object = None
    for key, rows in d.events():
        m = d.matches[key]
        names = [r["player"] for r in rows]
        assert names == [d.name(e["name"]) for e in m["players"]]
        season = m.get("season", season)        # no season: the league's previous match's
        before, reverted = [], []
        for n in names:
            r = ratings.get(n, float(d.initial.get(n, p["initial"])))
            rev = None
            if n in season_of and season_of[n] != season and w_rev:
                rev, r = r, (1 - w_rev) * r + w_rev * mean
            season_of[n] = season
            before.append(r)
            reverted.append(rev)
        challenger = d.name(m.get("challenger", m["players"][0]["name"]))
        ks = []
        for n, r in zip(names, before):
            if p["k"] != "fide":
                ks.append(float(p["k"]))
            elif games.get(n, 0) < p["provisional_games"]:
                ks.append(float(p["k_provisional"]))
            elif reached.get(n, r >= p["master_rating"]):
                ks.append(float(p["k_master"]))
            else:
                ks.append(float(p["k_standard"]))
        if p["k_of"] == "challenger":
            ks = [ks[names.index(challenger)]] * 2
        home = d.name(m["home"]) if "home" in m else None
        h = [home_advantage if n == home else 0.0 for n in names]
        e_a = expected(before[0] + h[0], before[1] + h[1])
        s_a = float(m["players"][0]["score"])
        mult = margin_multiplier(rule, m, before, s_a, h)
        weight = float(m.get("weight", 1))
        for i, row in enumerate(rows):
            e, s = (e_a, s_a) if i == 0 else (1.0 - e_a, 1.0 - s_a)
            after = before[i] + ks[i] * weight * mult * (s - e)     # K * weight * M * (S - E)
            common(row, before[i], after)
            for column, value in (("expected", e), ("score", s), ("k", ks[i]), ("margin_multiplier", mult),
                                  ("weight", weight), ("reverted_from", reverted[i])):
                close(row, column, value)
            assert row["challenger"] == (challenger if p["k_of"] == "challenger" else ""), row
            assert row["home"] == (home or ""), row
            n = row["player"]
            reached[n] = reached.get(n, before[i] >= p["master_rating"]) or after >= p["master_rating"]
            games[n] = games.get(n, 0) + 1
            ratings[n] = after


def replay_placement(d: Demo) -> None:
    p = d.params
    ratings: dict[str, float] = {}
    for key, rows in d.events():
        m = d.matches[key]
        assert [r["player"] for r in rows] == [d.name(e["name"]) for e in m["players"]]
        n = len(rows)
        before = [ratings.get(r["player"], float(p["initial"])) for r in rows]
        places = [e["place"] for e in m["players"]]
        afters = []
        for i, row in enumerate(rows):
            r = before[i]
            e = sum(expected(r, before[j]) for j in range(n) if j != i)
            s = sum(1.0 if places[j] > places[i] else 0.5 if places[j] == places[i] else 0.0
                    for j in range(n) if j != i)
            k = band_k(p["k_bands"], r) if p["k"] == "bands" else float(p["k"])
            if p["normalize"]:
                k /= n - 1
            after = max(float(p["floor"]), r + k * (s - e))
            common(row, r, after)
            for column, value in (("expected", e), ("score", s), ("k", k)):
                close(row, column, value)
            afters.append(after)
        for row, after in zip(rows, afters):        # everyone from the ratings held before the match
            ratings[row["player"]] = after


GLICKO_SCALE = 173.7178


def battle(a: float, b: float, transform: str) -> float:
    if transform == "outcome":
        return 1.0 if a > b else 0.5 if a == b else 0.0
    p = 0.5 if a + b == 0 else a / (a + b)
    return p if transform == "share" else (math.sin((p - 0.5) * math.pi) + 1.0) / 2.0


def glicko_update(r: float, rd: float, sigma: float, results: list[tuple[float, float, float]],
                  tau: float, eps: float) -> tuple[float, float, float]:
    """Steps 2-8 of Glickman's "Example of the Glicko-2 system"; results: (r_j, RD_j, s_j)."""
    mu, phi = (r - 1500.0) / GLICKO_SCALE, rd / GLICKO_SCALE
    info = surprise = 0.0
    for r_j, rd_j, s in results:
        g = 1.0 / math.sqrt(1.0 + 3.0 * (rd_j / GLICKO_SCALE) ** 2 / math.pi ** 2)
        e = 1.0 / (1.0 + math.exp(-g * (mu - (r_j - 1500.0) / GLICKO_SCALE)))
        info += g * g * e * (1.0 - e)
        surprise += g * (s - e)
    v = 1.0 / info
    delta = v * surprise
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        return (math.exp(x) * (delta ** 2 - phi ** 2 - v - math.exp(x)) / (2.0 * (phi ** 2 + v + math.exp(x)) ** 2)
                - (x - a) / tau ** 2)

    big_a = a
    if delta ** 2 > phi ** 2 + v:
        big_b = math.log(delta ** 2 - phi ** 2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > eps:
        c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = c, f_c
    new_sigma = math.exp(big_a / 2.0)
    phi_star = math.sqrt(phi ** 2 + new_sigma ** 2)
    new_phi = 1.0 / math.sqrt(1.0 / phi_star ** 2 + 1.0 / v)
    new_mu = mu + new_phi ** 2 * surprise
    return GLICKO_SCALE * new_mu + 1500.0, GLICKO_SCALE * new_phi, new_sigma


def period_of(played: datetime, period: str, position: int, match_id: str) -> tuple[str, int]:
    """(key, index) of a match's rating period; indexes count periods, empty ones too."""
    day = played.astimezone(timezone.utc).date()
    if period == "match":
        return match_id, position
    if period == "day":
        return day.isoformat(), day.toordinal()
    year, week, _ = day.isocalendar()
    return f"{year}-W{week:02d}", date.fromisocalendar(year, week, 1).toordinal() // 7


def parse_played(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def replay_glicko2(d: Demo) -> None:
    p = d.params
    pairings = rows_of(d.data, "pairings")
    assert list(pairings[0]) == ["period", "match_id", "player", "opponent", "score", "opponent_rating",
                                 "opponent_rd"]
    # The periods, from matches.csv: history order, each match's period from its played.
    periods: list[tuple[str, int, list[dict[str, str]]]] = []
    for position, mrow in enumerate(d.match_rows):
        key, index = period_of(parse_played(mrow["played"]), p["period"], position, mrow["match_id"])
        if periods and periods[-1][0] == key:
            periods[-1][2].append(mrow)
        else:
            periods.append((key, index, [mrow]))
    events = d.events()
    assert [key for key, _, _ in periods] == [key for key, _ in events]
    initial = (float(p["initial_rating"]), float(p["initial_rd"]), float(p["initial_volatility"]))
    held: dict[str, tuple[tuple[float, float, float], int]] = {}
    remaining = iter(pairings)
    for (key, index, mrows), (_, rows) in zip(periods, events):
        before: dict[str, tuple[float, float, float]] = {}
        results: dict[str, list[tuple[float, float, float]]] = {}
        for mrow in mrows:
            for e in d.matches[mrow["match_id"]]["players"]:
                name = d.name(e["name"])
                if name not in before:
                    if name in held:
                        (r, rd, sigma), last = held[name]
                        idle = index - last - 1          # step 6 for every period sat out
                        before[name] = (r, GLICKO_SCALE * math.sqrt((rd / GLICKO_SCALE) ** 2 + idle * sigma ** 2),
                                        sigma)
                    else:
                        before[name] = initial
                    results[name] = []
        for mrow in mrows:
            entries = d.matches[mrow["match_id"]]["players"]
            for i, a in enumerate(entries):
                for j, b in enumerate(entries):
                    if i == j:
                        continue
                    name, other = d.name(a["name"]), d.name(b["name"])
                    s = battle(float(a["score"]), float(b["score"]), p["score_transform"])
                    prow = next(remaining)
                    assert (prow["period"], prow["match_id"], prow["player"], prow["opponent"]) == \
                        (key, mrow["match_id"], name, other), prow
                    close(prow, "score", s)
                    close(prow, "opponent_rating", before[other][0])
                    close(prow, "opponent_rd", before[other][1])
                    results[name].append((before[other][0], before[other][1], s))
        assert [r["player"] for r in rows] == list(before)       # first appearance in the period
        for row, (name, old) in zip(rows, before.items()):
            assert row["played"] == mrows[-1]["played"], row
            new = glicko_update(*old, results[name], float(p["tau"]), float(p["epsilon"]))
            common(row, old[0], new[0])
            for column, value in (("rd_before", old[1]), ("rd_after", new[1]),
                                  ("volatility_before", old[2]), ("volatility_after", new[2])):
                close(row, column, value)
            held[name] = (new, index)
    assert next(remaining, None) is None


def replay_arena(d: Demo) -> None:
    p = d.params
    sums: dict[str, float] = {}
    counts: dict[str, int] = {}
    for key, rows in d.events():
        m = d.matches[key]
        entries = [(pl, team) for team in m["teams"] for pl in team["players"]]
        assert [r["player"] for r in rows] == [d.name(pl["name"]) for pl, _ in entries]
        games = []
        for row, (pl, team) in zip(rows, entries):
            raw = (pl["kills"] + p["assist_weight"] * pl.get("assists", 0)
                   - (p["death_weight"] * pl["deaths"] + p["betrayal_weight"] * pl.get("betrayals", 0)))
            norm = len(team["players"]) / m["score_to_win"]
            penalty = 1.0 if team["won"] else float(p["loss_penalty"])
            game = penalty * (1000.0 + 2000.0 / math.pi * math.atan(raw * norm))
            n = counts.get(row["player"], 0)
            before = sums[row["player"]] / n if n else None
            common(row, before, (sums.get(row["player"], 0.0) + game) / (n + 1))
            for column, value in (("raw", raw), ("game_norm", norm), ("penalty", penalty), ("game_rating", game)):
                close(row, column, value)
            games.append(game)
        for row, game in zip(rows, games):
            sums[row["player"]] = sums.get(row["player"], 0.0) + game
            counts[row["player"]] = counts.get(row["player"], 0) + 1


def replay_openskill(d: Demo) -> None:
    """The openskill package is the formula's documented implementation: the auditor calls it
    on the teams and places of each match file, as its documentation shows."""
    from openskill.models import PlackettLuce

    p = d.params
    model = PlackettLuce(mu=p["mu"], sigma=p["sigma"], beta=p["beta"], tau=p["tau"], kappa=p["kappa"],
                         limit_sigma=p["limit_sigma"])
    held: dict[str, object] = {}
    for key, rows in d.events():
        m = d.matches[key]
        names = [[d.name(pl["name"]) for pl in team["players"]] for team in m["teams"]]
        assert [r["player"] for r in rows] == [n for team in names for n in team]
        before = [[held.get(n) or model.rating() for n in team] for team in names]
        start = [(r.mu, r.sigma) for team in before for r in team]
        rated = model.rate(before, ranks=[team["place"] for team in m["teams"]], limit_sigma=p["limit_sigma"])
        after = [r for team in rated for r in team]
        for row, (mu, sigma), r in zip(rows, start, after):
            common(row, mu - 3 * sigma, r.mu - 3 * r.sigma)
            for column, value in (("mu_before", mu), ("mu_after", r.mu), ("sigma_before", sigma),
                                  ("sigma_after", r.sigma)):
                close(row, column, value)
            held[row["player"]] = r


REPLAY = {"lunaro": replay_lunaro, "elo": replay_elo, "placement": replay_placement,
          "glicko2": replay_glicko2, "arena": replay_arena, "openskill": replay_openskill}


def demo_league(tmp_path: Path, slug: str) -> Demo:
    """The demo's league alone (and players.toml), rated as a build rates it."""
    root = tmp_path / "site"
    shutil.copytree(DEMO / slug, root / "matches" / slug)
    shutil.copy(DEMO / "players.toml", root / "matches" / "players.toml")
    return Demo(root, slug, league_data(root, slug))


# --- the tests ---------------------------------------------------------------------------

def test_the_demo_has_every_system():
    systems = {tomllib.loads((DEMO / s / "league.toml").read_text(encoding="utf-8"))["system"] for s in LEAGUES}
    assert systems == set(REPLAY)


@pytest.mark.parametrize("slug", LEAGUES)
def test_every_change_of_the_demo_recomputes_from_the_data_files(tmp_path, slug):
    d = demo_league(tmp_path, slug)
    assert d.changes, "the league has no changes"
    assert len({r["match_id"] for r in d.match_rows}) == len(d.matches)
    REPLAY[d.system](d)
    # The JSON beside the CSV says the same thing, column for column (a league past TWIN_ROWS leaves it out).
    # Rows of changes.csv are the league's player appearances (no demo league near the line rates by period).
    if len(d.changes) > TWIN_ROWS:
        assert "changes.json" not in d.data
    else:
        objects = json.loads(d.data["changes.json"])
        assert [list(o) for o in objects[:1]] == [list(d.changes[0])]
        assert len(objects) == len(d.changes)
    if d.system == "glicko2":
        assert json.loads(d.data["pairings.json"]) == [
            {k: (None if v == "" else v if k in ("period", "match_id", "player", "opponent") else float(v))
             for k, v in row.items()} for row in rows_of(d.data, "pairings")]
    else:
        assert "pairings.csv" not in d.data


def test_a_tampered_ledger_fails_the_recomputation(tmp_path):
    """The replay is a real check: one K changed in the elo league's file is caught."""
    d = demo_league(tmp_path, "ranked-battle")
    row = d.changes[len(d.changes) // 2]
    row["k"] = f"{float(row['k']) + 10:.6f}"
    with pytest.raises(AssertionError):
        replay_elo(d)


def elo_league(tmp_path: Path, params: str, matches: str) -> list[dict[str, str]]:
    root = write_files(tmp_path / "site", {
        "matches/l/league.toml": league_toml("elo", params=params),
        "matches/l/m.toml": matches,
    })
    return rows_of(league_data(root, "l"), "changes")


def test_elo_challenger_column_names_whose_k_both_players_used(tmp_path):
    # Ana has played 30 games (K 20 from then on), Bo none (K 40): the challenger's K counts.
    history = "".join(elo_match(f"2024-01-01T00:{i:02d}:00Z", "Ana", 0.5, f"P{i}", 0.5) for i in range(30))
    rows = elo_league(tmp_path, "", history
                      + elo_match("2024-01-02T00:00:00Z", "Ana", 1, "Bo", 0, challenger="Bo")
                      + elo_match("2024-01-03T00:00:00Z", "Ana", 0, "Bo", 1))
    bo_challenges, ana_challenges = rows[-4:-2], rows[-2:]
    assert [(r["player"], r["challenger"], r["k"]) for r in bo_challenges] == [
        ("Ana", "Bo", "40.000000"), ("Bo", "Bo", "40.000000")]
    assert [(r["player"], r["challenger"], r["k"]) for r in ana_challenges] == [
        ("Ana", "Ana", "20.000000"), ("Bo", "Ana", "20.000000")]
    assert all((r["home"], r["margin_multiplier"], r["weight"], r["reverted_from"]) == ("", "1.000000", "1.000000", "")
               for r in rows)


def test_elo_challenger_column_is_empty_when_each_player_uses_their_own_k(tmp_path):
    history = "".join(elo_match(f"2024-01-01T00:{i:02d}:00Z", "Ana", 0.5, f"P{i}", 0.5) for i in range(30))
    rows = elo_league(tmp_path, 'k_of = "each"',
                      history + elo_match("2024-01-02T00:00:00Z", "Ana", 1, "Bo", 0, challenger="Bo"))
    assert [(r["player"], r["challenger"], r["k"]) for r in rows[-2:]] == [
        ("Ana", "", "20.000000"), ("Bo", "", "40.000000")]
    assert all(r["challenger"] == "" for r in rows)


def test_ledger_names_are_written_as_names_in_csv_and_json(tmp_path):
    """A challenger's name is text in both files, quoted where CSV needs it, never a number."""
    name = 'Kai "The Wall", =1+1'
    root = write_files(tmp_path / "site", {
        "matches/l/league.toml": league_toml("elo"),
        "matches/l/m.toml": elo_match("2024-01-01T00:00:00Z", "Bo", 0, name.replace('"', '\\"'), 1,
                                      challenger=name.replace('"', '\\"')),
    })
    data = league_data(root, "l")
    rows = list(csv.DictReader(io.StringIO(data["changes.csv"], newline="")))
    assert [r["challenger"] for r in rows] == [name, name]
    assert [o["challenger"] for o in json.loads(data["changes.json"])] == [name, name]
    assert [o["home"] for o in json.loads(data["changes.json"])] == [None, None]
