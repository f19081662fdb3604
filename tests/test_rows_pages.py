# ruff: noqa: E501  (LOOPS are template text as it was, one line a row)
"""The player pages' and results pages' rows where the league is not big, written by rows.py
(``full_rival_rows``, ``full_prediction_rows``, ``full_period_rows``, ``full_pool_rows``,
``result_rows``), and
every page's list of leagues and pages in its header (render.py ``SiteNav``), are the bytes
the templates' loops wrote: each fixture built with the built-in theme and with a
site's own templates whose rows are the loops as they were. The hostile fixture's names
(markup, quotes, right-to-left text, emoji) hold every escape to autoescape's; the small
one's five systems give outcome counts, duels' changes, predictions with and without a
formula for each outcome, periods and lobbies of more than six players."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from helpers import fixture_site, site_files
from sitegen.commands.build import build
from sitegen.output.theme import BUILTIN_TEMPLATES

REPO = Path(__file__).resolve().parent.parent

# (template, the call in the built-in theme, the loop it replaced)
LOOPS = [
    ("_head_to_head.html",
     "{{ rivals|full_rival_rows(league, up, cut, labels, duels, decimals) }}{% endif %}",
     """{% for row in rivals %}
<tr><td><a href="{{ up }}{{ row.opponent.url[cut:] }}" class="name" title="{{ row.opponent.text }}">{{ row.opponent.text }}</a></td><td>{{ row.games }}</td>{% if labels %}<td>{{ row.wins }}</td><td>{{ row.draws }}</td><td>{{ row.losses }}</td>{% endif %}{% if duels %}<td>{{ row.change|delta_badge(decimals) }}</td>{% endif %}</tr>
{% endfor %}
{% endif %}"""),
    ("_nearest.html",
     "{{ predictions|full_prediction_rows(league, root, decimals) }}{% endif %}",
     """{% for p in predictions %}{% set opp = league.players[p.b] %}<tr data-opponent="{{ p.b }}" data-expected="{{ p.expected_a }}"><th scope="row"><a href="{{ root }}{{ opp.url }}" class="name">{{ p.b }}</a></th><td class="num opt">{{ p.rating_b|rating(decimals) }}</td><td class="num">{{ p.expected_a|number(3) }}</td>{% for change in p|first_changes %}{% if change is none %}<td class="num" data-change="" title="beyond the margin rule's formula">–</td>{% else %}<td class="num" data-change="{{ change }}">{{ change|delta_badge(decimals) }}</td>{% endif %}{% endfor %}</tr>
{% endfor %}
{% endif %}"""),
    ("player.html",
     "{{ career.periods|full_period_rows(decimals) }}{% endif %}",
     """{% for p in career.periods %}
<tr><th scope="row">{{ p.label }}</th><td class="num">{{ p.games }}</td><td class="num">{{ p.end|rating(decimals) }}</td><td class="num">{{ p.high|rating(decimals) }}</td><td class="num">{{ p.low|rating(decimals) }}</td></tr>
{% endfor %}
{% endif %}"""),
    ("matches.html",
     "{{ rows|result_rows(up, cut, decimals) }}</tbody>",
     """{% for m in rows %}
<tr><td><time>{{ m.match.played|date }}</time><td><a href="{{ up }}{{ m.url[cut:] }}">{{ m.title }}</a><td class="opt">{% for line in m.lines[:6] %}{{ line.player.text }} {{ line.delta|delta(decimals) }}{% if line.period %} in {{ line.period }}{% endif %}{% if not loop.last %} · {% endif %}{% endfor %}{% if m.lines|length > 6 %} · {{ m.lines|length - 6 }} more{% endif %}</tr>
{% endfor %}
</tbody>"""),
    ("_pool.html",
     "{{ pool.rows|full_pool_rows(root) }}{% endif %}",
     """{% for r in pool.rows %}<tr{% if r.picked %} class="picked"{% endif %}><th scope="row">{% if r.picked %}<mark><a href="{{ root }}{{ r.opponent.url }}">{{ r.opponent.text }}</a></mark> <span class="meta">next opponent</span>{% else %}<a href="{{ root }}{{ r.opponent.url }}">{{ r.opponent.text }}</a>{% endif %}</th><td class="num">{{ r.rating|rating(1) }}</td><td>{{ r.side }}</td><td class="num">{{ r.win_chance|number(1) }}%</td></tr>
{% endfor %}
{% endif %}"""),
    ("base.html",
     "{{ site_nav(leagues, nav_pages, root, path) }}{# its lines are indented as the list's #}\n",
     """      {% for lv in leagues %}
      <li><a href="{{ root ~ lv.url }}"{% if path.startswith(lv.url) %} aria-current="page"{% endif %}>{{ lv.config.name }}</a></li>
      {% endfor %}
      {% for p in nav_pages %}
      <li><a href="{{ root ~ p.url }}"{% if path == p.url ~ 'index.html' %} aria-current="page"{% endif %}>{{ p.title }}</a></li>
      {% endfor %}
