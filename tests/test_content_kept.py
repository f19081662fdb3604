"""Content pages kept in the build cache (output/content.py): a page whose source, and for a spec
page its leagues' parameters, are the last build's is not rendered again, and the pages are
always the ones rendering them afresh gives, after any edit."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sitegen.commands.build import build, check
from sitegen.load import markup
from sitegen.load.cache import FOLDER, Cache
from sitegen.load.problems import Problems
from sitegen.output import content
from sitegen.output.content import render_content
from test_incremental import FIXTURE, assert_same_as_cold

LADDER_TOML = Path("matches/ladder/league.toml")


@pytest.fixture
def site(tmp_path: Path) -> Path:
    root = tmp_path / "site"
    shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns(FOLDER))
    return root


def rendered(root: Path, cache: Cache | None) -> list[content.ContentPage]:
    checked = check(root, cache=False)
    problems = Problems()
    pages = render_content(checked.content, [lg.config for lg in checked.leagues], problems, cache)
    assert not problems
    return pages


def counting(monkeypatch) -> list[str]:
    """The texts render_markdown is asked to render, from now on."""
    seen: list[str] = []
    real = markup.render_markdown

    def render(text: str, **kw):
        seen.append(text)
        return real(text, **kw)

    monkeypatch.setattr(markup, "render_markdown", render)
    return seen


def test_a_page_with_the_same_inputs_is_not_rendered_again(site: Path, tmp_path: Path, monkeypatch) -> None:
    cache = Cache(tmp_path / "cache")
    first = rendered(site, cache)
    seen = counting(monkeypatch)
    assert rendered(site, Cache(tmp_path / "cache")) == first == rendered(site, None)
    assert len(seen) == len(first)          # only the build without the cache rendered


def test_an_edited_page_and_the_spec_page_of_a_changed_league_are_rendered_again(
        site: Path, tmp_path: Path, monkeypatch) -> None:
    cache = Cache(tmp_path / "cache")
    rendered(site, cache)
    (site / "content").mkdir()
    (site / "content/about.md").write_text("# About this site\n\nOur own words.\n", encoding="utf-8")
    toml = site / LADDER_TOML
    toml.write_text(toml.read_text(encoding="utf-8").replace("provisional_games = 2", "provisional_games = 3"),
                    encoding="utf-8")
    seen = counting(monkeypatch)
    again = rendered(site, Cache(tmp_path / "cache"))
    by_path = {p.path: p for p in again}
    assert "Our own words" in by_path["about.md"].html
    assert "<code>3</code>" in by_path["spec/elo.md"].html
    # Rendered again: the edited page and the spec page of the league whose parameters changed.
    assert sorted(seen) == sorted(p.text for p in check(site, cache=False).content
                                  if p.path in ("about.md", "spec/elo.md"))
    seen.clear()
    assert again == rendered(site, None)


def test_another_renderer_renders_every_page_again(site: Path, tmp_path: Path, monkeypatch) -> None:
    rendered(site, Cache(tmp_path / "cache"))
    monkeypatch.setattr(content, "renderers", lambda: "markdown 0.0")
    seen = counting(monkeypatch)
    pages = rendered(site, Cache(tmp_path / "cache"))
    assert len(seen) == len(pages)


# A league's parameters as its league.toml sets them: each set or not, in forms a spec page's
# table shows apart (16 and 16.0) or not at all (a parameter left out shows its default).
params = st.fixed_dictionaries({}, optional={"k": st.sampled_from(["16", "16.0", "32", '"fide"']),
                                             "provisional_games": st.sampled_from(["2", "3", "30"]),
                                             "initial": st.sampled_from(["1500", "1500.0", "1200"])})


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(["Ladder", "Ladder 2"]), params), min_size=1, max_size=2))
def test_cached_pages_are_the_fresh_ones_after_any_edit_of_the_parameters(site: Path, tmp_path: Path,
                                                                         edits: list[tuple[str, dict]]) -> None:
    """Build after build, each with other parameters of the elo league: every page from the cache
    is the page rendered afresh."""
    folder = tmp_path / "params-cache"
    shutil.rmtree(folder, ignore_errors=True)
    for name, values in edits:
        table = "".join(f"{k} = {v}\n" for k, v in values.items())
        (site / LADDER_TOML).write_text(f'name = "{name}"\nsystem = "elo"\n\n[params]\n{table}', encoding="utf-8")
        assert rendered(site, Cache(folder)) == rendered(site, None)


def test_a_rebuild_after_an_edit_of_content_or_a_template_is_a_cold_build(site: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    build(site, out)
    (site / "content/spec").mkdir(parents=True)
    (site / "content/spec/elo.md").write_text("# Elo here\n\n{{< params >}}\n\n{{< chart >}}\n", encoding="utf-8")
    build(site, out)
    assert "Elo here" in (out / "spec/elo/index.html").read_text(encoding="utf-8")
    assert_same_as_cold(site, out, tmp_path)
    (site / "templates").mkdir()
    (site / "templates/content.html").write_text(
        '{% extends "base.html" %}{% block main %}<article class="own">{{ page_content.html|safe }}'
        '</article>{% endblock %}', encoding="utf-8")
    build(site, out)
    assert '<article class="own">' in (out / "spec/elo/index.html").read_text(encoding="utf-8")
    assert_same_as_cold(site, out, tmp_path)
