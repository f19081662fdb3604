"""Lighthouse scores of the demo site, as a first visit on a phone gets them.

Builds the demo (this repository's matches/ and content/) into a temporary
folder, serves it on 127.0.0.1 with a plain http.server (no compression, as the
cheapest static host would) and runs Lighthouse, with its default mobile form
factor and simulated throttling, on three pages:

* the ranked-battle leaderboard;
* the page of the ranked-battle player with the most games (the longest
  chart and table of games);
* the formula-1 leaderboard;
* the football leaderboard and the page of its team with the most games, the
  biggest league of the demo (49,000 matches; a team of a thousand games).

It prints the four category scores, LCP, TBT and CLS, the bytes the first
visit transferred (Lighthouse's total-byte-weight) and what the same files
weigh gzipped (compressed here, level 6 as web servers default to), since most
hosts compress and this server does not. It exits with 1 when a page misses a
target (performance 95, accessibility, best practices and SEO 100) and lists
the audits that cost points.

Lighthouse comes from its own package beside this script, scripts/lighthouse/
(the repository's root package.json holds only what `make test` needs):
`npm ci` there installs the version pinned in its package.json and
package-lock.json (its dependency @paulirish/trace_engine asks for the moving
"latest" tag of two packages, which package.json overrides with the versions
Lighthouse itself uses, so that `npm ci` keeps installing the locked tree).
Chromium is Debian's /usr/bin/chromium (CHROME_PATH to change it).

    make lighthouse      # npm ci in scripts/lighthouse, then this script
"""

from __future__ import annotations

import argparse
import csv
import functools
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

from sitegen.commands.build import build
from sitegen.model.views import player_slugs

REPO = Path(__file__).resolve().parent.parent
NODE_PACKAGE = REPO / "scripts" / "lighthouse"
LIGHTHOUSE = NODE_PACKAGE / "node_modules" / ".bin" / "lighthouse"
CHROME_FLAGS = "--headless=new --no-sandbox --disable-gpu"
CATEGORIES = ("performance", "accessibility", "best-practices", "seo")
TARGETS = {"performance": 95, "accessibility": 100, "best-practices": 100, "seo": 100}
GZIP_LEVEL = 6


@dataclass
class Result:
    label: str
    path: str
    scores: dict[str, int]
    lcp_ms: float
    tbt_ms: float
    cls: float
    transferred: int              # total-byte-weight
    gzipped: int                  # the same site files, gzipped
    failing: list[str]            # "category: audit title (display value)"


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the signature of the base class
        pass


