"""Opponent pools of an elo league (docs/auditors; the ranked-battle rating method, "Match Ups"): pools.csv.

For every rated player p with final rating R, in standings order:

- candidates below: every other rated player q with R - pool_deviation <= R_q <= R
  (an equal rating counts as below); above: R < R_q <= R + pool_deviation;
- from each side min(pool_size // 2, candidates on that side) are drawn at random
  (an odd pool_size rounds down, so a pool never holds more than pool_size);
- then one opponent, the ``pick``, is drawn at random from the pool (none when the
  pool is empty).

The draws are reproducible by anyone holding the league's standings.csv:

1. A player's ``row`` is their row of standings.csv exactly as the build wrote it (rank,
   player, rating, ...), without its line end.
2. Each player's generator is Python's ``random.Random(seed)`` (the Mersenne Twister,
   seeded by an int; its ``random()`` stream is the one thing the random module
   guarantees across Python versions), with seed = the SHA-256 of the UTF-8 text
   ``slug + "\\n" + player + "\\n" + row`` read as a big-endian integer, ``slug`` the
   league's (its folder: data/<slug>/).
3. Each side's candidates are listed by name (code point order), so that a rating moving
   inside a player's window leaves their draws alone. A side's k draws are the first k
   steps of a Fisher-Yates shuffle of its list: for i = 0 .. k-1,
   j = i + floor(random() * (n - i)), swap items i and j. The below side is drawn first,
   then the above side, from the same generator.
4. The pool is the drawn below players, then the drawn above players, each in
   standings order (the order of the rows); the pick is the pool's item at
   floor(random() * pool size), the generator's next number.

Python's ``hash()`` is never used, so no PYTHONHASHSEED, process or machine changes a draw.
A player's draws depend on their own row and their candidates alone: a new match redraws the
pools of the players whose row or candidates it changes, not every pool of the league, so the
other player pages stay as they were (the row holds the rank: a player passed by another is
drawn again).
"""

from __future__ import annotations

import bisect
import hashlib
import random
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sitegen.load.cache import Cache
from sitegen.model.history import RatedLeague
from sitegen.model.table import standings_columns, table_csv_rows
from sitegen.rating.protocol import PoolParams, System

HEADER = ("player", "opponent", "side", "opponent_rating")


@dataclass(frozen=True, slots=True)
class Opponent:
    name: str
    rating: float


@dataclass(frozen=True, slots=True)
class Pool:
    """A player's drawn opponents, each side in standings order, and the drawn next opponent."""

    player: str
    rating: float
    below: tuple[Opponent, ...]
    above: tuple[Opponent, ...]
    pick: Opponent | None

    @property
    def members(self) -> tuple[Opponent, ...]:
        return self.below + self.above


def player_rng(slug: str, player: str, row: str) -> random.Random:
    """Step 2: the player's own generator, from the league, the name and their standings row alone."""
    digest = hashlib.sha256(f"{slug}\n{player}\n{row}".encode("utf-8")).digest()
    return random.Random(int.from_bytes(digest, "big"))


def draw(rng: random.Random, items: Sequence, k: int) -> list:
    """Step 3: k items by the first k steps of a Fisher-Yates shuffle, from random() only
    (random.sample's algorithm may change between Python versions; random() may not)."""
    return [items[i] for i in drawn_places(rng, len(items), k)]


def drawn_places(rng: random.Random, n: int, k: int) -> list[int]:
    """The places among n items that ``draw`` takes, in the order it takes them. Only the
    swapped places are held: a side may have thousands of candidates, k is 15."""
    moved: dict[int, int] = {}
    get = moved.get
    random_ = rng.random
    out = []
    for i in range(k):
        j = i + int(random_() * (n - i))
        at_i, at_j = get(i, i), get(j, j)
        moved[i], moved[j] = at_j, at_i
        out.append(at_j)
    return out


def pool_params(system: System) -> PoolParams:
    """The pool parameters of a system that draws pools (its ledger tables hold "pools")."""
    if not isinstance(system, PoolParams):
        raise TypeError(f"the {system.name} system draws no opponent pools: it has no pool_size "
                        "and pool_deviation")
    return system


