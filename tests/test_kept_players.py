"""A rebuild reads a kept file's players from the cache only where a match of theirs is made
(load/halves.py KeptNames, load/gathered.py Chunks); what is read so is what reading every
file's players at once gave. The main process's readers of every match-file page's first and
last match take them from the league's columns (model/matchviews.py played_of, file_and_line),
and elo's challenger term names the first listed player from the kernel's columns: each is
held here to the form it replaces."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from types import SimpleNamespace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from sitegen.load import halves, validate
from sitegen.load.gathered import Chunks, Gathered
from sitegen.model.matchviews import MatchViews, ViewMaker, file_and_line, played_of
from sitegen.rating.base import Match
from sitegen.rating.elo import Elo
from sitegen.rating.matchcolumns import MatchColumns

START = datetime(2024, 1, 1, tzinfo=timezone.utc)
NAMES = ("Ann", "Bo", "Cy", "Dee", "Zoë")


def _keyed(file: int, count: int, first: int, names: list[str]) -> list[halves.Keyed]:
    rel = f"f{file:02}.toml"
    out = []
    for position in range(1, count + 1):
        k = first + position
        players = (names[k % len(names)], names[(k + 1 + file) % len(names)])
        if players[0] == players[1]:
            players = (players[0], names[(k + 2) % len(names)])
        m = Match(id=f"m-{k}", played=START + timedelta(minutes=k), file=f"matches/x/{rel}", position=position,
                  notes=None, players=players, entries=({"score": 1}, {"score": 0}),
                  extra={"challenger": players[1]} if k % 3 == 0 else {}, line=3 * position)
        out.append(((m.played, rel, position), m, False))
    return out


@st.composite
def _gathered(draw: st.DrawFn) -> tuple[list[list[halves.Keyed]], list[bool]]:
    sizes = draw(st.lists(st.integers(0, 5), min_size=1, max_size=6))
    names = draw(st.lists(st.sampled_from(NAMES), min_size=2, max_size=5, unique=True))
    files, first = [], 0
    for n, size in enumerate(sizes):
        files.append(_keyed(n, size, first, names))
        first += size
    return files, [draw(st.booleans()) for _ in files]


def _gather(files: list[list[halves.Keyed]], kept: list[bool]) -> Gathered:
    gathered, shared = Gathered(), validate.Shared()
    for keyed, is_kept in zip(files, kept):
        if is_kept:
            packed = halves.pack(keyed, {p for _, m, _ in keyed for p in m.players}, {m.id for _, m, _ in keyed})
            gathered.add_unpacked(halves.unpack_columns(packed, shared.name, shared.fields, validate.NO_EXTRA,
                                                        shared.names.get))
        else:
            gathered.add_keyed(keyed)
    return gathered


@settings(max_examples=200, deadline=None)
@given(_gathered(), st.data())
def test_players_read_by_index_are_every_files_players(files_kept, data):
    """The players column of kept and changed files, read index by index (negative ones too),
    by slices and whole: the players of the files' matches in order; a kept file's are read
    only once one of its matches' is."""
    files, kept = files_kept
    players = _gather(files, kept).columns["players"]
    assert isinstance(players, Chunks)
    every = [m.players for keyed in files for _, m, _ in keyed]
    assert len(players) == len(every)
    lazy = sum(is_kept and bool(keyed) for keyed, is_kept in zip(files, kept))
    assert sum(isinstance(part, halves.KeptNames) for part in players._parts) == lazy      # none read yet
    for k in data.draw(st.lists(st.integers(-len(every), len(every) - 1), max_size=8)) if every else ():
        assert players[k] == every[k]
    assert players[1:3] == every[1:3] and list(players) == every


