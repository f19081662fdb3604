"""Next groupings of a glicko2 league (docs/auditors; the World vs World rating of Guild Wars 2): next.csv.

After the league's last rating period, the rated players of each region (players.toml
``region``; a player without one is in the region "") are sorted by rating descending,
then name by code point, and cut into consecutive groups of three: tier 1 holds the best
three, the last tier what remains (1 or 2 players when the count is not a multiple of 3).
The seed's worlds meet in three-way matchups, hence three.
"""

from __future__ import annotations

from dataclasses import dataclass

from sitegen.load.config import Roster
from sitegen.model.history import RatedLeague

HEADER = ("region", "tier", "player", "rating")
GROUP_SIZE = 3      # the World vs World rating of Guild Wars 2: a matchup is three worlds


@dataclass(frozen=True, slots=True)
class Member:
    name: str
    rating: float
    rd: float | None


@dataclass(frozen=True, slots=True)
class Grouping:
    region: str
    tier: int                      # 1 = the best three of the region
    members: tuple[Member, ...]    # rating descending, then name


def next_groupings(rated: RatedLeague, roster: Roster) -> list[Grouping]:
    """Regions by code point, then tier; members in rating order."""
    regions: dict[str, list[Member]] = {}
    for r in rated.standings:
        s = r.standing
        region = roster.info(s.player).region or ""
        regions.setdefault(region, []).append(Member(s.player, float(s.rating), s.extra.get("rd")))
    out = []
    for region in sorted(regions):
        members = sorted(regions[region], key=lambda m: (-m.rating, m.name))
        for start in range(0, len(members), GROUP_SIZE):
            out.append(Grouping(region, start // GROUP_SIZE + 1, tuple(members[start:start + GROUP_SIZE])))
    return out


def next_table(rated: RatedLeague, roster: Roster) -> tuple[tuple[str, ...], list[tuple]]:
    rows = [(g.region, g.tier, m.name, m.rating) for g in next_groupings(rated, roster) for m in g.members]
    return HEADER, rows
