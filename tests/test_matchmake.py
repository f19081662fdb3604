"""`sitegen matchmake` (spec/matchmaking, the battle-royale rating proposal): lobbies from a queue file.

End to end on small sites (exit codes, CSV and JSON, every problem of a bad queue file with
its line and field), the league's own expected scores, and property tests of the lobbies:
every ticket once, every lobby full, one platform per lobby in platform mode, every member
even with the first player, nothing left that could still form a lobby, the same output
for the same input.
"""

from __future__ import annotations

import json
import math
from datetime import datetime, timedelta, timezone

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import elo_match, league_toml, looks_like_traceback, read_csv, run_cli
from sitegen.commands.cli import main
from sitegen.commands.matchmake import (
    EXPAND_STEP, Settings, Skill, Ticket, form_lobbies, priority, widening,
)
from sitegen.rating.base import expected
from sitegen.rating.glicko2 import SCALE, Glicko, expected_score, g

NOW = datetime(2026, 3, 1, 20, 0, 0, tzinfo=timezone.utc)

# An elo league with K fixed at 32: Ana beat Bo once, so Ana 1516 and Bo 1484; Cy drew Dee.
SITE = {
    "matches/ladder/league.toml": league_toml("elo", params="k = 32"),
    "matches/ladder/2026.toml": (elo_match("2026-01-01T10:00:00Z", "Ana", 1, "Bo", 0)
                                 + elo_match("2026-01-02T10:00:00Z", "Cy", 0.5, "Dee", 0.5)),
    "matches/players.toml": '[players."Ana"]\naliases = ["ana_old"]\n',
}


def ticket_toml(name: str, ping: int, platform: str, waited: float) -> str:
    joined = (NOW - timedelta(seconds=waited)).strftime("%Y-%m-%dT%H:%M:%SZ")
    return f'[[ticket]]\nname = "{name}"\nping = {ping}\nplatform = "{platform}"\njoined = {joined}\n\n'


def queue_toml(*tickets: tuple, lobby_size: int = 2, extra: str = "") -> str:
    head = f"now = 2026-03-01T20:00:00Z\nlobby_size = {lobby_size}\nplatform_mode = false\n{extra}\n"
    return head + "".join(ticket_toml(*t) for t in tickets)


def matchmake(capsys, root, queue_text: str, *args: str, league: str = "ladder"):
    """Run `sitegen matchmake` in-process on a queue written beside the site: (code, out, err)."""
    queue = root / "queue.toml"
    queue.write_text(queue_text, encoding="utf-8")
    code = main(["matchmake", league, str(queue), "--root", str(root), *args])
    out, err = capsys.readouterr()
    return code, out, err


# --- the command, end to end -------------------------------------------------------------

def test_csv_and_json_end_to_end(make_site, capsys):
    root = make_site(SITE)
    text = queue_toml(("Bo", 30, "pc", 50), ("Ana", 40, "pc", 100), ("Newcomer", 20, "ps5", 300),
                      ("Cy", 35, "pc", 10))
    code, out, err = matchmake(capsys, root, text)
    assert code == 0, err
    assert out.splitlines()[0] == "lobby,player,rating,ping,platform,waited_s"
    rows = read_csv(out)
    # Newcomer (1500) waited longest and heads lobby 1; Ana (1516) is the next in priority and
    # even with them: |E - (1 - E)| = 0.046 < 0.10, pings 20 apart. Bo (1484) then heads
    # lobby 2 with Cy (1500). The platforms differ, which matters only in platform mode.
    by_name = {r["player"]: r for r in rows}
    assert [r["player"] for r in rows] == ["Newcomer", "Ana", "Bo", "Cy"]
    assert [r["lobby"] for r in rows] == ["1", "1", "2", "2"]
    assert by_name["Ana"]["rating"] == "1516.000000" and by_name["Bo"]["rating"] == "1484.000000"
    assert by_name["Newcomer"]["rating"] == "1500.000000"       # a new player: the league's initial
    assert by_name["Newcomer"]["waited_s"] == "300.000000"
    code, out_json, _ = matchmake(capsys, root, text, "--format", "json")
    assert code == 0
    objects = json.loads(out_json)
    assert [o["player"] for o in objects] == [r["player"] for r in rows]
    assert objects[0] == {"lobby": 1, "player": "Newcomer", "rating": 1500.0, "ping": 20, "platform": "ps5",
                          "waited_s": 300.0}
    # Writes nothing: only the queue file beside the site.
    assert sorted(p.name for p in root.iterdir()) == ["matches", "queue.toml"]


