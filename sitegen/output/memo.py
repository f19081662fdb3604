"""Pages kept from the last build: a page whose inputs are all unchanged is linked from the
published site instead of being modelled and rendered again.

A match page (a file's page of matches) and a player's files (page, opponents page, data file)
each have a key, a SHA-256 of everything they show:

- the site's key: sitegen's code and templates, every input file but the match files
  (settings, players.toml, every league.toml, content/, the site's templates), the base URL;
- the league's key: the values every player page of the league shows (how many players are
  ranked and active, the board's rules, every player's address, what the careers share);
- the page's own values. What a page shows of its matches is covered by one number, the
  history's *prefix identity* at its last match: a sum, in 64-bit arithmetic, of every match's
  identity up to there, each mixed with its position (load/blocks.py). The ratings of a match
  follow from the matches before it (and, in a league rated by periods, from the rest of its
  period, so the prefix runs to the period's end), so equal prefixes mean equal rows. A player
  page adds its player's standing row, pool and predictions, which move with the league.

After each build the cache (load/cache.py) keeps, for its output folder, every keyed file's key
and the identity of the file written (size, modification time and inode, which a hard link keeps).
The next build links a file only where its key is the same and the published file is still
that file: anything else (a file edited or replaced since, another output folder, no cache) is
made again, so the output is byte for byte a cold build's. tests/test_kept_pages.py holds the
two equal after appended, edited and reordered matches in every system. It also keeps each
league's history and key as its pages showed them (``Mark``): where they say most pages will be
made again (a cold build, an edit before the end), the pages' lines are made in bulk, not one
match at a time as for the few a rebuild after appended matches makes; the pages are the same.

The same identities let a big league's changes.csv and matches.csv grow (``appendable``):
where the history up to the last build's last match is unchanged, so are its rows, and the
file is the published one and the rows that follow. A row of matches.csv also names its file's
last commit: ``written`` notes each file's, and the rows from the first match of a file whose
commit moved are made again (model/ledger.py ``matches_kept``).
"""

from __future__ import annotations

import hashlib
import os
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from sitegen.load.blocks import match_identities, prefix_identities
from sitegen.load.cache import Cache, code_digest, digest
from sitegen.model.history import IDENTITIES, PREFIXES, RatedLeague, one_event_per_match
from sitegen.model.predict import NEAREST
from sitegen.rating.events import EventTable
from sitegen.rating.matchcolumns import column

if TYPE_CHECKING:
    from sitegen.load.checked import Site
    from sitegen.model.views import LeagueView
    from sitegen.output.write import Output

class Stamp(NamedTuple):
    """A keyed file as the build left it. A tuple: tens of thousands are stored after each build
    and read before the next, as plain tuples (a dataclass's pickling took four times as long)."""

    key: str
    size: int
    mtime_ns: int
    inode: int


@dataclass(frozen=True, slots=True)
class Kept:
    """A file's content where the published file was linked unchanged."""

    stamp: Stamp


class Grown(NamedTuple):
    """A data file that may grow: the published file, its rows and what ``written`` noted with it."""

    published: str
    rows: int
    held: Any


def event_ends(rated: RatedLeague) -> np.ndarray:
    """Each match's position's last match of its rating event (itself, unless rated by periods)."""
    matches = rated.league.matches
    ends = np.arange(len(matches), dtype=np.int64)
    if one_event_per_match(rated) is None:
        at = {i: k for k, i in enumerate(column(matches, "id"))}       # no match made (rating/matchcolumns.py)
        for event in rated.events:
            ks = [at[i] for i in event.matches if i in at]
            if ks:
                ends[ks] = max(ks)
    return ends


def ledger_rows(rated: RatedLeague) -> int:
    """How many rows the league's changes.csv holds (one a player an event)."""
    events = rated.events
    if isinstance(events, EventTable):
        return len(events.player)
    return sum(len(e.changes) for e in events)


def _tree_digest(h: Any, folder: Path, root: Path) -> None:
    """Every file under ``folder``, by its path and bytes."""
    if not folder.is_dir():
        return
    for f in sorted(folder.rglob("*")):
        if f.is_file():
            h.update(f.relative_to(root).as_posix().encode("utf-8") + b"\0")
            h.update(hashlib.sha256(f.read_bytes()).digest())


