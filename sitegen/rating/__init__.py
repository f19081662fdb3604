"""Rating systems, one module each, behind the ``System`` protocol of ``base``."""

from __future__ import annotations

from .base import Change, Match, Param, RatingEvent, Standing, System
from .arena import Arena
from .elo import Elo
from .glicko2 import Glicko2
from .lunaro import Lunaro
from .openskill import OpenSkill
from .placement import Placement

# The contract's system name -> its class (CONTRACT section 2 `system`).
SYSTEMS: dict[str, type[System]] = {
    cls.name: cls for cls in (Lunaro, Elo, Placement, Glicko2, Arena, OpenSkill)
}

__all__ = ["SYSTEMS", "Change", "Match", "Param", "RatingEvent", "Standing", "System"]
