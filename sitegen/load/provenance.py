"""Provenance: which commit last changed each match file, and the date a build stands for.

Every rating on the site leads back to a match, its file and line, and the commit
that put that file's content in the repository. A commit is named only when it
holds exactly the content that was rated: the file is clean in the work tree and
the blob the commit wrote is the blob at HEAD. A file with uncommitted changes,
an untracked or ignored file gets no commit at all.

Read in two git passes over the whole history (``git log`` of the matches
folder, ``git status`` of the inputs) plus HEAD's tree, never once per file.
Outside a git checkout, or without git, there is simply no provenance.

The build date is ``SOURCE_DATE_EPOCH`` when set, else the committer date of
HEAD, never the clock, so the same input gives the same bytes on any machine.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import quote

from sitegen.load import git
from sitegen.load.problems import InvalidInput, Problem
from sitegen.load.urls import is_http_url, url_option
from sitegen.rating.base import Match

# The inputs of a build (build.py reads the same): any change in them makes HEAD
# an incomplete description of the site.
INPUTS = ("matches", "content", "templates", "pyproject.toml")
# Fixed, so a SHA reads the same on every page whatever the size of the repository.
SHORT = 7
# sha, committer date (Unix seconds), subject: the subject last, since it may hold spaces.
_FORMAT = "--format=%H %ct %s"
_HEADER = re.compile(rb"[0-9a-f]{40}(?:[0-9a-f]{24})? [0-9]+( |$)")    # SHA-1 or SHA-256
# Characters a URL may not hold unescaped (RFC 3986); a repository URL is pasted, not built.


@dataclass(frozen=True, slots=True)
class Commit:
    sha: str                  # full, 40 hex digits
    date: datetime            # committer date, UTC
    subject: str              # the first line of the message: the curator's text, shown escaped

    @property
    def short(self) -> str:
        return self.sha[:SHORT]


@dataclass(frozen=True, slots=True)
class Source:
    """Where one match came from, as its page shows it."""

    file: str                 # relative to the site root
    line: int | None          # the line of its [[match]] table
    commit: Commit | None     # the last commit that changed the file; None when unknown
    uncommitted: bool         # in a git checkout, but no commit holds this content of the file
    file_url: str = ""        # the file at that commit, at the match's line, in the repository
    commit_url: str = ""


@dataclass(frozen=True, slots=True)
class BuildInfo:
    """The home page's build line: "Built 2026-05-01 from commit abc1234"."""

    date: datetime | None     # SOURCE_DATE_EPOCH, else HEAD's committer date; None: no date shown
    commit: Commit | None     # HEAD of the root's repository
    uncommitted: bool         # an input file differs from HEAD
    commit_url: str = ""


@dataclass(frozen=True, slots=True)
class Provenance:
    repo_url: str = ""                   # normalised: no trailing "/" or ".git"; "" for no links
    in_git: bool = False                 # the root is inside a git work tree
    prefix: str = ""                     # the root's path in the work tree, "" or ending in "/"
    commits: Mapping[str, Commit] = field(default_factory=dict)   # root-relative file -> last commit
    committed: frozenset[str] = frozenset()                        # root-relative files clean at HEAD
    build: BuildInfo = BuildInfo(None, None, False)

    def commit_of(self, file: str) -> Commit | None:
        """The commit holding exactly this content of ``file`` (relative to the root), if any."""
        return self.commits.get(file)

    def source(self, match: Match) -> Source:
        return self.source_at(match.file, match.line)

    def source_at(self, file: str, line: int | None) -> Source:
        """``source`` of a match in ``file`` at ``line``: all it reads of the match."""
        commit = self.commits.get(file)
        uncommitted = self.in_git and file not in self.committed
        file_url = commit_url = ""
        if commit is not None and self.repo_url:
            path = quote(os.fsencode(self.prefix + file), safe="/")
            anchor = f"#L{line}" if line else ""
            file_url = f"{self.repo_url}/blob/{commit.sha}/{path}{anchor}"
            commit_url = f"{self.repo_url}/commit/{commit.sha}"
        return Source(file, line, commit, uncommitted, file_url, commit_url)


# --- settings ---------------------------------------------------------------------------

def repo_url_problem(value: str) -> str | None:
    """What is wrong with a repository URL (``repo_url`` or ``--repo-url``), or None.

    Match pages link into it as written, so credentials would be published on every page.
    """
    if not is_http_url(value.strip(), strict=True):
        return ("must be the repository's absolute http(s) URL such as https://github.com/owner/repo "
                f"(no credentials, query or fragment), got {value!r}")
    return None


def normalize_repo_url(value: str) -> str:
    """``https://github.com/owner/repo/`` and ``.../repo.git`` both give ``.../repo``."""
    text = value.strip().rstrip("/")
    return text[:-len(".git")] if text.endswith(".git") else text


def site_repo_url(configured: str, given: str | None) -> str:
    """``--repo-url`` when given (checked as ``repo_url`` is), else the setting; "" for no links."""
    return url_option("--repo-url", configured, given, repo_url_problem, normalize_repo_url)


def source_date(environ: Mapping[str, str]) -> datetime | None:
    """``SOURCE_DATE_EPOCH`` (reproducible-builds.org) as a UTC time; None when unset or empty."""
    raw = environ.get("SOURCE_DATE_EPOCH", "")
    if raw == "":
        return None
    try:
        if not (raw.isascii() and raw.isdigit()):
            raise ValueError(raw)
        return datetime.fromtimestamp(int(raw), timezone.utc)
    except (ValueError, OverflowError, OSError):
        raise InvalidInput([Problem("SOURCE_DATE_EPOCH", message=(
            "must be a whole number of seconds since 1970-01-01 00:00 UTC, such as 1714521600 "
            f"(the output of `date +%s`), got {raw!r}"))]) from None


