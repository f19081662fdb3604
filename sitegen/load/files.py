"""The site's input files, listed safely: matches/, content/ and templates/.

A listing never reads through a symbolic link that leads outside the site root (a link
to ~/.ssh or /etc would otherwise be read and published), never opens a FIFO or a device
(reading one blocks or never ends), and never silently passes over what a curator meant
as input: each of these, an unreadable folder and a folder named like a file, is a
problem naming the path. Listings are sorted, so the build sees the same order everywhere.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

from sitegen.load.problems import Problems


def rel(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


def outside_link(root: Path, path: Path) -> str | None:
    """Where a symbolic link at ``path`` leads, if that is outside ``root`` (or nowhere)."""
    if not path.is_symlink():
        return None
    try:
        target = path.resolve(strict=True)
    except (OSError, RuntimeError):           # dangling, or a loop of links
        return os.readlink(path) if _readable_link(path) else "?"
    return None if target.is_relative_to(root.resolve()) else str(target)


def _readable_link(path: Path) -> bool:
    try:
        os.readlink(path)
    except OSError:
        return False
    return True


def _kind(mode: int) -> str | None:
    """The kind of a special file, for a message; None for a regular file or folder."""
    for test, name in ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return None


def link_problem(root: Path, path: Path, problems: Problems) -> bool:
    """Report ``path`` if it is a link leading outside the root; True when it was reported."""
    target = outside_link(root, path)
    if target is None:
        return False
    where = "to nothing (its target is missing)" if target == "?" else f"to {target}"
    problems.add(rel(root, path), f"is a symbolic link {where}, outside the site: sitegen reads only "
                                  "files inside the site's folder; copy the file in, or remove the link")
    return True


def _listing(root: Path, folder: Path, problems: Problems) -> Iterator[tuple[Path, int]]:
    """(path, mode) of each folder and regular file directly in ``folder``, sorted, hidden ones
    left out; links leading outside the root, special files and what cannot be read are reported."""
    try:
        listing = sorted(os.scandir(folder), key=lambda e: e.name)
    except PermissionError:
        problems.add(rel(root, folder) if folder != root else ".",
                     "cannot be read (permission denied): give the user running sitegen read access, "
                     "or move it out of the site")
        return
    except OSError as exc:
        problems.add(rel(root, folder), f"cannot be read: {exc.strerror or exc}")
        return
    for entry in listing:
        path = Path(entry.path)
        if entry.name.startswith(".") or link_problem(root, path, problems):
            continue
        try:
            mode = os.stat(path).st_mode        # through a link inside the root
        except OSError as exc:
            problems.add(rel(root, path), f"cannot be read: {exc.strerror or exc}")
            continue
        if stat.S_ISDIR(mode) or stat.S_ISREG(mode):
            yield path, mode
        else:
            problems.add(rel(root, path), f"is {_kind(mode) or 'not a regular file'}, not a file: "
                                          "sitegen reads only regular files; remove it")


def walk(root: Path, folder: Path, problems: Problems, *, suffix: str) -> Iterator[Path]:
    """Every regular file under ``folder`` (sorted, at any depth, hidden ones left out), safely.

    Files and folders named ``*<suffix>`` that are not regular files are problems, as are
    special files of any name, links leading outside ``root`` and folders that cannot be
    read. Links inside the root are followed once: a loop of links is not walked twice.
    """
    seen: set[Path] = set()
    yield from _walk(root, folder, problems, suffix, seen)


def _walk(root: Path, folder: Path, problems: Problems, suffix: str, seen: set[Path]) -> Iterator[Path]:
    try:
        real = folder.resolve(strict=True)
    except (OSError, RuntimeError):
        return
    if real in seen:
        return
    seen.add(real)
    for path, mode in _listing(root, folder, problems):
        if stat.S_ISREG(mode):
            yield path
            continue
        if path.name.endswith(suffix):
            problems.add(rel(root, path), f"is a folder, but its name ends in {suffix}: "
                                          f"files named *{suffix} are read as input; rename the folder")
        yield from _walk(root, path, problems, suffix, seen)


def entries(root: Path, folder: Path, problems: Problems) -> tuple[list[Path], list[Path]]:
    """The folders and regular files directly in ``folder`` (sorted, hidden ones left out).

    Links outside the root and special files are reported, as in :func:`walk`.
    """
    listed = list(_listing(root, folder, problems))
    return ([p for p, mode in listed if stat.S_ISDIR(mode)], [p for p, mode in listed if stat.S_ISREG(mode)])