def test_rank_threshold_and_its_widening(make_site, capsys):
    root = make_site(SITE)
    # 0.092 apart: not even at 0.05; even once Ana has waited expand_after (2 x 0.05 = 0.10).
    strict = "rank_threshold = 0.05"
    _, out, _ = matchmake(capsys, root, queue_toml(("Ana", 30, "pc", 119), ("Bo", 30, "pc", 5), extra=strict))
    assert [r["lobby"] for r in read_csv(out)] == ["", ""]
    _, out, _ = matchmake(capsys, root, queue_toml(("Ana", 30, "pc", 120), ("Bo", 30, "pc", 5), extra=strict))
    assert [r["lobby"] for r in read_csv(out)] == ["1", "1"]


def test_ping_threshold_and_its_widening(make_site, capsys):
    root = make_site(SITE)
    # Cy and Dee are both 1500: only the pings differ, by 41 ms (> 40), then 40 (even).
    _, out, _ = matchmake(capsys, root, queue_toml(("Cy", 10, "pc", 60), ("Dee", 51, "pc", 30)))
    assert [r["lobby"] for r in read_csv(out)] == ["", ""]
    _, out, _ = matchmake(capsys, root, queue_toml(("Cy", 10, "pc", 60), ("Dee", 50, "pc", 30)))
    assert [r["lobby"] for r in read_csv(out)] == ["1", "1"]
    # 100 ms apart: even at 3 x 40 = 120 ms, a minute past expand_after; not at 2 x 40.
    _, out, _ = matchmake(capsys, root, queue_toml(("Cy", 10, "pc", 179), ("Dee", 110, "pc", 30)))
    assert [r["lobby"] for r in read_csv(out)] == ["", ""]
    _, out, _ = matchmake(capsys, root, queue_toml(("Cy", 10, "pc", 180), ("Dee", 110, "pc", 30)))
    assert [r["lobby"] for r in read_csv(out)] == ["1", "1"]


def test_platform_mode_keeps_platforms_apart(make_site, capsys):
    root = make_site(SITE)
    tickets = (("Cy", 30, "pc", 60), ("Dee", 30, "xbox", 50), ("Newcomer", 30, "pc", 40))
    _, out, _ = matchmake(capsys, root, queue_toml(*tickets))
    assert [(r["player"], r["lobby"]) for r in read_csv(out)] == [("Cy", "1"), ("Dee", "1"), ("Newcomer", "")]
    _, out, _ = matchmake(capsys, root, queue_toml(*tickets).replace("platform_mode = false",
                                                                     "platform_mode = true"))
    assert [(r["player"], r["lobby"]) for r in read_csv(out)] == [("Cy", "1"), ("Newcomer", "1"), ("Dee", "")]


def test_an_alias_queues_as_its_player(make_site, capsys):
    root = make_site(SITE)
    code, out, err = matchmake(capsys, root, queue_toml(("ana_old", 30, "pc", 60), ("Bo", 30, "pc", 5)))
    assert code == 0, err
    assert read_csv(out)[0]["player"] == "Ana" and read_csv(out)[0]["rating"] == "1516.000000"
    code, _, err = matchmake(capsys, root, queue_toml(("ana_old", 30, "pc", 60), ("Ana", 30, "pc", 5)))
    assert code == 1
    assert "queue.toml:12: ticket[1].name: 'Ana' already has a ticket, ticket[0]" in err


