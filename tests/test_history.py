"""History order, identity of players, standings and the data files (docs/curators)."""

from __future__ import annotations

import csv
import io
import json
import re
import unicodedata

import pytest

from helpers import build_data, elo_match, league_data, league_toml, lunaro_match, rows_of

ELO_K20 = league_toml("elo", params="k = 20")


def elo_site(make_site, files: dict[str, str], *, params="k = 20", players_toml=None):
    site = {"matches/lg/league.toml": league_toml("elo", params=params)}
    site.update({f"matches/lg/{path}": text for path, text in files.items()})
    if players_toml is not None:
        site["matches/players.toml"] = players_toml
    return make_site(site)


def match_order(root) -> list[tuple[str, str, str]]:
    return [(r["match_id"], r["played"], r["file"]) for r in rows_of(league_data(root, "lg"), "matches")]


def ids(root) -> list[str]:
    return [m for m, _, _ in match_order(root)]


def changes(root):
    return rows_of(league_data(root, "lg"), "changes")


# --- order ---------------------------------------------------------------------------------

def test_same_time_files_in_path_order_nested_before_later_name(make_site):
    root = elo_site(make_site, {
        "b.toml": elo_match("2024-01-01T12:00:00Z", "p", 1, "q", 0),
        "a/z.toml": elo_match("2024-01-01T12:00:00Z", "r", 1, "s", 0),
    })
    # "a/z.toml" < "b.toml" as strings
    assert match_order(root) == [
        ("a-z-1", "2024-01-01T12:00:00Z", "matches/lg/a/z.toml"),
        ("b-1", "2024-01-01T12:00:00Z", "matches/lg/b.toml"),
    ]


def test_same_time_files_compared_by_code_point(make_site):
    root = elo_site(make_site, {
        "a.toml": elo_match("2024-01-01", "p", 1, "q", 0),
        "B.toml": elo_match("2024-01-01", "r", 1, "s", 0),
        "a-b.toml": elo_match("2024-01-01", "t", 1, "u", 0),
        "a/b.toml": elo_match("2024-01-01", "v", 1, "w", 0, id="slash"),
    })
    # "B" (66) < "a-b" ("-" 45) < "a.toml" ("." 46) < "a/b" ("/" 47)
    assert ids(root) == ["B-1", "a-b-1", "a-1", "slash"]


def test_position_in_file_breaks_ties_and_played_comes_first(make_site):
    root = elo_site(make_site, {
        "x.toml": (elo_match("2024-01-02", "p", 1, "q", 0)       # x-1: later day
                   + elo_match("2024-01-01", "r", 1, "s", 0)     # x-2
                   + elo_match("2024-01-01", "t", 1, "u", 0)),   # x-3: same time as x-2
        "a.toml": elo_match("2024-01-01T00:00:01Z", "v", 1, "w", 0),
    })
    assert ids(root) == ["x-2", "x-3", "a-1", "x-1"]


def test_utc_offsets_are_converted(make_site):
    root = elo_site(make_site, {
        "a.toml": elo_match("2024-01-01T00:30:00Z", "p", 1, "q", 0),
        "z.toml": elo_match("2024-01-01T01:00:00+02:00", "r", 1, "s", 0),
        "m.toml": elo_match("2023-12-31T20:00:00-03:30", "t", 1, "u", 0),
    })
    assert match_order(root) == [
        ("z-1", "2023-12-31T23:00:00Z", "matches/lg/z.toml"),
        ("m-1", "2023-12-31T23:30:00Z", "matches/lg/m.toml"),
        ("a-1", "2024-01-01T00:30:00Z", "matches/lg/a.toml"),
    ]


