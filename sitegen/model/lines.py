"""A match's lines (views.MatchLine): from its rating events' changes, or read from the rating
columns when a page asks for them.

Where every rating event is one match (model/history.py one_event_per_match), ``TableLines``
makes each line from the rating columns. A long history's lines (past scale.HELD_LINES player
appearances) are not held at all: ``MatchLines`` makes each when a page reads it. Two lines,
their terms and their ratings per match were half of a million-match league's view models,
held to the end of the build and counted again by every process forked after them. No I/O here.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from itertools import chain, repeat
from typing import Any, overload

import numpy as np

from sitegen.load.config import Tier
from sitegen.model.history import RatedLeague
from sitegen.model.scale import is_big
from sitegen.model.views import Link, MatchLine
from sitegen.rating.base import Change, Match
from sitegen.rating.events import PAGE, EventTable, RowTerms
from sitegen.rating.protocol import OUTCOMES


def _number(terms: Mapping[str, float | str | None], key: str) -> float:
    """A term of the K × (S − E) update, which is always a number."""
    value = terms[key]
    assert isinstance(value, (int, float)), f"term {key} is {value!r}"
    return float(value)


def formula(terms: Mapping[str, float | str | None], before: float | None, after: float, integer: bool) -> str:
    """The update written out, e.g. "50 × (0.537 − 0.794) = −12.88, rounded".

    For every system whose change is K × (S − E); the others' terms speak for themselves.
    """
    # Three lookups, not a set built for every line.
    if "k" not in terms or "score" not in terms or "expected" not in terms:
        return ""
    return written_formula(_number(terms, "k"), _number(terms, "score"), _number(terms, "expected"),
                           terms.get("weight"), terms.get("margin_multiplier"), terms.get("reverted_from"),
                           before, after, integer)


def written_formula(k: float, s: float, e: float, weight: Any, margin: Any, reverted: Any,
                    before: float | None, after: float, integer: bool) -> str:
    """``formula`` from the terms' values: K, S and E (numbers), elo's weight and margin
    multiplier and the rating a season reverted from (each None where the system has none)."""
    # elo's weight and margin multiplier (docs/configuration) multiply K; shown only when not 1.
    factors = [f for f in (weight, margin) if isinstance(f, (int, float)) and f != 1]
    raw = k * (s - e)
    for f in factors:
        raw *= f
    # Most lines have no factor: no generator to join for them (a line each of a big league).
    shown = "".join(f" × {f:.4g}" for f in factors) if factors else ""
    text = f"{k:.4g}{shown} × ({s:.3g} − {e:.3f}) = {raw:+.2f}"
    if reverted is not None:
        text = f"season reversion {reverted:.1f} → {before:.1f}, then {text}"
    if integer:
        text += ", rounded"
    elif before is not None and abs(before + raw - after) > 1e-9:
        text += f", floor {after:g}"
    return text.replace("-", "−")


# What ``formula`` reads of a line's terms: K, S and E, then the optional ones.
FORMULA_TERMS = ("k", "score", "expected", "weight", "margin_multiplier", "reverted_from")


def _as_number(value: Any, key: str) -> float:
    """``_number`` of a value read already."""
    assert isinstance(value, (int, float)), f"term {key} is {value!r}"
    return float(value)


Found = dict[str, tuple[Change, str, tuple[str, ...]]]
# Texts of entries kept at most: entries alike are one object, but a lobby's may all differ.
DESCRIBED = 4096
# A match and its lines, with its event's key and matches, as the main loop takes them.
Made = tuple[Match, Sequence[MatchLine], str, tuple[str, ...]]


def _match_changes(rated: RatedLeague) -> tuple[Iterator[Found], Counter[tuple[str, str]]]:
    """Each match's changes by player, with their event's key and matches, match after match;
    and how many of a player's matches each (event, player) spans."""
    events, matches = rated.events, rated.league.matches
    # Which change belongs to which player in which match; a period's change
    # belongs to every match of the period the player played in.
    change_of: dict[tuple[str, str], tuple[Change, str, tuple[str, ...]]] = {}
    for event in events:
        for c in event.changes:
            for mid in event.matches:
                change_of[(mid, c.player)] = (c, event.key, event.matches)
    # A change is marked with its period only where it spans several of the player's matches.
    in_event: Counter[tuple[str, str]] = Counter()
    for m in matches:
        for name in m.players:
            in_event[(change_of[(m.id, name)][1], name)] += 1
    return ({name: change_of[(m.id, name)] for name in m.players} for m in matches), in_event