def test_every_problem_of_a_bad_queue_with_line_and_field(make_site, capsys):
    root = make_site(SITE)
    text = ("now = 2026-03-01T20:00:00Z\n"            # 1
            "lobby_size = 1\n"                          # 2
            "platform_mod = true\n"                     # 3
            'ping_threshold = "40"\n'                   # 4
            "\n"
            "[[ticket]]\n"                              # 6
            'name = "Ana"\n'                            # 7
            "ping = -3\n"                               # 8
            'platform = "pc"\n'                         # 9
            "joined = 2026-03-01T21:00:00Z\n"           # 10
            "\n"
            "[[ticket]]\n"                              # 12
            'name = ""\n'                               # 13
            "ping = 2.5\n"                              # 14
            "joined = 2026-03-01T19:00:00Z\n"           # 15
            "region = \"EU\"\n")                        # 16
    code, out, err = matchmake(capsys, root, text)
    assert code == 1 and out == ""
    assert not looks_like_traceback(err)
    lines = err.splitlines()
    q = str(root / "queue.toml")
    expected_lines = [
        f"{q}:2: lobby_size: must be an integer from 2",
        f"{q}:3: platform_mod: unknown key; did you mean 'platform_mode'?",
        f'{q}:4: ping_threshold: must be a number of milliseconds from 0 to 1,000,000, got the text "40"',
        f"{q}:8: ticket[0].ping: must be an integer from 0 to 1,000,000 (milliseconds), got -3",
        f"{q}:10: ticket[0].joined: the date-time 2026-03-01T21:00:00+00:00 is after now",
        f"{q}:12: ticket[1].platform: is missing",
        f"{q}:13: ticket[1].name: must be a non-empty name",
        f"{q}:14: ticket[1].ping: must be an integer from 0 to 1,000,000 (milliseconds), got 2.5",
        f"{q}:16: ticket[1].region: unknown key; allowed keys: name, ping, platform, joined",
    ]
    for want in expected_lines:
        assert any(line.startswith(want) for line in lines), (want, err)
    assert lines[-1] == "sitegen: 9 problems found."


@pytest.mark.parametrize("text, want", [
    ("lobby_size = 2\n", "queue.toml: now: is missing; must be a date-time"),
    ("now = 2026-03-01T20:00:00Z\n", "queue.toml: lobby_size: is missing"),
    ("now = 2026-03-01T20:00:00Z\nlobby_size = 2\nticket = 3\n",
     "queue.toml:3: ticket: must be [[ticket]] tables, got 3"),
    ("now = 2026-03-01T20:00:00Z\nlobby_size = 2\nplatform_mode = 1\n",
     "queue.toml:3: platform_mode: must be true or false, got 1"),
    ("now = 2026-03-01T20:00:00Z\nlobby_size = 2\nrank_threshold = 0\n",
     "queue.toml:3: rank_threshold: must be a number > 0 and at most 1"),
    ("now = 2026-03-01T20:00:00Z\nlobby_size = 2\nexpand_after = -1\n",
     "queue.toml:3: expand_after: must be a number of seconds from 0"),
    ('now = "2026-03-01"\nlobby_size = 2\n', 'queue.toml:1: now: must be a date-time'),
    ("now = 2026-03-01T20:00:00Z\nlobby_size = [2\n", "queue.toml:2: invalid TOML"),
    ('now = 2026-03-01T20:00:00Z\nlobby_size = 2\n[[ticket]]\nname = "A"\nping = 1\nplatform = "pc"\n'
     'joined = 20:00:00\n', "queue.toml:7: ticket[0].joined: must be a date-time"),
])
def test_one_bad_queue_file_each(make_site, capsys, text, want):
    root = make_site(SITE)
    code, out, err = matchmake(capsys, root, text)
    assert code == 1 and out == "", err
    assert not looks_like_traceback(err)
    assert want in err


def test_many_problems_of_one_kind_are_cut_short_unless_all(make_site, capsys):
    root = make_site(SITE)
    text = queue_toml(*[(f"p{k}", -1, "pc", 5) for k in range(40)])
    code, _, err = matchmake(capsys, root, text)
    assert code == 1 and "… and 20 more of this kind, 40 in all" in err and "--all lists every one" in err
    code, _, err = matchmake(capsys, root, text, "--all")
    assert code == 1 and err.count("ping: must be an integer") == 40


def test_a_bad_site_is_reported_with_the_queue(make_site, capsys):
    root = make_site({**SITE, "matches/ladder/bad.toml": "[[match]]\nplayed = 2026-01-03\n"})
    code, _, err = matchmake(capsys, root, queue_toml(("Ana", -1, "pc", 5)))
    assert code == 1
    assert "matches/ladder/bad.toml:1: match #1 (bad-1): players: is missing" in err
    assert "queue.toml:7: ticket[0].ping: must be an integer" in err


def test_bad_command_lines_exit_2(make_site, capsys):
    root = make_site(SITE)
    (root / "queue.toml").write_text(queue_toml(), encoding="utf-8")
    assert main(["matchmake", "nope", str(root / "queue.toml"), "--root", str(root)]) == 2
    assert "unknown league 'nope'; leagues: ladder" in capsys.readouterr().err
    assert main(["matchmake", "ladder", str(root / "missing.toml"), "--root", str(root)]) == 2
    assert "does not exist" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        main(["matchmake", "ladder", str(root / "queue.toml"), "--format", "xml", "--root", str(root)])
    assert info.value.code == 2


