"""`sitegen diff`: what a change to the match files does to the ratings.

Both revisions are rated by the build's own pipeline (sitegen.commands.revision); this
module compares the two results league by league (matches added, removed,
changed or moved, and every player whose rating, rank or tier differs) and
writes the comparison as text, Markdown (a GitHub job summary), CSV or JSON.
Ratings are compared as the data files write them (lunaro whole, others to 6
decimals): a difference standings.csv cannot show is no change.
"""

from __future__ import annotations

import csv
import io
import json
import re
import tempfile
import unicodedata
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

from sitegen.load.config import LeagueConfig
from sitegen.model.ledger import fmt_float, iso
from sitegen.model.history import RatedLeague
from sitegen.load.names import Lookalikes, Suggestion
from sitegen.output.escape import markdown as md, visible as plain
from sitegen.load.problems import plural
from sitegen.rating.base import Match
from sitegen.load.site import where_to_run
from sitegen.commands.revision import (WORKING_TREE, InvalidRevision, Revision, RevisionError, has_matches,
                       rated_leagues, repository, resolve)

__all__ = ["RevisionError", "InvalidRevisions", "Diff", "diff_revisions", "compare", "FORMATS", "render"]

_MISSING = object()


# --- the comparison ------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Side:
    """A player's line of one revision's standings."""

    rating: float | int        # as standings.csv writes it: lunaro whole, others rounded to 6 decimals
    rank: int
    tier: str | None
    games: int


@dataclass(frozen=True, slots=True)
class PlayerDiff:
    player: str
    before: Side | None        # None: not rated before (a new player)
    after: Side | None         # None: no longer rated

    @property
    def change(self) -> str:
        return "added" if self.before is None else "removed" if self.after is None else "changed"

    @property
    def delta(self) -> float | int | None:
        if self.before is None or self.after is None:
            return None
        d = self.after.rating - self.before.rating
        # From the rounded ratings, so before + delta = after in every format.
        return d if isinstance(d, int) else round(d, 6) + 0.0


@dataclass(frozen=True, slots=True)
class MatchDiff:
    id: str
    change: str                # added, removed, changed, or moved (only its file differs)
    fields: tuple[str, ...]    # what differs: played, players, players.goals, challenger, notes, file
    before: Match | None
    after: Match | None

    @property
    def played(self) -> datetime:
        return (self.after or self.before).played

    def results(self, lg: "LeagueDiff", names: Callable[[str], str] = str) -> tuple[str | None, str | None]:
        """(before, after): the match's players and result in each revision, in its league's
        system then; None where the match does not exist. ``names`` escapes each name."""
        return (self.before and result(self.before, lg.before.system, names),
                self.after and result(self.after, lg.after.system, names))


@dataclass(frozen=True, slots=True)
class LeagueDiff:
    slug: str
    before: LeagueConfig | None
    after: LeagueConfig | None
    settings: tuple[str, ...]  # league.toml entries that differ: name, system, params.k, tiers, description
    matches: tuple[MatchDiff, ...]
    players: tuple[PlayerDiff, ...]
    # Every player rated before, with their games: what a new name may have been meant to be.
    known: Mapping[str, int] = field(default_factory=dict)

    @property
    def change(self) -> str | None:
        """The league itself: added, removed, changed (its league.toml), or None."""
        if self.before is None:
            return "added"
        if self.after is None:
            return "removed"
        return "changed" if self.settings else None

    @property
    def config(self) -> LeagueConfig:
        return self.after or self.before

    @property
    def has_tiers(self) -> bool:
        return any(c is not None and c.tiers for c in (self.before, self.after))

    def counts(self) -> dict[str, dict[str, int]]:
        return {
            "matches": _count((m.change for m in self.matches), MATCH_CHANGES),
            "players": _count((p.change for p in self.players), PLAYER_CHANGES),
        }


LEAGUE_CHANGES = ("added", "removed", "changed")
MATCH_CHANGES = ("added", "removed", "changed", "moved")
PLAYER_CHANGES = ("changed", "added", "removed")


def _count(changes: Iterator[str], order: tuple[str, ...]) -> dict[str, int]:
    counts = dict.fromkeys(order, 0)
    for c in changes:
        counts[c] += 1
    return counts