def site_key(site: Site, base: str, repo_url: str) -> str:
    """Everything a kept page may show that is neither a match nor the league's standings."""
    root = site.root
    h = hashlib.sha256(code_digest().encode("ascii") + b"\0" + base.encode("utf-8") + b"\0"
                       + repo_url.encode("utf-8") + b"\0")
    for rel in ("pyproject.toml", "matches/players.toml"):
        path = root / rel
        h.update(rel.encode() + b"\0" + (path.read_bytes() if path.is_file() else b"\0absent"))
    for league in site.leagues:
        path = root / league.config.file
        h.update(league.config.file.encode("utf-8") + b"\0" + (path.read_bytes() if path.is_file() else b""))
    _tree_digest(h, root / "content", root)
    _tree_digest(h, root / "templates", root)
    return h.hexdigest()


def league_key(site_key: str, lv: LeagueView, board: Any, careers: Any, compact: bool) -> str:
    """What every page of a league's matches and players shows of the league as a whole."""
    facts = (lv.url, lv.integer, lv.has_outcomes, lv.has_teams, lv.places, lv.standing_terms, lv.explanation, compact,
             len(lv.leaderboard), len(board.active), board.settings, board.provisional_rule,
             repr(board.interval), board.interval_kind,
             careers.duels, careers.outcome_labels, careers.ranks_by_place)
    h = hashlib.sha256(site_key.encode("ascii") + repr(facts).encode("utf-8"))
    for name, pv in sorted(lv.players.items()):
        h.update(f"\0{name}\0{pv.url}".encode("utf-8"))
    return h.hexdigest()


# A league's history and key as its pages showed them: the history's length and prefix identity
# at its last match, and the league's key (``league_key``).
Mark = tuple[int, int, str]