def test_local_date_times_are_utc_and_dates_are_midnight_utc(make_site):
    root = elo_site(make_site, {
        "a.toml": elo_match("2024-01-01T00:30:00", "p", 1, "q", 0),       # local: 00:30 UTC
        "b.toml": elo_match("2024-01-01T00:15:00Z", "r", 1, "s", 0),
        "c.toml": elo_match("2024-01-02", "t", 1, "u", 0),                # 2024-01-02 00:00 UTC
        "d.toml": elo_match("2024-01-01T23:59:59Z", "v", 1, "w", 0),
        "e.toml": elo_match("2024-01-02T00:00:00Z", "x", 1, "y", 0),      # tie with c: file order
        "f.toml": elo_match("2024-01-02T01:00:00+01:00", "z", 1, "zz", 0),  # also midnight UTC
    })
    assert match_order(root) == [
        ("b-1", "2024-01-01T00:15:00Z", "matches/lg/b.toml"),
        ("a-1", "2024-01-01T00:30:00Z", "matches/lg/a.toml"),
        ("d-1", "2024-01-01T23:59:59Z", "matches/lg/d.toml"),
        ("c-1", "2024-01-02T00:00:00Z", "matches/lg/c.toml"),
        ("e-1", "2024-01-02T00:00:00Z", "matches/lg/e.toml"),
        ("f-1", "2024-01-02T00:00:00Z", "matches/lg/f.toml"),
    ]


@pytest.mark.parametrize("tz", ["America/St_Johns", "Asia/Kathmandu"])
def test_local_date_times_are_utc_whatever_the_machines_time_zone(make_site, monkeypatch, tz):
    import time

    monkeypatch.setenv("TZ", tz)
    time.tzset()
    try:
        root = elo_site(make_site, {
            "a.toml": elo_match("2024-01-01T00:30:00", "p", 1, "q", 0),
            "b.toml": elo_match("2024-01-01", "r", 1, "s", 0),
        })
        assert match_order(root) == [
            ("b-1", "2024-01-01T00:00:00Z", "matches/lg/b.toml"),
            ("a-1", "2024-01-01T00:30:00Z", "matches/lg/a.toml"),
        ]
    finally:
        monkeypatch.undo()
        time.tzset()


def test_everything_written_follows_history_order(make_site):
    root = elo_site(make_site, {
        "b.toml": elo_match("2024-01-01", "p", 1, "q", 0) + elo_match("2024-01-03", "p", 0, "q", 1),
        "a.toml": elo_match("2024-01-02", "q", 1, "r", 0) + elo_match("2024-01-01", "r", 0.5, "p", 0.5),
    })
    data = league_data(root, "lg")
    order = [r["match_id"] for r in rows_of(data, "matches")]
    assert order == ["a-2", "b-1", "a-1", "b-2"]
    assert [r["event"] for r in rows_of(data, "changes")] == [e for e in order for _ in (0, 1)]
    assert [r["match_id"] for r in json.loads(data["matches.json"])] == order
    # ratings chain: each row's rating_before is the player's previous rating_after
    last = {}
    for r in rows_of(data, "changes"):
        assert float(r["rating_before"]) == last.get(r["player"], 1500.0)
        last[r["player"]] = float(r["rating_after"])


def test_default_ids_from_nested_paths(make_site):
    root = elo_site(make_site, {
        "2024/week-03.toml": elo_match("2024-01-15", "p", 1, "q", 0) + elo_match("2024-01-16", "p", 1, "q", 0)
                             + elo_match("2024-01-17", "p", 1, "q", 0, id="final.v2_x"),
        "2024/cup/round.1.toml": elo_match("2024-01-18", "p", 1, "q", 0),
    })
    assert match_order(root) == [
        ("2024-week-03-1", "2024-01-15T00:00:00Z", "matches/lg/2024/week-03.toml"),
        ("2024-week-03-2", "2024-01-16T00:00:00Z", "matches/lg/2024/week-03.toml"),
        ("final.v2_x", "2024-01-17T00:00:00Z", "matches/lg/2024/week-03.toml"),
        ("2024-cup-round.1-1", "2024-01-18T00:00:00Z", "matches/lg/2024/cup/round.1.toml"),
    ]


def test_same_id_in_two_leagues_is_fine(make_site):
    text = elo_match("2024-01-01", "p", 1, "q", 0, id="final")
    root = make_site({"matches/one/league.toml": ELO_K20, "matches/one/m.toml": text,
                      "matches/two/league.toml": ELO_K20, "matches/two/m.toml": text})
    assert [r["match_id"] for r in rows_of(league_data(root, "one"), "matches")] == ["final"]
    assert [r["match_id"] for r in rows_of(league_data(root, "two"), "matches")] == ["final"]