class LineMaker:
    """What every line of a league is made with: its system's texts, tiers and formulas."""

    def __init__(self, rated: RatedLeague, links: dict[str, Link]) -> None:
        config = rated.league.config
        system = config.system
        self.links = links
        # Bound once: called for every line of a million-match league.
        self.describe, self.result, self.outcome = system.describe, system.result, system.outcome
        self.tier_of = config.tier_of if config.tiers else None     # no tiers: every line's is None
        # tier_of as one bisect over the lower bounds, where they ascend and are numbers: the
        # last tier a rating reaches is then the last of those at or below it.
        bounds = [t.min_rating for t in config.tiers]
        ascending = all(isinstance(b, (int, float)) and b == b for b in bounds) and bounds == sorted(bounds)
        self.bounds = bounds if config.tiers and ascending else None
        self.tiers: list[Tier | None] = [None, *config.tiers]
        self.integer = system.integer_ratings
        # A big league's match rows show no formula (model/scale.py): none is written out.
        self.big = is_big(rated)
        self.formulas = not self.big
        # One copy of each short text many lines say alike ("win, 3 points", "3–1"), not one a line.
        self.texts: dict[str, str] = {}


def event_lines(rated: RatedLeague, make: LineMaker) -> tuple[Iterator[Made], bool]:
    """Each match's lines from its events' changes (any events); whether some change spans
    several of a player's matches (a period)."""
    changes_of, in_event = _match_changes(rated)

    def made() -> Iterator[Made]:
        link, one = make.links.__getitem__, make.texts.setdefault
        describe, result, outcome, tier_of = make.describe, make.result, make.outcome, make.tier_of
        formulas, integer = make.formulas, make.integer
        for m, found in zip(rated.league.matches, changes_of):
            lines = []
            event_key = ""
            event_matches: tuple[str, ...] = ()
            for i, (name, entry) in enumerate(zip(m.players, m.entries)):
                c, event_key, event_matches = found[name]
                terms = c.terms         # shared with the change, not copied: a million lines in big leagues
                details, score = describe(entry), result(m, i)
                lines.append(MatchLine(
                    link(name), one(details, details), outcome(m, i), c.before, c.after, terms,
                    tier_of(c.after) if tier_of else None,
                    formula(terms, c.before, c.after, integer) if formulas else "", entry.get("team"),
                    event_key if in_event[(event_key, name)] > 1 else None, one(score, score)))
            yield m, lines, event_key, event_matches

    return made(), any(n > 1 for n in in_event.values())


