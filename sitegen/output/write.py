"""The output folder: which folder a build may replace, and how it is replaced.

Which folder (docs/configuration). A build replaces its output folder whole, so
it is replaced only when it is absent, empty, or a site that sitegen wrote. Every
site sitegen writes holds the marker file ``.sitegen-site`` (``MARKER``) whose
first line is ``sitegen-site 1`` (a format number) followed by a few lines saying
what the folder is; its text is fixed, so builds stay byte-identical. A folder is
sitegen's only if that file is a regular file starting with that line. Some
folders are refused even when marked: anything inside a git repository's own
folder (``.git``, or a bare repository), a folder holding a ``.git`` anywhere
inside it, the site root and every folder holding it, the site's inputs
(``matches/``, ``content/``, ``templates/``, ``pyproject.toml``), the home folder
and the current folder (and the folders holding them), and anything that is not
a folder. ``check_output_folder`` is the whole rule; ``Output.commit`` applies it
again just before the swap, in case the folder changed during the build.

How. Files are written into a staging folder ``.<out>.new-XXXXXXXX`` beside the
output as they are rendered (so memory stays flat for large leagues); the
marker is its first file. At the end the staging folder and the output are
swapped in one step: on Linux by ``renameat2(RENAME_EXCHANGE)``, so that the
output path always holds a complete site, the old or the new one; the old site
(then at the staging path) is renamed to ``.<out>.old-XXXXXXXX`` and removed.
Where the exchange is unavailable (not Linux, a C library without renameat2, or
a file system or kernel that refuses it with EINVAL, ENOSYS or EOPNOTSUPP), the
fallback is two renames, output -> ``.<out>.old-*`` then staging -> output:
between those two system calls (microseconds) the output path does not exist,
and a build killed exactly there leaves no output folder but the complete old
site in ``.<out>.old-*`` and the complete new one in ``.<out>.new-*``. An absent
output is created by one rename, which is atomic. A build that fails (bad input,
or an error) removes its staging folder and leaves the output as it was. The old
site of a big build (``REMOVED_BESIDE`` files or more) is removed by a process of
its own that the build leaves running, holding the old site's lock: removing tens
of thousands of folders can take longer than the rebuild (20 s on a file system
mounted with ``discard``), and the new site is in place already.

Debris. A build killed while it writes (SIGKILL, a power cut) leaves its staging
folder behind. While a build runs it holds an exclusive ``flock`` on its staging
folder, and on the old site while it removes it; the kernel drops a lock when
the process dies, however it dies. After each successful swap, the build removes
every ``.<out>.new-*`` and ``.<out>.old-*`` folder beside the output that is
sitegen's (marker, or the signature below) and whose lock it can take at once:
a folder locked by a build still running is left alone, and so is any folder
that is not sitegen's. On a file system without working locks nothing is
removed (".gitignore" lists the two patterns).
"""

from __future__ import annotations

import ctypes
import errno
import os
import re
import shutil
import stat
import sys
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from sitegen.load.problems import InvalidInput, Problem

try:
    import fcntl
except ImportError:     # not POSIX: no locks, so no folder is ever judged abandoned
    fcntl = None        # type: ignore[assignment]

from sitegen.output.outfolder import (  # noqa: F401  (the output folder's rule, as write.py's own)
    INPUTS, MARKER, MARKER_FIRST_LINE, MARKER_TEXT, STANDINGS_HEADER, UnsafePath, _is_empty,
    _replaceable_now, check_output_folder, has_marker, is_sitegen_site, old_site_signature,
    output_problem)

# --- the atomic swap ---------------------------------------------------------------------------

AT_FDCWD = -100
RENAME_EXCHANGE = 2
# The exchange is not there: the kernel lacks the call, or the file system refuses the flag.
_UNSUPPORTED = {errno.EINVAL, errno.ENOSYS, getattr(errno, "EOPNOTSUPP", errno.EINVAL),
                getattr(errno, "ENOTSUP", errno.EINVAL)}


def _load_renameat2():
    if not sys.platform.startswith("linux"):
        return None
    try:
        fn = ctypes.CDLL(None, use_errno=True).renameat2    # glibc 2.28+, musl 1.2.3+
    except (OSError, AttributeError):
        return None
    fn.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint)
    fn.restype = ctypes.c_int
    return fn


