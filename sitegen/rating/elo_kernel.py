"""Elo over arrays: a league's matches encoded once as columns, replayed by one kernel.

``Elo.rate`` runs ``elo_replay`` over the matches in history order and builds its events
from the kernel's columns; the bootstrap (honest.py) runs it again over each resample's
match positions without copying a match. The kernel does every option of the system in the
operations, and the order, of the per-match formulas in elo.py (``expected``,
``new_ratings``, ``margin_multiplier``, ``Elo.fide_k``), so its floats are theirs to the
last bit; tests/test_kernels_elo.py holds it, plain and compiled, to a per-match replay.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from operator import attrgetter, itemgetter
from typing import TYPE_CHECKING, Any

import numpy as np

from sitegen.rating import arrays
from sitegen.rating.events import EventTable, Term
from sitegen.rating.matchcolumns import column, fields, times
from sitegen.rating.values import Match, RatingDiverged, RatingEvent

if TYPE_CHECKING:
    from sitegen.rating.elo import Elo

# The kernel's status: the replay went through, or stopped at the match where a rating left
# the finite numbers, or where the margin rule's denominator reached 0.
DONE, NOT_FINITE, MARGIN_DOMAIN = 0, 1, 2
# Home column: neutral ground, the first listed player at home, the second.
NEUTRAL, HOME_A, HOME_B = 0, 1, 2
MARGIN_CODES = {"none": 0, "538-nfl": 1, "538-nba": 2}
ENTRIES = attrgetter("entries")
FIRST, SECOND = itemgetter(0), itemgetter(1)


def elo_replay(order, a, b, s_a, chall_b, home, weight, pts_a, pts_b, season_of,      # noqa: PLR0913
               rating, games, master, season, current,
               fide, k_fixed, k_prov, k_std, k_master, provisional, master_rating, each,
               home_adv, margin, w, mean,
               out_ra, out_rb, out_e, out_ka, out_kb, out_m, out_rev_a, out_rev_b, out_after_a, out_after_b,
               out_first_a, out_first_b):
    """Replay the matches at positions ``order`` (history order), updating the players' state
    columns in place; the numbers of the t-th match replayed go to row t of the out columns.

    State per player index: ``rating``, ``games`` played, ``master`` (-1 before the first
    match, then 1 once master_rating was reached, else 0) and the ``season`` of their last
    match (-1: none). ``season_of`` a match is -1 when it names none: the league's season is
    then the previous replayed match's, ``current[0]`` before the first (-1: none), and
    ``current[0]`` the last one's after: a replay taken up later goes on in its season.
    Returns (status, t): DONE, or the failure at row t.
    """
    league = current[0]
    for t in range(len(order)):
        i = order[t]
        if season_of[i] >= 0:
            league = season_of[i]
        pa = a[i]
        pb = b[i]
        ra = rating[pa]
        rb = rating[pb]
        # Once per new season, however many passed; w = 0 is no reversion at all.
        rev_a = math.nan
        rev_b = math.nan
        if w > 0 and games[pa] > 0 and season[pa] != league:
            rev_a = ra
            ra = (1.0 - w) * ra + w * mean
        if w > 0 and games[pb] > 0 and season[pb] != league:
            rev_b = rb
            rb = (1.0 - w) * rb + w * mean
        # Whether master_rating was ever reached: before the first match, the rating held then.
        reach_a = ra >= master_rating if master[pa] < 0 else master[pa] == 1
        reach_b = rb >= master_rating if master[pb] < 0 else master[pb] == 1
        if fide:
            if games[pa] < provisional:
                ka = k_prov
            else:
                ka = k_master if reach_a else k_std
            if games[pb] < provisional:
                kb = k_prov
            else:
                kb = k_master if reach_b else k_std
        else:
            ka = k_fixed
            kb = k_fixed
        if not each:            # the challenger's K for both
            if chall_b[i]:
                ka = kb
            else:
                kb = ka
        ha = 0.0
        hb = 0.0
        if home[i] == 1:
            ha = home_adv
        elif home[i] == 2:
            hb = home_adv
        # base.expected, on the ratings with the home advantage added where there is a home player.
        if home[i] != 0:
            x = ((rb + hb) - (ra + ha)) / 400.0
        else:
            x = (rb - ra) / 400.0
        if x > 300.0:
            q = 10.0 ** -x
            e = q / (1.0 + q)
        else:
            e = 1.0 / (1.0 + 10.0 ** x)
        s = s_a[i]
        out_ra[t] = ra
        out_rb[t] = rb
        out_e[t] = e
        out_ka[t] = ka
        out_kb[t] = kb
        out_rev_a[t] = rev_a
        out_rev_b[t] = rev_b
        out_first_a[t] = games[pa] == 0
        out_first_b[t] = games[pb] == 0
        # elo.margin_multiplier: d is the winner's rating minus the loser's, home advantage included.
        mult = 1.0
        if margin != 0:
            if s == 1:
                d = (ra + ha) - (rb + hb)
            else:
                d = (rb + hb) - (ra + ha)
            mg = abs(pts_a[i] - pts_b[i])
            if margin == 1:
                top = math.log(max(mg, 1.0) + 1.0) * 2.2
                if s == 0.5:
                    mult = top
                else:
                    below = 0.001 * d + 2.2
                    if below <= 0:
                        return MARGIN_DOMAIN, t
                    mult = top / below
            else:
                top = (mg + 3.0) ** 0.8
                if s == 0.5:
                    mult = top / 7.5
                else:
                    below = 7.5 + 0.006 * d
                    if below <= 0:
                        return MARGIN_DOMAIN, t
                    mult = top / below
        out_m[t] = mult
        # elo.new_ratings with factor = weight * M.
        factor = weight[i] * mult
        after_a = ra + ka * factor * (s - e)
        after_b = rb + kb * factor * ((1.0 - s) - (1.0 - e))
        if not (math.isfinite(after_a) and math.isfinite(after_b)):
            return NOT_FINITE, t
        out_after_a[t] = after_a
        out_after_b[t] = after_b
        master[pa] = 1 if (reach_a or after_a >= master_rating) else 0
        master[pb] = 1 if (reach_b or after_b >= master_rating) else 0
        games[pa] += 1
        games[pb] += 1
        season[pa] = league
        season[pb] = league
        rating[pa] = after_a
        rating[pb] = after_b
    current[0] = league
    return DONE, len(order)


@dataclass(frozen=True, slots=True)
class EloColumns:
    """A league's matches as the kernel reads them (player indices in order of appearance)."""

    names: tuple[str, ...]
    starts: tuple[Any, ...]          # each player's starting rating as [initial] or ``initial`` gave it
    a: np.ndarray
    b: np.ndarray
    s_a: np.ndarray
    chall_b: np.ndarray              # the challenger is the second listed player
    home: np.ndarray                 # NEUTRAL, HOME_A, HOME_B
    weight: np.ndarray
    pts_a: np.ndarray
    pts_b: np.ndarray
    season_of: np.ndarray            # index into ``seasons``; -1 where the match names none
    seasons: tuple[str, ...]


