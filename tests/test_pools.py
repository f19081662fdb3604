"""Matchmaking files of docs/auditors: pools.csv (elo) and next.csv (glicko2).

Pools: the properties the contract promises (every member within the deviation on its
side, each side min(pool_size // 2, candidates), the pick one of the pool, never the
player), each player's draw seeded by their own standings row (another player's row
leaves it alone), the demo's draw reproduced from a build's standings.csv by the
documented recipe, and the same bytes from two builds in processes with different hash
seeds. Next groupings: groups of three by region and rating, the remainder last.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitegen.load.config import LeagueConfig, PlayerInfo, Roster
from sitegen.model.groupings import next_groupings
from sitegen.model.history import RatedLeague, rank
from sitegen.model.pools import Pool, opponent_pools
from sitegen.model.table import standings_columns, table_csv
from sitegen.rating.base import Standing
from sitegen.rating.elo import Elo
from sitegen.load.validate import League
from helpers import REPO, day, elo_match, league_data, league_toml, problems_of, read_csv, rows_of, write_files

DEMO = REPO / "matches"


def synthetic(ratings: dict[str, float], system_name: str = "elo", *, slug: str = "l",
              games: dict[str, int] | None = None, **params) -> RatedLeague:
    """A rated league with the given final ratings (and games, 1 unless given) and nothing else."""
    system = Elo(**params)
    config = LeagueConfig(slug=slug, name="L", system_name=system_name, system=system, params=params,
                          explicit=frozenset())
    standings = [Standing(name, rating, (games or {}).get(name, 1), {"rd": 50.0, "volatility": 0.06})
                 for name, rating in ratings.items()]
    return RatedLeague(League(config, ()), (), rank(standings))


# --- pools: properties ---------------------------------------------------------------------

names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=6)
# Whole ratings on a narrow range give equal ratings and players exactly at the deviation's edge.
ratings = st.one_of(st.integers(1400, 1700).map(float), st.floats(1300, 1800, allow_nan=False))


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(names, ratings, max_size=40), st.integers(1, 300), st.integers(2, 40),
       st.text(min_size=1, max_size=8))
def test_every_pool_member_is_within_the_deviation_on_its_side(board, deviation, size, slug):
    rated = synthetic(board, slug=slug, pool_deviation=deviation, pool_size=size)
    pools = opponent_pools(rated)
    assert [p.player for p in pools] == [r.standing.player for r in rated.standings]
    order = {r.standing.player: i for i, r in enumerate(rated.standings)}
    for pool in pools:
        r = board[pool.player]
        below = [q for q in board if q != pool.player and r - deviation <= board[q] <= r]
        above = [q for q in board if r < board[q] <= r + deviation]
        assert all(r - deviation <= o.rating <= r for o in pool.below)
        assert all(r < o.rating <= r + deviation for o in pool.above)
        assert {o.name for o in pool.below} <= set(below) and {o.name for o in pool.above} <= set(above)
        assert len(pool.below) == min(size // 2, len(below))
        assert len(pool.above) == min(size // 2, len(above))
        members = [o.name for o in pool.members]
        assert pool.player not in members and len(set(members)) == len(members)
        assert len(members) <= size
        # Each side in standings order, as the rows list them.
        for side in (pool.below, pool.above):
            assert [order[o.name] for o in side] == sorted(order[o.name] for o in side)
        assert (pool.pick is None) == (not members)
        assert pool.pick is None or pool.pick in pool.members
        assert all(o.rating == board[o.name] for o in pool.members)
    again = synthetic(board, slug=slug, pool_deviation=deviation, pool_size=size)
    assert opponent_pools(again) == pools, "the same input draws the same pools"


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(names, ratings, min_size=1, max_size=60), st.integers(1, 300), st.integers(2, 40))
def test_each_pool_is_the_recipes_draw_from_its_whole_window(board, deviation, size):
    """The draw keeps each side's window as it slides down the standings; the recipe, with the
    exact ratings, sorts every window afresh by name. Equal ratings, players at a window's edge
    and windows of one or none are all drawn."""
    rated = synthetic(board, slug="w", pool_deviation=deviation, pool_size=size)
    rows = standings_rows(rated)
    ranked = [(r.standing.player, r.standing.rating) for r in rated.standings]
    expected = []
    for name, r in ranked:
        rng = random.Random(int.from_bytes(hashlib.sha256(f"w\n{name}\n{rows[name]}".encode()).digest(), "big"))
        chosen = []
        for side in ([q for q in ranked if q[0] != name and r - deviation <= q[1] <= r],
                     [q for q in ranked if r < q[1] <= r + deviation]):
            positions = sorted(range(len(side)), key=lambda i: side[i][0])
            k = min(size // 2, len(side))
            for i in range(k):
                j = i + int(rng.random() * (len(side) - i))
                positions[i], positions[j] = positions[j], positions[i]
            chosen.append([side[i][0] for i in sorted(positions[:k])])
        pool = chosen[0] + chosen[1]
        expected.append((name, chosen[0], chosen[1], pool[int(rng.random() * len(pool))] if pool else None))
    assert [(p.player, [o.name for o in p.below], [o.name for o in p.above], p.pick and p.pick.name)
            for p in opponent_pools(rated)] == expected


def pools_by_player(rated: RatedLeague) -> dict[str, Pool]:
    return {p.player: p for p in opponent_pools(rated)}


def candidates(rated: RatedLeague, player: str, deviation: float) -> tuple[list, list]:
    board = [(r.standing.player, r.standing.rating) for r in rated.standings]
    mine = dict(board)[player]
    return ([q for q in board if q[0] != player and mine - deviation <= q[1] <= mine],
            [q for q in board if mine < q[1] <= mine + deviation])


def standings_rows(rated: RatedLeague) -> dict[str, str]:
    lines = table_csv(standings_columns(rated)).splitlines()[1:]     # no name holds a line break here
    return {r.standing.player: line for r, line in zip(rated.standings, lines)}


def test_a_pool_is_drawn_again_when_its_players_own_row_changes_and_only_then():
    # 40 players 10 points apart: with pool_deviation 100 each has up to 10 candidates a side,
    # of which pool_size 6 draws 3, so another seed draws another pool.
    board = {f"P{i:02d}": 1500.0 + 10 * i for i in range(40)}
    params = {"pool_deviation": 100, "pool_size": 6}
    base = synthetic(board, **params)
    pools = pools_by_player(base)

    # P20's games change: their row alone changes (no rating, rank or candidate does).
    played = synthetic(board, games={"P20": 7}, **params)
    assert [p for p, row in standings_rows(played).items() if row != standings_rows(base)[p]] == ["P20"]
    again = pools_by_player(played)
    assert again["P20"] != pools["P20"]
    assert again["P20"].below != pools["P20"].below or again["P20"].above != pools["P20"].above
    assert {p: q for p, q in again.items() if p != "P20"} == {p: q for p, q in pools.items() if p != "P20"}

    # The bottom player gains 5 points (still last): only players within reach of their old or
    # new rating have other candidates; every other pool, far above, is drawn as it was.
    moved = synthetic({**board, "P00": 1505.0}, **params)
    after = pools_by_player(moved)
    rows_before, rows_after = standings_rows(base), standings_rows(moved)
    untouched = [p for p in board if rows_before[p] == rows_after[p]
                 and candidates(base, p, 100) == candidates(moved, p, 100)]
    assert untouched == [p for p in board if board[p] > 1505.0 + 100]      # P11 .. P39
    assert all(after[p] == pools[p] for p in untouched)
    assert after["P00"] != pools["P00"]


def test_another_league_draws_other_pools():
    board = {f"P{i:02d}": 1500.0 + i for i in range(60)}
    assert opponent_pools(synthetic(board, slug="a")) != opponent_pools(synthetic(board, slug="b"))


def test_pool_size_odd_rounds_down_and_a_lone_player_has_an_empty_pool():
    board = {"Ana": 1500.0, "Bo": 1490.0, "Cy": 1480.0, "Dee": 1510.0, "Eve": 1520.0, "Far": 2000.0}
    pools = pools_by_player(synthetic(board, pool_size=3))
    assert (len(pools["Ana"].below), len(pools["Ana"].above)) == (1, 1)
    assert pools["Far"].members == () and pools["Far"].pick is None


# --- pools: the demo, reproduced from its data files ----------------------------------------

def row_text(row: list[str]) -> str:
    """A row of standings.csv as the file holds it, without its line end (quoted as csv writes it)."""
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow(row)
    return out.getvalue()[:-1]


def auditor_pools(slug: str, standings_csv: str, deviation: float, size: int) -> list[tuple]:
    """The recipe of docs/auditors, from standings.csv alone."""
    header, *rows = csv.reader(io.StringIO(standings_csv, newline=""))
    assert header[:3] == ["rank", "player", "rating"]
    board = [(row[1], float(row[2]), row_text(row)) for row in rows]       # standings order
    out = []
    for name, r, text in board:
        seed = int.from_bytes(hashlib.sha256(f"{slug}\n{name}\n{text}".encode("utf-8")).digest(), "big")
        rng = random.Random(seed)
        below = [(q, x) for q, x, _ in board if q != name and r - deviation <= x <= r]
        above = [(q, x) for q, x, _ in board if r < x <= r + deviation]
        chosen = []
        for side in (below, above):
            positions = sorted(range(len(side)), key=lambda i: side[i][0])     # drawn by name
            k = min(size // 2, len(side))
            for i in range(k):
                j = i + int(rng.random() * (len(side) - i))
                positions[i], positions[j] = positions[j], positions[i]
            chosen.append([side[i] for i in sorted(positions[:k])])        # shown in standings order
        pool = chosen[0] + chosen[1]
        out += [(name, q, "below", f"{x:.6f}") for q, x in chosen[0]]
        out += [(name, q, "above", f"{x:.6f}") for q, x in chosen[1]]
        if pool:
            q, x = pool[int(rng.random() * len(pool))]
            out.append((name, q, "pick", f"{x:.6f}"))
    return out


def build_in_process_with_hash_seed(root: Path, out: Path, seed: str) -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO), PYTHONHASHSEED=seed)
    done = subprocess.run([sys.executable, "-m", "sitegen", "build", "--root", str(root), "--out", str(out)],
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def demo_site(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("demo") / "site"
    shutil.copytree(DEMO / "ranked-battle", root / "matches" / "ranked-battle")
    shutil.copy(DEMO / "players.toml", root / "matches" / "players.toml")
    return root


@pytest.fixture(scope="module")
def built(demo_site, tmp_path_factory) -> Path:
    """The demo's ranked-battle league built by ``sitegen build`` (hash seed 0)."""
    out = tmp_path_factory.mktemp("built") / "out"
    build_in_process_with_hash_seed(demo_site, out, "0")
    return out