def test_child_process_exit_codes(make_site):
    root = make_site(SITE)
    (root / "queue.toml").write_text(queue_toml(("Ana", 30, "pc", 60), ("Bo", 30, "pc", 5)), encoding="utf-8")
    (root / "bad.toml").write_text(queue_toml(("Ana", 30, "pc", -60)), encoding="utf-8")
    ok = run_cli("matchmake", "ladder", "queue.toml", "--root", str(root), cwd=root)
    assert (ok.returncode, ok.stdout) == (0, "lobby,player,rating,ping,platform,waited_s\n"
                                             "1,Ana,1516.000000,30,pc,60.000000\n"
                                             "1,Bo,1484.000000,30,pc,5.000000\n")
    bad = run_cli("matchmake", "ladder", "bad.toml", "--root", str(root), cwd=root)
    assert bad.returncode == 1 and not looks_like_traceback(bad.stderr)
    assert bad.stderr.startswith("bad.toml:9: ticket[0].joined: the date-time 2026-03-01T20:01:00+00:00 is after now")
    usage = run_cli("matchmake", "ladder", "--root", str(root), cwd=root)
    assert usage.returncode == 2


# --- the systems' own expected scores ----------------------------------------------------

def test_glicko2_compares_with_each_sides_rd(make_site, capsys):
    root = make_site({
        "matches/worlds/league.toml": league_toml("glicko2", params='period = "match"'),
        "matches/worlds/a.toml": ('[[match]]\nplayed = 2026-01-01\nplayers = [{ name = "Ash", score = 3 }, '
                                  '{ name = "Bex", score = 1 }]\n'),
    })
    _, out, _ = matchmake(capsys, root, queue_toml(("Ash", 30, "pc", 50), ("Newcomer", 30, "pc", 10),
                                                   extra="rank_threshold = 1"), league="worlds")
    rows = {r["player"]: r for r in read_csv(out)}
    from sitegen.commands.matchmake import skill
    from sitegen.commands.build import check
    site = check(root)
    config = site.leagues[0].config
    from sitegen.model.history import rate_league
    standings = {r.standing.player: r.standing for r in rate_league(site.leagues[0]).standings}
    tickets = [Ticket(0, "Ash", 30, "pc", NOW, 50.0), Ticket(1, "Newcomer", 30, "pc", NOW, 10.0)]
    sk = skill(config, standings, tickets)
    ash = Glicko(standings["Ash"].rating, standings["Ash"].extra["rd"], 0.06)
    new = Glicko(1500.0, 350.0, 0.06)
    want = abs(expected_score(ash, new) - expected_score(new, ash))
    assert expected_score(ash, new) + expected_score(new, ash) != pytest.approx(1.0, abs=1e-6)  # RDs differ
    assert float(sk.gap(0, np.array([1]))[0]) == pytest.approx(want, rel=1e-12)
    assert rows["Newcomer"]["rating"] == "1500.000000"


def test_lunaro_compares_abilities_at_the_queued_pings(make_site, capsys):
    root = make_site({
        "matches/duel/league.toml": league_toml("lunaro"),
        "matches/duel/a.toml": ('[[match]]\nplayed = 2026-01-01\nplayers = [{ name = "Ash", goals = 10, ping = 0, '
                                'host = true }, { name = "Bex", goals = 10, ping = 20 }]\n'),
    })
    # Both rated 1500; at 0 and 300 ms their abilities are 1500 and 1500 sech(1) = 974: uneven.
    far = queue_toml(("Ash", 0, "pc", 50), ("Bex", 300, "pc", 10), extra="ping_threshold = 1000")
    _, out, _ = matchmake(capsys, root, far, league="duel")
    assert [(r["rating"], r["lobby"]) for r in read_csv(out)] == [("1500", ""), ("1500", "")]
    near = queue_toml(("Ash", 0, "pc", 50), ("Bex", 20, "pc", 10))
    _, out, _ = matchmake(capsys, root, near, league="duel")
    assert [r["lobby"] for r in read_csv(out)] == ["1", "1"]


def test_arena_new_player_counts_as_1000(make_site, capsys):
    root = make_site({
        "matches/arena/league.toml": league_toml("arena"),
        "matches/arena/a.toml": ('[[match]]\nplayed = 2026-01-01\nscore_to_win = 25\nteams = [\n'
                                 '  { won = true, players = [{ name = "Ash", kills = 25, deaths = 3 }] },\n'
                                 '  { won = false, players = [{ name = "Bex", kills = 10, deaths = 9 }] },\n]\n'),
    })
    code, out, err = matchmake(capsys, root, queue_toml(("Newcomer", 30, "pc", 5)), league="arena")
    assert code == 0, err
    assert read_csv(out)[0]["rating"] == "1000.000000"


