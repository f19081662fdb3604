"""The matchup predictor in headless Chromium equals the engine's numbers to 1e-9.

A small site (the fixture's four predicting leagues, plus an elo league with home
advantage and a margin rule) is built in a temporary folder and served on 127.0.0.1;
on each league page the predictor is opened, players are chosen, and the numbers
predict.js leaves in data-* attributes (full precision) are compared with
sitegen/model/predict.py, which tests/test_predict.py holds equal to the engine itself.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")

from helpers import elo_match, league_toml, write_files  # noqa: E402
from served import serving  # noqa: E402
from test_browser import VIEWPORTS, Tab, tab  # noqa: E402, F401 (tab: the fixture)
from test_browser import WIDE_TABLES  # noqa: E402
from test_predict import openskill_games  # noqa: E402


def wide(page) -> list[str]:
    """This feature's tables (and the board it adds a column to) that scroll sideways."""
    return [w for w in page.evaluate(WIDE_TABLES) if w.split()[0] in ("predict-table", "nearest", "board")]
from sitegen.commands.build import build, check, rate  # noqa: E402
from sitegen.model.predict import player_states, predict_lobby, predict_pair  # noqa: E402

pytestmark = pytest.mark.browser

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "small"
TOL = 1e-9
NAMED = '<b>Zed & "Q"</b>'


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    root = tmp_path_factory.mktemp("src") / "site"
    shutil.copytree(FIXTURE, root)
    matches = "".join(elo_match(f"2024-02-{d:02d}", a, s, b, 1 - s).replace(
        "score = 1 }", "score = 1, points = 3 }").replace("score = 0 }", "score = 0, points = 1 }").replace(
        "score = 0.5 }", "score = 0.5, points = 2 }").replace("[[match]]", '[[match]]\nhome = "' + a + '"')
        for d, (a, s, b) in enumerate([("Ann", 1, NAMED), (NAMED, 0.5, "Cy"), ("Cy", 1, "Ann"),
                                       ("Ann", 0, NAMED), (NAMED, 1, "Cy"), ("Dee", 1, "Ann")], start=1))
    # Dee starts 1,500 points above the rest: an upset win by Cy is beyond the NBA formula.
    write_files(root, {"matches/home/league.toml": league_toml(
        "elo", extra='[initial]\n"Dee" = 3000\n',
        params='home_advantage = 60\nmargin = "538-nba"\nprovisional_games = 2'),
        "matches/home/m.toml": matches.replace('"<b>Zed & "Q"</b>"', "'<b>Zed & \"Q\"</b>'"),
        # openskill with its parameters off the defaults, limit_sigma on, and a name with markup.
        "matches/os/league.toml": league_toml("openskill",
                                              params="beta = 3.5\ntau = 1.5\nkappa = 0.01\nlimit_sigma = true"),
        "matches/os/m.toml": openskill_games().replace("'Dee'", "'<b>Zed & \"Q\"</b>'"),
        "matches/osd/league.toml": league_toml("openskill"),
        "matches/osd/m.toml": openskill_games()})
    base = tmp_path_factory.mktemp("served")
    build(root, base / "site")
    rated = {r.league.config.slug: r for r in rate(check(root))}
    with serving(base, "predict-site") as url:
        yield url + "site/", rated



def open_predictor(t: Tab, url: str):
    t.open(url)
    page = t.page
    page.locator("details.predict-box > summary").click()
    page.wait_for_selector("details.predict-box[data-ready]")
    return page


def pair_numbers(page):
    page.wait_for_selector(".predict-out table tbody tr")
    return page.evaluate("""() => {
      const p = document.querySelector('.predict-out .predict-expected');
      return { ea: p.dataset.expectedA, eb: p.dataset.expectedB,
               rows: [...document.querySelectorAll('.predict-out tbody tr')].map(tr =>
                 [tr.dataset.score, tr.dataset.changeA, tr.dataset.changeB]) };
    }""")


def assert_pair(got, pred):
    assert float(got["ea"]) == pytest.approx(pred.expected_a, abs=TOL)
    assert float(got["eb"]) == pytest.approx(pred.expected_b, abs=TOL)
    assert len(got["rows"]) == len(pred.outcomes)
    for (score, ca, cb), o in zip(got["rows"], pred.outcomes):
        assert float(score) == o.score
        if o.after_a is None:       # beyond the margin rule's formula: no value on either side
            assert (ca, cb) == ("", "")
            continue
        assert float(ca) == pytest.approx(o.after_a - pred.rating_a, abs=TOL)
        assert float(cb) == pytest.approx(o.after_b - pred.rating_b, abs=TOL)


@pytest.mark.parametrize("slug", ["duel", "ladder", "wvw"])
def test_pairs_equal_the_engine(served, tab, slug):
    url, rated = served
    league = rated[slug]
    system = league.league.config.system
    states = player_states(league)
    names = [r.standing.player for r in league.standings]
    t = tab()
    page = open_predictor(t, url + f"leagues/{slug}/")
    for a, b in [(names[0], names[-1]), (names[-1], names[1]), (names[1], names[2])]:
        page.fill("#predict-p1", a)
        page.fill("#predict-p2", b)
        pings = (0, 0)
        if slug == "duel":
            pings = (120, 35)
            page.fill("#predict-ping1", "120")
            page.fill("#predict-ping2", "35")
        got = pair_numbers(page)
        scores = [float(r[0]) for r in got["rows"]]
        pred = predict_pair(system, a, b, states, scores=scores, pings=pings, challenger=a)
        assert_pair(got, pred)
    assert not t.problems, t.problems