@dataclass(frozen=True, slots=True)
class Diff:
    before: Revision
    after: Revision
    leagues: tuple[LeagueDiff, ...]     # leagues with anything to report, by slug

    def totals(self) -> dict[str, dict[str, int]]:
        totals = {"leagues": _count((lg.change for lg in self.leagues if lg.change), LEAGUE_CHANGES)}
        for kind, order in (("matches", MATCH_CHANGES), ("players", PLAYER_CHANGES)):
            totals[kind] = {c: sum(lg.counts()[kind][c] for lg in self.leagues) for c in order}
        return totals


class InvalidRevisions(Exception):
    """One or both revisions hold invalid match files."""

    def __init__(self, invalid: list[InvalidRevision]):
        self.invalid = invalid
        super().__init__("; ".join(str(i) for i in invalid))

    def lines(self) -> list[str]:
        return [f"at {i.revision.label}: {p}" for i in self.invalid for p in i.problems]


def diff_revisions(root: Path, before: str, after: str | None = None) -> Diff:
    """Rate the site at ``before`` and at ``after`` (None: the files on disk) and compare.

    Raises RevisionError (a usage error: no git, no repository, unknown revision)
    before rating anything, and InvalidRevisions with every problem of both sides.
    """
    repo = repository(root)
    revisions = (resolve(repo, before), WORKING_TREE if after is None else resolve(repo, after))
    if not any(has_matches(repo, revision) for revision in revisions):
        # Run from a subfolder, both sides would be empty sites: "no changes" would be a lie.
        raise RevisionError(f"no matches/ folder in {root} at {revisions[0].label} or "
                            f"{revisions[1].label}; {where_to_run(root)}")
    rated: list[dict[str, RatedLeague]] = []
    invalid: list[InvalidRevision] = []
    with tempfile.TemporaryDirectory(prefix="sitegen-diff-") as tmp:
        for i, revision in enumerate(revisions):
            try:
                rated.append(rated_leagues(repo, revision, Path(tmp) / f"r{i}"))
            except InvalidRevision as exc:
                invalid.append(exc)
    if invalid:
        raise InvalidRevisions(invalid)
    return compare(revisions[0], rated[0], revisions[1], rated[1])


def compare(rev_a: Revision, a: Mapping[str, RatedLeague], rev_b: Revision,
            b: Mapping[str, RatedLeague]) -> Diff:
    leagues = []
    for slug in sorted(a.keys() | b.keys()):
        lg = _league_diff(slug, a.get(slug), b.get(slug))
        if lg.change or lg.matches or lg.players:
            leagues.append(lg)
    return Diff(rev_a, rev_b, tuple(leagues))


def _league_diff(slug: str, a: RatedLeague | None, b: RatedLeague | None) -> LeagueDiff:
    ca = a.league.config if a else None
    cb = b.league.config if b else None
    keys = frozenset(k for c in (ca, cb) if c for k in c.system.match_keys)
    ma = {m.id: m for m in a.league.matches} if a else {}
    mb = {m.id: m for m in b.league.matches} if b else {}
    matches = []
    for mid in ma.keys() | mb.keys():
        before, after = ma.get(mid), mb.get(mid)
        if before is None:
            matches.append(MatchDiff(mid, "added", (), None, after))
        elif after is None:
            matches.append(MatchDiff(mid, "removed", (), before, None))
        else:
            fields = _match_fields(before, after, keys)
            if fields:
                change = "moved" if fields == ("file",) else "changed"
                matches.append(MatchDiff(mid, change, fields, before, after))
    matches.sort(key=lambda m: (m.played, m.id))

    sa = _sides(a) if a else {}
    sb = _sides(b) if b else {}
    players = []
    for name in sa.keys() | sb.keys():
        before, after = sa.get(name), sb.get(name)
        if before is None or after is None or _shown(before) != _shown(after):
            players.append(PlayerDiff(name, before, after))
    players.sort(key=_player_order)
    settings = _settings(ca, cb) if ca and cb else ()
    return LeagueDiff(slug, ca, cb, settings, tuple(matches), tuple(players),
                      {name: side.games for name, side in sa.items()})


def _shown(side: Side) -> tuple:
    return side.rating, side.rank, side.tier


def _player_order(p: PlayerDiff) -> tuple:
    """Biggest change first: rating delta, then rank move, then name; new, then gone, players
    after them, best rated first, as a leaderboard lists them."""
    if p.before is None:
        return 1, -p.after.rating, 0, p.player
    if p.after is None:
        return 2, -p.before.rating, 0, p.player
    return 0, -abs(p.delta), -abs(p.after.rank - p.before.rank), p.player


