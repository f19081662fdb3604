"""What a big league leaves out of its published output, so a million matches fit a small site.

A league of more than ``BIG_LEAGUE_MATCHES`` matches is "big":

- ``data/<league>/`` leaves out the JSON twins of its per-match tables (``changes.json``,
  ``matches.json``, ``pools.json``). Contract section 7 makes the twins optional; the CSV
  and Parquet files beside them carry the same rows, and nothing on the site reads them.
- its match-file pages and results lists show one short row per match (anchor, time,
  players linked, result, changes, ratings after) instead of a row per player with the
  system's terms and the formula; the terms stay in ``changes.csv``, the formula on the
  system's spec page.
- its player pages leave out the inline chart preview and the month table that repeat the
  player's ``games.json`` (the shared chart spec draws from that file).

A smaller league is published exactly as before. No I/O here.
"""

from __future__ import annotations

from sitegen.model.history import RatedLeague

# Matches above which a league is big. 20,000 keeps every hand-kept league (and the test
# fixtures) on the full output, while the generated 100k and 1M benchmark leagues are big.
BIG_LEAGUE_MATCHES = 20_000

# The data tables whose JSON twin a big league does not write: one row or more per match
# (changes, matches) or up to pool_size + 1 per player (pools).
TWINS_LEFT_OUT = frozenset({"changes", "matches", "pools"})


def match_count(rated: RatedLeague) -> int:
    return len(rated.league.matches)


def is_big(rated: RatedLeague) -> bool:
    """True when the league has more than BIG_LEAGUE_MATCHES matches."""
    return match_count(rated) > BIG_LEAGUE_MATCHES


def writes_twin(rated: RatedLeague, table: str) -> bool:
    """Whether data/<league>/<table>.json is written beside <table>.csv."""
    return table not in TWINS_LEFT_OUT or not is_big(rated)
