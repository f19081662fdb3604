"""Rating systems, one module each, behind the Protocols of ``protocol``.

Each system's module registers it (``registry.register``); importing them here fills
``SYSTEMS`` in the contract's order.
"""

from __future__ import annotations

from sitegen.rating.base import Change, Match, Param, RatingEvent, Standing, System
from sitegen.rating.registry import SYSTEMS, register
from sitegen.rating import lunaro, elo, placement, glicko2, arena, openskill  # noqa: F401  (they register)

__all__ = ["SYSTEMS", "Change", "Match", "Param", "RatingEvent", "Standing", "System", "register"]
