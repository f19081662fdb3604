"""OpenSkill: the Plackett-Luce model of Weng and Lin for teams ranked by place.

Source: Weng and Lin, "A Bayesian Approximation Method for Online Ranking" (JMLR 12,
2011), Algorithm 4, as the maintained ``openskill`` package implements it. A league's
history runs through openskill_kernel.py, which repeats the package's arithmetic to the bit
(the tests hold it to the package); predictions and the curve call the package itself. This
module checks the matches and writes what an auditor needs to recompute every change. Not one of the contract's five
systems: an addition with the same files, a rating of mu - 3 sigma (the "ordinal").
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
from openskill.models import PlackettLuce

from sitegen.rating.events import EventTable, Term
from sitegen.rating.limits import MAX_COUNT, MAX_PLAYERS
from sitegen.rating.base import (
    Example, Field, Match, MatchSystem, Param, ParsedMatch, RatingDiverged, RatingEvent, Reporter, Standing,
    count, is_number, last_ratings, listing, parse_entries, positive, rating_value, unknown_key, value_text,
    RATING_ALLOWED,
)
from sitegen.rating.base import Curve, CurvePoint, Interval, Strength, first_of, steps
from sitegen.rating.titles import LOBBY
from sitegen.rating.forecasts import Outcome, PairForecast, PairPrediction
from sitegen.rating.placement import ordinal as place_text
from sitegen.rating.registry import register
from sitegen.rating.openskill_kernel import NOT_FINITE, RAISED, encode, run

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


@register
class OpenSkill(MatchSystem):
    name: ClassVar[str] = "openskill"
    label: ClassVar[str] = "OpenSkill (Plackett-Luce)"
    explain: ClassVar[str] = ("Each player's skill is a belief, mean μ and uncertainty σ, updated by the openskill "
                              "package's Plackett-Luce model from the teams' places; the rating is μ − 3σ.")
    term_labels: ClassVar[Mapping[str, str]] = {
        "mu_before": "μ before", "mu_after": "μ after", "sigma_before": "σ before", "sigma_after": "σ after",
        "mu": "Mean μ", "sigma": "Uncertainty σ",
    }
    standing_decimals: ClassVar[Mapping[str, int]] = {"mu": 2, "sigma": 2}
    ranked_by: ClassVar[tuple[str, int] | None] = ("place", 1)
    # The rating is the interval's lower end, mu - 3 sigma, so the board shows the mean and
    # the spread apart from it.
    interval: ClassVar[Interval | None] = Interval(
        "μ ± 3σ", "μ ± 3σ: the 99.7% interval of the skill (μ − 3σ to μ + 3σ); the rating "
        "is its lower end, μ − 3σ, a skill the player has almost surely reached.",
        "99.7% interval", "sigma", 3.0, centre="mu")
    predicts: ClassVar[bool] = True
    prediction_text: ClassVar[str] = ("for each pair of teams, the better placed team's chance of winning by the "
                                      "Plackett-Luce model")
    logistic10: ClassVar[bool] = False
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
    fields: ClassVar[tuple[Field, ...]] = ()
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

    def start(self, player: str) -> tuple[float, float]:
        """(mu, sigma) before the player's first match: [initial], or the league's."""
        held = self.starts.get(player, self.initial)
        return held.mu, held.sigma

    def rate(self, matches: Sequence[Match]) -> Sequence[RatingEvent]:
        """Every match's update by the kernel (openskill_kernel.py: the package's Plackett-Luce,
        to the bit), its columns held as events (events.py), a change per player in the match's
        order."""
        history = encode(matches, self.start)
        rated = run(history, beta=self.beta, tau=self.tau, kappa=self.kappa, limit_sigma=self.limit_sigma)
        done = rated.match if rated.status else len(matches)
        if rated.status == RAISED:
            raise RatingDiverged(matches[done].id, "the team strengths e^(mu / c)",
                                 "use a larger beta or a smaller mu, so that mu / beta stays well "
                                 "below 700")
        if rated.status == NOT_FINITE:
            m = matches[done]
            first = sum(len(x.players) for x in matches[:done])
            for i, name in enumerate(m.players):
                if not (math.isfinite(rated.mu_after[first + i]) and math.isfinite(rated.sigma_after[first + i])):
                    raise RatingDiverged(m.id, f"the skill of {name!r}")
        if not matches:
            return []
        mu0, s0, mu1, s1 = (np.asarray(c, dtype=np.float64) for c in
                            (rated.mu_before, rated.sigma_before, rated.mu_after, rated.sigma_after))
        # The kernel's entries are the changes: players team by team, as each match lists them.
        offsets = history.team_first[history.match_first]
        # The ordinal mu - z sigma, element by element as the float arithmetic of one change.
        return EventTable([m.id for m in matches], [m.played for m in matches], offsets, history.names,
                          history.players, mu0 - Z * s0, mu1 - Z * s1,
                          {"mu_before": Term(mu0), "mu_after": Term(mu1), "sigma_before": Term(s0),
                           "sigma_after": Term(s1)})

    def standings(self, events: Sequence[RatingEvent]) -> list[Standing]:
        last, games = last_ratings(events)
        return [Standing(p, c.after, games[p], {"mu": c.number("mu_after"), "sigma": c.number("sigma_after")})
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


    def summary(self, match: Match, names: Sequence[str]) -> str:
        e = match.entries
        sides: dict[int, list[int]] = {}
        for i, entry in enumerate(e):
            sides.setdefault(entry["team"], []).append(i)
        ranked = sorted(sides, key=lambda t: (e[sides[t][0]]["place"], t))   # a tie as listed

        def side(members: list[int]) -> str:      # "Ann & Bo": the commas part the teams
            who = [names[i] for i in members]
            return " & ".join(who if len(who) <= LOBBY else who[:LOBBY] + [f"{len(who) - LOBBY} more"])

        return first_of([f"{e[sides[t][0]]['place']}. {side(sides[t])}" for t in ranked], " teams")

    @classmethod
    def curve(cls) -> Curve:
        system = cls()
        new = system.initial.sigma
        rows: list[CurvePoint] = []
        for size, sigma, label in ((1, new, f"1 v 1, new players (σ = {new:.2f})"),
                                   (1, 2.0, "1 v 1, settled players (σ = 2)"),
                                   (4, new, "4 v 4, new players")):
            for gap in steps(-20, 20, 80):
                # The winners' skill is `gap` above the losers' for every player of the two teams.
                winners = [Skill(system.initial.mu + gap / 2, sigma)] * size
                losers = [Skill(system.initial.mu - gap / 2, sigma)] * size
                after = update(system.model, [winners, losers], [1, 2])
                rows.append({"x": gap, "y": after[0][0].mu - winners[0].mu, "series": label})
        return Curve("Skill gap (each winner's μ minus each loser's)", "Change of a winner's μ", "Game",
                     tuple(rows),
                     "How much a win raises a player's mean skill μ, computed by the openskill package with "
                     "the default parameters. A win the model expected (a large gap) earns little; an upset "
                     "earns up to σ² / c. Uncertain players move far more than settled ones. In four against "
                     "four the teams' gap is four players' gaps and c holds eight players' uncertainty, so "
                     "a player moves less at every gap.",
                     y_format=",.2f")

    # --- predictions ---------------------------------------------------------------------

    def pair_forecasts(self, matches: Sequence[Match], events: Sequence[RatingEvent]) -> Iterator[PairForecast]:
        """One per pair of teams of a match (each unordered pair once): the better placed team's
        ``predict_win`` from every player's mu and sigma before the match, against S = 1; on a
        tie the earlier listed team, S = 0.5. A team is named by its players joined with " & "."""
        model = self.model
        by_id = {m.id: m for m in matches}
        for event in events:
            m = by_id[event.key]
            teams: dict[int, list[int]] = {}          # team number -> indexes into m.players
            for i, e in enumerate(m.entries):
                teams.setdefault(e["team"], []).append(i)
            order = sorted(teams)                     # team numbers follow the match's listing
            places = m.extra["places"]
            # changes.csv rows follow the match's player order: each row's belief before it.
            skills = [[model.rating(mu=float(event.changes[i].terms["mu_before"] or 0.0),
                                    sigma=float(event.changes[i].terms["sigma_before"] or 0.0))
                       for i in teams[t]] for t in order]
            names = [" & ".join(m.players[i] for i in teams[t]) for t in order]
            n = len(order)
            for i in range(n):
                for j in range(i + 1, n):
                    a, b = (j, i) if places[j] < places[i] else (i, j)
                    win = float(model.predict_win([skills[a], skills[b]])[0])
                    yield PairForecast(m.played.year, win, 0.5 if places[i] == places[j] else 1.0,
                                       names[a], names[b], m.id)

    def predictor_states(self, matches: Sequence[Match], events: Sequence[RatingEvent],
                         standings: Sequence[Standing]) -> dict[str, dict[str, Any]]:
        return {s.player: {"r": s.rating, "mu": s.extra["mu"], "sigma": s.extra["sigma"]} for s in standings}

    def predictor_params(self) -> dict[str, Any]:
        # z: the ordinal mu - z sigma the ratings are.
        return {**self.param_values("beta", "tau", "kappa", "limit_sigma"), "z": Z}

    def predict_pair(self, a: str, b: str, states: Mapping[str, Mapping[str, Any]], *,
                     scores: Sequence[float], labels: Sequence[str], pings: tuple[float, float] = (0, 0),
                     home: str | None = None, challenger: str | None = None,
                     margin: float = 1.0) -> PairPrediction:
        """One match of the two as teams of one; E is the package's ``predict_win``."""
        sa, sb = states[a], states[b]
        ka, kb = Skill(sa["mu"], sa["sigma"]), Skill(sb["mu"], sb["sigma"])
        model = self.model
        win = model.predict_win([[model.rating(mu=ka.mu, sigma=ka.sigma)], [model.rating(mu=kb.mu, sigma=kb.sigma)]])
        outs = []
        for lab, s in zip(labels, scores):
            if s not in PLACES:
                raise ValueError(f"openskill predicts a win, a draw or a loss (S = 1, 0.5 or 0), not S = {s}")
            (na,), (nb,) = update(model, [[ka], [kb]], PLACES[s])
            outs.append(Outcome(lab, s, na.mu - Z * na.sigma, nb.mu - Z * nb.sigma,
                                ((na.mu, na.sigma), (nb.mu, nb.sigma))))
        return PairPrediction(a, b, ka.ordinal, kb.ordinal, float(win[0]), float(win[1]), tuple(outs),
                              ((ka.mu, ka.sigma), (kb.mu, kb.sigma)))

    predicts_chance: ClassVar[bool] = True

    def predictor_text(self) -> str:
        return ("Choose two players to see each one's chance of winning a match of the two and how a win, a draw "
                "or a loss would move each one's μ, σ and rating μ − 3σ, by the openskill package's formulas.")

    def nearest_text(self) -> str:
        return ("{name}'s chance of winning against the {count} players rated nearest (the openskill package's "
                "prediction for a match of the two), and the change to {name}'s rating μ − 3σ a win, a draw or "
                "a loss would bring.")

    def strength(self, standing: Standing | None, ping: float) -> Strength:
        """Plackett-Luce for two players: P(a ahead) = 1 / (1 + e^(-(mu_a - mu_b) / c)) with
        c^2 = sigma_a^2 + sigma_b^2 + 2 beta^2; the opponent's sigma stands for both
        (*interpretation*, as glicko2 takes g of the opponent's RD alone)."""
        mu = standing.extra["mu"] if standing is not None else self.initial.mu
        sigma = standing.extra["sigma"] if standing is not None else self.initial.sigma
        rating = standing.rating if standing is not None else self.initial.ordinal
        return Strength(rating, mu, 1.0 / math.sqrt(2.0 * sigma * sigma + 2.0 * self.beta * self.beta))


# The first player's S -> the two places of a predicted match.
PLACES = {1.0: (1, 2), 0.5: (1, 1), 0.0: (2, 1)}


def _side(members: Sequence[str], solo: bool) -> str:
    """A team by its first player ("Ann's team"), a player of a free-for-all by name."""
    return members[0] if solo else f"{members[0]}'s team"
