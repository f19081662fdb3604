"""Names that look like a misspelling of another player's: notes for `sitegen check` and `sitegen diff`.

Names are case-sensitive (docs/curators), so `kestrel` is a valid new player and never
an error. A curator still wants to hear about it. A name with at most RARE games in its
league is noted when another name is the same to a reader (case, accents, invisible
characters and spacing aside: `kestrel`, `Toru` for `Tōru`), or one typing slip (a letter
added, dropped, changed, or two neighbours swapped: `Kestral`) from a much more active name
of the league. One slip only: among the demo's 864 Formula 1 drivers, two slips already pair
real drivers (`Tony Crook`, `Tony Brooks`), one pairs none.
"""

from __future__ import annotations

import tomllib
import unicodedata
from collections import Counter
from collections.abc import Mapping
from itertools import chain
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sitegen.load.config import Roster
from sitegen.load.locate import locate
from sitegen.load.problems import Problem
from sitegen.rating.base import Match, System
from sitegen.rating.matchcolumns import column
from sitegen.load.validate import default_id, field_path, match_label

if TYPE_CHECKING:
    from sitegen.load.checked import Site

RARE = 2                # a name with this many games or fewer in its league is looked at
ACTIVE = 3              # a slip is noted only against a name with at least this many games ...
ACTIVE_FACTOR = 3       # ... and this many times as many as the rare name
SLIP_LENGTH = 5         # shorter names are one slip from too many others to mean anything

# Letters that Unicode does not decompose into a base letter and an accent.
_LETTERS = str.maketrans({"ł": "l", "ø": "o", "đ": "d", "ð": "d", "ħ": "h", "ı": "i", "ŧ": "t",
                          "æ": "ae", "œ": "oe", "þ": "th"})


def fold(name: str) -> str:
    """The name as a reader may not tell it apart: no case, accents, invisible characters
    or extra spaces, compatibility forms unified (full-width letters, ligatures)."""
    text = unicodedata.normalize("NFKD", unicodedata.normalize("NFKD", name).casefold())
    kept = "".join(c for c in text if unicodedata.category(c) not in ("Mn", "Me", "Cf"))
    return " ".join(kept.translate(_LETTERS).split())