def _sides(rated: RatedLeague) -> dict[str, Side]:
    config = rated.league.config
    integer = config.system.integer_ratings
    out = {}
    for r in rated.standings:
        s = r.standing
        tier = config.tier_of(s.rating)
        value = int(s.rating) if integer else round(s.rating, 6) + 0.0
        out[s.player] = Side(value, r.rank, tier.name if tier else None, s.games)
    return out


def _match_fields(a: Match, b: Match, keys: frozenset[str]) -> tuple[str, ...]:
    fields = []
    if a.played != b.played:
        fields.append("played")
    if a.players != b.players:
        fields.append("players")
    entries_b = dict(zip(b.players, b.entries))
    changed = set()
    for name, ea in zip(a.players, a.entries):
        eb = entries_b.get(name)
        if eb is not None:
            changed.update(k for k in ea.keys() | eb.keys() if ea.get(k, _MISSING) != eb.get(k, _MISSING))
    fields.extend(f"players.{k}" for k in sorted(changed))
    # Only the keys a curator writes (arena's derived team sizes follow from players.team).
    for key in sorted(keys & (a.extra.keys() | b.extra.keys())):
        if a.extra.get(key, _MISSING) != b.extra.get(key, _MISSING):
            fields.append(key)
    if a.notes != b.notes:
        fields.append("notes")
    if a.file != b.file:
        fields.append("file")
    return tuple(fields)


def _settings(a: LeagueConfig, b: LeagueConfig) -> tuple[str, ...]:
    out = []
    if a.name != b.name:
        out.append("name")
    if a.system_name != b.system_name:
        out.append("system")
    for key in sorted(a.params.keys() | b.params.keys()):
        if a.params.get(key, _MISSING) != b.params.get(key, _MISSING):
            out.append(f"params.{key}")
    if [(t.min_rating, t.name) for t in a.tiers] != [(t.min_rating, t.name) for t in b.tiers]:
        out.append("tiers")
    # Starting ratings ([initial]) move every rating after them, as a parameter does.
    for name in sorted(a.system.starts.keys() | b.system.starts.keys()):
        if a.system.starts.get(name, _MISSING) != b.system.starts.get(name, _MISSING):
            out.append(f"initial.{name}")
    if a.description != b.description:
        out.append("description")
    return tuple(out)


# --- wording shared by text and Markdown ------------------------------------------------

def _counted(kind: str, counts: Mapping[str, int]) -> str:
    """{"added": 3, "changed": 1} of matches -> "3 matches added, 1 changed" ('' if all 0)."""
    noun = {"leagues": "league", "matches": "match", "players": "player"}[kind]
    parts = [(n, change) for change, n in counts.items() if n]
    if not parts:
        return ""
    (n, first), rest = parts[0], parts[1:]
    return ", ".join([f"{plural(n, noun)} {first}"] + [f"{m} {c}" for m, c in rest])


def summary(totals: Mapping[str, Mapping[str, int]]) -> str:
    return "; ".join(p for p in (_counted(k, totals[k]) for k in totals) if p)


def _when(dt: datetime) -> str:
    """2024-05-01 17:30 UTC: the zone said, as the time is shown in UTC whatever offset the
    match file gave."""
    dt = dt.astimezone(timezone.utc)
    return f"{dt:%Y-%m-%d %H:%M}" + (f":{dt:%S}" if dt.second else "") + " UTC"


# --- a match's players and result, compactly -------------------------------------------------

def result(m: Match, system: Any, names: Callable[[str], str] = str) -> str:
    """Who played and how it ended, in one line, by the league's system (its ``summary``): elo
    "Ann 1–0 Bo" (½–½ a draw), lunaro "Ann 20–3 Bo" (goals), placement "1. Ann, 2. Bo, 3. Cy, +2
    more", glicko2 "Ann 310, Bo 290" (scores, highest first), arena "team 1 (Ann, Bo) beat team 2
    (Cy, Dan); kills 25–18". Lobbies and teams show their first three. ``names`` escapes each name;
    the rest of the line is fixed text and numbers."""
    return system.summary(m, [names(n) for n in m.players])


def _rating(value: float | int | None) -> str:
    if value is None:
        return "-"
    return str(value) if isinstance(value, int) else f"{value:.2f}"