def busiest_player(site: Path, league: str) -> str:
    """The slug of the league's player with the most games (the first of them in standings order)."""
    with open(site / "data" / league / "standings.csv", encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    name = max(rows, key=lambda r: int(r["games"]))["player"]
    return player_slugs([r["player"] for r in rows])[name]


def gzipped_size(site: Path, report: dict, origin: str) -> int:
    """The files of the site the visit loaded, gzipped: what a compressing host would send."""
    total = 0
    for item in report["audits"]["network-requests"]["details"]["items"]:
        url = item["url"]
        if not url.startswith(origin):
            continue
        path = unquote(urlsplit(url).path)[len(urlsplit(origin).path):]
        file = site / path
        if file.is_dir():
            file = file / "index.html"
        if file.is_file():
            total += len(gzip.compress(file.read_bytes(), compresslevel=GZIP_LEVEL, mtime=0))
    return total


def failing_audits(report: dict) -> list[str]:
    """Every scored audit that lost points in a category that missed its target."""
    found = []
    for cat in CATEGORIES:
        category = report["categories"][cat]
        if round(category["score"] * 100) >= TARGETS[cat]:
            continue
        for ref in category["auditRefs"]:
            audit = report["audits"][ref["id"]]
            if audit.get("score") is None or audit["scoreDisplayMode"] in ("informative", "manual",
                                                                          "notApplicable"):
                continue
            if audit["score"] < 1 and (ref["weight"] > 0 or cat != "performance"):
                shown = f" ({audit['displayValue']})" if audit.get("displayValue") else ""
                found.append(f"{cat}: {audit['title']}{shown} [{ref['id']}, score {audit['score']:.2f}]")
                found += [f"    {node}" for node in offending_nodes(audit)]
    return found


def offending_nodes(audit: dict, shown: int = 3) -> list[str]:
    """The first elements an accessibility or SEO audit blames, as selector and snippet."""
    items = (audit.get("details") or {}).get("items") or []
    nodes = [item["node"] for item in items if isinstance(item.get("node"), dict)]
    lines = [f"{n.get('selector', '?')}  {n.get('snippet', '')[:120]}" for n in nodes[:shown]]
    if len(nodes) > shown:
        lines.append(f"... and {len(nodes) - shown} more")
    return lines


def run_lighthouse(url: str, out: Path) -> dict:
    env = dict(os.environ)
    env.setdefault("CHROME_PATH", "/usr/bin/chromium")
    cmd = [str(LIGHTHOUSE), url, "--output=json", f"--output-path={out}", "--quiet",
           f"--chrome-flags={CHROME_FLAGS}", f"--only-categories={','.join(CATEGORIES)}"]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    if done.returncode != 0 or not out.is_file():
        raise SystemExit(f"lighthouse failed on {url}:\n{done.stderr[-3000:]}")
    report = json.loads(out.read_text(encoding="utf-8"))
    if report.get("runtimeError"):
        raise SystemExit(f"lighthouse could not load {url}: {report['runtimeError']}")
    return report


def measure(label: str, site: Path, origin: str, path: str, work: Path) -> Result:
    report = run_lighthouse(origin + path, work / f"{label}.json")
    audits = report["audits"]
    return Result(
        label=label, path=path,
        scores={c: round(report["categories"][c]["score"] * 100) for c in CATEGORIES},
        lcp_ms=audits["largest-contentful-paint"]["numericValue"],
        tbt_ms=audits["total-blocking-time"]["numericValue"],
        cls=audits["cumulative-layout-shift"]["numericValue"],
        transferred=int(audits["total-byte-weight"]["numericValue"]),
        gzipped=gzipped_size(site, report, origin),
        failing=failing_audits(report),
    )


def table(results: list[Result]) -> str:
    head = ["page", "perf", "a11y", "best", "seo", "LCP ms", "TBT ms", "CLS", "transferred", "gzipped"]
    rows = [[r.label, *(str(r.scores[c]) for c in CATEGORIES), f"{r.lcp_ms:.0f}", f"{r.tbt_ms:.0f}",
             f"{r.cls:.3f}", f"{r.transferred / 1024:,.0f} KiB", f"{r.gzipped / 1024:,.0f} KiB"]
            for r in results]
    widths = [max(len(row[i]) for row in [head, *rows]) for i in range(len(head))]

    def line(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))

    return "\n".join([line(head), line(["-" * w for w in widths]), *map(line, rows)])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reports", type=Path, metavar="DIR",
                        help="keep Lighthouse's JSON reports in DIR (for the details of every audit)")
    args = parser.parse_args()
    if not LIGHTHOUSE.exists():
        print(f"{LIGHTHOUSE} is missing: run `npm ci` in {NODE_PACKAGE} (or `make lighthouse`)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="sitegen-lighthouse-") as tmp:
        work = Path(tmp)
        site = work / "site"
        print("building the demo site ...", file=sys.stderr)
        build(REPO, site)
        server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(site)))
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        origin = f"http://127.0.0.1:{server.server_address[1]}/"
        pages = [
            ("ranked-battle", "leagues/ranked-battle/"),
            ("ranked-battle player", f"leagues/ranked-battle/players/{busiest_player(site, 'ranked-battle')}/"),
            ("formula-1", "leagues/formula-1/"),
            ("football", "leagues/football/"),
            ("football team", f"leagues/football/players/{busiest_player(site, 'football')}/"),
        ]
        results = []
        try:
            for label, path in pages:
                print(f"lighthouse: /{path} ...", file=sys.stderr)
                results.append(measure(label, site, origin, path, work))
        finally:
            server.shutdown()
            server.server_close()
        if args.reports:
            args.reports.mkdir(parents=True, exist_ok=True)
            for r in results:
                shutil.copyfile(work / f"{r.label}.json", args.reports / f"{r.label.replace(' ', '-')}.json")

    print(table(results))
    print()
    for r in results:
        print(f"{r.label}: /{r.path}")
    print(f"targets: performance >= {TARGETS['performance']}, accessibility, best-practices and seo = 100; "
          f"transferred is what http.server sent (no compression), gzipped the same files at level {GZIP_LEVEL}")
    missed = [r for r in results if any(r.scores[c] < TARGETS[c] for c in CATEGORIES)]
    for r in missed:
        print(f"\n{r.label} misses a target; audits that lost points:")
        for f in r.failing:
            print(f"  {f}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
