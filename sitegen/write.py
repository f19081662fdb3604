"""The output folder: files are gathered first, then written to a temporary
folder that replaces the old output in one step, so a failed build never
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

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}

    def add(self, path: str, content: str | bytes) -> None:
        path = safe_path(path)
        if path in self.files:
            raise UnsafePath(f"two pages want the same path: {path}")
        self.files[path] = content.encode("utf-8") if isinstance(content, str) else content

    def write(self, out: Path) -> None:
        """Write everything next to ``out``, then swap it in."""
        out = out.resolve()
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=out.parent))
        try:
            for path in sorted(self.files):
                target = tmp.joinpath(*PurePosixPath(path).parts)
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(self.files[path])
            os.chmod(tmp, 0o755)
            if out.exists():
                old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
                old.rmdir()
                os.replace(out, old)
                os.replace(tmp, out)
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.replace(tmp, out)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise


def safe_path(path: str) -> str:
    """Refuse any path that could leave the output folder."""
    p = PurePosixPath(path)
    if p.is_absolute() or any(part in ("", ".", "..") for part in p.parts) or "\\" in path or "\0" in path:
        raise UnsafePath(f"refusing to write outside the output folder: {path!r}")
    return p.as_posix()
