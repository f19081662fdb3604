"""A league's rating taken up where the last build left it (model/resume.py, elo_kernel.rate_from).

The oracle is the whole replay: random elo leagues with random options are rated whole and
taken up at random cuts (the rating of the first matches pickled and read back as the cache
keeps it, taken up again and again), and every column of the events, every encoded column and
the kernel's state after the last match must be the same to the bit; where the whole replay
stops on a RatingDiverged, the one taken up stops at the same match with the same message. A
build taken up after an appended match must have replayed that match alone, and one after an
edit before the end every match, each writing what a build without the cache writes.
"""

from __future__ import annotations

import pickle
import shutil
from array import array
from collections.abc import Callable
from operator import attrgetter
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_incremental import APPENDED, FIXTURE, LADDER
from test_kernels_elo import elo_leagues

from sitegen.commands.build import build, check
from sitegen.load.cache import FOLDER, open_cache
from sitegen.model.history import KERNEL_COLUMNS, rate_league
from sitegen.model.honest import bootstrap, bootstrap_from
from sitegen.model.resume import KIND, rated_league
from sitegen.rating import arrays, elo_kernel
from sitegen.rating.base import Match, RatingDiverged
from sitegen.rating.elo import Elo
from sitegen.rating.events import EventTable
from sitegen.rating.matchcolumns import MATCH_FIELDS, MatchColumns, micros


def bits(x: Any) -> Any:
    """An array as its dtype and bytes; anything else as its repr (an int is not a float)."""
    return (x.dtype.str, x.shape, x.tobytes()) if isinstance(x, np.ndarray) else repr(x)


def table_bits(table: EventTable) -> tuple[Any, ...]:
    terms = tuple((name, t.per_event, t.none_at_nan, bits(t.values) if t.numeric else repr(list(t.values)))
                  for name, t in table.terms.items())
    return (repr(list(table.keys)), repr(list(table.played)), bits(table.offsets), table.names, bits(table.player),
            bits(table.before), bits(table.after), terms, repr(sorted(table.exact_before.items())),
            repr(table.matches), table.listed, repr(list(table)))


def rated_bits(rated: elo_kernel.RatedColumns) -> tuple[Any, ...]:
    cols = rated.cols
    return (rated.matches, cols.names, repr(cols.starts), repr(cols.seasons),
            tuple(bits(getattr(cols, c)) for c in elo_kernel.COLUMNS),
            tuple(map(bits, rated.out)), tuple(map(bits, rated.state)))


def outcome(fn: Callable[[], tuple[EventTable, elo_kernel.RatedColumns]]) -> tuple[Any, ...]:
    try:
        table, rated = fn()
    except RatingDiverged as exc:
        return ("diverged", exc.event, exc.what, exc.advice)
    return ("rated", table_bits(table), rated_bits(rated))


@settings(max_examples=300, deadline=None)
@given(elo_leagues(), st.data())
def test_a_rating_taken_up_is_the_whole_rating(kernel_mode: str, league: tuple[Elo, list[Match]],
                                              data: st.DataObject) -> None:
    system, matches = league
    whole = outcome(lambda: elo_kernel.rate_from(system, matches, None))
    cuts = sorted(data.draw(st.lists(st.integers(0, len(matches)), max_size=3)))
    before = None
    for cut in cuts:
        try:
            _, before = elo_kernel.rate_from(system, matches[:cut], before)
        except RatingDiverged:
            assert whole[0] == "diverged"       # the first matches run away: so does the whole
            return
        before = pickle.loads(pickle.dumps(before, protocol=pickle.HIGHEST_PROTOCOL))
    assert outcome(lambda: elo_kernel.rate_from(system, matches, before)) == whole
    # And ``rate`` is the whole replay's events.
    if whole[0] == "rated":
        assert table_bits(system.rate(matches)) == whole[1]       # type: ignore[arg-type]


def as_columns(matches: list[Match]) -> MatchColumns:
    """The matches as a rebuild holds the kept ones (rating/matchcolumns.py), times and
    positions in arrays of machine words."""
    c = {name: list(map(attrgetter(name), matches)) for name in MATCH_FIELDS}
    return MatchColumns(c["id"], array("q", map(micros, c["played"])), c["file"], array("q", c["position"]),
                        c["notes"], c["players"], c["entries"], c["extra"], c["line"])