def options(configured: str, given: str | None, environ: Mapping[str, str]) -> tuple[str, datetime | None]:
    """The repository URL and SOURCE_DATE_EPOCH's date; both checked, every problem in one run."""
    problems: list[Problem] = []
    url, date = "", None
    try:
        url = site_repo_url(configured, given)
    except InvalidInput as exc:
        problems += exc.problems
    try:
        date = source_date(environ)
    except InvalidInput as exc:
        problems += exc.problems
    if problems:
        raise InvalidInput(problems)
    return url, date


# --- reading git --------------------------------------------------------------------------

def read(root: Path, repo_url: str = "", date: datetime | None = None) -> Provenance:
    """The provenance of the site at ``root``; ``date`` is SOURCE_DATE_EPOCH's, if set.

    Not a git checkout, git missing or failing: no provenance and no message, since
    a site built from a plain folder is as valid as one built from a checkout.
    """
    nothing = Provenance(repo_url, build=BuildInfo(date, None, False))
    top = git.toplevel(root)
    if top is None:
        return nothing
    try:
        prefix = git.prefix(root, top)
        dirty = _changed(top, prefix)
        head = _head(top)
        tree = _tree(top, prefix) if head else {}
        want = {p: blob for p, blob in tree.items() if p not in dirty and blob}
        found = _last_commits(top, prefix, want) if want else {}
    except (git.GitError, ValueError):
        return nothing
    strip = len(prefix)
    commits = {path[strip:]: commit for path, commit in found.items()}
    committed = frozenset(path[strip:] for path in tree if path not in dirty)
    url = f"{repo_url}/commit/{head.sha}" if head and repo_url else ""
    build = BuildInfo(date or (head.date if head else None), head, bool(dirty), url)
    return Provenance(repo_url, True, prefix, commits, committed, build)


def _pathspec(prefix: str, name: str) -> str:
    # Literal: a folder called "[abc]" or "*" is a name, not a pattern.
    return f":(literal){prefix}{name}"


def _commit(header: bytes) -> Commit:
    sha, seconds, *subject = header.split(b" ", 2)
    return Commit(sha.decode("ascii"), datetime.fromtimestamp(int(seconds), timezone.utc),
                  subject[0].decode("utf-8", "replace") if subject else "")


def _head(top: Path) -> Commit | None:
    """HEAD's commit; None in a repository without commits yet."""
    try:
        out = git.run(top, "log", "-1", "-z", "--no-show-signature", _FORMAT, "HEAD", "--")
    except git.GitError:
        return None
    return _commit(out.strip(b"\0\n"))


def _changed(top: Path, prefix: str) -> frozenset[str]:
    """Input files (paths in the work tree) that differ from HEAD: modified, staged, new, untracked."""
    out = git.run(top, "status", "--porcelain", "-z", "--untracked-files=all", "--no-renames",
                  "--", *(_pathspec(prefix, name) for name in INPUTS))
    # "XY path", one entry per NUL; --no-renames keeps it to one path each.
    return frozenset(os.fsdecode(entry[3:]) for entry in out.split(b"\0") if len(entry) > 3)


def _tree(top: Path, prefix: str) -> dict[str, str]:
    """The match folder's files at HEAD: path in the work tree -> blob id of a regular
    file, "" for a symlink (its blob is the link, not the content that was rated)."""
    out = git.run(top, "ls-tree", "-r", "-z", "--full-tree", "HEAD", "--", _pathspec(prefix, "matches"))
    tree = {}
    for entry in out.split(b"\0"):
        meta, _, path = entry.partition(b"\t")
        if path:
            mode, _, blob = meta.split(b" ")
            tree[os.fsdecode(path)] = blob.decode("ascii") if mode in (b"100644", b"100755") else ""
    return tree


def _last_commits(top: Path, prefix: str, want: dict[str, str]) -> dict[str, Commit]:
    """For each path, the newest commit that wrote exactly its blob at HEAD.

    Topological order shows a commit before any of its ancestors. Checking the blob
    makes the claim exact where order alone could mislead: a merge that kept one
    side's version of a file both sides changed (the other side's commit is skipped),
    a merge that changed a file itself (the combined diff lists it). A shallow clone
    shows its oldest commit as adding every file: that commit holds the content.
    """
    out = git.run(top, "log", "-z", "--topo-order", "--no-renames", "--raw", "--no-abbrev",
                  "--diff-merges=c", "--no-show-signature", "--no-color", _FORMAT,
                  "--", _pathspec(prefix, "matches"))
    found: dict[str, Commit] = {}
    for commit, path, blob in _log_entries(out):
        if path not in found and want.get(path) == blob:
            found[path] = commit
    return found


def _log_entries(out: bytes) -> Iterator[tuple[Commit, str, str]]:
    """(commit, path, new blob) for every file of every commit of ``git log -z --raw``.

    Fields are NUL-separated: a commit's header ("<sha> <seconds> <subject>"), then
    for each change a ":modes shas status" field and its path ("::..." with one more
    mode and sha per parent for a merge's combined diff; the last sha is the result).
    A path is always read right after its change, so no file name is taken for a header.
    """
    fields = out.split(b"\0")
    commit = None
    i = 0
    while i < len(fields):
        item = fields[i].lstrip(b"\n")
        if item.startswith(b":") and commit is not None and i + 1 < len(fields):
            parents = len(item) - len(item.lstrip(b":"))
            shas = item[parents:].split(b" ")[parents + 1:2 * parents + 2]
            yield commit, os.fsdecode(fields[i + 1]), shas[-1].decode("ascii")
            i += 2
            continue
        if _HEADER.match(item):
            commit = _commit(item)
        i += 1