def test_the_demo_pools_reproduce_from_the_built_standings(built):
    data = {name: (built / "data" / "ranked-battle" / name).read_text(encoding="utf-8")
            for name in ("standings.csv", "pools.csv", "pools.json")}
    assert data["pools.csv"].splitlines()[0] == "player,opponent,side,opponent_rating"
    rows = [tuple(r.values()) for r in rows_of(data, "pools")]
    # No demo name is quoted: each row's text is simply its line of the file.
    lines = data["standings.csv"].split("\n")[1:-1]
    assert [row_text(list(r.values())) for r in rows_of(data, "standings")] == lines
    assert rows == auditor_pools("ranked-battle", data["standings.csv"], 100, 30)
    players = [r["player"] for r in rows_of(data, "standings")]
    picks = [r for r in rows if r[2] == "pick"]
    assert len(picks) >= len(players) - 2, "nearly every demo player has someone within 100 points"
    assert json.loads(data["pools.json"]) == [
        {"player": p, "opponent": o, "side": s, "opponent_rating": float(x)} for p, o, s, x in rows]


def test_the_demo_pools_follow_its_params(tmp_path):
    root = tmp_path / "site"
    shutil.copytree(DEMO / "ranked-battle", root / "matches" / "ranked-battle")
    toml = root / "matches" / "ranked-battle" / "league.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + "pool_deviation = 40\npool_size = 5\n", encoding="utf-8")
    data = league_data(root, "ranked-battle")
    rows = [tuple(r.values()) for r in rows_of(data, "pools")]
    assert rows == auditor_pools("ranked-battle", data["standings.csv"], 40, 5)
    for player in {r[0] for r in rows}:
        assert sum(1 for r in rows if r[0] == player and r[2] == "below") <= 2


