"""The player page's shortcuts give what the plain way gives: game rows with results
escaped once and dates found without MatchDateLinks' method, and parts made once per key."""

from __future__ import annotations

from datetime import datetime, timezone
from types import SimpleNamespace

from hypothesis import given
from hypothesis import strategies as st
from markupsafe import escape

from sitegen.output.render import environment, load_parts
from sitegen.output.rows import DayLinks, game_rows

TEXTS = st.sampled_from(["win", "loss", "draw", "<b>&\"'", "2–1", ""])


class PlainDates:
    """Dates looked up by the match, as any mapping a theme might pass."""

    def __init__(self, links: DayLinks) -> None:
        self.links = links

    def __getitem__(self, match):
        return self.links[match]


def _games(rows):
    league = SimpleNamespace(url="leagues/x/")
    games = []
    for n, (result, score, details, rated, minute) in enumerate(rows, start=1):
        played = datetime(2024, 1, 1 + n % 28, 0, minute, tzinfo=timezone.utc)
        mine = SimpleNamespace(result=result, score=score, details=details, before=1500.0, after=1500.0 + n,
                               team=None, period="p<1>", player=SimpleNamespace(text="Ana"))
        other = SimpleNamespace(player=SimpleNamespace(text="Bo & Co"), team=None)
        match = SimpleNamespace(lines=[mine, other], url=f"leagues/x/matches/m{n % 3}/#m{n}",
                                match=SimpleNamespace(played=played, players=("Ana", "Bo & Co")))
        games.append(SimpleNamespace(match=match, index=0, number=n, rated=rated, opponents=[other.player]))
    return league, games


@given(st.lists(st.tuples(TEXTS, TEXTS, TEXTS, st.booleans(), st.integers(0, 59)), max_size=12))
def test_game_rows_same_with_any_dates_mapping(rows) -> None:
    league, games = _games(rows)
    links = {"Bo & Co": escape('<a href="../bo/">Bo &amp; Co</a>')}
    fast = game_rows(games, links, DayLinks(league, "../../"), 1)
    plain = game_rows(games, links, PlainDates(DayLinks(league, "../../")), 1)
    assert fast == plain
    for result, score, details, _, _ in rows:
        text = f"{result or ''} {score}".strip() or details
        if text:
            assert f"<td>{escape(text)}<td" in fast


def test_once_reuses_a_part_only_for_the_same_values(tmp_path) -> None:
    (tmp_path / "t.html").write_text('{% call once("part", root, pages) %}{{ root }}{{ pages|join(",") }}'
                                     '{% endcall %}|{{ root }}\n')
    template = environment([tmp_path]).get_template("t.html")
    a, b = ["x<"], ["y"]
    assert template.render(root="../", pages=a) == "../x&lt;|../\n"
    assert template.render(root="../", pages=a) == "../x&lt;|../\n"
    assert template.render(root="../../", pages=a) == "../../x&lt;|../../\n"
    assert template.render(root="../", pages=b) == "../y|../\n"


def test_load_parts_loads_what_a_page_extends_and_includes_and_leaves_a_missing_one(tmp_path) -> None:
    (tmp_path / "base.html").write_text("<main>{% block main %}{% endblock %}</main>\n")
    (tmp_path / "_part.html").write_text("{% include '_inner.html' %}\n")
    (tmp_path / "_inner.html").write_text("inner\n")
    (tmp_path / "page.html").write_text("{% extends 'base.html' %}{% block main %}{% include '_part.html' %}"
                                        "{% if false %}{% include '_missing.html' %}{% endif %}{% endblock %}\n")
    env = environment([tmp_path])
    load_parts(env, "page.html")
    assert {"base.html", "_part.html", "_inner.html"} <= set(env._loaded)
    assert "_missing.html" not in env._loaded
    assert env.get_template("page.html").render() == "<main>inner\n</main>\n"


def test_load_parts_with_the_cache_loads_what_parsing_finds(tmp_path, monkeypatch) -> None:
    """The templates each one names, kept in the build cache, are the ones parsing finds: a
    second build loads the same parts without parsing, and an edited template is parsed again."""
    from sitegen.load.cache import Cache
    site = tmp_path / "templates"
    site.mkdir()
    (site / "base.html").write_text("<main>{% block main %}{% endblock %}</main>\n")
    (site / "_a.html").write_text("a\n")
    (site / "_b.html").write_text("b\n")
    (site / "page.html").write_text("{% extends 'base.html' %}{% block main %}{% include '_a.html' %}{% endblock %}\n")
    cache = Cache(tmp_path / "cache")
    plain = environment([site])
    load_parts(plain, "page.html")
    first = environment([site], cache)
    load_parts(first, "page.html")
    assert set(first._loaded) == set(plain._loaded) == {"base.html", "_a.html"}

    def no_parse(*args, **kwargs):
        raise AssertionError("parsed again")

    again = environment([site], cache)
    monkeypatch.setattr(again, "parse", no_parse)
    load_parts(again, "page.html")
    assert set(again._loaded) == set(first._loaded)
    monkeypatch.undo()
    (site / "page.html").write_text("{% extends 'base.html' %}{% block main %}{% include '_b.html' %}{% endblock %}\n")
    edited = environment([site], cache)
    load_parts(edited, "page.html")
    assert set(edited._loaded) == {"base.html", "_b.html"}
    assert edited.get_template("page.html").render() == "<main>b\n</main>\n"
