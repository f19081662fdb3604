"""Engine speed for scripts/bench.py: each rating system's math alone against reference packages.

One seeded 1v1 sequence is given to every sitegen system (SYSTEMS[name].rate on prepared,
validated Match objects) and to openskill's PlackettLuce, the PyPI ``glicko2`` package and
``trueskill`` (the ``bench`` extra). One seeded sequence of 100-player lobbies is given to the
placement system and to PlackettLuce with teams of one. Only the rating is timed: the
matches are parsed before the clock starts, as a build's rate stage receives them, and a
sitegen row is what the build's rate stage does (history.rate_matches: ``rate`` and the
standings, everything the build keeps of it). Each of those rows, and each reference
package's, is the least CPU of three calls (``_best``). Every
system rated by an array kernel (rating/*_kernel.py) also gets rows for the kernel alone on
the league encoded beforehand, plain and compiled by numba, the compilation apart: rate() is
the kernel plus encoding the matches and holding the columns as events (rating/events.py;
placement's kernel rows include NumPy's power, which its kernel leaves to NumPy).

The packages do less bookkeeping than sitegen (no per-match change rows): the ratio is what
a league pays for its auditable changes.csv, not a like-for-like race.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta, timezone
from typing import Any

from sitegen.model.history import rate_matches
from sitegen.rating import SYSTEMS, Match

SEED = 20261122
START = datetime(2020, 1, 1, tzinfo=timezone.utc)

# Parameters that make a system's math comparable with the reference package's: the PyPI
# glicko2 rates each game as its own period with outcomes 1/0.5/0.
PARAMS: Mapping[str, Mapping[str, Any]] = {"glicko2": {"period": "match", "score_transform": "outcome"}}
# Period-based kernels (glicko2, openskill), timed alone through _kernel_rows.
PERIOD_KERNELS = ("glicko2", "openskill")
# arena rates each game from the player's own stats, with no opponent model: no 1v1 result to compare.
ONE_V_ONE = ("elo", "lunaro", "glicko2", "openskill", "placement")
# Systems whose rating kernel (sitegen/rating/arrays.py) also gets rows of its own.
KERNELS = ("elo", "lunaro")


def duel_sequence(matches: int, players: int, seed: int = SEED) -> list[tuple[int, int, float]]:
    """(a, b, score of a): skill-driven results with about 8% draws."""
    rng = random.Random(seed)
    skill = [rng.gauss(1500, 200) for _ in range(players)]
    out = []
    for _ in range(matches):
        a, b = rng.sample(range(players), 2)
        p_a = 1 / (1 + 10 ** ((skill[b] - skill[a]) / 400))
        r = rng.random()
        out.append((a, b, 1.0 if r < p_a - 0.04 else 0.5 if r < p_a + 0.04 else 0.0))
    return out


def lobby_sequence(matches: int, players: int, lobby: int, seed: int = SEED) -> list[list[tuple[int, int]]]:
    """Each lobby as [(player, place)], best first; about one neighbour in ten shares a place."""
    rng = random.Random(seed)
    skill = [rng.gauss(1500, 200) for _ in range(players)]
    out = []
    for _ in range(matches):
        finish = sorted(rng.sample(range(players), lobby), key=lambda p: -(skill[p] + rng.gauss(0, 250)))
        places, place = [], 1
        for n in range(len(finish)):
            if n and rng.random() >= 0.1:
                place = n + 1
            places.append(place)
        out.append(list(zip(finish, places)))
    return out


def _raw_duel(system: str, a: int, b: int, s: float, rng: random.Random) -> dict[str, Any]:
    """The match table a curator would write for this result in ``system``'s league."""
    na, nb = f"P{a:05d}", f"P{b:05d}"
    if system == "lunaro":
        if s == 0.5:
            ga = gb = rng.randint(0, 19)
        else:
            ga, gb = (20, rng.randint(0, 19)) if s == 1.0 else (rng.randint(0, 19), 20)
        return {"players": [{"name": na, "goals": ga, "ping": rng.randint(1, 200)},
                            {"name": nb, "goals": gb, "ping": rng.randint(1, 200)}]}
    if system == "openskill":
        pa, pb = (1, 1) if s == 0.5 else (1, 2) if s == 1.0 else (2, 1)
        return {"teams": [{"place": pa, "players": [{"name": na}]}, {"place": pb, "players": [{"name": nb}]}]}
    if system == "placement":
        pa, pb = (1, 1) if s == 0.5 else (1, 2) if s == 1.0 else (2, 1)
        return {"players": [{"name": na, "place": pa}, {"name": nb, "place": pb}]}
    return {"players": [{"name": na, "score": s}, {"name": nb, "score": 1 - s}]}


