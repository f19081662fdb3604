"""The site's pages in markdown (content/): the site's own files replace built-in ones of the
same path. Read and checked here without rendering; sitegen.output.content renders them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sitegen.load.files import link_problem, walk
from sitegen.load.markcheck import MarkupError, check_markdown
from sitegen.load.problems import Problems
from sitegen.rating import SYSTEMS

BUILTIN = Path(__file__).resolve().parent.parent / "content"
# A spec page's shortcodes (content/spec/<system>.md).
SPEC_SHORTCODES = ("chart", "params")
# Every page's: {{< example elo >}} shows the [[match]] table `sitegen new-match` writes for a
# league of that system (sitegen/load/matchtoml.py).
EXAMPLE_SHORTCODES = tuple(f"example {name}" for name in SYSTEMS)


@dataclass(frozen=True, slots=True)
class ContentSource:
    """A page as `sitegen check` leaves it: read and checked, not rendered."""

    path: str              # "spec/lunaro.md"
    url: str               # "spec/lunaro/"
    system: str | None     # the system a spec page describes
    shown: str             # how problems name the file
    text: str


def content_files(root: Path, problems: Problems | None = None) -> dict[str, Path]:
    """Page path -> file, the site's own content/ overriding the built-in pages.

    The site's own folder is listed safely (links outside the site, special files), its
    problems reported into ``problems``.
    """
    found: dict[str, Path] = {}
    for f in sorted(BUILTIN.rglob("*.md")):
        found[f.relative_to(BUILTIN).as_posix()] = f
    folder = root / "content"
    if folder.is_dir() or folder.is_symlink():
        problems = Problems() if problems is None else problems
        if not link_problem(root, folder, problems):
            for f in walk(root, folder, problems, suffix=".md"):
                if f.name.endswith(".md"):
                    found[f.relative_to(folder).as_posix()] = f
    return dict(sorted(found.items()))


def content_sources(root: Path, problems: Problems) -> list[ContentSource]:
    """Every page read and checked without rendering (sitegen/load/markcheck.py): the site's own
    files, that is. The built-in pages are tested with the package and rendered by the build;
    a site whose content/ is the built-in folder itself (this repository's demo) has none of its own."""
    sources = []
    builtin = BUILTIN.resolve()
    for path, file in content_files(root, problems).items():
        parts = path.split("/")
        system = parts[1][:-3] if len(parts) == 2 and parts[0] == "spec" and parts[1][:-3] in SYSTEMS else None
        shown = file.relative_to(root).as_posix() if file.is_relative_to(root) else f"content/{path} (built-in)"
        try:
            text = file.read_text(encoding="utf-8")
            if not file.resolve().is_relative_to(builtin):
                check_markdown(text, shortcodes=(SPEC_SHORTCODES if system else ()) + EXAMPLE_SHORTCODES)
        except (UnicodeDecodeError, MarkupError) as exc:
            problems.add(shown, f"cannot be rendered: {exc}")
            continue
        stem = path[:-3]
        url = "" if stem == "index" else (stem[:-len("index")] if stem.endswith("/index") else stem + "/")
        sources.append(ContentSource(path, url, system, shown, text))
    return sources
