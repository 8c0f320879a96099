#!/usr/bin/env python3
"""Checks every local link of the built Doxygen site (ctest docs.links, after docs.build): each href
and src of every page that is not an address elsewhere (http:, https:, mailto:, javascript:, ...)
names a file of the site (a srcset: one file, as make_pages.py writes it), and its #anchor, if any,
an id or name in that file (or in the page itself
for "#anchor"). A broken link is one line "check_links.py: PAGE: LINK: why", and exit status 1.

    check_links.py --html BUILD/docs/html      (exit status 0: fine, 1: broken links)
"""
import argparse
import glob
import html
import os
import re
import sys
from urllib.parse import unquote

ATTR = re.compile(r"""<(?:a|img|link|script|iframe|area|source)\b[^>]*?\b(href|src|srcset)\s*=\s*(["'])(.*?)\2""", re.I | re.S)
ANCHOR = re.compile(r"""\b(?:id|name)\s*=\s*(["'])(.*?)\1""", re.I)
ELSEWHERE = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--html", required=True)
    a = p.parse_args(argv)
    root = os.path.realpath(a.html)
    pages = sorted(glob.glob(os.path.join(root, "**", "*.html"), recursive=True))
    if not pages:
        print(f"check_links.py: {a.html}: no pages (build the docs first)", file=sys.stderr)
        return 1
    texts, anchors = {}, {}

    def text_of(path):
        if path not in texts:
            with open(path, encoding="utf-8", errors="replace") as f:
                texts[path] = f.read()
        return texts[path]

    def anchors_of(path):
        if path not in anchors:
            anchors[path] = {html.unescape(m.group(2)) for m in ANCHOR.finditer(text_of(path))}
        return anchors[path]

    broken, links = [], 0
    for page in pages:
        name = os.path.relpath(page, root)
        for m in ATTR.finditer(text_of(page)):
            link = html.unescape(m.group(3)).strip()
            if not link or ELSEWHERE.match(link):
                continue
            links += 1
            target, _, anchor = link.partition("#")
            target = unquote(target.split("?", 1)[0])
            path = page if not target else os.path.realpath(os.path.join(os.path.dirname(page), target))
            if not path.startswith(root + os.sep) and path != root:
                broken.append(f"{name}: {link}: outside the site")
            elif not os.path.isfile(path):
                broken.append(f"{name}: {link}: no such file in the site")
            elif anchor and path.endswith(".html") and unquote(anchor) not in anchors_of(path):
                broken.append(f"{name}: {link}: {os.path.relpath(path, root)} has no anchor '{anchor}'")
    for item in broken:
        print(f"check_links.py: {item}", file=sys.stderr)
    print(f"check_links.py: {len(pages)} pages, {links} local links, {len(broken)} broken")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
