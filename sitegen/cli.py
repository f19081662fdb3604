"""The command line: parse arguments, call the pipeline, set the exit code (CONTRACT section 6)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import __version__
from .problems import InvalidInput

EXIT_OK, EXIT_INVALID = 0, 1


def _report(exc: InvalidInput, *, wrote: bool, root: Path | None = None) -> int:
    """The problems on stderr, one line each; on a GitHub runner also as annotations on stdout.

    ``root`` is the site root the problems' paths are relative to (default: the current folder).
    """
    from . import annotations

    n = len(exc.problems)
    tail = "; the previous output was left untouched." if wrote else "."
    with annotations.commands_stopped():    # the lines quote the input: no workflow command in them
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        print(f"sitegen: {n} problem{'s' if n != 1 else ''} found{tail}", file=sys.stderr)
    annotations.annotate(exc.problems, root or Path.cwd())
    return EXIT_INVALID


def _root(value: str) -> Path:
    return Path(value).resolve()


def cmd_build(args: argparse.Namespace) -> int:
    from .build import build

    out = args.out or args.root / "_site"
    try:
        output = build(args.root, out, base_url=args.base_url)
    except InvalidInput as exc:
        return _report(exc, wrote=True, root=args.root)
    except OSError as exc:
        print(f"sitegen: cannot write {out}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_INVALID
    print(f"sitegen: built {len(output.sizes)} files into {out}")
    return EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    from .build import check

    try:
        site = check(args.root)
    except InvalidInput as exc:
        return _report(exc, wrote=False, root=args.root)
    matches = sum(len(lg.matches) for lg in site.leagues)
    print(f"sitegen: {len(site.leagues)} leagues, {matches} matches: all valid")
    return EXIT_OK


def cmd_serve(args: argparse.Namespace) -> int:
    from .serve import serve

    try:
        return serve(args.root, args.out or args.root / "_site", host="127.0.0.1", port=args.port,
                     base_url=args.base_url)
    except OSError as exc:
        print(f"sitegen: cannot serve on 127.0.0.1:{args.port}: {exc.strerror or exc}; "
              "try another --port", file=sys.stderr)
        return EXIT_INVALID


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

    b = sub.add_parser("build", help="validate, rate and write the site",
                       description="Validate every match file, rate every league and write the site. "
                                   "Exit 0 when built, 1 on invalid input (the old output is left untouched).")
    common(b)
    b.add_argument("--out", type=_root, help="output folder; default: ROOT/_site")
    b.add_argument("--base-url", help="absolute URL the site is served from (for feeds and the sitemap); "
                                      "default: base_url in [tool.sitegen]")
    b.set_defaults(func=cmd_build)

    c = sub.add_parser("check", help="validate only, write nothing",
                       description="Validate every file and report every problem, one line each. "
                                   "Exit 0 when valid, 1 when not.")
    common(c)
    c.set_defaults(func=cmd_check)

    s = sub.add_parser("serve", help="preview on 127.0.0.1, rebuilding when a file changes",
                       description="Build the site, serve it on http://127.0.0.1:PORT/ and rebuild whenever "
                                   "a match, content or template file changes. Ctrl-C stops it.")
    common(s)
    s.add_argument("--out", type=_root, help="output folder; default: ROOT/_site")
    s.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    s.add_argument("--base-url", help="serve under this URL's path, as the site will be published "
                                      "(https://owner.github.io/repo/ is served at /repo/); "
                                      "default: base_url in [tool.sitegen]")
    s.set_defaults(func=cmd_serve)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