def with_keys(matches: Sequence[Match]) -> list[int]:
    """The positions of the matches that have system keys, in order (from the extra column where
    the matches are columns: no match made)."""
    return np.flatnonzero(np.fromiter(map(len, fields(matches, "extra")), dtype=np.int64,
                                      count=len(matches))).tolist()


def encode(system: Elo, matches: Sequence[Match]) -> EloColumns:
    names, index = arrays.player_index(matches)
    a, b = arrays.pair_columns(matches, index)
    n = len(matches)
    entries = list(map(ENTRIES, matches))
    firsts = list(map(FIRST, entries))
    s_a = arrays.entry_column(firsts, lambda e: float(e["score"]))
    # Most matches have no system keys: their columns are the defaults (the challenger the
    # first listed player, who is the second only where both are one player; no home; weight
    # 1; no season), and only the matches with keys are read one by one, in history order.
    keyed = with_keys(matches)
    chall_b = a == b
    home = np.zeros(n, dtype=np.int64)
    weight = np.ones(n, dtype=np.float64)
    season_of = np.full(n, -1, dtype=np.int64)
    seasons: dict[str, int] = {}
    for i in keyed:
        m = matches[i]
        extra, players = m.extra, m.players
        # The aliases are resolved already, so the challenger is one of the two names.
        chall_b[i] = (extra.get("challenger") or players[0]) == players[1]
        home[i] = (NEUTRAL if extra.get("home") is None else HOME_A if extra["home"] == players[0]
                   else HOME_B)
        weight[i] = float(extra.get("weight", 1))
        if "season" in extra:
            season_of[i] = seasons.setdefault(extra["season"], len(seasons))
    if system.margin == "none":
        pts_a = pts_b = np.zeros(n)
    else:       # validated: with a margin rule both players have points
        pts_a = arrays.entry_column(firsts, lambda e: float(e["points"]))
        pts_b = arrays.entry_column(list(map(SECOND, entries)), lambda e: float(e["points"]))
    starts = tuple(system.starts.get(p, system.initial) for p in names)
    return EloColumns(names, starts, a, b, s_a, chall_b, home, weight, pts_a, pts_b, season_of, tuple(seasons))