class PageMemo:
    """The keyed files of the build before (``old``) and of this one (``new``, stored by ``save``),
    and each league's ``Mark`` (``old_marks``, ``new_marks``)."""

    def __init__(self, cache: Cache | None, out: Path, site_key: str) -> None:
        self.cache, self.site_key = cache, site_key
        self.slot = digest(str(out.resolve()))
        old = cache.get("pages", self.slot) if cache is not None else None
        valid = (isinstance(old, tuple) and len(old) == 4 and old[0] == site_key and isinstance(old[1], dict)
                 and isinstance(old[2], dict) and isinstance(old[3], dict))
        self.old: dict[str, Stamp] = {}
        if valid and old is not None:
            make = Stamp._make
            try:
                self.old = {path: make(t) for path, t in old[1].items()}
            except (TypeError, ValueError):     # another form: nothing is kept
                valid = False
        self.new: dict[str, Stamp] = {}
        # What a grown file's rows were made from beyond the matches (``written``'s ``held``).
        self.old_held: dict[str, Any] = old[2] if valid and old is not None else {}
        self.new_held: dict[str, Any] = {}
        self.old_marks: dict[str, Mark] = old[3] if valid and old is not None else {}
        self.new_marks: dict[str, Mark] = {}
        self.prefixes: dict[str, np.ndarray | None] = {}

    def league_prefixes(self, root: Path, rated: RatedLeague) -> np.ndarray | None:
        """The league's prefix identities (None: its pages are not kept this time)."""
        slug = rated.league.config.slug
        if slug not in self.prefixes:
            # The rate stage worked them out already where it could (model/resume.py).
            ids = rated.cache.get(IDENTITIES)
            kept = rated.cache.get(PREFIXES)
            if ids is not None and kept is not None and one_event_per_match(rated) is not None:
                # Each event one match: every match's event ends at itself, and the rate stage's
                # prefixes (of every match's own position) are these.
                self.prefixes[slug] = kept
                return kept
            if ids is None and self.cache is not None:
                ids = match_identities(root, rated.league, self.cache)
            self.prefixes[slug] = None if ids is None else prefix_identities(ids, event_ends(rated))
        return self.prefixes[slug]

    # Whether most of a league's pages are kept, told before they are modelled: a page worker
    # then makes the lines of the matches it shows one match at a time (views.league_view), else
    # every match's are made at once before the workers fork, as without the cache.

    def keeps_history(self, root: Path, rated: RatedLeague) -> bool:
        """Whether the history the build before's pages of the league showed is the start of this
        one's (a rebuild after appended matches, or none): most of its pages may then be kept.
        Not so in a cold build, after an edit before the end, or for another site key."""
        prefixes = self.league_prefixes(root, rated)
        mark = self.old_marks.get(rated.league.config.slug)
        if prefixes is None or not (isinstance(mark, tuple) and len(mark) == 3):
            return False
        matches, last = mark[0], mark[1]
        return isinstance(matches, int) and 0 < matches <= len(prefixes) and int(prefixes[matches - 1]) == last

    def keeps_league(self, rated: RatedLeague, key: str) -> bool:
        """Whether the league's key (``league_key``) is the build before's: where it is not, none of
        the league's pages is kept. Notes it, with the league's history, for the next build."""
        slug = rated.league.config.slug
        prefixes = self.prefixes.get(slug)
        if prefixes is not None and len(prefixes):
            self.new_marks[slug] = (len(prefixes), int(prefixes[-1]), key)
        mark = self.old_marks.get(slug)
        return isinstance(mark, tuple) and len(mark) == 3 and mark[2] == key

    def history_key(self, root: Path, rated: RatedLeague) -> str | None:
        """A digest of every input of the league's ratings: its matches, in order, with the
        league's other inputs (each match's identity holds them) and how it is rated in events."""
        prefixes = self.league_prefixes(root, rated)
        if prefixes is None:
            return None
        return digest(rated.league.config.slug, str(len(prefixes)), str(int(prefixes[-1])) if len(prefixes) else "")

    def bootstrap_key(self, root: Path, rated: RatedLeague) -> tuple[str, np.ndarray] | None:
        """``history_key`` and the prefix identities, which tell the bootstrap (model/honest.py)
        whether its replays of the last build's history are the start of this one's."""
        key, prefixes = self.history_key(root, rated), self.league_prefixes(root, rated)
        return None if key is None or prefixes is None else (key, prefixes)

    # changes.csv and matches.csv grow at their end: where the history up to the last match of the
    # build before is unchanged, so are their rows, and each is the published file and the rows
    # that follow (matches.csv's up to the first match of a file with another commit).

    def appendable(self, output: Output, path: str, prefixes: np.ndarray | None) -> Grown | None:
        """The published file, its rows and what was held with it, where the history it was made
        from is the start of this one's: its rows are then this build's first rows (but for
        what the held values say changed)."""
        stamp = self.old.get(path)
        if stamp is None or prefixes is None:
            return None
        try:
            matches, last, rows = (int(part) for part in stamp.key.split(":"))
        except ValueError:
            return None
        if not 0 < matches <= len(prefixes) or int(prefixes[matches - 1]) != last:
            return None
        published = output.published(path, stamp.size, stamp.mtime_ns, stamp.inode)
        return None if published is None else Grown(published, rows, self.old_held.get(path))

    def written(self, output: Output, path: str, prefixes: np.ndarray | None, rows: int, held: Any = None) -> None:
        """Note a grown file's extent for the next build, and ``held``, what its rows were also made from."""
        if prefixes is not None and len(prefixes):
            size = output.sizes.get(path, -1)
            self.new[path] = self.stamp(output, path, f"{len(prefixes)}:{int(prefixes[-1])}:{rows}", size)
            if held is not None:
                self.new_held[path] = held

    def keep(self, output: Output, path: str, key: str) -> Kept | None:
        """The published file linked in place of ``path``'s, where it is what ``key`` makes."""
        stamp = self.old.get(path)
        if stamp is None or stamp.key != key:
            return None
        return Kept(stamp) if output.keep(path, stamp.size, stamp.mtime_ns, stamp.inode) else None

    def keep_all(self, output: Output, paths: Sequence[str], key: str) -> list[Kept] | None:
        """Every one of a page's files kept, or none (then all are made again)."""
        if any(self.old.get(p) is None or self.old[p].key != key for p in paths):
            return None
        kept = [self.keep(output, p, key) for p in paths]
        if all(k is not None for k in kept):
            return [k for k in kept if k is not None]
        for path, k in zip(paths, kept):
            if k is not None:
                output.unkeep(path)
        return None

    def stamp(self, output: Output, path: str, key: str, size: int) -> Stamp:
        st = os.stat(output.staged(path))
        return Stamp(key, size, st.st_mtime_ns, st.st_ino)

    def save(self) -> None:
        if self.cache is not None:
            stamps = {path: tuple(stamp) for path, stamp in self.new.items()}
            self.cache.put("pages", self.slot, (self.site_key, stamps, self.new_held, self.new_marks))


