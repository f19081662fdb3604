"""Shared fixtures. ``make_site(files)`` writes ``{relative path: text}`` (text as
UTF-8, bytes as they are) into a fresh folder under tmp_path and returns its root,
MkDocs-style::

    root = make_site({
        "matches/duel/league.toml": 'name = "Duel"\\nsystem = "lunaro"\\n',
        "matches/duel/2024.toml": MATCHES,
    })
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from helpers import write_files


@pytest.fixture
def make_site(tmp_path: Path):
    """A helper writing a small site into tmp_path; returns the site's root."""
    counter = itertools.count(1)

    def _make(files: dict[str, str | bytes], name: str | None = None) -> Path:
        root = tmp_path / (name or f"site{next(counter)}")
        root.mkdir(parents=True)
        return write_files(root, files)

    return _make
