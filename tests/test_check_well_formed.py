"""The well-formed path of checking (load/validate.py, elo's parse_match, a match file's table
lines) gives exactly what the general path gives: the same matches (equal, and the same repr,
which the build cache hashes) and, wherever anything is wrong, the same problems."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitegen.commands.build import check
from sitegen.load import fasttoml, locate
from sitegen.load.locate import Locator
from sitegen.load.problems import InvalidInput
from sitegen.rating import elo

FIXTURES = Path(__file__).parent / "fixtures"


class Plain(dict):
    """A match table the well-formed path does not take (it takes only a dict itself)."""


def _general(monkeypatch) -> None:
    """Every match through the general path: each table a Plain, elo's quick reading off."""
    real = fasttoml.loads

    def loads(text: str):
        data = real(text)
        if data is not None and isinstance(data.get("match"), list):
            data["match"] = [Plain(m) if type(m) is dict else m for m in data["match"]]
        return data
    monkeypatch.setattr(fasttoml, "loads", loads)
    monkeypatch.setattr(elo, "_well_formed", lambda raw, no_margin: None)


def _outcome(root: Path):
    try:
        leagues = check(root, cache=False).leagues
    except InvalidInput as exc:
        return "problems", [str(p) for p in exc.problems]
    return "matches", [(m, repr(m)) for league in leagues for m in league.matches]


def _both(root: Path, monkeypatch):
    quick = _outcome(root)
    with monkeypatch.context() as m:
        _general(m)
        general = _outcome(root)
    return quick, general


NAMES = ['"Zoe\u0308"', '"ann"', '"bo"', '" cy "', '"Zoë"', '"ann "', '""', "3", '"' + "x" * 65 + '"', '"al"']
SCORES = ["1", "0", "0.5", "1.0", "0.0", "-0.0", "true", "2", '"1"', "nan"]
POINTS = [None, "0", "3", "2.5", "-1", "inf", "1e30", '"2"']
IDS = ['"m1"', '"m2"', '"part-0-1"', '"-x"', "7"]
PLAYED = ["2024-05-01T19:30:00Z", "2024-05-01T19:30:00+02:00", "2024-05-01T19:30:00", "2024-05-01",
          '"2024-05-01"', "0999-01-01T00:00:00Z", "19:30:00", "2024-05-01T19:30:00Z"]


GOOD_NAMES = ['"Zoe\u0308"', '"ann"', '"bo"', '"cy"', '"al"', '"di"']
PAIRS = [("1", "0"), ("0", "1"), ("0.5", "0.5"), ("1.0", "0.0"), ("0", "1.0"), ("1", "1")]


@st.composite
def player(draw, score: str | None) -> str:
    """A player table; mostly well formed, so that whole files of them pass."""
    parts = []
    if draw(st.integers(0, 9)):
        parts.append(f"name = {draw(st.sampled_from(GOOD_NAMES if draw(st.integers(0, 3)) else NAMES))}")
    if draw(st.integers(0, 9)):
        parts.append(f"score = {score if score is not None else draw(st.sampled_from(SCORES))}")
    points = draw(st.sampled_from(POINTS)) if draw(st.booleans()) else None
    if points is not None:
        parts.append(f"points = {points}")
    if not draw(st.integers(0, 15)):
        parts.append("goals = 1")
    return "{ " + ", ".join(parts) + " }"


@st.composite
def match(draw) -> str:
    """A [[match]] table: well formed, then perhaps a change or two to any of its keys."""
    keys = {"played": "2024-05-01T19:30:00Z", "players": ['{ name = "ann", score = 1 }', '{ name = "bo", score = 0 }']}
    for _ in range(draw(st.integers(0, 2))):
        key = draw(st.sampled_from(["played", "id", "notes", "challenger", "home", "season", "weight", "venue",
                                    "players", "players", "players", "names"]))
        if key == "played":
            keys[key] = draw(st.sampled_from(PLAYED))
        elif key == "id":
            keys[key] = draw(st.sampled_from(IDS))
        elif key == "notes":
            keys[key] = draw(st.sampled_from(['"a note"', "3"]))
        elif key == "names":
            keys["players"] = [f"{{ name = {draw(st.sampled_from(NAMES))}, score = {s} }}" for s in (1, 0)]
        elif key == "players":
            count = draw(st.sampled_from([2, 2, 2, 1, 3]))
            scores = draw(st.sampled_from(PAIRS)) if count == 2 and draw(st.integers(0, 4)) else (None,) * count
            keys[key] = [draw(player(score)) for score in scores]
        else:
            keys[key] = draw(st.sampled_from(EXTRA[key]))
    if not draw(st.integers(0, 20)):
        del keys[draw(st.sampled_from(sorted(keys)))]
    lines = ["[[match]]"]
    for key, value in keys.items():
        lines.append(f"{key} = [{', '.join(value)}]" if key == "players" else f"{key} = {value}")
    return "\n".join(lines) + "\n"


EXTRA = {"challenger": ['"ann"', '"al"', '"zed"', "1"], "home": ['"bo"', '"zed"'],
         "season": ['"2024"', "2024", '""'], "weight": ["2", "0", "0.5"], "venue": ['"x"']}


