"""Screenshots of the demo site as a phone and a laptop show it, light and dark.

Serves a built site (default: builds the demo into a temporary folder) on
127.0.0.1 and saves, for each of home, the biggest leaderboard, the busiest
player, a match and a spec page, a PNG at 390 x 844 (a phone) and 1366 x 900
(a laptop), in light and dark colour schemes: 20 files in OUT. The first
screen is what the reader judges a page by, so only the viewport is captured
unless --full is given.

    .venv/bin/python scripts/screenshots.py --out /tmp/shots [--site _site] [--full]
"""

from __future__ import annotations

import argparse
import csv
import posixpath
import re
import functools
import tempfile
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from playwright.sync_api import sync_playwright

from sitegen.commands.build import build

REPO = Path(__file__).resolve().parent.parent
VIEWPORTS = {"phone": (390, 844), "laptop": (1366, 900)}


def busiest(site: Path, league: str) -> str:
    """The player of ``league`` with the most games: the longest table and chart."""
    with open(site / "data" / league / "standings.csv", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return max(rows, key=lambda r: int(r["games"]))["player"]


def pages(site: Path) -> dict[str, str]:
    """Page name -> path, found from the built site rather than assumed."""
    from sitegen.model.views import player_slugs
    player = busiest(site, "ranked-battle")
    slug = player_slugs([player])[player]
    # The newest race as the results page links it: its match file's page, at its anchor.
    results = (site / "leagues" / "formula-1" / "results" / "index.html").read_text(encoding="utf-8")
    link = re.search(r'href="([^"]*matches/[^"]*#m-[^"]*)"', results)
    assert link, "no match link on the formula-1 results page"
    match = posixpath.normpath(posixpath.join("/leagues/formula-1/results/", link.group(1).split("#")[0]))
    match += "/#" + link.group(1).split("#")[1]
    return {
        "home": "/",
        "leaderboard": "/leagues/formula-1/",
        "player": f"/leagues/ranked-battle/players/{slug}/",
        "match": match,
        "spec": "/spec/elo/",
    }


def serve(site: Path) -> ThreadingHTTPServer:
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(site))
    handler.log_message = lambda *a: None   # type: ignore[method-assign]
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--site", type=Path, help="a built site (default: build the demo)")
    parser.add_argument("--full", action="store_true", help="whole pages, not only the first screen")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        site = args.site
        if site is None:
            site = Path(tmp) / "site"
            build(REPO, site)
        server = serve(site)
        base = f"http://127.0.0.1:{server.server_port}"
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=args.chromium, headless=True,
                                        args=["--no-sandbox", "--disable-gpu"])
            for name, path in pages(site).items():
                for device, (w, h) in VIEWPORTS.items():
                    for scheme in ("light", "dark"):
                        page = browser.new_page(viewport={"width": w, "height": h}, color_scheme=scheme,
                                                is_mobile=device == "phone", has_touch=device == "phone")
                        page.goto(base + path, wait_until="networkidle")
                        file = args.out / f"{name}-{device}-{scheme}.png"
                        page.screenshot(path=str(file), full_page=args.full)
                        page.close()
                        print(file)
            browser.close()
        server.shutdown()


if __name__ == "__main__":
    main()
