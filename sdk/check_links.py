"""Check the links of a generated HTML site (the API references `make docs` writes).

Every relative `href` or `src` must name a file of the site, and its `#fragment`, if any, an `id`
(or `name`) in that file. Links with a scheme (https:, mailto:, ...) are not fetched: the check
runs offline.

    python sdk/check_links.py SITE_DIR [SITE_DIR...]      exit 1 and one line per broken link
"""

from __future__ import annotations

import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit


class _Page(HTMLParser):
    """The links and anchors of one HTML page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.anchors: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name in ("id", "name"):
                self.anchors.add(value)
            elif name in ("href", "src") and tag in ("a", "link", "script", "img"):
                self.links.append(value)


def _parse(path: Path, cache: dict[Path, _Page]) -> _Page:
    if path not in cache:
        page = _Page()
        page.feed(path.read_text(encoding="utf-8", errors="replace"))
        cache[path] = page
    return cache[path]


def broken_links(site: Path) -> list[str]:
    """One line per broken relative link in the HTML files under `site`."""
    cache: dict[Path, _Page] = {}
    problems = []
    for page_path in sorted(site.rglob("*.html")):
        for link in _parse(page_path, cache).links:
            parts = urlsplit(link)
            if parts.scheme or link.startswith("//"):
                continue  # external: not fetched
            target = page_path if not parts.path else (page_path.parent / unquote(parts.path))
            target = target.resolve()
            where = f"{page_path.relative_to(site)}: {link}"
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                problems.append(f"{where}: no such file")
            elif (
                parts.fragment
                and target.suffix == ".html"
                and unquote(parts.fragment) not in _parse(target, cache).anchors
            ):
                problems.append(f"{where}: no anchor #{parts.fragment}")
    return problems


def main(argv: list[str]) -> int:
    """Check every site named on the command line; print the broken links."""
    if not argv:
        print("usage: check_links.py SITE_DIR [SITE_DIR...]", file=sys.stderr)
        return 2
    problems = [f"{site}/{line}" for site in argv for line in broken_links(Path(site))]
    for line in problems:
        print(line)
    pages = sum(1 for site in argv for _ in Path(site).rglob("*.html"))
    print(f"{pages} pages, {len(problems)} broken links", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
