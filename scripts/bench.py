"""Benchmark: how a build scales, from 10,000 to 1,000,000 matches.

Not a test (timings on shared machines are noisy): it prints and records (``--json``) what a
build costs. Cases, run one at a time, each build in a child process with a timeout:

    elo-10k, elo-100k, elo-1m   1v1 elo leagues of 10k / 100k / 1M matches (1k / 5k / 10k players)
    placement-10k               battle royale: 10k matches in 100-player lobbies, 2,000 players
    demo                        this repository's demo site (matches/, content/), built without its cache
    engines                     each rating system's math alone against openskill, glicko2, trueskill

For each league: the wall and CPU time of every build stage (the hooks of
sitegen/commands/progress.py), peak RSS, output files and bytes (per match), and the time of
a rebuild after one match is appended to the last file (into the same output) against the
cold build; the rebuild uses the build cache the cold build left in the generated site
(.sitegen-cache/, sitegen/load/cache.py), as a curator's next build would. Usage:

    python scripts/bench.py                       # everything (make bench)
    python scripts/bench.py --quick               # the 10k leagues only (make bench-quick)
    python scripts/bench.py --skip-1m --json bench.json
    python scripts/bench.py --cases elo-100k,engines
    python scripts/bench.py --root .              # one existing site (cold build into a fresh folder, no cache)
    python scripts/bench.py --matches 50000 --players 2000 --system lunaro   # one custom league
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SEED = 20261121
START = datetime(2020, 1, 1, tzinfo=timezone.utc)
STEP = timedelta(minutes=15)        # between two generated matches
MiB = 2 ** 20
MARK = "bench-stage: "      # the child's stage lines on standard error

# Trees of earlier cases, deleted only once every build is measured. On ext4 without a journal
# (this machine's disk) a new file skips over every inode freed in the last 30 seconds or whose
# inode block is not yet written back, reading each: 15,000 files of 13 KB took 0.46 s of system
# time in a fresh folder, 3.0 s just after deleting another such tree and 10.1 s after deleting
# a 100k-match site. A case would otherwise pay for the one before it.
_set_aside: list[Path] = []


def set_aside(path: Path) -> None:
    """Move ``path`` out of the way now (a rename frees no inode) and delete it at the end."""
    if not path.exists():
        return
    aside = path.with_name(f".{path.name}.old-{os.getpid()}-{len(_set_aside)}")
    path.rename(aside)
    _set_aside.append(aside)


def delete_set_aside() -> None:
    while _set_aside:
        shutil.rmtree(_set_aside.pop(), ignore_errors=True)


@dataclass(frozen=True)
class League:
    """A generated league: a case of the benchmark."""

    name: str
    matches: int
    players: int
    system: str = "elo"
    lobby: int = 100


LEAGUES = (League("elo-10k", 10_000, 1_000), League("elo-100k", 100_000, 5_000),
           League("elo-1m", 1_000_000, 10_000), League("placement-10k", 10_000, 2_000, "placement"))
QUICK = ("elo-10k", "placement-10k")
ALL = tuple(lg.name for lg in LEAGUES) + ("demo", "engines")


# --- the generated leagues ---------------------------------------------------------------

def when(i: int) -> str:
    return (START + STEP * i).strftime("%Y-%m-%dT%H:%M:%SZ")


def generate(site: Path, matches: int, players: int, system: str, lobby: int = 100,
             per_file: int = 1000, seed: int = SEED) -> None:
    """Deterministic synthetic league (same arguments, same bytes): skill-driven results, one
    file per ``per_file`` matches in matches/bench/, played 15 minutes apart."""
    rng = random.Random(seed)
    league = site / "matches" / "bench"
    set_aside(site)
    league.mkdir(parents=True)
    (league / "league.toml").write_text(
        f'name = "Benchmark league"\nsystem = "{system}"\n'
        'tiers = [[0, "Bronze"], [1400, "Silver"], [1600, "Gold"], [1800, "Diamond"]]\n', encoding="utf-8")
    skill = [rng.gauss(1500, 200) for _ in range(players)]
    lines: list[str] = []
    for i in range(matches):
        if system == "placement":
            # A lobby finishes in order of skill plus luck; every tenth pair of neighbours ties.
            lobby_players = rng.sample(range(players), lobby)
            finish = sorted(lobby_players, key=lambda p: -(skill[p] + rng.gauss(0, 250)))
            places, place = [], 1
            for n in range(len(finish)):
                if n and rng.random() >= 0.1:
                    place = n + 1
                places.append(place)
            players_toml = ", ".join(f'{{ name = "P{p:05d}", place = {pl} }}' for p, pl in zip(finish, places))
        else:
            a, b = rng.sample(range(players), 2)
            p_a = 1 / (1 + 10 ** ((skill[b] - skill[a]) / 400))
            if system == "lunaro":
                ga, gb = rng.randint(0, 19), rng.randint(0, 19)
                if rng.random() < p_a:
                    ga = 20
                else:
                    gb = 20
                players_toml = (f'{{ name = "P{a:05d}", goals = {ga}, ping = {rng.randint(0, 200)} }}, '
                                f'{{ name = "P{b:05d}", goals = {gb}, ping = {rng.randint(0, 200)} }}')
            else:
                r = rng.random()
                sa = 1 if r < p_a - 0.04 else 0.5 if r < p_a + 0.04 else 0
                players_toml = f'{{ name = "P{a:05d}", score = {sa} }}, {{ name = "P{b:05d}", score = {1 - sa} }}'
        lines.append(f"[[match]]\nplayed = {when(i)}\nplayers = [{players_toml}]\n")
        if len(lines) == per_file or i == matches - 1:
            (league / f"part-{i // per_file:04d}.toml").write_text("\n".join(lines), encoding="utf-8")
            lines = []


def append_match(site: Path, matches: int, system: str, lobby: int = 100) -> None:
    """One more match, 15 minutes after the last, at the end of the last file (a curator's edit)."""
    last = max((site / "matches" / "bench").glob("part-*.toml"))
    if system == "placement":
        players = ", ".join(f'{{ name = "P{p:05d}", place = {p + 1} }}' for p in range(lobby))
    elif system == "lunaro":
        players = '{ name = "P00000", goals = 20, ping = 30 }, { name = "P00001", goals = 7, ping = 40 }'
    else:
        players = '{ name = "P00000", score = 1 }, { name = "P00001", score = 0 }'
    with last.open("a", encoding="utf-8") as f:
        f.write(f"\n[[match]]\nplayed = {when(matches)}\nplayers = [{players}]\n")


# --- one build, in a child process -------------------------------------------------------

def _clock() -> tuple[float, float]:
    """(wall, CPU) now; the CPU of finished children (git, asked for provenance) counts too."""
    t = os.times()
    return time.perf_counter(), t.user + t.system + t.children_user + t.children_system


def child(site: Path, out: Path, cache: bool = True) -> dict[str, Any]:
    """Build ``site`` into ``out`` in this process: each stage's wall and CPU seconds, taken
    from the progress hooks that `sitegen build` reports its stages through. ``cache``: the
    build reads and writes the site's build cache (else as `sitegen build --no-cache`)."""
    marks: list[tuple[str, float, float]] = [("start-up (imports)", *_clock())]
    sys.path.insert(0, str(ROOT))
    from sitegen.commands.build import build
    from sitegen.commands.progress import Progress, reporting
    from sitegen.rating import collector
    collector.hold_to_exit()        # as the sitegen command: the models go with the process

    def mark(stage: str) -> None:
        marks.append((stage, *_clock()))
        # As it happens, for a build stopped before its end: which stage it was stopped in.
        print(f"{MARK}{json.dumps([stage, marks[-1][1] - marks[0][1]])}", file=sys.stderr, flush=True)

    class Marks(Progress):
        """Each hook starts a stage; nothing is shown."""

        def reading(self) -> None:
            mark("load + validate")

        def checked(self, site: Any) -> None:
            mark("settings + provenance")

        def rating(self, site: Any) -> None:
            mark("rate")

        def writing_data(self) -> None:
            mark("data files")

        def rendering(self, output: Any) -> Any:
            mark("view models")
            return output

        def moving(self, files: int, out: Path) -> None:
            mark("swap in")

    # Inside the render stage: marks at the calls render_site makes in turn (left out if a
    # name moves; the stage is then reported whole).
    from sitegen.output import pages

    def marked(fn: Any, before: str, after: str | None = None) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            mark(before)
            value = fn(*args, **kwargs)
            if after:
                mark(after)
            return value
        return call

    # The data files, the bootstrap, the content pages and the search index are made by
    # processes of their own meanwhile (output/parallel.py Background): their CPU counts
    # when they are joined. The view models end where the first league's board is built.
    board = pages.build_board

    def first_board(*args: Any, **kwargs: Any) -> Any:
        if marks[-1][0] == "view models":
            mark("render pages")
        return board(*args, **kwargs)

    pages.build_board = first_board
    for attr, before, after in (("write_feeds", "feeds, sitemap, assets", None),
                                ("vega_bundle", "vega.js bundle", "theme assets")):
        if hasattr(pages, attr):
            setattr(pages, attr, marked(getattr(pages, attr), before, after))
    with reporting(Marks()):
        output = build(site, out, cache=cache)
    mark("end")
    stages = [{"stage": a[0], "wall_s": b[1] - a[1], "cpu_s": b[2] - a[2]} for a, b in zip(marks, marks[1:])]
    return {"stages": stages, "files": len(output.sizes), "bytes": sum(output.sizes.values()),
            "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "peak_rss_children_mib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}


def _rss_mib(pid: int) -> float:
    """The resident memory of a running process (Linux /proc); 0 where it cannot be read."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError):
        pass
    return 0.0


def default_max_rss() -> float:
    """Half the machine's memory, in MiB: a build past it is stopped so that others can work."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / MiB / 2
    except (ValueError, OSError):
        return 8192.0


def run_build(site: Path, out: Path, timeout: float, max_rss: float | None = None,
              cache: bool = True) -> dict[str, Any]:
    """One build in a child process: its report, or why there is none (timeout, memory, failure)."""
    max_rss = default_max_rss() if max_rss is None else max_rss
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", str(site), str(out)]
    if not cache:
        cmd.append("--child-no-cache")
    # The case before left up to a gigabyte of files the kernel has yet to write out: written
    # now, their writeback competes with this build for neither the disk nor the two cores.
    if hasattr(os, "sync"):
        os.sync()
    with tempfile.TemporaryFile("w+") as stdout, tempfile.TemporaryFile("w+") as stderr:
        t = time.perf_counter()
        # A session of its own: a build stopped takes the processes it started with it.
        proc = subprocess.Popen(cmd, cwd=ROOT, stdout=stdout, stderr=stderr, text=True, start_new_session=True)
        stopped = None
        while proc.poll() is None:
            elapsed = time.perf_counter() - t
            rss = _rss_mib(proc.pid)
            if elapsed > timeout:
                stopped = f"not finished within {timeout:g} s"
            elif rss > max_rss:
                stopped = f"stopped at {rss:,.0f} MiB of memory (limit {max_rss:,.0f} MiB) after {elapsed:.0f} s"
            if stopped:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                stderr.seek(0)
                reached = [json.loads(line[len(MARK):]) for line in stderr.read().splitlines()
                           if line.startswith(MARK)]
                if reached:
                    stopped += f", in stage {reached[-1][0]!r} (from {reached[-1][1]:.0f} s)"
                return {"status": stopped, "wall_s": None,
                        "reached": [{"stage": st, "from_s": at} for st, at in reached]}
            time.sleep(min(0.2, max(timeout - elapsed, 0.01)))
        wall = time.perf_counter() - t
        stdout.seek(0)
        stderr.seek(0)
        out_text, err_text = stdout.read(), stderr.read()
    if proc.returncode != 0:
        return {"status": f"failed (exit {proc.returncode}): {err_text.strip()[-1500:]}", "wall_s": wall}
    return {"status": "ok", "wall_s": wall, **json.loads(out_text.strip().splitlines()[-1])}


def bench_site(name: str, site: Path, out: Path, timeout: float, matches: int | None = None,
               rebuild: Any = None, max_rss: float | None = None, cache: bool = True) -> dict[str, Any]:
    """Cold build into a fresh folder; then, if ``rebuild`` (a function that edits the site) is
    given, a build after it into the same folder. Without ``cache``, the cold build neither
    reads nor writes the site's build cache: an existing site's cache (the demo's, left by
    `make site`) would make it a rebuild."""
    set_aside(out)
    print(f"[{name}] cold build…", flush=True)
    result: dict[str, Any] = {"case": name, "matches": matches, "cold": run_build(site, out, timeout, max_rss, cache)}
    cold = result["cold"]
    if matches and cold["status"] == "ok":
        cold["bytes_per_match"] = cold["bytes"] / matches
    if rebuild is not None and cold["status"] == "ok":
        rebuild()
        print(f"[{name}] rebuild after one appended match…", flush=True)
        result["rebuild"] = run_build(site, out, timeout, max_rss)
    return result


def bench_league(league: League, work: Path, timeout: float, rebuild: bool = True,
                 max_rss: float | None = None) -> dict[str, Any]:
    site, out = work / league.name / "site", work / league.name / "out"
    t = time.perf_counter()
    print(f"[{league.name}] generating {league.matches:,} {league.system} matches among "
          f"{league.players:,} players…", flush=True)
    generate(site, league.matches, league.players, league.system, league.lobby)
    gen = time.perf_counter() - t
    result = bench_site(league.name, site, out, timeout, league.matches,
                        (lambda: append_match(site, league.matches, league.system, league.lobby)) if rebuild else None,
                        max_rss)
    result.update(system=league.system, players=league.players, generate_s=gen,
                  lobby=league.lobby if league.system == "placement" else None)
    if league.matches >= 100_000:       # the largest cases are not kept: they hold gigabytes
        set_aside(work / league.name)
    return result


# --- the report ----------------------------------------------------------------------------

def _f(value: float | None, fmt: str = ".2f") -> str:
    return "-" if value is None else format(value, fmt)


def stage_table(result: dict[str, Any]) -> str:
    """One case: every stage of the cold build (and of the rebuild), wall and CPU seconds."""
    cold, warm = result["cold"], result.get("rebuild")
    head = f"== {result['case']}"
    if result.get("matches"):
        head += f": {result['matches']:,} matches"
    if result.get("players"):
        head += f", {result['players']:,} players"
    if result.get("lobby"):
        head += f", lobbies of {result['lobby']}"
    lines = [head]
    if cold["status"] != "ok":
        return "\n".join(lines + [f"  cold build: {cold['status']}"])
    ok_warm = warm is not None and warm["status"] == "ok"
    lines.append(f"  {'stage':<24} {'wall s':>9} {'cpu s':>9}" + (f" {'rebuild wall s':>15}" if ok_warm else ""))
    # The two builds pass the same hooks in the same order.
    warm_walls = [s["wall_s"] for s in warm["stages"]] if ok_warm else []
    for i, s in enumerate(cold["stages"]):
        extra = f" {_f(warm_walls[i] if i < len(warm_walls) else None):>15}" if ok_warm else ""
        lines.append(f"  {s['stage']:<24} {s['wall_s']:>9.2f} {s['cpu_s']:>9.2f}{extra}")
    in_child = sum(s["wall_s"] for s in cold["stages"])
    lines.append(f"  {'sum of stages':<24} {in_child:>9.2f} {sum(s['cpu_s'] for s in cold['stages']):>9.2f}"
                 + (f" {sum(s['wall_s'] for s in warm['stages']):>15.2f}" if ok_warm else ""))
    lines.append(f"  {'process wall time':<24} {cold['wall_s']:>9.2f}" + " " * 10
                 + (f" {warm['wall_s']:>15.2f}" if ok_warm else ""))
    lines.append(f"  peak RSS {cold['peak_rss_mib']:,.0f} MiB (build), {cold['peak_rss_children_mib']:,.0f} MiB "
                 f"(its child processes: page workers and the data, bootstrap and search processes)")
    per = f", {cold['bytes_per_match']:,.0f} bytes a match" if cold.get("bytes_per_match") else ""
    lines.append(f"  output {cold['files']:,} files, {cold['bytes'] / MiB:,.1f} MiB{per}")
    if warm is not None:
        if ok_warm:
            lines.append(f"  one appended match: rebuild {warm['wall_s']:.2f} s against cold {cold['wall_s']:.2f} s "
                         f"({warm['wall_s'] / cold['wall_s']:.0%})")
        else:
            lines.append(f"  rebuild: {warm['status']}")
    return "\n".join(lines)


def summary(results: list[dict[str, Any]]) -> str:
    """All builds, one row each."""
    lines = [f"{'case':<15} {'matches':>9} {'cold s':>8} {'rebuild s':>9} {'peak MiB':>8} {'files':>8} "
             f"{'MiB out':>8} {'B/match':>8}  status"]
    for r in results:
        cold, warm = r["cold"], r.get("rebuild") or {}
        ok = cold["status"] == "ok"
        lines.append(
            f"{r['case']:<15} {_f(r.get('matches'), ',d'):>9} {_f(cold.get('wall_s')):>8} "
            f"{_f(warm.get('wall_s')):>9} {_f(cold.get('peak_rss_mib'), ',.0f'):>8} "
            f"{_f(cold.get('files'), ',d'):>8} {_f(cold['bytes'] / MiB if ok else None, ',.1f'):>8} "
            f"{_f(cold.get('bytes_per_match'), ',.0f'):>8}  {cold['status'] if not ok else warm.get('status', 'ok')}")
    return "\n".join(lines)


def report(results: list[dict[str, Any]], engines: list[dict[str, Any]] | None) -> str:
    from bench_engines import table
    parts = [stage_table(r) for r in results]
    if results:
        parts.append("== builds\n" + summary(results))
    if engines:
        parts.append("== engines (rating math alone; matches a CPU second; vs openskill: against PlackettLuce "
                     "on the same case, >1 is faster)\n" + table(engines))
    return "\n\n".join(parts)


def run_cases(cases: list[str], leagues: dict[str, League], work: Path,
              args: argparse.Namespace) -> tuple[list[dict[str, Any]], list[dict[str, Any]] | None]:
    """Each case in turn: the builds' results, and the engines' if that case is among them."""
    results: list[dict[str, Any]] = []
    engines: list[dict[str, Any]] | None = None
    for case in cases:
        if case in leagues:
            results.append(bench_league(leagues[case], work, args.timeout, not args.no_rebuild, args.max_rss))
            print(stage_table(results[-1]), flush=True)
        elif case in ("demo", "root"):
            site = ROOT if case == "demo" else args.root.resolve()
            results.append(bench_site(case if case == "demo" else str(args.root), site, work / "root-out",
                                      args.timeout, max_rss=args.max_rss, cache=False))
            print(stage_table(results[-1]), flush=True)
        elif case == "engines":
            import bench_engines
            print("[engines]", flush=True)
            engines = bench_engines.run(args.engine_matches, 1_000, args.engine_lobbies, 2_000, 100)
    return results, engines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help=f"only {', '.join(QUICK)}")
    ap.add_argument("--cases", help=f"comma-separated, from {', '.join(ALL)}")
    ap.add_argument("--skip-1m", action="store_true", help="leave out elo-1m")
    ap.add_argument("--no-rebuild", action="store_true", help="cold builds only (no appended match)")
    ap.add_argument("--timeout", type=float,
                    help="seconds a build may take (default 900; 120 with --quick, which is meant to stay short)")
    ap.add_argument("--max-rss", type=float, metavar="MIB",
                    help="memory a build may hold before it is stopped (default: half the machine's)")
    ap.add_argument("--json", type=Path, help="write the results to this file")
    ap.add_argument("--root", type=Path, help="time the build of this existing site only")
    ap.add_argument("--matches", type=int, help="one custom league of this many matches")
    ap.add_argument("--players", type=int, default=5_000)
    ap.add_argument("--system", default="elo", choices=["elo", "lunaro", "placement"])
    ap.add_argument("--lobby", type=int, default=100, help="players a match (placement)")
    ap.add_argument("--engine-matches", type=int, default=20_000, help="1v1 matches of the engine comparison")
    ap.add_argument("--engine-lobbies", type=int, default=1_000, help="lobbies of the engine comparison")
    ap.add_argument("--dir", type=Path, default=ROOT / "bench-out")
    ap.add_argument("--child", nargs=2, type=Path, metavar=("SITE", "OUT"), help=argparse.SUPPRESS)
    ap.add_argument("--child-no-cache", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(child(*args.child, cache=not args.child_no_cache)), flush=True)
        sys.stderr.flush()
        os._exit(0)             # as `sitegen build` ends (cli.script), not freeing the build's models
    if args.timeout is None:
        args.timeout = 120 if args.quick else 900
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    work = args.dir.resolve()
    leagues = {lg.name: lg for lg in LEAGUES}
    if args.root:
        cases = ["root"]
    elif args.matches:
        leagues["custom"] = League("custom", args.matches, args.players, args.system, args.lobby)
        cases = ["custom"]
    elif args.cases:
        cases = [c.strip() for c in args.cases.split(",") if c.strip()]
        unknown = [c for c in cases if c not in ALL]
        if unknown:
            ap.error(f"unknown case {', '.join(unknown)}; the cases are {', '.join(ALL)}")
    else:
        cases = list(QUICK if args.quick else ALL)
    if args.skip_1m and "elo-1m" in cases:
        cases.remove("elo-1m")

    try:
        results, engines = run_cases(cases, leagues, work, args)
    finally:
        delete_set_aside()
    print()
    print(report(results, engines))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"python": sys.version.split()[0], "cases": results,
                                         "engines": engines or []}, indent=2) + "\n", encoding="utf-8")
        print(f"\nresults in {args.json}")
    # A build stopped by the timeout or the memory limit is a measurement; a failed one is not.
    failed = any(r["cold"]["status"].startswith("failed") for r in results)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
