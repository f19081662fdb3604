"""OpenSkill: the Plackett-Luce model of Weng and Lin for teams ranked by place.

Source: Weng and Lin, "A Bayesian Approximation Method for Online Ranking" (JMLR 12,
2011), Algorithm 4, as the maintained ``openskill`` package implements it. The package
does the math; this module checks the matches, keeps each player's mu and sigma, and
writes what an auditor needs to recompute every change. Not one of the contract's five
systems: an addition with the same files, a rating of mu - 3 sigma (the "ordinal").
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from openskill.models import PlackettLuce

from sitegen.rating.limits import MAX_COUNT, MAX_PLAYERS
from sitegen.rating.base import (
    Change, Example, Match, MatchSystem, Param, ParsedMatch, RatingDiverged, RatingEvent, Reporter, Standing,
    count, is_number, last_ratings, listing, parse_entries, positive, rating_value, unknown_key, value_text,
    RATING_ALLOWED,
)
from sitegen.rating.placement import ordinal as place_text

TEAM_KEYS = ("place", "players")
MATCH_LEVEL = ("id", "played", "notes")     # every system's match keys (validate.COMMON_KEYS)
PLACE_ALLOWED = f"an integer from 1 to {MAX_COUNT:,} (1 = the winners; equal places tie)"
TEAMS_ALLOWED = "a list of 2 or more team tables like { place = 1, players = [{ name = \"...\" }] }"
# The leaderboard's rating is mu - Z sigma: a player is ranked by a skill they have
# almost surely (99.87 % one-sided for a normal belief) reached, not by a lucky start.
Z = 3
# A sigma or beta beyond a million says nothing a rating could use; a kappa of 1 or more
# would stop sigma from ever shrinking.
MAX_SPREAD = 1_000_000
SPREAD_ALLOWED = f"a number > 0 and at most {MAX_SPREAD:,}"
START_KEYS = {
    "mu": (rating_value, RATING_ALLOWED),
    "sigma": (lambda v: positive(v) and v <= MAX_SPREAD, SPREAD_ALLOWED),
}


@dataclass(frozen=True, slots=True)
class Skill:
    """A player's belief: mean mu and standard deviation sigma."""

    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        return self.mu - Z * self.sigma


def update(model: PlackettLuce, teams: Sequence[Sequence[Skill]], places: Sequence[int]) -> list[list[Skill]]:
    """The package's Plackett-Luce update of one match: each team's skills after it, in order.

    Fresh rating objects every call: the package changes the objects it is given. tau and
    limit_sigma are passed again because openskill 5 reads limit_sigma from rate() only.
    """
    game = [[model.rating(mu=s.mu, sigma=s.sigma) for s in team] for team in teams]
    rated = model.rate(game, ranks=list(places), tau=model.tau, limit_sigma=model.limit_sigma)
    return [[Skill(float(r.mu), float(r.sigma)) for r in team] for team in rated]


def spread(v: Any) -> bool:
    return positive(v) and v <= MAX_SPREAD