def _site(root: Path, margin: str, files: list[list[str]]) -> None:
    league = root / "matches" / "l"
    league.mkdir(parents=True, exist_ok=True)
    for old in league.glob("*.toml"):
        old.unlink()
    (root / "matches" / "players.toml").write_text('[players."ann"]\naliases = ["al"]\n', encoding="utf-8")
    (league / "league.toml").write_text(f'name = "L"\nsystem = "elo"\n[params]\nmargin = "{margin}"\n',
                                        encoding="utf-8")
    for i, tables in enumerate(files):
        (league / f"part-{i}.toml").write_text("\n".join(tables), encoding="utf-8")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(margin=st.sampled_from(["none", "538-nfl"]),
       files=st.lists(st.lists(match(), min_size=1, max_size=4), min_size=1, max_size=2))
def test_the_well_formed_path_gives_what_the_general_path_gives(margin, files, monkeypatch, tmp_path_factory):
    root = tmp_path_factory.mktemp("site")
    _site(root, margin, files)
    quick, general = _both(root, monkeypatch)
    assert quick == general


def test_the_fixtures_check_alike_on_both_paths(monkeypatch):
    for fixture in ("small", "hostile"):
        quick, general = _both(FIXTURES / fixture, monkeypatch)
        assert quick == general, fixture


# --- the lines of [[match]] tables --------------------------------------------------

LINES = ["[[match]]", " [[match]]", "\t[[match]]", "[[ match ]]", "[[ma tch]]", "[[match]] # c",
         "[[match]]\r", "[match]", "[[match.players]]", "[[other]]", 'played = "[[match]]"', "x = [",
         "  1, [2],", "]", "", "# [[match]]", 'notes = """', "[[match]]x", '"""']


@settings(max_examples=400, deadline=None)
@given(lines=st.lists(st.sampled_from(LINES), max_size=25), final_newline=st.booleans())
def test_table_lines_are_the_lines_of_the_table_spans(lines, final_newline):
    text = "\n".join(lines) + ("\n" if final_newline else "")
    index = Locator(text)
    spans = Locator(text).table_spans("match", 0, len(text))
    assert index.table_lines("match") == [index.line(start) for start, _ in spans]
    quick = locate._bare_table_lines(text, "match")
    if quick is not None:
        assert quick == [index.line(start) for start, _ in spans]
    if all(not re.match(r"[ \t]*\[", line) or line == "[[match]]" for line in lines):
        assert quick is not None


# --- elo's quick reading of a match ------------------------------------------------

VALUES = st.sampled_from([0, 1, 0.5, 1.0, 0.0, -0.0, True, False, 2, -1, 3, 2.5, 1e30, float("inf"),
                          float("nan"), "1"])
RAW_NAMES = st.sampled_from(["ann", "bo", " cy", "Zoe\u0308", "Zoë", "", "x" * 65, 3])


@st.composite
def raw_players(draw) -> list:
    """A well-formed pair of players (a win, a draw, points or none), then a few changes to it."""
    score = draw(st.sampled_from([(1, 0), (0, 1), (0.5, 0.5), (1.0, 0.0), (0.0, 1.0)]))
    out = [{"name": name, "score": s} for name, s in zip(("ann", "bo"), score, strict=True)]
    if draw(st.booleans()):
        low, high = draw(st.sampled_from([(0, 3), (1, 2.5), (0.0, 1_000_000), (2, 2)]))
        out[0]["points"], out[1]["points"] = (high, low) if score[0] == 1 else (low, high)
    for _ in range(draw(st.integers(0, 2))):
        change = draw(st.integers(0, 3))
        if change == 0:
            out[draw(st.integers(0, len(out) - 1))][draw(st.sampled_from(["name", "score", "points", "goals"]))] = \
                draw(RAW_NAMES)
        elif change == 1:
            out[draw(st.integers(0, len(out) - 1))][draw(st.sampled_from(["score", "points", "goals"]))] = draw(VALUES)
        elif change == 2:
            out[draw(st.integers(0, len(out) - 1))].pop(draw(st.sampled_from(["name", "score", "points"])), None)
        else:
            out = out[:1] if draw(st.booleans()) else [*out, dict(out[0], name="cy")]
    return out


@settings(max_examples=2000, deadline=None)
@given(players=raw_players(), keys=st.dictionaries(st.sampled_from(["challenger", "home", "season", "weight"]),
                                                   st.sampled_from(["ann", 2024, 1]), max_size=1),
       margin=st.sampled_from(["none", "538-nba"]))
def test_elo_reads_a_well_formed_match_as_its_general_path_does(players, keys, margin):
    system = elo.Elo(margin=margin)
    raw = {"players": players, **keys}
    quick = elo._well_formed(raw, margin == "none")
    heard: list[str] = []
    general = system.parse_match(Plain(raw, players=[Plain(p) for p in players]), lambda path, msg: heard.append(msg))
    if quick is not None:
        assert not heard and general is not None
        assert quick == general and repr(quick) == repr(general)
        assert [[type(v) for v in e.values()] for e in quick.entries] == \
               [[type(v) for v in e.values()] for e in general.entries]


def test_a_default_id_too_long_is_reported_on_both_paths(monkeypatch, tmp_path):
    _site(tmp_path, "none", [[]])
    league = tmp_path / "matches" / "l"
    (league / "part-0.toml").unlink()
    table = ('[[match]]\nplayed = 2024-05-01T19:30:00Z\n'
             'players = [{ name = "ann", score = 1 }, { name = "bo", score = 0 }]\n')
    (league / f"{'w' * 70}.toml").write_text(table, encoding="utf-8")
    quick, general = _both(tmp_path, monkeypatch)
    assert quick == general
    assert quick[0] == "problems" and "longer than 64 characters" in quick[1][0]
