# ruff: noqa: E501  (LOOP is template text as it was, one line a cell)
"""The league page's board rows written by ``board_rows`` (output/rows.py) are the bytes the
template's loop wrote: the small fixture's leagues (every rating system; intervals, provisional
players, standing terms, movement) and the hostile one's (markup, quotes and Unicode in names,
platforms, regions and tiers), each built with the built-in league.html and with a site's own
league.html whose board rows are the loop as it was; and the demo's openskill league, whose
interval is a mean and a spread."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import fixture_site, site_files
from sitegen.commands.build import build
from sitegen.output.theme import BUILTIN_TEMPLATES

REPO = Path(__file__).resolve().parent.parent
CALL = "{{ rows|board_rows(board, league, moved, standing_decimals) }}"
# The board's rows as league.html wrote them before board_rows.
LOOP = """{% for r in rows %}
{% set p = r.player %}
<tr{% if board.platforms %} data-platform="{{ p.platform or '' }}"{% endif %}{% if board.regions %} data-region="{{ p.region or '' }}"{% endif %}{% if board.tiers %} data-tier="{{ p.tier.index if p.tier else '' }}"{% endif %}>{#
#}<td>{{ r.rank }}</td>{#
#}{% if board.interval_kind and moved %}<td class="opt"><abbr class="ci" title="95% interval of the rating: {{ r.interval[0]|rating }} to {{ r.interval[1]|rating }}">{{ r.sure_rank }}</abbr></td>{% endif %}{#
#}{% if moved %}<td class="mv" data-sort="{{ r.movement.places if r.movement.places is not none else '' }}"><span class="mv-{{ r.movement.kind }}" aria-hidden="true">{{ r.movement.text }}</span><span class="visually-hidden">{{ r.movement.label }}</span></td>{% endif %}{#
#}<th scope="row"><a href="{{ p.url[league.url|length:] }}">{{ p.name }}</a></th>{#
#}<td data-sort="{{ '%.2f'|format(p.rating) }}">{{ p.rating|rating(league.places) }}{% if r.provisional %}<abbr class="prov" title="provisional" aria-hidden="true">?</abbr><span class="visually-hidden"> provisional</span>{% endif %}{% if r.spread is not none %} <span class="ci" title="{{ board.interval.name }}: {{ r.low|rating(league.places) }} to {{ r.high|rating(league.places) }}">{% if board.interval.centred %}\u00b1 {% else %}\u03bc {{ r.centre|rating(league.places) }} \u00b1 {% endif %}{{ r.spread|rating(league.places) }}</span>{% endif %}</td>{#
#}{% if moved %}<td class="opt at">{{ p.rank }}</td>{% endif %}{#
#}{% for t in league.standing_terms %}<td class="opt">{{ p.extra[t]|number(standing_decimals.get(t, 3)) }}</td>{% endfor %}{#
#}{% if cfg.tiers %}<td class="l opt" data-sort="{{ p.tier.index if p.tier else 0 }}">{% if p.tier %}<span class="tier tier-{{ p.tier.index }}">{{ p.tier.name }}</span>{% endif %}</td>{% endif %}{#
#}<td>{{ r.games }}</td>{#
#}{% if league.has_outcomes %}<td class="opt">{{ p.wins }}</td><td class="opt">{{ p.draws }}</td><td class="opt">{{ p.losses }}</td>{% endif %}{#
#}{% if board.platforms %}<td class="l opt">{{ p.platform or '' }}</td>{% endif %}{#
#}{% if board.regions %}<td class="l opt">{{ p.region or '' }}</td>{% endif %}{#
#}<td class="l opt">{{ p.last_played|date }}</td></tr>
{% endfor %}
"""


# The demo's openskill league alone: its intervals are a mean and a spread (not centred).
DEMO = {"openskill": "cdl-2023"}


@pytest.mark.parametrize("fixture", ["small", "hostile", "openskill"])
def test_board_rows_are_the_template_loops_bytes(fixture, tmp_path):
    root = tmp_path / "site"
    fixture_site(fixture, root, DEMO)
    build(root, tmp_path / "rows", cache=False)
    builtin = (BUILTIN_TEMPLATES / "league.html").read_text(encoding="utf-8")
    assert builtin.count(CALL) == 1
    (root / "templates").mkdir()
    (root / "templates" / "league.html").write_text(builtin.replace(CALL, LOOP), encoding="utf-8")
    build(root, tmp_path / "loop", cache=False)
    rows, loop = site_files(tmp_path / "rows"), site_files(tmp_path / "loop")
    assert rows.keys() == loop.keys()
    boards = [path for path, data in rows.items() if b'<table class="board"' in data]
    assert boards
    for path in boards:
        assert rows[path] == loop[path], path
    shown = b"".join(rows[path] for path in boards)
    # What the fixtures' boards show, so that each branch of the rows is held to the loop's.
    wanted = {"small": [b'<td class="mv"', b'class="prov"', b'<span class="ci"', b'<abbr class="ci"', b'\xc2\xb1 '],
              "openskill": [b'<span class="ci"', "\u03bc ".encode()],
              "hostile": [b"data-platform=", b"data-region=", b"data-tier=", b'class="tier tier-', b"&lt;", b"&#34;"]}
    for piece in wanted[fixture]:
        assert piece in shown, piece
