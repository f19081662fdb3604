"""scripts/nfl_league.py: FiveThirtyEight's NFL and NBA Elo, reproduced by sitegen's elo league.

The fixtures in fixtures/fivethirtyeight/ are column slices of FiveThirtyEight's data
(CC BY 4.0, credit FiveThirtyEight; see the README there): every NFL game 1920-2020 and
every NBA game played since 2005-01-01. Each is converted into a league, checked and
rated by sitegen, and every game's post-game ratings are compared with FiveThirtyEight's
elo1_post and elo2_post.
"""

from __future__ import annotations

import datetime
import math
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import REPO, load_script
from sitegen.commands.build import check, rate

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "fivethirtyeight"
TOLERANCE = 0.01


def nfl_script():
    return load_script("nfl_league")


conv = nfl_script()


def build_league(tmp_path: Path, key: str, data: Path):
    model = conv.MODELS[key]
    files, rp = conv.convert(model, data)
    conv.replace_match_files(tmp_path / "matches" / key, files, conv.SEASON_FILE)
    (rated,) = rate(check(tmp_path))
    games = conv.chain_order(conv.read_games(data))
    return files, rp, games, rated


def post_ratings(rated) -> dict[str, dict[str, float]]:
    """match id -> {player: rating after}, from sitegen's own rating events."""
    return {e.key: {c.player: c.after for c in e.changes} for e in rated.events}


def mismatches(files, rp, games, rated) -> list[tuple[str, str]]:
    """(date, "team1-team2") of every game whose sitegen post-game rating is off by more than 0.01."""
    after = post_ratings(rated)
    ids: list[str] = []
    for text in (files[name] for name in files if name != "league.toml"):
        ids += [line.split('"')[1] for line in text.splitlines() if line.startswith("id = ")]
    assert len(ids) == len(games) == len(after)
    by_id = dict(zip([m.id for m in rated.league.matches], rated.league.matches))
    off = []
    for g, names, mid in zip(games, rp.players, ids):
        match = by_id[mid]
        assert tuple(match.players) == names
        got = after[mid]
        if abs(got[names[0]] - g.post[0]) > TOLERANCE or abs(got[names[1]] - g.post[1]) > TOLERANCE:
            off.append((g.date, f"{g.team1}-{g.team2}"))
    return off


@pytest.fixture(scope="module")
def nfl(tmp_path_factory):
    return build_league(tmp_path_factory.mktemp("nfl"), "nfl", FIXTURES / "nfl_elo.csv.gz")


@pytest.fixture(scope="module")
def nba(tmp_path_factory):
    return build_league(tmp_path_factory.mktemp("nba"), "nba", FIXTURES / "nba_elo_2005.csv.gz")


def test_every_nfl_game_reproduced(nfl):
    files, rp, games, rated = nfl
    assert len(games) == 16541
    assert mismatches(files, rp, games, rated) == []
    assert rp.breaks == []


def test_nfl_restarts_are_fivethirtyeights_hand_set_ratings(nfl):
    """The eleven between-season ratings FiveThirtyEight set by hand (their forecast.py's REVERSIONS)."""
    _, rp, _, _ = nfl
    found = {(r.team, r.game.season): round(r.published, 3) for r in rp.restarts}
    assert found == {
        ("CBD", 1925): 1502.032, ("RAC", 1926): 1403.384, ("LOU", 1926): 1307.201,
        ("CIB", 1927): 1362.919, ("MNN", 1929): 1306.702, ("BFF", 1929): 1331.943,
        ("LAR", 1944): 1373.977, ("PHI", 1944): 1497.988, ("ARI", 1945): 1353.939,
        ("PIT", 1945): 1353.939, ("CLE", 1999): 1300.0,
    }
    assert [r.player for r in rp.restarts][:2] == ["CBD (from 1925)", "RAC (from 1926)"]


def test_nfl_league_params_are_fivethirtyeights(nfl):
    files, rp, games, _ = nfl
    league = tomllib.loads(files["league.toml"])
    assert league["system"] == "elo"
    assert league["params"] == {"k": 20, "k_of": "each", "home_advantage": 65, "margin": "538-nfl",
                                "season_reversion": pytest.approx(1 / 3), "reversion_mean": 1505}
    assert league["initial"]["RII"] == 1503.947 and league["initial"]["STP"] == 1300.0
    assert league["initial"]["CLE (from 1999)"] == 1300.0
    assert "CC BY 4.0" in league["description"] and "FiveThirtyEight" in league["description"]
    # The Super Bowl is at a neutral site: no `home`.
    last = tomllib.loads(files["2019.toml"])["match"][-1]
    assert last["id"] == "2020-02-02-kc-sf" and "home" not in last