def test_players_of_one_match_are_updated_together(make_site):
    # Both at 1500, K 20: E 0.5 each, so +10 / -10. Updating one after the other would
    # rate q against p's new 1510 and give q 1500 - 20 * 0.4856 = 1490.29.
    root = elo_site(make_site, {"m.toml": elo_match("2024-01-01", "p", 1, "q", 0)})
    p, q = changes(root)
    assert (p["rating_after"], q["rating_after"]) == ("1510.000000", "1490.000000")
    assert p["expected"] == q["expected"] == "0.500000"


def test_lunaro_players_of_one_match_are_updated_together(make_site):
    root = make_site({"matches/lu/league.toml": league_toml("lunaro"),
                      "matches/lu/m.toml": lunaro_match("2024-01-01", "p", 20, 0, "q", 0, 0)})
    p, q = rows_of(league_data(root, "lu"), "changes")
    assert (p["rating_after"], q["rating_after"]) == ("1525", "1475")
    assert p["ability"] == q["ability"] == "1500.000000"


# --- who is who -----------------------------------------------------------------------------

def test_aliases_count_for_the_main_player(make_site):
    players = '[players."ann"]\nplatform = "pc"\naliases = ["annie", "Ann2"]\n'
    root = elo_site(make_site, {"m.toml": elo_match("2024-01-01", "annie", 1, "bob", 0)
                                + elo_match("2024-01-02", "bob", 0, "ann", 1)
                                + elo_match("2024-01-03", "Ann2", 1, "cy", 0)},
                    players_toml=players)
    data = league_data(root, "lg")
    assert [r["player"] for r in rows_of(data, "changes")] == ["ann", "bob", "bob", "ann", "ann", "cy"]
    standings = {r["player"]: r for r in rows_of(data, "standings")}
    assert set(standings) == {"ann", "bob", "cy"}
    assert standings["ann"]["games"] == "3"


@pytest.mark.parametrize("nfd, nfc", [("Zoe\u0308", "Zo\u00eb"), ("Zoe\u0301", "Zo\u00e9")])
def test_nfd_and_nfc_names_are_one_player_written_as_nfc(make_site, nfd, nfc):
    assert unicodedata.normalize("NFC", nfd) == nfc and nfd != nfc
    root = elo_site(make_site, {"m.toml": elo_match("2024-01-01", nfd, 1, "bob", 0)
                                + elo_match("2024-01-02", nfc, 1, "bob", 0)})
    data = league_data(root, "lg")
    standings = {r["player"]: r["games"] for r in rows_of(data, "standings")}
    assert standings == {nfc: "2", "bob": "2"}
    assert nfd not in data["changes.csv"]


def test_nfd_alias_in_players_toml(make_site):
    players = '[players."Zo\u00eb"]\naliases = ["Zoey"]\n'
    root = elo_site(make_site, {"m.toml": elo_match("2024-01-01", "Zoe\u0308", 1, "bob", 0)
                                + elo_match("2024-01-02", "Zoey", 1, "bob", 0)}, players_toml=players)
    standings = {r["player"]: r["games"] for r in rows_of(league_data(root, "lg"), "standings")}
    assert standings == {"Zo\u00eb": "2", "bob": "2"}


def test_names_are_trimmed(make_site):
    root = elo_site(make_site, {"m.toml": elo_match("2024-01-01", "  Bob ", 1, "cy", 0)
                                + elo_match("2024-01-02", "Bob", 1, "\tcy", 0)})
    standings = {r["player"]: r["games"] for r in rows_of(league_data(root, "lg"), "standings")}
    assert standings == {"Bob": "2", "cy": "2"}


def test_names_are_case_sensitive(make_site):
    root = elo_site(make_site, {"m.toml": elo_match("2024-01-01", "ann", 1, "Ann", 0)})
    standings = {r["player"]: r for r in rows_of(league_data(root, "lg"), "standings")}
    assert set(standings) == {"ann", "Ann"}
    assert standings["ann"]["rating"] == "1510.000000"


# --- standings -------------------------------------------------------------------------------

