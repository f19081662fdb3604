"""Rating systems, one module each, behind the ``System`` protocol of ``base``."""

from __future__ import annotations

from sitegen.rating.base import Change, Match, Param, RatingEvent, Standing, System
from sitegen.rating.arena import Arena
from sitegen.rating.elo import Elo
from sitegen.rating.glicko2 import Glicko2
from sitegen.rating.lunaro import Lunaro
from sitegen.rating.openskill import OpenSkill
from sitegen.rating.placement import Placement

# The contract's system name -> its class (docs/configuration `system`).
SYSTEMS: dict[str, type[System]] = {
    cls.name: cls for cls in (Lunaro, Elo, Placement, Glicko2, Arena, OpenSkill)
}

__all__ = ["SYSTEMS", "Change", "Match", "Param", "RatingEvent", "Standing", "System"]
