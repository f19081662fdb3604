"""A build makes each league's predictions, predictor states and opponent pools once: the data
files and the pages share them through RatedLeague.cache, and the output is what it was."""

from __future__ import annotations

from collections import Counter

import pytest

import sitegen.model.ledger as ledger_module
import sitegen.model.pools as pools_module
import sitegen.model.table as table_module
from sitegen.commands.build import build
from sitegen.output import parallel
from sitegen.rating.elo import Elo
from sitegen.rating.placement import Placement
from helpers import day, elo_match, league_toml, write_files


def placement_match(played: str, places: dict[str, int]) -> str:
    players = ", ".join(f'{{ name = "{n}", place = {p} }}' for n, p in places.items())
    return f"[[match]]\nplayed = {played}\nplayers = [{players}]\n\n"


@pytest.fixture
def site(tmp_path):
    names = ["Ann", "Bo", "Cy", "Di", "Ed"]
    elo = "".join(elo_match(day(i), names[i % 5], 1, names[(i + 2) % 5], 0) for i in range(30))
    br = "".join(placement_match(day(i), {n: 1 + (i * (k + 1)) % 3 for k, n in enumerate(names)}) for i in range(12))
    return write_files(tmp_path / "site", {
        "matches/duels/league.toml": league_toml("elo"),
        "matches/duels/m.toml": elo,
        "matches/royale/league.toml": league_toml("placement"),
        "matches/royale/m.toml": br,
    })


def counting(monkeypatch, owner, name, calls: Counter):
    original = getattr(owner, name)

    def wrapper(*args, **kwargs):
        calls[name] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, wrapper)


def test_each_league_is_predicted_once_a_build_and_the_output_is_unchanged(site, tmp_path, monkeypatch):
    # In one process: with a second core the data files are written by a process of their
    # own (output/parallel.py Background), which works out what they need for itself.
    monkeypatch.setattr(parallel, "cores", lambda: 1)
    build(site, tmp_path / "first")
    calls: Counter = Counter()
    counting(monkeypatch, Placement, "pair_forecast_arrays", calls)
    counting(monkeypatch, Elo, "pair_forecast_arrays", calls)
    counting(monkeypatch, Elo, "pair_forecasts", calls)
    counting(monkeypatch, Placement, "predictor_states", calls)
    counting(monkeypatch, Elo, "predictor_states", calls)
    counting(monkeypatch, pools_module, "_draw_pools", calls)
    counting(monkeypatch, pools_module, "table_csv_rows", calls)
    counting(monkeypatch, ledger_module, "changes_columns", calls)
    counting(monkeypatch, table_module, "changes_columns", calls)
    # Without the cache: the scores the last build left there would be taken up (below).
    build(site, tmp_path / "second", cache=False)
    # Predictions (as columns: elo's from its rating columns, no object a pair) and states once
    # a league; the elo league draws its pools once, seeded by its
    # standings rows formatted once; changes.csv is formatted by the data files alone, once a
    # league (the pools' seeds never read it).
    assert calls == Counter(pair_forecast_arrays=2, pair_forecasts=0, predictor_states=2, _draw_pools=1,
                            table_csv_rows=1, changes_columns=2)
    # With it, the sums of the first build's predictions are carried on (model/baselines.py
    # cached_scores): no match is new, so none is predicted again.
    calls.clear()
    build(site, tmp_path / "third")
    assert calls["pair_forecast_arrays"] == calls["pair_forecasts"] == 0
    first = {p.relative_to(tmp_path / "first"): p.read_bytes() for p in (tmp_path / "first").rglob("*") if p.is_file()}
    second = {p.relative_to(tmp_path / "second"): p.read_bytes() for p in (tmp_path / "second").rglob("*")
              if p.is_file()}
    third = {p.relative_to(tmp_path / "third"): p.read_bytes() for p in (tmp_path / "third").rglob("*") if p.is_file()}
    assert first.keys() == second.keys() == third.keys()
    assert [k for k in first if first[k] != second[k] or first[k] != third[k]] == []