def _numbered(before: Sequence[Any], met: Sequence[Any]) -> tuple[list[Any], np.ndarray]:
    """``before`` with the values of ``met`` it lacks appended in order, and each of ``met``'s
    number in it."""
    known = list(before)
    number = dict(zip(known, range(len(known))))
    for value in met:
        if value not in number:
            number[value] = len(known)
            known.append(value)
    return known, np.array([number[value] for value in met], dtype=np.int64)


def encode_after(system: Elo, tail: Sequence[Match], names: Sequence[str], seasons: Sequence[Any]) -> EloColumns:
    """The columns of the matches that follow a history whose players were ``names`` and seasons
    ``seasons`` (each in order of first appearance): the players and seasons met since are
    numbered after them, in the order they are met, so that the history's columns followed by
    these are ``encode``'s of every match (``joined``)."""
    cols = encode(system, tail)
    known, player = _numbered(names, cols.names)
    every, renumber = _numbered(seasons, cols.seasons)
    season_of = cols.season_of.copy()
    named = season_of >= 0
    season_of[named] = renumber[season_of[named]]
    return EloColumns(tuple(known), tuple(system.starts.get(p, system.initial) for p in known),
                      player[cols.a], player[cols.b], cols.s_a, cols.chall_b, cols.home, cols.weight,
                      cols.pts_a, cols.pts_b, season_of, tuple(every))


COLUMNS = ("a", "b", "s_a", "chall_b", "home", "weight", "pts_a", "pts_b", "season_of")


def with_arrays(names: tuple[str, ...], starts: tuple[Any, ...], seasons: tuple[Any, ...],
                arrays_: Sequence[np.ndarray]) -> EloColumns:
    """The columns of players ``names`` and seasons ``seasons``, the arrays in COLUMNS' order."""
    a, b, s_a, chall_b, home, weight, pts_a, pts_b, season_of = arrays_
    return EloColumns(names, starts, a, b, s_a, chall_b, home, weight, pts_a, pts_b, season_of, seasons)


def joined(head: EloColumns, tail: EloColumns) -> EloColumns:
    """A history's columns and those of the matches that follow it (``encode_after``'s)."""
    return with_arrays(tail.names, tail.starts, tail.seasons,
                       [np.concatenate((getattr(head, c), getattr(tail, c))) for c in COLUMNS])


# A replay's state (``Replayer.first_state``): four columns of players and the league's season.
STATE_PARTS = 5