def _delta(d: float | int | None) -> str:
    if d is None:
        return ""
    if d == 0:
        return "0"
    if isinstance(d, int):
        return f"{d:+d}"
    text = f"{d:+.2f}"
    if float(text) == 0:             # a ripple far down the history: show it, not "+0.00"
        text = f"{d:+.6f}".rstrip("0")
    return text


def _pair(a: Any, b: Any, arrow: str, missing: str = "-") -> str:
    """"a -> b", or a alone when both are the same."""
    a = missing if a is None else str(a)
    b = missing if b is None else str(b)
    return a if a == b else f"{a} {arrow} {b}"


def _match_detail(lg: LeagueDiff, m: MatchDiff, arrow: str,
                  names: Callable[[str], str]) -> tuple[str, str, str, str]:
    """(what changed, played, players and result, file) of a match; only names and file are
    left to escape, the result's names escaped by ``names``."""
    what = m.change if m.change != "changed" else "changed: " + ", ".join(m.fields)
    a, b = m.before or m.after, m.after or m.before      # an added or removed match: its one side
    ra, rb = m.results(lg, names)
    return (what, _pair(_when(a.played), _when(b.played), arrow), _pair(ra or rb, rb or ra, arrow),
            _pair(a.file, b.file, arrow))


NOTHING = "the same matches and the same ratings in every league."


def _rank_only(p: PlayerDiff) -> bool:
    """Rating and tier as before: only others passing or falling behind moved the rank."""
    a, b = p.before, p.after
    return a is not None and b is not None and a.rating == b.rating and a.tier == b.tier


def _players(lg: LeagueDiff) -> tuple[list[PlayerDiff], list[PlayerDiff]]:
    """(rating or tier changed, new and gone players, in the comparison's order;
    rank-only moves, as the leaderboard now lists them), so the second can be folded away."""
    moved = sorted((p for p in lg.players if _rank_only(p)), key=lambda p: (p.after.rank, p.player))
    return [p for p in lg.players if not _rank_only(p)], moved


def _player_notes(lg: LeagueDiff) -> dict[str, str]:
    """A new player said to be new, with the rated name it may misspell; a gone one said gone."""
    look = Lookalikes(lg.known) if lg.known and any(p.before is None for p in lg.players) else None
    notes = {}
    for p in lg.players:
        if p.before is None:
            hint: Suggestion | None = look.suggest(p.player, p.after.games) if look else None
            notes[p.player] = "new player" + (f"; {hint}" if hint else "")
        elif p.after is None:
            notes[p.player] = "removed"
    return notes


# --- text --------------------------------------------------------------------------------

MARK = {"added": "+", "removed": "-", "changed": "~", "moved": ">"}


def _char_width(c: str) -> int:
    """Columns a terminal gives the character: 0 for marks, invisible format characters and
    the vowels and finals of Hangul syllables spelt in jamo, 2 for wide and full-width ones."""
    if unicodedata.category(c) in ("Mn", "Me", "Cf") or "\u1160" <= c <= "\u11ff" or "\ud7b0" <= c <= "\ud7ff":
        return 0
    return 2 if unicodedata.east_asian_width(c) in "WF" else 1


def _width(text: str) -> int:
    return sum(_char_width(c) for c in text)


def _wrapped(items: list[str], width: int = 100) -> list[str]:
    """Items joined by ", " on lines of at most ``width`` columns, each line led by "  = "."""
    lines: list[str] = []
    line = ""
    for item in items:
        if line and _width(line) + 2 + _width(item) > width - 4:
            lines.append(f"  = {line},")
            line = item
        else:
            line = f"{line}, {item}" if line else item
    return lines + [f"  = {line}"] if line else lines


