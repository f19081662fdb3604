"""The shared chart specs (output/charts.py) read back from the build cache are the specs Altair
makes, and a build that finds them there imports neither Altair nor pandas."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

from sitegen.load.cache import Cache
from sitegen.output import charts

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def fresh():
    held = dict(charts._made)
    charts._made.clear()
    yield
    charts._made.clear()
    charts._made.update(held)


def _dumped() -> dict[str, str]:
    return {kind: json.dumps(charts._spec(kind), sort_keys=True) for kind in charts._MAKERS}


def test_specs_read_back_are_the_specs_made(tmp_path, fresh):
    made = {kind: json.dumps(maker(), sort_keys=True) for kind, maker in charts._MAKERS.items()}
    cache = Cache(tmp_path / "cache")
    charts.load_specs(cache)            # a miss: made, then kept
    assert _dumped() == made
    assert cache.get("charts", f"altair {version('altair')}") is not None
    charts._made.clear()
    charts.load_specs(cache)            # read back
    assert _dumped() == made
    assert json.dumps(charts.history_spec(), sort_keys=True) == json.dumps(
        {**charts._MAKERS["history"](), "datasets": {charts.HISTORY: []}}, sort_keys=True)


def test_an_incomplete_entry_is_made_again(tmp_path, fresh):
    cache = Cache(tmp_path / "cache")
    cache.put("charts", f"altair {version('altair')}", {"history": {"broken": True}})
    charts.load_specs(cache)
    assert charts._spec("history") == charts._MAKERS["history"]()
    assert set(charts._made) == set(charts._MAKERS)


def test_specs_from_the_cache_import_no_altair(tmp_path, fresh):
    charts.load_specs(Cache(tmp_path / "cache"))
    # The page and build modules import neither Altair nor pandas themselves: a rebuild that
    # makes no ledger frame and finds the specs kept imports neither.
    code = ("import sys; from pathlib import Path; from sitegen.load.cache import Cache; "
            "import sitegen.commands.build, sitegen.output.pages, sitegen.model.career; "
            "from sitegen.output import charts; "
            f"charts.load_specs(Cache(Path({str(tmp_path / 'cache')!r}))); "
            "charts.distribution_chart([]); charts.calibration_chart([]); charts.history_spec(); "
            "print('altair' in sys.modules, 'pandas' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]