def prepared(system: Any, raws: list[dict[str, Any]]) -> list[Match]:
    """Match objects as validation hands them to rate(); a problem here is a bug of this script."""
    problems: list[str] = []
    out = []
    for i, raw in enumerate(raws):
        parsed = system.parse_match(raw, lambda path, message: problems.append(f"{path}: {message}"))
        if parsed is None or problems:
            raise ValueError(f"bench match {i + 1} of {system.name}: {'; '.join(problems)}")
        out.append(Match(f"bench-{i + 1}", START + timedelta(minutes=15 * i), "bench.toml", i + 1, None,
                         parsed.names, parsed.entries, parsed.extra))
    return out


def _timed(fn: Callable[[], object]) -> tuple[float, float]:
    """(wall, cpu) seconds of one call."""
    w, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w, time.process_time() - c


def _best(fn: Callable[[], object], runs: int = 3) -> tuple[float, float]:
    """(wall, cpu) of the call of ``runs`` that took least CPU: each engine, ours and the
    others alike, is timed so. A one-off cost of a first call (a compiled kernel read back from
    numba's cache, arrays allocated once) and the machine's noise would otherwise decide rows
    of a few hundredths of a second (lunaro's 20,000 duels: 0.022 s warm, up to 0.06 s once)."""
    return min((_timed(fn) for _ in range(runs)), key=lambda t: t[1])


def _kernel_rows(name: str, system: Any, matches: list[Match], case: str,
                 log: Callable[[str], None]) -> list[dict[str, Any]]:
    """A system's kernel alone on the league encoded beforehand (as rate() encodes it): plain,
    then compiled. The compiled row times a call after a warm-up call; the one-off compilation
    is timed apart, on a copy compiled without numba's disk cache (a first build's cost)."""
    from sitegen.rating import arrays, glicko2_kernel, openskill_kernel
    history: Any
    arguments: Callable[..., tuple[Any, ...]]
    fn: Callable[..., Any]
    if name == "glicko2":
        history = glicko2_kernel.encode([(index, group) for _, index, group in system.periods(matches)],
                                        system.start)
        fn, arguments = glicko2_kernel.glicko2_history, glicko2_kernel.arguments
        options = {"tau": system.tau, "epsilon": system.epsilon, "transform": system.score_transform}
    else:
        history = openskill_kernel.encode(matches, system.start)
        fn, arguments = openskill_kernel.openskill_history, openskill_kernel.arguments
        options = {"beta": system.beta, "tau": system.tau, "kappa": system.kappa, "limit_sigma": system.limit_sigma}

    def args(compiled: bool) -> tuple[Any, ...]:
        return arguments(history, compiled=compiled, **options)

    n = history.matches
    log(f"  engine: sitegen {name} kernel, plain ({case})")
    plain = args(False)
    rows = [row(f"sitegen {name} kernel (plain)", case, n, *_timed(lambda: fn(*plain)))]
    engine = f"sitegen {name} kernel (numba)"
    compiler = arrays.compiler()
    if compiler is None:
        return rows + [{**row(engine, case, n, 0.0, 0.0), "matches_per_s": None,
                        "missing": "numba is not installed"}]
    log(f"  engine: {engine} ({case})")
    fresh = compiler(nogil=True)(fn)
    compile_wall, _ = _timed(lambda: fresh(*args(True)))
    saved = arrays.MODE
    arrays.MODE = "on"
    try:
        compiled = arrays.kernel(fn, n)        # the product's compiled kernel (disk-cached)
    finally:
        arrays.MODE = saved
    compiled(*args(True))                      # warm-up
    ready = args(True)
    return rows + [{**row(engine, case, n, *_timed(lambda: compiled(*ready))), "compile_s": compile_wall}]


def _openskill_duels(duels: list[tuple[int, int, float]]) -> Callable[[], object]:
    from openskill.models import PlackettLuce
    model = PlackettLuce()

    def run() -> None:
        held: dict[int, Any] = {}
        for a, b, s in duels:
            ra, rb = held.get(a) or model.rating(), held.get(b) or model.rating()
            ranks = [1, 1] if s == 0.5 else [1, 2] if s == 1.0 else [2, 1]
            [[held[a]], [held[b]]] = model.rate([[ra], [rb]], ranks=ranks)
    return run


