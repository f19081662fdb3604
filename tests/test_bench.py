"""scripts/bench.py and scripts/bench_engines.py: the generated leagues are valid and repeatable,
and the report (tables, JSON) comes out of a tiny run. No timing is asserted: the benchmark
measures, it does not judge."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from helpers import REPO, load_script
from sitegen.commands.build import check


def load(name: str):
    return load_script(name)


@pytest.fixture(scope="module")
def bench():
    sys.path.insert(0, str(REPO / "scripts"))     # bench.py imports bench_engines beside it
    try:
        yield load("bench")
    finally:
        sys.path.remove(str(REPO / "scripts"))


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("system,matches,players,lobby", [("elo", 50, 12, 100), ("lunaro", 50, 12, 100),
                                                          ("placement", 30, 40, 10)])
def test_generated_league_passes_check_and_is_repeatable(bench, tmp_path, system, matches, players, lobby):
    site = tmp_path / "site"
    bench.generate(site, matches, players, system, lobby, per_file=20)
    first = tree(site)
    assert sorted(first) == ["matches/bench/league.toml", "matches/bench/part-0000.toml",
                             "matches/bench/part-0001.toml", "matches/bench/part-0002.toml"][:2 + (matches - 1) // 20]
    checked = check(site)
    (league,) = checked.leagues
    assert league.config.system_name == system
    assert len(league.matches) == matches
    assert len({p for m in league.matches for p in m.players}) <= players
    if system == "placement":
        assert {len(m.players) for m in league.matches} == {lobby}
    bench.generate(site, matches, players, system, lobby, per_file=20)
    assert tree(site) == first                       # seeded: the same bytes again

    # The rebuild case: one match more, at the end of the last file, after every other.
    bench.append_match(site, matches, system, lobby)
    (league,) = check(site).leagues
    assert len(league.matches) == matches + 1
    last = max(league.matches, key=lambda m: m.played)
    assert last.file.endswith(f"part-{(matches - 1) // 20:04d}.toml")
    assert last.played > max(m.played for m in league.matches if m is not last)


def test_tiny_run_reports_tables_and_json(bench, tmp_path, capsys):
    out = tmp_path / "bench.json"
    assert bench.main(["--matches", "200", "--players", "30", "--dir", str(tmp_path / "work"),
                       "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    data = json.loads(out.read_text(encoding="utf-8"))
    (case,) = data["cases"]
    assert case["case"] == "custom" and case["matches"] == 200 and case["system"] == "elo"
    cold, warm = case["cold"], case["rebuild"]
    assert cold["status"] == warm["status"] == "ok"
    stages = [s["stage"] for s in cold["stages"]]
    for stage in ("load + validate", "rate", "data files", "render pages", "swap in"):
        assert stage in stages
    assert [s["stage"] for s in warm["stages"]] == stages
    assert all(s["wall_s"] >= 0 and s["cpu_s"] >= 0 for s in cold["stages"])
    # What the last build wrote is what is reported: the files of the output folder and their bytes.
    built = [p for p in (tmp_path / "work" / "custom" / "out").rglob("*") if p.is_file()]
    assert warm["files"] == len(built)
    assert warm["bytes"] == sum(p.stat().st_size for p in built)
    assert 0 < cold["files"] <= warm["files"]        # one match more: its page, never fewer files
    assert cold["bytes_per_match"] == pytest.approx(cold["bytes"] / 200)
    assert warm["bytes"] > 0 and cold["peak_rss_mib"] > 0
    assert "== custom: 200 matches, 30 players" in printed
    assert "one appended match: rebuild" in printed
    assert "== builds" in printed and "\ncustom " in printed
    assert data["engines"] == []


def test_a_build_past_its_timeout_is_reported_not_awaited(bench, tmp_path):
    site = tmp_path / "site"
    bench.generate(site, 50, 10, "elo")
    result = bench.run_build(site, tmp_path / "out", timeout=0.05)
    assert result["status"].startswith("not finished within 0.05 s") and result["wall_s"] is None
    table = bench.stage_table({"case": "slow", "matches": 50, "cold": result})
    assert "cold build: not finished within 0.05 s" in table
    assert "not finished within 0.05 s" in bench.summary([{"case": "slow", "matches": 50, "cold": result}])


def test_a_build_past_its_memory_limit_is_stopped(bench, tmp_path):
    site = tmp_path / "site"
    bench.generate(site, 50, 10, "elo")
    result = bench.run_build(site, tmp_path / "out", timeout=120, max_rss=1)
    assert result["status"].startswith("stopped at ") and "(limit 1 MiB)" in result["status"]
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_engines_on_tiny_sequences():
    engines = load("bench_engines")
    rows = engines.run(duel_matches=300, duel_players=20, lobby_matches=5, lobby_players=50, lobby=10,
                       log=lambda _: None)
    names = [(r["engine"], r["case"].split(",")[0]) for r in rows]
    for system in engines.ONE_V_ONE:
        assert (f"sitegen {system}", "1v1") in names
    for package in ("openskill PlackettLuce", "PyPI glicko2", "trueskill"):
        assert (package, "1v1") in names
    assert ("sitegen placement", "lobbies of 10") in names
    for system in engines.KERNELS:
        assert (f"sitegen {system} kernel (plain)", "1v1") in names
        assert (f"sitegen {system} kernel (numba)", "1v1") in names
    assert ("openskill PlackettLuce", "lobbies of 10") in names
    for r in rows:
        if not r.get("missing"):
            assert r["matches"] in (300, 5) and r["matches_per_s"] > 0
    reference = [r for r in rows if r["engine"] == "openskill PlackettLuce"]
    assert all(r["vs_openskill"] == pytest.approx(1.0) for r in reference)
    glicko = next(r for r in rows if r["engine"] == "sitegen glicko2")
    assert "vs_pypi_glicko2" in glicko
    text = engines.table(rows)
    assert text.count("\n") == len(rows)
    assert "sitegen glicko2" in text and "trueskill" in text


def test_engine_matches_are_valid_for_each_system():
    """Every prepared sequence goes through the system's own validation first."""
    engines = load("bench_engines")
    from sitegen.rating import SYSTEMS
    import random
    duels = engines.duel_sequence(40, 6)
    assert duels == engines.duel_sequence(40, 6)
    assert {s for _, _, s in engines.duel_sequence(500, 20)} == {0.0, 0.5, 1.0}
    for name in engines.ONE_V_ONE:
        system = SYSTEMS[name](**engines.PARAMS.get(name, {}))
        rng = random.Random(1)
        matches = engines.prepared(system, [engines._raw_duel(name, a, b, s, rng) for a, b, s in duels])
        events = system.rate(matches)
        assert len(events) == 40 and all(len(m.players) == 2 for m in matches)
    with pytest.raises(ValueError, match="bench match 1 of elo"):
        engines.prepared(SYSTEMS["elo"](), [{"players": [{"name": "A", "score": 2}, {"name": "B", "score": 0}]}])