def test_pools_of_quoted_names_reproduce_from_their_quoted_rows(tmp_path):
    # A comma, a quote and a line break: standings.csv quotes those names, and the seeds hash
    # the rows as quoted.
    names = ["Ann, Jr.", 'Bo "B" Bear', "Cy\nDi", "Dee"]
    toml_names = [n.replace('"', '\\"').replace("\n", "\\n") for n in names]
    matches = "".join(elo_match(day(i), toml_names[i % 4], 1, toml_names[(i + 1) % 4], 0) for i in range(12))
    root = write_files(tmp_path / "site", {"matches/l/league.toml": league_toml("elo", params="pool_size = 2"),
                                           "matches/l/m.toml": matches})
    data = league_data(root, "l")
    assert '"Cy\nDi"' in data["standings.csv"]
    assert {r["player"] for r in rows_of(data, "standings")} == set(names)
    rows = [tuple(r.values()) for r in rows_of(data, "pools")]
    assert rows == auditor_pools("l", data["standings.csv"], 100, 2)


def test_pools_are_byte_identical_across_builds_and_hash_seeds(demo_site, built, tmp_path):
    build_in_process_with_hash_seed(demo_site, tmp_path / "b", "4242")
    for name in ("pools.csv", "pools.json", "accuracy.csv"):
        a = (built / "data" / "ranked-battle" / name).read_bytes()
        assert a == (tmp_path / "b" / "data" / "ranked-battle" / name).read_bytes(), name
    first = read_csv((built / "data" / "ranked-battle" / "pools.csv").read_text(encoding="utf-8"))[0]
    page = Path("leagues/ranked-battle/players")
    pages = sorted((built / page).glob("*/index.html"))
    assert pages and all(p.read_bytes() == (tmp_path / "b" / page / p.parent.name / "index.html").read_bytes()
                         for p in pages)
    texts = [p.read_text(encoding="utf-8") for p in pages]
    assert any("Your opponent pool" in text and first["opponent"] in text for text in texts)


