"""What the background jobs of a rebuild take up from the build before: the search index patched
from the one kept in the cache (output/searchkept.py) and the accuracy sums carried on from the
last build's matches (model/baselines.py ``cached_compare``). Each gives a cold build's bytes,
after appended, edited and reordered matches in every system, and does only the changed part."""

from __future__ import annotations

import pickle
import shutil
import sys
from pathlib import Path

import pytest

from sitegen.commands.build import build, check
from sitegen.load.cache import FOLDER
from sitegen.load.validate import League
from sitegen.model import baselines, scale
from sitegen.model.accuracy import predicts
from sitegen.model.history import rate_league
from sitegen.output import parallel, searchkept

sys.path.insert(0, str(Path(__file__).resolve().parent))
from helpers import REPO  # noqa: E402
from test_incremental import assert_same_as_cold  # noqa: E402
from test_kept_pages import append_copy, edit_notes, swap_first_two  # noqa: E402

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "small"
LEAGUES = ("arena", "duel", "ladder", "royale", "wvw")      # every system


@pytest.fixture
def site(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns(FOLDER))
    return root


@pytest.fixture
def here(monkeypatch) -> None:
    """The background jobs run in this process, where what they do can be counted."""
    monkeypatch.setattr(parallel, "cores", lambda: 1)


def test_big_leagues_kept_index_is_a_cold_build_s(site: Path, tmp_path: Path, monkeypatch) -> None:
    """Every league big: its matches are found through the records of its match-file pages, kept
    by their keys; every edit in every league at once, then the edits undone."""
    monkeypatch.setattr(scale, "BIG_LEAGUE_ROWS", 1)
    out = tmp_path / "out"
    build(site, out)
    first = {p: p.read_bytes() for p in site.rglob("*.toml")}
    for edit in (append_copy, edit_notes, swap_first_two):
        for league in LEAGUES:
            edit(site, league)
        build(site, out)
        assert_same_as_cold(site, out, tmp_path)
    for path, data in first.items():
        path.write_bytes(data)
    build(site, out)
    assert_same_as_cold(site, out, tmp_path)


@pytest.mark.parametrize("big", [False, True])
def test_words_patched_whatever_moved_are_a_cold_build_s(site: Path, tmp_path: Path, monkeypatch, big) -> None:
    """The words patched however many records changed or moved (records added, taken away,
    renumbered), not listed again past searchkept.REDO_SHARE: the same files."""
    monkeypatch.setattr(searchkept, "REDO_SHARE", 0)
    if big:
        monkeypatch.setattr(scale, "BIG_LEAGUE_ROWS", 1)
    out = tmp_path / "out"
    build(site, out)
    first = {p: p.read_bytes() for p in site.rglob("*.toml")}
    for edit, leagues in ((append_copy, ("ladder",)), (swap_first_two, LEAGUES), (edit_notes, ("duel", "royale"))):
        for league in leagues:
            edit(site, league)
        build(site, out)
        assert_same_as_cold(site, out, tmp_path)
    for path, data in first.items():
        path.write_bytes(data)
    build(site, out)
    assert_same_as_cold(site, out, tmp_path)


def test_an_appended_match_makes_only_its_page_s_record(site: Path, tmp_path: Path, monkeypatch, here) -> None:
    monkeypatch.setattr(scale, "BIG_LEAGUE_ROWS", 1)
    made: list[str] = []
    record = searchkept.group_record

    def counting(group, dates):
        made.append(group.url)
        return record(group, dates)

    monkeypatch.setattr(searchkept, "group_record", counting)
    listed: list[int] = []
    from_start = searchkept._listed
    monkeypatch.setattr(searchkept, "_listed", lambda words: (listed.append(1), from_start(words))[1])
    out = tmp_path / "out"
    build(site, out)
    assert made and listed == [1]          # nothing kept yet: every page and word
    made.clear()
    build(site, out)
    assert made == [] and listed == [1]     # nothing changed
    append_copy(site, "ladder")
    build(site, out)
    assert len(made) == 1 and made[0].startswith("leagues/ladder/") and listed == [1]
    assert_same_as_cold(site, out, tmp_path)


def test_an_appended_match_is_the_only_one_scored_again(site: Path, tmp_path: Path, monkeypatch, here) -> None:
    scored: list[tuple[str, int]] = []
    pairs = baselines.pair_arrays

    def counting(system, matches, events):
        scored.append((matches[0].file.split("/")[1] if matches else "", len(matches)))
        return pairs(system, matches, events)

    monkeypatch.setattr(baselines, "pair_arrays", counting)
    out = tmp_path / "out"
    build(site, out)
    assert sorted(name for name, _ in scored) == ["duel", "ladder", "royale", "wvw"]
    scored.clear()
    build(site, out)
    assert scored == [("wvw", 3)]           # glicko2's periods are scored whole; the others not at all
    scored.clear()
    append_copy(site, "ladder")
    build(site, out)
    assert sorted(scored) == [("ladder", 1), ("wvw", 3)]
    assert_same_as_cold(site, out, tmp_path)


def _rated_leagues() -> list[League]:
    small = check(FIXTURE, cache=False).leagues
    demo = [lg for lg in check(REPO, cache=False).leagues if len(lg.matches) <= 2000]
    return [lg for lg in (*small, *demo) if predicts(rate_league(lg))]


@pytest.mark.parametrize("cut", [0.0, 0.3, 0.5, 0.9, 1.0])
def test_sums_carried_on_after_appended_matches_are_whole_sums(cut: float) -> None:
    """The accuracy sums of a league's first matches, carried on over the rest, are the sums of
    every match at once, to the last bit (a league rated in periods is scored whole)."""
    for league in _rated_leagues():
        cold, after = baselines.scores_from(rate_league(league), None)
        first = max(1, int(len(league.matches) * cut))
        _, before = baselines.scores_from(rate_league(League(league.config, league.matches[:first])), None)
        before = pickle.loads(pickle.dumps(before))         # as the cache gives it back
        whole = rate_league(league)
        resumed, again = baselines.scores_from(whole, before)
        assert resumed == cold, league.config.slug
        assert again.matches == len(league.matches)
        assert baselines.scores_from(rate_league(league), again)[0] == cold
        assert baselines.compare(whole) == baselines.compare(rate_league(league))


def test_a_table_s_tail_is_its_events_from_there() -> None:
    for league in _rated_leagues():
        events = rate_league(league).events
        if not baselines.resumable(rate_league(league)):
            continue
        for start in (0, 1, len(events) // 2, len(events)):
            assert list(events.tail(start)) == list(events)[start:]
