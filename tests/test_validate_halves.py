"""A long league checked in two halves, the second in a forked child, gives exactly what one
pass gives: the same matches (equal, and the same repr, which the build cache hashes), the
same names played, and where anything is wrong the same problems."""

from __future__ import annotations

import shutil
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sitegen.commands.build import check
from sitegen.load import forked, halves, validate
from sitegen.load.problems import InvalidInput
from sitegen.rating.base import Match

FIXTURES = Path(__file__).parent / "fixtures"


def _leagues(root: Path, monkeypatch, split: bool):
    monkeypatch.setattr(validate, "HALVES_FROM", 1 if split else 10**12)
    return check(root, cache=False).leagues


def _in_two_files(fixture: str, tmp_path: Path) -> Path:
    """The fixture with each match file cut in two at its middle [[match]]: every league then
    has files to share between the halves."""
    root = tmp_path / fixture
    shutil.copytree(FIXTURES / fixture, root)
    for path in sorted((root / "matches").rglob("*.toml")):
        if path.name in ("league.toml", "players.toml"):
            continue
        text = path.read_text(encoding="utf-8")
        starts = [i for i in range(len(text)) if text.startswith("[[match]]", i)]
        if len(starts) >= 2:
            cut = starts[len(starts) // 2]
            (path.parent / f"0-{path.name}").write_text(text[:cut], encoding="utf-8")
            path.write_text(text[cut:], encoding="utf-8")
    return root


@pytest.mark.parametrize("fixture", ["small", "hostile"])
def test_two_halves_give_the_matches_one_pass_gives(fixture, monkeypatch, tmp_path):
    if forked.cores() < 2:
        pytest.skip("one core: the halves are never split")
    root = _in_two_files(fixture, tmp_path)
    calls = []
    real = forked.start
    monkeypatch.setattr(forked, "start", lambda job: calls.append(1) or real(job))
    one = _leagues(root, monkeypatch, split=False)
    assert not calls
    two = _leagues(root, monkeypatch, split=True)
    assert len(calls) == len(one), "a league was not split"
    for a, b in zip(one, two, strict=True):
        assert a.matches == b.matches
        assert [repr(m) for m in a.matches] == [repr(m) for m in b.matches]
        assert [type(v) for m in a.matches for e in m.entries for v in e.values()] == \
               [type(v) for m in b.matches for e in m.entries for v in e.values()]


def _long_league(root: Path, files: int = 4, per_file: int = 3, broken: str = "") -> Path:
    (root / "matches" / "duel").mkdir(parents=True)
    (root / "matches" / "duel" / "league.toml").write_text('name = "Duel"\nsystem = "elo"\n')
    start = datetime(2024, 1, 1, tzinfo=timezone.utc)
    n = 0
    for f in range(files):
        lines = []
        for _ in range(per_file):
            when = (start + timedelta(hours=n)).strftime("%Y-%m-%dT%H:%M:%SZ")
            lines.append(f'[[match]]\nplayed = {when}\nplayers = [{{ name = "P{n % 5}", score = 1 }}, '
                         f'{{ name = "Q{n % 3}", score = 0 }}]\n')
            n += 1
        text = "\n".join(lines)
        if f == files - 1:
            text += broken
        (root / "matches" / "duel" / f"part-{f}.toml").write_text(text)
    return root


@pytest.mark.parametrize("broken", [
    # a problem in the second half only: the child gives up, one pass words it
    '\n[[match]]\nplayed = 2024-02-30\nplayers = [{ name = "A", score = 1 }, { name = "B", score = 2 }]\n',
    # an id used in both halves: neither half sees it alone
    '\n[[match]]\nid = "part-0-1"\nplayed = 2024-03-01\nplayers = [{ name = "A", score = 1 }, '
    '{ name = "B", score = 0 }]\n',
])
def test_a_problem_in_either_half_is_reported_as_one_pass_reports_it(tmp_path, monkeypatch, broken):
    root = _long_league(tmp_path / "site", broken=broken)
    found = {}
    for split in (False, True):
        with pytest.raises(InvalidInput) as caught:
            _leagues(root, monkeypatch, split)
        found[split] = [str(p) for p in caught.value.problems]
    assert found[True] == found[False] and found[False]


def test_one_core_checks_in_one_pass(tmp_path, monkeypatch):
    root = _long_league(tmp_path / "site")
    monkeypatch.setattr(forked, "cores", lambda: 1)
    monkeypatch.setattr(forked.os, "fork", lambda: pytest.fail("forked with one core"))
    assert len(_leagues(root, monkeypatch, split=True)[0].matches) == 12


def test_a_failed_child_leaves_the_check_to_one_pass(tmp_path, monkeypatch):
    root = _long_league(tmp_path / "site")
    expected = _leagues(root, monkeypatch, split=False)[0].matches

    def broken(*args, **kwargs):
        raise MemoryError("the child ran out")

    monkeypatch.setattr(halves, "pack", broken)     # in the child: it exits with a failure
    assert _leagues(root, monkeypatch, split=True)[0].matches == expected


def test_values_marshal_cannot_write_go_by_pickle():
    when = datetime(2024, 5, 1, 17, 30, 0, 123456, tzinfo=timezone.utc)
    entry = {"score": 1, "ratio": -0.0, "host": True}
    m = Match(id="a-1", played=when, file="matches/x/a.toml", position=1, notes="née <b>",
              players=("Zoë", "Bo"), entries=(entry, entry), extra={"at": datetime(2024, 1, 1)}, line=3)
    plain = Match(id="a-2", played=when, file="matches/x/a.toml", position=2, notes=None,
                  players=("Bo", "Zoë"), entries=(entry, {"score": 0}), line=None)
    keyed = [((when, "a.toml", 1), m, True), ((when, "a.toml", 2), plain, False)]
    for value, kind in ((keyed, halves.PICKLE), (keyed[1:], halves.MARSHAL)):
        data = halves.pack(value, {"Bo", "Zoë"}, {"a-1", "a-2"})
        assert data[:1] == kind
        none: dict = {}
        back, played, ids = halves.unpack(data, validate.Shared().name, tuple, none)
        assert back == value and [repr(k) for k in back] == [repr(k) for k in value]
        assert played == {"Bo", "Zoë"} and ids == {"a-1", "a-2"}
        assert back[-1][1].extra is none            # a match without keys shares the empty mapping
        assert type(back[-1][1].entries[0]["ratio"]) is float and str(back[-1][1].entries[0]["ratio"]) == "-0.0"


def test_the_child_is_stopped_when_the_parent_fails(tmp_path, monkeypatch):
    if forked.cores() < 2:
        pytest.skip("one core")
    root = _long_league(tmp_path / "site")
    started = []
    real = forked.start

    def start(job):
        child = real(job)
        started.append(child)
        return child

    def fails(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(forked, "start", start)
    real_validated = validate._validated

    def parent_half(files, *args):
        if not started:
            return real_validated(files, *args)      # the child's own call, before the fork
        fails()

    monkeypatch.setattr(validate, "_validated", parent_half)
    with pytest.raises(KeyboardInterrupt):
        _leagues(root, monkeypatch, split=True)
    assert started
    shutil.rmtree(root)


@st.composite
def _keyed_matches(draw: st.DrawFn) -> list[halves.Keyed]:
    """Checked matches as a child packs them: two or (sometimes) three players, entries shared
    between matches or each its own, with and without system keys, notes and lines."""
    names = ("Ann", "Bo", "Cy", "Dee", "Zoë")
    shared = [{"score": 1}, {"score": 0}, {"score": 0.5}, {"score": 1.0}, {"score": -0.0, "points": 2}]
    start = datetime(2024, 1, 1, tzinfo=timezone.utc)
    three = draw(st.booleans()) and draw(st.booleans())
    out = []
    for k in range(draw(st.integers(0, 12))):
        size = 3 if three and draw(st.booleans()) else 2
        players = tuple(draw(st.lists(st.sampled_from(names), min_size=size, max_size=size, unique=True)))
        entries = tuple(draw(st.sampled_from(shared)) if draw(st.booleans()) else {"score": draw(st.integers(0, 1))}
                        for _ in players)
        extra = draw(st.sampled_from([{}, {"home": players[0]}, {"weight": 0.5, "season": "2024"}]))
        when = start + timedelta(minutes=draw(st.integers(0, 10**6)), microseconds=draw(st.integers(0, 999_999)))
        file = draw(st.sampled_from(["matches/x/a.toml", "matches/x/b/c.toml"]))
        m = Match(id=f"m-{k}", played=when, file=file, position=k + 1, notes=draw(st.sampled_from([None, "née"])),
                  players=players, entries=entries, extra=extra, line=draw(st.sampled_from([None, 3 * k + 1])))
        out.append(((when, file.split("/", 2)[2], k + 1), m, draw(st.booleans())))
    return out


def _one_at_a_time(keyed: list[halves.Keyed], shared: validate.Shared, none: dict) -> list[halves.Keyed]:
    """unpack as it was: each match made again with the parent's copies of its names and entries."""
    out = []
    for key, m, explicit in keyed:
        made = Match(id=m.id, played=key[0], file=m.file, position=m.position, notes=m.notes,
                     players=tuple(map(shared.name, m.players)), entries=shared.fields(m.entries),
                     extra=m.extra or none, line=m.line)
        out.append((key, made, explicit))
    return out


@settings(max_examples=200, deadline=None)
@given(_keyed_matches(), _keyed_matches(), st.booleans())
def test_unpack_in_columns_makes_the_matches_one_at_a_time_makes(first, second, interned):
    """The columns made in C loops give the matches, keys and the parent's copies of names and
    entries (one tuple of entries for every match with the same ones) that making them one at a
    time gives, file after file into one Shared: with names packed interned, as validate.Shared
    makes them, and not (a cache entry written before); with the names the parent knows
    looked up first (``known``, as a rebuild's kept files are read) and without."""
    made = []
    for fast, known in ((True, True), (True, False), (False, False)):
        shared, none = validate.Shared(), {}
        backs = []
        for keyed in (first, second):
            if interned:
                child = validate.Shared()
                keyed = [(k, replace(m, players=tuple(map(child.name, m.players)), entries=child.fields(m.entries)),
                          e) for k, m, e in keyed]
            data = halves.pack(keyed, {p for _, m, _ in keyed for p in m.players}, {m.id for _, m, _ in keyed})
            back = (halves.unpack(data, shared.name, shared.fields, none, shared.names.get if known else None)[0]
                    if fast else _one_at_a_time(keyed, shared, none))
            assert back == keyed and [repr(k) for k in back] == [repr(k) for k in keyed]
            assert all(m.extra is none for _, m, _ in back if not m.extra)
            assert all(shared.names[p] is p for _, m, _ in back for p in m.players)    # the parent's one copy
            backs += back
        # Which matches share one object (a name, an entry, a tuple of entries): the same either way.
        seen: dict[int, int] = {}
        sharing = [seen.setdefault(id(x), len(seen)) for _, m, _ in backs
                   for x in (*m.players, m.entries, *m.entries)]
        made.append((backs, set(shared.names), list(shared.entries), sharing,
                     [[type(v) for e in m.entries for v in e.values()] for _, m, _ in backs]))
    assert made[0][1:] == made[1][1:] == made[2][1:]
