"""A throw-away git repository for tests, isolated from the user's git config.

Author and committer dates are fixed per commit, so commit SHAs are the same on
every machine and tests can assert them.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

_BASE_ENV = {
    "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1", "LC_ALL": "C",
    "GIT_AUTHOR_NAME": "Curator", "GIT_AUTHOR_EMAIL": "curator@example.org",
    "GIT_COMMITTER_NAME": "Curator", "GIT_COMMITTER_EMAIL": "curator@example.org",
}


def git_env(when: str = "2026-01-01T12:00:00+00:00") -> dict[str, str]:
    return {**os.environ, **_BASE_ENV, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}


def git(cwd: Path, *args: str, when: str = "2026-01-01T12:00:00+00:00") -> str:
    proc = subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, text=True, env=git_env(when))
    if proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr}")
    return proc.stdout


def init_repo(path: Path) -> Path:
    """``git init`` with branch main and no hooks or signing from the machine."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "commit.gpgsign", "false")
    return path


def commit_all(path: Path, message: str, when: str = "2026-01-01T12:00:00+00:00") -> str:
    """Stage everything and commit at the fixed date ``when``; return the full commit SHA."""
    git(path, "add", "-A", when=when)
    git(path, "commit", "-q", "--no-verify", "-m", message, when=when)
    return git(path, "rev-parse", "HEAD").strip()
