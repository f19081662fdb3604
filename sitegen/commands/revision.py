"""The site's leagues at a git revision, or as they are on disk, validated and rated.

Ratings depend on nothing but matches/ (league.toml, players.toml and the match
files), so only that folder is taken: exported from git with ``git archive``,
or copied from the working tree, into a temporary root that the build's own
check and rate then read. A diff therefore rates exactly what a build would,
and a revision's content, templates or settings can never get in the way.
"""

from __future__ import annotations

import io
import shutil
import tarfile
from dataclasses import dataclass
from pathlib import Path

from sitegen.load import git
from sitegen.load.files import walk
from sitegen.commands.build import check, rate
from sitegen.model.history import RatedLeague
from sitegen.load.problems import InvalidInput, Problem, Problems


class RevisionError(Exception):
    """A revision cannot be read at all (a usage error): no git, no repository, no such commit."""


class InvalidRevision(Exception):
    """The match files at a revision have problems; carries them all."""

    def __init__(self, revision: "Revision", problems: list[Problem]):
        self.revision = revision
        self.problems = problems
        super().__init__(f"{len(problems)} problem(s) at {revision.label}")


@dataclass(frozen=True, slots=True)
class Repository:
    """Where the site sits in its git work tree."""

    root: Path          # the site root (holds matches/)
    top: Path           # the work tree
    prefix: str         # root relative to top, '/'-terminated ('' at the top)


@dataclass(frozen=True, slots=True)
class Revision:
    """A commit as named on the command line, or the working tree (``commit`` None)."""

    name: str | None
    commit: str | None

    @property
    def label(self) -> str:
        if self.commit is None:
            return "the working tree"
        short = self.commit[:7]
        if self.name is None or self.commit.startswith(self.name.lower()):
            return short
        return f"{self.name} ({short})"


WORKING_TREE = Revision(None, None)


def repository(root: Path) -> Repository:
    """The repository holding ``root``; raises RevisionError when there is none to read."""
    if not git.installed():
        raise RevisionError("git is not installed (or not on PATH); sitegen diff reads the site's git history")
    if not root.is_dir():
        raise RevisionError(f"{root} is not a folder")
    top = git.toplevel(root)
    if top is None:
        raise RevisionError(f"{root} is not inside a git work tree{_why(root)}; sitegen diff compares "
                            "revisions of the site's repository")
    return Repository(root.resolve(), top, git.prefix(root, top))


def _why(root: Path) -> str:
    """git's own reason when it is not the plain "not a git repository" (say, a work tree owned by
    another user, which git refuses until it is marked safe.directory)."""
    try:
        git.run(root, "rev-parse", "--show-toplevel")
    except git.GitError as exc:
        reason = str(exc).removeprefix("fatal: ")
        if not reason.startswith("not a git repository"):
            return f" (git: {reason})"
    return ""


def resolve(repo: Repository, name: str) -> Revision:
    """The commit ``name`` stands for (a branch, tag, SHA, HEAD~2, ...); RevisionError if none."""
    commit = git.commit_of(repo.top, name)
    if commit is None:
        raise RevisionError(f"unknown revision {name!r}: no such commit in {repo.top}")
    return Revision(name, commit)


def has_matches(repo: Repository, revision: Revision) -> bool:
    """Whether the site has a matches/ folder at ``revision``."""
    if revision.commit is None:
        return (repo.root / "matches").is_dir()
    return git.object_type(repo.top, f"{revision.commit}:{repo.prefix}matches") == "tree"


def export(repo: Repository, revision: Revision, dest: Path) -> None:
    """Put the revision's matches/ at ``dest``/matches (an empty folder where it has none)."""
    target = dest / "matches"
    if revision.commit is None:
        source = repo.root / "matches"
        if not source.is_dir():
            target.mkdir(parents=True)
            return
        # The files on disk, committed or not. Listed first as a build lists them, so a link out of
        # the site or a FIFO (a copy would block on it) is a problem of this revision, then copied.
        problems = Problems()
        for _ in walk(repo.root, source, problems, suffix=".toml"):
            pass
        if problems:
            raise InvalidRevision(revision, list(problems))
        shutil.copytree(source, target, symlinks=True)
        return
    tree = f"{revision.commit}:{repo.prefix}matches"
    target.mkdir(parents=True)
    if git.object_type(repo.top, tree) != "tree":
        return
    data = git.run(repo.top, "archive", "--format=tar", tree)
    refused: list[Problem] = []

    def safe(member: tarfile.TarInfo, path: str) -> tarfile.TarInfo | None:
        # A link leading out of matches/ would read files the revision does not hold.
        try:
            return tarfile.data_filter(member, path)
        except tarfile.FilterError as exc:
            refused.append(Problem(f"matches/{member.name}", message=f"not read: {exc}; match files must "
                                   "be files inside matches/"))
            return None

    with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as tar:
        tar.extractall(target, filter=safe)
    if refused:
        raise InvalidRevision(revision, refused)


def rated_leagues(repo: Repository, revision: Revision, workdir: Path) -> dict[str, RatedLeague]:
    """Every league of the revision, rated, by slug; InvalidRevision lists every problem."""
    workdir.mkdir(parents=True, exist_ok=True)
    export(repo, revision, workdir)
    try:
        site = check(workdir)
    except InvalidInput as exc:
        raise InvalidRevision(revision, exc.problems) from None
    return {rated.league.config.slug: rated for rated in rate(site)}