class Replayer:
    """The kernel and its columns, ready to replay any order of the encoded matches."""

    def __init__(self, system: Elo, cols: EloColumns, length: int, replays: int) -> None:
        self.system = system
        self.cols = cols
        # Compiled when the work repays it: every replay counts.
        self.fn: Any = arrays.kernel(elo_replay, length * replays)
        self.plain = self.fn is elo_replay
        self.start = np.array([float(r) for r in cols.starts], dtype=np.float64)
        self.n_players = len(cols.names)
        # Row t of each column: the t-th match replayed (lists for the plain kernel).
        floats, flags = [np.zeros(length) for _ in range(10)], [np.zeros(length, dtype=np.bool_) for _ in range(2)]
        self.out: list[Any] = floats + flags
        if self.plain:
            self.out = [[0.0] * length for _ in floats] + [[False] * length for _ in flags]
        inputs = (cols.a, cols.b, cols.s_a, cols.chall_b, cols.home, cols.weight, cols.pts_a, cols.pts_b,
                  cols.season_of)
        # The plain kernel runs on lists: Python floats and list indexing are several times
        # faster than NumPy's scalars, with the same IEEE arithmetic.
        self.inputs = tuple(c.tolist() for c in inputs) if self.plain else inputs
        fide = system.k == "fide"
        self.params = (fide, 0.0 if fide else float(system.k), float(system.k_provisional),
                       float(system.k_standard), float(system.k_master), int(system.provisional_games),
                       float(system.master_rating), system.k_of != "challenger", float(system.home_advantage),
                       MARGIN_CODES[system.margin], float(system.season_reversion), float(system.reversion_mean))

    def run(self, order: np.ndarray) -> tuple[int, int, np.ndarray, np.ndarray]:
        """Replay ``order`` from the starting ratings: (status, row, final ratings, games)."""
        status, row, state = self.run_from(order, self.first_state())
        return status, row, state[0], state[1]

    def first_state(self) -> tuple[np.ndarray, ...]:
        """Every player's state before any match: starting rating, no game, no master's K, no
        season; and the league's season (none)."""
        n = self.n_players
        return (self.start.copy(), np.zeros(n, dtype=np.int64), np.full(n, -1, dtype=np.int64),
                np.full(n, -1, dtype=np.int64), np.full(1, -1, dtype=np.int64))

    def run_from(self, order: np.ndarray, state: tuple[np.ndarray, ...]) -> tuple[int, int, tuple[np.ndarray, ...]]:
        """Replay ``order`` from ``state`` (rating, games, master, season of every player and
        the league's season, as ``first_state`` or a replay before left it): (status, row, the
        state after)."""
        arrays_: tuple[Any, ...] = (state[0].astype(np.float64), *(s.astype(np.int64) for s in state[1:]))
        if self.plain:
            arrays_ = tuple(s.tolist() for s in arrays_)
            order = order.tolist()
        status, row = self.fn(order, *self.inputs, *arrays_, *self.params, *self.out)
        after = (np.asarray(arrays_[0], dtype=np.float64), *(np.asarray(s, dtype=np.int64) for s in arrays_[1:]))
        return int(status), int(row), after

    def rows(self) -> list[list[Any]]:
        """The out columns as lists of Python numbers."""
        return [o if self.plain else o.tolist() for o in self.out]

    def diverged(self, matches: Sequence[Match], order: np.ndarray, status: int, row: int) -> RatingDiverged:
        """What ``Elo.step`` raised at the match replayed at ``row``."""
        m = matches[int(order[row])]
        if status == NOT_FINITE:
            return RatingDiverged(m.id, "a rating", "(K × weight × margin multiplier is too large); "
                                                    "lower k or the match's weight")
        system = self.system
        ra, rb = float(self.out[0][row]), float(self.out[1][row])
        home = m.extra.get("home")
        h_a = h_b = 0.0
        if home is not None:
            h_a, h_b = (system.home_advantage, 0.0) if home == m.players[0] else (0.0, system.home_advantage)
        s_a = float(m.entries[0]["score"])
        d = (ra + h_a) - (rb + h_b) if s_a == 1 else (rb + h_b) - (ra + h_a)
        limit = 2200 if system.margin == "538-nfl" else 1250
        return RatingDiverged(
            m.id, f"the {system.margin} margin multiplier",
            f"(the winner was rated {-d:,.0f} points below the loser, home advantage included; the "
            f"formula holds only while that gap is under {limit:,}); rate this league without a "
            "margin rule, or check the match")


# The kernel's out columns (``Replayer.out``): ten of floats, then two of flags.
OUT_FLOATS, OUT_FLAGS = 10, 2


