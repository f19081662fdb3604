"""Problems as GitHub Actions workflow commands, so that they land on the lines a pull request changed.

When ``GITHUB_ACTIONS=true`` (GitHub sets it on every runner), a command that reports problems
writes, besides the contract's lines on standard error:

* ``::stop-commands::TOKEN`` before those lines and ``::TOKEN::`` after them, on standard
  output: the runner reads workflow commands in every line a step prints (``##[command]``
  anywhere in a line, too), and the lines quote names and values from the match files;
* one ``::error file=PATH,line=LINE,title=TITLE::MESSAGE`` per problem the log lists in full
  (past a few dozen of one kind, the first of that kind: problems.listing), PATH relative to
  the repository (``GITHUB_WORKSPACE``), so that a site kept in a subfolder is annotated too;
* when there are more problems than the 10 error annotations GitHub shows for a step, a
  ``::notice`` saying where the full list is;
* the full list as a Markdown table appended to ``$GITHUB_STEP_SUMMARY`` when it is set.

Escaping follows the runner's own parser (actions/runner, ActionCommand.cs): a message escapes
``%``, ``\\r`` and ``\\n``; a property value also ``:`` and ``,``.
"""

from __future__ import annotations

import os
import secrets
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import TextIO

from sitegen.output.escape import markdown, visible
from sitegen.load.git import prefix
from sitegen.load.problems import Problem, plural

ANNOTATION_LIMIT = 10       # error annotations GitHub shows for one step; the rest only in the log
SUMMARY_ROWS = 1000         # a step's job summary holds at most 1 MiB: the log keeps the rest
SUMMARY_BYTES = 900 * 1024  # ... and rows of long escaped values stop here, short of that MiB

_DATA = str.maketrans({"%": "%25", "\r": "%0D", "\n": "%0A"})
_PROPERTY = str.maketrans({"%": "%25", "\r": "%0D", "\n": "%0A", ":": "%3A", ",": "%2C"})


def active(env: Mapping[str, str] | None = None) -> bool:
    """Whether this process runs as a step of a GitHub Actions job."""
    return (os.environ if env is None else env).get("GITHUB_ACTIONS") == "true"


def escape_data(text: str) -> str:
    """A workflow command's message: one line whatever the text holds (line breaks encoded,
    controls shown as escapes so an ESC cannot colour the log)."""
    return visible(text, keep_breaks=True).translate(_DATA)


def escape_property(text: str) -> str:
    """A workflow command's property value (file, title): also no ``,`` or ``:`` to end it early."""
    return visible(text, keep_breaks=True).translate(_PROPERTY)


def workflow_path(root: Path, file: str, workspace: str | None) -> str | None:
    """The problem's file as GitHub names it: relative to the workspace when the site lies in it.

    None when the problem names no file of the site (``--base-url``, a missing folder, a
    built-in page): an annotation on it would point nowhere. Outside the workspace the
    root-relative path is the best guess.
    """
    rel = PurePosixPath(file)
    if not file or rel.is_absolute() or ".." in rel.parts or not root.joinpath(*rel.parts).is_file():
        return None
    if workspace:
        top = Path(workspace).resolve()
        if root.resolve().is_relative_to(top):
            return prefix(root, top) + rel.as_posix()
    return rel.as_posix()


def title(problem: Problem) -> str:
    """``sitegen: match M, field F``: the part of the problem that the file and line do not locate."""
    where = [f"match {problem.match}"] if problem.match else []
    if problem.field:
        where.append(f"field {problem.field}")
    return "sitegen: " + ", ".join(where) if where else "sitegen"


def annotation(problem: Problem, root: Path, workspace: str | None, command: str = "error") -> str:
    """One ``::error`` (or ``::warning``) command; a problem without a file of the site keeps its
    whole line as the message."""
    path = workflow_path(root, problem.file, workspace)
    props = []
    if path is not None:
        props.append(f"file={escape_property(path)}")
        if problem.line is not None:
            props.append(f"line={problem.line}")
    props.append(f"title={escape_property(title(problem))}")
    message = problem.message if path is not None else str(problem)
    return f"::{command} {','.join(props)}::{escape_data(message)}"


