"""The guides are pages of the built site, and a match format on a page is what `sitegen new-match` writes.

content/docs/<name>.md becomes /docs/<name>/; the {{< example SYSTEM >}} shortcode renders the table
`sitegen new-match LEAGUE --played EXAMPLE_PLAYED` prints for a league of that system, so the pages
cannot drift from the command. README.md stays a short front door; no comment cites a file outside
the repository.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from helpers import REPO, league_toml, problems_of
from sitegen.commands.build import build
from sitegen.commands.cli import main
from sitegen.load.matchtoml import EXAMPLE_PLAYED
from sitegen.rating import SYSTEMS

GUIDES = ("curators", "auditors", "configuration", "theme")
CODE = re.compile(r'<pre[^>]*><code class="language-toml">(.*?)</code></pre>', re.S)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    """A site with one league of every system and no match: the built-in pages, docs included."""
    root = tmp_path_factory.mktemp("docs-site")
    for name in SYSTEMS:
        folder = root / "matches" / f"{name}-league"
        folder.mkdir(parents=True)
        (folder / "league.toml").write_text(league_toml(name, name=f"{name} league"), encoding="utf-8")
    build(root, root / "_site")
    return root, root / "_site"


def toml_blocks(page: Path) -> list[str]:
    return [html.unescape(block) for block in CODE.findall(page.read_text(encoding="utf-8"))]


def new_match_prints(root: Path, slug: str, capsys) -> str:
    assert main(["new-match", slug, "--root", str(root), "--played", EXAMPLE_PLAYED]) == 0
    return capsys.readouterr().out


def test_every_guide_is_a_page_with_its_title(built):
    _, site = built
    for name in GUIDES:
        page = site / "docs" / name / "index.html"
        assert page.is_file(), page
        text = page.read_text(encoding="utf-8")
        assert "{{<" not in text, f"a shortcode left unrendered on docs/{name}/"
        assert "<h1" in text


def test_the_curators_guide_shows_what_new_match_writes_for_every_system(built, capsys):
    root, site = built
    blocks = toml_blocks(site / "docs" / "curators" / "index.html")
    for name in SYSTEMS:
        printed = new_match_prints(root, f"{name}-league", capsys)
        assert printed.startswith("[[match]]\nplayed = " + EXAMPLE_PLAYED)
        assert printed in blocks, f"the {name} table new-match writes is not on docs/curators/"


def test_spec_pages_show_the_same_table(built, capsys):
    root, site = built
    for name in SYSTEMS:
        printed = new_match_prints(root, f"{name}-league", capsys)
        assert printed in toml_blocks(site / "spec" / name / "index.html"), f"spec/{name}/"


def test_the_about_page_links_every_guide_and_the_header_does_not(built):
    _, site = built
    about = (site / "about" / "index.html").read_text(encoding="utf-8")
    home = (site / "index.html").read_text(encoding="utf-8")
    header = home.split("</header>")[0]
    for name in GUIDES:
        assert f'href="../docs/{name}/"' in about, name
        assert f"docs/{name}/" not in header, name


def test_an_unknown_system_in_the_shortcode_is_a_problem_of_the_page(make_site):
    root = make_site({"matches/duels/league.toml": league_toml("lunaro"),
                      "content/docs/curators.md": "# Our guide\n\n{{< example chess >}}\n"})
    [problem] = problems_of(root)
    assert problem.file == "content/docs/curators.md"
    text = str(problem)
    assert "{{< example chess >}}" in text
    assert "takes one of: " + ", ".join(sorted(SYSTEMS)) in text


def test_a_sites_own_docs_page_may_use_the_shortcode(make_site, tmp_path):
    root = make_site({"matches/duels/league.toml": league_toml("lunaro"),
                      "content/docs/curators.md": "# Our guide\n\n{{<  example   elo >}}\n"})
    build(root, tmp_path / "out")
    page = tmp_path / "out" / "docs" / "curators" / "index.html"
    assert any(block.startswith("[[match]]\nplayed = ") for block in toml_blocks(page))


def test_the_readme_is_a_front_door():
    readme = REPO / "README.md"
    assert readme.stat().st_size < 20_000
    text = readme.read_text(encoding="utf-8")
    for name in GUIDES:
        assert f"content/docs/{name}.md" in text, name


def test_no_comment_cites_a_file_outside_the_repository():
    cited = [f"{p.relative_to(REPO)}:{n}" for p in sorted((REPO / "sitegen").rglob("*.py"))
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if "CONTRACT" in line]
    assert not cited, cited