@dataclass(frozen=True)
class RatedColumns:
    """A league's first ``matches`` matches rated, as a rating taken up later needs them: the
    columns the kernel read (``encode``'s of those matches), its out columns (one row a match)
    and every player's state after the last of them (``Replayer.run_from``)."""

    matches: int
    cols: EloColumns
    out: tuple[np.ndarray, ...]
    state: tuple[np.ndarray, ...]

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        # Pickled for the build cache (model/resume.py) with its columns packed: most of a
        # league's are one value throughout (no home, weight 1, no reversion), 80 MB at a million.
        cols = self.cols
        return _rated_columns, (self.matches, cols.names, cols.starts, cols.seasons,
                                tuple(arrays.packed(getattr(cols, c)) for c in COLUMNS),
                                tuple(map(arrays.packed, self.out)), self.state)


def _rated_columns(matches: int, names: tuple[str, ...], starts: tuple[Any, ...], seasons: tuple[Any, ...],
                   cols: tuple[Any, ...], out: tuple[Any, ...], state: tuple[np.ndarray, ...]) -> RatedColumns:
    """A RatedColumns read back; a value of another shape raises, and the cache takes it for a miss."""
    arrays_ = [arrays.unpacked(c) for c in cols]
    outs = tuple(arrays.unpacked(o) for o in out)
    if (len(arrays_) != len(COLUMNS) or len(outs) != OUT_FLOATS + OUT_FLAGS or len(state) != STATE_PARTS
            or any(len(c) != matches for c in (*arrays_, *outs)) or len(starts) != len(names)
            or any(len(part) != len(names) for part in state[:-1])):
        raise ValueError("not a rating of this shape")
    return RatedColumns(matches, with_arrays(names, starts, seasons, arrays_), outs, state)


def rate(system: Elo, matches: Sequence[Match]) -> Sequence[RatingEvent]:
    """``Elo.rate``: the kernel over the history, one event per match as ``Elo.step`` made it,
    held as the kernel's columns (events.py)."""
    if not matches:
        return []
    return rate_from(system, matches, None)[0]


def rate_from(system: Elo, matches: Sequence[Match], before: RatedColumns | None
              ) -> tuple[EventTable, RatedColumns]:
    """``rate`` and the rating to take up later, the replay taken up where ``before`` (the
    league's first ``before.matches`` matches rated: the caller vouches that they are these
    matches) left it: only the matches that follow are encoded and replayed, so few that the
    plain kernel runs them, and the events are a whole replay's to the last bit (the columns
    ``encode``'s of every match, the kernel's rows the same numbers). Raises RatingDiverged
    where ``rate`` would, at the same match with the same message."""
    tail = matches[before.matches:] if before is not None else matches
    cols = encode(system, tail) if before is None else encode_after(system, tail, before.cols.names,
                                                                    before.cols.seasons)
    replayer = Replayer(system, cols, max(len(tail), 1), 1)
    fresh = replayer.first_state()
    state = fresh if before is None else grown_state(before.state, fresh)
    order = np.arange(len(tail), dtype=np.int64)
    status, row, after = replayer.run_from(order, state)
    if status != DONE:
        raise replayer.diverged(tail, order, status, row)
    out = tuple(np.asarray(o[:len(tail)], dtype=np.float64 if k < OUT_FLOATS else np.bool_)
                for k, o in enumerate(replayer.out))
    if before is not None:
        cols = joined(before.cols, cols)
        out = tuple(np.concatenate((old, new)) for old, new in zip(before.out, out))
    return events_of(system, matches, cols, out), RatedColumns(len(matches), cols, out, after)


