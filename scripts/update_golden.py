"""Regenerate the golden output of the fixture site: ``python scripts/update_golden.py``.

Builds ``tests/fixtures/small/`` and replaces ``tests/fixtures/small-golden/``
with every file of the result except those in ``UNSTORED`` (the large
third-party Vega bundle, checked only for being there). Run it after a change
that is meant to alter the output, then read ``git diff tests/fixtures/small-golden``
before committing: the diff is the review of what the change did to the site.

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
# Built (copied from the theme), but not kept in the golden folder: the vendored Vega bundle
# and its licences.
UNSTORED = ("assets/vega.js", "assets/vega.LICENSES.txt")


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
        if GOLDEN.exists():
            shutil.rmtree(GOLDEN)
        for rel, data in files.items():
            if rel in UNSTORED:
                continue
            target = GOLDEN.joinpath(*rel.split("/"))
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
    stored = len(files) - len([r for r in UNSTORED if r in files])
    print(f"update_golden: wrote {stored} files into {GOLDEN.relative_to(REPO)} "
          f"(not stored: {', '.join(UNSTORED)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
