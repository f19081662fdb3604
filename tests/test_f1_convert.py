"""scripts/f1_league.py: Ergast-schema CSV -> the formula-1 placement league.

The slice in fixtures/f1-slice/ holds, with their header rows, four races of the
real data: 1956 Argentina (no start time; Fangio retired his car and won in
Musso's, so he is listed twice and shares the win with Musso), 1956 Monaco
(no start time; Fangio twice again, places 4 and 2), 2024 Bahrain (start time
in UTC) and 2025 Abu Dhabi (no results yet), with their drivers and circuits.
"""

from __future__ import annotations

import shutil
import tomllib
from datetime import date, datetime, timezone
from pathlib import Path

import pytest

from helpers import REPO, build_data, load_script, read_csv
from sitegen.commands.build import check

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "f1-slice"
FULL_DATA = REPO.parent / "shared" / "data" / "f1"
COMMITTED = REPO / "matches" / "formula-1"


def f1_script():
    return load_script("f1_league")


f1 = f1_script()

ARGENTINA_1956 = """\
[[match]]
id = "1956-01-argentine-grand-prix"
played = 1956-01-22
notes = "Argentine Grand Prix, Autódromo Juan y Oscar Gálvez, Buenos Aires, Argentina."
players = [
  { name = "Juan Fangio", place = 1 },
  { name = "Luigi Musso", place = 1 },
  { name = "Jean Behra", place = 2 },
  { name = "Mike Hawthorn", place = 3 },
  { name = "Chico Landi", place = 4 },
  { name = "Gerino Gerini", place = 4 },
  { name = "Olivier Gendebien", place = 5 },
  { name = "Alberto Uria", place = 6 },
  { name = "Óscar González", place = 6 },
  { name = "Stirling Moss", place = 7 },
  { name = "Peter Collins", place = 8 },
  { name = "Luigi Piotti", place = 9 },
  { name = "Carlos Menditeguy", place = 10 },
  { name = "Eugenio Castellotti", place = 11 },
  { name = "José Froilán González", place = 12 },
]
"""


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """A site root whose only league is the converted slice."""
    root = tmp_path / "site"
    out = root / "matches" / "formula-1"
    assert f1.main(["--data", str(FIXTURE), "--out", str(out)]) == 0
    return root


def league_files(root: Path) -> dict[str, str]:
    folder = root / "matches" / "formula-1"
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.iterdir())}


def matches_of(root: Path, year: int) -> list[dict]:
    return tomllib.loads(league_files(root)[f"{year}.toml"])["match"]


def test_one_file_per_season_and_races_without_results_left_out(site):
    files = league_files(site)
    assert sorted(files) == ["1956.toml", "2024.toml", "league.toml"]
    assert [m["id"] for m in matches_of(site, 1956)] == [
        "1956-01-argentine-grand-prix", "1956-02-monaco-grand-prix"]
    assert [m["id"] for m in matches_of(site, 2024)] == ["2024-01-bahrain-grand-prix"]
    assert "abu-dhabi" not in "".join(files.values())


def test_exact_toml_of_a_race(site):
    text = league_files(site)["1956.toml"]
    assert text.startswith(
        "# Formula 1 1956: 2 races. Ergast-schema F1 results (CC0 1.0),\n"
        "# converted by scripts/f1_league.py; edit the script, not this file.\n\n")
    first = text.split("\n\n")[1] + "\n"
    assert first == ARGENTINA_1956


def test_a_driver_entered_twice_keeps_the_best_place(site):
    argentina, monaco = matches_of(site, 1956)
    places = {p["name"]: p["place"] for p in argentina["players"]}
    # results.csv: Fangio 13 (his own car, retired) and 1 (Musso's car).
    assert places["Juan Fangio"] == 1 and places["Luigi Musso"] == 1
    assert [p["name"] for p in argentina["players"]].count("Juan Fangio") == 1
    assert len(argentina["players"]) == 15  # 16 rows, one driver twice
    monaco_places = {p["name"]: p["place"] for p in monaco["players"]}
    assert monaco_places["Juan Fangio"] == 2  # rows of places 4 and 2
    assert len(monaco["players"]) == 19  # 21 rows, two drivers twice


