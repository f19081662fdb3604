"""Fuzzing the check and the build with mutated match files and league.toml (tests/fuzzing.py).

2,000 cases of seed SEED in CHUNKS chunks (pytest -n spreads them over the cores): byte flips,
truncation, values of the wrong type, extreme numbers and dates, control and bidi characters,
BOM, CRLF, invalid UTF-8, deep nesting, duplicated matches, many players, odd parameters and
tiers. No case may end in a traceback, an exception, an exit code other than 0 or 1, or a hang.
`make fuzz` (scripts/fuzz.py) runs the same stream further, with bigger inputs.
"""

from __future__ import annotations

import time

import pytest

import fuzzing

SEED = 20250601
CHUNKS = 8
PER_CHUNK = 250            # 8 x 250 = 2,000 cases
BUILDS_PER_CHUNK = 3       # a build takes 0.2-1 s against about 20 ms for a check
LIMIT = 3.0                # CPU seconds for a check (18 for a build) before a case counts as a hang


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_no_input_crashes_or_hangs_the_check(chunk, tmp_path):
    save = tmp_path / "failures"
    indices = range(chunk * PER_CHUNK, (chunk + 1) * PER_CHUNK)
    summary = fuzzing.run_range(SEED, indices, workdir=tmp_path / "work", profile="quick", limit=LIMIT,
                                save_dir=save, max_builds=BUILDS_PER_CHUNK)
    assert summary.cases == PER_CHUNK
    if summary.failures:
        pytest.fail(f"{len(summary.failures)} of {summary.cases} fuzz cases failed (seed {SEED}); failing "
                    f"inputs in {save}\n{summary.report(save)}", pytrace=False)


def test_the_corpus_itself_is_valid(tmp_path):
    # The mutations start from files the check accepts and the build builds.
    runner = fuzzing.Runner(tmp_path, limit=60)
    for league, files in fuzzing.corpus().items():
        result = runner.run(fuzzing.Case(0, 0, league, dict(files), []), build=True)
        assert [(o.command, o.exit) for o in result.outcomes] == [("check", 0), ("build", 0)], \
            f"{league}: {result.failure.detail if result.failure else result.outcomes[-1].stderr}"


def test_cases_are_reproducible_from_seed_and_index():
    for index in (0, 1, 7, 1999):
        assert fuzzing.make_case(SEED, index).files == fuzzing.make_case(SEED, index).files
    assert fuzzing.make_case(SEED, 0).files != fuzzing.make_case(SEED + 1, 0).files


def test_the_quick_cases_cover_every_kind_of_mutation():
    used = set()
    sizes = []
    for index in range(CHUNKS * PER_CHUNK):
        case = fuzzing.make_case(SEED, index)
        used.update(m.split(": ")[-1] for m in case.mutations)
        sizes.append(sum(len(v or b"") for v in case.files.values()))
    expected = {name for name, (_, weight) in fuzzing.MUTATIONS.items() if weight} | {"league"}
    expected |= {f"file:{kind}" for kind in fuzzing.FILE_MUTATIONS}
    assert expected <= used, f"never drawn: {sorted(expected - used)}"
    assert max(sizes) < 2_000_000      # the quick sizes stay quick


def test_the_runner_reports_an_exception_and_a_hang(tmp_path, monkeypatch):
    import sitegen.commands.build

    case = fuzzing.Case(0, 0, "ranked-battle", dict(fuzzing.corpus()["ranked-battle"]), [])
    runner = fuzzing.Runner(tmp_path, limit=0.5)

    def broken(root, **options):
        raise ZeroDivisionError("planted")

    monkeypatch.setattr(sitegen.commands.build, "check", broken)
    failure = runner.run(case).failure
    assert failure is not None and "ZeroDivisionError" in failure.signature + failure.detail

    def busy(root, **options):
        while True:
            pass

    def waiting(root, **options):
        time.sleep(30)

    for stuck in (busy, waiting):
        monkeypatch.setattr(sitegen.commands.build, "check", stuck)
        t0 = time.monotonic()
        failure = runner.run(case).failure
        assert failure is not None and failure.kind == "hang" and time.monotonic() - t0 < 10, stuck.__name__
