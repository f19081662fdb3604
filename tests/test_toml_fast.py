"""The compiled TOML parser (sitegen/load/fasttoml.py) reads what tomllib reads, to the same values
and types, and leaves to tomllib whatever tomllib refuses: a match file reads the same, and a
broken one is reported in tomllib's words, whichever parser read it first."""

from __future__ import annotations

import math
import subprocess
import sys
import tomllib
from datetime import date, datetime, time, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitegen.load import fasttoml
from sitegen.load.problems import Problems
from sitegen.load.site import nesting, parse_toml_file
from sitegen.load.tomlwrite import string as toml_string
from sitegen.rating import limits


def same(a, b) -> bool:
    """Equal values of the same types, nan equal to nan of the same sign, time zones by offset."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, float):
        if math.isnan(a):
            return math.isnan(b) and math.copysign(1, a) == math.copysign(1, b)
        return a == b and math.copysign(1, a) == math.copysign(1, b)
    if isinstance(a, (datetime, time)):
        return a == b and repr(a.tzinfo) == repr(b.tzinfo)
    return a == b


def tomllib_reads(text: str):
    try:
        return tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        return None


def agrees(text: str) -> None:
    """What fasttoml reads, tomllib reads the same; what tomllib refuses, fasttoml refuses."""
    expected = tomllib_reads(text)
    got = fasttoml.loads(text)
    if expected is None:
        assert got is None, f"fasttoml reads what tomllib refuses: {text!r} -> {got!r}"
    elif got is not None:
        assert same(got, expected), f"{text!r}: fasttoml {got!r} != tomllib {expected!r}"


# --- generated match files ----------------------------------------------------------

names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=0, max_size=12)
offsets = st.integers(-23 * 60 - 59, 23 * 60 + 59).map(lambda m: timezone(timedelta(minutes=m)))
moments = st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30))


@st.composite
def played(draw) -> str:
    when = draw(moments)
    kind = draw(st.sampled_from(["offset", "utc", "local", "date", "lower", "space"]))
    clock = when.strftime("%H:%M:%S") + (f".{when.microsecond:06d}"[: draw(st.integers(2, 7))]
                                        if when.microsecond else "")
    day = when.strftime("%Y-%m-%d")
    if kind == "date":
        return day
    if kind == "local":
        return f"{day}T{clock}"
    if kind == "utc":
        return f"{day}T{clock}Z"
    if kind == "lower":
        return f"{day}t{clock}z"
    if kind == "space":
        return f"{day} {clock}Z"
    off = draw(offsets).utcoffset(None)
    minutes = int(off.total_seconds() // 60)
    sign = "-" if minutes < 0 else "+"
    return f"{day}T{clock}{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


numbers = st.one_of(
    st.integers(-(2**63), 2**63 - 1).map(str),
    st.sampled_from(["0", "+1", "-0", "1_000", "0x1F", "0o17", "0b101", "0.5", "-0.0", "+0.0", "1e3", "1E-3",
                     "6.02e+23", "inf", "+inf", "-inf", "nan", "+nan", "-nan", "1_0.5_0", "true", "false"]),
    st.floats(allow_nan=False, allow_infinity=False).map(repr).filter(lambda r: "e" in r or "." in r),
)
scalars = st.one_of(numbers, names.map(toml_string), played(),
                    st.sampled_from(["'lit \\ eral'", '"esc \\t \\" \\\\ \\u00e9 \\U0001F600"', '""', "''",
                                     '"""\nmulti\\\n   line"""', "'''\nraw\n'''", "07:32:00", "00:00:00.5"]))


@st.composite
def player(draw) -> str:
    keys = draw(st.lists(st.sampled_from(["score", "goals", "ping", "host", "place", "points", "x-y", '"q k"']),
                         unique=True, max_size=3))
    parts = [f"name = {toml_string(draw(names))}"] + [f"{k} = {draw(scalars)}" for k in keys]
    return "{ " + ", ".join(parts) + " }"


@st.composite
def match_file(draw) -> str:
    out = []
    for _ in range(draw(st.integers(0, 4))):
        out.append("[[match]]" + draw(st.sampled_from(["", "  # a comment [ {"])))
        out.append(f"played = {draw(played())}")
        if draw(st.booleans()):
            out.append(f"id = {toml_string(draw(names))}")
        if draw(st.booleans()):
            out.append(f"notes = {draw(scalars)}")
        sep = draw(st.sampled_from([", ", ",\n  ", ",\n  # between [ ]\n  "]))
        players = sep.join(draw(st.lists(player(), min_size=0, max_size=3)))
        out.append(f"players = [{players}]" if "\n" not in sep else f"players = [\n  {players},\n]")
        if draw(st.booleans()):
            out.append(f"[[match.teams]]\nwon = {draw(st.sampled_from(['true', 'false']))}")
        out.append("")
    return "\n".join(out)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(match_file())
def test_generated_match_files_read_the_same(text: str) -> None:
    expected = tomllib_reads(text)
    got = fasttoml.loads(text)
    agrees(text)
    if expected is not None and fasttoml.brackets_nest_within(text):
        # A valid file within the nesting guard is read by the compiled parser, not left to tomllib.
        assert got is not None, text


@settings(max_examples=400, deadline=None)
@given(match_file(), st.integers(0, 10_000), st.text(min_size=1, max_size=4))
def test_damaged_match_files_read_the_same_or_go_to_tomllib(text: str, at: int, junk: str) -> None:
    """A file broken anywhere: never read differently, never read where tomllib refuses."""
    at = at % (len(text) + 1)
    agrees(text[:at] + junk + text[at:])
    agrees(text[:at] + text[at + len(junk):])


# --- edge cases -----------------------------------------------------------------------

EDGES = [
    # TOML 1.1, which tomllib of Python 3.11 refuses: toml-rs must too (toml_version="1.0.0").
    "a = { x = 1,\n y = 2 }", "a = { x = 1, }", 'a = "\\e"', 'a = "\\x41"', "a = 2024-01-01T10:00Z",
    "a = 10:00",
    # Duplicates and redefinitions.
    "a = 1\na = 2", "[a]\nx = 1\n[a]\ny = 2", "a.b = 1\n[a]\nc = 2", "a = {x = 1}\na.y = 2",
    "a = []\n[[a]]\nx = 1", "[[match]]\nplayed = 1\nplayed = 2", 'a = 1\n"a" = 2', "a = {b = 1, b = 2}",
    # Numbers.
    "a = 99999999999999999999", "a = -9223372036854775808", "a = 9223372036854775808", "a = 01",
    "a = 1__0", "a = 0XFF", "a = [inf, -inf, nan, -nan, +nan, 1e1000, -0.0, 5e-324]", "a = 1.", "a = .5",
    "a = [0x1F, 0o17, 0b11, 1_000, +5, -0]", "a = 1e", "a = 0x", "a = +0x1",
    # Dates and times.
    "a = 2024-05-01T19:30:00+02:00\nb = 2024-05-01T19:30:00.123456789-05:30\nc = 1979-05-27\nd = 07:32:00",
    "a = 1979-05-27 07:32:00Z\nb = 2024-05-01t19:30:00z", "a = 2023-02-29", "a = 2024-02-29",
    "a = 2024-01-01T23:59:60Z", "a = 2024-01-01T00:00:00-00:00", "a = 2024-01-01T00:00:00+23:59",
    "a = 2024-01-01T00:00:00+24:00", "a = 0000-01-01", "a = 9999-12-31T23:59:59.999999Z",
    "a = 2024-01-01T00:00:00.1234567Z", "a = 2024-1-1", "a = 2024-01-01T24:00:00", "a = 24:00:00",
    # Strings, keys, whitespace, comments, control characters.
    'a = "tab\\there \\u00e9 \\U0001F600 \\"q\\" \\\\"\nb = \'lit\\n\'\nc = """\nml\\\n   cont"""',
    'a = """a""""', 'a = """a"""""', 'a = """a""""""', "a = '''a''''", "a = '''a'''''", 'a = "\\uD800"',
    'a = "\x00"', "a = 1 # \x01", "a = 1 # \x7f", "a = 1\rb = 2", "a = 1\r\nb = 2\r\n", "é = 1",
    "1234 = 1", "a . b = 1", '"" = 1', "'' = 1", "a = \"\"\"\r\nx\"\"\"", '[ "a b" . c ]\nd = 1',
    "a = 'x\ny'", 'a = "x\ny"', "[[a.b]]\n[a]\nc = 1", "[a]\n[a.b]\n[a]", "\ufeffa = 1",
    "a = 1\n\ufeffb = 2", 'a = "\ufeff"', "a = true\nb = TRUE",
    "a = [1, 'x', 1.5, [2], {b = 3}]", "a = [\n1,\n2,\n]", "a = [,]", "= 1", "a =", "[a", "[[a]", "a = {",
    '"a\\u0000b" = 1', "a = 1 b = 2", "[match]\n[[match]]",
]


@pytest.mark.parametrize("text", EDGES)
def test_edge_cases_read_the_same(text: str) -> None:
    agrees(text)


def test_the_values_of_a_match_file_keep_their_types() -> None:
    text = ('[[match]]\nplayed = 2024-05-01T19:30:00+02:00\nnotes = "a \\"b\\""\n'
            'players = [{ name = "Ann", score = 0.5 }, { name = "Bo", score = 0.5, ping = 12 }]\n'
            "[[match]]\nplayed = 2024-05-02\nplayers = []\n")
    got = fasttoml.loads(text)
    assert got is not None and same(got, tomllib.loads(text))
    first, second = got["match"]
    assert first["played"].utcoffset() == timedelta(hours=2)
    assert type(second["played"]) is date and type(first["players"][1]["ping"]) is int


# --- the nesting guard: toml-rs recurses on brackets and crashes some thousands deep -----

@pytest.mark.parametrize("text", [
    "a = " + "[" * 50_000 + "]" * 50_000,
    "a = " + "{b = " * 50_000 + "1" + "}" * 50_000,
    "a = [" + '"]", [' * 50_000 + "]" * 50_000,          # closing brackets in strings close nothing
    "a = [" + "'}', {b = [" * 30_000,
    "a = [ # ]]]]\n" * 50_000,
    'a = """]]]\n""" + [' * 3 + "[" * 50_000,
])
def test_deep_brackets_are_left_to_tomllib(text: str) -> None:
    assert not fasttoml.brackets_nest_within(text)
    assert fasttoml.loads(text) is None


def test_deep_brackets_are_reported_not_crashed_on(tmp_path: Path) -> None:
    """In a child process: a crash of the parser would end the interpreter, not raise."""
    deep = tmp_path / "deep.toml"
    deep.write_text("[[match]]\nplayers = " + "[" * 100_000 + "]" * 100_000 + "\n")
    code = ("import sys; from pathlib import Path; from sitegen.load.problems import Problems;"
            "from sitegen.load.site import parse_toml_file; p = Problems();"
            "assert parse_toml_file(Path(sys.argv[1]), 'deep.toml', p) is None;"
            "print([x.line for x in p])")
    done = subprocess.run([sys.executable, "-c", code, str(deep)], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parent.parent)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[2]"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet='[]{}"\'#\\\n x=,', max_size=60))
def test_the_guard_never_says_shallow_when_the_value_is_deep(text: str) -> None:
    """Whatever tomllib reads within the guard is nested no deeper than the guard allows."""
    data = tomllib_reads(text)
    if data is not None and fasttoml.brackets_nest_within(text, 3):
        assert nesting(data) <= 3 + 1 + text.count(".")


def test_a_file_tomllib_refuses_is_worded_by_tomllib(tmp_path: Path) -> None:
    path = tmp_path / "m.toml"
    path.write_text("[[match]]\nplayed = 2024-05-01T19:30:00Z\nplayers = [{ name = \"A\", score = 1, }]\n")
    problems = Problems()
    assert parse_toml_file(path, "m.toml", problems) is None
    (problem,) = list(problems)
    assert problem.line == 3 and "invalid TOML" in problem.message


def test_nesting_limit_unchanged() -> None:
    assert nesting({"a": [[[]]]}) == 4 and nesting({}) == 1
    deep: list = []
    for _ in range(limits.MAX_NESTING + 5):
        deep = [deep]
    assert nesting({"a": deep}) > limits.MAX_NESTING
