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


def opponent_pools(rated: RatedLeague) -> list[Pool]:
    """Every rated player's pool, in standings order.

    Drawn once per league (pools.csv and the player pages both show them) and kept in
    ``rated.cache``: callers must not modify the list.
    """
    cached = rated.cache.get(POOLS)
    if cached is None:
        cached = rated.cache[POOLS] = _draw_pools(rated)
    return cached


def _draw_pools(rated: RatedLeague) -> list[Pool]:
    system = pool_params(rated.league.config.system)
    deviation = float(system.pool_deviation)
    per_side = int(system.pool_size) // 2
    board = [Opponent(r.standing.player, float(r.standing.rating)) for r in rated.standings]
    # Step 1: each player's standings.csv row, as the data files write it (in standings order).
    rows = table_csv_rows(standings_columns(rated))
    slug = rated.league.config.slug
    # Standings order is rating descending: negated ratings ascend, for bisect.
    keys = [-o.rating for o in board]
    # Each player's place by name: a side is drawn from in that order (step 3). Both sides are
    # windows of the standings that only move down as the rating falls: each is held as the
    # sorted name places of its players, a player going in and out once (a sort of each
    # window, thousands of players wide, was a second at 10,000 players), and a side's draw
    # reads the places it takes from them, not a list of the side made for each player.
    name_order = sorted(range(len(board)), key=lambda i: board[i].name)
    by_name = [0] * len(board)
    for n, i in enumerate(name_order):
        by_name[i] = n
    above_side: list[int] = []     # places top:lo, by name
    below_side: list[int] = []     # places lo:hi, by name; the player among them is skipped
    top = lo = hi = 0
    pools = []
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
        pick = pool[int(rng.random() * len(pool))] if pool else None
        pools.append(Pool(me.name, r, chosen_below, chosen_above, pick))
    return pools


def pools_table(rated: RatedLeague) -> tuple[tuple[str, ...], list[tuple]]:
    """Per player: the below rows, the above rows (each in standings order), then the pick."""
    rows: list[tuple] = []
    for pool in opponent_pools(rated):
        for side, members in (("below", pool.below), ("above", pool.above)):
            rows.extend((pool.player, o.name, side, o.rating) for o in members)
        if pool.pick is not None:
            rows.append((pool.player, pool.pick.name, "pick", pool.pick.rating))
    return HEADER, rows