def summary(problems: Sequence[Problem], root: Path, workspace: str | None, *,
            log_lists_all: bool = True) -> str:
    """The job summary: every problem (up to SUMMARY_ROWS and SUMMARY_BYTES) in a Markdown table,
    each cell escaped. ``log_lists_all``: whether the step's log lists every problem in full."""
    n = len(problems)
    lines = [f"### sitegen: {plural(n, 'problem')} in the input", "",
             "| File | Line | Match | Field | Problem |", "|---|---:|---|---|---|"]
    size = sum(len(line.encode()) + 1 for line in lines)
    rows = 0
    for p in problems[:SUMMARY_ROWS]:
        cells = (workflow_path(root, p.file, workspace) or p.file, "" if p.line is None else str(p.line),
                 p.match or "", p.field or "", p.message)
        row = "| " + " | ".join(markdown(c) for c in cells) + " |"
        size += len(row.encode()) + 1
        if size > SUMMARY_BYTES:
            break
        lines.append(row)
        rows += 1
    if n > rows:
        where = ("the step's log lists every problem." if log_lists_all else
                 "the step's log lists the first of each kind, `sitegen check --all` every problem.")
        lines += ["", f"{n - rows} more: {where}"]
    return "\n".join(lines) + "\n\n"


@contextmanager
def commands_stopped(env: Mapping[str, str] | None = None, out: TextIO | None = None) -> Iterator[None]:
    """Inside the block, the runner reads no workflow command (from stdout or stderr) but the token.

    The token is random, so no text printed inside can resume command processing. Standard
    output is flushed around the block: the job should merge stderr into stdout (``2>&1``) so
    that the runner sees the three parts in order.
    """
    if not active(env):
        yield
        return
    out = out or sys.stdout
    token = secrets.token_hex(16)
    print(f"::stop-commands::{token}", file=out, flush=True)
    try:
        yield
    finally:
        sys.stderr.flush()
        print(f"::{token}::", file=out, flush=True)


def annotate(problems: Sequence[Problem], root: Path, env: Mapping[str, str] | None = None,
             out: TextIO | None = None, shown: Sequence[Problem] | None = None) -> None:
    """Every problem as an annotation, the notice past GitHub's limit and the job summary (GitHub Actions only).

    ``shown``: the problems the log lists in full, when it lists only the first of a kind with
    thousands (problems.listing); only those are annotated, the job summary still lists all.
    """
    env = os.environ if env is None else env
    if not active(env):
        return
    out = out or sys.stdout
    workspace = env.get("GITHUB_WORKSPACE") or None
    for problem in problems if shown is None else shown:
        print(annotation(problem, root, workspace), file=out)
    where = "this step's log"
    summary_file = env.get("GITHUB_STEP_SUMMARY")
    if summary_file and problems:
        try:
            with open(summary_file, "a", encoding="utf-8", newline="") as fh:
                everything = shown is None or len(shown) == len(problems)
                fh.write(summary(problems, root, workspace, log_lists_all=everything))
            where = "the job summary and this step's log"
        except OSError as exc:
            print(f"::warning title=sitegen::{escape_data(f'cannot write the job summary: {exc}')}", file=out)
    n = len(problems)
    if shown is not None and len(shown) < n:
        listed = "" if where == "this step's log" else f", the job summary up to {SUMMARY_ROWS}"
        print(f"::notice title=sitegen::{n} problems found, many of one kind; GitHub shows {ANNOTATION_LIMIT} "
              f"annotations of a step: this step's log lists the first of each kind with a count of the "
              f"rest{listed}; `sitegen check --all` lists every one.", file=out)
    elif n > ANNOTATION_LIMIT:
        print(f"::notice title=sitegen::{n} problems found; GitHub shows {ANNOTATION_LIMIT} annotations "
              f"of a step: {where} list every one.", file=out)
    out.flush()


def warn(notes: Sequence[Problem], root: Path, env: Mapping[str, str] | None = None,
         out: TextIO | None = None) -> None:
    """Each note as a ``::warning`` annotation on its line (GitHub Actions only): valid input,
    but a line worth a look, such as a name that looks like another player's."""
    env = os.environ if env is None else env
    if not active(env):
        return
    out = out or sys.stdout
    workspace = env.get("GITHUB_WORKSPACE") or None
    for note in notes:
        print(annotation(note, root, workspace, "warning"), file=out)
    out.flush()