_RENAMEAT2 = _load_renameat2()


def _renameat2(a: Path, b: Path, flags: int) -> None:
    """renameat2(2) of the C library; OSError as os.rename raises it. ENOSYS where there is none."""
    if _RENAMEAT2 is None:
        raise OSError(errno.ENOSYS, "renameat2 is not available", str(a), None, str(b))
    if _RENAMEAT2(AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b), flags) != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code), str(a), None, str(b))


def exchange(a: Path, b: Path) -> bool:
    """Swap the two paths in one step; False (nothing done) where the system cannot."""
    try:
        _renameat2(a, b, RENAME_EXCHANGE)
    except OSError as exc:
        if exc.errno in _UNSUPPORTED:
            return False
        raise
    return True


def _lock(path: Path) -> int | None:
    """An open descriptor of the folder with an exclusive flock on it, or None when the lock is
    held by someone else, or locks do not work here (then the folder is treated as in use)."""
    if fcntl is None:
        return None
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def _unlock(fd: int | None) -> None:
    if fd is not None:
        os.close(fd)    # closing the last descriptor drops the flock


# Files of a new site from which the old one is removed by a process of its own.
REMOVED_BESIDE = 5000


def _remove_beside(folder: Path, lock: int) -> bool:
    """Remove ``folder`` in a process that outlives this one and holds ``lock`` (its flock)
    until done; False where no process can be started (then the caller removes it).

    The remover is forked twice, so that no process is left for this one to wait for, and
    keeps no descriptor of this one's but the lock: a pipe it held open (``sitegen build |
    tee``, a test runner's) would wait for it."""
    if not hasattr(os, "fork"):
        return False
    try:
        pid = os.fork()
    except OSError:
        return False
    if pid == 0:
        try:
            if os.fork() == 0:
                os.setsid()
                null = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(null, fd)
                os.closerange(3, lock)
                os.closerange(lock + 1, 1 << 16)
                shutil.rmtree(folder, ignore_errors=True)
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    return True


def staging_folders(out: Path) -> list[Path]:
    """The ``.<out>.new-*`` and ``.<out>.old-*`` folders beside ``out`` (links excluded)."""
    pattern = re.compile(rf"\.{re.escape(out.name)}\.(?:new|old)-[A-Za-z0-9_]+")
    try:
        with os.scandir(out.parent) as it:
            names = sorted(e.name for e in it if pattern.fullmatch(e.name) and e.is_dir(follow_symlinks=False))
    except OSError:
        return []
    return [out.parent / name for name in names]


def remove_debris(out: Path) -> list[Path]:
    """Remove the staging folders that killed builds left beside ``out``; returns them.

    Only sitegen's (marker, or the old signature) and only unlocked ones: a running build
    holds the lock on its own, and the marker is written after the lock is taken.
    """
    removed = []
    for folder in staging_folders(out):
        if not is_sitegen_site(folder):
            continue
        fd = _lock(folder)
        if fd is None:
            continue
        try:
            shutil.rmtree(folder, ignore_errors=True)
        finally:
            _unlock(fd)
        removed.append(folder)
    return removed