class TableLines:
    """Every line of a league whose rating events are one match each, read from its columns
    when asked. A match's rows are its players in order (row ``offsets[k] + i`` is line i
    of match k) except for the matches in ``odd``, whose rows are listed."""

    def __init__(self, rated: RatedLeague, table: EventTable, make: LineMaker) -> None:
        self.matches = rated.league.matches
        self.table, self.make = table, make
        # The columns a line reads, bound once: a line is made for every row a page shows.
        self.after_column, self.player_column = table.after, table.player
        self.offsets: list[int] = table.offsets.tolist()
        self.link_at = [make.links[name] for name in table.names]
        # The entries live as long as the league's matches, so their ids name them all the while.
        self.described: dict[int, str] = {}
        self.odd: dict[int, list[int]] = {}
        if table.listed:        # the kernel made the rows the listed players (events.py): none to compare
            return
        names, offsets, matches = table.names, self.offsets, self.matches
        for lo in range(0, len(matches), PAGE):
            hi = min(len(matches), lo + PAGE)
            r0, r1 = offsets[lo], offsets[hi]
            who = [names[p] for p in table.player[r0:r1].tolist()]
            chunk = matches[lo:hi]
            # Checked a page at a time in C: the rows are the players as the matches list them,
            # each event as many rows as its match has players.
            if who == list(chain.from_iterable(m.players for m in chunk)) and all(
                    offsets[k + 1] - offsets[k] == len(m.players) for k, m in enumerate(chunk, lo)):
                continue
            for k, m in enumerate(chunk, lo):
                a, b = offsets[k] - r0, offsets[k + 1] - r0
                if who[a:b] != list(m.players):
                    # As the changes by player: the last of a player's rows in the event.
                    row_of = {who[j]: r0 + j for j in range(a, b)}
                    self.odd[k] = [row_of[name] for name in m.players]

    @property
    def aligned(self) -> bool:
        """Whether row r is the r-th line of the league."""
        return not self.odd

    def row(self, k: int, i: int) -> int:
        rows = self.odd.get(k)
        return self.offsets[k] + i if rows is None else rows[i]

    def after(self, k: int, i: int) -> float:
        """The rating after of line i of match k, as the line holds it."""
        return self._after_at(self.row(k, i))

    def _after_at(self, r: int) -> float:
        value = self.after_column[r]
        return value.item() if isinstance(value, np.generic) else value

    def match_lines(self, k: int) -> MatchLines:
        """The lines of match k, each made when read."""
        return MatchLines(self, k)

    def lines(self, k: int) -> list[MatchLine]:
        """Every line of match k, made now."""
        return [self.line(k, i) for i in range(len(self.matches[k].players))]

    def held_lines(self, outcomes: np.ndarray | None = None, start: int = 0, stop: int | None = None
                   ) -> Iterator[list[MatchLine]]:
        """``lines`` of every match in history order (of matches ``start:stop`` only, where
        given), made a page of matches at a time: each column's rows of the page read as Python
        values by one tolist, not a row at a time. ``outcomes``: each row's outcome code
        (``System.outcome_codes``), where the rows are the lines; else the system's ``outcome``
        is asked line by line."""
        table, matches, offsets, odd, after_column = self.table, self.matches, self.offsets, self.odd, self.after_column
        texts = (*OUTCOMES, None)
        made = self._made
        end = len(matches) if stop is None else stop
        for lo in range(start, end, PAGE):
            hi = min(end, lo + PAGE)
            r0, r1 = offsets[lo], offsets[hi]
            befores = table.befores(r0, r1)
            afters = (after_column[r0:r1].tolist() if isinstance(after_column, np.ndarray)
                      else [self._after_at(r) for r in range(r0, r1)])
            who = self.player_column[r0:r1].tolist()
            codes = outcomes[r0:r1].tolist() if outcomes is not None else None
            shown = self._page_formulas(lo, hi, r0, r1, befores, afters)
            for k in range(lo, hi):
                m = matches[k]
                rows = odd.get(k) or range(offsets[k], offsets[k] + len(m.players))
                yield [made(m, k, i, r, befores[r - r0], afters[r - r0], who[r - r0],
                            texts[codes[r - r0]] if codes is not None else self.make.outcome(m, i),
                            shown[r - r0] if shown is not None else None)
                       for i, r in enumerate(rows)]

    def _page_formulas(self, lo: int, hi: int, r0: int, r1: int, befores: list[Any], afters: list[Any]
                       ) -> list[str] | None:
        """``formula`` of every row r0:r1 (the lines of matches lo:hi), each term's column read
        by one tolist, not a ``RowTerms`` lookup a term a line (two thirds of the lines' time);
        None where no formula is written (a big league) or the system has none (all "")."""
        terms = self.table.terms
        if not self.make.formulas or "k" not in terms or "score" not in terms or "expected" not in terms:
            return None
        offsets = self.offsets
        event_of: list[int] | None = None
        columns: list[Any] = []
        for name in FORMULA_TERMS:
            term = terms.get(name)
            if term is None:
                columns.append(repeat(None))
                continue
            a, b = (lo, hi) if term.per_event else (r0, r1)
            # As RowTerms reads a value: a number's Python value, NaN None where it means none.
            if term.numeric:
                values = term.values[a:b].tolist()
                if term.none_at_nan:
                    values = [None if v != v else v for v in values]
            else:
                values = list(term.values[a:b])
            if term.per_event:      # row r of match k reads match k's value
                if event_of is None:
                    event_of = [k - lo for k in range(lo, hi) for _ in range(offsets[k], offsets[k + 1])]
                values = [values[j] for j in event_of]
            columns.append(values)
        integer = self.make.integer
        return [written_formula(_as_number(k, "k"), _as_number(s, "score"), _as_number(e, "expected"),
                                weight, margin, reverted, before, after, integer)
                for k, s, e, weight, margin, reverted, before, after in zip(*columns, befores, afters)]

    def line(self, k: int, i: int) -> MatchLine:
        """Line i of match k, as ``event_lines`` makes it from the match's changes."""
        m = self.matches[k]
        r = self.row(k, i)
        return self._made(m, k, i, r, self.table.before_at(r), self._after_at(r), self.player_column[r],
                          self.make.outcome(m, i))

    def _made(self, m: Match, k: int, i: int, r: int, before: Any, after: Any, player: int,
              outcome: str | None, shown: str | None = None) -> MatchLine:
        """Line i of match k at row r, its rating before and after, player and outcome read;
        its formula too where ``shown`` is given (``_page_formulas``)."""
        make = self.make
        entry = m.entries[i]
        terms = RowTerms(self.table, r, k)
        # One text per entry object: validation shares an entry among every player with the
        # same fields (load/validate.py), and describe reads the entry alone.
        one = make.texts.setdefault
        details = self.described.get(id(entry))
        if details is None:
            details = one(text := make.describe(entry), text)
            if len(self.described) < DESCRIBED:
                self.described[id(entry)] = details
        score = make.result(m, i)
        # A rating after is a number here (a column's), NaN reaching no tier as in tier_of.
        bounds = make.bounds
        tier = (make.tiers[bisect_right(bounds, after)] if after == after else None) if bounds else (
            make.tier_of(after) if make.tier_of else None)
        return MatchLine(
            self.link_at[player], details, outcome, before, after, terms, tier,
            shown if shown is not None else formula(terms, before, after, make.integer) if make.formulas else "",
            entry.get("team"), None, one(score, score))


    def shown(self, k: int, i: int) -> tuple[int | None, str, float | None, float]:
        """What a player's games list shows of line i of match k, as ``line`` makes it: its team,
        ``MatchLine.result_text``, rating before and after; without the line's terms, tier and
        formula (output/rows.py game_rows shows 20 a page)."""
        make = self.make
        m = self.matches[k]
        r = self.row(k, i)
        entry = m.entries[i]
        text = f"{make.outcome(m, i) or ''} {make.result(m, i)}".strip()
        if not text:
            details = self.described.get(id(entry))
            text = make.describe(entry) if details is None else details
        return entry.get("team"), text, self.table.before_at(r), self._after_at(r)