"""),
]


# The demo's battle royale alone: lobbies of more than six, whose results rows say how many more.
DEMO = {"lobbies": "battle-royale"}


@pytest.mark.parametrize("fixture", ["small", "hostile", "lobbies"])
def test_rows_are_the_template_loops_bytes(fixture, tmp_path):
    root = tmp_path / "site"
    fixture_site(fixture, root, DEMO)
    build(root, tmp_path / "rows", cache=False)
    (root / "templates").mkdir()
    for name, call, loop in LOOPS:
        builtin = (BUILTIN_TEMPLATES / name).read_text(encoding="utf-8")
        assert builtin.count(call) == 1, name
        (root / "templates" / name).write_text(builtin.replace(call, loop), encoding="utf-8")
    build(root, tmp_path / "loop", cache=False)
    rows, loop = site_files(tmp_path / "rows"), site_files(tmp_path / "loop")
    assert rows.keys() == loop.keys()
    for path in rows:
        assert rows[path] == loop[path], path
    # What the fixtures' pages show, so that each branch of the rows is held to the loops'.
    shown = b"".join(data for path, data in rows.items() if path.endswith(".html"))
    wanted = {"small": [b'<table class="h2h">', b"data-change=", b'class="delta up"', b'<tr class="picked">',
                        b'<table class="by-period">', b'<table class="nearest">'],
              "lobbies": [b" more</tr>", b'<table class="h2h">'],
              "hostile": [b"&lt;", b"&#34;", b"&#39;", b"&amp;", b'class="name" title="', b'aria-current="page"']}
    for piece in wanted[fixture]:
        assert piece in shown, piece


class _Prediction:
    """A pair prediction as the rows read it, with no formula for its last outcome (a margin rule's)."""

    outcomes = ("win", "draw", "loss")

    def __init__(self, b: str, expected: float, rating: float, changes: list[float | None]) -> None:
        self.b, self.expected_a, self.rating_b, self.changes = b, expected, rating, changes

    def change(self, outcome: str) -> tuple[float | None, float | None]:
        return self.changes[self.outcomes.index(outcome)], None


class _Player:
    def __init__(self, url: str) -> None:
        self.url = url


class _League:
    def __init__(self, names: list[str]) -> None:
        self.players = {name: _Player(f"leagues/x/players/p{i}/") for i, name in enumerate(names)}


def test_prediction_rows_without_a_formula_are_the_loops_bytes() -> None:
    from sitegen.output.render import environment
    from sitegen.output.rows import full_prediction_rows

    env = environment([BUILTIN_TEMPLATES], None)
    loop = env.from_string(LOOPS[1][2].removesuffix("{% endif %}"))
    names = ['<b>"Zoë" & \'Bo\'</b>', "Ana"]
    predictions = [_Prediction(names[0], 0.123456789, -1234.5, [12.25, -0.0001, None]),
                   _Prediction(names[1], 1.0, 1500.0, [None, 0.0, -3.75])]
    for decimals in (0, 1):
        for root in ("../../", '../"<&>/'):
            got = full_prediction_rows(predictions, _League(names), root, decimals)
            want = loop.render(predictions=predictions, league=_League(names), root=root, decimals=decimals)
            assert str(got) == want
            assert "beyond the margin rule" in want and "&lt;b&gt;" in want and "&amp;" in want


@given(st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True), st.integers(-10**6, 10**6)),
       st.sampled_from([0, 1, 2]))
def test_badges_and_numbers_are_the_formatters_text(value, decimals: int) -> None:
    """The rows' badge, written without an escape, is the badge with fmt_delta's text escaped;
    rows.py's own term number is fmt_number(_, 3)."""
    from markupsafe import escape

    from sitegen.output.render import badge_html, delta_badge, fmt_delta, fmt_number
    from sitegen.output.rows import _number3

    assert _number3(value) == fmt_number(value, 3)
    kind = "up" if value and value > 0 else "down" if value and value < 0 else "flat"
    escaped = f'<span class="delta {kind}">{escape(fmt_delta(value, decimals))}</span>'
    assert badge_html(value, decimals) == escaped == str(delta_badge(value, decimals))
