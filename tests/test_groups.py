"""Match pages grouped by match file (sitegen/model/groups.py): parts, anchors, clashes."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from types import SimpleNamespace

from hypothesis import given
from hypothesis import strategies as st

from sitegen.model.groups import LINES_PER_PART, MATCHES_PER_PART, anchor, group_matches
from sitegen.model.views import MatchView

WHEN = datetime(2024, 1, 1, tzinfo=timezone.utc)


def _views(files: list[str], players: int = 2) -> list[MatchView]:
    """MatchViews of stand-in matches: grouping reads match.file, match.id and lines, and sets page."""
    counts: dict[str, int] = {}
    views = []
    for f in files:
        counts[f] = counts.get(f, 0) + 1
        match = SimpleNamespace(file=f, id=f"{f.split('/', 2)[2][:-5].replace('/', '-')}-{counts[f]}", played=WHEN)
        views.append(MatchView(match, [None] * players, ""))  # type: ignore[arg-type]
    return views


def test_a_file_is_one_page_and_a_long_one_is_split_in_parts():
    views = _views(["matches/lg/2026/04-april.toml"] * (2 * MATCHES_PER_PART + 1) + ["matches/lg/b.toml"])
    groups = group_matches(views, "leagues/lg/")
    assert [g.url for g in groups] == ["leagues/lg/matches/2026/04-april/", "leagues/lg/matches/2026/04-april/2/",
                                       "leagues/lg/matches/2026/04-april/3/", "leagues/lg/matches/b/"]
    assert [len(g.matches) for g in groups] == [MATCHES_PER_PART, MATCHES_PER_PART, 1, 1]
    assert groups[0].parts == [g.url for g in groups[:3]] and groups[3].parts == [groups[3].url]
    assert views[0].url == "leagues/lg/matches/2026/04-april/#m-2026-04-april-1"
    assert views[MATCHES_PER_PART].url == "leagues/lg/matches/2026/04-april/2/#m-2026-04-april-101"
    assert views[-1].url == "leagues/lg/matches/b/#m-b-1"


def test_lobbies_close_a_part_by_player_lines():
    per_match = LINES_PER_PART // 4 + 1        # four such lobbies are over the limit, three are not
    groups = group_matches(_views(["matches/lg/s.toml"] * 7, players=per_match), "leagues/lg/")
    assert [len(g.matches) for g in groups] == [3, 3, 1]
    # A single match bigger than the limit still gets its page.
    assert [len(g.matches) for g in group_matches(_views(["matches/lg/s.toml"] * 2, LINES_PER_PART + 5),
                                                  "leagues/lg/")] == [1, 1]


def test_folder_names_that_clash_get_a_suffix():
    views = _views(["matches/lg/x.toml"] * (MATCHES_PER_PART + 1) + ["matches/lg/x/2.toml", "matches/lg/A B.toml",
                                                                      "matches/lg/a-b.toml"])
    urls = [g.url for g in group_matches(views, "leagues/lg/")]
    assert urls == ["leagues/lg/matches/x/", "leagues/lg/matches/x/2/", "leagues/lg/matches/x/2-2/",
                    "leagues/lg/matches/a-b/", "leagues/lg/matches/a-b-2/"]
    assert len(set(urls)) == len(urls)


@given(st.lists(st.text(min_size=1, max_size=12), min_size=2, max_size=12, unique=True))
def test_anchors_are_distinct_url_and_id_safe(ids):
    anchors = [anchor(i) for i in ids]
    assert len(set(anchors)) == len(ids)
    assert all(re.fullmatch(r"m-[A-Za-z0-9._~-]+", a) for a in anchors)


def test_contract_ids_keep_their_text():
    assert anchor("2024-week-03-1") == "m-2024-week-03-1" and anchor("final.2024") == "m-final.2024"
    assert anchor("[x] #1?-1") == "m-~5Bx~5D~20~231~3F-1" and anchor("~") == "m-~7E"
