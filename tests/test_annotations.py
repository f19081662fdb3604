"""Problems as GitHub Actions annotations (sitegen/commands/annotations.py, reported by cli._report)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from helpers import REPO, league_toml, lunaro_match, problems_of
from sitegen.commands import annotations
from sitegen.commands.annotations import annotation, escape_data, escape_property
from sitegen.output.escape import markdown
from sitegen.commands.cli import main

GITHUB_VARS = ("GITHUB_ACTIONS", "GITHUB_WORKSPACE", "GITHUB_STEP_SUMMARY")

DUEL = {"matches/duel/league.toml": league_toml("lunaro", name="Duel")}
# Line 3 holds the players of the first match: goals 30 is out of 0..22.
BAD_GOALS = {**DUEL, "matches/duel/2024.toml": lunaro_match("2024-01-01", "a", 30, 0, "b", 1, 0)}
# A match id that tries everything a workflow command reacts to; a file name with , : and %.
HOSTILE_ID = "x,y: 100% ::error::pwned ☃ ##[set-output name=a]b"
HOSTILE = {
    **DUEL,
    "matches/duel/a,b:c%.toml": (f'[[match]]\nid = "{HOSTILE_ID}"\nplayed = 2024-01-01\n'
                                 'players = [{ name = "Zoë", goals = 30, ping = 0 }, '
                                 '{ name = "q", goals = 1, ping = 0 }]\n'),
    "matches/duel/empty.toml": "",
}
ID_RULE = ("must be a string of letters, digits, '.', '_' and '-', starting with a letter or digit, "
           "at most 64 characters; got ")
HOSTILE_SHOWN = f'the text "{HOSTILE_ID}"'     # how a message shows the id a curator wrote


@pytest.fixture
def github(monkeypatch):
    """A GitHub runner's environment: GITHUB_ACTIONS=true, nothing else until a test sets it."""
    for name in GITHUB_VARS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    return monkeypatch


def run(capsys, *argv: str) -> tuple[int, list[str], str]:
    """main(argv): exit code, the annotation lines on stdout (stop/resume pair checked and removed), stderr."""
    code = main(list(argv))
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    stop = re.fullmatch(r"::stop-commands::([0-9a-f]{32})", lines[0])
    assert stop, captured.out
    assert lines[1] == f"::{stop.group(1)}::"
    return code, lines[2:], captured.err


