"""The one walk through a league's history: matches in order, each player's state held between
rating events, one RatingEvent per update.

A system supplies only what is its own (``Stepper``): how matches group into rating events
(each match alone, or glicko2's periods), a new player's state, and the update of one event
from the states its players held going into it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from sitegen.rating.values import Change, Match, RatingEvent

S = TypeVar("S")


@dataclass(frozen=True, slots=True)
class Round:
    """The matches one rating event rates: a match, or a rating period's matches.

    ``index`` counts rounds from any fixed origin (a period's calendar number), ``note``
    what the system worked out about the round beyond its matches (elo: the season).
    """

    key: str
    index: int
    matches: tuple[Match, ...]
    note: Any = None

    def event(self, changes: Iterable[Change]) -> RatingEvent:
        """The plain event of this round: dated by its last match."""
        return RatingEvent(self.key, self.matches[-1].played, tuple(m.id for m in self.matches), tuple(changes))


def single_rounds(matches: Sequence[Match]) -> Iterable[Round]:
    """Every match a rating event of its own."""
    for i, m in enumerate(matches):
        yield Round(m.id, i, (m,))


class Stepper(Protocol[S]):
    """What a system gives the replay: rounds, a newcomer's state, one round's update."""

    def rounds(self, matches: Sequence[Match]) -> Iterable[Round]:
        ...

    def start(self, player: str) -> S:
        """The state of a player before their first event ([initial], or the league's initial)."""
        ...

    def step(self, round: Round, before: Mapping[str, S]) -> tuple[RatingEvent, Mapping[str, S]]:
        """The round's event and its players' states after it, from ``before``: the states its
        players held going into it, in the order they first appear in the round."""
        ...


def replay(system: Stepper[Any], matches: Sequence[Match]) -> list[RatingEvent]:
    """Rate ``matches`` (history order): one event per round, states carried between them."""
    held: dict[str, Any] = {}
    events: list[RatingEvent] = []
    for rnd in system.rounds(matches):
        before: dict[str, Any] = {}
        for m in rnd.matches:
            for name in m.players:
                if name not in before:
                    before[name] = held[name] if name in held else system.start(name)
        event, after = system.step(rnd, before)
        held.update(after)
        events.append(event)
    return events
