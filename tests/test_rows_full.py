"""A match-file page's rows where the league is not big (output/rows.py ``full_match_rows``):
the same bytes the template's loops wrote, escaped as Jinja's autoescape escaped them, on the
hostile fixture's names (markup, quotes, right-to-left text, emoji), the small fixture's five
systems (teams, periods, tiers, formulas) and the demo's real leagues (facts, notes, lines)."""

from __future__ import annotations

from pathlib import Path

import pytest

from sitegen.model.views import league_view
from sitegen.output.pages import rated_together
from sitegen.output.render import environment, player_links
from sitegen.output.rows import full_match_rows
from sitegen.output.theme import BUILTIN_TEMPLATES

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures"

# match_group.html's loops as they were before its rows were written by rows.py.
TEMPLATE_ROWS = """\
{% for m in group.matches %}
{% set mm = m.match %}
<tbody id="{{ m.anchor }}"><tr class="mh"><th colspan="{{ ncols }}" scope="rowgroup">\
<strong>{{ m.title }}</strong> <time datetime="{{ mm.played|iso }}">{{ mm.played|datetime }}</time> · \
<code>{{ m.id }}</code> · match {{ mm.position }}\
{% if mm.line %}, {% if file_url %}<a href="{{ file_url }}#L{{ mm.line }}">line {{ mm.line }}</a>{% else %}line \
{{ mm.line }}{% endif %}{% endif %}{% for label, value in m.facts %} · {{ label }} {{ value }}{% endfor %}\
{% if m.event_matches|length > 1 %} · period {{ m.event }} ({{ m.event_matches|length }} matches rated together)\
{% endif %}{% if mm.notes %}<p class="notes">{{ mm.notes }}</p>{% endif %}</th></tr>
{% for g in m.groups %}
{% if g.label %}<tr class="group"><th colspan="{{ ncols }}" scope="rowgroup">{{ g.label }}</th></tr>
{% endif %}
{% for line in g.lines %}
<tr><th scope="row">{{ links[line.player.text] }}<td class="{{ line.result or '' }}">{{ line.result or '' }}\
{% if line.score %} {{ line.score }}{% endif %}<td class="{{ 'up' if line.delta and line.delta > 0 else 'down' \
if line.delta and line.delta < 0 else 'flat' }}">{{ line.delta|delta(decimals) }}<td>{{ line.details if \
line.details not in (line.result, line.score) else '' }}<td>{{ line.before|rating(decimals) }}<td>\
{{ line.after|rating(decimals) }}{% for t in league.terms %}<td>{{ line.terms[t]|number(3) }}{% endfor %}\
{% if line.formula %}<td>{{ line.formula }}{% endif %}</tr>
{% endfor %}
{% endfor %}
</tbody>
{% endfor %}
"""


@pytest.mark.parametrize("root, groups", [(FIXTURES / "hostile", None), (FIXTURES / "small", None), (REPO, 2)])
def test_full_rows_are_the_templates_bytes(rated, root: Path, groups: int | None) -> None:
    site, leagues = rated(root)
    env = environment([BUILTIN_TEMPLATES], None)
    loops = env.from_string(TEMPLATE_ROWS)
    checked = 0
    for league in leagues:
        lv = league_view(league, site.roster, False)
        decimals = 0 if lv.integer else 1
        for up in ("../../", "../../../"):
            links = player_links(lv, up)
            for group in lv.groups[:groups]:
                first = group.matches[0]
                ncols = 6 + len(lv.terms) + (1 if first.lines[0].formula else 0)
                # A link to the file holding every character autoescape changes, and none.
                for file_url in ("", 'https://example.org/a&b<"c">\'d.toml'):
                    want = loops.render(group=group, links=links, decimals=decimals, file_url=file_url,
                                        league=lv, ncols=ncols)
                    got = full_match_rows(group.matches, links, decimals, file_url, lv.terms, ncols)
                    assert str(got) == want, (lv.config.slug, group.url)
                    checked += 1
                # The explanation's period sentence: as the template's map, length and max said it.
                assert rated_together(group.matches) == (
                    max(len(m.event_matches) for m in group.matches) > 1), group.url
    assert checked
