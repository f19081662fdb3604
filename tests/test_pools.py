"""Matchmaking files of docs/auditors: pools.csv (elo) and next.csv (glicko2).

Pools: the properties the contract promises (every member within the deviation on its
side, each side min(pool_size // 2, candidates), the pick one of the pool, never the
player), the demo's draw reproduced from changes.csv by the documented recipe, and the
same bytes from two builds in processes with different hash seeds. Next groupings:
groups of three by region and rating, the remainder last.
"""

from __future__ import annotations

import hashlib
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
from sitegen.model.pools import opponent_pools
from sitegen.rating.base import Standing
from sitegen.rating.elo import Elo
from sitegen.load.validate import League
from helpers import REPO, elo_match, league_data, league_toml, problems_of, read_csv, rows_of, write_files

DEMO = REPO / "matches"


def synthetic(ratings: dict[str, float], system_name: str = "elo", **params) -> RatedLeague:
    """A rated league with the given final ratings and nothing else."""
    system = Elo(**params)
    config = LeagueConfig(slug="l", name="L", system_name=system_name, system=system, params=params,
                          explicit=frozenset())
    standings = [Standing(name, rating, 1, {"rd": 50.0, "volatility": 0.06}) for name, rating in ratings.items()]
    return RatedLeague(League(config, ()), (), rank(standings))


# --- pools: properties ---------------------------------------------------------------------

names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=6)
# Whole ratings on a narrow range give equal ratings and players exactly at the deviation's edge.
ratings = st.one_of(st.integers(1400, 1700).map(float), st.floats(1300, 1800, allow_nan=False))


@settings(max_examples=150, deadline=None)
@given(st.dictionaries(names, ratings, max_size=40), st.integers(1, 300), st.integers(2, 40),
       st.text(max_size=8))
def test_every_pool_member_is_within_the_deviation_on_its_side(board, deviation, size, ledger):
    rated = synthetic(board, pool_deviation=deviation, pool_size=size)
    pools = opponent_pools(rated, ledger)
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
    assert opponent_pools(rated, ledger) == pools, "the same input draws the same pools"


def test_a_different_ledger_draws_different_pools():
    board = {f"P{i:02d}": 1500.0 + i for i in range(60)}
    rated = synthetic(board)
    assert opponent_pools(rated, "a" * 64) != opponent_pools(rated, "b" * 64)


def test_pool_size_odd_rounds_down_and_a_lone_player_has_an_empty_pool():
    board = {"Ana": 1500.0, "Bo": 1490.0, "Cy": 1480.0, "Dee": 1510.0, "Eve": 1520.0, "Far": 2000.0}
    pools = {p.player: p for p in opponent_pools(synthetic(board, pool_size=3), "x")}
    assert (len(pools["Ana"].below), len(pools["Ana"].above)) == (1, 1)
    assert pools["Far"].members == () and pools["Far"].pick is None


# --- pools: the demo, reproduced from its data files ----------------------------------------

def auditor_pools(changes_csv: str, standings: list[dict[str, str]], deviation: float, size: int) -> list[tuple]:
    """The README's recipe, from the data files alone."""
    ledger = hashlib.sha256(changes_csv.encode("utf-8")).hexdigest()
    board = [(r["player"], float(r["rating"])) for r in standings]       # standings order
    rows = []
    for name, r in board:
        rng = random.Random(int.from_bytes(hashlib.sha256(f"{ledger}\n{name}".encode("utf-8")).digest(), "big"))
        below = [(q, x) for q, x in board if q != name and r - deviation <= x <= r]
        above = [(q, x) for q, x in board if r < x <= r + deviation]
        chosen = []
        for side in (below, above):
            positions = list(range(len(side)))
            k = min(size // 2, len(side))
            for i in range(k):
                j = i + int(rng.random() * (len(side) - i))
                positions[i], positions[j] = positions[j], positions[i]
            chosen.append([side[i] for i in sorted(positions[:k])])
        pool = chosen[0] + chosen[1]
        rows += [(name, q, "below", f"{x:.6f}") for q, x in chosen[0]]
        rows += [(name, q, "above", f"{x:.6f}") for q, x in chosen[1]]
        if pool:
            q, x = pool[int(rng.random() * len(pool))]
            rows.append((name, q, "pick", f"{x:.6f}"))
    return rows


@pytest.fixture(scope="module")
def ranked_battle(tmp_path_factory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("demo") / "site"
    shutil.copytree(DEMO / "ranked-battle", root / "matches" / "ranked-battle")
    shutil.copy(DEMO / "players.toml", root / "matches" / "players.toml")
    return league_data(root, "ranked-battle")


def test_the_demo_pools_reproduce_from_changes_and_standings(ranked_battle):
    data = ranked_battle
    assert data["pools.csv"].splitlines()[0] == "player,opponent,side,opponent_rating"
    rows = [tuple(r.values()) for r in rows_of(data, "pools")]
    expected = auditor_pools(data["changes.csv"], rows_of(data, "standings"), 100, 30)
    assert rows == expected
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
    assert rows == auditor_pools(data["changes.csv"], rows_of(data, "standings"), 40, 5)
    for player in {r[0] for r in rows}:
        assert sum(1 for r in rows if r[0] == player and r[2] == "below") <= 2


def build_in_process_with_hash_seed(root: Path, out: Path, seed: str) -> None:
    env = dict(os.environ, PYTHONPATH=str(REPO), PYTHONHASHSEED=seed)
    done = subprocess.run([sys.executable, "-m", "sitegen", "build", "--root", str(root), "--out", str(out)],
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr


def test_pools_are_byte_identical_across_builds_and_hash_seeds(tmp_path):
    root = tmp_path / "site"
    shutil.copytree(DEMO / "ranked-battle", root / "matches" / "ranked-battle")
    shutil.copy(DEMO / "players.toml", root / "matches" / "players.toml")
    build_in_process_with_hash_seed(root, tmp_path / "a", "0")
    build_in_process_with_hash_seed(root, tmp_path / "b", "4242")
    for name in ("pools.csv", "pools.json", "accuracy.csv"):
        a = (tmp_path / "a" / "data" / "ranked-battle" / name).read_bytes()
        assert a == (tmp_path / "b" / "data" / "ranked-battle" / name).read_bytes(), name
    first = read_csv((tmp_path / "a" / "data" / "ranked-battle" / "pools.csv").read_text(encoding="utf-8"))[0]
    page = Path("leagues/ranked-battle/players")
    pages = sorted((tmp_path / "a" / page).glob("*/index.html"))
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
