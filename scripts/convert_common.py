"""What the converters of real data (f1_league.py, football_league.py, nfl_league.py) share."""

from __future__ import annotations

import datetime
import re
from pathlib import Path

DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def is_date(text: str) -> bool:
    """YYYY-MM-DD, and a day the calendar has."""
    try:
        return bool(DATE.fullmatch(text)) and bool(datetime.date.fromisoformat(text))
    except ValueError:
        return False


def replace_match_files(out: Path, files: dict[str, str], generated: re.Pattern[str]) -> int:
    """Write ``files`` into ``out`` after removing the files a previous run wrote there (the names
    ``generated`` matches, so a file of someone else's stays); the number of matches written."""
    out.mkdir(parents=True, exist_ok=True)
    for old in out.iterdir():
        if old.is_file() and generated.fullmatch(old.name):
            old.unlink()
    for name, text in files.items():
        (out / name).write_text(text, encoding="utf-8", newline="\n")
    return sum(text.count("[[match]]") for text in files.values())