def test_played_is_the_date_with_the_utc_start_time_when_known(site):
    assert matches_of(site, 1956)[1]["played"] == date(1956, 5, 13)
    bahrain = matches_of(site, 2024)[0]
    assert bahrain["played"] == datetime(2024, 3, 2, 15, 0, tzinfo=timezone.utc)
    assert "played = 2024-03-02T15:00:00Z\n" in league_files(site)["2024.toml"]
    assert bahrain["notes"] == "Bahrain Grand Prix, Bahrain International Circuit, Sakhir, Bahrain."
    assert [(p["name"], p["place"]) for p in bahrain["players"][:3]] == [
        ("Max Verstappen", 1), ("Sergio Pérez", 2), ("Carlos Sainz", 3)]
    assert len(bahrain["players"]) == 20


def test_league_toml_and_the_site_is_valid(site):
    league = tomllib.loads(league_files(site)["league.toml"])
    assert league["name"] == "Formula 1" and league["system"] == "placement"
    assert league["params"] == {"initial": 1500, "floor": 0, "k": 32, "normalize": True}
    assert "CC0 1.0" in league["description"]
    checked = check(site)
    assert [lg.config.slug for lg in checked.leagues] == ["formula-1"]


def test_ratings_of_the_first_race(site):
    changes = read_csv(build_data(site, "formula-1")["changes.csv"])
    first = [row for row in changes if row["event"] == "1956-01-argentine-grand-prix"]
    assert len(first) == 15
    fangio = next(row for row in first if row["player"] == "Juan Fangio")
    # 15 cars at 1500: beats 13, ties Musso: S = 13.5, E = 7; K = 32 / 14.
    assert fangio["score"] == "13.500000" and fangio["expected"] == "7.000000"
    assert fangio["k"] == "2.285714" and fangio["rating_after"] == "1514.857143"
    last = next(row for row in first if row["player"] == "José Froilán González")
    assert last["rating_after"] == "1484.000000"  # 1500 + 32/14 * (0 - 7)


def test_drivers_sharing_a_full_name_get_their_birth_year(tmp_path):
    data = tmp_path / "data"
    shutil.copytree(FIXTURE, data)
    with open(data / "drivers.csv", "a", encoding="utf-8", newline="") as fh:
        fh.write('9001,"fangio_jr",\\N,\\N,"Juan","Fangio","1911-03-02","Argentine",\\N\n'
                 '9002,"fangio_iii",\\N,\\N,"Juan","Fangio","1911-08-30","Argentine",\\N\n'
                 '9003,"moss_ii",\\N,\\N,"Stirling","Moss","1960-01-01","British",\\N\n')
    names = f1.driver_names(f1.read_csv(data / "drivers.csv"))
    # Three Juan Fangios born in 1911: the year does not tell them apart, the ref does.
    assert (names["579"], names["9001"], names["9002"]) == (
        "Juan Fangio (fangio)", "Juan Fangio (fangio_jr)", "Juan Fangio (fangio_iii)")
    assert (names["475"], names["9003"]) == ("Stirling Moss (1929)", "Stirling Moss (1960)")
    assert names["577"] == "Luigi Musso"
    out = tmp_path / "site" / "matches" / "formula-1"
    assert f1.main(["--data", str(data), "--out", str(out)]) == 0
    argentina = tomllib.loads((out / "1956.toml").read_text(encoding="utf-8"))["match"][0]
    assert {"Juan Fangio (fangio)", "Stirling Moss (1929)"} <= {p["name"] for p in argentina["players"]}


def test_slugs_drop_accents():
    assert f1.slugify("São Paulo Grand Prix") == "sao-paulo-grand-prix"
    assert f1.slugify("Indianapolis 500") == "indianapolis-500"


def test_stale_season_files_are_removed_and_others_kept(tmp_path):
    out = tmp_path / "formula-1"
    out.mkdir()
    (out / "1999.toml").write_text("stale", encoding="utf-8")
    (out / "notes.md").write_text("kept", encoding="utf-8")
    assert f1.main(["--data", str(FIXTURE), "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["1956.toml", "2024.toml", "league.toml", "notes.md"]


@pytest.mark.skipif(not FULL_DATA.is_dir(), reason="the full F1 data (../shared/data/f1) is not here")
def test_full_data_reproduces_the_committed_league(tmp_path):
    out = tmp_path / "formula-1"
    assert f1.main(["--data", str(FULL_DATA), "--out", str(out)]) == 0
    made = {p.name: p.read_bytes() for p in sorted(out.iterdir())}
    committed = {p.name: p.read_bytes() for p in sorted(COMMITTED.iterdir())}
    assert sorted(made) == sorted(committed)
    assert [name for name in made if made[name] != committed[name]] == []
    assert len(made) == 77  # league.toml and the seasons 1950-2025