@settings(max_examples=200, deadline=None)
@given(elo_leagues(), st.data())
def test_a_rating_of_columns_is_the_rating_of_their_matches(kernel_mode: str, league: tuple[Elo, list[Match]],
                                                            data: st.DataObject) -> None:
    """Rated from the league's columns (no match made but the ones replayed) or from a list of its
    matches, cold or taken up at a cut: the same events, ids, times, columns, state and
    standings, to the bit."""
    system, matches = league
    cut = data.draw(st.integers(0, len(matches)))

    def rated(held: Any) -> tuple[Any, ...]:
        try:
            _, before = elo_kernel.rate_from(system, matches[:cut], None)     # the last build's
        except RatingDiverged as exc:
            return ("diverged early", exc.event)
        before = pickle.loads(pickle.dumps(before, protocol=pickle.HIGHEST_PROTOCOL))
        got = outcome(lambda: elo_kernel.rate_from(system, held, before))
        table = elo_kernel.rate_from(system, held, before)[0] if got[0] == "rated" else None
        standings = None if table is None else (repr(system.standings(table)), repr(system.standings(list(table))))
        return got, standings

    columns = as_columns(matches)
    from_list, from_columns = rated(list(matches)), rated(columns)
    assert from_columns == from_list
    if from_list[0] != "diverged early" and from_list[1] is not None:
        assert from_list[1][0] == from_list[1][1]       # the standings from the columns are the events'
        # The columns' path: only the tail's matches made (a long one is made at once, as a slice
        # of most of the columns is).
        if len(matches) - cut <= len(matches) // 8:
            assert columns._every is None and len(columns._made) <= len(matches) - cut


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(st.floats(allow_nan=True), st.sampled_from([0.0, -0.0, 1.0, float("nan")])),
                max_size=6),
       st.lists(st.integers(-(1 << 40), 1 << 40), max_size=6), st.lists(st.booleans(), max_size=6),
       st.integers(1, 5))
def test_packed_columns_read_back_as_they_were(floats: list[float], ints: list[int], flags: list[bool],
                                               repeat: int) -> None:
    for column in (np.array(floats * repeat, dtype=np.float64), np.array(ints * repeat, dtype=np.int64),
                   np.array(flags * repeat, dtype=np.bool_), np.full(repeat, -1, dtype=np.int64),
                   np.zeros(0, dtype=np.int64), np.array(ints, dtype=np.int64) % 7):
        assert bits(arrays.unpacked(pickle.loads(pickle.dumps(arrays.packed(column))))) == bits(column)


def test_a_short_rest_is_replayed_by_the_plain_kernel(monkeypatch) -> None:
    """The kernel is chosen by the matches replayed, not the league's: an appended match is
    one match's work, below what repays numba's loading."""
    system = Elo()
    matches = [Match(f"m{i}", elo_kernel_time(i), "g.toml", i + 1, None, ("A", "B") if i % 2 else ("B", "C"),
                     ({"score": 1}, {"score": 0}), {}) for i in range(40)]
    _, before = elo_kernel.rate_from(system, matches[:37], None)
    asked: list[int] = []
    kernel = arrays.kernel
    monkeypatch.setattr(arrays, "kernel", lambda fn, work: asked.append(work) or kernel(fn, work))
    elo_kernel.rate_from(system, matches, before)
    assert asked == [3]


def elo_kernel_time(i: int) -> Any:
    from datetime import datetime, timedelta, timezone
    return datetime(2024, 1, 1, tzinfo=timezone.utc) + timedelta(hours=i)


@pytest.fixture
def site(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns(FOLDER))
    return root