def test_elo_home_challenger_and_margin_equal_the_engine(served, tab):
    url, rated = served
    league = rated["home"]
    system = league.league.config.system
    states = player_states(league)
    t = tab()
    page = open_predictor(t, url + "leagues/home/")
    for a, b in [("Cy", "Dee"), ("Ann", NAMED), (NAMED, "Cy")]:
        page.fill("#predict-p1", a)
        page.fill("#predict-p2", b)
        for home in ("", "0", "1"):
            for challenger in ("0", "1"):
                page.select_option("#predict-home", home)
                page.select_option("#predict-challenger", challenger)
                page.fill("#predict-margin", "4")
                got = pair_numbers(page)
                pred = predict_pair(system, a, b, states, home={"": None, "0": a, "1": b}[home],
                                    challenger=(a, b)[int(challenger)], margin=4.0)
                assert_pair(got, pred)
    # The name with markup is shown as text.
    assert page.locator(".predict-out b").count() == 0
    assert NAMED in page.locator(".predict-out").inner_text()
    assert not t.problems, t.problems


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_placement_lobby_equals_the_engine(served, tab, viewport):
    url, rated = served
    league = rated["royale"]
    system = league.league.config.system
    states = player_states(league)
    names = [r.standing.player for r in league.standings][:4]
    t = tab(viewport)
    page = open_predictor(t, url + "leagues/royale/")
    page.fill("#predict-p1", names[0])
    page.fill("#predict-p2", names[1])
    for i, name in enumerate(names[2:], start=3):
        page.click("button[data-add]")
        page.fill(f"#predict-p{i}", name)
    page.wait_for_function("n => document.querySelectorAll('.predict-out tbody tr').length === n", arg=len(names))
    rows = page.evaluate("""() => [...document.querySelectorAll('.predict-out tbody tr')].map(tr =>
        [tr.dataset.player, tr.dataset.expected,
         [...tr.querySelectorAll('td[data-change]')].map(td => td.dataset.change)])""")
    lobby = predict_lobby(system, names, states)
    n = len(names)
    for i, (name, expected, changes) in enumerate(rows):
        assert name == names[i]
        assert float(expected) == pytest.approx(lobby.expected[i], abs=TOL)
        assert [float(c) for c in changes] == pytest.approx(
            [lobby.after(i, n - place) - lobby.ratings[i] for place in range(1, n + 1)], abs=TOL)
    width = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], f"the page scrolls sideways at {viewport}: {width}"
    assert wide(page) == []
    assert not t.problems, t.problems


def test_arena_says_it_has_no_predictor(served, tab):
    url, _ = served
    t = tab()
    t.open(url + "leagues/arena/")
    assert t.page.locator("details.predict-box").count() == 0
    assert "no predictor" in t.page.locator("section.predictor").inner_text()


@pytest.mark.parametrize("slug", ["os", "osd"])
def test_openskill_equals_the_package(served, tab, slug):
    url, rated = served
    league = rated[slug]
    system = league.league.config.system
    states = player_states(league)
    names = [r.standing.player for r in league.standings]
    t = tab()
    page = open_predictor(t, url + f"leagues/{slug}/")
    for a in names:
        for b in names:
            if a == b:
                continue
            page.fill("#predict-p1", a)
            page.fill("#predict-p2", b)
            got = pair_numbers(page)
            pred = predict_pair(system, a, b, states)
            assert_pair(got, pred)
            skills = page.evaluate("""() => [...document.querySelectorAll('.predict-out tbody tr')].map(tr =>
                [...tr.querySelectorAll('td')].map(td => [Number(td.dataset.mu), Number(td.dataset.sigma)]))""")
            for row, o in zip(skills, pred.outcomes):
                assert row[0] + row[1] == pytest.approx(list(o.skills[0] + o.skills[1]), abs=TOL)
    assert "Chance of winning" in page.locator(".predict-out").inner_text()
    assert page.locator(".predict-out b").count() == 0
    assert not t.problems, t.problems


@pytest.mark.parametrize("slug", ["duel", "ladder", "royale", "wvw", "home", "os"])
def test_phone_shows_predictions_without_sideways_scrolling(served, tab, slug):
    url, rated = served
    names = [r.standing.player for r in rated[slug].standings]
    t = tab("phone")
    page = open_predictor(t, url + f"leagues/{slug}/")
    # The longest names: the worst case for the table's width.
    a, b = sorted(names, key=len)[-2:]
    page.fill("#predict-p1", a)
    page.fill("#predict-p2", b)
    page.wait_for_selector(".predict-out table tbody tr")
    assert wide(page) == [], "the predictor's table scrolls sideways"
    page.goto(url + f"leagues/{slug}/")
    href = page.locator("table.board tbody tr th a").first.get_attribute("href")
    page.goto(url + f"leagues/{slug}/" + href)
    assert page.locator("table.nearest tbody tr").count() == min(10, len(names) - 1)
    assert wide(page) == [], "the nearest-rated table scrolls sideways"
    assert not t.problems, t.problems