def _pypi_glicko2(duels: list[tuple[int, int, float]]) -> Callable[[], object]:
    import glicko2

    def run() -> None:
        held: dict[int, Any] = {}
        for a, b, s in duels:
            pa, pb = held.setdefault(a, glicko2.Player()), held.setdefault(b, glicko2.Player())
            ra, rda, rb, rdb = pa.getRating(), pa.getRd(), pb.getRating(), pb.getRd()
            pa.update_player([rb], [rdb], [s])
            pb.update_player([ra], [rda], [1 - s])
    return run


def _trueskill(duels: list[tuple[int, int, float]]) -> Callable[[], object]:
    import trueskill
    env = trueskill.TrueSkill(draw_probability=0.08)

    def run() -> None:
        held: dict[int, Any] = {}
        for a, b, s in duels:
            ra, rb = held.get(a) or env.create_rating(), held.get(b) or env.create_rating()
            if s == 0.0:
                held[b], held[a] = trueskill.rate_1vs1(rb, ra, env=env)
            else:
                held[a], held[b] = trueskill.rate_1vs1(ra, rb, drawn=s == 0.5, env=env)
    return run


def _openskill_lobbies(lobbies: list[list[tuple[int, int]]]) -> Callable[[], object]:
    from openskill.models import PlackettLuce
    model = PlackettLuce()

    def run() -> None:
        held: dict[int, Any] = {}
        for lobby in lobbies:
            teams = [[held.get(p) or model.rating()] for p, _ in lobby]
            rated = model.rate(teams, ranks=[place for _, place in lobby])
            for (p, _), [r] in zip(lobby, rated):
                held[p] = r
    return run


def _replayer(name: str, system: Any, matches: list[Match]) -> Any:
    """The system's kernel with the matches encoded, ready to replay them (not timed)."""
    from sitegen.rating import elo_kernel, lunaro_kernel
    if name == "elo":
        return elo_kernel.Replayer(system, elo_kernel.encode(system, matches), len(matches), 1)
    return lunaro_kernel.Replayer(system, matches, len(matches), 1)


def _plain_and_compiled(name: str, count: int, case: str, log: Callable[[str], None],
                        prepare: Callable[[], Callable[[], object]]) -> list[dict[str, Any]]:
    """A kernel alone, plain and compiled by numba: ``prepare()`` encodes the league under the
    mode and returns the call to time (timed after a first call when compiled, whose seconds
    are the row's note)."""
    from sitegen.rating import arrays
    saved = arrays.MODE
    out = []
    try:
        for mode, label in (("off", "plain"), ("on", "numba")):
            engine = f"sitegen {name} kernel ({label})"
            log(f"  engine: {engine} ({case})")
            arrays.MODE = mode
            if mode == "on" and arrays.compiler() is None:
                out.append({**row(engine, case, count, 0.0, 0.0), "matches_per_s": None,
                            "missing": "numba is not installed"})
                continue
            call = prepare()
            note = ""
            if mode == "on":
                first, _ = _timed(call)
                note = f"first call {first:.2f} s (compilation, or numba's cache read back)"
            out.append({**row(engine, case, count, *_timed(call)), "note": note})
    finally:
        arrays.MODE = saved
    return out


def _column_kernel_rows(name: str, system: Any, matches: list[Match], case: str,
                        log: Callable[[str], None]) -> list[dict[str, Any]]:
    """The kernel alone over pre-encoded columns (rating/*_kernel.py's Replayer)."""
    import numpy as np
    order = np.arange(len(matches), dtype=np.int64)

    def prepare() -> Callable[[], object]:
        replayer = _replayer(name, system, matches)
        return lambda: replayer.run(order)
    return _plain_and_compiled(name, len(matches), case, log, prepare)


def _placement_kernel_rows(system: Any, matches: list[Match], case: str,
                           log: Callable[[str], None]) -> list[dict[str, Any]]:
    """placement_kernel.replay alone (the kernel and NumPy's power, wave by wave) over the lobbies
    encoded beforehand: rate() is this plus encoding the lobbies and holding the columns."""
    from sitegen.rating import placement_kernel
    cols = placement_kernel.Lobbies(system, matches)
    return _plain_and_compiled("placement", len(matches), case, log,
                               lambda: (lambda: placement_kernel.replay(system, cols)))


def row(engine: str, case: str, matches: int, wall: float, cpu: float) -> dict[str, Any]:
    # Per CPU second: the loops are single-threaded, and on a shared machine the wall clock
    # also counts the time others' processes held the core.
    return {"engine": engine, "case": case, "matches": matches, "wall_s": wall, "cpu_s": cpu,
            "matches_per_s": matches / cpu if cpu > 0 else None}