POOLS = "pools"       # RatedLeague.cache key


def opponent_pools(rated: RatedLeague, cache: Cache | None = None) -> list[Pool]:
    """Every rated player's pool, in standings order.

    Drawn once per league (pools.csv and the player pages both show them) and kept in
    ``rated.cache``: callers must not modify the list. With the build cache (load/cache.py),
    a player's draws are the last build's where their inputs are (``_Kept``).
    """
    cached = rated.cache.get(POOLS)
    if cached is None:
        # Step 1: each player's standings.csv row, as the data files write it (in standings order).
        rows = table_csv_rows(standings_columns(rated))
        kept = None if cache is None else _Kept.read(cache, rated)
        cached, drawn = _draw_pools(rated, rows, kept, keep=cache is not None)
        rated.cache[POOLS] = cached
        if cache is not None:
            cache.put(POOLS, _Kept.key(rated), dict(zip([p.player for p in cached], drawn)))
    return cached


# A player's draws as a build left them: their standings row, their rating, the names drawn
# below and above, and the pick's place in the pool (None: no pick).
Drawn = tuple[str, float, tuple[str, ...], tuple[str, ...], "int | None"]


class _Kept:
    """The last build's draws of a league, and which of them hold for this one.

    A player's draws are fixed by their row (their generator's seed) and the names on each side
    of their window (what is drawn from, by name): where the row, the rating and every side's
    names are as they were, the same names are drawn, and only the pool's standings order is
    taken again (the pick is the same place in it). The sides are unchanged unless a player
    whose rating moved (or who came or went) moved into, out of or across the window: each
    such player is tested against every window, and past ``MOVED`` of them none is kept."""

    MOVED = 64

    def __init__(self, rated: RatedLeague, drawn: dict[str, Drawn]) -> None:
        self.drawn = drawn
        deviation = float(pool_params(rated.league.config.system).pool_deviation)
        now = {r.standing.player: float(r.standing.rating) for r in rated.standings}
        then = {name: d[1] for name, d in drawn.items()}
        moved = [name for name in now.keys() | then.keys() if now.get(name) != then.get(name)]
        self.held: set[str] = set()
        if len(moved) > self.MOVED:
            return
        ratings = np.array(list(now.values()), dtype=np.float64)
        low, high = ratings - deviation, ratings + deviation
        changed = np.zeros(len(ratings), dtype=bool)
        for name in moved:
            before, after = (_sides(ratings, low, high, r) for r in (then.get(name), now.get(name)))
            changed |= before != after
        self.held = {name for name, c in zip(now, changed.tolist()) if not c}

    def get(self, name: str, row: str, rating: float) -> Drawn | None:
        """The player's last draws where they hold now, else None."""
        if name not in self.held:
            return None
        drawn = self.drawn.get(name)
        return drawn if drawn is not None and drawn[0] == row and drawn[1] == rating else None

    @staticmethod
    def key(rated: RatedLeague) -> str:
        system = pool_params(rated.league.config.system)
        return repr((rated.league.config.slug, float(system.pool_deviation), int(system.pool_size)))

    @classmethod
    def read(cls, cache: Cache, rated: RatedLeague) -> _Kept | None:
        drawn = cache.get(POOLS, cls.key(rated))
        return cls(rated, drawn) if isinstance(drawn, dict) else None



def _sides(ratings: np.ndarray, low: np.ndarray, high: np.ndarray, r: float | None) -> np.ndarray:
    """On which side of each player's window a rating ``r`` is: 1 below (R - dev <= r <= R),
    2 above (R < r <= R + dev), 0 neither or no rating; ``low`` and ``high`` are R - dev and
    R + dev, the floats the sweep of ``_draw_pools`` compares with."""
    if r is None:
        return np.zeros(len(ratings), dtype=np.int8)
    below = (low <= r) & (r <= ratings)
    above = (ratings < r) & (r <= high)
    return below.astype(np.int8) + 2 * above.astype(np.int8)