def grown_state(old: tuple[np.ndarray, ...], fresh: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
    """A replay's state ``old`` with the players met since in theirs before any match (``fresh``
    holds every player's, those known before first)."""
    return tuple(np.concatenate((o, f[len(o):])) for o, f in zip(old, fresh))


def events_of(system: Elo, matches: Sequence[Match], cols: EloColumns, out: Sequence[np.ndarray]) -> EventTable:
    """The events of the whole history from its columns and the kernel's out columns."""
    ra, rb, e, ka, kb, mult, rev_a, rev_b, after_a, after_b, first_a, first_b = out
    n = len(matches)
    # Row 2t is the first listed player of match t, row 2t + 1 the second.
    pair = np.empty(2 * n, dtype=np.int64)
    pair[0::2], pair[1::2] = cols.a, cols.b

    def rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        out = np.empty(2 * n, dtype=np.float64)
        out[0::2], out[1::2] = x, y
        return out

    # A first match starts from the rating as given (an int stays an int in the ledger).
    first = np.flatnonzero(rows(first_a, first_b)).tolist()
    exact = {r: cols.starts[p] for r, p in zip(first, pair[first].tolist())}
    # The fields read of every match come from the league's columns where it holds them
    # (rating/matchcolumns.py): a rebuild makes no Match of its million kept ones here.
    ids = column(matches, "id")
    extra = fields(matches, "extra")
    keyed = with_keys(matches)
    s_a, exp_a = cols.s_a, np.asarray(e, dtype=np.float64)
    challenger: list[Any] = [None] * n
    home: list[Any] = [None] * n
    if system.k_of == "challenger":     # the first listed player but where the match names another
        # The first listed player of each match is the one ``encode`` numbered ``a``: named
        # from the columns, so that a rebuild reads no kept file's players (load/gathered.py).
        challenger = list(map(cols.names.__getitem__, cols.a.tolist()))
        for i in keyed:
            challenger[i] = extra[i].get("challenger") or challenger[i]
    for i in keyed:
        home[i] = extra[i].get("home")
    terms = {
        "expected": Term(rows(exp_a, 1.0 - exp_a)), "score": Term(rows(s_a, 1.0 - s_a)), "k": Term(rows(ka, kb)),
        "challenger": Term(challenger, per_event=True),
        "home": Term(home, per_event=True),
        "margin_multiplier": Term(np.asarray(mult, dtype=np.float64), per_event=True),
        "weight": Term(cols.weight, per_event=True),
        "reverted_from": Term(rows(rev_a, rev_b), none_at_nan=True),
    }
    # The times as the columns' micros, each a datetime when read (matchcolumns.Times).
    return EventTable(ids, times(matches), np.arange(0, 2 * n + 1, 2, dtype=np.int64), cols.names,
                      pair, rows(ra, rb), rows(after_a, after_b), terms, exact_before=exact, listed=True)


@dataclass(frozen=True)
class ReplayStates:
    """Each resample's replay as it stood after the league's first ``matches`` matches: its
    status and every player's state (``Replayer.run_from``), players and seasons as encoded."""

    matches: int
    names: tuple[str, ...]
    seasons: tuple[Any, ...]
    states: tuple[tuple[int, tuple[np.ndarray, ...]], ...]


def resampled_from(system: Elo, matches: Sequence[Match], draws: Sequence[Sequence[int]],
                   before: ReplayStates | None, cols: EloColumns | None = None
                   ) -> tuple[dict[str, list[float]], ReplayStates]:
    """``resampled``, each resample's replay taken up where ``before`` left it: ``draws`` are then
    the positions from ``before.matches`` on (the bootstrap's draws of a match depend on its
    position alone, honest.py), and the result is a whole replay's to the last bit. Where the
    players or seasons ``before`` knew are not the first ones now, it is not used: None.
    ``cols``: the matches' columns as ``encode`` makes them, where the caller has them (the
    league's rating read them: model/resume.py), else they are encoded here."""
    if cols is None:
        cols = encode(system, matches)
    if before is not None and (cols.names[:len(before.names)] != before.names
                               or tuple(cols.seasons[:len(before.seasons)]) != before.seasons
                               or len(before.states) != len(draws)
                               or any(len(state) != STATE_PARTS for _, state in before.states)):
        raise ValueError("the replays before are of other players or seasons")
    # A replay taken up reads only the matches that follow: the kernel is given their columns
    # alone (the plain kernel makes lists of them) and their positions counted from the first.
    start = before.matches if before is not None else 0
    tail = cols if not start else with_arrays(cols.names, cols.starts, cols.seasons,
                                              [getattr(cols, c)[start:] for c in COLUMNS])
    replayer = Replayer(system, tail, max((len(d) for d in draws), default=0) or 1, len(draws))
    fresh = replayer.first_state()
    states = []
    for r, draw in enumerate(draws):
        if before is None:
            status, state = DONE, fresh
        else:
            status, old = before.states[r]
            # Players first met since: their starting state follows the ones known before.
            state = grown_state(old, fresh)
        if status == DONE and len(draw):
            status, _, state = replayer.run_from(np.asarray(draw, dtype=np.int64) - start, state)
        states.append((status, state))
    return samples_of(cols.names, [state for status, state in states if status == DONE]), \
        ReplayStates(len(matches), cols.names, tuple(cols.seasons), tuple(states))


def samples_of(names: Sequence[str], done: Sequence[tuple[np.ndarray, ...]]) -> dict[str, list[float]]:
    """Each player's final rating in every replay of ``done`` (their states) where they played, in
    replay order, the players in order of their first such replay, then of index: what one
    ``setdefault(...).append`` a player a replay gives, from the stacked columns."""
    if not done:
        return {}
    ratings = np.stack([state[0] for state in done]).T          # a row a player, a column a replay
    played = np.stack([state[1] for state in done]).T > 0
    counts = played.sum(axis=1)
    ends = np.cumsum(counts).tolist()
    who = np.flatnonzero(counts)
    flat = ratings[played].tolist()     # row after row: each player's in replay order
    out: dict[str, list[float]] = {}
    for p in who[np.lexsort((who, played.argmax(axis=1)[who]))].tolist():
        out[names[p]] = flat[ends[p] - int(counts[p]):ends[p]]
    return out


def resampled(system: Elo, matches: Sequence[Match], draws: Sequence[Sequence[int]]) -> dict[str, list[float]]:
    """``Elo.resampled_ratings``: the matches encoded once, each resample replayed by position.

    What ``standings(rate(resample))`` gives, resample after resample; a resample that stops
    on a RatingDiverged is left out, as the one-by-one path leaves it out.
    """
    out: dict[str, list[float]] = {}
    if not matches or not draws:
        return out
    replayer = Replayer(system, encode(system, matches), max(len(d) for d in draws), len(draws))
    names = replayer.cols.names
    for draw in draws:
        status, _, ratings, games = replayer.run(np.asarray(draw, dtype=np.int64))
        if status != DONE:
            continue
        played = np.flatnonzero(games)
        for p, r in zip(played.tolist(), ratings[played].tolist()):
            out.setdefault(names[p], []).append(r)
    return out


@dataclass(frozen=True)
class RatingState:
    """A replay of a league's first ``matches`` matches as it stood after them: every player's
    state (``Replayer.run_from``), players and seasons as encoded, and the season of the last
    match that named one (-1: none), which the next match naming none is played in."""

    matches: int
    names: tuple[str, ...]
    seasons: tuple[Any, ...]
    league: int
    state: tuple[np.ndarray, ...]


def expected_from(system: Elo, matches: Sequence[Match], before: RatingState | None
                  ) -> tuple[np.ndarray, np.ndarray, RatingState]:
    """The first listed player's E and S of each match from ``before.matches`` on (of every match
    without ``before``), the replay taken up where ``before`` left it, and the replay after every
    match: the numbers ``rate`` gives those matches, to the last bit. Only the matches that
    follow are encoded, their players and seasons numbered after the ones ``before`` knew.
    Raises RatingDiverged where ``rate`` would."""
    tail = matches[before.matches:] if before is not None else matches
    league = before.league if before is not None else -1
    whole = encode_after(system, tail, before.names if before is not None else (),
                         before.seasons if before is not None else ())
    season_of = whole.season_of
    named = season_of >= 0
    # The matches before the first to name a season are played in the one carried over, as
    # the kernel carries it from match to match (a resumed kernel starts without one).
    first = np.flatnonzero(named)
    if league >= 0:
        season_of[:int(first[0]) if len(first) else len(tail)] = league
    replayer = Replayer(system, whole, max(len(tail), 1), 1)
    fresh = replayer.first_state()
    state = fresh if before is None else grown_state(before.state, fresh)
    order = np.arange(len(tail), dtype=np.int64)
    status, row, after = replayer.run_from(order, state)
    if status != DONE:
        raise replayer.diverged(tail, order, status, row)
    e = np.array(replayer.out[2][:len(tail)], dtype=np.float64)
    last = int(season_of[first[-1]]) if len(first) else league
    return e, whole.s_a, RatingState(len(matches), whole.names, whole.seasons, last, after)
