"""A big league's matches are found by their match-file pages (one search record a page): in
headless Chromium, searching for one match's id leads to its row on that page, at its anchor,
and a search by players still leads to the page itself.

The league is test_scale.py's, built as a big league with three matches a page. No console
or page error, no failed request and no request leaving 127.0.0.1 (``Tab`` in test_browser.py).
"""

from __future__ import annotations

from urllib.parse import quote

import pytest

from served import serving
from test_browser import VIEWPORTS, Tab, tab  # noqa: F401 (tab: the fixture)
from test_scale import site as scale_site
from sitegen.model import scale

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    from sitegen.commands.build import build

    tmp = tmp_path_factory.mktemp("match-search")
    root = scale_site(tmp / "root")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(scale, "BIG_LEAGUE_ROWS", 23)
        mp.setattr(scale, "MATCHES_PER_PART", 3)
        build(root, tmp / "out" / "site", cache=False)
    with serving(tmp / "out", "match-search-site") as url:
        yield url + "site/", tmp / "out" / "site"



def _results(t: Tab, base: str, query: str) -> list[str]:
    t.page.goto(f"{base}search/?q={quote(query)}", wait_until="load")
    t.page.wait_for_function("document.querySelectorAll('#search-results a').length > 0")
    return t.page.eval_on_selector_all("#search-results a", "links => links.map(a => a.getAttribute('href'))")


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_a_match_id_leads_to_its_row_on_its_match_file_page(served, tab, viewport):
    base, out = served
    ids = [line.split(",")[0] for line in (out / "data/lg/matches.csv").read_text().splitlines()[1:]]
    match_id = ids[4]               # the second match of its file's second page
    t = tab(viewport)
    links = _results(t, base, match_id)
    holding = [h for h in links if h.endswith(f"#m-{match_id}")]
    assert len(holding) == 1, links
    assert "/leagues/lg/matches/" in holding[0]
    t.page.click(f"#search-results a[href$='#m-{match_id}']")
    t.page.wait_for_load_state("load")
    row = t.page.locator(f"tr[id='m-{match_id}']")
    assert row.count() == 1
    assert t.page.evaluate("location.hash") == f"#m-{match_id}"
    assert t.page.evaluate(f"document.querySelector(':target') === document.getElementById('m-{match_id}')")
    box = row.bounding_box()
    assert box is not None and 0 <= box["y"] < VIEWPORTS[viewport]["height"]
    assert not t.problems, t.problems


def test_a_search_by_players_leads_to_the_page_not_a_row(served, tab):
    base, _ = served
    t = tab()
    links = [h for h in _results(t, base, "Ana Bo") if "/leagues/lg/matches/" in h]
    assert links and not [h for h in links if "#" in h], links
    assert not t.problems, t.problems
