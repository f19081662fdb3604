"""A league's matches held as columns (rating/matchcolumns.py) behave as the tuple of the same
matches; a rebuild's league gathered from its kept files' columns (load/gathered.py) is the
league one pass over every file gives, in the same order, with the same problems."""

from __future__ import annotations

import pickle
import shutil
from array import array
from calendar import timegm
from datetime import datetime, timedelta, timezone
from operator import attrgetter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitegen.commands.build import check
from sitegen.load import halves, validate
from sitegen.load.cache import open_cache
from sitegen.load.gathered import Gathered
from sitegen.load.problems import InvalidInput, Problems
from sitegen.rating import matchcolumns
from sitegen.rating.base import Match
from sitegen.rating.matchcolumns import MATCH_FIELDS, MatchColumns, column, micros, played_micros

FIXTURES = Path(__file__).parent / "fixtures"
START = datetime(2024, 1, 1, tzinfo=timezone.utc)
NAMES = ("Ann", "Bo", "Cy", "Dee", "Zoë")
SHARED = ({"score": 1}, {"score": 0}, {"score": 0.5}, {"score": -0.0, "points": 2})


@st.composite
def _match(draw: st.DrawFn, k: int, file: str = "matches/x/a.toml", position: int | None = None) -> Match:
    players = tuple(draw(st.lists(st.sampled_from(NAMES), min_size=2, max_size=3, unique=True)))
    return Match(id=f"m-{k}", played=START + timedelta(minutes=draw(st.integers(0, 5)),
                                                       microseconds=draw(st.sampled_from([0, 1, 999_999]))),
                 file=file, position=k + 1 if position is None else position,
                 notes=draw(st.sampled_from([None, "née"])), players=players,
                 entries=tuple(draw(st.sampled_from(SHARED)) for _ in players),
                 extra=draw(st.sampled_from([{}, {"home": players[0]}, {"weight": 0.5}])),
                 line=draw(st.sampled_from([None, 3 * k + 1])))


@st.composite
def _league(draw: st.DrawFn) -> list[Match]:
    return [draw(_match(k)) for k in range(draw(st.integers(0, 12)))]


def _columns(matches: list[Match], words: bool = False) -> MatchColumns:
    """The matches as columns: the whole numbers in lists, or in arrays of machine words as a
    rebuild reads them (load/halves.py)."""
    c = {name: list(map(attrgetter(name), matches)) for name in MATCH_FIELDS}
    at, positions = list(map(micros, c["played"])), c["position"]
    if words:
        at, positions = array("q", at), array("q", positions)
    return MatchColumns(c["id"], at, c["file"], positions, c["notes"], c["players"], c["entries"], c["extra"],
                        c["line"])


def _read(seq, key):
    try:
        return ("ok", seq[key])
    except (IndexError, TypeError) as caught:
        return (type(caught), str(caught))


def _hashed(value):
    try:
        return hash(value)
    except TypeError as caught:
        return str(caught)


_KEYS = st.one_of(st.integers(-15, 15),
                  st.builds(slice, st.none() | st.integers(-15, 15), st.none() | st.integers(-15, 15),
                            st.none() | st.integers(-4, 4).filter(bool)))


@settings(max_examples=300, deadline=None)
@given(_league(), st.lists(_KEYS, max_size=12), st.sampled_from([0, 2, 4096]), st.booleans(), st.booleans())
def test_the_columns_behave_as_the_tuple_of_their_matches(matches, keys, one_at_a_time, walk_first, words):
    """Any reads by index and slice, before or after a walk (and past the count of matches made
    one at a time): the same values and errors as the tuple's, the same match object for an
    index each time, and the walk, reversal, repr, equality, hash, pickle and columns the same."""
    t = tuple(matches)
    saved = matchcolumns.MADE_ONE_AT_A_TIME
    matchcolumns.MADE_ONE_AT_A_TIME = one_at_a_time
    try:
        s = _columns(matches, words)
        if walk_first:
            assert list(s) == list(t)
        seen: dict[int, Match] = {}
        for key in keys:
            got, want = _read(s, key), _read(t, key)
            assert got == want and repr(got) == repr(want)
            if isinstance(key, int) and got[0] == "ok":
                assert seen.setdefault(key % len(t), got[1]) is got[1]       # one object an index
        assert len(s) == len(t) and bool(s) == bool(t)
        walked = list(s)
        assert walked == list(t) and all(walked[k] is m for k, m in seen.items())
        assert list(reversed(s)) == list(reversed(t))
        assert repr(s) == repr(t) and str(s) == str(t)
        assert s == t and t == s and s == _columns(matches) and not s != t
        assert s != list(t) and (not t or (s != t[:-1] and t[:-1] != s))
        assert _hashed(s) == _hashed(t)        # a TypeError where a match holds a dict, as ever
        assert pickle.loads(pickle.dumps(s)) == t
        assert s + t[:1] == t + t[:1] and t[:1] + s == t[:1] + t and s + s == t + t
        assert type(s + ()) is tuple and type(() + s) is tuple
        assert all(m in s for m in t) and (not t or s.index(t[-1]) == t.index(t[-1]))
        for name in MATCH_FIELDS:
            assert column(s, name) == column(t, name) == [getattr(m, name) for m in t]
        assert list(played_micros(s)) == played_micros(t) == [timegm(m.played.utctimetuple()) * 10**6
                                                         + m.played.microsecond for m in t]
    finally:
        matchcolumns.MADE_ONE_AT_A_TIME = saved