def test_standings_order_and_shared_ranks(make_site):
    root = elo_site(make_site, {"m.toml": (
        elo_match("2024-01-01", "b", 0.5, "a", 0.5)
        + elo_match("2024-01-02", "\u00c4", 0.5, "B", 0.5)
        + elo_match("2024-01-03", "X", 1, "Y", 0)
        + elo_match("2024-01-04", "zed", 1, "\u00e9mile", 0))})
    rows = rows_of(league_data(root, "lg"), "standings")
    assert [(r["rank"], r["player"], r["rating"], r["games"]) for r in rows] == [
        ("1", "X", "1510.000000", "1"),
        ("1", "zed", "1510.000000", "1"),
        ("3", "B", "1500.000000", "1"),        # code points: B < a < b < Ä
        ("3", "a", "1500.000000", "1"),
        ("3", "b", "1500.000000", "1"),
        ("3", "\u00c4", "1500.000000", "1"),
        ("7", "Y", "1490.000000", "1"),
        ("7", "\u00e9mile", "1490.000000", "1"),
    ]


def test_standings_list_only_players_who_played(make_site):
    players = '[players."ghost"]\nregion = "EU"\n'
    root = elo_site(make_site, {"m.toml": elo_match("2024-01-01", "p", 1, "q", 0)}, players_toml=players)
    assert [r["player"] for r in rows_of(league_data(root, "lg"), "standings")] == ["p", "q"]


def test_standings_games_count(make_site):
    root = elo_site(make_site, {"m.toml": "".join(
        elo_match(f"2024-01-0{i + 1}", "p", 1, opp, 0) for i, opp in enumerate("qqr"))})
    games = {r["player"]: r["games"] for r in rows_of(league_data(root, "lg"), "standings")}
    assert games == {"p": "3", "q": "2", "r": "1"}


# --- format of the data files --------------------------------------------------------------

HEADERS = {
    "elo": {
        "standings": "rank,player,rating,games",
        "changes": "event,played,player,rating_before,rating_after,delta,expected,score,k,"
                   "challenger,home,margin_multiplier,weight,reverted_from",
        "matches": "match_id,played,file,commit",
    },
    "lunaro": {
        "standings": "rank,player,rating,games",
        "changes": "event,played,player,rating_before,rating_after,delta,ability,expected,score,k",
        "matches": "match_id,played,file,commit",
    },
}

FLOAT6 = re.compile(r"-?\d+\.\d{6}")
INT = re.compile(r"-?\d+")


@pytest.fixture
def two_league_site(make_site):
    return make_site({
        "matches/players.toml": '[players."Zo\u00eb"]\naliases = ["zo"]\n',
        "matches/ranked/league.toml": league_toml("elo"),
        "matches/ranked/2024/jan.toml": (elo_match("2024-01-01T10:00:00+01:00", "Zo\u00eb", 1, "\u674e\u96f7", 0)
                                         + elo_match("2024-01-02", "zo", 0.5, "Bob, Jr.", 0.5)
                                         + elo_match("2024-01-03", 'Quote\\"d', 0, "\u674e\u96f7", 1)),
        "matches/duel/league.toml": league_toml("lunaro"),
        "matches/duel/m.toml": (lunaro_match("2024-01-01", "Zo\u00eb", 22, 0, "\u674e\u96f7", 19, 180, host=0)
                                + lunaro_match("2024-01-02", "zo", 3, 50, "Bob, Jr.", 20, 60)),
    })


