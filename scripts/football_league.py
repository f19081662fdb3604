"""Convert men's international football results since 1872 into an ``elo`` league.

Data: martj42/international_results (``results.csv``, ``shootouts.csv``),
dedicated to the public domain under CC0 1.0
(https://creativecommons.org/publicdomain/zero/1.0/). The converted match files
carry the same dedication.

The league (docs/auditors):

* ``home``: the home team, unless ``neutral`` is TRUE (then no ``home``);
  ``home_advantage = 100``;
* ``points``: the goals (after extra time, without a penalty shoot-out), with
  ``margin = "538-nfl"``, whose ln(goal difference + 1) suits football's small
  margins; a game decided on penalties is a draw, its shoot-out named in the notes;
* ``weight``: the tournament's importance, the K factors of the World Football
  Elo Ratings (eloratings.net, "About the ratings") divided by K = 20:
  60 for World Cup finals (weight 3), 50 for continental championships and
  intercontinental tournaments (2.5), 40 for World Cup and continental
  qualifiers and the Nations Leagues (2), 30 for every other tournament (1.5)
  and 20 for friendlies (1). Which named tournament is in which tier is the
  ``TIERS`` table below.

Every team starts at 1500. One file per year, ``<year>.toml``, the matches in
the data's order; ids are ``<date>-<home>-<away>`` (slugs of the names, each
cut to 24 characters; ``-2`` and on for a repeat). The output is deterministic.
Existing ``<year>.toml`` files in the output folder are removed first.

    python scripts/football_league.py
    python scripts/football_league.py --data ../shared/data/intl_football --out matches/football
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
import unicodedata
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))      # convert_common, beside this script
from convert_common import is_date, replace_match_files  # noqa: E402
from sitegen.load.tomlwrite import string as toml_string  # noqa: E402  (the one TOML writer: tomlkit's escaping)

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATA = REPO.parent / "shared" / "data" / "intl_football"
DEFAULT_OUT = REPO / "matches" / "football"
YEAR_FILE = re.compile(r"[0-9]{4}\.toml")

K = 20
HOME_ADVANTAGE = 100
MARGIN = "538-nfl"

# eloratings.net's K by kind of match; the weight of a match is K / 20.
WORLD_CUP, CONTINENTAL, QUALIFIER, OTHER, FRIENDLY = 60, 50, 40, 30, 20
CONTINENTAL_FINALS = (
    "UEFA Euro", "Copa América", "African Cup of Nations", "AFC Asian Cup", "Gold Cup",
    "CONCACAF Championship", "Oceania Nations Cup",
)
TIERS: dict[str, int] = {
    "FIFA World Cup": WORLD_CUP,
    **{name: CONTINENTAL for name in CONTINENTAL_FINALS},
    # Intercontinental tournaments between continental champions.
    "Confederations Cup": CONTINENTAL,
    "CONMEBOL–UEFA Cup of Champions": CONTINENTAL,
    "FIFA World Cup qualification": QUALIFIER,
    **{f"{name} qualification": QUALIFIER for name in CONTINENTAL_FINALS},
    # The Nations Leagues double as qualifiers for their continent's championship.
    "UEFA Nations League": QUALIFIER,
    "CONCACAF Nations League": QUALIFIER,
    "CONCACAF Nations League qualification": QUALIFIER,
    "Friendly": FRIENDLY,
}


def tier(tournament: str) -> int:
    return TIERS.get(tournament, OTHER)


def weight_text(k: int) -> str:
    w = k / K
    return str(int(w)) if w.is_integer() else repr(w)


# --------------------------------------------------------------------------
# Reading
# --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Result:
    date: str
    home: str
    away: str
    home_goals: int
    away_goals: int
    tournament: str
    city: str
    country: str
    neutral: bool


def nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text).strip()


COLUMNS = ("date", "home_team", "away_team", "home_score", "away_score", "tournament", "city", "country",
           "neutral")
MAX_NAME = 64       # docs/curators: a player's name


class BadData(Exception):
    """Rows the converter cannot read; ``problems`` are "path:LINE: field: what; allowed"."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = problems


