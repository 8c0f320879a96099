#!/usr/bin/env python3
"""Checks the built Doxygen site (ctest docs.site, after docs.build) as a reader meets it:

- every <img> has alt text, and the image it shows is in the site;
- every figure a section page draws (in a div.scanlab-figure) links to its full-size image and has a
  min-width, so that its smallest text is never shown under 10 px (make_pages.py's min_width_px),
  and a narrow rendering for a phone that fits its 400-px column with the same 10 px;
- every section page (sec_11_*.html, one per line of chapters/sections.txt) shows its questions with
  their answers: at least 3 <details> blocks, each with a <summary>, closed (no `open`) and holding
  the answer's text, none cut off by a paragraph (Doxygen 1.9 would close one that a paragraph
  opened).

    check_site.py --root REPO --html BUILD/docs/html      (exit status 0: fine, 1: problems)
"""
import argparse
import glob
import os
import re
import sys

IMG = re.compile(r"<img\b[^>]*>", re.I)
# A figure of make_plots.py on a page: its image inside a link to the same file.
FIGURE = re.compile(r'<div class="scanlab-figure"><a href="([^"]+)">(?:<picture>(<source\b[^>]*>))?(<img\b[^>]*>)'
                    r'(?:</picture>)?</a>', re.I)
NARROW_COLUMN_PX = 400  # a phone's column, 420 px wide (make_pages.py and make_plots.py draw for it)
DETAILS = re.compile(r"<details\b([^>]*)>(.*?)</details>", re.S | re.I)


def narrow_problems(site, src, source):
    """What keeps a figure from fitting a phone: no narrow rendering (<source> of a <picture>), its file
    not in the site, or a data-min-width over NARROW_COLUMN_PX (its text would be under 10 px there)."""
    if not source:
        return [f"the figure {src} has no narrow rendering for a phone (make_plots.py's STEM.narrow.png)"]
    small = re.search(r'\bsrcset="([^"]+)"', source)
    width = re.search(r'\bdata-min-width="([0-9]+)"', source)
    if not small or not os.path.isfile(os.path.join(site, small.group(1))):
        return [f"the narrow rendering of {src} is not in the site"]
    if not width or int(width.group(1)) > NARROW_COLUMN_PX:
        return [f"the narrow rendering of {src} needs {width.group(1) if width else '?'} px, more than a phone's "
                f"{NARROW_COLUMN_PX}-px column"]
    return []


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--root", required=True)
    p.add_argument("--html", required=True)
    a = p.parse_args(argv)
    problems = []
    pages = sorted(glob.glob(os.path.join(a.html, "*.html")))
    if not pages:
        problems.append(f"{a.html}: no pages (build the docs first)")
    for path in pages:
        name = os.path.basename(path)
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        for tag in IMG.findall(text):
            alt = re.search(r'\balt="([^"]*)"', tag)
            if not alt or not alt.group(1).strip():
                problems.append(f"{name}: an image without alt text: {tag}")
            src = re.search(r'\bsrc="([^"]+)"', tag)
            if src and not re.match(r"^[a-z]+:", src.group(1)) and \
                    not os.path.isfile(os.path.join(a.html, src.group(1).split("#")[0])):
                problems.append(f"{name}: {src.group(1)} is not in the site")
        for src, source, tag in FIGURE.findall(text):
            if not re.search(r'\bstyle="min-width: *[0-9]+px"', tag):
                problems.append(f"{name}: the figure {src} has no min-width (its text would shrink with the column)")
            problems += [f"{name}: {p}" for p in narrow_problems(a.html, src, source)]
    with open(os.path.join(a.root, "chapters", "sections.txt"), encoding="utf-8") as f:
        folders = [line.split()[0] for line in f if line.strip() and not line.startswith("#")]
    for folder in folders:
        name = "sec_" + "_".join(folder.split("_")[:2]) + ".html"
        path = os.path.join(a.html, name)
        if not os.path.isfile(path):
            problems.append(f"{name}: missing (the page of chapters/{folder})")
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        blocks = DETAILS.findall(text)
        if len(blocks) < 3:
            problems.append(f"{name}: {len(blocks)} answers shown (<details> blocks); every question needs one")
        if text.count("<details") != text.count("</details>"):
            problems.append(f"{name}: {text.count('<details')} <details> against {text.count('</details>')} </details>")
        for attrs, inner in blocks:
            summary = re.match(r"\s*<summary>(.*?)</summary>(.*)", inner, re.S)
            if "open" in attrs:
                problems.append(f"{name}: an answer is open from the start")
            if not summary:
                problems.append(f"{name}: an answer without its <summary>: {inner[:80]!r}")
            elif not re.sub(r"<[^>]+>", "", summary.group(2)).strip():
                problems.append(f"{name}: an empty answer under '{summary.group(1)}' (cut off by a paragraph?)")
    for item in problems:
        print(f"check_site.py: {item}", file=sys.stderr)
    print(f"check_site.py: {len(pages)} pages, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