class Output:
    """Every file of a build, by its '/'-separated path in the site."""

    def __init__(self, out: Path, *, reuse: bool = False) -> None:
        self.out = out.resolve()
        self.sizes: dict[str, int] = {}
        self._tmp: Path | None = None
        self._lock: int | None = None
        self.exchanged = False      # the last commit swapped in one step (renameat2)
        # Files equal to the published ones are linked from it, not written again (``_link_same``):
        # only from a folder sitegen wrote, and only regular files.
        self._published = self.out if reuse and is_sitegen_site(self.out) else None
        # The same paths as plain strings: a rebuild keeps tens of thousands of files, and
        # formatting a Path each time cost more than the text.
        self._published_text = str(self._published) if self._published is not None else None
        self._stage_text = ""
        self.linked = 0             # files taken from the published site unchanged
        self._folders: set[str] = set()     # staging sub-folders made so far: one mkdir each
        self._unmade: set[str] = set()      # folders of claimed files not made yet (``make_folders``)
        self.journal: list[tuple[str, int, bool]] | None = None     # files written while ``journaled`` runs

    def _stage(self) -> Path:
        """The staging folder: created, locked, then marked (so no other build removes it)."""
        if self._tmp is None:
            self.out.parent.mkdir(parents=True, exist_ok=True)
            self._tmp = Path(tempfile.mkdtemp(prefix=f".{self.out.name}.new-", dir=self.out.parent))
            self._lock = _lock(self._tmp)
            self._stage_text = str(self._tmp)
            self._folders = {""}
            data = MARKER_TEXT.encode("utf-8")
            (self._tmp / MARKER).write_bytes(data)
            self.sizes[MARKER] = len(data)
        return self._tmp

    def add(self, path: str, content: str | bytes, *, replace: bool = False) -> None:
        """Write one file; two pages claiming one path is a bug unless ``replace`` says it is meant.
        While ``journaled`` runs, the file is written and noted, and claimed later by ``settle``."""
        if self.journal is not None:
            path = safe_path(path)
            self.journal.append((path, *self.write(path, content, replace=replace)))
            return
        path = self.claim(path, replace=replace)
        self.record(path, *self.write(path, content, replace=replace))

    def add_parts(self, path: str, parts: Iterable[bytes | Span]) -> None:
        """``add`` for a file given in parts (a big data file), each written as it comes: its
        whole bytes are never held. Linked from the published site where they are its bytes."""
        journal = self.journal
        path = safe_path(path) if journal is not None else self.claim(path)
        target = self._target(path, replace=False)
        size = _write(target, parts)
        linked = self._link_same_file(path, target, size)
        if journal is not None:
            journal.append((path, size, linked))
        else:
            self.record(path, size, linked)

    def staging(self) -> Path:
        """The staging folder, made now: before a process is forked to write into it."""
        return self._stage()

    def claim(self, path: str, *, replace: bool = False) -> str:
        """The checked path of a file about to be written (by ``write``, here or in a worker)."""
        path = safe_path(path)
        if path == MARKER or (path in self.sizes and not replace):
            raise UnsafePath(f"two pages want the same path: {path}")
        self._stage()               # made here, before any worker is forked to write into it
        self.sizes[path] = 0        # claimed: the size is recorded once written
        folder = path.rpartition("/")[0]
        if folder not in self._folders:
            self._unmade.add(folder)
        return path

    def make_folders(self, folders: Iterable[str] | None = None) -> list[str]:
        """Make staging folders, in path order (a folder before those it holds): ``folders``, or
        those of every file claimed so far, here, before page workers fork to write into them
        (two workers each making their own pages' folders wait on each other for the one folder
        holding a big league's ten thousand player folders). Returns the folders made, which a
        process of its own that made them tells this one (``folders_made``)."""
        stage = self._stage_text or str(self._stage())
        wanted = sorted(self._unmade if folders is None else folders)
        for folder in wanted:
            if folder not in self._folders:
                self._folder(stage, folder)
        if folders is None:
            self._unmade.clear()
        return wanted

    def folders_made(self, folders: Iterable[str]) -> None:
        """Note staging folders that another process made (``make_folders`` there), with their parents."""
        for folder in folders:
            while folder not in self._folders:
                self._folders.add(folder)
                folder = folder.rpartition("/")[0]

    def write(self, path: str, content: str | bytes, *, replace: bool = False) -> tuple[int, bool]:
        """Put a claimed file in the staging folder: (its size, whether it was linked from the
        published site). Touches the file system only, so a forked page worker may call it."""
        data = content.encode("utf-8") if isinstance(content, str) else content
        target = self._target(path, replace=replace)
        linked = self._link_same(path, data, target)
        if not linked:
            _write(target, (data,))
        return len(data), linked

    def published(self, path: str, size: int, mtime_ns: int, inode: int) -> str | None:
        """The published file at ``path`` where it is still the file a build wrote: the same size,
        time and inode (output/memo.py)."""
        st = self._published_stat(path)
        if st is None or not (stat.S_ISREG(st.st_mode) and st.st_size == size and st.st_mtime_ns == mtime_ns
                              and st.st_ino == inode):
            return None
        return f"{self._published}/{path}"

    def keep(self, path: str, size: int, mtime_ns: int, inode: int) -> bool:
        """Link the published file in place of a claimed one, where it is still the file a build
        wrote (output/memo.py keeps what the page would be). One lstat and one link: a rebuild
        keeps tens of thousands of files so."""
        if self._published_text is None:
            return False
        published = f"{self._published_text}/{path}"
        try:
            st = os.lstat(published)
        except OSError:         # gone or unreadable
            return False
        if not (st.st_ino == inode and st.st_size == size and st.st_mtime_ns == mtime_ns and stat.S_ISREG(st.st_mode)):
            return False
        try:
            os.link(published, self._target(path, replace=False), follow_symlinks=False)
        except OSError:         # gone, or a file system without hard links: made again
            return False
        return True

    def unkeep(self, path: str) -> None:
        """Undo ``keep`` (a page of several files is kept whole or made again whole)."""
        os.unlink(self.staged(path))

    def staged(self, path: str) -> str:
        """Where a claimed file is in the staging folder."""
        return f"{self._stage()}/{path}"

    def record(self, path: str, size: int, linked: bool) -> None:
        self.sizes[path] = size
        self.linked += linked

    def journaled(self, job: Callable[[], object]) -> list[tuple[str, int, bool]]:
        """Run ``job``, which adds files: they are written, not claimed; (path, size, linked) of
        each. A job forked into a process of its own (output/parallel.py Background) writes
        so, and the build settles what it wrote, here or in a fork alike."""
        self.journal = []
        try:
            job()
            return self.journal
        finally:
            self.journal = None

    def settle(self, written: list[tuple[str, int, bool]]) -> None:
        """Claim and record files ``journaled`` wrote (two wanting one path is found here)."""
        for path, size, linked in written:
            self.record(self.claim(path), size, linked)

    def _target(self, path: str, *, replace: bool) -> str:
        """Where a claimed file goes in the staging folder, its folder made."""
        if self._tmp is None:
            self._stage()
        stage = self._stage_text
        # Plain strings and os calls: a big league writes tens of thousands of files, and
        # pathlib's parsing and a mkdir per file cost more than the writes.
        folder = path.rpartition("/")[0]
        if folder not in self._folders:
            self._folder(stage, folder)
        target = f"{stage}/{path}"
        if replace and os.path.lexists(target):
            os.unlink(target)   # never write through a link into the published site
        return target

    def _folder(self, stage: str, folder: str) -> None:
        """Make a staging sub-folder, its parents first: one mkdir where the parent is known to
        be made (os.makedirs would stat every parent first). A folder another process made (a
        worker of an earlier batch) is taken as made."""
        parent = folder.rpartition("/")[0]
        if parent not in self._folders:
            self._folder(stage, parent)
        try:
            os.mkdir(f"{stage}/{folder}")
        except FileExistsError:
            if not os.path.isdir(f"{stage}/{folder}"):
                raise
        self._folders.add(folder)

    def _published_stat(self, path: str) -> os.stat_result | None:
        """The lstat of the published site's file at ``path`` (None: no published site, or gone)."""
        if self._published is None:
            return None
        try:
            return os.lstat(f"{self._published}/{path}")
        except OSError:         # gone or unreadable
            return None

    def _published_file(self, path: str, size: int) -> str | None:
        """The published site's file at ``path``, where it is a plain file of ``size`` bytes."""
        st = self._published_stat(path)
        if st is None or not (stat.S_ISREG(st.st_mode) and st.st_size == size):
            return None
        return f"{self._published}/{path}"

    def _link_same_file(self, path: str, target: str, size: int) -> bool:
        """``_link_same`` for a file already written to ``target``: the published file takes its
        place where their bytes are the same, compared a block at a time."""
        published = self._published_file(path, size)
        if published is None:
            return False
        try:
            with open(published, "rb") as old, open(target, "rb") as new:
                while True:
                    block = old.read(1 << 20)
                    if block != new.read(1 << 20):
                        return False
                    if not block:
                        break
            staged = f"{target}.linking"
            os.link(published, staged, follow_symlinks=False)
            os.replace(staged, target)
        except OSError:         # gone, unreadable, or a file system without hard links: keep it written
            return False
        return True

    def _link_same(self, path: str, data: bytes, target: str) -> bool:
        """Hard-link the published file into the staging folder when its bytes are ``data``: the
        file is not rewritten and keeps its time, which mirrors and servers see as unchanged."""
        published = self._published_file(path, len(data))
        if published is None:
            return False
        try:
            with open(published, "rb") as fh:
                if fh.read(len(data) + 1) != data:
                    return False
            os.link(published, target, follow_symlinks=False)
        except OSError:         # gone, unreadable, or a file system without hard links: write it
            return False
        return True

    def commit(self) -> None:
        """Swap the new folder in place of the old output, then remove the old one and any debris."""
        if len(self.sizes) <= 1:
            self.add(".nojekyll", "")   # an empty build is still a valid site folder
        problem = _replaceable_now(self.out)
        if problem:
            raise InvalidInput([Problem(str(self.out), message=problem)])
        tmp = self._tmp
        assert tmp is not None, "commit() after the output was released"
        os.chmod(tmp, 0o755)
        if not os.path.lexists(self.out):
            os.rename(tmp, self.out)
            self.exchanged = False
            self._release()
        else:
            old_lock = _lock(self.out)      # held while the old site is removed, if it can be had
            try:
                old = self.out.parent / (f".{self.out.name}.old-" + tmp.name.rsplit("-", 1)[1])
                self.exchanged = exchange(tmp, self.out)
                if self.exchanged:
                    self._release()
                    try:
                        os.rename(tmp, old)     # now the old site: named for what it is
                    except OSError:
                        old = tmp
                else:
                    os.rename(self.out, old)    # the fallback; the output is absent until ...
                    try:
                        os.rename(tmp, self.out)    # ... this rename, the next system call
                    except OSError:
                        os.rename(old, self.out)    # the old site back where it was
                        raise
                    self._release()
                if not (len(self.sizes) >= REMOVED_BESIDE and old_lock is not None
                        and _remove_beside(old, old_lock)):
                    shutil.rmtree(old, ignore_errors=True)
            finally:
                _unlock(old_lock)       # the remover, if any, holds the lock on
        remove_debris(self.out)

    def _release(self) -> None:
        self._tmp = None
        self._stage_text = ""
        _unlock(self._lock)
        self._lock = None

    def discard(self) -> None:
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._release()