def _words(words: list[str]) -> bytes:
    """Strings as bytes no other list of them gives: joined by NUL where none holds one (a
    repr costs ten times more), else their repr; a tag tells the two apart."""
    joined = "\0".join(words)
    if joined.count("\0") == len(words) - 1:
        return b"j" + joined.encode("utf-8", "surrogatepass")
    return b"r" + repr(words).encode("utf-8")


def _floats(nums: list[Any]) -> bytes:
    """Numbers as bytes: their doubles where all are floats (equal doubles have equal reprs, and
    packing costs a tenth of a repr), else their repr; a tag tells the two apart."""
    if all(type(x) is float for x in nums):
        return b"d" + array("d", nums).tobytes()
    return b"r" + repr(nums).encode("utf-8")


def pool_key(pool: Any) -> bytes | None:
    """A pool (model/forecast.PoolView) as a digest of compact bytes: the reprs of its rows'
    dataclasses, or of their values' tuples, cost ten times more."""
    if pool is None:
        return None
    rows = pool.rows
    opponents = [r.opponent for r in rows]
    words = _words([*[o.text for o in opponents], *[o.url for o in opponents], *[r.side for r in rows]])
    h = hashlib.sha256(repr((pool.per_side, len(rows), [r.picked for r in rows])).encode("utf-8"))
    h.update(len(words).to_bytes(8, "little") + words)
    h.update(_floats([pool.deviation, *[r.rating for r in rows], *[r.win_chance for r in rows]]))
    return h.digest()


def drawn_pool_key(pool: Any, deviation: float, size: int) -> bytes | None:
    """A drawn pool (model/pools.Pool) as a digest of what its view (forecast.PoolView, which
    ``pool_key`` reads) is made from: the player's rating, each side's names and ratings, the
    pick's name and the league's pool parameters. The view's links are the players' addresses,
    which the league's key holds. No view is made: a page worker makes the views of the pages
    it renders, not of the thousands it keeps."""
    if pool is None:
        return None
    below, above, pick = pool.below, pool.above, pool.pick
    names = [o.name for o in below]
    names += [o.name for o in above]
    if pick is not None:
        names.append(pick.name)
    words = _words(names)
    h = hashlib.sha256(f"{len(below)}\0{len(above)}\0{pick is not None}\0{size!r}\0".encode())
    h.update(len(words).to_bytes(8, "little") + words)
    ratings = [deviation, pool.rating]
    ratings += [o.rating for o in below]
    ratings += [o.rating for o in above]
    h.update(_floats(ratings))
    return h.digest()


def nearest_key(predictor: Any, name: str, seen: dict[str, str]) -> str:
    """What a player page's predictions are made from (model/predict.py ``nearest_inputs``),
    without finding the nearest players: the ``NEAREST`` players either side of the player
    in the league's rating order, the player's offset among them and each one's state. The
    nearest are found from that window alone (a walk outwards from the player, at most
    ``NEAREST`` steps each way, reading only (rating, name) in that order), so an equal window
    holds the same nearest players with the same states. A name's text is made once a league
    (``seen``: the states do not change in a build), though each is in the windows of some
    twenty players. A repr holds no NUL character, so NUL joins them unambiguously."""
    if name not in predictor.states:
        return ""
    ordered, position = predictor.order
    states = predictor.states
    at = position[name]
    lo = max(0, at - NEAREST)
    out = [str(at - lo)]
    for _, other in ordered[lo:at + NEAREST + 1]:
        text = seen.get(other)
        if text is None:
            text = seen[other] = repr((other, states[other]))
        out.append(text)
    return "\0".join(out)


def page_key(*parts: Any) -> str:
    """A key from values whose repr says all a page shows of them."""
    return hashlib.sha256(repr(parts).encode("utf-8")).hexdigest()


def standing_key(parts: tuple[Any, ...], pool: bytes | None, nearest: str | None) -> str:
    """``page_key(*parts, pool, nearest)`` for where a player stands, without the repr of the
    pool's digest and of the nearest players' text (some two thousand characters, NULs
    escaped one by one): each is hashed as it is, after a tag and its length."""
    h = hashlib.sha256(repr(parts).encode("utf-8"))
    for blob in (pool, None if nearest is None else nearest.encode("utf-8", "surrogatepass")):
        h.update(b"\0-" if blob is None else b"\0+" + len(blob).to_bytes(8, "little") + blob)
    return h.hexdigest()