@settings(max_examples=100, deadline=None)
@given(_gathered())
def test_kept_names_are_the_eager_columns(files_kept):
    """A packed file's players and names played, read when asked (KeptNames): those it was
    packed with, each name the parent's copy (validate.Shared.name)."""
    files, _ = files_kept
    for keyed in files:
        shared = validate.Shared()
        played = {p for _, m, _ in keyed for p in m.players}
        u = halves.unpack_columns(halves.pack(keyed, played, {m.id for _, m, _ in keyed}), shared.name,
                                  shared.fields, validate.NO_EXTRA, shared.names.get)
        assert len(u.names) == len(keyed)
        assert u.players == [m.players for _, m, _ in keyed]
        assert u.played == sorted(played)
        assert all(shared.name(p) is p for ps in u.players for p in ps)
        back, names, ids = halves.unpack(halves.pack(keyed, played, set()), shared.name, shared.fields,
                                         validate.NO_EXTRA)
        assert [m for _, m, _ in back] == [m for _, m, _ in keyed] and names == played


def _columns(matches: list[Match]) -> MatchColumns:
    from sitegen.rating.matchcolumns import micros
    c = {f: [getattr(m, f) for m in matches] for f in ("id", "file", "position", "notes", "players", "entries",
                                                         "extra", "line")}
    return MatchColumns(c["id"], [micros(m.played) for m in matches], c["file"], c["position"], c["notes"],
                        c["players"], c["entries"], c["extra"], c["line"])


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 12), st.data())
def test_played_of_and_file_and_line_are_the_views_match(n, data):
    """The time, file and line of a view's match read from the league's columns: those of the
    match the view is made of, for views made when read and for a list of views alike."""
    matches = [m for _, m, _ in _keyed(1, n, 0, list(NAMES))]
    columns = _columns(matches)
    maker = ViewMaker(columns, None, [m.id for m in matches], None, np.zeros(n, dtype=np.int64), [""], True)
    positions = sorted(data.draw(st.sets(st.integers(0, n - 1), min_size=1)))
    for views in (MatchViews(maker, positions), [SimpleNamespace(match=matches[k]) for k in positions]):
        for i in range(-len(positions), len(positions)):
            m = matches[positions[i]]
            assert played_of(views, i) == m.played and played_of(views, i).tzinfo == m.played.tzinfo
            assert file_and_line(views, i) == (m.file, m.line)
    assert not columns._made and columns._every is None      # no match made for them


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 20))
def test_challenger_term_is_the_first_listed_player_or_the_named_one(n):
    """Elo's challenger term, named from the kernel's columns: each match's named challenger,
    else its first listed player, for matches held as a tuple and as columns."""
    matches = [m for _, m, _ in _keyed(0, n, 0, list(NAMES))]
    system = Elo(k_of="challenger")
    for held in (tuple(matches), _columns(matches)):
        events = system.rate(held)
        want = [m.extra.get("challenger") or m.players[0] for m in matches]
        assert [e.changes[0].terms["challenger"] for e in events] == want


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-(2 ** 40), 2 ** 50)), st.data())
def test_times_are_the_list_of_datetimes(at, data):
    """Times held as micros (matchcolumns.Times), read by index, slice, walk and pickle: the
    list of the datetimes ``micros`` stands for, read by index before and after a walk."""
    from array import array
    import pickle
    from sitegen.rating.matchcolumns import EPOCH, Times
    want = [EPOCH + timedelta(microseconds=k) for k in at]
    for held in (array("q", at), at):
        t = Times(held)
        assert len(t) == len(want)
        for i in data.draw(st.lists(st.integers(-len(want), len(want) - 1), max_size=5)) if want else ():
            assert t[i] == want[i] and t[i].tzinfo is timezone.utc
        lo, hi = data.draw(st.integers(0, len(want))), data.draw(st.integers(0, len(want)))
        assert list(t[lo:hi]) == want[lo:hi] and t[lo:hi] == want[lo:hi]
        assert t == want and list(t) == want and repr(t) == repr(want)
        assert t[-1:] == want[-1:] and pickle.loads(pickle.dumps(t)) == want


def test_events_from_columns_have_the_tuples_times():
    """Elo's events of a league held as columns: the same events as of the tuple, times and all."""
    matches = [m for _, m, _ in _keyed(0, 30, 0, list(NAMES))]
    system = Elo(k_of="challenger")
    cold, kept = system.rate(tuple(matches)), system.rate(_columns(matches))
    assert kept == cold and list(kept.played) == list(cold.played) == [m.played for m in matches]
    assert kept.played[-1] == matches[-1].played and kept.tail(10).played == cold.tail(10).played
