"""What a big league leaves out of its published output, so a million matches fit a small site.

A league whose matches hold more than ``BIG_LEAGUE_ROWS`` player appearances (one row each of
``changes.csv``: 20,000 duels, or 400 lobbies of 100) is "big":

- ``data/<league>/`` leaves out the Parquet files of its per-match tables (``changes.parquet``,
  ``matches.parquet``; ``standings.parquet`` stays). Contract section 7 names no Parquet file;
  the CSV files carry the same rows, and nothing on the site reads the others.
- its match-file pages show one short row per match (anchor, time, players linked,
  result, changes, ratings after, the line in the file as a number) instead of a row per
  player with the system's terms and the formula; the terms stay in ``changes.csv``, the
  formula on the system's spec page. A page holds up to ``MATCHES_PER_PART`` matches, not
  ``groups.MATCHES_PER_PART``: the page's chrome is shared by five times the rows.
- its results pages list those match-file pages (newest first, their dates and number of
  matches), not every match again: each match is one link further, at its anchor.
- its search records are its match-file pages, found by every match's id, date and players
  (output/search.py), not one record per match.
- its player pages' tables (by month, head to head, opponent pool, nearest-rated) drop
  closing tags, badges, row headers' ``scope`` and the full-precision ``data-`` attributes the
  predictor recomputes from ``ratings.json``; they link other players as ``../<slug>/`` and
  dates without a ``<time>`` (output/rows.py).
- its players have no opponents page: each player's ``games.json`` holds the record against
  every opponent (output/gamesdata.py), drawn under the head to head when asked for; and
  the rating-history preview is drawn in whole units (output/preview.py).

A smaller league is published exactly as before, but for the JSON twins of its per-match
tables (``changes.json``, ``matches.json``, ``pools.json``): a league of more than
``TWIN_ROWS`` appearances leaves them out. Contract section 7 makes the twins optional; each
repeats every key on every row, two to three times its CSV (the demo's NFL wrote an 11.5 MB
changes.json beside a 4.4 MB changes.csv), for readers the CSV serves as well. No I/O here.
"""

from __future__ import annotations


from sitegen.model.history import RatedLeague
from sitegen.rating.events import EventTable
from sitegen.rating.matchcolumns import column

# Player appearances above which a league is big. Output grows with them, not with matches:
# a lobby of 100 writes 100 rows and lines where a duel writes two. 40,000 (20,000 duels)
# keeps every hand-kept league of the demo but football (and the test fixtures) on the full
# output, while the generated benchmark leagues, duels or lobbies, are big.
BIG_LEAGUE_ROWS = 40_000

# Player appearances above which a league writes no JSON twin of TWINS_LEFT_OUT. 10,000 keeps
# them for the demo's hand-kept leagues of a season or a few hundred lobbies, and leaves them
# out of its decades of NFL games and Formula 1 races (27,000-33,000 rows, 18 MB of JSON).
TWIN_ROWS = 10_000

# The data tables whose JSON twin a league past TWIN_ROWS does not write: one row or more per
# match (changes, matches) or up to pool_size + 1 per player (pools).
TWINS_LEFT_OUT = frozenset({"changes", "matches", "pools"})

# The tables whose Parquet file a big league does not write: one row or more per match, about
# 90 bytes a match beside the CSV's 300 (standings.parquet, a row per player, stays).
PARQUET_LEFT_OUT = frozenset({"changes", "matches"})

# Player appearances above which a league's match lines are not held by its view models but
# read from the rating columns when a page asks (model/lines.py). Held, a line costs about
# 250 bytes for the whole build (half a GB at a million duels, copied into every page worker's
# count); read, it is made again for each page that shows it, about 3 µs each time. Below
# this, holding them is the cheaper (at most 100 MB).
HELD_LINES = 400_000

# Matches on one match-file page of a big league (a part closes earlier at
# groups.LINES_PER_PART player lines, as in any league): 500 duels are ~95 KB of short rows,
# and the ~3.5 KB of head, header and footer every page repeats come to 7 bytes a match.
MATCHES_PER_PART = 500


APPEARANCES = "appearances"     # RatedLeague.cache key


def appearances(rated: RatedLeague) -> int:
    """Rows of the league's changes.csv before periods: a player in a match, for every match.

    Counted once per league and kept in ``rated.cache``: every stage asks (0.3 s a count at a
    million matches)."""
    count = rated.cache.get(APPEARANCES)
    if count is None:
        events = rated.events
        # Where the rating's rows are the listed players of its matches (events.py), their count.
        count = rated.cache[APPEARANCES] = (
            events.rows if isinstance(events, EventTable) and events.listed and len(events) == len(rated.league.matches)
            else sum(map(len, column(rated.league.matches, "players"))))
    return count


def is_big(rated: RatedLeague) -> bool:
    """True when the league's matches hold more than BIG_LEAGUE_ROWS player appearances."""
    return appearances(rated) > BIG_LEAGUE_ROWS


def lines_held(rated: RatedLeague) -> bool:
    """Whether the league's view models hold its match lines (``HELD_LINES``)."""
    return appearances(rated) <= HELD_LINES


def matches_per_part(rated: RatedLeague) -> int | None:
    """How many matches a match-file page of the league holds at most: None for the default."""
    return MATCHES_PER_PART if is_big(rated) else None


def writes_twin(rated: RatedLeague, table: str) -> bool:
    """Whether data/<league>/<table>.json is written beside <table>.csv."""
    return table not in TWINS_LEFT_OUT or (not is_big(rated) and appearances(rated) <= TWIN_ROWS)


def writes_parquet(rated: RatedLeague, table: str) -> bool:
    """Whether data/<league>/<table>.parquet is written beside <table>.csv."""
    return table not in PARQUET_LEFT_OUT or not is_big(rated)
