"""Each system's characteristic curve, computed by the engine's own functions.

The spec pages draw these, so a reader sees the very function that rates
their matches, not a drawing of it. Every curve uses the system's default
parameters, which the caption says.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sitegen.rating import arena, base, glicko2, lunaro, openskill


@dataclass(frozen=True, slots=True)
class Curve:
    """Points of one or more series, with what the axes mean."""

    x_title: str
    y_title: str
    series_title: str
    rows: tuple[dict[str, float | str], ...]      # {"x": ..., "y": ..., "series": ...}
    caption: str
    x_format: str = ",.0f"
    y_format: str = ",.3f"

    @property
    def series(self) -> list[str]:
        return list(dict.fromkeys(str(r["series"]) for r in self.rows))


def _steps(lo: float, hi: float, n: int) -> list[float]:
    return [lo + (hi - lo) * i / n for i in range(n + 1)]


def lunaro_curve() -> Curve:
    default = next(p.default for p in lunaro.Lunaro.params if p.name == "ping_influence")
    rows = []
    for influence in (default / 2, default, default * 2):
        label = f"ping_influence = {influence:g}" + (" (default)" if influence == default else "")
        for ping in _steps(0, 600, 60):
            rows.append({"x": ping, "y": lunaro.ability(1.0, ping, influence), "series": label})
    return Curve("Ping (ms)", "Share of the rating that counts (A / R)", "Setting", tuple(rows),
                 "The ability factor sech(P / I) against ping, for the default influence and for half "
                 "and double it. The host plays at ping 0 and keeps the whole rating.")


def _expected_curve(note: str) -> Curve:
    rows = [{"x": gap, "y": base.expected(gap, 0.0), "series": "expected score"}
            for gap in _steps(-800, 800, 80)]
    return Curve("Rating gap (own rating minus the opponent's)", "Expected score", "", tuple(rows),
                 "The expected score against one opponent as a function of the rating gap. " + note)


def elo_curve() -> Curve:
    return _expected_curve("Equal ratings expect 0.5; 200 points ahead expects about 0.76.")


def placement_curve() -> Curve:
    return _expected_curve("In a lobby a player's expected score is the sum of these values over "
                           "every other player.")


def glicko2_curve() -> Curve:
    rows = []
    for transform, label in (("sine", "sine (the default)"), ("share", "share"),
                             ("outcome", "outcome")):
        for share in _steps(0, 1, 100):
            rows.append({"x": share, "y": glicko2.battle_score(share, 1.0 - share, transform),
                         "series": label})
    return Curve("Share of the two scores, A / (A + B)", "Battle score of A", "Transform",
                 tuple(rows),
                 "The battle score each transform gives for a share of the two worlds' scores. "
                 "The sine flattens near the ends, so a crushing win counts little more than a clear one.",
                 x_format=".2f")


def arena_curve() -> Curve:
    rows = []
    for team, to_win, label in ((1, 25, "free-for-all, 25 to win"), (4, 50, "4 a team, 50 to win"),
                                (8, 50, "8 a team, 50 to win")):
        for raw in _steps(-20, 40, 120):
            rows.append({"x": raw, "y": arena.game_rating(raw, arena.team_norm(team, to_win)), "series": label})
    return Curve("Raw rating (kills + assists − deaths/3 − betrayals)", "Game rating (winning team)",
                 "Game", tuple(rows),
                 "The game rating of a player on the winning team against their raw rating, for three "
                 "game sizes. A losing player's game rating is 0.96 times this.", y_format=",.1f")


def openskill_curve() -> Curve:
    system = openskill.OpenSkill()
    new = system.initial.sigma
    rows = []
    for size, sigma, label in ((1, new, f"1 v 1, new players (σ = {new:.2f})"),
                               (1, 2.0, "1 v 1, settled players (σ = 2)"),
                               (4, new, "4 v 4, new players")):
        for gap in _steps(-20, 20, 80):
            # The winners' skill is `gap` above the losers' for every player of the two teams.
            winners = [openskill.Skill(system.initial.mu + gap / 2, sigma)] * size
            losers = [openskill.Skill(system.initial.mu - gap / 2, sigma)] * size
            after = openskill.update(system.model, [winners, losers], [1, 2])
            rows.append({"x": gap, "y": after[0][0].mu - winners[0].mu, "series": label})
    return Curve("Skill gap (each winner's μ minus each loser's)", "Change of a winner's μ", "Game",
                 tuple(rows),
                 "How much a win raises a player's mean skill μ, computed by the openskill package with "
                 "the default parameters. A win the model expected (a large gap) earns little; an upset "
                 "earns up to σ² / c. Uncertain players move far more than settled ones. In four against "
                 "four the teams' gap is four players' gaps and c holds eight players' uncertainty, so "
                 "a player moves less at every gap.",
                 y_format=",.2f")


CURVES: dict[str, Callable[[], Curve]] = {
    "lunaro": lunaro_curve,
    "elo": elo_curve,
    "placement": placement_curve,
    "glicko2": glicko2_curve,
    "arena": arena_curve,
    "openskill": openskill_curve,
}