@pytest.mark.parametrize("slug, system", [("ranked", "elo"), ("duel", "lunaro")])
def test_csv_format(two_league_site, tmp_path, slug, system):
    data = build_data(two_league_site, slug, tmp_path / "out")
    for table, header in HEADERS[system].items():
        raw = (tmp_path / "out" / "data" / slug / f"{table}.csv").read_bytes()
        text = raw.decode("utf-8")                       # strict UTF-8
        assert not raw.startswith(b"\xef\xbb\xbf")       # no BOM
        assert "\r" not in text
        assert text.endswith("\n") and not text.endswith("\n\n")
        assert text.split("\n", 1)[0] == header
        rows = list(csv.reader(io.StringIO(text, newline="")))
        width = len(header.split(","))
        assert all(len(r) == width for r in rows)
        assert len(rows) > 1
    # Names, and terms that exist only with a league's options (contract section 8: on neutral
    # ground without season reversion, home and reverted_from are empty).
    text_cols = {"challenger", "home", "reverted_from"}
    for r in rows_of(data, "changes"):
        for col, value in r.items():
            assert value != "" or col in {"home", "reverted_from"}, (col, r)
        if system == "elo":
            assert r["challenger"] in {"Zo\u00eb", "\u674e\u96f7", "Bob, Jr.", 'Quote"d'}
            assert (r["home"], r["reverted_from"]) == ("", "")
        rating_cols = ("rating_before", "rating_after", "delta")
        for col in rating_cols:
            assert (INT if system == "lunaro" else FLOAT6).fullmatch(r[col]), (col, r[col])
        for col in (c for c in HEADERS[system]["changes"].split(",")[6:] if c not in text_cols):
            assert FLOAT6.fullmatch(r[col]), (col, r[col])
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", r["played"])
    for r in rows_of(data, "standings"):
        assert (INT if system == "lunaro" else FLOAT6).fullmatch(r["rating"])
        assert INT.fullmatch(r["rank"]) and INT.fullmatch(r["games"])


def test_names_with_commas_quotes_and_non_ascii_survive(two_league_site, tmp_path):
    data = build_data(two_league_site, "ranked", tmp_path / "out")
    players = {r["player"] for r in rows_of(data, "changes")}
    assert players == {"Zo\u00eb", "\u674e\u96f7", "Bob, Jr.", 'Quote"d'}
    raw = (tmp_path / "out" / "data" / "ranked" / "changes.csv").read_bytes()
    assert "\u674e\u96f7".encode("utf-8") in raw and "Zo\u00eb".encode("utf-8") in raw


def test_matches_csv_file_is_relative_to_the_root(two_league_site, tmp_path):
    data = build_data(two_league_site, "ranked", tmp_path / "out")
    assert [r["file"] for r in rows_of(data, "matches")] == ["matches/ranked/2024/jan.toml"] * 3
    assert rows_of(data, "matches")[0]["played"] == "2024-01-01T09:00:00Z"


@pytest.mark.parametrize("slug", ["ranked", "duel"])
def test_json_twins_have_the_same_keys_and_rows(two_league_site, tmp_path, slug):
    data = build_data(two_league_site, slug, tmp_path / "out")
    for table in ("standings", "changes", "matches"):
        header = data[f"{table}.csv"].split("\n", 1)[0].split(",")
        csv_rows = rows_of(data, table)
        objects = json.loads(data[f"{table}.json"])
        assert isinstance(objects, list) and len(objects) == len(csv_rows)
        for obj, row in zip(objects, csv_rows):
            assert list(obj) == header
            for key in header:
                value, text = obj[key], row[key]
                if value is None:
                    assert text == ""
                elif isinstance(value, str):
                    assert value == text
                else:
                    assert not isinstance(value, bool)
                    assert float(text) == pytest.approx(value, abs=5e-7), (table, key)


def test_empty_field_where_a_value_does_not_exist():
    """An arena player's rating before the first game: empty in CSV, null in JSON."""
    from datetime import datetime, timezone

    from sitegen.model.ledger import to_csv, to_json

    table = (("event", "player", "rating_before", "rating_after", "delta"),
             [("m-1", "p", None, 1234.5, None), ("m-2", "p", 1234.5, 1200.0, -34.5)])
    assert to_csv(table) == ("event,player,rating_before,rating_after,delta\n"
                             "m-1,p,,1234.500000,\n"
                             "m-2,p,1234.500000,1200.000000,-34.500000\n")
    assert json.loads(to_json(table))[0] == {"event": "m-1", "player": "p", "rating_before": None,
                                            "rating_after": 1234.5, "delta": None}
    assert datetime(2024, 1, 1, tzinfo=timezone.utc)  # (keeps the import honest)


def test_negative_zero_is_written_as_zero():
    from sitegen.model.ledger import fmt_float

    assert fmt_float(-0.0) == "0.000000"
    assert fmt_float(-1e-9) == "0.000000"
    assert fmt_float(2 / 3) == "0.666667"
    assert fmt_float(None) == ""
