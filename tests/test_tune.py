"""`sitegen tune LEAGUE --param NAME=V1,V2`: every combination replayed, scored as accuracy.csv is."""

from __future__ import annotations

import itertools
import json
import re

import pytest

from sitegen.commands.build import check
from sitegen.rating import SYSTEMS
from sitegen.model.tune import UsageError, parse_params, read_value, split_values, sweep
from helpers import elo_match, league_data, league_toml, looks_like_traceback, read_csv, run_cli, write_files


def history() -> str:
    out = ""
    results = [1, 0, 1, 1, 0.5, 1, 0, 1, 1, 0, 0.5, 1]
    pairs = [("Ana", "Bo"), ("Bo", "Cy"), ("Cy", "Ana"), ("Ana", "Di"), ("Di", "Bo")]
    for i, s in enumerate(results * 2):
        a, b = pairs[i % len(pairs)]
        out += elo_match(f"{2024 + i // 12}-{1 + i % 12:02d}-03T10:00:00Z", a, s, b, 1 - s)
    return out


def site(tmp_path, name: str = "s", params: str = "", system: str = "elo", matches: str | None = None):
    return write_files(tmp_path / name, {
        "matches/l/league.toml": league_toml(system, params=params),
        "matches/l/m.toml": history() if matches is None else matches,
    })


def test_a_swept_value_scores_as_the_build_with_that_value(tmp_path):
    root = site(tmp_path)
    done = run_cli("tune", "l", "--param", "k=10,32", "--root", str(root), "--format", "csv")
    assert done.returncode == 0, done.stderr
    rows = read_csv(done.stdout)
    assert [r["k"] for r in rows] == ["10", "32"]
    built = read_csv(league_data(site(tmp_path, "k32", "k = 32"), "l")["accuracy.csv"])[0]
    changes = read_csv(league_data(site(tmp_path, "k32b", "k = 32"), "l")["changes.csv"])
    firsts = [next(g) for _, g in itertools.groupby(changes, key=lambda r: r["event"])]
    hits = sum(0.5 if float(r["expected"]) == 0.5 or float(r["score"]) == 0.5
               else float((float(r["expected"]) > 0.5) == (float(r["score"]) > 0.5)) for r in firsts)
    assert (rows[1]["predictions"], rows[1]["log_loss"], rows[1]["brier"]) == \
        (built["predictions"], built["log_loss"], built["brier"])
    assert rows[1]["accuracy"] == f"{hits / len(firsts):.6f}"
    assert rows[0]["log_loss"] != rows[1]["log_loss"]


def test_text_and_json_say_the_same_and_mark_the_leagues_own_values(tmp_path):
    root = site(tmp_path, params="k = 20")
    text = run_cli("tune", "l", "--param", "k=fide,20", "--param", "k_of=challenger,each", "--root", str(root))
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    assert lines[0].split() == ["k", "k_of", "predictions", "log_loss", "brier", "accuracy"]
    assert [ln.split()[:2] for ln in lines[1:5]] == [["fide", "challenger"], ["fide", "each"],
                                                      ["20", "challenger"], ["20", "each"]]
    assert [ln.endswith("<- league.toml") for ln in lines[1:5]] == [False, False, True, False]
    objects = json.loads(run_cli("tune", "l", "--param", "k=fide,20", "--param", "k_of=challenger,each",
                                 "--root", str(root), "--format", "json").stdout)
    assert [(o["k"], o["k_of"], o["current"]) for o in objects] == [
        ("fide", "challenger", False), ("fide", "each", False), (20, "challenger", True), (20, "each", False)]
    for o, ln in zip(objects, lines[1:5]):
        assert ln.split()[2:6] == [str(o["predictions"]), f"{o['log_loss']:.6f}", f"{o['brier']:.6f}",
                                   f"{o['accuracy']:.6f}"]


