"""Arena: each game's kills, deaths, assists and betrayals on an arctangent scale, averaged.

Source: Bungie's Arena Rating System for Halo: Reach (beta of May 2010). The rule as
this site states it: spec/arena.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from sitegen.rating.base import (
    Change, Example, ExampleKey, Field, Match, MatchSystem, Param, ParsedMatch, RatingEvent, Reporter,
    is_number, non_negative, parse_entries, unknown_key, value_text,
    COUNT_ALLOWED, count,
)
from sitegen.rating.base import EN_DASH, listing
from sitegen.rating.titles import LOBBY
from sitegen.rating.base import Curve, CurvePoint, Standing, Strength, LN10_400, first_of, steps
from sitegen.rating.limits import MAX_COUNT, MAX_PLAYERS
from sitegen.rating.registry import register
from sitegen.rating.replay import Round

TEAM_KEYS = ("won", "players")
MATCH_LEVEL = ("id", "played", "notes")     # every system's match keys (validate.COMMON_KEYS)
TEAMS_ALLOWED = "a list of 2 or more team tables like { won = true, players = [...] }"
# Seed weights are 1/3 and 1; a weight of a million would let one assist outweigh any game.
MAX_WEIGHT = 1000
WEIGHT_ALLOWED = f"a number from 0 to {MAX_WEIGHT:,}"


def weight(v: object) -> bool:
    return non_negative(v) and v <= MAX_WEIGHT  # type: ignore[operator]


def raw_rating(kills: int, deaths: int, assists: int = 0, betrayals: int = 0, *,
               assist_weight: float = 1.0, death_weight: float = 1 / 3,
               betrayal_weight: float = 1.0) -> float:
    """Seed: raw rating = (kills + sa * assists) - (sd * deaths + sb * betrayals)."""
    return (kills + assist_weight * assists) - (death_weight * deaths + betrayal_weight * betrayals)


def game_rating(raw: float, game_norm: float, penalty: float = 1.0) -> float:
    """Seed: rating = loss penalty * (1000 + 2000/pi * atan(raw rating * game norm)).

    The arctangent maps any raw rating into (0, 2000) before the penalty, and
    each extra kill is worth less the better the game already was.
    """
    return penalty * (1000.0 + 2000.0 / math.pi * math.atan(raw * game_norm))


def team_norm(team_size: int, score_to_win: int) -> float:
    """Game normalisation: players in the team / score to win.

    The seed's prose divides the other way round ("the score to win ... against
    the number of players per team"), but its worked example uses 4/50 for 4 a
    team and 50 to win; the contract fixes the example's reading.
    """
    return team_size / score_to_win


@register
class Arena(MatchSystem):
    name: ClassVar[str] = "arena"
    label: ClassVar[str] = "Arena stats rating"
    explain: ClassVar[str] = ("Each game rating comes from kills, assists, deaths and betrayals through the arctangent "
                              "scale; a player's rating is the mean of all their game ratings.")
    terms: ClassVar[tuple[str, ...]] = ("raw", "game_norm", "penalty", "game_rating")
    term_labels: ClassVar[Mapping[str, str]] = {
        "raw": "Raw", "game_norm": "Game norm", "penalty": "Penalty", "game_rating": "Game rating"}
    # Predicts no pairs, and why (a [tune] table has nothing to score a parameter by).
    no_prediction: ClassVar[str] = "a rating is a mean of game ratings"
    match_keys: ClassVar[tuple[str, ...]] = ("score_to_win", "teams")
    # No starting rating: a player's rating is the mean of their own game ratings, which
    # exist only from their first game on (docs/configuration names no [initial] for arena).
    has_initial: ClassVar[bool] = False
    params: ClassVar[tuple[Param, ...]] = (
        Param("assist_weight", 1, weight, WEIGHT_ALLOWED,
              "Seed: sa = 1 in the Reach beta, so an assist counts as much as a kill."),
        Param("death_weight", 1 / 3, weight, WEIGHT_ALLOWED,
              "Seed: sd = 1/3 in the Reach beta, so a death costs a third of a kill."),
        Param("betrayal_weight", 1, weight, WEIGHT_ALLOWED,
              "Seed: sb = 1, so each betrayal (killing a teammate) takes off a kill."),
        # Above 1 a loss would pay more than a win, so the seed's "penalty" caps it at 1.
        Param("loss_penalty", 0.96, lambda v: is_number(v) and 0 < v <= 1, "a number > 0 and <= 1",
              "Seed: a game rating is multiplied by 0.96 when the player's team loses (1 when it wins)."),
    )
    fields: ClassVar[tuple[Field, ...]] = (
        Field("kills", count, COUNT_ALLOWED),
        Field("deaths", count, COUNT_ALLOWED),
        Field("assists", count, COUNT_ALLOWED, default=0, required=False),
        Field("betrayals", count, COUNT_ALLOWED, default=0, required=False),
    )
    example: ClassVar[Example] = Example(
        players=(2, None), entry={"kills": 0, "deaths": 0, "assists": 0, "betrayals": 0}, teams=True,
        keys=(ExampleKey("score_to_win", 50, "the score that ends the game: an integer > 0"),),
        rules=("a free-for-all is teams of one; a player may be in one team only",),
    )

    def __init__(self, *, assist_weight: float = 1, death_weight: float = 1 / 3,
                 betrayal_weight: float = 1, loss_penalty: float = 0.96) -> None:
        self.assist_weight = assist_weight
        self.death_weight = death_weight
        self.betrayal_weight = betrayal_weight
        self.loss_penalty = loss_penalty

    def parse_match(self, raw: Mapping[str, Any], report: Reporter) -> ParsedMatch | None:
        ok = True
        score_to_win = raw.get("score_to_win")
        if "score_to_win" not in raw:
            report(("score_to_win",),
                   f"is missing; must be an integer from 1 to {MAX_COUNT:,} (the score that wins the game)")
            ok = False
        elif not count(score_to_win, 1):
            report(("score_to_win",), f"must be an integer from 1 to {MAX_COUNT:,} (the score that wins the game), "
                                      f"got {value_text(score_to_win)}")
            ok = False
        if "teams" not in raw:
            report(("teams",), f"is missing; must be {TEAMS_ALLOWED}")
            return None
        teams = raw["teams"]
        if not isinstance(teams, list):
            report(("teams",), f"must be {TEAMS_ALLOWED}, got {value_text(teams)}")
            return None
        if len(teams) < 2:
            report(("teams",), f"must list at least 2 teams, got {len(teams)}")
            ok = False
        names: list[str] = []
        entries: list[dict[str, Any]] = []
        name_paths: list[tuple[str | int, ...]] = []
        sizes: list[int] = []
        winners: list[int] = []
        flags_known = True      # every team's `won` is a valid boolean
        for t, team in enumerate(teams):
            at = ("teams", t)
            if not isinstance(team, dict):
                report(at, f"must be a table like {{ won = true, players = [...] }}, got {value_text(team)}")
                ok = flags_known = False
                continue
            for extra in sorted(set(team) - set(TEAM_KEYS)):
                # Keys below a [[match.teams]] header belong to the team, the match's own too.
                misplaced = (f"{extra!r} is a key of the match: write it above the first [[match.teams]] "
                             "header, or before teams = [...]; ") if extra in MATCH_LEVEL + self.match_keys else ""
                report(at + (extra,), unknown_key(extra, TEAM_KEYS, kind="teams", system=self.name,
                                                  hint=misplaced))
                ok = False
            won = team.get("won")
            if "won" not in team:
                report(at + ("won",), "is missing; must be true (this team won) or false")
                ok = flags_known = False
            elif not isinstance(won, bool):
                report(at + ("won",), f"must be true (this team won) or false, got {value_text(won)}")
                ok = flags_known = False
            elif won:
                winners.append(t)
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
            team_names, team_entries = parsed
            names.extend(team_names)
            name_paths.extend(at + ("players", j, "name") for j in range(len(team_names)))
            entries.extend({**e, "team": t + 1, "won": won} for e in team_entries)
            sizes.append(len(team_names))
        if len(names) > MAX_PLAYERS:
            report(("teams",), f"must hold at most {MAX_PLAYERS:,} players in all, got {len(names):,}")
            ok = False
        # Judged even when a player field is bad; "none won" only when every flag is readable.
        if len(winners) > 1 or (not winners and flags_known and teams):
            got = "none" if not winners else " and ".join(f"teams[{t}]" for t in winners)
            report(("teams",), f"exactly one team must have won = true (the others won = false); got {got}")
            ok = False
        if not ok:
            return None
        return ParsedMatch(tuple(names), tuple(entries),
                           {"score_to_win": score_to_win, "team_sizes": tuple(sizes)},
                           name_paths=tuple(name_paths))

    # A player's state is a running sum and count, not an updated mean: the rating after n
    # games is exactly sum / n, with no rounding drift accumulated over a long history.
    def start(self, player: str) -> tuple[float, int]:
        return 0.0, 0

    def step(self, round: Round, before: Mapping[str, tuple[float, int]]
             ) -> tuple[RatingEvent, dict[str, tuple[float, int]]]:
        (m,) = round.matches
        sizes, score_to_win = m.extra["team_sizes"], m.extra["score_to_win"]
        changes = []
        after: dict[str, tuple[float, int]] = {}
        for name, e in zip(m.players, m.entries):
            raw = raw_rating(e["kills"], e["deaths"], e["assists"], e["betrayals"],
                             assist_weight=self.assist_weight, death_weight=self.death_weight,
                             betrayal_weight=self.betrayal_weight)
            norm = team_norm(sizes[e["team"] - 1], score_to_win)
            penalty = 1.0 if e["won"] else float(self.loss_penalty)
            game = game_rating(raw, norm, penalty)
            total, n = before[name]
            changes.append(Change(name, total / n if n else None,      # no rating before the first game
                                  (total + game) / (n + 1),
                                  {"raw": raw, "game_norm": norm, "penalty": penalty, "game_rating": game}))
            after[name] = (total + game, n + 1)
        return round.event(changes), after

    def describe(self, entry: Mapping[str, Any]) -> str:
        text = ", ".join((plural(entry["kills"], "kill"), plural(entry["deaths"], "death"),
                          plural(entry["assists"], "assist")))
        if entry["betrayals"]:
            text += ", " + plural(entry["betrayals"], "betrayal")
        return text

    def outcome(self, match: Match, index: int) -> str | None:
        return "win" if match.entries[index]["won"] else "loss"

    def headline(self, match: Match) -> str:
        teams: dict[int, list[str]] = {}
        kills: dict[int, int] = {}
        winner = 0
        for p, e in zip(match.players, match.entries):
            teams.setdefault(e["team"], []).append(p)
            kills[e["team"]] = kills.get(e["team"], 0) + e["kills"]
            if e["won"]:
                winner = e["team"]
        if all(len(t) == 1 for t in teams.values()):          # free for all
            return f"{teams[winner][0]} wins ({len(teams)} players)"
        losers = [t for t in teams if t != winner]
        score = f"{kills[winner]}{EN_DASH}{max(kills[t] for t in losers)}"
        if len(teams) == 2 and all(len(t) <= 2 for t in teams.values()):
            return f"{listing(teams[winner])} beat {listing(teams[losers[0]])} {score}"
        return f"{teams[winner][0]}'s team wins {score}"

    def result(self, match: Match, index: int) -> str:
        e = match.entries[index]
        return f"{e['kills']}/{e['deaths']}/{e['assists']}"


    def summary(self, match: Match, names: Sequence[str]) -> str:
        e = match.entries
        teams: dict[int, list[int]] = {}
        for i, entry in enumerate(e):
            teams.setdefault(entry["team"], []).append(i)
        # The winners first, then the others as the file lists them.
        order = sorted(teams, key=lambda t: (not e[teams[t][0]]["won"], t))
        solo = all(len(members) == 1 for members in teams.values())

        def team(t: int) -> str:
            members = first_of([names[i] for i in teams[t]])
            return members if solo else f"team {t} ({members})"

        shown = order[:LOBBY]
        losers = [team(t) for t in shown[1:]]
        if len(order) > LOBBY:
            losers.append(f"+{len(order) - LOBBY} more teams")
        kills = "–".join(str(sum(e[i]["kills"] for i in teams[t])) for t in shown)
        return f"{team(order[0])} beat {', '.join(losers)}; kills {kills}"

    no_predictor_text: ClassVar[str] = (
        "An arena rating is the mean of a player's game ratings, each from their own kills and deaths; it says "
        "nothing about how two players would fare against each other, so this league has no predictor.")

    def strength(self, standing: Standing | None, ping: float) -> Strength:
        """No initial rating and no expected score of its own (*interpretation*): a new player
        counts as 1000, the game rating of a neutral game (raw 0, winning team), and two ratings
        are compared on the 400-point logistic, as if the rating were an Elo rating."""
        r = standing.rating if standing is not None else NEW_PLAYER
        return Strength(r, r, LN10_400)

    @classmethod
    def curve(cls) -> Curve:
        rows: list[CurvePoint] = []
        for size, to_win, label in ((1, 25, "free-for-all, 25 to win"), (4, 50, "4 a team, 50 to win"),
                                    (8, 50, "8 a team, 50 to win")):
            for raw in steps(-20, 40, 120):
                rows.append({"x": raw, "y": game_rating(raw, team_norm(size, to_win)), "series": label})
        return Curve("Raw rating (kills + assists − deaths/3 − betrayals)", "Game rating (winning team)",
                     "Game", tuple(rows),
                     "The game rating of a player on the winning team against their raw rating, for three "
                     "game sizes. A losing player's game rating is 0.96 times this.", y_format=",.1f")


NEW_PLAYER = 1000.0    # matchmaking's rating of a player with no game yet


def plural(n: int, word: str) -> str:
    """'1 kill', '3 kills': the counts of a match line."""
    return f"{n} {word}" + ("" if n == 1 else "s")
