"""The command line: parse arguments, call the pipeline, set the exit code (docs/configuration)."""

from __future__ import annotations

import argparse
import atexit
import os
import sys
import traceback
from pathlib import Path

from sitegen import __version__
from sitegen.rating import arrays, collector
from sitegen.output.escape import visible
from sitegen.load.problems import InvalidInput, listing, plural

EXIT_OK, EXIT_INVALID = 0, 1
EXIT_USAGE = 2          # argparse's own code for bad arguments
EXIT_INTERNAL = 3       # a bug in sitegen, never the input's fault (docs/configuration)
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it
EXIT_PIPE = 141         # 128 + SIGPIPE: the reader of our output went away (`sitegen diff | head`)
DEBUG_VARIABLE = "SITEGEN_DEBUG"


def _report(exc: InvalidInput, *, wrote: bool, root: Path | None = None, every: bool = False) -> int:
    """The problems on stderr, one line each; on a GitHub runner also as annotations on stdout.

    ``root`` is the site root the problems' paths are relative to (default: the current folder).
    Past problems.KIND_LIMIT problems of one kind only the first of that kind are listed, then
    a line with their count; ``every`` (``--all``) lists every one.
    """
    from sitegen.commands import annotations

    n = len(exc.problems)
    shown = listing(exc.problems, every=every)
    tail = "; the previous output was left untouched." if wrote else "."
    if shown.cut:
        tail = (f" ({plural(len(shown.lines), 'line')} above, {plural(len(shown.cut), 'kind')} cut short; "
                f"--all lists every one){tail}")
    with annotations.commands_stopped():    # the lines quote the input: no workflow command in them
        for line in shown.lines:
            print(line, file=sys.stderr)
        for line in shown.summary():
            print(line, file=sys.stderr)
        print(f"sitegen: {plural(n, 'problem')} found{tail}", file=sys.stderr)
    annotations.annotate(exc.problems, root or Path.cwd(), shown=shown.shown)
    return EXIT_INVALID


def _root(value: str) -> Path:
    return Path(value).resolve()


def _port(value: str) -> int:
    try:
        port = int(value)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{value!r} is not a port: a whole number from 0 to 65535")
    return port


def _progress(args: argparse.Namespace, *, strict: bool = False):
    """The stage lines on stderr (sitegen/commands/progress.py): on a terminal outside CI, or as
    --progress and --quiet say. ``strict``: a name that looks like another player's stops
    the command once the input is valid."""
    from sitegen.commands.progress import Progress, wanted

    return Progress(wanted(args.progress), after_check=_strict if strict else None)


def _strict(site) -> None:
    """--strict: the notes on names that look like another player's are problems."""
    from sitegen.load.names import notes

    found = notes(site, strict=True)
    if found:
        raise InvalidInput(found)


