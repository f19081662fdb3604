"""Rating systems, one module each, behind the ``System`` protocol of ``base``."""

from __future__ import annotations

from .base import Change, Match, Param, RatingEvent, Standing, System
from .elo import Elo
from .lunaro import Lunaro

# The contract's system name -> its class (CONTRACT section 2 `system`).
SYSTEMS: dict[str, type[System]] = {
    cls.name: cls for cls in (Lunaro, Elo)
}

__all__ = ["SYSTEMS", "Change", "Match", "Param", "RatingEvent", "Standing", "System"]
