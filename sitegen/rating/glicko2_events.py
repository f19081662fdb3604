"""Glicko-2's rating periods held as the kernel's columns (events.py): a ``Period`` with its
games and battles is made when it is read, as ``Glicko2._events`` makes every one."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sitegen.rating.events import EventTable, Term
from sitegen.rating.glicko2 import Battle, Glicko, Period, idle
from sitegen.rating.glicko2_kernel import History, Rated
from sitegen.rating.values import Change, Match, Standing


class Periods(EventTable):
    """The periods of ``groups`` ((key, index, matches) in history order) as ``rated`` left them."""

    def __init__(self, groups: Sequence[tuple[str, int, list[Match]]], history: History, rated: Rated) -> None:
        before = np.asarray(rated.before, dtype=np.float64).reshape(-1, 3)
        after = np.asarray(rated.after, dtype=np.float64).reshape(-1, 3)
        terms = {"rd_before": Term(before[:, 1].copy()), "rd_after": Term(after[:, 1].copy()),
                 "volatility_before": Term(before[:, 2].copy()), "volatility_after": Term(after[:, 2].copy())}
        keys = [key for key, _, _ in groups]
        self.groups = [group for _, _, group in groups]
        # A period of one match named by its id (period "match") holds just that match.
        single = all(len(group) == 1 and group[0].id == key for key, group in zip(keys, self.groups))
        super().__init__(keys, [group[-1].played for group in self.groups],
                         np.asarray(rated.period_changes, dtype=np.int64), history.names,
                         np.asarray(rated.change_player, dtype=np.int64), before[:, 0].copy(), after[:, 0].copy(),
                         terms, matches=None if single else [tuple([m.id for m in group]) for group in self.groups])
        self.period_index = history.period_index
        self.games = np.asarray(rated.games, dtype=np.int64)
        self.battle = np.asarray(rated.battle, dtype=np.float64)
        # Each side of each pair of a match is a battle: k (k - 1) of a k-player match.
        size = np.diff(history.match_first)
        battles = np.zeros(len(size) + 1, dtype=np.int64)
        np.cumsum(size * (size - 1), out=battles[1:])
        self.battle_first = battles[history.period_first]

    def event(self, i: int, changes: tuple[Change, ...]) -> Period:
        r0, r1 = int(self.offsets[i]), int(self.offsets[i + 1])
        games = dict(zip([c.player for c in changes], self.games[r0:r1].tolist()))
        entering = {c.player: Glicko(c.before, c.terms["rd_before"], c.terms["volatility_before"])  # type: ignore[arg-type]
                    for c in changes}
        scores = iter(self.battle[self.battle_first[i]:self.battle_first[i + 1]].tolist())
        battles = tuple([Battle(m.id, name, other, next(scores), entering[other])
                         for m in self.groups[i] for j, name in enumerate(m.players)
                         for k, other in enumerate(m.players) if j != k])
        return Period(self.keys[i], self.played[i], self.match_ids(i), changes, int(self.period_index[i]),
                      games, battles)

    def standings(self) -> list[Standing]:
        """``Glicko2.standings`` of these periods, from the columns: each player's last change
        grown for the periods sat out since, games summed over their periods."""
        rows, _ = self.last_rows()
        games = np.bincount(self.player, weights=self.games, minlength=len(self.names)).astype(np.int64)
        end = int(self.period_index[-1]) if len(self) else 0
        last_period = self.period_index[self.event_of_rows(rows)].tolist()
        out = []
        for c, n, index in zip(self.changes_at(rows), games[self.player[rows]].tolist(), last_period):
            final = idle(Glicko(c.after, float(c.terms["rd_after"] or 0.0), float(c.terms["volatility_after"] or 0.0)),
                         end - index)
            out.append(Standing(c.player, final.rating, n, {"rd": final.rd, "volatility": final.volatility}))
        return out
