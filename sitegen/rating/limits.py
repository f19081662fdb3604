"""Bounds on the input, each far beyond what a real league writes.

Without them a hostile or mistaken file costs minutes or gigabytes before anything is
said (a 10,000-player match, a key nested 50,000 deep, K = 1e308 printing 300-digit
ratings). Each bound is checked where the value is read and reported like any other
problem, with the bound in the message; the README's "Limits and safety" lists them.
"""

from __future__ import annotations

from datetime import datetime, timezone

# A match file or league.toml. The largest real histories converted to one file (every
# Formula 1 race, 25 years of a chess club) are a few megabytes; 50 MB files exist.
MAX_FILE_BYTES = 128 * 1024 * 1024

# Brackets opened inside one another ([[[...]]], {a = {b = ...}}) and the parts of one
# dotted key (a.b.c = 1). A match needs four levels (an arena match six); TOML's parser
# recurses once per bracket and slows quadratically with the parts of a key.
MAX_NESTING = 32

# Players in one match, all teams together. Battle-royale lobbies hold 100 to 200.
MAX_PLAYERS = 1000

# Whole-number fields of a player (ping in ms, kills, deaths...): far past any game,
# and small enough that every one converts to a float exactly.
MAX_COUNT = 1_000_000

# What the pipeline handles: every date it derives (a week's start, the year before the
# last game, a window of inactive_days) stays inside Python's years 1 to 9999.
EARLIEST = datetime(1000, 1, 1, tzinfo=timezone.utc)
LATEST = datetime(9998, 12, 31, 23, 59, 59, tzinfo=timezone.utc)
PLAYED_RANGE = "from 1000-01-01 to 9998-12-31 (UTC)"

# Leaderboard windows in days ([tool.sitegen] inactive_days, movement_days): a century.
MAX_DAYS = 36_600

# Ratings, K values and rating bounds given as parameters. Elo's scale has 400 points for
# a 10:1 expectation; no league rates in the millions.
MAX_RATING = 1_000_000
MAX_K = 10_000

# A match's weight in an elo league (its importance, multiplying K). The federations that
# weight matches stay within a factor of 3 to 12 (FIFA's friendly 5 to World Cup final 60).
MAX_WEIGHT = 1000

# An elo opponent pool (pool_size): the seed's pool is 30, and a player's page lists it whole.
MAX_POOL = 10_000