# --- properties of the lobbies -----------------------------------------------------------

def reference_gap(kind: str, ratings, rds, a: int, b: int) -> float:
    """|E(a vs b) - E(b vs a)| from the rating modules' own scalar functions."""
    if kind == "elo":
        return abs(expected(ratings[a], ratings[b]) - expected(ratings[b], ratings[a]))
    pa, pb = Glicko(ratings[a], rds[a], 0.06), Glicko(ratings[b], rds[b], 0.06)
    return abs(expected_score(pa, pb) - expected_score(pb, pa))


def make_skill(kind: str, ratings, rds) -> Skill:
    r = np.array(ratings, dtype=float)
    if kind == "elo":
        return Skill(r, r, np.full(len(r), math.log(10) / 400), True)
    return Skill(r, r, np.array([g(x / SCALE) / SCALE for x in rds]), False)


players = st.lists(
    st.tuples(st.floats(1000, 2000), st.floats(30, 350), st.integers(0, 200), st.sampled_from(["pc", "ps5", "xbox"]),
              st.integers(0, 400)),
    max_size=40)


@settings(max_examples=150, deadline=None)
@given(players, st.sampled_from(["elo", "glicko2"]), st.integers(2, 5), st.booleans(),
       st.sampled_from([0.05, 0.1, 0.3]), st.sampled_from([10, 40, 100]), st.sampled_from([0, 60, 120, 1000]))
def test_lobby_properties(people, kind, size, platform_mode, rank_thr, ping_thr, expand_after):
    tickets = [Ticket(i, f"p{i}", ping, plat, NOW - timedelta(seconds=w), float(w))
               for i, (_, _, ping, plat, w) in enumerate(people)]
    ratings, rds = [p[0] for p in people], [p[1] for p in people]
    sk = make_skill(kind, ratings, rds)
    conf = Settings(size, platform_mode, rank_thr, ping_thr, expand_after)
    result = form_lobbies(tickets, sk, conf)

    placed = [i for lobby in result.lobbies for i in lobby] + list(result.waiting)
    assert sorted(placed) == list(range(len(tickets)))                  # every ticket exactly once
    assert all(len(lobby) == size for lobby in result.lobbies)          # every lobby full
    rank_of = {i: k for k, i in enumerate(priority(tickets))}
    assert list(result.waiting) == sorted(result.waiting, key=rank_of.get)
    for lobby in result.lobbies:
        head = lobby[0]
        if platform_mode:
            assert len({tickets[i].platform for i in lobby}) == 1
        # The first player waited longest; members joined in priority order.
        assert [rank_of[i] for i in lobby] == sorted(rank_of[i] for i in lobby)
        wide = widening(tickets[head].waited, expand_after)
        if tickets[head].waited < expand_after:
            assert wide == 1.0                      # nobody past expand_after: the base thresholds
        for m in lobby[1:]:
            assert abs(tickets[m].ping - tickets[head].ping) <= ping_thr * wide
            assert reference_gap(kind, ratings, rds, head, m) < rank_thr * wide + 1e-12
    # Nothing left that could still form a lobby: around no waiting ticket are there
    # lobby_size - 1 later waiting tickets even with it.
    for w in result.waiting:
        wide = widening(tickets[w].waited, expand_after)
        mates = [o for o in result.waiting if rank_of[o] > rank_of[w]
                 and (not platform_mode or tickets[o].platform == tickets[w].platform)
                 and abs(tickets[o].ping - tickets[w].ping) <= ping_thr * wide
                 and reference_gap(kind, ratings, rds, w, o) < rank_thr * wide - 1e-12]
        assert len(mates) < size - 1
    # Deterministic: the same input gives the same lobbies.
    assert form_lobbies(tickets, make_skill(kind, ratings, rds), conf) == result


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(1300, 1700), st.integers(0, 100), st.integers(0, 10 ** 6)),
                min_size=1, max_size=25, unique_by=lambda t: t[2]),
       st.randoms(use_true_random=False))
