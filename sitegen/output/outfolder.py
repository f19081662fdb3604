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


def output_problem(root: Path, out: Path) -> str | None:
    """Why ``out`` must not be replaced by a build of ``root``, or None when it may be.

    Both paths are taken as given (``build`` resolves them first). The message says what
    the folder is and what to pass instead.
    """
    new_folder = f"--out with a new or empty folder, such as {root / '_site'}"
    if out == root / "_site":
        new_folder = "--out with a new or empty folder"
    for path in (out, *out.parents):
        if path.name == ".git" or _is_git_dir(path):
            what = "a git repository's own folder" if path == out else f"inside a git repository's own folder ({path})"
            return (f"the output folder is {what}; sitegen replaces its output folder whole and never "
                    f"writes into a repository: pass {new_folder}")
    if _holds(out, root):
        what = "the site root" if out == root else "a folder holding the site root"
        return (f"the output folder is {what}: the build would replace the site's own files; "
                f"pass {new_folder}")
    for name in INPUTS:
        if _holds(root / name, out):
            what = f"the site's {name}" if out == root / name else f"inside the site's {name}"
            return (f"the output folder is {what}: the build would replace the site's own files; "
                    f"pass {new_folder}")
    home, cwd = _here()
    if home is not None and _holds(out, home):
        what = "your home folder" if out == home else "a folder holding your home folder"
        return f"the output folder is {what}; pass {new_folder}"
    if cwd is not None and _holds(out, cwd):
        what = "the current folder" if out == cwd else "a folder holding the current folder"
        return (f"the output folder is {what}: the build replaces it whole, which would pull the folder "
                f"you are in from under you; pass {new_folder}")
    if not os.path.lexists(out):
        return None
    if out.is_symlink():
        return f"the output folder is a symbolic link; pass {new_folder}, or the folder it points to"
    if not out.is_dir():
        return (f"the output folder is a file, not a folder: sitegen never replaces a file with a site; "
                f"pass {new_folder}")
    try:
        if os.path.lexists(out / ".git"):
            return (f"the output folder holds a git repository ({out / '.git'}); sitegen replaces its "
                    f"output folder whole and never deletes a repository: pass {new_folder}")
        if _is_empty(out):
            return None
    except OSError as exc:
        return f"the output folder cannot be read ({exc.strerror or exc}); pass {new_folder}"
    if not is_sitegen_site(out):
        return (f"the output folder is not empty and is not a site sitegen wrote (it has no {MARKER} file): "
                f"the build replaces the folder whole and would delete what is in it; move those files "
                f"elsewhere, or pass {new_folder}. A site built by an older sitegen may lack the file: "
                f"remove that folder once and build again")
    found = _git_inside(out)
    if found is not None:
        return (f"the output folder holds a git repository ({found}); sitegen replaces its output folder "
                f"whole and never deletes a repository: pass {new_folder}")
    return None


def check_output_folder(root: Path, out: Path) -> None:
    """Raise InvalidInput (exit 1) when ``out`` must not be replaced by a build of ``root``."""
    problem = output_problem(root, out)
    if problem:
        raise InvalidInput([Problem(str(out), message=problem)])


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
