"""A long league checked in two halves, the second in a forked child, gives exactly what one
pass gives: the same matches (equal, and the same repr, which the build cache hashes), the
same names played, and where anything is wrong the same problems."""

from __future__ import annotations

import shutil
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

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
        back, played, ids = halves.unpack(data, dict().setdefault, lambda e: e, none)
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