def test_a_build_without_the_cache_neither_reads_nor_writes_it(bench, tmp_path):
    # The demo's cold build: the repository's own cache (left by `make site`) would make it a rebuild.
    site = tmp_path / "site"
    bench.generate(site, 40, 8, "elo")
    result = bench.run_build(site, tmp_path / "out", timeout=120, cache=False)
    assert result["status"] == "ok" and result["files"] > 0
    assert not (site / ".sitegen-cache").exists()
    assert bench.run_build(site, tmp_path / "out", timeout=120)["status"] == "ok"
    assert (site / ".sitegen-cache").is_dir()


def test_trees_set_aside_go_at_the_end(bench, tmp_path):
    """A case's old trees are moved away at once and deleted only when every build is measured:
    a generated site made again over an old one leaves it aside, then nothing is left."""
    site = tmp_path / "site"
    bench.generate(site, 30, 6, "elo", per_file=10)
    first = tree(site)
    bench.generate(site, 30, 6, "elo", per_file=10)
    assert tree(site) == first
    aside = [p for p in tmp_path.iterdir() if p.name.startswith(".site.old-")]
    assert len(aside) == 1 and tree(aside[0]) == first
    bench.delete_set_aside()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]
    bench.set_aside(tmp_path / "missing")       # nothing there: nothing to do
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]
