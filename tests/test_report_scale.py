"""Thousands of problems in one file: located from one index of its text, listed by kind.

A converted history with one systematic mistake (the same unknown keys in every match) used
to rescan the file for every problem. These tests count the scanning instead of timing it:
the index of a file is built once, and the text scanned grows with the file, not with the
file times its problems.
"""

from __future__ import annotations

import pytest

from helpers import league_toml, lunaro_match, problems_of, write_files
from sitegen.commands import annotations
from sitegen.load import locate
from sitegen.commands.cli import main
from sitegen.load.problems import KIND_LIMIT, SHOWN_PER_KIND, Problem, listing

N = 2000
UNKNOWN = ("map", "mode", "server")
HISTORY = "matches/duel/history.toml"


def history(n: int) -> str:
    """n lunaro matches, each with the three unknown keys (in two orders) and players on lines."""
    out = ["# A converted history: every match carries the old tool's keys\n\n"]
    for i in range(n):
        keys = ['map = "Arena"', "mode = 'duel'", f"server = {i % 7}"]
        if i % 3 == 0:
            keys.reverse()
        out.append("[[match]]\n"
                   "played = 2020-01-01T00:00:00Z\n"
                   + "\n".join(keys) + "\n"
                   "players = [\n"
                   f'  {{ name = "p{i % 50}", goals = 20, ping = 5 }},\n'
                   f'  {{ name = "q{i % 40}", goals = {i % 20}, ping = 9 }},\n'
                   "]\n\n")
    return "".join(out)


def real_line(text: str, match: int, key: str) -> int:
    """The 1-based line of ``key = ...`` in the match'th (0-based) [[match]] table, by reading the text."""
    seen = -1
    for number, line in enumerate(text.splitlines(), 1):
        if line == "[[match]]":
            seen += 1
        elif seen == match and line.startswith(f"{key} = "):
            return number
    raise AssertionError((match, key))


def site(root, n: int):
    return write_files(root, {"matches/duel/league.toml": league_toml("lunaro", name="Duel"),
                              HISTORY: history(n)})


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    return site(tmp_path_factory.mktemp("big"), N)


class Counted:
    """Counts the scanning in sitegen.load.locate: indexes built, characters tokenised, searches of
    the whole text for tables, and lines counted from the start of the text."""

    def __init__(self, monkeypatch):
        self.indexes = 0
        self.scanned = 0
        self.whole_table_searches = 0
        self.lines_counted = 0
        real_init, real_scan, real_headers = locate.Locator.__init__, locate._scan, locate._headers
        real_line_of = locate._line_of

        def init(loc, text):
            self.indexes += 1
            real_init(loc, text)

        def scan(text, start, end):
            self.scanned += end - start
            return real_scan(text, start, end)

        def headers(text, start, end):
            if (start, end) == (0, len(text)):
                self.whole_table_searches += 1
            return real_headers(text, start, end)

        def line_of(text, pos):
            self.lines_counted += 1
            return real_line_of(text, pos)

        monkeypatch.setattr(locate.Locator, "__init__", init)
        monkeypatch.setattr(locate, "_line_of", line_of)
        monkeypatch.setattr(locate, "_scan", scan)
        monkeypatch.setattr(locate, "_headers", headers)