def read_results(data: Path) -> list[Result]:
    """Played matches in the file's order; a row whose scores are both NA or empty (a fixture
    not played yet) is left out, and every row that cannot be read is reported by BadData."""
    path = data / "results.csv"
    with open(path, encoding="utf-8-sig", newline="") as fh:
        reader = csv.DictReader(fh)
        missing = [c for c in COLUMNS if c not in (reader.fieldnames or ())]
        if missing:
            raise BadData([f"{path}:1: header: missing the columns {', '.join(missing)}; results.csv has "
                           f"{', '.join(COLUMNS)}"])
        out, problems = [], []
        for row in reader:
            line = reader.line_num
            scores = (row["home_score"] or "", row["away_score"] or "")
            if all(v.strip() in ("", "NA") for v in scores):
                continue
            bad = []
            if not is_date(row["date"] or ""):
                bad.append(f"date: {row['date']!r} is not a date; allowed: YYYY-MM-DD")
            home, away = nfc(row["home_team"] or ""), nfc(row["away_team"] or "")
            for key, name in (("home_team", home), ("away_team", away)):
                if not 0 < len(name) <= MAX_NAME:
                    bad.append(f"{key}: {name!r}; allowed: a name of 1 to {MAX_NAME} characters")
            if home and home == away:
                bad.append(f"away_team: {away!r} is also the home team; allowed: two different teams")
            for key, value in zip(("home_score", "away_score"), scores):
                if not (value.isascii() and value.isdigit()):
                    bad.append(f"{key}: {value!r} is not a score; allowed: a whole number >= 0 (NA in both "
                               "for a match not played yet)")
            neutral = (row["neutral"] or "").strip().upper()
            if neutral not in ("TRUE", "FALSE"):
                bad.append(f"neutral: {row['neutral']!r}; allowed: TRUE or FALSE")
            if bad:
                problems += [f"{path}:{line}: {row['date']} {home}-{away}: {b}" for b in bad]
                continue
            out.append(Result(row["date"], home, away, int(scores[0]), int(scores[1]),
                              nfc(row["tournament"] or "") or "Unknown tournament", nfc(row["city"] or ""),
                              nfc(row["country"] or ""), neutral == "TRUE"))
    if problems:
        raise BadData(problems)
    return out


def read_shootouts(data: Path) -> dict[tuple[str, str, str], str]:
    """(date, home, away) -> the shoot-out's winner."""
    path = data / "shootouts.csv"
    if not path.is_file():
        return {}
    with open(path, encoding="utf-8", newline="") as fh:
        return {(row["date"], nfc(row["home_team"]), nfc(row["away_team"])): nfc(row["winner"])
                for row in csv.DictReader(fh)}


# --------------------------------------------------------------------------
# Writing
# --------------------------------------------------------------------------


def slug(text: str) -> str:
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]+", "-", plain.lower()).strip("-")[:24].strip("-") or "team"


def match_id(r: Result, seen: set[str]) -> str:
    base = f"{r.date}-{slug(r.home)}-{slug(r.away)}"
    mid, n = base, 2
    while mid in seen:
        mid, n = f"{base}-{n}", n + 1
    seen.add(mid)
    return mid


def match_toml(r: Result, mid: str, shootout: str | None) -> str:
    s_home = 1 if r.home_goals > r.away_goals else 0.5 if r.home_goals == r.away_goals else 0
    s_away = 0.5 if s_home == 0.5 else 1 - s_home
    place = ", ".join(p for p in (r.city, r.country) if p)
    notes = f"{r.tournament}, {place}." if place else f"{r.tournament}."
    if shootout:
        notes += f" {shootout} won the penalty shoot-out (rated as a draw)."
    lines = ["[[match]]", f"id = {toml_string(mid)}", f"played = {r.date}"]
    if not r.neutral:
        lines.append(f"home = {toml_string(r.home)}")
    w = tier(r.tournament)
    if w != FRIENDLY:
        lines.append(f"weight = {weight_text(w)}")
    lines += [
        f"notes = {toml_string(notes)}",
        "players = [",
        f"  {{ name = {toml_string(r.home)}, score = {s_home}, points = {r.home_goals} }},",
        f"  {{ name = {toml_string(r.away)}, score = {s_away}, points = {r.away_goals} }},",
        "]",
    ]
    return "\n".join(lines) + "\n"