def runner_reads(line: str) -> tuple[str, dict[str, str], str]:
    """How the runner reads one output line: actions/runner ActionCommand.TryParseV2 and its unescaping."""
    message = line.lstrip()
    assert message.startswith("::")
    end = message.index("::", 2)
    name, _, props = message[2:end].partition(" ")
    properties = {}
    for item in props.strip().split(","):
        key, _, value = item.partition("=")
        if key and value:
            for code, char in (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")):
                value = value.replace(code, char)
            properties[key] = value
    data = message[end + 2:]
    for code, char in (("%0D", "\r"), ("%0A", "\n"), ("%25", "%")):
        data = data.replace(code, char)
    return name, properties, data


# --- escaping -------------------------------------------------------------------------------

def test_escape_data_keeps_a_message_on_one_line():
    assert escape_data("100% done\r\nnext: a,b") == "100%25 done%0D%0Anext: a,b"
    assert escape_data("%0A stays literal") == "%250A stays literal"


def test_escape_property_also_escapes_colon_and_comma():
    assert escape_property("sitegen: match a,b 5%") == "sitegen%3A match a%2Cb 5%25"
    assert escape_property("::error::x\n") == "%3A%3Aerror%3A%3Ax%0A"


def test_control_characters_and_undecodable_file_names_are_shown_as_escapes():
    assert escape_data("a\x1b[31mred\x00\tb") == "a\\u001b[31mred\\u0000\tb"
    assert escape_data("a\u202eb") == "a\\u202eb"           # a right-to-left override reorders the log line
    assert escape_property("caf\udce9.toml") == "caf\\udce9.toml"


def test_job_summary_cells_show_markup_literally():
    cell = markdown("<script>|`x`|</script> & *b* [l](u) \"q\"")
    assert cell == ("&#60;script&#62;&#124;&#96;x&#96;&#124;&#60;/script&#62; &#38; &#42;b&#42; "
                    "&#91;l&#93;(u) \"q\"")
    assert markdown("Zoë ☃ 100%") == "Zoë ☃ 100%"
    cmarkgfm = pytest.importorskip("cmarkgfm")
    html = cmarkgfm.github_flavored_markdown_to_html(f"| a |\n|---|\n| {cell} |\n")
    assert "<td>&lt;script&gt;|`x`|&lt;/script&gt; &amp; *b* [l](u) &quot;q&quot;</td>" in html


# --- off GitHub: nothing on stdout ----------------------------------------------------------

@pytest.mark.parametrize("value", [None, "false", "1"])
def test_nothing_on_stdout_without_github_actions(make_site, monkeypatch, capsys, value):
    for name in GITHUB_VARS:
        monkeypatch.delenv(name, raising=False)
    if value is not None:
        monkeypatch.setenv("GITHUB_ACTIONS", value)
    root = make_site(BAD_GOALS)
    assert main(["check", "--root", str(root)]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == ("matches/duel/2024.toml:3: match #1 (2024-1): players[0].goals: "
                            "must be an integer 0..22, got 30\nsitegen: 1 problem found.\n")


# --- annotations ----------------------------------------------------------------------------

def test_problem_with_a_line(make_site, github, capsys):
    root = make_site(BAD_GOALS)
    github.setenv("GITHUB_WORKSPACE", str(root))
    code, out, err = run(capsys, "check", "--root", str(root))
    assert code == 1
    assert out == ["::error file=matches/duel/2024.toml,line=3,title=sitegen%3A match #1 (2024-1)%2C "
                   "field players[0].goals::must be an integer 0..22, got 30"]
    # The contract's lines on stderr are the same as off GitHub.
    assert err == ("matches/duel/2024.toml:3: match #1 (2024-1): players[0].goals: "
                   "must be an integer 0..22, got 30\nsitegen: 1 problem found.\n")


def test_problem_without_a_line_gets_the_file_only(make_site, github, capsys):
    root = make_site({**DUEL, "matches/duel/empty.toml": ""})
    github.setenv("GITHUB_WORKSPACE", str(root))
    code, out, _ = run(capsys, "check", "--root", str(root))
    assert code == 1
    assert out == ["::error file=matches/duel/empty.toml,title=sitegen::"
                   "holds no [[match]] table; remove the file or add a match"]


def test_site_in_a_subfolder_of_the_workspace(make_site, github, capsys, tmp_path):
    root = make_site(BAD_GOALS, name="repo/sites/demo")
    github.setenv("GITHUB_WORKSPACE", str(tmp_path / "repo"))
    code, out, _ = run(capsys, "check", "--root", str(root))
    assert code == 1
    assert out == ["::error file=sites/demo/matches/duel/2024.toml,line=3,title=sitegen%3A match #1 (2024-1)%2C "
                   "field players[0].goals::must be an integer 0..22, got 30"]


def test_workspace_given_with_a_relative_path_and_a_trailing_slash(make_site, github, capsys, tmp_path,
                                                                    monkeypatch):
    make_site(BAD_GOALS, name="repo/site")
    monkeypatch.chdir(tmp_path)
    github.setenv("GITHUB_WORKSPACE", "repo/")
    code, out, _ = run(capsys, "check", "--root", "repo/site")
    assert code == 1
    assert out[0].startswith("::error file=site/matches/duel/2024.toml,line=3,")


@pytest.mark.parametrize("workspace", ["elsewhere", None])
def test_site_outside_the_workspace_keeps_root_relative_paths(make_site, github, capsys, tmp_path, workspace):
    root = make_site(BAD_GOALS)
    if workspace:
        (tmp_path / workspace).mkdir()
        github.setenv("GITHUB_WORKSPACE", str(tmp_path / workspace))
    code, out, _ = run(capsys, "check", "--root", str(root))
    assert code == 1
    assert out[0].startswith("::error file=matches/duel/2024.toml,line=3,")


def test_problem_that_names_no_file_keeps_its_whole_line(make_site, github, capsys):
    root = make_site({**DUEL, "matches/duel/2024.toml": lunaro_match("2024-01-01", "a", 3, 0, "b", 1, 0)})
    github.setenv("GITHUB_WORKSPACE", str(root))
    code, out, err = run(capsys, "build", "--root", str(root), "--base-url", "ftp://host/x")
    assert code == 1
    message = ("--base-url: must be an absolute http(s) URL such as https://owner.github.io/repo/ "
               "(no query or fragment), got 'ftp://host/x'")
    assert out == [f"::error title=sitegen::{message}"]
    assert err == f"{message}\nsitegen: 1 problem found; the previous output was left untouched.\n"


def test_hostile_text_is_escaped(make_site, github, capsys):
    root = make_site(HOSTILE)
    github.setenv("GITHUB_WORKSPACE", str(root))
    code, out, _ = run(capsys, "check", "--root", str(root))
    assert code == 1
    title = "sitegen%3A match 'x%2Cy%3A 100%25 %3A%3Aerror%3A%3Apwned ☃ ##[set-output name=a]b' (#1)%2C field"
    assert out == [
        f"::error file=matches/duel/a%2Cb%3Ac%25.toml,line=2,title={title} id::"
        f"{ID_RULE}the text \"x,y: 100%25 ::error::pwned ☃ ##[set-output name=a]b\"",
        f"::error file=matches/duel/a%2Cb%3Ac%25.toml,line=4,title={title} players[0].goals::"
        "must be an integer 0..22, got 30",
        "::error file=matches/duel/empty.toml,title=sitegen::holds no [[match]] table; remove the file or add a match",
    ]


def test_the_runner_reads_back_exactly_each_problem(make_site):
    root = make_site(HOSTILE)
    problems = problems_of(root)
    assert len(problems) == 3
    for problem in problems:
        name, properties, message = runner_reads(annotation(problem, root, str(root)))
        assert name == "error"
        assert properties["file"] == problem.file
        assert properties.get("line") == (None if problem.line is None else str(problem.line))
        expected = f"sitegen: match {problem.match}, field {problem.field}" if problem.match else "sitegen"
        assert properties["title"] == expected
        assert message == problem.message
    assert runner_reads(annotation(problems[0], root, None))[1]["title"] == (
        f"sitegen: match {HOSTILE_ID!r} (#1), field id")


def test_a_message_with_line_breaks_stays_one_command(make_site):
    from sitegen.load.problems import Problem

    root = make_site(DUEL)
    problem = Problem("matches/duel/league.toml", 1, None, "name", "bad\r\n::error::injected %0A")
    line = annotation(problem, root, None)
    assert "\n" not in line and "\r" not in line
    assert runner_reads(line) == ("error", {"file": "matches/duel/league.toml", "line": "1",
                                            "title": "sitegen: field name"}, "bad\r\n::error::injected %0A")


# --- the stop-commands guard ----------------------------------------------------------------

def test_stderr_lines_are_read_without_workflow_commands(make_site, tmp_path):
    """Merged into one stream (as the workflows run it), the contract's lines sit between stop and resume."""
    root = make_site(HOSTILE)
    env = {k: v for k, v in os.environ.items() if k not in GITHUB_VARS}
    env.update(GITHUB_ACTIONS="true", GITHUB_WORKSPACE=str(root),
               PYTHONPATH=str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else ""))
    done = subprocess.run([sys.executable, "-m", "sitegen", "check", "--root", str(root)], env=env,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    token = re.fullmatch(r"::stop-commands::([0-9a-f]{32})", lines[0]).group(1)
    assert lines[1:5] == [
        f"matches/duel/a,b:c%.toml:2: match {HOSTILE_ID!r} (#1): id: {ID_RULE}{HOSTILE_SHOWN}",
        f"matches/duel/a,b:c%.toml:4: match {HOSTILE_ID!r} (#1): players[0].goals: must be an integer 0..22, got 30",
        "matches/duel/empty.toml: holds no [[match]] table; remove the file or add a match",
        "sitegen: 3 problems found.",
    ]
    assert lines[5] == f"::{token}::"
    assert [line.split(" ", 1)[0] for line in lines[6:]] == ["::error"] * 3
    # Another run, another token: nothing in the input can know it.
    again = subprocess.run([sys.executable, "-m", "sitegen", "check", "--root", str(root)], env=env,
                           capture_output=True, text=True, timeout=300)
    assert again.stdout.splitlines()[0] != lines[0]


# --- more than GitHub shows, and the job summary --------------------------------------------

def many_bad_matches(n: int) -> dict[str, str]:
    text = "".join(lunaro_match(f"2024-01-{i + 1:02d}", "a", 30, 0, "b", 1, 0) for i in range(n))
    return {**DUEL, "matches/duel/2024.toml": text}


def test_past_ten_problems_every_one_is_annotated_and_a_notice_says_where_the_list_is(make_site, github, capsys):
    root = make_site(many_bad_matches(12))
    github.setenv("GITHUB_WORKSPACE", str(root))
    code, out, err = run(capsys, "check", "--root", str(root))
    assert code == 1
    assert len(err.splitlines()) == 13
    assert out[:12] == [f"::error file=matches/duel/2024.toml,line={3 + 4 * i},title=sitegen%3A match "
                        f"#{i + 1} (2024-{i + 1})%2C field players[0].goals::must be an integer 0..22, got 30"
                        for i in range(12)]
    assert out[12:] == ["::notice title=sitegen::12 problems found; GitHub shows 10 annotations of a step: "
                        "this step's log list every one."]


def test_ten_problems_need_no_notice(make_site, github, capsys):
    root = make_site(many_bad_matches(10))
    code, out, _ = run(capsys, "check", "--root", str(root))
    assert code == 1
    assert len(out) == 10 and all(line.startswith("::error ") for line in out)


def test_job_summary_lists_every_problem_escaped(make_site, github, capsys, tmp_path):
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    root = make_site({**DUEL, "matches/duel/2024.toml": (
        '[[match]]\nplayed = 2024-01-01\nplayers = [{ name = "<script>|`x`", goals = 1, ping = 0 }, '
        '{ name = "<script>|`x`", goals = 2, ping = 0 }]\n')}, name="repo/site")
    github.setenv("GITHUB_WORKSPACE", str(tmp_path / "repo"))
    github.setenv("GITHUB_STEP_SUMMARY", str(summary))
    code, out, _ = run(capsys, "check", "--root", str(root))
    assert code == 1
    assert out == ["::error file=site/matches/duel/2024.toml,line=3,title=sitegen%3A match #1 (2024-1)%2C "
                   "field players[1].name::'<script>|`x`' is already listed as players[0]; "
                   "a player may appear only once in a match"]
    assert summary.read_text(encoding="utf-8") == (
        "earlier step\n"
        "### sitegen: 1 problem in the input\n"
        "\n"
        "| File | Line | Match | Field | Problem |\n"
        "|---|---:|---|---|---|\n"
        "| site/matches/duel/2024.toml | 3 | &#35;1 (2024-1) | players&#91;1&#93;.name | "
        "'&#60;script&#62;&#124;&#96;x&#96;' is already listed as players&#91;0&#93;; "
        "a player may appear only once in a match |\n"
        "\n")


def test_summary_mentioned_by_the_notice_and_capped(make_site, github, capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(annotations, "SUMMARY_ROWS", 11)
    summary = tmp_path / "summary.md"
    github.setenv("GITHUB_STEP_SUMMARY", str(summary))
    root = make_site(many_bad_matches(12))
    code, out, _ = run(capsys, "check", "--root", str(root))
    assert code == 1
    assert out[-1] == ("::notice title=sitegen::12 problems found; GitHub shows 10 annotations of a step: "
                       "the job summary and this step's log list every one.")
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("### sitegen: 12 problems in the input\n")
    assert text.count("\n| matches/duel/2024.toml |") == 11
    assert text.endswith("\n\n1 more: the step's log lists every problem.\n\n")


def test_unwritable_summary_is_a_warning_not_a_crash(make_site, github, capsys, tmp_path):
    github.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "missing" / "summary.md"))
    root = make_site(BAD_GOALS)
    code, out, _ = run(capsys, "check", "--root", str(root))
    assert code == 1
    assert out[0].startswith("::error file=matches/duel/2024.toml,line=3,")
    assert re.fullmatch(r"::warning title=sitegen::cannot write the job summary: \[Errno 2\] .*", out[1])


def test_a_valid_site_prints_no_workflow_command(make_site, github, capsys, tmp_path):
    summary = tmp_path / "summary.md"
    github.setenv("GITHUB_STEP_SUMMARY", str(summary))
    root = make_site({**DUEL, "matches/duel/2024.toml": lunaro_match("2024-01-01", "a", 3, 0, "b", 1, 0)})
    assert main(["check", "--root", str(root)]) == 0
    assert capsys.readouterr().out == "sitegen: 1 leagues, 1 matches: all valid\n"
    assert not summary.exists()
