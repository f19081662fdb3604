"""The search index patched from the one the build before kept in the cache (output/searchkept.py):
a cold build's bytes after appended, edited and reordered matches in every system, with only the
records that changed made again."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from sitegen.commands.build import build
from sitegen.model import scale
from sitegen.output import searchkept

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_incremental import assert_same_as_cold  # noqa: E402
from test_kept_pages import append_copy, edit_notes, swap_first_two  # noqa: E402

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "small"
LEAGUES = ("arena", "duel", "ladder", "royale", "wvw")      # every system


def edited_then_undone(site: Path, tmp_path: Path, steps: list[tuple[Callable[[Path, str], None],
                                                                      tuple[str, ...]]]) -> None:
    """Built, then each step's edit made to its leagues and built again, then every match file
    put back and built again: each build into one folder equal to a cold build's."""
    out = tmp_path / "out"
    build(site, out)
    first = {p: p.read_bytes() for p in site.rglob("*.toml")}
    for edit, leagues in steps:
        for league in leagues:
            edit(site, league)
        build(site, out)
        assert_same_as_cold(site, out, tmp_path)
    for path, data in first.items():
        path.write_bytes(data)
    build(site, out)
    assert_same_as_cold(site, out, tmp_path)


def test_big_leagues_kept_index_is_a_cold_build_s(site: Path, tmp_path: Path, monkeypatch) -> None:
    """Every league big: its matches are found through the records of its match-file pages, kept
    by their keys; every edit in every league at once, then the edits undone."""
    monkeypatch.setattr(scale, "BIG_LEAGUE_ROWS", 1)
    edited_then_undone(site, tmp_path, [(edit, LEAGUES) for edit in (append_copy, edit_notes, swap_first_two)])


@pytest.mark.parametrize("big", [False, True])
def test_words_patched_whatever_moved_are_a_cold_build_s(site: Path, tmp_path: Path, monkeypatch, big) -> None:
    """The words patched however many records changed or moved (records added, taken away,
    renumbered), not listed again past searchkept.REDO_SHARE: the same files."""
    monkeypatch.setattr(searchkept, "REDO_SHARE", 0)
    if big:
        monkeypatch.setattr(scale, "BIG_LEAGUE_ROWS", 1)
    edited_then_undone(site, tmp_path, [(append_copy, ("ladder",)), (swap_first_two, LEAGUES),
                                        (edit_notes, ("duel", "royale"))])


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