def _draw_pools(rated: RatedLeague, rows: list[str], kept: _Kept | None = None, *, keep: bool = False
                ) -> tuple[list[Pool], list[Drawn]]:
    """The pools, and with ``keep`` each player's draws as the build cache keeps them (``_Kept``)."""
    system = pool_params(rated.league.config.system)
    deviation = float(system.pool_deviation)
    per_side = int(system.pool_size) // 2
    board = [Opponent(r.standing.player, float(r.standing.rating)) for r in rated.standings]
    slug = rated.league.config.slug
    # Standings order is rating descending: negated ratings ascend, for bisect.
    keys = [-o.rating for o in board]
    # Each player's place by name: a side is drawn from in that order (step 3). Both sides are
    # windows of the standings that only move down as the rating falls: each is held as the
    # sorted name places of its players, a player going in and out once (a sort of each
    # window, thousands of players wide, was a second at 10,000 players), and a side's draw
    # reads the places it takes from them, not a list of the side made for each player.
    name_order = sorted(range(len(board)), key=lambda i: board[i].name)
    place = {o.name: i for i, o in enumerate(board)}
    by_name = [0] * len(board)
    for n, i in enumerate(name_order):
        by_name[i] = n
    above_side: list[int] = []     # places top:lo, by name
    below_side: list[int] = []     # places lo:hi, by name; the player among them is skipped
    top = lo = hi = 0
    pools = []
    drawn: list[Drawn] = []
    at_place, of_board = place.__getitem__, board.__getitem__
    for index, me in enumerate(board):
        r = me.rating
        # below: -R <= -R_q <= -(R - dev); above: -(R + dev) <= -R_q < -R
        new_lo = bisect.bisect_left(keys, -r)
        new_hi = bisect.bisect_right(keys, -(r - deviation))
        new_top = bisect.bisect_left(keys, -(r + deviation))
        for i in range(hi, new_hi):
            bisect.insort(below_side, by_name[i])
        for i in range(lo, new_lo):
            del below_side[bisect.bisect_left(below_side, by_name[i])]
            bisect.insort(above_side, by_name[i])
        for i in range(top, new_top):
            del above_side[bisect.bisect_left(above_side, by_name[i])]
        top, lo, hi = new_top, new_lo, new_hi
        held = None if kept is None else kept.get(me.name, rows[index], r)
        if held is not None:
            # The same names drawn as by the last build (_Kept), shown in this one's standings order.
            chosen_below = tuple(map(of_board, sorted(map(at_place, held[2]))))
            chosen_above = tuple(map(of_board, sorted(map(at_place, held[3]))))
            pool = chosen_below + chosen_above
            pools.append(Pool(me.name, r, chosen_below, chosen_above, None if held[4] is None else pool[held[4]]))
            drawn.append(held)
            continue
        skip = bisect.bisect_left(below_side, by_name[index])     # the player's own place, left out
        rng = player_rng(slug, me.name, rows[index])
        # Drawn from each side by name (its places, the player's own skipped below), then shown
        # in standings order.
        n_below, n_above = len(below_side) - 1, len(above_side)
        places = drawn_places(rng, n_below, min(per_side, n_below))
        chosen_below = tuple(board[i] for i in sorted(
            [name_order[below_side[p + (p >= skip)]] for p in places]))
        places = drawn_places(rng, n_above, min(per_side, n_above))
        chosen_above = tuple(board[i] for i in sorted([name_order[above_side[p]] for p in places]))
        pool = chosen_below + chosen_above
        at = int(rng.random() * len(pool)) if pool else None
        pools.append(Pool(me.name, r, chosen_below, chosen_above, None if at is None else pool[at]))
        if keep:
            drawn.append((rows[index], r, tuple(o.name for o in chosen_below),
                          tuple(o.name for o in chosen_above), at))
    return pools, drawn


def pools_table(rated: RatedLeague) -> tuple[tuple[str, ...], list[tuple]]:
    """Per player: the below rows, the above rows (each in standings order), then the pick."""
    rows: list[tuple] = []
    for pool in opponent_pools(rated):
        for side, members in (("below", pool.below), ("above", pool.above)):
            rows.extend((pool.player, o.name, side, o.rating) for o in members)
        if pool.pick is not None:
            rows.append((pool.player, pool.pick.name, "pick", pool.pick.rating))
    return HEADER, rows
