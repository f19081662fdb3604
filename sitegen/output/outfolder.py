"""Which folder a build may replace (docs/configuration): the rule output/write.py applies
before a build and again just before its swap. A folder sitegen wrote holds the marker file
``MARKER``; folders of a git repository, the site's own inputs and the folders holding them,
the home and current folders are refused even when marked."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from sitegen.load.problems import InvalidInput, Problem

MARKER = ".sitegen-site"
MARKER_FIRST_LINE = "sitegen-site 1"
MARKER_TEXT = (
    f"{MARKER_FIRST_LINE}\n"
    "This folder is a site written by sitegen, the leaderboard site generator.\n"
    "Every build into it replaces it whole: keep no files of your own in it.\n"
    "sitegen replaces a folder that is not empty only when it holds this file.\n"
)
_MARKER_LINE = re.compile(rb"sitegen-site [0-9]+\r?\n")
INPUTS = ("matches", "content", "templates", "pyproject.toml")
STANDINGS_HEADER = b"rank,player,rating,games"


class UnsafePath(ValueError):
    pass


# --- which folder may be replaced --------------------------------------------------------------

def has_marker(folder: Path) -> bool:
    """``folder/.sitegen-site`` is a regular file (not a link) that starts with the marker line."""
    try:
        fd = os.open(folder / MARKER, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return False
    try:
        with os.fdopen(fd, "rb") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                return False
            return bool(_MARKER_LINE.fullmatch(fh.readline(64)))
    except OSError:
        return False


def old_site_signature(folder: Path) -> bool:
    """A site written by sitegen before the marker existed.

    Accepted so that an existing ``_site`` does not stop the first build after an upgrade
    (that build adds the marker). The signature is conservative: ``index.html`` and
    ``assets/site.css`` as files, and at least one ``data/LEAGUE/standings.csv`` whose first
    line is sitegen's own header (docs/auditors). A hand-made site has no reason to
    hold that file; an old sitegen site without any league lacks it and is refused with the
    rest (its message says to remove the folder once).
    """
    try:
        if not ((folder / "index.html").is_file() and (folder / "assets" / "site.css").is_file()):
            return False
        data = folder / "data"
        if data.is_symlink() or not data.is_dir():
            return False
        for league in sorted(data.iterdir()):
            standings = league / "standings.csv"
            if league.is_symlink() or standings.is_symlink() or not standings.is_file():
                continue
            with open(standings, "rb") as fh:
                header = fh.readline(256).rstrip(b"\r\n")
            if header == STANDINGS_HEADER or header.startswith(STANDINGS_HEADER + b","):
                return True
    except OSError:
        return False
    return False


def is_sitegen_site(folder: Path) -> bool:
    """A real folder (not a link) holding the marker, or an older sitegen site by its signature."""
    return folder.is_dir() and not folder.is_symlink() and (has_marker(folder) or old_site_signature(folder))


def _is_git_dir(path: Path) -> bool:
    """A git repository's own folder (``.git`` or a bare repository): HEAD, objects/ and refs/."""
    try:
        return (path / "HEAD").is_file() and (path / "objects").is_dir() and (path / "refs").is_dir()
    except OSError:
        return False


def _git_inside(folder: Path) -> Path | None:
    """The first ``.git`` (folder, file or link) anywhere under ``folder``; links are not followed."""
    # Paths as strings: a big site's output has tens of thousands of folders to look in.
    pending = [str(folder)]
    while pending:
        current = pending.pop()
        try:
            with os.scandir(current) as it:
                for entry in it:
                    if entry.name == ".git":
                        return Path(entry.path)
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            pending.append(entry.path)
                    except OSError:
                        pass
        except OSError:
            continue
    return None


def _is_empty(folder: Path) -> bool:
    with os.scandir(folder) as it:
        return next(iter(it), None) is None


def _holds(outer: Path, inner: Path) -> bool:
    return inner == outer or inner.is_relative_to(outer)


def _here() -> tuple[Path | None, Path | None]:
    """The home folder and the current folder, where they can be known."""
    try:
        home = Path.home().resolve()
    except (RuntimeError, KeyError, OSError):
        home = None
    try:
        cwd = Path.cwd().resolve()
    except OSError:
        cwd = None
    return home, cwd


def _new_folder(root: Path, out: Path) -> str:
    if out == root / "_site":
        return "--out with a new or empty folder"
    return f"--out with a new or empty folder, such as {root / '_site'}"


def _git_inside_problem(root: Path, out: Path, found: Path) -> str:
    return (f"the output folder holds a git repository ({found}); sitegen replaces its output folder "
            f"whole and never deletes a repository: pass {_new_folder(root, out)}")


def output_problem(root: Path, out: Path) -> str | None:
    """Why ``out`` must not be replaced by a build of ``root``, or None when it may be.

    Both paths are taken as given (``build`` resolves them first). The message says what
    the folder is and what to pass instead.
    """
    problem, walk = _problem_before_walk(root, out)
    if problem is None and walk:
        found = _git_inside(out)
        if found is not None:
            return _git_inside_problem(root, out, found)
    return problem