class OpenSkill(MatchSystem):
    name: ClassVar[str] = "openskill"
    # rating_before/after are the ordinal mu - 3 sigma; these four are the belief itself,
    # so an auditor replays the package from the row alone (sigma before tau is added).
    terms: ClassVar[tuple[str, ...]] = ("mu_before", "mu_after", "sigma_before", "sigma_after")
    standing_terms: ClassVar[tuple[str, ...]] = ("mu", "sigma")
    match_keys: ClassVar[tuple[str, ...]] = ("teams",)
    # The ordinal spans a few dozen points and moves by about one a game.
    rating_places: ClassVar[int] = 1
    params: ClassVar[tuple[Param, ...]] = (
        Param("mu", 25, rating_value, RATING_ALLOWED,
              "openskill's default: a new player's mean skill is 25."),
        Param("sigma", 25 / 3, spread, SPREAD_ALLOWED,
              "openskill's default: a new player's uncertainty is mu / 3, so the ordinal starts at 0."),
        Param("beta", 25 / 6, spread, SPREAD_ALLOWED,
              "openskill's default: sigma / 2, the spread of one game's performance around the skill."),
        Param("tau", 25 / 300, lambda v: is_number(v) and 0 <= v <= MAX_SPREAD,
              f"a number from 0 to {MAX_SPREAD:,}",
              "openskill's default: mu / 300 is added to sigma (in quadrature) before every match."),
        Param("kappa", 0.0001, lambda v: is_number(v) and 0 < v < 1, "a number > 0 and < 1",
              "openskill's default: the least factor by which one match may shrink sigma squared."),
        Param("limit_sigma", False, lambda v: isinstance(v, bool), "true or false",
              "openskill's option: true keeps sigma from growing in a match (tau cannot add to it)."),
    )
    fields: ClassVar = ()
    example: ClassVar[Example] = Example(
        players=(2, None), entry={}, teams=True, team_key="place",
        rules=("teams are ranked by place: 1 for the winners, equal places tie",
               "a free-for-all is teams of one; a player may be in one team only"),
    )

    def __init__(self, *, mu: float = 25, sigma: float = 25 / 3, beta: float = 25 / 6,
                 tau: float = 25 / 300, kappa: float = 0.0001, limit_sigma: bool = False,
                 starts: Mapping[str, Skill] | None = None) -> None:
        self.initial = Skill(float(mu), float(sigma))
        self.starts = dict(starts or {})
        self.beta = float(beta)
        self.tau = float(tau)
        self.kappa = float(kappa)
        self.limit_sigma = bool(limit_sigma)
        self.model = PlackettLuce(mu=self.initial.mu, sigma=self.initial.sigma, beta=self.beta,
                                  tau=self.tau, kappa=self.kappa, limit_sigma=self.limit_sigma)

    def parse_start(self, value: Any, report: Reporter) -> Skill | None:
        """A starting mu, or a table { mu, sigma } whose missing keys take the league's values."""
        if not isinstance(value, dict):
            if not rating_value(value):
                report((), f"must be {RATING_ALLOWED} (the player's mu), or a table {{ mu = ..., sigma = ... }} "
                           f"(a missing key takes the league's parameter), got {value_text(value)}")
                return None
            return Skill(float(value), self.initial.sigma)
        ok = True
        for key in sorted(set(value) - set(START_KEYS)):
            report((key,), unknown_key(key, list(START_KEYS)))
            ok = False
        found = {"mu": self.initial.mu, "sigma": self.initial.sigma}
        for key, (check, allowed) in START_KEYS.items():
            if key in value:
                if check(value[key]):
                    found[key] = float(value[key])
                else:
                    report((key,), f"must be {allowed}, got {value_text(value[key])}")
                    ok = False
        return Skill(found["mu"], found["sigma"]) if ok else None

    def parse_match(self, raw: Mapping[str, Any], report: Reporter) -> ParsedMatch | None:
        if "teams" not in raw:
            report(("teams",), f"is missing; must be {TEAMS_ALLOWED}")
            return None
        teams = raw["teams"]
        if not isinstance(teams, list):
            report(("teams",), f"must be {TEAMS_ALLOWED}, got {value_text(teams)}")
            return None
        ok = True
        if len(teams) < 2:
            report(("teams",), f"must list at least 2 teams, got {len(teams)}")
            ok = False
        names: list[str] = []
        entries: list[dict[str, Any]] = []
        name_paths: list[tuple[str | int, ...]] = []
        places: list[int] = []
        for t, team in enumerate(teams):
            at = ("teams", t)
            if not isinstance(team, dict):
                report(at, f"must be a table like {{ place = 1, players = [...] }}, got {value_text(team)}")
                ok = False
                continue
            for extra in sorted(set(team) - set(TEAM_KEYS)):
                # Keys below a [[match.teams]] header belong to the team, the match's own too.
                misplaced = (f"{extra!r} is a key of the match: write it above the first [[match.teams]] "
                             "header, or before teams = [...]; ") if extra in MATCH_LEVEL else ""
                report(at + (extra,), unknown_key(extra, TEAM_KEYS, kind="teams", system=self.name,
                                                  hint=misplaced))
                ok = False
            place = team.get("place")
            if "place" not in team:
                report(at + ("place",), f"is missing; must be {PLACE_ALLOWED}")
                ok = False
            elif not count(place, 1):
                report(at + ("place",), f"must be {PLACE_ALLOWED}, got {value_text(place)}")
                ok = False
            else:
                places.append(place)
            players = team.get("players")
            if "players" not in team:
                report(at + ("players",), "is missing; must be a list of 1 or more player tables")
                ok = False
                continue
            if players == []:
                report(at + ("players",), "must list at least 1 player, got 0")
                ok = False
                continue
            parsed = parse_entries(players, report, self.fields, prefix=at, min_count=1, system=self.name)
            if parsed is None:
                ok = False
                continue
            team_names, _ = parsed
            names.extend(team_names)
            name_paths.extend(at + ("players", j, "name") for j in range(len(team_names)))
            entries.extend({"team": t + 1, "place": place} for _ in team_names)
        if len(names) > MAX_PLAYERS:
            report(("teams",), f"must hold at most {MAX_PLAYERS:,} players in all, got {len(names):,}")
            ok = False
        if not ok:
            return None
        return ParsedMatch(tuple(names), tuple(entries), {"places": tuple(places)},
                           name_paths=tuple(name_paths))

    def rate(self, matches: Sequence[Match]) -> list[RatingEvent]:
        held: dict[str, Skill] = dict(self.starts)
        events = []
        for m in matches:
            before = [held.get(name, self.initial) for name in m.players]
            teams: dict[int, list[int]] = {}          # team number -> indexes into m.players
            for i, e in enumerate(m.entries):
                teams.setdefault(e["team"], []).append(i)
            order = sorted(teams)
            try:
                rated = update(self.model, [[before[i] for i in teams[t]] for t in order], m.extra["places"])
            except (OverflowError, ZeroDivisionError, ValueError) as exc:
                raise RatingDiverged(m.id, "the team strengths e^(mu / c)",
                                     "use a larger beta or a smaller mu, so that mu / beta stays well "
                                     "below 700") from exc
            after: dict[int, Skill] = {}
            for t, team in zip(order, rated):
                for i, skill in zip(teams[t], team):
                    after[i] = skill
            changes = []
            for i, name in enumerate(m.players):
                old, new = before[i], after[i]
                if not (math.isfinite(new.mu) and math.isfinite(new.sigma)):
                    raise RatingDiverged(m.id, f"the skill of {name!r}")
                changes.append(Change(name, old.ordinal, new.ordinal, {
                    "mu_before": old.mu, "mu_after": new.mu,
                    "sigma_before": old.sigma, "sigma_after": new.sigma,
                }))
            for i, name in enumerate(m.players):
                held[name] = after[i]
            events.append(RatingEvent(m.id, m.played, (m.id,), tuple(changes)))
        return events

    def standings(self, events: Sequence[RatingEvent]) -> list[Standing]:
        last, games = last_ratings(events)
        return [Standing(p, c.after, games[p], {"mu": c.terms["mu_after"], "sigma": c.terms["sigma_after"]})
                for p, c in last.items()]

    def describe(self, entry: Mapping[str, Any]) -> str:
        return f"team {entry['team']}, {place_text(entry['place'])} place"

    def outcome(self, match: Match, index: int) -> str | None:
        """The best place alone wins; sharing it is a draw; every other place is a loss."""
        places = match.extra["places"]
        mine, best = match.entries[index]["place"], min(places)
        if mine != best:
            return "loss"
        return "win" if places.count(best) == 1 else "draw"

    def headline(self, match: Match) -> str:
        teams: dict[int, list[str]] = {}
        for p, e in zip(match.players, match.entries):
            teams.setdefault(e["team"], []).append(p)
        places = match.extra["places"]
        best = min(places)
        first = [t for t, place in zip(sorted(teams), places) if place == best]
        solo = all(len(members) == 1 for members in teams.values())
        if len(first) > 1:
            if len(teams) == 2:
                return f"{_side(teams[first[0]], solo)} and {_side(teams[first[1]], solo)} draw"
            return f"{len(first)} {'players' if solo else 'teams'} share first place"
        winner = teams[first[0]]
        if solo:
            return f"{winner[0]} wins ({len(teams)} players)"
        if len(teams) == 2 and all(len(members) <= 2 for members in teams.values()):
            loser = next(members for t, members in teams.items() if t != first[0])
            return f"{listing(winner)} beat {listing(loser)}"
        return f"{winner[0]}'s team wins" + ("" if len(teams) == 2 else f" ({len(teams)} teams)")

    def result(self, match: Match, index: int) -> str:
        places = match.extra["places"]
        mine = match.entries[index]["place"]
        tied = " (tied)" if places.count(mine) > 1 else ""
        return f"{place_text(mine)} of {len(places)}{tied}"


def _side(members: Sequence[str], solo: bool) -> str:
    """A team by its first player ("Ann's team"), a player of a free-for-all by name."""
    return members[0] if solo else f"{members[0]}'s team"