DESCRIPTION = """\
Every men's full international football match since 1872, rated with Elo as the
[World Football Elo Ratings](https://www.eloratings.net/about) do, with
FiveThirtyEight's margin of victory:

- **Home advantage** of 100 Elo points for the home team; none on neutral ground.
- **Goal difference** through FiveThirtyEight's NFL margin multiplier,
  ln(max(GD, 1) + 1) × 2.2 / (0.001 × d + 2.2) (d the winner's Elo edge, home
  advantage included): a 1-goal win counts 1.5 times, a 3-goal win about 3 times.
  A game decided on penalties is a draw.
- **Tournament weights** (the match's `weight` multiplies K = 20), from the K
  factors of the World Football Elo Ratings: World Cup finals 60 (weight 3),
  continental championships (Euro, Copa América, Africa Cup of Nations, Asian Cup,
  Gold Cup, Oceania Nations Cup) and intercontinental tournaments (Confederations
  Cup, Finalissima) 50 (2.5), World Cup and continental qualifiers and the Nations
  Leagues 40 (2), every other tournament 30 (1.5), friendlies 20 (1).

Every team starts at 1500. Measured by `scripts/football_logloss.py` on the
matches since 1990, these ratings predict results with a lower log loss than a
plain Elo (K = 20, home advantage 100).

**Data:** [martj42/international_results](https://github.com/martj42/international_results),
dedicated to the public domain under [CC0 1.0](https://creativecommons.org/publicdomain/zero/1.0/);
teams are named by their current names. Converted by `scripts/football_league.py`,
which regenerates this folder byte for byte.
"""


def league_toml() -> str:
    lines = [
        'name = "International football"',
        'system = "elo"',
        f'description = """\n{DESCRIPTION}"""',
        "",
        "[params]",
        f"k = {K}",
        'k_of = "each"',
        f"home_advantage = {HOME_ADVANTAGE}",
        f"margin = {toml_string(MARGIN)}",
    ]
    return "\n".join(lines) + "\n"


def convert(data: Path) -> dict[str, str]:
    """{file name: text} of the league folder."""
    results = read_results(data)
    shootouts = read_shootouts(data)
    years: dict[str, list[str]] = defaultdict(list)
    seen: set[str] = set()
    for r in results:
        years[r.date[:4]].append(match_toml(r, match_id(r, seen), shootouts.get((r.date, r.home, r.away))))
    files = {"league.toml": league_toml()}
    for year in sorted(years):
        header = (f"# International football {year}: {len(years[year])} matches. martj42/international_results "
                  f"(CC0 1.0),\n# converted by scripts/football_league.py; edit the script, not this file.\n")
        files[f"{year}.toml"] = header + "".join("\n" + m for m in years[year])
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA,
                        help="folder of results.csv and shootouts.csv (default: ../shared/data/intl_football)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help="the league folder to write (default: matches/football)")
    args = parser.parse_args(argv)
    if not (args.data / "results.csv").is_file():
        print(f"{args.data}: missing results.csv", file=sys.stderr)
        return 1
    try:
        files = convert(args.data)
    except BadData as exc:
        print("\n".join(exc.problems), file=sys.stderr)
        return 1
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        print(f"{args.data}: cannot be read: {exc}", file=sys.stderr)
        return 1
    matches = replace_match_files(args.out, files, YEAR_FILE)
    print(f"wrote {len(files)} files ({matches} matches) into {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