def _problem_before_walk(root: Path, out: Path) -> tuple[str | None, bool]:
    """The rule up to the walk through an old site for a ``.git`` at any depth, and whether
    that walk is still to be made (``out`` is a site sitegen wrote)."""
    new_folder = _new_folder(root, out)
    for path in (out, *out.parents):
        if path.name == ".git" or _is_git_dir(path):
            what = "a git repository's own folder" if path == out else f"inside a git repository's own folder ({path})"
            return (f"the output folder is {what}; sitegen replaces its output folder whole and never "
                    f"writes into a repository: pass {new_folder}"), False
    if _holds(out, root):
        what = "the site root" if out == root else "a folder holding the site root"
        return (f"the output folder is {what}: the build would replace the site's own files; "
                f"pass {new_folder}"), False
    for name in INPUTS:
        if _holds(root / name, out):
            what = f"the site's {name}" if out == root / name else f"inside the site's {name}"
            return (f"the output folder is {what}: the build would replace the site's own files; "
                    f"pass {new_folder}"), False
    home, cwd = _here()
    if home is not None and _holds(out, home):
        what = "your home folder" if out == home else "a folder holding your home folder"
        return f"the output folder is {what}; pass {new_folder}", False
    if cwd is not None and _holds(out, cwd):
        what = "the current folder" if out == cwd else "a folder holding the current folder"
        return (f"the output folder is {what}: the build replaces it whole, which would pull the folder "
                f"you are in from under you; pass {new_folder}"), False
    if not os.path.lexists(out):
        return None, False
    if out.is_symlink():
        return f"the output folder is a symbolic link; pass {new_folder}, or the folder it points to", False
    if not out.is_dir():
        return (f"the output folder is a file, not a folder: sitegen never replaces a file with a site; "
                f"pass {new_folder}"), False
    try:
        if os.path.lexists(out / ".git"):
            return (f"the output folder holds a git repository ({out / '.git'}); sitegen replaces its "
                    f"output folder whole and never deletes a repository: pass {new_folder}"), False
        if _is_empty(out):
            return None, False
    except OSError as exc:
        return f"the output folder cannot be read ({exc.strerror or exc}); pass {new_folder}", False
    if not is_sitegen_site(out):
        return (f"the output folder is not empty and is not a site sitegen wrote (it has no {MARKER} file): "
                f"the build replaces the folder whole and would delete what is in it; move those files "
                f"elsewhere, or pass {new_folder}. A site built by an older sitegen may lack the file: "
                f"remove that folder once and build again"), False
    return None, True


def check_output_folder(root: Path, out: Path) -> None:
    """Raise InvalidInput (exit 1) when ``out`` must not be replaced by a build of ``root``."""
    problem = output_problem(root, out)
    if problem:
        raise InvalidInput([Problem(str(out), message=problem)])


class OutputCheck:
    """``check_output_folder`` whose walk through an old site for a ``.git`` runs in a forked
    child while the build reads its input: a million-match site's output has 32,000 folders,
    half a second of a one-match rebuild. ``finish`` waits for the walk and raises as
    ``check_output_folder`` would have; nothing is written to ``out`` before it is called."""

    def __init__(self, root: Path, out: Path) -> None:
        from sitegen.load import forked
        self.root, self.out = root, out
        problem, walk = _problem_before_walk(root, out)
        if problem:
            raise InvalidInput([Problem(str(out), message=problem)])
        self._child = None
        if walk:
            self._child = forked.start(lambda: os.fsencode(str(_git_inside(out) or "")))
            if self._child is None:         # one core: the walk now, as check_output_folder does
                self._raise_found(_git_inside(out))

    def _raise_found(self, found: Path | None) -> None:
        if found is not None:
            raise InvalidInput([Problem(str(self.out), message=_git_inside_problem(self.root, self.out, found))])

    def finish(self) -> None:
        child, self._child = self._child, None
        if child is None:
            return
        data = child.wait()
        # A child that failed is not a verdict: the walk is made here.
        self._raise_found(_git_inside(self.out) if data is None else Path(os.fsdecode(data)) if data else None)


def _replaceable_now(out: Path) -> str | None:
    """The part of the rule that can change during a build: what is at ``out`` now."""
    if not os.path.lexists(out):
        return None
    if out.is_symlink() or not out.is_dir():
        return "the output folder was replaced by a file or a link during the build; it was left as it is"
    try:
        if os.path.lexists(out / ".git"):
            return "the output folder gained a git repository during the build; it was left as it is"
        if _is_empty(out) or is_sitegen_site(out):
            return None
    except OSError as exc:
        return f"the output folder cannot be read ({exc.strerror or exc}); it was left as it is"
    return ("the output folder gained files sitegen did not write during the build (it has no "
            f"{MARKER} file); it was left as it is")