@pytest.mark.parametrize(("params", "message"), [
    ("pool_size = 1", "params.pool_size: must be an integer from 2 to 10,000, got 1"),
    ("pool_size = 2.5", "params.pool_size: must be an integer from 2 to 10,000, got 2.5"),
    ("pool_deviation = 0", "params.pool_deviation: must be a number > 0 and at most 1,000,000, got 0"),
    ('pool_deviation = "wide"',
     'params.pool_deviation: must be a number > 0 and at most 1,000,000, got the text "wide"'),
])
def test_bad_pool_params_are_problems(tmp_path, params, message):
    root = write_files(tmp_path / "site", {"matches/l/league.toml": league_toml("elo", params=params),
                                           "matches/l/m.toml": elo_match("2024-01-01", "Ana", 1, "Bo", 0)})
    problems = problems_of(root)
    assert any(message in f"{p.field}: {p.message}" or message in str(p) for p in problems), problems


def test_only_elo_leagues_have_pools(tmp_path):
    root = write_files(tmp_path / "site", {
        "matches/l/league.toml": league_toml("placement"),
        "matches/l/m.toml": '[[match]]\nplayed = 2024-01-01\n'
                            'players = [{ name = "A", place = 1 }, { name = "B", place = 2 }]\n',
    })
    assert "pools.csv" not in league_data(root, "l") and "next.csv" not in league_data(root, "l")


# --- next.csv ------------------------------------------------------------------------------

@settings(max_examples=150, deadline=None)
@given(st.dictionaries(names, st.tuples(st.integers(1400, 1420).map(float),
                                        st.sampled_from([None, "", "EU", "NA", "Ω"])),
                       max_size=30))