def run(duel_matches: int = 20_000, duel_players: int = 1_000, lobby_matches: int = 1_000,
        lobby_players: int = 2_000, lobby: int = 100, log: Callable[[str], None] = print) -> list[dict[str, Any]]:
    """Every engine on the same sequences; rows with matches/s and the ratio to openskill's."""
    rows: list[dict[str, Any]] = []
    duels = duel_sequence(duel_matches, duel_players)
    case = f"1v1, {duel_matches:,} matches, {duel_players:,} players"
    for name in ONE_V_ONE:
        system = SYSTEMS[name](**PARAMS.get(name, {}))
        rng = random.Random(SEED)
        matches = prepared(system, [_raw_duel(name, a, b, s, rng) for a, b, s in duels])
        # The kernels first: their first compiled call (numba's compilation, or its cache read
        # back) is timed there on its own, and rate() is then timed without it.
        kernels = _column_kernel_rows(name, system, matches, case, log) if name in KERNELS else []
        if name == "placement":
            kernels = _placement_kernel_rows(system, matches, case, log)
        if name in PERIOD_KERNELS:
            rows += _kernel_rows(name, system, matches, case, log)
        log(f"  engine: sitegen {name} ({case})")
        rows.append(row(f"sitegen {name}", case, len(matches), *_best(lambda: rate_matches(system, matches))))
        rows.extend(kernels)
    for engine, make in (("openskill PlackettLuce", _openskill_duels), ("PyPI glicko2", _pypi_glicko2),
                         ("trueskill", _trueskill)):
        log(f"  engine: {engine} ({case})")
        try:
            fn = make(duels)
        except ImportError as exc:      # the bench extra not installed: say so, keep the rest
            rows.append({**row(engine, case, len(duels), 0.0, 0.0), "matches_per_s": None,
                         "missing": f"{exc.name} is not installed (pip install '.[bench]')"})
            continue
        rows.append(row(engine, case, len(duels), *_best(fn)))
    lobbies = lobby_sequence(lobby_matches, lobby_players, lobby)
    lcase = f"lobbies of {lobby}, {lobby_matches:,} matches, {lobby_players:,} players"
    system = SYSTEMS["placement"]()
    matches = prepared(system, [{"players": [{"name": f"P{p:05d}", "place": pl} for p, pl in lb]}
                                for lb in lobbies])
    kernels = _placement_kernel_rows(system, matches, lcase, log)
    log(f"  engine: sitegen placement ({lcase})")
    rows.append(row("sitegen placement", lcase, len(matches), *_best(lambda: rate_matches(system, matches))))
    rows.extend(kernels)
    log(f"  engine: openskill PlackettLuce ({lcase})")
    rows.append(row("openskill PlackettLuce", lcase, len(lobbies), *_best(_openskill_lobbies(lobbies))))
    _ratios(rows)
    return rows


def _ratios(rows: list[dict[str, Any]]) -> None:
    """Speed relative to openskill's PlackettLuce on the same case (>1: faster); glicko2 also
    relative to the PyPI glicko2."""
    speed = {(r["engine"], r["case"]): r["matches_per_s"] for r in rows}
    for r in rows:
        ref = speed.get(("openskill PlackettLuce", r["case"]))
        r["vs_openskill"] = r["matches_per_s"] / ref if r["matches_per_s"] and ref else None
        pypi = speed.get(("PyPI glicko2", r["case"]))
        if r["engine"].startswith("sitegen glicko2"):
            r["vs_pypi_glicko2"] = r["matches_per_s"] / pypi if r["matches_per_s"] and pypi else None


def table(rows: list[dict[str, Any]]) -> str:
    lines = [f"{'engine':<33} {'case':<46} {'matches/s':>11} {'cpu s':>7} {'wall s':>7} {'vs openskill':>12}"]
    for r in rows:
        if r.get("missing"):
            lines.append(f"{r['engine']:<33} {r['case']:<46} {'-':>11} {'-':>7} {'-':>7} {'-':>12}  {r['missing']}")
            continue
        ratio = f"{r['vs_openskill']:.2f}x" if r.get("vs_openskill") else "-"
        note = f"  ({r['vs_pypi_glicko2']:.2f}x the PyPI glicko2)" if r.get("vs_pypi_glicko2") else ""
        note += f"  ({r['note']})" if r.get("note") else ""
        if r.get("compile_s"):
            note += f"  (compiled once in {r['compile_s']:.2f} s, not counted)"
        lines.append(f"{r['engine']:<33} {r['case']:<46} {r['matches_per_s']:>11,.0f} {r['cpu_s']:>7.2f} "
                     f"{r['wall_s']:>7.2f} {ratio:>12}{note}")
    return "\n".join(lines)