def test_reading_newest_first_makes_only_the_matches_read():
    """A walk from the newest match that stops early (the board's window) makes no other match."""
    matches = [Match(f"m-{k}", START + timedelta(minutes=k), "matches/x/a.toml", k + 1, None, ("Ann", "Bo"),
                     (SHARED[0], SHARED[1])) for k in range(100)]
    s = _columns(matches)
    newest = []
    for m in reversed(s):
        if len(newest) == 3:
            break
        newest.append(m)
    assert newest == matches[:-4:-1]
    assert s._every is None and sorted(s._made) == [96, 97, 98, 99]


@st.composite
def _files(draw: st.DrawFn) -> list[list[halves.Keyed]]:
    """Checked files as validate.py keys their matches: times that tie and run out of order
    across files, ids explicit or not."""
    rels = draw(st.lists(st.sampled_from(["a.toml", "b/c.toml", "b.toml", "z.toml"]), min_size=1, max_size=4,
                         unique=True))
    out, k = [], 0
    for rel in rels:
        keyed = []
        for position in range(1, draw(st.integers(0, 6)) + 1):
            m = draw(_match(k, file=f"matches/x/{rel}", position=position))
            keyed.append(((m.played, rel, position), m, draw(st.booleans())))
            k += 1
        out.append(keyed)
    return out


@settings(max_examples=300, deadline=None)
@given(_files(), st.data())
def test_gathered_columns_are_the_sorted_matches(files, data):
    """Kept files' columns (packed and read back) and changed files' matches, gathered file after
    file: the matches and explicit ids that sorting every keyed match gives."""
    gathered, shared = Gathered(), validate.Shared()
    for keyed in files:
        if data.draw(st.booleans()):
            packed = halves.pack(keyed, {p for _, m, _ in keyed for p in m.players}, {m.id for _, m, _ in keyed})
            gathered.add_unpacked(halves.unpack_columns(packed, shared.name, shared.fields, validate.NO_EXTRA))
        else:
            gathered.add_keyed(keyed)
    every = sorted((item for keyed in files for item in keyed), key=lambda item: item[0])
    matches, explicit = gathered.in_history_order()
    assert matches == tuple(m for _, m, _ in every)
    assert repr(matches) == repr(tuple(m for _, m, _ in every))
    assert explicit == {m.id for _, m, given in every if given}


def _problems(root: Path, cache: bool) -> list[str]:
    try:
        check(root, cache=cache)
    except InvalidInput as caught:
        return [str(p) for p in caught.problems]
    return []


@pytest.mark.parametrize("fixture", ["small", "hostile"])
def test_a_check_from_kept_files_gives_the_cold_league(fixture, tmp_path):
    """Every league read from its kept files with one file changed (its matches moved before
    the others', so the gathered columns are sorted again): the matches a check without the
    cache gives, equal and with the same repr, and the same problems word for word."""
    root = tmp_path / fixture
    shutil.copytree(FIXTURES / fixture, root)
    check(root, cache=open_cache(root))
    changed = 0
    for path in sorted((root / "matches").rglob("*.toml")):
        text = path.read_text(encoding="utf-8")
        if path.name not in ("league.toml", "players.toml") and "played = 2024-" in text:
            path.write_text(text.replace("played = 2024-", "played = 2023-", 1), encoding="utf-8")
            changed += 1
            break
    assert changed
    warm, cold = _problems(root, True), _problems(root, False)
    assert warm == cold
    if not cold:
        kept, once = check(root).leagues, check(root, cache=False).leagues
        assert any(isinstance(lg.matches, MatchColumns) for lg in kept)
        assert [lg.matches for lg in kept] == [lg.matches for lg in once]
        assert [repr(lg.matches) for lg in kept] == [repr(lg.matches) for lg in once]


@pytest.mark.parametrize("split", [False, True])
def test_a_league_knows_its_files_keys_as_read_and_its_identities_follow(split, tmp_path, monkeypatch):
    """The checked keys a league remembers (each file's as it was checked clean, in one pass or
    in halves, or as read for a rebuild) are the keys of the files as they are, and the
    matches' identities read under them equal those worked out from the files' bytes."""
    from sitegen.load.blocks import match_identities
    from sitegen.load.filekeys import checked_head, file_keys
    from sitegen.load.site import load_site
    from sitegen.load.validate import League
    root = tmp_path / "small"
    shutil.copytree(FIXTURES / "small", root)
    monkeypatch.setattr(validate, "HALVES_FROM", 1 if split else 10**12)
    cache = open_cache(root)

    def keys_now():
        return {s.slug: file_keys(s.match_files, checked_head(s) or b"") for s in load_site(root, Problems(),
                                                                                            cache).leagues}

    cold, before = check(root, cache=cache).leagues, keys_now()
    path = root / "matches/duel/2024/cup/day-2.toml"
    path.write_text(path.read_text(encoding="utf-8") + "\n# a comment\n", encoding="utf-8")
    warm, after = check(root, cache=open_cache(root)).leagues, keys_now()
    assert [lg.keys for lg in cold] == [before[lg.config.slug] for lg in cold]
    assert [lg.keys for lg in warm] == [after[lg.config.slug] for lg in warm]
    for league in warm:
        plain = match_identities(root, League(league.config, tuple(league.matches)), None)
        for _ in range(2):          # worked out, then read under the keys
            assert (match_identities(root, league, cache) == plain).all()
    assert any(lg.keys != w.keys for lg, w in zip(cold, warm))      # the changed file's key moved
