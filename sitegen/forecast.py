"""View models of what a league's ratings predict: the pages' side of accuracy.csv,
pools.csv and next.csv. Pure data; the partial templates _accuracy.html, _pool.html
and _matchups.html only format it.

The numbers are the data files' own (the same functions compute both), so a page and
its CSV never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

from .accuracy import Accuracy, accuracy, predicts
from .config import Roster
from .data import ledger
from .groupings import next_groupings
from .model import LeagueView, Link
from .pools import Pool, opponent_pools
from .rating.base import expected
from .rating.glicko2 import Glicko, expected_score


# What one prediction is, per system (accuracy.py), for the sentence above the table.
PREDICTION = {
    "lunaro": "the first listed player's expected share of the goals",
    "elo": "the first listed player's expected score",
    "placement": "for each pair of players, the better placed one's expected score",
    "glicko2": "for each pair of players, the earlier listed one's expected battle score",
}


@dataclass(frozen=True, slots=True)
class AccuracyView:
    rows: tuple[Accuracy, ...]    # "all" first, then each year, oldest first
    csv_url: str                  # site-relative: data/<league>/accuracy.csv
    prediction: str               # what one prediction is, in words


@dataclass(frozen=True, slots=True)
class PoolRow:
    opponent: Link
    rating: float
    side: str                     # "below" or "above"
    win_chance: float             # the player's expected score against them, in percent
    picked: bool                  # the drawn next opponent


@dataclass(frozen=True, slots=True)
class PoolView:
    rows: tuple[PoolRow, ...]     # below, then above, each in standings order
    pick: PoolRow | None
    deviation: float
    per_side: int                 # pool_size // 2: the most drawn from each side


@dataclass(frozen=True, slots=True)
class World:
    player: Link
    rating: float


@dataclass(frozen=True, slots=True)
class Pairing:
    """One pair of a group: each side's Glicko-2 expected score in their battle."""

    a: Link
    b: Link
    a_share: float                # E of a against b, in percent
    b_share: float                # E of b against a (not 100 - a_share: each uses the other's RD)


@dataclass(frozen=True, slots=True)
class Matchup:
    region: str
    tier: int
    worlds: tuple[World, ...]
    pairings: tuple[Pairing, ...]


@dataclass(frozen=True, slots=True)
class LeagueForecast:
    accuracy: AccuracyView | None     # None for a system that predicts no pairs (arena)
    pools: dict[str, PoolView]        # elo: every rated player's pool
    matchups: tuple[Matchup, ...]     # glicko2: the next groupings, regions by code point
    regions: tuple[str, ...]          # glicko2: the regions of ``matchups``, in order

    def pool_of(self, player: str) -> PoolView | None:
        return self.pools.get(player)


def league_forecast(league: LeagueView, roster: Roster) -> LeagueForecast:
    rated = league.rated
    system = rated.league.config.system
    links = {name: Link(name, pv.url) for name, pv in league.players.items()}
    view = None
    if predicts(rated):
        view = AccuracyView(tuple(accuracy(rated)), f"data/{league.config.slug}/accuracy.csv",
                            PREDICTION[system.name])
    pools: dict[str, PoolView] = {}
    if system.name == "elo":
        for pool in opponent_pools(rated, ledger(rated)):
            pools[pool.player] = _pool_view(pool, links, float(system.pool_deviation), int(system.pool_size))
    matchups: list[Matchup] = []
    if system.name == "glicko2":
        for g in next_groupings(rated, roster):
            values = [(links[m.name], Glicko(m.rating, m.rd, 0.0)) for m in g.members]
            pairings = tuple(
                Pairing(la, lb, 100.0 * expected_score(va, vb), 100.0 * expected_score(vb, va))
                for (la, va), (lb, vb) in combinations(values, 2))
            matchups.append(Matchup(g.region, g.tier, tuple(World(links[m.name], m.rating) for m in g.members),
                                    pairings))
    regions = tuple(dict.fromkeys(m.region for m in matchups))
    return LeagueForecast(view, pools, tuple(matchups), regions)


def _pool_view(pool: Pool, links: dict[str, Link], deviation: float, size: int) -> PoolView:
    rows = []
    pick = None
    for side, members in (("below", pool.below), ("above", pool.above)):
        for o in members:
            picked = pool.pick is not None and o.name == pool.pick.name
            # Neutral ground: the seed's matches have no home side.
            row = PoolRow(links[o.name], o.rating, side, 100.0 * expected(pool.rating, o.rating), picked)
            rows.append(row)
            if picked:
                pick = row
    return PoolView(tuple(rows), pick, deviation, size // 2)
