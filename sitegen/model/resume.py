"""A league's rating taken up where the last build left it, with the build cache.

A system whose replay can be taken up (``rate_from``: elo's kernel) gives, with its events,
the rating to go on from: for elo the columns the kernel read, its rows and every player's
state after the last match (rating/elo_kernel.py ``RatedColumns``). The cache keeps it by
league with the *prefix identity* of the history it rated (load/blocks.py): the sum of its
matches' identities, each of which holds the match's text and the league's other inputs
(league.toml, players.toml, the settings). A build whose first k matches have that identity
(the same matches in the same order, read with the same inputs) replays only the matches
that follow, from the state the last build left: one appended match is encoded and replayed
alone, by the plain kernel, and numba is not even imported. The events, standings and all
that follows from them are a whole replay's to the last bit (tests/test_resume.py); any other
history (an edit before the end, matches reordered, another league.toml), an entry that does
not read back, or no cache is rated from the first match, as before.

The kernel's columns stay with the rated league (``KERNEL_COLUMNS``) for the bootstrap, which
replays the same matches (model/honest.py): its process, forked from this one, need not read
a million matches again.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from sitegen.load.blocks import match_identities, prefix_identities
from sitegen.load.cache import Cache
from sitegen.load.validate import League
from sitegen.model.history import BUILD_CACHE, IDENTITIES, KERNEL_COLUMNS, PREFIXES, RatedLeague, rank, rate_league
from sitegen.rating import collector
from sitegen.rating.events import EventTable

KIND = "rating"         # the cache's folder of these entries, one a league (by slug)


def kept_rating(hit: Any, prefixes: np.ndarray) -> Any | None:
    """The rating an entry holds, where the history it rated is the start of this one's."""
    if not (isinstance(hit, tuple) and len(hit) == 2 and isinstance(hit[0], int)):
        return None
    upto = getattr(hit[1], "matches", None)
    if not isinstance(upto, int) or not 0 < upto <= len(prefixes) or int(prefixes[upto - 1]) != hit[0]:
        return None
    return hit[1]


def rated_league(league: League, root: Path | None = None, cache: Cache | None = None) -> RatedLeague:
    """``rate_league``, taken up where the last build's rating of this league's first matches left
    off where the cache has it. Raises RatingDiverged where ``rate_league`` would."""
    system = league.config.system
    resume = getattr(system, "rate_from", None)
    matches = league.matches
    ids = match_identities(root, league, cache) if cache is not None and root is not None else None
    if resume is None or not matches:
        rated = rate_league(league)
    else:
        prefixes = None if ids is None else prefix_identities(ids, np.arange(len(ids)))
        before = None
        if prefixes is not None and cache is not None:
            before = kept_rating(cache.get(KIND, league.config.slug), prefixes)
        # The events are acyclic and kept to the end of the build (history.rate_matches).
        with collector.paused():
            events, after = resume(matches, before)
        assert isinstance(events, EventTable)
        rated = RatedLeague(league, events, rank(system.standings(events)))
        rated.cache[KERNEL_COLUMNS] = getattr(after, "cols", None)
        if prefixes is not None and cache is not None:
            cache.put_aside(KIND, league.config.slug, (int(prefixes[-1]), after))
            rated.cache[PREFIXES] = prefixes
    if ids is not None:
        rated.cache[IDENTITIES] = ids
        rated.cache[BUILD_CACHE] = cache
    return rated
