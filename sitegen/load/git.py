"""Running git on the site repository: the one place that spawns it.

Provenance (which commit last changed a match file) and `sitegen diff` (ratings at
two revisions) both read git. Output is parsed from plumbing formats with
NUL separators, so any file name survives, and git's own config cannot change it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path


class GitError(Exception):
    """git is missing, the folder is not in a repository, or a git command failed."""


# Plumbing output must not depend on the user's settings or language.
_ENV = {"LC_ALL": "C", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0"}


def run(cwd: Path, *args: str, input: bytes | None = None) -> bytes:
    """Run ``git -C cwd ARGS`` and return its standard output; raise GitError on failure."""
    exe = shutil.which("git")
    if exe is None:
        raise GitError("git is not installed (or not on PATH)")
    env = {**os.environ, **_ENV}
    try:
        proc = subprocess.run([exe, "-C", str(cwd), "-c", "core.quotepath=off", *args],
                              input=input, capture_output=True, env=env, check=False)
    except OSError as exc:
        raise GitError(f"cannot run git: {exc.strerror or exc}") from exc
    if proc.returncode != 0:
        message = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        raise GitError(message[-1] if message else f"git {args[0]} failed (exit {proc.returncode})")
    return proc.stdout


def toplevel(path: Path) -> Path | None:
    """The work tree that holds ``path``, or None when it is not inside a git repository."""
    try:
        out = run(path, "rev-parse", "--show-toplevel")
    except GitError:
        return None
    return Path(os.fsdecode(out.rstrip(b"\n"))).resolve()


def prefix(root: Path, top: Path) -> str:
    """``root`` relative to the work tree, '/'-separated with a trailing '/' ('' at the top)."""
    relative = root.resolve().relative_to(top).as_posix()
    return "" if relative == "." else relative + "/"


def installed() -> bool:
    """Whether a git executable is on PATH (``toplevel`` alone cannot tell that from "no repository")."""
    return shutil.which("git") is not None


def commit_of(cwd: Path, revision: str) -> str | None:
    """The full SHA of the commit ``revision`` names (any rev-parse syntax), or None if it names none."""
    if not revision or revision.startswith("-"):      # never taken for an option
        return None
    try:
        out = run(cwd, "rev-parse", "--verify", "--quiet", revision + "^{commit}")
    except GitError:
        return None
    return out.decode("ascii").strip() or None


def object_type(cwd: Path, spec: str) -> str | None:
    """The type of the object ``spec`` ("<commit>:<path>") names: blob, tree, ...; None if missing."""
    if "\n" in spec:
        return None
    out = run(cwd, "cat-file", "--batch-check=%(objecttype)", input=os.fsencode(spec) + b"\n")
    kind = out.decode("utf-8", "replace").strip()
    return kind if kind in ("blob", "tree", "commit", "tag") else None