class HeldLines:
    """A league's lines held where it holds them (scale.lines_held), read as ``TableLines`` reads
    them (the views' ``held`` and ``at``): each match's made by ``held_lines`` when a page first
    reads them, or every match's at once (``hold``) where every page is made. A rebuild that
    keeps most pages makes a few hundred matches' lines, not the whole league's (1.7 s of a
    100,000-match rebuild)."""

    __slots__ = ("source", "outcomes", "made", "every")

    def __init__(self, source: TableLines, outcomes: np.ndarray | None) -> None:
        self.source, self.outcomes = source, outcomes
        self.made: dict[int, list[MatchLine]] = {}
        self.every: list[list[MatchLine]] | None = None

    def hold(self) -> None:
        """Every match's lines made now, a page of matches at a time."""
        if self.every is None:
            self.every = list(self.source.held_lines(self.outcomes))
            self.made = {}

    def match_lines(self, k: int) -> list[MatchLine]:
        if self.every is not None:
            return self.every[k]
        lines = self.made.get(k)
        if lines is None:
            lines = self.made[k] = next(self.source.held_lines(self.outcomes, k, k + 1))
        return lines

    def line(self, k: int, i: int) -> MatchLine:
        """Line i of match k: the held one, or where the match's are not made, that line alone
        (``TableLines.line``; the careers' links read the first game's of every player)."""
        lines = self.every[k] if self.every is not None else self.made.get(k)
        return lines[i] if lines is not None else self.source.line(k, i)

    def after(self, k: int, i: int) -> float:
        """Line i's rating after, read from the columns as the line holds it."""
        return self.source.after(k, i)


class MatchLines(Sequence[MatchLine]):
    """A match's lines as a list reads, each made from the columns when read (``TableLines``);
    nothing of them is held."""

    __slots__ = ("source", "k")

    def __init__(self, source: TableLines, k: int) -> None:
        self.source = source
        self.k = k

    def __len__(self) -> int:
        return len(self.source.matches[self.k].players)

    @overload
    def __getitem__(self, i: int) -> MatchLine: ...

    @overload
    def __getitem__(self, i: slice) -> list[MatchLine]: ...

    def __getitem__(self, i: int | slice) -> MatchLine | list[MatchLine]:
        if isinstance(i, int) and 0 <= i < len(self.source.matches[self.k].players):
            return self.source.line(self.k, i)
        places = range(len(self))[i]        # a list's bounds, negative indices and slices
        if isinstance(places, range):
            return [self.source.line(self.k, j) for j in places]
        return self.source.line(self.k, places)

    def __iter__(self) -> Iterator[MatchLine]:
        line, k = self.source.line, self.k
        return (line(k, j) for j in range(len(self)))

    def players_and_teams(self) -> tuple[list[Link], list[int | None]]:
        """Every line's player and team, without making the lines (a lobby's 100)."""
        m = self.source.matches[self.k]
        links = self.source.make.links
        return [links[name] for name in m.players], [e.get("team") for e in m.entries]

    def after(self, i: int) -> float:
        """Line i's rating after, without making the line."""
        return self.source.after(self.k, i)

    def shown(self, i: int) -> tuple[int | None, str, float | None, float]:
        """Line i's team, result text, rating before and after, without making the line."""
        return self.source.shown(self.k, i)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Sequence) and list(self) == list(other)

    def __repr__(self) -> str:
        return repr(list(self))
