"""The shortcuts of checking a long history find what the plain checks found: the same match
entered twice (told apart first by time and players), names normalised (ASCII without NFC)."""

from __future__ import annotations

import unicodedata
from datetime import datetime, timedelta, timezone

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from sitegen.load import duplicates
from sitegen.load.problems import Problems
from sitegen.load.validate import _report_duplicates
from sitegen.rating import SYSTEMS
from sitegen.rating.fields import normalize_name
from sitegen.rating.values import Match

START = datetime(2024, 1, 1, tzinfo=timezone.utc)


def report_duplicates_plainly(matches, explicit, system, problems) -> None:
    """Every match's full key (time, players and results as written) against all before it."""
    conditions = {f.name for f in getattr(system, "fields", ()) if not f.result}
    first: dict[tuple, Match] = {}
    for m in matches:
        results = tuple(sorted(
            (name, tuple(sorted((k, repr(v)) for k, v in entry.items() if k not in conditions)))
            for name, entry in zip(m.players, m.entries)))
        earlier = first.setdefault((m.played, results), m)
        if earlier is m or (m.id in explicit and earlier.id in explicit):
            continue
        where = f"{earlier.file}:{earlier.line}" if earlier.line else earlier.file
        problems.add(m.file, f"the same match as {earlier.id!r} at {where} (same played, players and "
                             "results): remove the copy, or give both matches explicit ids if they "
                             "really are two matches", line=m.line,
                     match=f"{m.id!r} (#{m.position})" if m.id in explicit else f"#{m.position} ({m.id})")


# The strategies a history draws from, made once: made again for every match they cost most of
# the tests' time (hypothesis validates each new strategy), and they draw the same either way.
COUNTS = st.integers(0, 30)
NAMES = st.lists(st.sampled_from(["ann", "bo", "cy", "di"]), min_size=2, max_size=3, unique=True)
GOALS = st.sampled_from([0, 1, 1.0, True])
SMALL = st.integers(0, 2)            # a ping, and the hours after START
COIN = st.booleans()


@st.composite
def histories(draw):
    count = draw(COUNTS)
    matches = []
    for i in range(count):
        names = draw(NAMES)
        entries = tuple({"goals": draw(GOALS), "ping": draw(SMALL)} for _ in names)
        matches.append(Match(id=f"m-{i + 1}", played=START + timedelta(hours=draw(SMALL)),
                             file="matches/l/a.toml", position=i + 1, notes=None, players=tuple(names),
                             entries=entries, line=i * 3 + 1 if draw(COIN) else None))
    explicit = {m.id for m in matches if draw(COIN)}
    return matches, explicit


@settings(max_examples=300, deadline=None)
@given(histories())
def test_the_same_match_twice_is_found_as_by_comparing_every_match(history) -> None:
    matches, explicit = history
    system = SYSTEMS["lunaro"]()          # ping is a condition, not a result: it does not count
    fast, plain = Problems(), Problems()
    _report_duplicates(tuple(matches), explicit, system, fast)
    report_duplicates_plainly(matches, explicit, system, plain)
    assert list(fast) == list(plain)


@settings(max_examples=500, deadline=None)
@given(st.text())
def test_names_normalise_as_nfc_of_the_trimmed_text(text: str) -> None:
    assert normalize_name(text) == unicodedata.normalize("NFC", text.strip())


@settings(max_examples=300, deadline=None)
@given(histories(), st.data())
def test_the_same_match_among_the_changed_files_runs_is_found_as_among_all(history, data) -> None:
    """Where the kept files' matches report no duplicate, the check over the runs of matches
    played at a changed match's time (duplicates.near) reports what the check over every match does."""
    matches, explicit = history
    system = SYSTEMS["lunaro"]()
    changed = {m.id for m in matches if data.draw(st.booleans())}
    kept = tuple(m for m in matches if m.id not in changed)
    alone = Problems()
    _report_duplicates(kept, explicit, system, alone)
    assume(not alone)          # the premise: the kept part was a league without duplicates
    ordered = tuple(sorted(matches, key=lambda m: (m.played, m.position)))
    every, near = Problems(), Problems()
    _report_duplicates(ordered, explicit, system, every)
    _report_duplicates(duplicates.near(ordered, [m for m in ordered if m.id in changed]), explicit, system, near)
    assert list(near) == list(every)
