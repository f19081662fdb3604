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