def test_every_problem_of_a_big_file_on_its_line(big, monkeypatch):
    counted = Counted(monkeypatch)
    problems = problems_of(big)
    text = (big / HISTORY).read_text(encoding="utf-8")
    assert len(problems) == 3 * N
    assert all(p.file == HISTORY and p.message.startswith("unknown key") for p in problems)
    by = {(p.match, p.field): p.line for p in problems}
    assert len(by) == 3 * N
    for i in (0, 1, 2, 3, 997, N // 2 + 1, N - 1):
        for key in UNKNOWN:
            assert by[(f"#{i + 1} (history-{i + 1})", key)] == real_line(text, i, key), (i, key)
    # One index of the file (league.toml has no problem: it is never indexed), one search of
    # its [[match]] headers, lines by binary search, and about one pass of tokenising.
    assert counted.indexes == 1
    assert counted.whole_table_searches == 1
    assert counted.lines_counted == 0
    assert counted.scanned <= 2 * len(text)


def test_the_scanning_grows_with_the_file_not_with_its_problems(tmp_path, monkeypatch):
    scanned = {}
    for n in (100, 1000):
        counted = Counted(monkeypatch)
        problems = problems_of(site(tmp_path / str(n), n))
        assert len(problems) == 3 * n
        assert (counted.indexes, counted.whole_table_searches, counted.lines_counted) == (1, 1, 0)
        scanned[n] = counted.scanned
    assert scanned[1000] <= 11 * scanned[100]      # quadratic would be 100 times


def test_the_terminal_gets_the_first_of_each_kind_and_a_count(big, capsys):
    assert main(["check", "--root", str(big)]) == 1
    err = capsys.readouterr().err.splitlines()
    problems = [line for line in err if not line.startswith("sitegen:")]
    summary = [line for line in err if line.startswith("sitegen:")]
    # Full problem lines, each kind's first SHOWN_PER_KIND in the order of the file.
    assert len(problems) == 3 * SHOWN_PER_KIND
    assert all(line.startswith(f"{HISTORY}:") and ": unknown key; " in line for line in problems)
    for key in UNKNOWN:
        mine = [line for line in problems if f": {key}: unknown key" in line]
        assert [line.split(": match ")[1].split(" ")[0] for line in mine] == [
            f"#{i + 1}" for i in range(SHOWN_PER_KIND)]
    text = (big / HISTORY).read_text(encoding="utf-8")
    assert summary[:3] == [
        f"sitegen: … and {N - SHOWN_PER_KIND:,} more of this kind, {N:,} in all: {key}: unknown key; matches of "
        "this lunaro league have: id, played, notes, players — see the lunaro spec page (spec/lunaro/ on the site) "
        f"(first at {HISTORY}:{real_line(text, 0, key)}, last at {HISTORY}:{real_line(text, N - 1, key)})"
        for key in ("server", "mode", "map")]     # in the order the kinds first occur: match 1 is reversed
    assert summary[3:] == [f"sitegen: {3 * N} problems found ({3 * SHOWN_PER_KIND} lines above, 3 kinds cut "
                           "short; --all lists every one)."]


def test_all_lists_every_problem(big, capsys):
    assert main(["check", "--root", str(big), "--all"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3 * N + 1
    assert err[-1] == f"sitegen: {3 * N} problems found."


# --- kinds ---------------------------------------------------------------------------------

def goals(i: int, got: int, file: str = "m.toml") -> Problem:
    return Problem(file, 3 + i, f"#{i + 1}", f"players[{i % 2}].goals", f"must be an integer 0..22, got {got}")


def test_a_kind_is_the_same_words_with_other_values_and_positions():
    problems = [goals(i, 23 + i % 3) for i in range(KIND_LIMIT + 5)]
    problems += [Problem("m.toml", 99, "#9", "players[0].name", f"'ann{i}' is listed twice") for i in range(3)]
    shown = listing(problems)
    assert len(shown.lines) == SHOWN_PER_KIND + 3
    assert shown.lines[:2] == [str(problems[0]), str(problems[1])]
    assert [k.count for k in shown.cut] == [KIND_LIMIT + 5]
    # The parts that differ are left out, the rule's own numbers stay.
    assert shown.cut[0].pattern() == "players[…].goals: must be an integer 0..22, got …"
    assert shown.summary(lead="at HEAD: ") == [
        f"sitegen: at HEAD: … and {KIND_LIMIT + 5 - SHOWN_PER_KIND} more of this kind, {KIND_LIMIT + 5} in all: "
        f"players[…].goals: must be an integer 0..22, got … "
        f"(first at m.toml:3, last at m.toml:{3 + KIND_LIMIT + 4})"]


def test_up_to_the_limit_of_a_kind_every_problem_is_listed():
    problems = [goals(i, 30) for i in range(KIND_LIMIT)] + [goals(i, 30, "n.toml") for i in range(KIND_LIMIT)]
    by_file = listing(problems[:KIND_LIMIT])
    assert len(by_file.lines) == KIND_LIMIT and not by_file.cut
    # The same mistake in two files is one kind.
    both = listing(problems)
    assert len(both.lines) == SHOWN_PER_KIND and both.cut[0].count == 2 * KIND_LIMIT
    assert listing(problems, every=True).lines == [str(p) for p in problems]


# --- GitHub Actions: annotations and the job summary stay within GitHub's limits -----------

def test_ten_thousand_problems_annotate_the_listed_ones_and_a_capped_summary(tmp_path, capsys):
    (tmp_path / "m.toml").write_text("x = 1\n", encoding="utf-8")
    problems = [Problem("m.toml", 1 + i, f"#{i + 1}", f"players[{i}].name",
                        f"'{'<|>' * 60}{i}' is listed twice") for i in range(10_000)]
    shown = listing(problems)
    summary_file = tmp_path / "summary.md"
    env = {"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": str(tmp_path), "GITHUB_STEP_SUMMARY": str(summary_file)}
    annotations.annotate(problems, tmp_path, env, shown=shown.shown)
    out = capsys.readouterr().out.splitlines()
    assert len(out) == SHOWN_PER_KIND + 1
    assert all(line.startswith("::error file=m.toml,line=") for line in out[:-1])
    assert out[-1].startswith("::notice title=sitegen::10000 problems found, many of one kind; ")
    text = summary_file.read_text(encoding="utf-8")
    rows = text.count("\n| m.toml |")
    assert len(text.encode()) <= annotations.SUMMARY_BYTES + 200
    assert 0 < rows <= annotations.SUMMARY_ROWS
    assert text.endswith(f"\n\n{10_000 - rows} more: the step's log lists the first of each kind, "
                         "`sitegen check --all` every problem.\n\n")


def test_diff_lists_an_invalid_revision_by_kind_too(tmp_path, capsys):
    from gitrepo import commit_all, init_repo

    repo = init_repo(tmp_path / "repo")
    write_files(repo, {"matches/duel/league.toml": league_toml("lunaro", name="Duel"),
                       HISTORY: lunaro_match("2020-01-01", "a", 20, 0, "b", 3, 0)})
    commit_all(repo, "valid")
    write_files(repo, {HISTORY: history(KIND_LIMIT + 1)})
    assert main(["diff", "HEAD", "--root", str(repo)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 3 * SHOWN_PER_KIND + 3 + 1
    assert err[0].startswith(f"at the working tree: {HISTORY}:")
    assert err[-2].startswith(f"sitegen: at the working tree: … and {KIND_LIMIT + 1 - SHOWN_PER_KIND} more of this "
                              f"kind, {KIND_LIMIT + 1} in all: map: unknown key; ")
    assert err[-1] == (f"sitegen: {3 * (KIND_LIMIT + 1)} problems found at the working tree (`sitegen check --all` "
                       "at a revision lists every one); nothing compared.")