def one_slip(a: str, b: str) -> bool:
    """Whether two different strings are one edit apart: a character added, dropped or
    changed, or two neighbours swapped (optimal string alignment distance 1)."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    if len(a) < len(b):
        return a[i:] == b[i + 1:]
    return a[i + 1:] == b[i + 1:] or (a[i + 1:i + 2] == b[i:i + 1] and a[i:i + 1] == b[i + 1:i + 2]
                                      and a[i + 2:] == b[i + 2:])


def _drops(text: str) -> set[str]:
    """The text and every text one character shorter: two strings one slip apart share one."""
    return {text} | {text[:i] + text[i + 1:] for i in range(len(text))}


@dataclass(frozen=True, slots=True)
class Suggestion:
    """The name a rare one may have meant, with what makes it the likelier one."""

    name: str
    games: int                    # its games in the league
    alias_of: str | None = None   # the player it is an alias of in players.toml
    listed: bool = False          # a name or alias in players.toml

    def __str__(self) -> str:
        if self.alias_of is not None:
            return f"did you mean {self.name!r}, an alias of {self.alias_of!r} ({_games(self.games)})?"
        if self.games:
            return f"did you mean {self.name!r} ({_games(self.games)})?"
        return f"did you mean {self.name!r} (in matches/players.toml)?"


def _games(n: int) -> str:
    return f"{n} game" if n == 1 else f"{n} games"


class Lookalikes:
    """The known names of one league, indexed for finding the one a rare name may have meant.

    ``games`` maps each name that played in the league to its games; ``roster`` adds the names
    and aliases of players.toml, which count as known even without a game in the league.
    """

    def __init__(self, games: Mapping[str, int], roster: Roster | None = None) -> None:
        self.games = games
        known: dict[str, Suggestion] = {name: Suggestion(name, n) for name, n in games.items()}
        if roster is not None:
            for alias, player in roster.canonical.items():
                if alias != player:
                    known[alias] = Suggestion(alias, games.get(player, 0), alias_of=player, listed=True)
            for player in roster.players:
                known[player] = Suggestion(player, games.get(player, 0), listed=True)
        self.folded: dict[str, list[Suggestion]] = {}
        for s in known.values():
            self.folded.setdefault(fold(s.name), []).append(s)
        # Only names active enough to be meant by a slip, by every string one character shorter.
        self.by_drop: dict[str, list[tuple[str, str]]] = {}
        for name, n in games.items():
            if n >= ACTIVE:
                key = fold(name)
                if len(key) >= SLIP_LENGTH:
                    for drop in _drops(key):
                        self.by_drop.setdefault(drop, []).append((key, name))

    def suggest(self, name: str, games: int) -> Suggestion | None:
        """The name ``name`` (``games`` games in the league) may have meant, or None.

        A name the same to a reader comes first (the one in players.toml or with the most
        games, then the first by code point); else the most active name one slip away.
        """
        if games > RARE:
            return None
        key = fold(name)
        # A name of players.toml without a game in the league yet is what a first game under a
        # lookalike name may have meant. One with games is a player like any other: listing a
        # new player whose name looks like an older one's says they are two players, and must
        # not turn the note around onto the older one.
        same = [s for s in self.folded.get(key, ())
                if name not in (s.name, s.alias_of) and (s.games >= games or (s.listed and not s.games))]
        if same:
            return min(same, key=lambda s: (not s.listed, -s.games, s.name))
        if len(key) < SLIP_LENGTH:
            return None
        need = max(ACTIVE, ACTIVE_FACTOR * games)
        close = {other for drop in _drops(key) for folded, other in self.by_drop.get(drop, ())
                 if other != name and self.games[other] >= need and one_slip(key, folded)}
        if not close:
            return None
        best = min(close, key=lambda other: (-self.games[other], other))
        return Suggestion(best, self.games[best])


# --- notes for `sitegen check` -------------------------------------------------------------

def notes(site: Site, *, strict: bool = False) -> list[Problem]:
    """A note on each game of a rare name that looks like another player's, by file and line.

    Shaped like a problem (file, line, match, field, message) so that it is read the same way,
    but a note never makes the input invalid. A name listed in players.toml (or used as an
    alias there) is a known player and never noted. ``strict`` (``--strict``): the notes are
    problems, and each message also says how to fix it.
    """
    out: list[Problem] = []
    files: dict[str, dict[str, Any] | None] = {}
    for league in site.leagues:
        games = Counter(chain.from_iterable(column(league.matches, "players")))
        if all(n > RARE or name in site.roster.players for name, n in games.items()):
            continue          # nothing to look at: no index to build
        look = Lookalikes(games, site.roster)
        found: dict[str, Suggestion | None] = {}
        for m in league.matches:
            for i, name in enumerate(m.players):
                if games[name] > RARE or name in site.roster.players:
                    continue          # a player of players.toml is known, whatever their games
                if name not in found:
                    found[name] = look.suggest(name, games[name])
                suggestion = found[name]
                if suggestion is None:
                    continue
                first = ("plays for the first time" if games[name] == 1
                         else f"has only {games[name]} games in this league")
                message = f"{name!r} {first}; {suggestion}"
                if strict:
                    message += (f" Correct the name, or, if {name!r} really is a new player, list them "
                                f"in matches/players.toml: [players.{toml_key(name)}]")
                out.append(_located(site.root, files, league.config.system, m, i, message))
    return sorted(out, key=lambda p: (p.file, p.line or 0, p.field or ""))


def toml_key(name: str) -> str:
    """The name as a quoted TOML key, ready to copy into players.toml: quotes, backslashes and
    every character a terminal would not show as itself (controls, bidirectional overrides,
    invisible characters) written as escapes that TOML reads back as the same name."""
    out = []
    for c in name:
        if c in '"\\':
            out.append("\\" + c)
        elif c.isprintable() or c == " ":
            out.append(c)
        else:
            out.append(f"\\u{ord(c):04X}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08X}")
    return '"' + "".join(out) + '"'


def _located(root: Path, files: dict[str, dict[str, Any] | None], system: System, m: Match,
             index: int, message: str) -> Problem:
    """The note on the line of the player's name, labelled as the check labels the match."""
    if m.file not in files:
        try:
            text = (root / m.file).read_bytes().decode("utf-8")
            files[m.file] = {"text": text, "data": tomllib.loads(text)}
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            files[m.file] = None     # changed since the check read it: the note goes without a line
    source = files[m.file]
    fallback_id = default_id(m.file.split("/", 2)[2], m.position)
    label = match_label({}, m.position, fallback_id)
    path: tuple[str | int, ...] = ("players", index, "name")
    line = m.line
    raws = source and source["data"].get("match")
    if source and isinstance(raws, list) and m.position <= len(raws) and isinstance(raws[m.position - 1], dict):
        raw = raws[m.position - 1]
        label = match_label(raw, m.position, fallback_id)
        parsed = system.parse_match(raw, lambda *_: None)
        if parsed is not None and parsed.name_paths:
            path = parsed.name_paths[index]
        line = locate(source["text"], path, ("match", m.position - 1)) or line
    return Problem(m.file, line, label, field_path(path), message)