@dataclass(frozen=True, slots=True)
class Span:
    """A part of a file given in parts (``add_parts``): the first ``size`` bytes of the file at
    ``path``, copied by the kernel (a grown CSV file's published rows, hundreds of megabytes at
    a million matches, not read into this process and written out again)."""

    path: str
    size: int


def _write(target: str, parts: Iterable[bytes | Span]) -> int:
    """Create (or truncate) ``target`` and write ``parts`` one after the other, as
    Path.write_bytes writes their bytes, without its buffered file object; the bytes written."""
    size = 0
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0), 0o666)
    try:
        for part in parts:
            if isinstance(part, Span):
                size += _copy(part, fd)
                continue
            view = memoryview(part)
            size += len(view)
            while view:
                view = view[os.write(fd, view):]
    finally:
        os.close(fd)
    return size


def _copy(span: Span, fd: int) -> int:
    """Append the span's bytes to ``fd``: by copy_file_range where the system has it, else read
    and written a block at a time. A file shorter than the span is an error, as it changed."""
    left = span.size
    with open(span.path, "rb") as source:
        copy = getattr(os, "copy_file_range", None)
        while left and copy is not None:
            try:
                done = copy(source.fileno(), fd, left)
            except OSError as exc:
                if left != span.size or exc.errno not in (errno.ENOSYS, errno.EXDEV, errno.EINVAL,
                                                         errno.EOPNOTSUPP, errno.EPERM):
                    raise
                copy = None     # not on this file system: the blocks below
                break
            if not done:
                break
            left -= done
        while left:
            block = source.read(min(left, 1 << 20))
            if not block:
                break
            left -= len(block)
            view = memoryview(block)
            while view:
                view = view[os.write(fd, view):]
    if left:
        raise OSError(f"{span.path} is shorter than the {span.size} bytes to copy")
    return span.size


def safe_path(path: str) -> str:
    """Refuse any path that could leave the output folder."""
    parts = path.split("/")
    if "" not in parts and "." not in parts and ".." not in parts and "\\" not in path and "\0" not in path:
        return path     # already plain: what the slower rule below returns for it
    p = PurePosixPath(path)
    if p.is_absolute() or any(part in ("", ".", "..") for part in p.parts) or "\\" in path or "\0" in path:
        raise UnsafePath(f"refusing to write outside the output folder: {path!r}")
    return p.as_posix()
