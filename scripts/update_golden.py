"""Regenerate the golden output of the fixture site: ``python scripts/update_golden.py``.

Builds ``tests/fixtures/small/`` and replaces ``tests/fixtures/small-golden/``
with what the golden test compares byte for byte: every data file (``data/``,
the auditable promise the auditors' guide describes) and the handful of representative
pages in ``PAGES``. The theme's assets are not stored (the test checks that they
are the theme's own files), nor the search index and the other pages, so that a
template change rewrites a few pages here rather than every one. Run it after a
change that is meant to alter the output, then read ``git diff
tests/fixtures/small-golden`` before committing: the diff is the review of what
the change did to the site.

tests/test_site_golden.py imports this module, so the test and the script can
never disagree on what is built and what is stored.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FIXTURE = REPO / "tests" / "fixtures" / "small"
GOLDEN = REPO / "tests" / "fixtures" / "small-golden"
THEME_ASSETS = REPO / "templates" / "assets"
# Assets the build writes beside the theme's own: the Vega bundle and the rating-history chart spec
# every player page shares. Checked only for being there.
UNSTORED = ("assets/vega.js", "assets/history.vl.json")
# One page of each kind: home, a leaderboard, a player, a match and a spec page.
PAGES = (
    "index.html",
    "leagues/duel/index.html",
    "leagues/duel/players/ana/index.html",
    "leagues/duel/matches/round-1/index.html",
    "spec/lunaro/index.html",
)


def kept(rel: str) -> bool:
    """Whether the golden folder holds this built file: every data file, and the pages in PAGES.
    Parquet files are not kept: their footer names the pyarrow version that wrote them, and
    tests/test_ledger_table.py holds their values to the CSV's."""
    return (rel.startswith("data/") and not rel.endswith(".parquet")) or rel in PAGES


def tree(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` by its '/'-separated relative path."""
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def build_fixture(out: Path) -> dict[str, bytes]:
    """Build the fixture site into ``out`` (in this process) and return its files."""
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    from sitegen.commands.build import build

    # Built from a copy outside this repository and without SOURCE_DATE_EPOCH: the golden
    # output must not name this repository's commits or date, which change with every commit.
    source = out.parent / "fixture-src"
    shutil.copytree(FIXTURE, source)
    saved = os.environ.pop("SOURCE_DATE_EPOCH", None)
    try:
        build(source, out)
    finally:
        if saved is not None:
            os.environ["SOURCE_DATE_EPOCH"] = saved
    return tree(out)


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        files = build_fixture(Path(tmp) / "site")
        stored = {rel: data for rel, data in files.items() if kept(rel)}
        missing = sorted(set(PAGES) - set(stored))
        if missing:     # the golden folder is left as it was
            print(f"update_golden: not built: {', '.join(missing)}; change PAGES", file=sys.stderr)
            return 1
        if GOLDEN.exists():
            shutil.rmtree(GOLDEN)
        for rel, data in stored.items():
            target = GOLDEN.joinpath(*rel.split("/"))
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    print(f"update_golden: wrote {len(stored)} of the {len(files)} built files into {GOLDEN.relative_to(REPO)} "
          f"(every data file and {len(PAGES)} pages)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