def files_of(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def ladder(root: Path) -> Any:
    (league,) = [lg for lg in check(root, cache=False).leagues if lg.config.slug == "ladder"]
    return league


def test_a_league_taken_up_is_the_league_rated_whole(site: Path) -> None:
    cache = open_cache(site)
    first = rated_league(ladder(site), site, cache)
    assert cache is not None and cache.get(KIND, "ladder") is not None
    with (site / LADDER).open("a", encoding="utf-8") as fh:
        fh.write(APPENDED)
    league = ladder(site)
    taken_up = rated_league(league, site, open_cache(site))
    whole = rate_league(league)
    assert len(taken_up.events) == len(first.events) + 1
    assert table_bits(taken_up.events) == table_bits(whole.events)     # type: ignore[arg-type]
    assert taken_up.standings == whole.standings
    assert repr(taken_up.standings) == repr(whole.standings)
    # The bootstrap reads the rating's columns, with the same intervals.
    assert taken_up.cache[KERNEL_COLUMNS] is not None
    assert bootstrap_from(taken_up, None)[0] == bootstrap(whole)


def record_rates(monkeypatch) -> list[tuple[int, int]]:
    """(matches rated, matches taken up) of each elo league rated from now on."""
    seen: list[tuple[int, int]] = []
    rate_from = elo_kernel.rate_from

    def recording(system: Elo, matches: Any, before: Any) -> Any:
        seen.append((len(matches), before.matches if before is not None else 0))
        return rate_from(system, matches, before)
    monkeypatch.setattr(elo_kernel, "rate_from", recording)
    return seen


def test_a_rebuild_replays_the_appended_match_alone_and_an_edit_all(site: Path, tmp_path: Path,
                                                                     monkeypatch) -> None:
    out = tmp_path / "out"
    build(site, out)
    seen = record_rates(monkeypatch)
    with (site / LADDER).open("a", encoding="utf-8") as fh:
        fh.write(APPENDED)
    build(site, out)
    n = ladder(site).matches
    assert (len(n), len(n) - 1) in seen
    cold = tmp_path / "cold"
    build(site, cold, cache=False)
    assert files_of(out) == files_of(cold)
    # The third match's result reversed: the ladder is rated from its first match again.
    path = site / LADDER
    text = path.read_text(encoding="utf-8")
    old = '{ name = "Ana", score = 0 },\n  { name = "Cid", score = 1 },'
    assert old in text
    path.write_text(text.replace(old, '{ name = "Ana", score = 1 },\n  { name = "Cid", score = 0 },', 1),
                    encoding="utf-8")
    seen.clear()
    build(site, out)
    assert (len(n), 0) in seen
    shutil.rmtree(cold)
    build(site, cold, cache=False)
    assert files_of(out) == files_of(cold)


def test_a_damaged_entry_is_a_rating_from_the_first_match(site: Path, monkeypatch) -> None:
    cache = open_cache(site)
    rated_league(ladder(site), site, cache)
    assert cache is not None
    cache.settle()      # the entry is written beside the build (Cache.put_aside), as a build's end waits for
    for path in (site / FOLDER / KIND).rglob("*"):
        if path.is_file():
            path.write_bytes(path.read_bytes()[:-40])
    seen = record_rates(monkeypatch)
    league = ladder(site)
    again = rated_league(league, site, open_cache(site))
    assert seen == [(len(league.matches), 0)]
    assert table_bits(again.events) == table_bits(rate_league(league).events)     # type: ignore[arg-type]


def duel(day: int, big: int, bo: int) -> str:
    won = 1 if big > bo else 0
    return (f"[[match]]\nplayed = 2024-01-0{day}T10:00:00Z\nplayers = [{{ name = \"Big\", score = {won}, "
            f"points = {big} }}, {{ name = \"Bo\", score = {1 - won}, points = {bo} }}]\n\n")


def test_an_appended_match_that_runs_away_is_reported_as_without_the_cache(make_site, tmp_path: Path,
                                                                            monkeypatch) -> None:
    from helpers import league_toml

    from sitegen.load.problems import InvalidInput
    # Big, 2,000 points above Bo, loses by 10 under the NBA rule: the denominator is below 0.
    root = make_site({"matches/l/league.toml": league_toml("elo", extra='[initial]\n"Big" = 3500\n',
                                                           params='margin = "538-nba"'),
                      "matches/l/m.toml": duel(1, 3, 0) + duel(2, 5, 1)})
    build(root, tmp_path / "out")
    seen = record_rates(monkeypatch)
    with (root / "matches/l/m.toml").open("a", encoding="utf-8") as fh:
        fh.write(duel(3, 0, 10))
    with pytest.raises(InvalidInput) as warm:
        build(root, tmp_path / "out")
    assert seen == [(3, 2)]
    with pytest.raises(InvalidInput) as cold:
        build(root, tmp_path / "cold", cache=False)
    assert [str(p) for p in warm.value.problems] == [str(p) for p in cold.value.problems]
    assert "margin multiplier" in str(warm.value.problems[0])


@settings(max_examples=150, deadline=None)
@given(elo_leagues(), st.data())
def test_resamples_taken_up_from_the_rating_s_columns_are_the_whole_resamples(
        kernel_mode: str, league: tuple[Elo, list[Match]], data: st.DataObject) -> None:
    """resampled_from, reading the rating's columns and only the matches after a cut, gives the
    samples ``resampled`` gives, player for player in the same order, to the bit."""
    from test_kernels_elo import draws_of
    system, matches = league
    draws = draws_of(data, len(matches))
    whole = elo_kernel.resampled(system, matches, draws)
    try:
        _, rated = elo_kernel.rate_from(system, matches, None)
        cols = rated.cols
    except RatingDiverged:
        cols = None
    cut = data.draw(st.integers(0, len(matches)))
    head = [[i for i in d if i < cut] for d in draws]
    _, before = elo_kernel.resampled_from(system, matches[:cut], head, None)
    for taken_up in (elo_kernel.resampled_from(system, matches, draws, None, cols)[0],
                     elo_kernel.resampled_from(system, matches, [[i for i in d if i >= cut] for d in draws],
                                               before, cols)[0]):
        assert list(taken_up) == list(whole)
        assert [list(map(bits_of, v)) for v in taken_up.values()] == [list(map(bits_of, v)) for v in whole.values()]


def bits_of(x: float) -> bytes:
    return np.float64(x).tobytes() if type(x) is float else repr(x).encode()