def test_the_replays_on_every_core_come_back_in_order(tmp_path):
    league = check(site(tmp_path)).leagues[0]
    wanted = parse_params(["k=10,20,32,40", "initial=1000,1500"], league.config.system.params, "elo")
    together, alone = sweep(league, wanted, workers=2), sweep(league, wanted, workers=1)
    assert together == alone
    assert [t.values for t in together.trials] == list(itertools.product([10, 20, 32, 40], [1000, 1500]))


@pytest.mark.parametrize("args, said", [
    (["--param", "kk=10"], "unknown parameter for system 'elo'; did you mean 'k'?"),
    (["--param", "k=0"], 'k: must be a number > 0 and at most 10,000, or "fide", got 0'),
    (["--param", "k=abc"], 'got the text "abc"'),
    (["--param", "k_of=both"], 'k_of: must be "challenger" or "each"'),
    (["--param", "k=[1"], "'[1' is not a value"),
    (["--param", "k=10,,20"], "an empty value"),
    (["--param", "k=10,10"], "10 is listed twice"),
    (["--param", "k=10", "--param", "k=20"], "given twice"),
    (["--param", "k"], "write NAME=VALUE"),
    ([], "give at least one --param"),
])
def test_bad_parameters_exit_2_with_what_is_allowed(tmp_path, args, said):
    root = site(tmp_path)
    done = run_cli("tune", "l", *args, "--root", str(root))
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert said in done.stderr and done.stdout == ""
    assert done.stderr.startswith("sitegen tune: error: ") and not looks_like_traceback(done.stderr)


def test_every_bad_parameter_is_reported_in_one_run(tmp_path):
    done = run_cli("tune", "l", "--param", "kk=1", "--param", "k=-1", "--root", str(site(tmp_path)))
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 2


def test_unknown_league_arena_and_an_invalid_site(tmp_path):
    root = site(tmp_path)
    done = run_cli("tune", "nope", "--param", "k=1", "--root", str(root))
    assert done.returncode == 2 and "unknown league 'nope'; leagues: l" in done.stderr
    arena = write_files(tmp_path / "a", {
        "matches/a/league.toml": league_toml("arena"),
        "matches/a/m.toml": '[[match]]\nplayed = 2025-01-01\nscore_to_win = 1\n'
                            'teams = [{ won = true, players = [{ name = "X", kills = 1, deaths = 0 }] },'
                            ' { won = false, players = [{ name = "Y", kills = 0, deaths = 1 }] }]\n'})
    done = run_cli("tune", "a", "--param", "loss_penalty=0.9", "--root", str(arena))
    assert done.returncode == 2 and "predicts no pairs" in done.stderr
    bad = site(tmp_path, "bad", matches='[[match]]\nplayed = 2025-01-01\nplayers = [{ name = "A", score = 2 }]\n')
    done = run_cli("tune", "l", "--param", "k=10", "--root", str(bad))
    assert done.returncode == 1 and "matches/l/m.toml" in done.stderr and not looks_like_traceback(done.stderr)


def test_values_read_as_toml_and_bare_words_as_text():
    assert split_values("[[0, 40], [1500, 20]],[[0,30]], fide") == ["[[0, 40], [1500, 20]]", "[[0,30]]", "fide"]
    assert [read_value(v) for v in ("20", "0.5", "fide", '"fide"', "true", "[[0, 40]]")] == \
        [20, 0.5, "fide", "fide", True, [[0, 40]]]
    with pytest.raises(ValueError):
        read_value("1 2")
    with pytest.raises(UsageError):
        parse_params(["k=" + ",".join(str(i) for i in range(1, 40)), "initial=" + ",".join(str(i) for i in range(40))],
                     SYSTEMS["elo"].params, "elo")