def test_nba_since_2005_reproduced_but_two_published_changes(nba):
    """All NBA games since 2005 but the two whose published change is not FiveThirtyEight's formula.

    2015-06-14 GSW 104-91 CLE (published shift 3.656, the formula's 4.934: as if the margin
    were 8) and 2016-04-05 ATL 103-90 PHO (1.422 against 1.498). Their teams restart at
    their next game, and every other game matches.
    """
    files, rp, games, rated = nba
    off = mismatches(files, rp, games, rated)
    assert off == [("2015-06-14", "GSW-CLE"), ("2016-04-05", "ATL-PHO")]
    assert [(b.game.date, b.game.team1) for b in rp.breaks] == [("2015-06-14", "GSW"), ("2016-04-05", "ATL")]
    assert len(games) - len(off) == 20006
    assert [(r.team, r.game.date) for r in rp.restarts] == [
        ("NOP", "2007-10-31"), ("CLE", "2015-06-16"), ("GSW", "2015-06-16"),
        ("PHO", "2016-04-07"), ("ATL", "2016-04-07")]


def test_nba_same_day_games_follow_the_published_chain(nba):
    """FiveThirtyEight's file lists the Hawks-Heat game of 2008-03-07 before both teams' other
    games that day, yet its pre-game ratings are their post-game ones: it is rated after them."""
    _, _, games, _ = nba
    day = [f"{g.team1}-{g.team2}" for g in games if g.date == "2008-03-07" and {"ATL", "MIA"} & {g.team1, g.team2}]
    assert day.index("ATL-MIA") > day.index("CHO-ATL") and day.index("ATL-MIA") > day.index("MIA-GSW")


def test_a_changed_published_rating_is_a_restart(tmp_path):
    """A hand-edited elo_pre (as FiveThirtyEight's own resets are) makes the converter restart the team."""
    lines = conv.gzip.decompress((FIXTURES / "nfl_elo.csv.gz").read_bytes()).decode().splitlines()[:200]
    header = lines[0].split(",")
    col = header.index("elo1_pre")
    # The last game of the slice: its home team's published rating moves by 50.
    cells = lines[-1].split(",")
    team, before = cells[header.index("team1")], float(cells[col])
    cells[col] = repr(before + 50)
    lines[-1] = ",".join(cells)
    data = tmp_path / "edited.csv"
    data.write_text("\n".join(lines) + "\n")
    files, rp, games, rated = build_league(tmp_path, "nfl", data)
    assert [(r.team, r.game.row) for r in rp.restarts] == [(team, 200)]
    assert tomllib.loads(files["league.toml"])["initial"][rp.restarts[0].player] == before + 50
    # Its post-game ratings are then the formula's from the edited rating, not the published ones.
    assert mismatches(files, rp, games, rated) == [(games[-1].date, f"{games[-1].team1}-{games[-1].team2}")]


def test_conversion_is_deterministic_and_regenerates_the_example(tmp_path):
    """The committed league folder is what the script writes from the full data, byte for byte."""
    full = REPO.parent / "shared" / "data" / "fivethirtyeight_nfl" / "nfl_elo.csv"
    committed = REPO / "matches" / "nfl"
    first, _ = conv.convert(conv.MODELS["nfl"], FIXTURES / "nfl_elo.csv.gz")
    second, _ = conv.convert(conv.MODELS["nfl"], FIXTURES / "nfl_elo.csv.gz")
    assert first == second
    # The fixture holds every game of the full file, so it gives the same league.
    on_disk = {p.name: p.read_text(encoding="utf-8") for p in committed.iterdir() if p.suffix == ".toml"}
    assert on_disk == first
    if full.is_file():
        assert conv.convert(conv.MODELS["nfl"], full)[0] == first


# ---------------------------------------------------------------------------
# Synthetic histories: FiveThirtyEight's formula written out again here, independently of
# the converter and of sitegen, produces the "published" columns.
# ---------------------------------------------------------------------------

HEADER = "date,season,neutral,playoff,team1,team2,elo1_pre,elo2_pre,elo1_post,elo2_post,score1,score2\n"


