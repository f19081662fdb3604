"""The theme's templates: where the built-in ones live, and checking a site's own.

Jinja is imported only to check a site that has templates of its own: the built-in ones are
tested with the package, so `sitegen check` of any other site loads no template engine.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sitegen.load.files import link_problem, walk
from sitegen.load.problems import Problem, Problems

if TYPE_CHECKING:
    import jinja2

BUILTIN_TEMPLATES = Path(__file__).resolve().parent.parent / "templates"


def template_problem(root: Path, exc: jinja2.TemplateError, name: str) -> Problem:
    """A template error as a problem of the template file, with its line when Jinja knows it."""
    filename = getattr(exc, "filename", None) or name
    path = Path(filename)
    shown = path.relative_to(root).as_posix() if path.is_absolute() and path.is_relative_to(root) \
        else f"templates/{getattr(exc, 'name', None) or name}"
    return Problem(shown, getattr(exc, "lineno", None), None, None,
                   f"template error: {exc.message or exc}")


def check_templates(root: Path, problems: Problems) -> None:
    """Compile the site's own templates so that `sitegen check` reports their syntax errors.

    A templates/ folder that is the built-in one itself (this repository's demo) is not the
    site's own: its files are checked, links and special files, but not compiled again."""
    folder = root / "templates"
    if link_problem(root, folder, problems) or not folder.is_dir():
        return
    # Every file, assets too: a link leading out of the site or a FIFO is reported, never read.
    files = [f for f in walk(root, folder, problems, suffix=".html") if f.name.endswith(".html")]
    if not files or folder.resolve() == BUILTIN_TEMPLATES.resolve():
        return
    import jinja2

    from sitegen.output.render import environment

    env = environment([folder, BUILTIN_TEMPLATES])
    for f in files:
        try:
            env.get_template(f.relative_to(folder).as_posix())
        except jinja2.TemplateError as exc:
            p = template_problem(root, exc, f.relative_to(folder).as_posix())
            problems.add(p.file, p.message, line=p.line)
