"""OpenSkill's Plackett-Luce over arrays: a league's whole history in one kernel (arrays.py).

The kernel repeats what the ``openskill`` package (5.x) computes in ``PlackettLuce.rate`` with
ranks, operation for operation, so its floats are the package's to the bit, run plain or
compiled (tests/test_kernels_openskill.py holds it to the package): sigma grown by tau, teams
sorted by place (a stable sort), the rank of a tie its first position, c, the sums of
e^(mu / c) over the teams placed the same or worse, then omega and delta per team and the
players' new mu and sigma, with the package's gamma sqrt(sigma^2) / c and limit_sigma. Where
the package would raise (an exp or a float power that overflows, a division by zero) the
match is flagged and the history ends there, as OpenSkill reported it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sitegen.rating import arrays
from sitegen.rating.values import Match

# Python's ``x ** 2`` (the package's) is the C library's pow, not x * x; numba would make a
# literal 2 into x * x, so the kernel takes 2.0 as an argument (see glicko2_kernel.py).
TWO = 2.0
RAISED = 1          # a match's status: the package raised (its exp or power overflowed, or a division by 0)
NOT_FINITE = 2      # a new mu or sigma left the finite numbers


def openskill_history(match_first: Any, team_first: Any, places: Any, players: Any, mu: Any, sigma: Any,
                      beta: float, tau: float, kappa: float, limit_sigma: bool, two: float,
                      mu_before: Any, sigma_before: Any, mu_after: Any, sigma_after: Any,
                      order: Any, rank: Any, team_mu: Any, team_s2: Any, strength: Any, sum_q: Any,
                      grown: Any) -> tuple[int, int]:
    """Every match of a league, from its players' starting values; (status, match) of the first
    match that failed, or (0, number of matches).

    Matches are runs of teams (``match_first``: offsets into the teams, one more than there
    are matches), teams runs of entries (``team_first``) with their ``places``; an entry is a
    player index (``players``). ``mu`` and ``sigma`` hold each player's belief before their
    first match and are updated in place. Written per entry: the belief before and after.
    ``order``, ``rank``, ``team_mu``, ``team_s2``, ``strength``, ``sum_q`` (one per team of the
    largest match) and ``grown`` (one per entry) are scratch.

    NumPy arrays for the compiled kernel, lists for the plain one (Python's own floats).
    """

    def square(x: float) -> float:
        # x ** 2 as the package computes it; inf where Python raises OverflowError.
        try:
            return x ** two
        except Exception:
            return math.inf

    tau2 = tau * tau
    beta2 = square(beta)
    c2 = 0.0
    for m in range(len(match_first) - 1):
        if math.isinf(beta2) and not math.isinf(beta):
            return RAISED, m
        t0 = match_first[m]
        k = match_first[m + 1] - t0
        for e in range(team_first[t0], team_first[t0 + k]):
            q = players[e]
            mu_before[e] = mu[q]
            sigma_before[e] = sigma[q]
            grown[e] = math.sqrt(sigma[q] * sigma[q] + tau2)
        # The teams by place, ties in listed order (the package's stable sort); a tie's rank is
        # the first position of its places.
        for s in range(k):
            at = s
            while at > 0 and places[t0 + order[at - 1]] > places[t0 + s]:
                order[at] = order[at - 1]
                at -= 1
            order[at] = s
        raised = False
        collective = 0.0
        for s in range(k):
            t = t0 + order[s]
            if s > 0 and places[t0 + order[s - 1]] == places[t]:
                rank[s] = rank[s - 1]
            else:
                rank[s] = s
            first = team_first[t]
            total_mu = mu[players[first]]
            total_s2 = square(grown[first])
            raised = raised or (math.isinf(total_s2) and not math.isinf(grown[first]))
            for e in range(first + 1, team_first[t + 1]):
                total_mu = total_mu + mu[players[e]]
                s2 = square(grown[e])
                raised = raised or (math.isinf(s2) and not math.isinf(grown[e]))
                total_s2 = total_s2 + s2
            team_mu[s] = total_mu
            team_s2[s] = total_s2
            collective += total_s2 + beta2
        c = math.sqrt(collective)
        raised = raised or c == 0.0
        if not raised:
            c2 = square(c)
            raised = (math.isinf(c2) and not math.isinf(c)) or c2 == 0.0
        for s in range(k):
            if raised:
                break
            try:
                strength[s] = math.exp(team_mu[s] / c)
            except Exception:           # OverflowError in the interpreter
                strength[s] = math.inf
            raised = math.isinf(strength[s]) and not math.isinf(team_mu[s] / c)
        if not raised:
            for q in range(k):
                total = 0.0
                started = False
                for i in range(k):
                    if rank[i] >= rank[q]:
                        if started:
                            total += strength[i]
                        else:
                            total = strength[i]
                            started = True
                sum_q[q] = total
                raised = raised or total == 0.0
        if raised:
            return RAISED, m
        finite = True
        for i in range(k):
            omega = 0.0
            delta = 0.0
            for q in range(k):
                share = strength[i] / sum_q[q]
                if rank[q] <= rank[i]:
                    a = 0
                    for r in range(k):
                        if rank[r] == rank[q]:
                            a += 1
                    delta += share * (1 - share) / a
                    if q == i:
                        omega += (1 - share) / a
                    else:
                        omega -= share / a
            s2 = team_s2[i]
            omega *= s2 / c
            delta *= s2 / c2
            delta *= math.sqrt(s2) / c                       # the package's gamma
            t = t0 + order[i]
            if s2 == 0.0:
                return RAISED, m
            for e in range(team_first[t], team_first[t + 1]):
                q = players[e]
                g = grown[e]
                g2 = square(g)
                if math.isinf(g2) and not math.isinf(g):
                    return RAISED, m
                new_mu = mu[q] + (g2 / s2) * omega
                shrink = 1 - (g2 / s2) * delta
                new_sigma = g * math.sqrt(kappa if kappa > shrink else shrink)
                if limit_sigma and not new_sigma <= sigma_before[e]:
                    new_sigma = sigma_before[e]
                mu_after[e] = new_mu
                sigma_after[e] = new_sigma
                finite = finite and math.isfinite(new_mu) and math.isfinite(new_sigma)
        for e in range(team_first[t0], team_first[t0 + k]):
            mu[players[e]] = mu_after[e]
            sigma[players[e]] = sigma_after[e]
        if not finite:
            return NOT_FINITE, m
    return 0, len(match_first) - 1


@dataclass(frozen=True, slots=True)
class History:
    """A league's matches as the kernel reads them, encoded once (openskill_history's columns):
    players by index in order of first appearance, with their starting beliefs."""

    names: tuple[str, ...]
    match_first: np.ndarray
    team_first: np.ndarray
    places: np.ndarray
    players: np.ndarray
    mu: np.ndarray
    sigma: np.ndarray

    @property
    def matches(self) -> int:
        return len(self.match_first) - 1


def encode(matches: Sequence[Match], start: Callable[[str], tuple[float, float]]) -> History:
    """The history of ``matches`` (history order); a match's entries come team by team, each
    with its ``team`` number, and its ``places`` one per team (OpenSkill.parse_match)."""
    index: dict[str, int] = {}
    players: list[int] = []
    team_first = [0]
    match_first = [0]
    places: list[int] = []
    for m in matches:
        team = None
        for name, entry in zip(m.players, m.entries):
            if team is not None and entry["team"] != team:
                team_first.append(len(players))
            team = entry["team"]
            q = index.get(name)
            if q is None:
                q = index[name] = len(index)
            players.append(q)
        team_first.append(len(players))
        places.extend(m.extra["places"])
        match_first.append(len(team_first) - 1)
    names = tuple(index)
    starts = np.array([start(name) for name in names], np.float64).reshape(len(names), 2)
    return History(names, np.array(match_first, np.int64), np.array(team_first, np.int64),
                   np.array(places, np.int64), np.array(players, np.int64), starts[:, 0].copy(), starts[:, 1].copy())


def arguments(history: History, *, beta: float, tau: float, kappa: float, limit_sigma: bool,
              compiled: bool) -> tuple[Any, ...]:
    """openskill_history's arguments for ``history``: fresh state and buffers, as NumPy arrays
    for the compiled kernel or lists for the plain one."""
    h = history
    entries = len(h.players)
    teams = int(np.diff(h.match_first).max()) if h.matches else 0
    columns: tuple[Any, ...] = (h.match_first, h.team_first, h.places, h.players, h.mu.copy(), h.sigma.copy())
    outputs: tuple[Any, ...] = tuple(np.zeros(entries) for _ in range(4))
    scratch: tuple[Any, ...] = (np.zeros(teams, np.int64), np.zeros(teams, np.int64), np.zeros(teams), np.zeros(teams),
               np.zeros(teams), np.zeros(teams), np.zeros(entries))
    if not compiled:
        columns = tuple(c.tolist() for c in columns)
        outputs = tuple(c.tolist() for c in outputs)
        scratch = tuple(c.tolist() for c in scratch)
    return (*columns, float(beta), float(tau), float(kappa), bool(limit_sigma), TWO, *outputs, *scratch)


@dataclass(frozen=True, slots=True)
class Rated:
    """openskill_history's columns as Python floats, one per entry; ``status`` and ``match``:
    the first match that failed (RAISED or NOT_FINITE), or 0 and the number of matches."""

    status: int
    match: int
    mu_before: list[float]
    sigma_before: list[float]
    mu_after: list[float]
    sigma_after: list[float]


def run(history: History, *, beta: float, tau: float, kappa: float, limit_sigma: bool) -> Rated:
    """The kernel over ``history``, compiled or plain as arrays.kernel decides."""
    fn = arrays.kernel(openskill_history, history.matches)
    args = arguments(history, beta=beta, tau=tau, kappa=kappa, limit_sigma=limit_sigma,
                     compiled=fn is not openskill_history)
    status, match = fn(*args)
    out = [c if isinstance(c, list) else c.tolist() for c in args[11:15]]
    return Rated(int(status), int(match), *out)