def test_a_combination_whose_math_runs_away_has_empty_scores_and_a_problem(tmp_path, monkeypatch):
    import sitegen.model.baselines as baselines
    from sitegen.rating.base import RatingDiverged
    from sitegen.commands.tune import diverged_problems, render

    real = baselines.replay

    def replay(league, overrides):
        if overrides["k"] == 40:
            raise RatingDiverged("2024-W10", "a rating")
        return real(league, overrides)

    monkeypatch.setattr(baselines, "replay", replay)
    league = check(site(tmp_path)).leagues[0]
    result = sweep(league, parse_params(["k=20,40"], league.config.system.params, "elo"), workers=1)
    assert result.trials[1].score is None and result.trials[1].diverged == "2024-W10"
    assert render(result, "csv").splitlines()[2] == "40,,,,"
    [problem] = diverged_problems(result)
    assert problem.file == "matches/l/league.toml" and "k = 40" in problem.message and "2024-W10" in problem.message


# --- [tune] in league.toml: the accuracy page's sweep ---------------------------------

def test_the_tune_table_of_league_toml_is_the_sweep_on_the_accuracy_page(tmp_path):
    from sitegen.commands.build import build

    root = site(tmp_path, params="k = 20")
    with open(root / "matches/l/league.toml", "a", encoding="utf-8") as fh:
        fh.write('\n[tune]\nk = [10, 20]\nk_of = ["challenger", "each"]\n')
    build(root, root / "_site")
    page = (root / "_site" / "leagues" / "l" / "accuracy" / "index.html").read_text(encoding="utf-8")
    section = page[page.index('<section aria-labelledby="sweep-h">'):]
    section = section[:section.index("</section>")]
    cli = read_csv(run_cli("tune", "l", "--param", "k=10,20", "--param", "k_of=challenger,each",
                           "--root", str(root), "--format", "csv").stdout)
    rows = re.findall(r"<tr( class=\"current\")?>(.*?)</tr>", section.split("<tbody>")[1])
    assert len(rows) == len(cli) == 4
    for (current, cells), r in zip(rows, cli):
        texts = re.findall(r'<td class="num">([^<]*)</td>', cells)
        assert texts[:2] == [f"{float(r['log_loss']):.4f}", f"{float(r['brier']):.4f}"]
        assert texts[2] == f"{100 * float(r['accuracy']):.1f}%"
        assert bool(current) == (r["k"] == "20" and r["k_of"] == "challenger")
    # The league itself is still rated with its [params].
    assert read_csv((root / "_site" / "data" / "l" / "accuracy.csv").read_text(encoding="utf-8"))[0]["log_loss"] \
        == [r for r in cli if r["k"] == "20" and r["k_of"] == "challenger"][0]["log_loss"]


@pytest.mark.parametrize("tune, said", [
    ("kk = [10]", "tune.kk: unknown parameter for system 'elo'; did you mean 'k'?"),
    ("k = [0, 20]", 'tune.k[0]: must be a number > 0 and at most 10,000, or "fide", got 0'),
    ("k = [20, 20]", "tune.k[1]: 20 is listed twice"),
    ("k = 20", "tune.k: must be a non-empty list of values to try"),
    ("k = [1, 2, 3, 4, 5]\ninitial = [1, 2, 3, 4, 5]",
     "25 combinations of values; every build replays each, so at most 24"),
])
def test_a_bad_tune_table_is_a_problem_of_league_toml(tmp_path, tune, said):
    from helpers import problems_of

    root = site(tmp_path)
    with open(root / "matches/l/league.toml", "a", encoding="utf-8") as fh:
        fh.write(f"\n[tune]\n{tune}\n")
    texts = [str(p) for p in problems_of(root)]
    assert any(said in t and t.startswith("matches/l/league.toml:") for t in texts), texts


def test_an_arena_league_may_not_tune(tmp_path):
    from helpers import problems_of

    root = write_files(tmp_path / "a", {
        "matches/a/league.toml": league_toml("arena") + "\n[tune]\nloss_penalty = [0.9, 1]\n",
        "matches/a/m.toml": '[[match]]\nplayed = 2025-01-01\nscore_to_win = 1\n'
                            'teams = [{ won = true, players = [{ name = "X", kills = 1, deaths = 0 }] },'
                            ' { won = false, players = [{ name = "Y", kills = 0, deaths = 1 }] }]\n'})
    assert any("arena predicts no pairs" in str(p) for p in problems_of(root))