def test_next_groupings_are_threes_by_region_and_rating(players):
    rated = synthetic({n: r for n, (r, _) in players.items()}, system_name="glicko2")
    roster = Roster({n: PlayerInfo(n, region=g) for n, (_, g) in players.items() if g is not None})
    groups = next_groupings(rated, roster)
    regions = [g.region for g in groups]
    assert regions == sorted(regions)
    assert sum(len(g.members) for g in groups) == len(players)
    for region in set(regions):
        mine = [g for g in groups if g.region == region]
        assert [g.tier for g in mine] == list(range(1, len(mine) + 1))
        assert all(len(g.members) == 3 for g in mine[:-1]) and 1 <= len(mine[-1].members) <= 3
        flat = [m.name for g in mine for m in g.members]
        assert flat == sorted(flat, key=lambda n: (-players[n][0], n))
        assert all((players[n][1] or "") == region for n in flat)


def glicko_match(played: str, *players: tuple[str, float]) -> str:
    entries = ", ".join(f'{{ name = "{n}", score = {s} }}' for n, s in players)
    return f"[[match]]\nplayed = {played}\nplayers = [{entries}]\n"


def test_next_csv_of_a_small_league(tmp_path):
    # EU: five worlds (tier 1 of three, tier 2 of two); NA: one; Zed has no region ("", first).
    players = '[players."A1"]\nregion = "EU"\n[players."A2"]\nregion = "EU"\n[players."A3"]\nregion = "EU"\n' \
              '[players."A4"]\nregion = "EU"\n[players."A5"]\nregion = "EU"\n[players."N1"]\nregion = "NA"\n' \
              '[players."old"]\nregion = "EU"\naliases = ["A5-old"]\n'
    root = write_files(tmp_path / "site", {
        "matches/players.toml": players,
        "matches/w/league.toml": league_toml("glicko2"),
        "matches/w/m.toml": glicko_match("2024-01-01", ("A1", 50), ("A2", 40), ("A3", 30))
                            + glicko_match("2024-01-02", ("A4", 20), ("A5-old", 10), ("N1", 5))
                            + glicko_match("2024-01-08", ("Zed", 1), ("A1", 9)),
    })
    data = league_data(root, "w")
    standings = {r["player"]: r["rating"] for r in rows_of(data, "standings")}
    rows = rows_of(data, "next")
    assert data["next.csv"].splitlines()[0] == "region,tier,player,rating"
    eu = sorted(["A1", "A2", "A3", "A4", "old"], key=lambda n: (-float(standings[n]), n))
    assert [(r["region"], r["tier"], r["player"]) for r in rows] == (
        [("", "1", "Zed")] + [("EU", "1", n) for n in eu[:3]] + [("EU", "2", n) for n in eu[3:]]
        + [("NA", "1", "N1")])
    assert all(r["rating"] == standings[r["player"]] for r in rows)
    assert json.loads(data["next.json"])[0] == {"region": "", "tier": 1, "player": "Zed",
                                                 "rating": float(standings["Zed"])}


def test_the_demo_next_csv_groups_each_region_by_rating(tmp_path):
    root = tmp_path / "site"
    shutil.copytree(DEMO / "world-vs-world", root / "matches" / "world-vs-world")
    shutil.copy(DEMO / "players.toml", root / "matches" / "players.toml")
    data = league_data(root, "world-vs-world")
    roster = tomllib.loads((DEMO / "players.toml").read_text(encoding="utf-8"))["players"]
    standings = rows_of(data, "standings")
    expected = []
    regions = sorted({roster.get(r["player"], {}).get("region", "") for r in standings})
    for region in regions:
        mine = sorted((r for r in standings if roster.get(r["player"], {}).get("region", "") == region),
                      key=lambda r: (-float(r["rating"]), r["player"]))
        expected += [(region, str(i // 3 + 1), r["player"], r["rating"]) for i, r in enumerate(mine)]
    assert [tuple(r.values()) for r in rows_of(data, "next")] == expected
    assert regions == ["EU", "NA"] and len(expected) == 12
