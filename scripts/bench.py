"""Benchmark: build a synthetic league of 100,000 matches among 5,000 players.

Not a test (timings on shared machines are noisy): it prints the time of each
pipeline stage and the peak memory of a full `sitegen build` run. Usage:

    python scripts/bench.py [--matches 100000] [--players 5000] [--system elo]
    python scripts/bench.py --system placement --lobby 100 --matches 10000 --players 2000
    python scripts/bench.py --root .    # time the build of an existing site (the demo)
"""

from __future__ import annotations

import argparse
import random
import resource
import shutil
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def generate(site: Path, matches: int, players: int, system: str, lobby: int = 100,
             per_file: int = 1000) -> None:
    """Deterministic synthetic league: skill-driven results, one file per 1000 matches."""
    rng = random.Random(20261121)
    league = site / "matches" / "bench"
    if site.exists():
        shutil.rmtree(site)
    league.mkdir(parents=True)
    (league / "league.toml").write_text(
        f'name = "Benchmark league"\nsystem = "{system}"\n'
        'tiers = [[0, "Bronze"], [1400, "Silver"], [1600, "Gold"], [1800, "Diamond"]]\n', encoding="utf-8")
    skill = [rng.gauss(1500, 200) for _ in range(players)]
    start = datetime(2020, 1, 1, tzinfo=timezone.utc)
    lines: list[str] = []
    for i in range(matches):
        when = (start + timedelta(minutes=15 * i)).strftime("%Y-%m-%dT%H:%M:%SZ")
        if system == "placement":
            # A lobby finishes in order of skill plus luck; every tenth pair of neighbours ties.
            lobby_players = rng.sample(range(players), lobby)
            finish = sorted(lobby_players, key=lambda p: -(skill[p] + rng.gauss(0, 250)))
            places, place = [], 1
            for n in range(len(finish)):
                if n and rng.random() >= 0.1:
                    place = n + 1
                places.append(place)
            entries = ", ".join(f'{{ name = "P{p:05d}", place = {pl} }}' for p, pl in zip(finish, places))
            lines.append(f"[[match]]\nplayed = {when}\nplayers = [{entries}]\n")
            if len(lines) == per_file or i == matches - 1:
                (league / f"part-{i // per_file:04d}.toml").write_text("\n".join(lines), encoding="utf-8")
                lines = []
            continue
        a, b = rng.sample(range(players), 2)
        p_a = 1 / (1 + 10 ** ((skill[b] - skill[a]) / 400))
        if system == "lunaro":
            ga = rng.randint(0, 19)
            gb = rng.randint(0, 19)
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
        lines.append(f"[[match]]\nplayed = {when}\nplayers = [{players_toml}]\n")
        if len(lines) == per_file or i == matches - 1:
            (league / f"part-{i // per_file:04d}.toml").write_text("\n".join(lines), encoding="utf-8")
            lines = []


def stages(site: Path, out: Path) -> None:
    """Time each stage in this process."""
    sys.path.insert(0, str(ROOT))
    from sitegen.commands.build import check, rate
    from sitegen.model.ledger import league_files
    from sitegen.output.pages import render_site
    from sitegen.output.write import Output

    t0 = time.perf_counter()
    s = check(site)
    t1 = time.perf_counter()
    rated = rate(s)
    t2 = time.perf_counter()
    output = Output(out)
    for league in rated:
        for name, text in league_files(league, roster=s.roster):
            output.add(f"data/{league.league.config.slug}/{name}", text)
    t3 = time.perf_counter()
    render_site(s, rated, output)
    t4 = time.perf_counter()
    output.commit()
    t5 = time.perf_counter()
    for name, secs in (("load + validate", t1 - t0), ("rate", t2 - t1), ("data files", t3 - t2),
                       ("model + render + write", t4 - t3), ("swap in", t5 - t4)):
        print(f"  {name:<16} {secs:7.2f} s")
    print(f"  {'files':<16} {len(output.sizes):7d}   {sum(output.sizes.values()) / 2**20:.1f} MiB")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=100_000)
    ap.add_argument("--players", type=int, default=5_000)
    ap.add_argument("--system", default="elo", choices=["elo", "lunaro", "placement"])
    ap.add_argument("--lobby", type=int, default=100, help="players a match (placement)")
    ap.add_argument("--root", type=Path, help="build this existing site instead of a synthetic one")
    ap.add_argument("--dir", type=Path, default=ROOT / "bench-out")
    args = ap.parse_args()
    site, out = args.dir / "site", args.dir / "out"
    if args.root:
        site = args.root.resolve()
    else:
        t = time.perf_counter()
        generate(site, args.matches, args.players, args.system, args.lobby)
        size = f" in lobbies of {args.lobby}" if args.system == "placement" else ""
        print(f"generated {args.matches} {args.system} matches among {args.players} players{size} "
              f"in {time.perf_counter() - t:.1f} s")

    print("full build (`sitegen build`, separate process):")
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "sitegen", "build", "--root", str(site), "--out", str(out)],
                          cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    if proc.returncode != 0:
        print(proc.stderr[-2000:])
        return 1
    print(f"  wall time        {wall:7.2f} s")
    print(f"  peak memory      {peak:7.0f} MiB (max RSS)")
    print("stages (in-process):")
    stages(site, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