def published(key: str, games: list[tuple[int, int, int, bool, int, int]], starts: dict[int, float]) -> str:
    """CSV rows for (season, team1, team2, neutral, score1, score2), rated by FiveThirtyEight's model."""
    hfa, w = (65, 1 / 3) if key == "nfl" else (100, 1 / 4)
    elo, season_of, rows = dict(starts), {}, []
    for day, (season, t1, t2, neutral, s1, s2) in enumerate(games):
        for t in (t1, t2):
            if t in season_of and season_of[t] != season:
                elo[t] = elo[t] * (1 - w) + 1505 * w
            season_of[t] = season
        pre = elo[t1], elo[t2]
        diff = pre[0] - pre[1] + (0 if neutral else hfa)
        p = 1 / (10 ** (-diff / 400) + 1)
        res = 1 if s1 > s2 else 0.5 if s1 == s2 else 0
        d = diff if res == 1 else -diff
        if key == "nfl":
            mult = math.log(max(abs(s1 - s2), 1) + 1) * (2.2 / (1 if res == 0.5 else d * 0.001 + 2.2))
        else:
            mult = (abs(s1 - s2) + 3) ** 0.8 / (7.5 if res == 0.5 else 7.5 + 0.006 * d)
        shift = 20 * mult * (res - p)
        elo[t1], elo[t2] = pre[0] + shift, pre[1] - shift
        date = (datetime.date(2000, 1, 1) + datetime.timedelta(days=day)).isoformat()
        rows.append(f"{date},{season}.0,{neutral},,T{t1},T{t2},{pre[0]!r},{pre[1]!r},{elo[t1]!r},{elo[t2]!r},"
                    f"{s1}.0,{s2}.0\n")
    return HEADER + "".join(rows)


@st.composite
def histories(draw):
    n = draw(st.integers(2, 5))
    starts = {t: draw(st.floats(1200, 1800, allow_nan=False)) for t in range(n)}
    games, season = [], 2000
    for _ in range(draw(st.integers(1, 25))):
        season += draw(st.sampled_from([0, 0, 0, 1, 2]))
        t1, t2 = draw(st.lists(st.integers(0, n - 1), min_size=2, max_size=2, unique=True))
        games.append((season, t1, t2, draw(st.booleans()), draw(st.integers(0, 60)), draw(st.integers(0, 60))))
    return starts, games


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(key=st.sampled_from(["nfl", "nba"]), history=histories())
def test_any_history_of_the_formula_is_reproduced(tmp_path_factory, key, history):
    """Whatever the games (ties, neutral sites, seasons skipped), sitegen gives the formula's
    post-game ratings, and the converter finds nothing to restart."""
    starts, games = history
    root = tmp_path_factory.mktemp("synthetic")
    data = root / "games.csv"
    data.write_text(published(key, games, starts), encoding="utf-8")
    files, rp, read, rated = build_league(root, key, data)
    assert rp.restarts == [] and rp.breaks == []
    assert mismatches(files, rp, read, rated) == []
    after = post_ratings(rated)
    for g, names, event in zip(read, rp.players, rated.events):
        assert after[event.key][names[0]] == pytest.approx(g.post[0], abs=1e-6)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(history=histories(), jump=st.floats(0.02, 300) | st.floats(-300, -0.02))
def test_a_published_rating_off_the_formula_restarts_the_team(tmp_path_factory, history, jump):
    starts, games = history
    text = published("nfl", games, starts).splitlines(keepends=True)
    last = text[-1].split(",")
    if not any(g[1] == games[-1][1] or g[2] == games[-1][1] for g in games[:-1]):
        return       # the team's first game: its published rating is where it starts, nothing to restart
    last[6] = repr(float(last[6]) + jump)
    text[-1] = ",".join(last)
    root = tmp_path_factory.mktemp("jump")
    (root / "games.csv").write_text("".join(text), encoding="utf-8")
    files, rp, read, rated = build_league(root, "nfl", root / "games.csv")
    assert [(r.team, r.game.row) for r in rp.restarts] == [(last[4], len(text))]
    assert tomllib.loads(files["league.toml"])["initial"][rp.restarts[0].player] == float(last[6])


def test_unreadable_rows_are_reported_with_their_lines(tmp_path, capsys):
    data = tmp_path / "bad.csv"
    data.write_text(HEADER + "1920-09-26,1920.0,False,,RII,STP,1503.947,1300.0,1516.108,1287.838,48.0,0.0\n"
                             "1920-02-30,x,maybe,,RII,RII,abc,1300.0,1516.108,,48.5,-1\n"
                             "1920-10-03,1920.0,False,,DAY,COL,1493.002,1504.908,,,,\n", encoding="utf-8")
    assert conv.main(["--data", str(data), "--out", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err.splitlines()
    assert all(line.startswith(f"{data}:3: 1920-02-30 RII-RII: ") for line in err)
    assert [line.split(": ")[2] for line in err] == [
        "date", "season", "team2", "elo1_pre", "elo2_post", "score1", "score2", "neutral"]
    assert not (tmp_path / "out").exists()
    data.write_text("a,b\n1,2\n", encoding="utf-8")
    assert conv.main(["--data", str(data), "--out", str(tmp_path / "out")]) == 1
    assert capsys.readouterr().err.startswith(f"{data}:1: header: missing the columns date, season")