def cmd_build(args: argparse.Namespace) -> int:
    from sitegen.commands.build import build

    from sitegen.commands.progress import reporting

    out = args.out or args.root / "_site"
    try:
        with reporting(_progress(args, strict=args.strict)) as progress:
            output = build(args.root, out, base_url=args.base_url, repo_url=args.repo_url,
                           cache=not args.no_cache)
            progress.done()
    except InvalidInput as exc:
        return _report(exc, wrote=True, root=args.root, every=args.all)
    except OSError as exc:
        print(f"sitegen: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_INVALID
    print(f"sitegen: built {len(output.sizes)} files into {out}")
    return EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    from sitegen.commands.build import check
    from sitegen.commands.progress import reporting

    try:
        with reporting(_progress(args, strict=args.strict)):
            site = check(args.root, cache=not args.no_cache)
    except InvalidInput as exc:
        return _report(exc, wrote=False, root=args.root, every=args.all)
    matches = sum(len(lg.matches) for lg in site.leagues)
    print(f"sitegen: {len(site.leagues)} leagues, {matches} matches: all valid")
    # Names that look like another player's are valid (names are case-sensitive): notes after
    # the verdict, and on a GitHub runner warnings on their lines. With --strict there are none
    # left here: they were problems.
    from sitegen.commands import annotations
    from sitegen.load.names import notes

    found = [] if args.strict else notes(site)
    if found:
        with annotations.commands_stopped():    # the notes quote names: no workflow command in them
            for note in found:
                print(f"note: {note}")
            print(f"sitegen: {plural(len(found), 'note')}: as written, each name is a "
                  "player of its own (names are case-sensitive); correct it if the other player is meant.")
        annotations.warn(found, site.root)
    return EXIT_OK


def cmd_serve(args: argparse.Namespace) -> int:
    from sitegen.commands.serve import serve

    try:
        return serve(args.root, args.out or args.root / "_site", host="127.0.0.1", port=args.port,
                     base_url=args.base_url, repo_url=args.repo_url, cache=not args.no_cache)
    except OSError as exc:
        print(f"sitegen: cannot serve on 127.0.0.1:{args.port}: {exc.strerror or exc}; "
              "try another --port", file=sys.stderr)
        return EXIT_INVALID


def cmd_new_match(args: argparse.Namespace) -> int:
    from sitegen.commands.newmatch import run

    return run(args.root, args.league, players=args.player or [], teams=args.team or [],
               played=args.played, match_id=args.id, target=args.append)


def cmd_diff(args: argparse.Namespace) -> int:
    from sitegen.commands.diff import InvalidRevisions, RevisionError, diff_revisions
    from sitegen.commands.diff_report import render

    try:
        diff = diff_revisions(args.root, args.rev_a, args.rev_b)
    except RevisionError as exc:
        print(f"sitegen diff: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except InvalidRevisions as exc:
        # One line per problem as `sitegen check` lists them (the first of a kind past a few
        # dozen), each after the revision it is found at.
        listings = [(f"at {i.revision.label}: ", listing(i.problems, lead=f"at {i.revision.label}: "))
                    for i in exc.invalid]
        for _, shown in listings:
            for line in shown.lines:
                print(line, file=sys.stderr)
        for lead, shown in listings:
            for line in shown.summary(lead):
                print(line, file=sys.stderr)
        n = sum(len(i.problems) for i in exc.invalid)
        where = " and ".join(i.revision.label for i in exc.invalid)
        cut = " (`sitegen check --all` at a revision lists every one)" if any(s.cut for _, s in listings) else ""
        print(f"sitegen: {plural(n, 'problem')} found at {where}{cut}; "
              "nothing compared.", file=sys.stderr)
        return EXIT_INVALID
    sys.stdout.write(render(diff, args.format))
    return EXIT_OK


def cmd_matchmake(args: argparse.Namespace) -> int:
    from sitegen.commands.matchmake import UsageError, matchmake, render, table

    try:
        queue, skill, result, integer = matchmake(args.root, args.league, Path(args.queue), args.queue)
    except UsageError as exc:
        print(f"sitegen matchmake: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except InvalidInput as exc:
        return _report(exc, wrote=False, root=args.root, every=args.all)
    sys.stdout.write(render(table(queue.tickets, skill, result, integer), args.format))
    return EXIT_OK


def cmd_tune(args: argparse.Namespace) -> int:
    from sitegen.commands.tune import UsageError, diverged_problems, render, tune

    try:
        result = tune(args.root, args.league, args.param or [])
    except UsageError as exc:
        for line in str(exc).splitlines():
            print(f"sitegen tune: error: {line}", file=sys.stderr)
        return EXIT_USAGE
    except InvalidInput as exc:
        return _report(exc, wrote=False, root=args.root, every=args.all)
    sys.stdout.write(render(result, args.format))
    ran_away = diverged_problems(result)
    if ran_away:
        return _report(InvalidInput(ran_away), wrote=False, root=args.root, every=args.all)
    return EXIT_OK


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="sitegen",
        description="Static leaderboard site generator: reads match files, rates every player "
                    "and renders a static site.",
    )
    p.add_argument("--version", action="version", version=f"sitegen {__version__}")
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def common(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--root", type=_root, default=Path.cwd(),
                        help="the site repository (holds matches/); default: the current folder")

    def strict(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--strict", action="store_true",
                        help="a name that looks like a misspelling of another player's (a note without "
                             "it) is a problem; list a new player in matches/players.toml to allow the name")

    def no_cache(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--no-cache", action="store_true",
                        help="neither read nor write the build cache ROOT/.sitegen-cache/ (parsed files, "
                             "rendered pages); the output is the same either way")

    def progress(sp: argparse.ArgumentParser) -> None:
        shown = sp.add_mutually_exclusive_group()
        shown.add_argument("--progress", dest="progress", action="store_const", const=True, default=None,
                           help="say on stderr what is being done, stage by stage (default: on a "
                                "terminal, unless CI is set)")
        shown.add_argument("--quiet", dest="progress", action="store_const", const=False,
                           help="no stage lines, even on a terminal")

    b = sub.add_parser("build", help="validate, rate and write the site",
                       description="Validate every match file, rate every league and write the site. "
                                   "Exit 0 when built, 1 on invalid input (the old output is left untouched).")
    common(b)
    b.add_argument("--out", type=_root, help="output folder; default: ROOT/_site")
    b.add_argument("--base-url", help="absolute URL the site is served from (for feeds and the sitemap); "
                                      "default: base_url in [tool.sitegen]")
    b.add_argument("--repo-url", help="the repository's http(s) URL: match pages link each match's file and "
                                      "commit into it; default: repo_url in [tool.sitegen]")
    b.add_argument("--all", action="store_true", help="list every problem, also past a few dozen of one kind")
    strict(b)
    no_cache(b)
    progress(b)
    b.set_defaults(func=cmd_build)

    c = sub.add_parser("check", help="validate only, write nothing",
                       description="Validate every file and report every problem, one line each. "
                                   "Exit 0 when valid, 1 when not.")
    common(c)
    c.add_argument("--all", action="store_true", help="list every problem, also past a few dozen of one kind")
    strict(c)
    no_cache(c)
    progress(c)
    c.set_defaults(func=cmd_check)

    s = sub.add_parser("serve", help="preview on 127.0.0.1, rebuilding when a file changes",
                       description="Build the site, serve it on http://127.0.0.1:PORT/ and rebuild whenever "
                                   "a match, content or template file changes. Ctrl-C (or SIGTERM/SIGHUP) stops it.")
    common(s)
    s.add_argument("--out", type=_root, help="output folder; default: ROOT/_site")
    s.add_argument("--port", type=_port, default=8000, help="port to listen on (default 8000; 0 picks a free one)")
    s.add_argument("--base-url", help="serve under this URL's path, as the site will be published "
                                      "(https://owner.github.io/repo/ is served at /repo/); "
                                      "default: base_url in [tool.sitegen]")
    s.add_argument("--repo-url", help="the repository's http(s) URL, for links from match pages to "
                                      "files and commits; default: repo_url in [tool.sitegen]")
    no_cache(s)
    s.set_defaults(func=cmd_serve)

    d = sub.add_parser("diff", help="what a change to the match files does to the ratings",
                       description="Rate every league at two revisions of the site's git repository and "
                                   "list, per league, the matches added, removed, changed or moved and every "
                                   "player whose rating, rank or tier changed. Exit 0 when compared, 1 on "
                                   "invalid input at either revision, 2 for an unknown revision, a folder "
                                   "outside a git work tree or no git.")
    common(d)
    d.add_argument("rev_a", metavar="REV_A", help="the revision before: a branch, tag, SHA, HEAD~1, ...")
    d.add_argument("rev_b", metavar="REV_B", nargs="?",
                   help="the revision after; default: the working tree (the files on disk, "
                        "committed or not)")
    d.add_argument("--format", choices=("text", "markdown", "csv", "json"), default="text",
                   help="text for a terminal (default), markdown for a GitHub job summary, "
                        "csv or json for tools")
    d.set_defaults(func=cmd_diff)

    n = sub.add_parser("new-match", help="print a [[match]] table of a league, ready to fill in",
                       description="Print a [[match]] table shaped for the league's rating system, every "
                                   "value commented with what is allowed, or append it to a match file. "
                                   "With player names it passes `sitegen check` as printed (placeholder "
                                   "numbers: a draw, a shared place); without them the names are left "
                                   "empty. Exit 0 when done, 1 when the file cannot take it, 2 on a bad "
                                   "argument or an unknown league.")
    common(n)
    n.add_argument("league", help="the league's folder name under matches/ (its slug)")
    n.add_argument("--player", action="append", metavar="NAME",
                   help="a player, in order; repeat it for each (arena: each player is a team of one). "
                        "A name starting with '-' is written --player=NAME")
    n.add_argument("--team", action="append", nargs="+", metavar="NAME",
                   help="arena: the players of one team; repeat it for each team, the winners first")
    n.add_argument("--played", metavar="DATE",
                   help="when it was played: 2024-05-01T19:30:00+02:00, 2024-05-01T17:30:00Z, "
                        "2024-05-01T19:30 (UTC) or 2024-05-01; default: now, in UTC")
    n.add_argument("--id", help="an explicit match id (letters, digits, '.', '_', '-'; unique in the league)")
    n.add_argument("--append", type=Path, metavar="FILE",
                   help="append to this match file under matches/LEAGUE/ (created if missing) "
                        "instead of printing")
    n.set_defaults(func=cmd_new_match)

    m = sub.add_parser("matchmake", help="lobbies from a queue of players, printed as CSV or JSON",
                       description="Rate the league, read a queue file (now, lobby_size, platform_mode, "
                                   "[[ticket]] tables) and print the lobbies the seed's matchmaking forms: "
                                   "one row per ticket, waiting tickets with an empty lobby. Writes nothing. "
                                   "Exit 0 when done, 1 on an invalid site or queue file, 2 on a bad argument "
                                   "or an unknown league.")
    common(m)
    m.add_argument("league", help="the league's folder name under matches/ (its slug)")
    m.add_argument("queue", metavar="QUEUE", help="the queue file (TOML), anywhere on disk")
    m.add_argument("--format", choices=("csv", "json"), default="csv", help="csv (default) or json")
    m.add_argument("--all", action="store_true", help="list every problem, also past a few dozen of one kind")
    m.set_defaults(func=cmd_matchmake)

    t = sub.add_parser("tune", help="how well the ratings would predict with other parameters",
                       description="Replay the league once for every combination of the values given "
                                   "(all cores at once) and print each one's log loss, Brier score and "
                                   "accuracy (share of predictions on the right side of 50%, ties half), "
                                   "scored as data/LEAGUE/accuracy.csv scores the league's own. Writes "
                                   "nothing. Exit 0 when done, 1 on an invalid site (or a combination whose "
                                   "math runs away), 2 on an unknown league, parameter or value.")
    common(t)
    t.add_argument("league", help="the league's folder name under matches/ (its slug)")
    t.add_argument("--param", action="append", metavar="NAME=V1,V2",
                   help="a parameter of the league's system and the values to try, such as k=10,20,32,40; "
                        "repeat it for more parameters (every combination is replayed)")
    t.add_argument("--format", choices=("text", "csv", "json"), default="text",
                   help="text for a terminal (default), csv or json for tools")
    t.add_argument("--all", action="store_true", help="list every problem, also past a few dozen of one kind")
    t.set_defaults(func=cmd_tune)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    # SITEGEN_JIT=0 or 1: the rating kernels never or always compiled (default: long leagues).
    arrays.MODE = {"0": "off", "1": "on"}.get(os.environ.get("SITEGEN_JIT", ""), "auto")
    try:
        return args.func(args)
    except KeyboardInterrupt:
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # Python would complain again when it flushes stdout at exit: point it at nothing.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_PIPE
    except Exception as exc:    # noqa: BLE001 - the one place every unexpected error ends
        return internal_error(exc)


def script() -> None:
    """The ``sitegen`` command: ``main``, then the process ends at once. A build's models are
    held to this end (collector.hold) and go with the process, not freed object by object;
    the output is complete and the cache written before ``main`` returns."""
    collector.hold_to_exit()
    code = main()
    atexit._run_exitfuncs()     # what was registered to run at exit still runs (a profiler's report)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):       # a closed pipe: there is nothing left to say
        code = code or EXIT_PIPE
    os._exit(code)


def internal_error(exc: BaseException) -> int:
    """An error no input should cause: one line (a traceback only when asked for), exit 3.

    Exit 1 means "fix your files"; a bug must not look like that to a curator or to CI.
    """
    if os.environ.get(DEBUG_VARIABLE) == "1":
        traceback.print_exception(exc, file=sys.stderr)
    detail = visible(f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)
    if len(detail) > 300:
        detail = detail[:299] + "…"
    hint = "" if os.environ.get(DEBUG_VARIABLE) == "1" else f"; rerun with {DEBUG_VARIABLE}=1 for the traceback"
    print(f"sitegen: internal error ({detail}): this is a bug in sitegen, not a problem in your "
          f"files{hint}", file=sys.stderr)
    return EXIT_INTERNAL


if __name__ == "__main__":
    script()
