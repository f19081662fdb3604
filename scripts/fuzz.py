"""The long fuzz run (`make fuzz`): mutated match files and league.toml fed to `sitegen check`/`build`.

    python scripts/fuzz.py                       # 20,000 cases, seed 1, 2 processes
    python scripts/fuzz.py --cases 5000 --seed 7 --jobs 4
    python scripts/fuzz.py --seed 1 --case 151   # one case again: its mutations and outcome
    python scripts/fuzz.py --replay DIR          # a saved failing input (DIR holds case.json and site/)
    python scripts/fuzz.py --replay DIR --minimise   # and shrink it to the smallest input failing the same way

The cases are those of tests/fuzzing.py (the quick run in tests/test_fuzz.py is its first cases
in the "quick" sizes); this run uses the "long" sizes: bigger lobbies, longer names, more
copies of a match. A case fails on a traceback, an exception out of main, an exit code other
than 0 or 1, or a hang (more than --limit CPU seconds for a check, six times that for a build; a
process that stops answering is killed and its case counted as a hang). Each failing input is
saved under --save. Exit status: 0 when no case failed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import queue
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests"))
try:
    import sitegen  # noqa: F401  (the installed package: `make fuzz` installs this checkout)
except ImportError:
    sys.path.insert(0, str(REPO))

import fuzzing  # noqa: E402


def _worker(wid: int, seed: int, indices: list[int], args: argparse.Namespace, workdir: Path, out: mp.Queue) -> None:
    runner = fuzzing.Runner(workdir / f"w{wid}", limit=args.limit, save_dir=args.save)
    for index in indices:
        out.put(("start", wid, index, time.monotonic()))
        case = fuzzing.make_case(seed, index, args.profile)
        build, github = fuzzing.choose(seed, index, args.build_rate)
        result = runner.run(case, build=build, github=github)
        result.case.files = {}                      # saved already if it failed; keep the pipe light
        out.put(("done", wid, index, result))
    out.put(("exit", wid, None, None))


def run(args: argparse.Namespace) -> int:
    import sitegen.commands.cli  # noqa: F401  (imported once here; forked workers share it)

    indices = list(range(args.start, args.start + args.cases))
    work = Path(tempfile.mkdtemp(prefix="sitegen-fuzz-"))
    ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
    out: mp.Queue = ctx.Queue()
    summary = fuzzing.Summary()
    pending = {w: indices[w::args.jobs] for w in range(args.jobs)}
    procs: dict[int, mp.Process] = {}
    current: dict[int, tuple[int, float]] = {}
    next_wid = args.jobs

    def spawn(wid: int, todo: list[int]) -> None:
        p = ctx.Process(target=_worker, args=(wid, args.seed, todo, args, work, out), daemon=True)
        p.start()
        procs[wid] = p

    def respawn(old: int, rest: list[int]) -> None:
        nonlocal next_wid
        if rest:
            pending[next_wid] = rest
            spawn(next_wid, rest)
            next_wid += 1

    for wid, todo in pending.items():
        spawn(wid, todo)
    t0 = time.monotonic()
    last = t0
    print(f"fuzz: {args.cases} cases from {args.start} (seed {args.seed}, {args.jobs} processes, "
          f"{args.profile} sizes, limit {args.limit:g} s); failing inputs go to {args.save}", flush=True)
    watchdog = args.limit * 24 + 30      # past the alarms of a build (6 x limit CPU, 24 x limit wall)
    while procs:
        try:
            kind, wid, index, payload = out.get(timeout=1.0)
        except queue.Empty:
            kind = None
        if kind == "start":
            current[wid] = (index, payload)
        elif kind == "done":
            current.pop(wid, None)
            pending[wid] = [i for i in pending[wid] if i != index]
            summary.add(payload)
        elif kind == "exit":
            procs.pop(wid).join()
            pending.pop(wid, None)
        now = time.monotonic()
        for wid, (index, started) in list(current.items()):
            proc = procs[wid]
            if now - started > watchdog or not proc.is_alive():
                # No answer (a hang the alarm could not stop) or the process died: count the case
                # as failed, save its input, go on with the rest of that worker's cases.
                alive = proc.is_alive()
                proc.kill()
                proc.join()
                del procs[wid], current[wid]
                case = fuzzing.make_case(args.seed, index, args.profile)
                why = (f"hang: no answer after {now - started:.0f} s (process killed)" if alive else
                       f"the process died (exit code {proc.exitcode})")
                outcome = fuzzing.Outcome("check", None, "hang" if alive else "crash", now - started, why, "", why)
                result = fuzzing.CaseResult(case, [outcome])
                fuzzing.save_case(args.save / f"seed{case.seed}-case{case.index}", result)
                result.case.files = {}
                summary.add(result)
                respawn(wid, [i for i in pending.pop(wid) if i != index])
        if kind is None:
            for wid, proc in list(procs.items()):
                if wid not in current and not proc.is_alive():     # died between two cases
                    proc.join()
                    del procs[wid]
                    respawn(wid, pending.pop(wid))
        summary.seconds = now - t0
        if now - last >= args.progress:
            last = now
            print(f"  [{summary.cases}/{args.cases}] {summary.cases / summary.seconds:.1f} cases/s, "
                  f"{summary.builds} builds, {len(summary.failures)} failures "
                  f"({len(summary.groups())} kinds)", flush=True)
    summary.seconds = time.monotonic() - t0
    print(summary.report(args.save, limit=100))
    print(f"fuzz: {summary.cases} cases ({summary.builds} builds), {len(summary.failures)} failures "
          f"({len(summary.groups())} kinds), {summary.seconds:.1f} s wall, "
          f"{summary.cases / max(summary.seconds, 1e-9):.1f} cases/s, seed {args.seed}, {args.jobs} processes; "
          f"exit codes: {fuzzing.codes_text(summary.codes)}; slowest: {summary.slowest[0]:.2f} s "
          f"({summary.slowest[1]})")
    return 0 if not summary.failures and summary.cases == args.cases else 1


def show(result: fuzzing.CaseResult) -> int:
    for o in result.outcomes:
        print(f"{o.command}: {o.kind}, exit {o.exit}, {o.seconds:.2f} s" + (f": {o.signature}" if o.failed else ""))
        if o.failed:
            print(o.detail)
    return 1 if result.failure else 0


def one_case(args: argparse.Namespace) -> int:
    case = fuzzing.make_case(args.seed, args.case, args.profile)
    print(f"{case.label} ({args.profile} sizes), league {case.league}:")
    for m in case.mutations:
        print(f"  {m}")
    build, github = fuzzing.choose(args.seed, args.case, args.build_rate)
    work = Path(tempfile.mkdtemp(prefix="sitegen-fuzz-"))
    result = fuzzing.Runner(work, limit=args.limit, save_dir=args.save).run(
        case, build=build or args.build, github=github)
    code = show(result)
    if result.failure:
        folder = args.save / f"seed{case.seed}-case{case.index}"
        print(f"input saved to {folder}")
        if args.minimise:
            minimise(folder, args)
    return code


def replay(args: argparse.Namespace) -> int:
    info, files = fuzzing.read_saved(args.replay)
    case = fuzzing.Case(info.get("seed", 0), info.get("index", 0), _league(files), files, info.get("mutations", []),
                        info.get("profile", "?"))
    work = Path(tempfile.mkdtemp(prefix="sitegen-fuzz-"))
    build = args.build or "build" in info.get("commands", [])
    result = fuzzing.Runner(work, limit=args.limit).run(case, build=build, github=False)
    code = show(result)
    if args.minimise and result.failure:
        minimise(args.replay, args)
    return code


def _league(files: dict) -> str:
    slugs = sorted({p.split("/")[1] for p in files if p.count("/") >= 2})
    return slugs[0] if slugs else "site"


def minimise(folder: Path, args: argparse.Namespace) -> None:
    info, files = fuzzing.read_saved(folder)
    work = Path(tempfile.mkdtemp(prefix="sitegen-fuzz-min-"))
    runner = fuzzing.Runner(work, limit=args.limit)
    build = args.build or "build" in info.get("commands", [])

    def outcome(candidate):
        case = fuzzing.Case(0, 0, "site", candidate, [])
        return runner.run(case, build=build).failure

    first = outcome(files)
    if first is None:
        print("the saved input does not fail (any more): nothing to shrink")
        return
    same = (first.kind, first.signature if first.kind != "hang" else "")

    def still_fails(candidate) -> bool:
        f = outcome(candidate)
        return f is not None and (f.kind, f.signature if f.kind != "hang" else "") == same

    small = fuzzing.minimise(files, still_fails, budget=args.budget)
    target = folder / "minimal"
    fuzzing.write_site(target, small)
    print(f"smallest input failing as {first.signature} (in {target}):")
    for path, data in small.items():
        shown = "<folder>" if data is None else data.decode("utf-8", "backslashreplace")
        if data is not None and len(shown) > 2000:
            shown = shown[:2000] + f"... ({len(data)} bytes)"
        print(f"--- {path}\n{shown}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cases", type=int, default=20_000, help="how many cases (default 20000)")
    p.add_argument("--seed", type=int, default=1, help="the stream of cases (default 1)")
    p.add_argument("--start", type=int, default=0, help="index of the first case (default 0)")
    p.add_argument("--jobs", type=int, default=2, help="processes (default 2)")
    p.add_argument("--limit", type=float, default=10.0,
                   help="CPU seconds a check may take before it is a hang (four times that in wall time; "
                        "a build six times as long; default 10)")
    p.add_argument("--profile", choices=sorted(fuzzing.PROFILES), default="long",
                   help="sizes of the big inputs (default long; quick is what tests/test_fuzz.py runs)")
    p.add_argument("--build-rate", type=float, default=0.3,
                   help="share of the cases the check accepts that are also built (default 0.3)")
    p.add_argument("--save", type=Path, default=Path(tempfile.gettempdir()) / "sitegen-fuzz-failures",
                   help="folder for failing inputs (default: $TMPDIR/sitegen-fuzz-failures)")
    p.add_argument("--progress", type=float, default=15.0, help="seconds between progress lines")
    p.add_argument("--case", type=int, help="run this one case (with --seed) and show its mutations and outcome")
    p.add_argument("--replay", type=Path, metavar="DIR", help="run a saved failing input again")
    p.add_argument("--build", action="store_true", help="with --case or --replay: also build if the check passes")
    p.add_argument("--minimise", "--minimize", action="store_true",
                   help="with --case or --replay: shrink the failing input, keeping the failure")
    p.add_argument("--budget", type=int, default=800, help="runs the shrinking may take (default 800)")
    args = p.parse_args(argv)
    if args.jobs < 1 or args.cases < 0:
        p.error("--jobs must be at least 1 and --cases not negative")
    args.save = args.save.resolve()
    for name in ("GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY", "GITHUB_WORKSPACE", "SITEGEN_DEBUG"):
        os.environ.pop(name, None)
    if args.replay is not None:
        return replay(args)
    if args.case is not None:
        return one_case(args)
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
