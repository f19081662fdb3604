"""Compiled templates kept in the build cache (output/render.py CachedBytecode): a build with the
cache loads what the last one compiled, and an edited template is compiled afresh, never shown
as it was."""

from __future__ import annotations

import shutil
from pathlib import Path

import jinja2
import pytest

from sitegen.commands.build import build
from sitegen.load.cache import FOLDER, Cache
from sitegen.output.render import environment
from sitegen.output.theme import BUILTIN_TEMPLATES
from test_incremental import FIXTURE, assert_same_as_cold


@pytest.fixture
def site(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns(FOLDER))
    return root


def watched(env: jinja2.Environment, monkeypatch) -> list[str]:
    """The names of the templates ``env`` compiles from source from now on, as it compiles them."""
    seen: list[str] = []
    real = env.compile

    def compile_(source, name=None, filename=None, raw=False, defer_init=False):
        seen.append(name)
        return real(source, name, filename, raw, defer_init)

    monkeypatch.setattr(env, "compile", compile_)
    return seen


def compiled(env: jinja2.Environment, name: str, monkeypatch) -> list[str]:
    """The templates ``env`` compiles from source while ``name`` is loaded."""
    seen = watched(env, monkeypatch)
    env.get_template(name)
    return seen


def test_a_second_environment_loads_what_the_first_compiled(tmp_path: Path, monkeypatch) -> None:
    cache = Cache(tmp_path / "cache")
    first = environment([BUILTIN_TEMPLATES], cache)
    assert "player.html" in compiled(first, "player.html", monkeypatch)
    again = environment([BUILTIN_TEMPLATES], Cache(tmp_path / "cache"))
    assert compiled(again, "player.html", monkeypatch) == []


def test_an_edited_template_is_compiled_again(tmp_path: Path, monkeypatch) -> None:
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "t.html").write_text("one {{ v }}", encoding="utf-8")
    environment([folder], Cache(tmp_path / "cache")).get_template("t.html")
    (folder / "t.html").write_text("two {{ v }}", encoding="utf-8")
    env = environment([folder], Cache(tmp_path / "cache"))
    assert compiled(env, "t.html", monkeypatch) == ["t.html"]
    assert env.get_template("t.html").render(v=3) == "two 3"


def rendered(env: jinja2.Environment, monkeypatch) -> tuple[list[str], str]:
    """The templates ``env`` compiles from source while t.html is rendered (its includes are
    loaded then), and its text."""
    seen = watched(env, monkeypatch)
    return seen, env.get_template("t.html").render(v=3)


def test_without_the_cache_a_process_compiles_a_template_once_and_an_edit_again(tmp_path: Path,
                                                                                monkeypatch) -> None:
    folder = tmp_path / "templates"
    folder.mkdir()
    (folder / "t.html").write_text("one {{ v }}{% include 'part.html' %}", encoding="utf-8")
    (folder / "part.html").write_text(" and {{ v | number }}", encoding="utf-8")
    assert rendered(environment([folder]), monkeypatch) == (["t.html", "part.html"], "one 3 and 3")
    assert rendered(environment([folder]), monkeypatch) == ([], "one 3 and 3")
    # The same name in another site's templates, and an edited template, are compiled afresh.
    other = tmp_path / "other"
    other.mkdir()
    (other / "t.html").write_text("two {{ v }}", encoding="utf-8")
    assert rendered(environment([other]), monkeypatch) == (["t.html"], "two 3")
    (folder / "part.html").write_text(" or {{ v }}", encoding="utf-8")
    assert rendered(environment([folder]), monkeypatch) == (["part.html"], "one 3 or 3")


def test_a_rebuild_after_a_template_edit_equals_a_cold_build(site: Path, tmp_path: Path) -> None:
    # A site template overriding the theme's base, edited between two builds with the cache.
    (site / "templates").mkdir(exist_ok=True)
    base = (BUILTIN_TEMPLATES / "base.html").read_text(encoding="utf-8")
    (site / "templates" / "base.html").write_text(base.replace("</footer>", "<p>first</p></footer>"), encoding="utf-8")
    build(site, tmp_path / "out")
    assert list((site / FOLDER / "templates").rglob("*")), "the build kept its compiled templates"
    (site / "templates" / "base.html").write_text(base.replace("</footer>", "<p>second</p></footer>"), encoding="utf-8")
    build(site, tmp_path / "out")
    shown = (tmp_path / "out" / "index.html").read_text(encoding="utf-8")
    assert "<p>second</p>" in shown and "<p>first</p>" not in shown
    assert_same_as_cold(site, tmp_path / "out", tmp_path)
