"""The output folder. Files are written into a temporary folder beside it as
they are rendered (so memory stays flat for large leagues), and that folder
replaces the old output in one step at the end: a build that fails never
leaves a half-written or damaged site behind."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path, PurePosixPath


class UnsafePath(ValueError):
    pass


class Output:
    """Every file of a build, by its '/'-separated path in the site."""

    def __init__(self, out: Path) -> None:
        self.out = out.resolve()
        self.sizes: dict[str, int] = {}
        self._tmp: Path | None = None

    def add(self, path: str, content: str | bytes, *, replace: bool = False) -> None:
        """Write one file; two pages claiming one path is a bug unless ``replace`` says it is meant."""
        path = safe_path(path)
        if path in self.sizes and not replace:
            raise UnsafePath(f"two pages want the same path: {path}")
        data = content.encode("utf-8") if isinstance(content, str) else content
        if self._tmp is None:
            self.out.parent.mkdir(parents=True, exist_ok=True)
            self._tmp = Path(tempfile.mkdtemp(prefix=f".{self.out.name}.new-", dir=self.out.parent))
        target = self._tmp.joinpath(*PurePosixPath(path).parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        self.sizes[path] = len(data)

    def commit(self) -> None:
        """Swap the new folder in place of the old output."""
        if self._tmp is None:
            self.add(".nojekyll", "")   # an empty build is still a valid site folder
        tmp, self._tmp = self._tmp, None
        os.chmod(tmp, 0o755)
        if self.out.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{self.out.name}.old-", dir=self.out.parent))
            old.rmdir()
            os.replace(self.out, old)
            os.replace(tmp, self.out)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, self.out)

    def discard(self) -> None:
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None


def safe_path(path: str) -> str:
    """Refuse any path that could leave the output folder."""
    p = PurePosixPath(path)
    if p.is_absolute() or any(part in ("", ".", "..") for part in p.parts) or "\\" in path or "\0" in path:
        raise UnsafePath(f"refusing to write outside the output folder: {path!r}")
    return p.as_posix()
