"""The accuracy comparisons of a rebuild carried on from the build before (model/baselines.py
``cached_compare``, ``cached_scores``): the sums of the last build's predictions and its replay
with the default parameters are taken up, only the new matches are predicted, and the numbers
are a whole replay's to the last bit."""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

import numpy as np
import pytest

from sitegen.commands.build import build, check
from sitegen.load.validate import League
from sitegen.model import baselines
from sitegen.model.accuracy import predicts
from sitegen.model.history import rate_league
from sitegen.rating import elo_kernel

sys.path.insert(0, str(Path(__file__).resolve().parent))
from helpers import REPO, season_league  # noqa: E402
from test_incremental import assert_same_as_cold  # noqa: E402
from test_kept_pages import append_copy  # noqa: E402

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "small"


def test_an_appended_match_is_the_only_one_scored_again(site: Path, tmp_path: Path, monkeypatch, here) -> None:
    scored: list[tuple[str, int]] = []
    pairs = baselines.pair_arrays

    def counting(system, matches, events):
        scored.append((matches[0].file.split("/")[1] if matches else "", len(matches)))
        return pairs(system, matches, events)

    monkeypatch.setattr(baselines, "pair_arrays", counting)
    replayed: list[int] = []            # the matches the replay with the defaults took up
    resume = elo_kernel.expected_from

    def replaying(system, matches, before):
        replayed.append(len(matches) - (before.matches if before is not None else 0))
        return resume(system, matches, before)

    monkeypatch.setattr(elo_kernel, "expected_from", replaying)
    out = tmp_path / "out"
    build(site, out)
    assert sorted(name for name, _ in scored) == ["duel", "ladder", "royale", "wvw"]
    assert replayed == [6]                  # the ladder's parameters are not elo's defaults
    scored.clear()
    replayed.clear()
    build(site, out)
    assert scored == [("wvw", 3)]           # glicko2's periods are scored whole; the others not at all
    assert replayed == []
    scored.clear()
    append_copy(site, "ladder")
    build(site, out)
    assert sorted(scored) == [("ladder", 1), ("wvw", 3)]
    assert replayed == [1]
    assert_same_as_cold(site, out, tmp_path)


@pytest.fixture(scope="module")
def rated_leagues(checked) -> list[League]:
    """The leagues that predict, of the small fixture and the demo's of up to 2,000 matches,
    checked once a session (conftest's ``checked``); a league is frozen, each test rates it."""
    small = checked(FIXTURE).leagues
    demo = [lg for lg in checked(REPO).leagues if len(lg.matches) <= 2000]
    return [lg for lg in (*small, *demo) if predicts(rate_league(lg))]


@pytest.mark.parametrize("cut", [0.0, 0.3, 0.5, 0.9, 1.0])
def test_sums_carried_on_after_appended_matches_are_whole_sums(rated_leagues, cut: float) -> None:
    """The accuracy sums of a league's first matches, carried on over the rest, are the sums of
    every match at once, to the last bit (a league rated in periods is scored whole)."""
    for league in rated_leagues:
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


def test_a_table_s_tail_is_its_events_from_there(rated_leagues) -> None:
    for league in rated_leagues:
        events = rate_league(league).events
        if not baselines.resumable(rate_league(league)):
            continue
        for start in (0, 1, len(events) // 2, len(events)):
            assert list(events.tail(start)) == list(events)[start:]


@pytest.mark.parametrize("cut", [0.0, 0.3, 0.5, 0.9, 1.0])
def test_default_replay_carried_on_is_a_whole_replay(rated_leagues, cut: float) -> None:
    """The replay with the default parameters (elo leagues whose own are not), taken up after the
    league's first matches, scores as the whole replay does."""
    leagues = [lg for lg in rated_leagues if lg.config.system_name == "elo"]
    assert any(not baselines.uses_defaults(lg.config) for lg in leagues)
    for league in leagues:
        whole = rate_league(league)
        cold = baselines.default_model(whole)
        assert baselines.default_from(whole, None)[0] == cold
        first = max(1, int(len(league.matches) * cut))
        _, before = baselines.default_from(rate_league(League(league.config, league.matches[:first])), None)
        resumed, after = baselines.default_from(whole, pickle.loads(pickle.dumps(before)))
        assert resumed == cold, league.config.slug
        assert after.matches == len(league.matches)
        assert baselines.default_from(whole, after)[0] == cold


def test_a_season_carries_over_into_the_replay_taken_up(tmp_path: Path) -> None:
    """A match that names no season is played in the last one named, before the cut too."""
    root = season_league(tmp_path / "site")
    league = check(root, cache=False).leagues[0]
    events = rate_league(league).events
    whole = np.array(events.column("expected", 0, events.rows)[0::2])
    system = league.config.system
    for first in range(1, 40, 3):
        _, _, before = elo_kernel.expected_from(system, league.matches[:first], None)
        e, s, after = elo_kernel.expected_from(system, league.matches, before)
        assert e.tolist() == whole[first:].tolist()
        assert after.seasons[after.league] == "s2"
