"""A site as `sitegen check` leaves it: every input read and validated, nothing rated."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sitegen.load import config as cfg
from sitegen.load.content import ContentSource
from sitegen.load.validate import League


@dataclass(frozen=True, slots=True)
class Site:
    """Everything validated: what the rest of the pipeline works from."""

    root: Path
    settings: cfg.SiteSettings
    roster: cfg.Roster
    leagues: tuple[League, ...]
    content: tuple[ContentSource, ...]      # read and checked; rendered with the other pages