def test_file_order_only_breaks_ties(people, rnd):
    """Distinct waits: shuffling the tickets in the file changes no lobby (by player)."""
    def run(order):
        tickets = [Ticket(k, f"p{i}", people[i][1], "pc", NOW, float(people[i][2])) for k, i in enumerate(order)]
        sk = make_skill("elo", [people[i][0] for i in order], [0] * len(order))
        res = form_lobbies(tickets, sk, Settings(3))
        return ([[tickets[i].name for i in lobby] for lobby in res.lobbies], [tickets[i].name for i in res.waiting])
    order = list(range(len(people)))
    shuffled = order[:]
    rnd.shuffle(shuffled)
    assert run(order) == run(shuffled)


def test_widening_schedule():
    assert [widening(w, 120) for w in (0, 119.9, 120, 179.9, 180, 240, 600)] == [1, 1, 2, 2, 3, 4, 10]
    assert EXPAND_STEP == 60
    assert widening(0, 0) == 2.0        # expand_after = 0: every lobby is widened from the start


def test_byte_identical_output(make_site, capsys):
    root = make_site(SITE)
    text = queue_toml(*[(n, 20 + 7 * k, "pc" if k % 2 else "ps5", 30 * k) for k, n in
                        enumerate(["Ana", "Bo", "Cy", "Dee", "E1", "E2", "E3", "E4"])], lobby_size=2)
    outputs = {matchmake(capsys, root, text, "--format", fmt)[1] for fmt in ("csv", "csv")}
    assert len(outputs) == 1
    outputs = {matchmake(capsys, root, text, "--format", fmt)[1] for fmt in ("json", "json")}
    assert len(outputs) == 1


def test_simulation_smoke_run_is_reproducible(tmp_path):
    """scripts/matchmake_sim.py --quick: runs, writes its report, chart and figures, the same twice."""

    from helpers import load_script

    sim = load_script("matchmake_sim")
    outs = []
    for k in range(2):
        out = tmp_path / f"run{k}"
        assert sim.main(["--quick", "--out", str(out)]) == 0
        outs.append({p.name: p.read_bytes() for p in out.iterdir()})
    assert outs[0] == outs[1] and set(outs[0]) == {"report.md", "results.json", "pareto.svg"}
    results = json.loads(outs[0]["results.json"])
    rows = {r["name"]: r for r in results["main"]}
    assert set(rows) == {"fifo", "sort", "seed (defaults)", "seed, platform mode"}
    for r in rows.values():
        assert r["lobbies"] > 0 and 0 <= r["win_spread"] <= 1 and r["wait_p50"] <= r["wait_p90"] <= r["wait_p99"]
    assert outs[0]["pareto.svg"].startswith(b"<svg")


# --- any queue file: exit 0 or 1, never a traceback -------------------------------------

VALUES = ['2026-03-01T20:00:00Z', '2026-03-01T19:59:00+01:00', '2026-03-02', '20:00:00', '1999-01-01T00:00:00',
          '0', '1', '2', '-1', '3', '1000001', '0.5', '1e308', 'inf', 'nan', 'true', 'false', '"pc"', '""', '"  "',
          '"2026-03-01"', '[1, 2]', '{ a = 1 }', '"Ana"', '"ana_old"', '"Zoë"', '9223372036854775807']
TOP = ["now", "lobby_size", "platform_mode", "rank_threshold", "ping_threshold", "expand_after", "nwo"]
TICKET = ["name", "ping", "platform", "joined", "region"]


@settings(max_examples=120, deadline=None)
@given(st.dictionaries(st.sampled_from(TOP), st.sampled_from(VALUES)),
       st.lists(st.dictionaries(st.sampled_from(TICKET), st.sampled_from(VALUES)), max_size=5))
def test_any_queue_file_is_answered_cleanly(top, tickets):
    from sitegen.load.config import Roster
    from sitegen.load.site import TomlFile
    from sitegen.commands.matchmake import parse_queue
    from sitegen.load.problems import Problems
    import tomllib
    from pathlib import Path

    text = "".join(f"{k} = {v}\n" for k, v in top.items())
    text += "".join("\n[[ticket]]\n" + "".join(f"{k} = {v}\n" for k, v in t.items()) for t in tickets)
    problems = Problems()
    queue = parse_queue(TomlFile(Path("q.toml"), "q.toml", text, tomllib.loads(text)), Roster(), problems)
    assert (queue is None) == bool(problems)
    for p in problems:
        assert p.file == "q.toml" and p.message
        assert p.line is None or 1 <= p.line <= text.count("\n") + 1
    if queue is not None:
        assert len(queue.tickets) == len(tickets) and all(t.waited >= 0 for t in queue.tickets)
