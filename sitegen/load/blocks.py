"""Each match's identity: a 64-bit digest of the text that defines it, for the pages kept from
one build to the next (output/memo.py).

A match is defined by its block of its file: from its ``[[match]]`` line to the next match's
(or the file's end), with what precedes the file's first match, the file's path, the match's
position and line, and the league's other inputs (``league_head``: league.toml, players.toml
and the settings, which name players and set defaults). Two builds that read the same bytes
there make the same ``Match``; a changed byte anywhere in it changes the identity. An edit to
one match of a file leaves the other matches' identities as they were, and so does a match
appended at the end of a file: only the new match and the ones after an edit are new.

Reading a file's blocks costs a hash a match (1.5 s at a million): with the build cache, a
file's identities are kept under its checked key (its text, path and the league's head,
load/filekeys.py, as the league's check read it), so a rebuild reads and computes them only
for the files that changed. (A byte-order mark is not in the text: a file's identities with
and without one are the same, as its matches are.)

A history's *prefix identities* (``prefix_identities``) sum them, each mixed with its position:
equal prefixes mean the same first matches in the same order with the same league inputs, which
is what a rating taken up (model/resume.py) and a page kept (output/memo.py) rely on.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from sitegen.load.cache import Cache, league_head
from sitegen.load.filekeys import checked_key, text_of
from sitegen.rating.matchcolumns import column, fields

if TYPE_CHECKING:
    from sitegen.load.validate import League

NEWLINE = 10

# SplitMix64's constants: each identity mixed with its position before the sum, so that two
# matches swapped give another prefix.
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1, _M2 = np.uint64(0xBF58476D1CE4E5B9), np.uint64(0x94D049BB133111EB)


def file_identities(raw: bytes, head: bytes, rel: str, lines: list[tuple[int, int | None]]) -> np.ndarray:
    """The identities of a file's matches, given each match's (position, line) in position order."""
    breaks = np.flatnonzero(np.frombuffer(raw, dtype=np.uint8) == NEWLINE)
    starts = [0, *(breaks + 1).tolist()]        # the byte offset of each 1-based line

    def offset(line: int | None) -> int:
        return starts[line - 1] if line is not None and 0 < line <= len(starts) else len(raw)

    # Positions follow the file's order, so a block ends where the next match's begins.
    bounds = [offset(line) for _, line in lines] + [len(raw)]
    preamble = hashlib.blake2b(raw[:bounds[0]], digest_size=16, key=head).digest() + rel.encode("utf-8")
    out = np.empty(len(lines), dtype=np.uint64)
    for k, (position, line) in enumerate(lines):
        h = hashlib.blake2b(preamble, digest_size=8)
        h.update(f"\0{position}\0{line}\0".encode("ascii"))
        # Without the blank lines that end it: a match appended after it adds one.
        h.update(raw[bounds[k]:max(bounds[k], bounds[k + 1])].rstrip())
        out[k] = int.from_bytes(h.digest(), "little")
    return out


def match_identities(root: Path, league: League, cache: Cache | None) -> np.ndarray | None:
    """Every match's identity in the league's history order (uint64), or None where a match
    file cannot be read again (the pages are then all made afresh)."""
    head = league_head(root, league.config.slug, league.config.file).digest()
    matches = league.matches
    # Each match's file (by number, in order of first use) and position there, from the columns
    # (rating/matchcolumns.py): no match made.
    files = fields(matches, "file")
    number = {f: k for k, f in enumerate(dict.fromkeys(files))}
    of_file = np.fromiter(map(number.__getitem__, files), dtype=np.int64, count=len(matches))
    positions = fields(matches, "position")
    position = np.asarray(positions, dtype=np.int64)       # machine words where the column is
    lines_of: list[int | None] | None = None
    order = np.argsort(of_file, kind="stable")
    bounds = np.searchsorted(of_file[order], np.arange(len(number) + 1))
    out = np.empty(len(matches), dtype=np.uint64)
    # A file's identities are kept under its checked key, as its check read it (filekeys.py): a
    # file is read again only where they are not kept.
    keys = league.keys or {}
    for rel, k in number.items():
        at = order[bounds[k]:bounds[k + 1]]            # the file's matches, as the league holds them
        raw: bytes | None = None
        key = keys.get(rel)
        if key is None:
            try:
                raw = (root / rel).read_bytes()
                key = checked_key(head, rel, text_of(raw))
            except (OSError, UnicodeDecodeError):
                return None
        ids = cache.get("blocks", key) if cache is not None else None
        places = position[at] - 1
        if not (isinstance(ids, np.ndarray) and ids.dtype == np.uint64 and len(ids) == len(at)):
            try:
                raw = (root / rel).read_bytes() if raw is None else raw
            except OSError:
                return None
            lines_of = column(matches, "line") if lines_of is None else lines_of
            lines = sorted((positions[i], lines_of[i]) for i in at.tolist())
            if [p for p, _ in lines] != list(range(1, len(lines) + 1)):
                return None         # not every position of the file: never so in a checked league
            ids = file_identities(raw, head, rel, lines)
            if cache is not None:
                cache.put("blocks", key, ids)
        out[at] = ids[places]
    return out


def _mix(x: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        x = (x ^ (x >> np.uint64(30))) * _M1
        x = (x ^ (x >> np.uint64(27))) * _M2
        return x ^ (x >> np.uint64(31))


def prefix_identities(ids: np.ndarray, event_end: np.ndarray) -> np.ndarray:
    """For every match, the identity of the history up to the end of its rating event."""
    with np.errstate(over="ignore"):
        mixed = _mix(ids + (np.arange(len(ids), dtype=np.uint64) + np.uint64(1)) * _GOLDEN)
    return np.cumsum(mixed, dtype=np.uint64)[event_end] if len(ids) else mixed