def _columns(rows: list[list[str]], right: set[int] = frozenset()) -> list[str]:
    widths = [max(_width(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = []
    for r in rows:
        cells = []
        for i, (cell, w) in enumerate(zip(r, widths)):
            pad = " " * (w - _width(cell))
            cells.append(pad + cell if i in right else cell + pad)
        out.append("  ".join(cells).rstrip())
    return out


def text(diff: Diff) -> str:
    """For a terminal. Every line starts with fixed text or a change mark (+ - ~ >, = for a
    rank-only move), never with a name, so no name can pose as another line (or as a CI
    workflow command). Columns are padded by display width: wide characters take two."""
    a, b = diff.before.label, diff.after.label
    if not diff.leagues:
        return f"No changes from {plain(a)} to {plain(b)}: {NOTHING}\n"
    lines = [f"Ratings at {plain(a)} -> {plain(b)}"]
    lines.append(f"Total: {summary(diff.totals())}.")
    for lg in diff.leagues:
        config = lg.config
        head = f"== {lg.slug}: {plain(config.name)} ({config.system_name})"
        if lg.change in ("added", "removed"):
            head += f", league {lg.change}"
        lines += ["", head]
        if lg.settings:
            lines.append(f"league.toml changed: {', '.join(lg.settings)}")
        counts = lg.counts()
        if lg.matches:
            lines.append(_counted("matches", counts["matches"]))
            rows = []
            for m in lg.matches:
                what, played, outcome, file = _match_detail(lg, m, "->", plain)
                rows.append([MARK[m.change], plain(m.id), plain(what), played, outcome, plain(file)])
            lines += ["  " + r for r in _columns(rows)]
        if lg.players:
            lines.append(_counted("players", counts["players"]))
            changed, moved = _players(lg)
            notes = _player_notes(lg)
            if changed:
                befores = [_rating(p.before and p.before.rating) for p in changed]
                wide = max(_width(b) for b in befores)
                rows = [["", "player", "rating", "delta", "rank", "tier" if lg.has_tiers else "",
                         "note" if notes else ""]]
                for p, before in zip(changed, befores):
                    a, b = p.before, p.after
                    rows.append([
                        MARK[p.change], plain(p.player),
                        " " * (wide - _width(before)) + f"{before} -> {_rating(b and b.rating)}", _delta(p.delta),
                        _pair(a and a.rank, b and b.rank, "->"),
                        plain(_pair(a and a.tier, b and b.tier, "->")) if lg.has_tiers else "",
                        plain(notes.get(p.player, "")),
                    ])
                lines += ["  " + r for r in _columns(rows, right={3})]
            if moved:
                lines.append(f"{plural(len(moved), 'player')} moved only in rank, rating unchanged:")
                lines += _wrapped([f"{plain(p.player)} {p.before.rank} -> {p.after.rank}" for p in moved])
        elif lg.matches:
            lines.append("no player's rating, rank or tier changed")
    return "\n".join(lines) + "\n"


# --- Markdown ------------------------------------------------------------------------------

MD_LIMIT = 1_000_000        # GitHub refuses a step summary above 1 MiB (1,048,576 bytes)
MD_RESERVE = 20_000         # for headings and notes written after the rows stop
SHOWN = 15                  # a longer table shows its first FOLD rows, the rest folded
FOLD = 10


class _Summary:
    """The Markdown lines so far and their size. Headings and notes are always written;
    table rows only while they fit under the limit, the rest counted for a note."""

    def __init__(self, limit: int):
        self.lines: list[str] = []
        self.size = 0
        self.room = limit - MD_RESERVE
        self.omitted = 0

    def add(self, *lines: str) -> None:
        for line in lines:
            self.lines.append(line)
            self.size += len(line.encode("utf-8")) + 1

    def fits(self, row: list[str]) -> bool:
        """Whether a table row still fits; once one does not, no later row does."""
        if self.omitted or self.size + len(_row(row).encode("utf-8")) + 1 > self.room:
            self.omitted += 1
            return False
        return True

    def table(self, header: list[str], rows: list[list[str]]) -> int:
        """The rows that fit, under the header; returns how many did not."""
        shown = 0
        for row in rows:
            if not self.fits(row):
                self.omitted += len(rows) - shown - 1      # fits() counted the first of them
                break
            if not shown:
                self.add(_row(header), "|" + "|".join("---" for _ in header) + "|")
            self.add(_row(row))
            shown += 1
        return len(rows) - shown


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _md_table(out: _Summary, header: list[str], rows: list[list[str]], noun: str) -> None:
    """A table; past SHOWN rows, the first FOLD shown and the rest in a <details> block."""
    left = out.table(header, rows[:FOLD] if len(rows) > SHOWN else rows)
    if len(rows) > SHOWN:
        rest = rows[FOLD:]
        if out.fits(rest[0]):
            out.add("", f"<details><summary>{len(rest)} more {noun}</summary>", "")
            left += out.table(header, rest)
            out.add("", "</details>")
        else:
            out.omitted += len(rest) - 1
            left += len(rest)
    if left:
        out.add("", f"*{left} of {len(rows)} {noun} left out: this summary stays under 1 MiB.*")


def _md_folded(out: _Summary, summary: str, header: list[str], rows: list[list[str]], noun: str) -> None:
    """A table folded whole into a <details> block whose summary says what it holds."""
    left = len(rows)
    if out.fits(rows[0]):
        out.add(f"<details><summary>{summary}</summary>", "")
        left = out.table(header, rows)
        out.add("", "</details>")
    else:
        out.omitted += len(rows) - 1       # fits() counted the first
    if left:
        out.add("", f"*{left} of {len(rows)} {noun} left out: this summary stays under 1 MiB.*")


def _code_span(text: str) -> str:
    """``text`` as a code span, which GitHub shows exactly as written: no markup, no link and
    no character reference is read inside one, so nothing but control characters needs escaping.
    The fence is one backtick longer than the longest run of backticks inside; a space pads text
    that starts or ends with a backtick, or with a space at both ends (one is stripped each side)."""
    text = plain(text)
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text[:1] == "`" or text[-1:] == "`" or (text[:1] == text[-1:] == " " and text.strip(" ")) else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _md_revision(r: Revision) -> str:
    """A revision's label as GitHub should show it: the name as given (HEAD~1, a branch) in a
    code span, so it reads the same in the Markdown source and on the page, then the short SHA.
    Character references would show as such in the source (HEAD&#126;1) and inside a code span."""
    short = r.commit and r.commit[:7]
    if r.label in ("the working tree", short):          # fixed text, or a short SHA (hex)
        return r.label
    assert r.label == f"{r.name} ({short})", r.label
    return f"{_code_span(r.name)} ({short})"


def _md_note(note: str) -> str:
    """"new player" in bold, so a new name stands out among the changes."""
    if note.startswith("new player"):
        return "**new player**" + md(note[len("new player"):])
    return md(note)


def markdown(diff: Diff, limit: int = MD_LIMIT) -> str:
    """For a GitHub Actions job summary (or a pull request comment)."""
    a, b = _md_revision(diff.before), _md_revision(diff.after)
    if not diff.leagues:
        return f"No changes from {a} to {b}: {NOTHING}\n"
    out = _Summary(limit)
    out.add(f"## Ratings: {a} → {b}", "", f"**Total:** {md(summary(diff.totals()))}.")
    for lg in diff.leagues:
        config = lg.config
        head = f"### {md(config.name)} (`{lg.slug}`, {config.system_name})"
        if lg.change in ("added", "removed"):
            head += f": league {lg.change}"
        counts = lg.counts()
        facts = []
        if lg.settings:
            facts.append(f"**league.toml** changed: {md(', '.join(lg.settings))}")
        if lg.matches:
            facts.append(f"**Matches:** {_counted('matches', counts['matches'])}")
        facts.append(f"**Players:** {_counted('players', counts['players'])}" if lg.players
                     else "**Players:** no rating, rank or tier changed")
        out.add("", head, "", " · ".join(facts))
        if lg.matches:
            rows = []
            for m in lg.matches:
                what, played, outcome, file = _match_detail(lg, m, "→", md)
                rows.append([md(m.id), md(what), played, outcome, md(file)])
            out.add("")
            _md_table(out, ["Match", "Change", "Played", "Players and result", "File"], rows, "matches")
        changed, moved = _players(lg)
        if changed:
            notes = _player_notes(lg)
            header = (["Player", "Rating", "Δ", "Rank"] + (["Tier"] if lg.has_tiers else [])
                      + (["Note"] if notes else []))
            rows = []
            for p in changed:
                before, after = p.before, p.after
                rows.append([md(p.player),
                             f"{_rating(before and before.rating)} → {_rating(after and after.rating)}",
                             _delta(p.delta), _pair(before and before.rank, after and after.rank, "→")]
                            + ([md(_pair(before and before.tier, after and after.tier, "→"))]
                               if lg.has_tiers else [])
                            + ([_md_note(notes.get(p.player, ""))] if notes else []))
            out.add("")
            _md_table(out, header, rows, "players")
        if moved:
            header = ["Player", "Rating", "Rank"] + (["Tier"] if lg.has_tiers else [])
            rows = [[md(p.player), _rating(p.after.rating), f"{p.before.rank} → {p.after.rank}"]
                    + ([md(p.after.tier or "-")] if lg.has_tiers else []) for p in moved]
            out.add("")
            _md_folded(out, f"{plural(len(moved), 'player')} moved only in rank (rating unchanged)",
                       header, rows, "players")
    if out.omitted:
        out.add("", f"**{out.omitted} rows left out:** a job summary holds at most 1 MiB. "
                    "`sitegen diff --format csv` lists every change.")
    return "\n".join(out.lines) + "\n"


# --- CSV and JSON --------------------------------------------------------------------------

CSV_HEADER = ("league", "kind", "key", "change", "fields", "file_before", "file_after", "played_before",
              "played_after", "rating_before", "rating_after", "delta", "rank_before", "rank_after",
              "tier_before", "tier_after", "games_before", "games_after", "result_before", "result_after")


def _number(value: float | int | None) -> str:
    return "" if value is None else str(value) if isinstance(value, int) else fmt_float(value)


def _json_number(value: float | int | None) -> float | int | None:
    return value if value is None or isinstance(value, int) else round(value, 6) + 0.0


def _match_record(lg: LeagueDiff, m: MatchDiff) -> dict[str, Any]:
    a, b = m.before, m.after
    ra, rb = m.results(lg)
    return {
        "id": m.id, "change": m.change, "fields": list(m.fields),
        "file_before": a.file if a else None, "file_after": b.file if b else None,
        "played_before": iso(a.played) if a else None, "played_after": iso(b.played) if b else None,
        "result_before": ra, "result_after": rb,
    }


def _player_record(p: PlayerDiff) -> dict[str, Any]:
    a, b = p.before, p.after
    return {
        "player": p.player, "change": p.change,
        "rating_before": _json_number(a and a.rating), "rating_after": _json_number(b and b.rating),
        "delta": _json_number(p.delta),
        "rank_before": a and a.rank, "rank_after": b and b.rank,
        "tier_before": a and a.tier, "tier_after": b and b.tier,
        "games_before": a and a.games, "games_after": b and b.games,
    }


def to_csv(diff: Diff) -> str:
    """One row per league whose league.toml changed, per match and per player: CSV_HEADER."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(CSV_HEADER)
    blank = dict.fromkeys(CSV_HEADER, "")
    for lg in diff.leagues:
        if lg.change:
            writer.writerow({**blank, "league": lg.slug, "kind": "league", "key": lg.slug,
                             "change": lg.change, "fields": ";".join(lg.settings)}.values())
        for m in lg.matches:
            r = _match_record(lg, m)
            writer.writerow({**blank, "league": lg.slug, "kind": "match", "key": m.id, "change": m.change,
                             "fields": ";".join(m.fields),
                             **{k: r[k] or "" for k in ("file_before", "file_after", "played_before",
                                                        "played_after", "result_before",
                                                        "result_after")}}.values())
        for p in lg.players:
            a, b = p.before, p.after
            writer.writerow({
                **blank, "league": lg.slug, "kind": "player", "key": p.player, "change": p.change,
                "rating_before": _number(a and a.rating), "rating_after": _number(b and b.rating),
                "delta": _number(p.delta),
                "rank_before": a.rank if a else "", "rank_after": b.rank if b else "",
                "tier_before": (a.tier or "") if a else "", "tier_after": (b.tier or "") if b else "",
                "games_before": a.games if a else "", "games_after": b.games if b else "",
            }.values())
    return buf.getvalue()


def _revision_record(r: Revision) -> dict[str, Any]:
    return {"revision": r.name, "commit": r.commit, "label": r.label}


def to_json(diff: Diff) -> str:
    """One object: the two revisions, the totals and one object per league (keys in a fixed order)."""
    leagues = []
    for lg in diff.leagues:
        a, b = lg.before, lg.after
        leagues.append({
            "league": lg.slug, "name": lg.config.name, "system": lg.config.system_name,
            "change": lg.change, "settings": list(lg.settings),
            "name_before": a.name if a else None, "name_after": b.name if b else None,
            "system_before": a.system_name if a else None, "system_after": b.system_name if b else None,
            "counts": lg.counts(),
            "matches": [_match_record(lg, m) for m in lg.matches],
            "players": [_player_record(p) for p in lg.players],
        })
    doc = {"before": _revision_record(diff.before), "after": _revision_record(diff.after),
           "totals": diff.totals(), "leagues": leagues}
    return json.dumps(doc, ensure_ascii=False, indent=1) + "\n"


FORMATS = {"text": text, "markdown": markdown, "csv": to_csv, "json": to_json}


def render(diff: Diff, fmt: str) -> str:
    return FORMATS[fmt](diff)
