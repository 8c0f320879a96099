#!/usr/bin/env python3
"""Tests of make_pages.py (ctest: docs.make_pages): on a made-up repository of two sections, the
page gets the code cut from the kernel (without the TODO markers, comments wrapped), the counts of
the run, the figure and the previous/next links; a README out of date is found (--check) and
refreshed (--update); a figure that was not drawn and an anchor that matches nothing are errors
with --strict."""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
failures = []


def check(condition, what):
    print(("ok    " if condition else "FAIL  ") + what)
    if not condition:
        failures.append(what)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def run(root, gen, *args):
    return subprocess.run([sys.executable, os.path.join(HERE, "make_pages.py"), "--root", root, "--generated", gen,
                           *args], capture_output=True, text=True, timeout=60)


def main():
    with tempfile.TemporaryDirectory(prefix="scanlab_pages_") as tmp:
        root, gen, out, figs = (os.path.join(tmp, d) for d in ("repo", "gen", "out", "figs"))
        write(f"{root}/chapters/sections.txt", "# comment\n11_1_first   First section\n11_2_second  Second one\n")
        write(f"{root}/solutions/11_2_second/k.cuh", "void f() {\n  for (int s = 1; s < 8; s *= 2) {\n"
              "    // TODO(student) begin: a hint\n    // that goes on\n    work(s);  " + "// " + "word " * 25 + "\n"
              "    // TODO(student) end\n  }\n}\n")
        write(f"{root}/chapters/11_1_first/README.md", "# 11.1 First\n\nText.\n")
        readme = f"{root}/chapters/11_2_second/README.md"
        write(readme, "# 11.2 Second\n\n<!-- gen nav --><!-- /gen -->\n\n<!-- gen code k.cuh \"for (int s = 1\" -->"
              "<!-- /gen -->\n\n<!-- gen counts 11.2 --><!-- /gen -->\n\nApplications: <!-- gen value 11.2 a ops -->"
              "<!-- /gen -->.\n\n<!-- figure fig_a What it shows. -->\n")
        write(f"{gen}/counts_11.2.json", json.dumps([{"algorithm": "a", "n": 8, "launches": 1, "ops": 17,
                                                     "barrier_intervals": 7, "steps": 3}]))
        write(f"{figs}/fig_a.png", "png")

        r = run(root, gen, "--check")
        check(r.returncode == 1 and "11_2_second/README.md" in r.stderr, "--check finds the README out of date")
        r = run(root, gen, "--update")
        check(r.returncode == 0, f"--update exits 0 ({r.stderr.strip()})")
        text = open(readme, encoding="utf-8").read()
        check("for (int s = 1; s < 8; s *= 2) {" in text and "TODO(student)" not in text,
              "the README's copy has the loop, without the TODO markers")
        check(all(len(line) <= 96 for line in text.splitlines() if not line.startswith("<!--")),
              "the long trailing comment is wrapped to 96 characters")
        check("| `a` | 8 | 1 | 17 | 7 | 3 |" in text and "Applications: <!-- gen value 11.2 a ops -->17" in text,
              "the counts and the value come from the run")
        check("[11.1 First section](../11_1_first/README.md)" in text, "the README links the previous section")
        r = run(root, gen, "--check")
        check(r.returncode == 0, "after --update, --check passes")

        r = run(root, gen, "--out", out, "--figures", figs, "--strict")
        check(r.returncode == 0, f"the pages are made ({r.stderr.strip()})")
        page = open(f"{out}/section_11_2_second.md", encoding="utf-8").read()
        check(page.startswith("11.2 Second {#sec_11_2}") and "<!--" not in page, "the page has its label, no comments")
        check('\\image html fig_a.png "What it shows."' in page, "the figure is in the page")
        check('\\ref sec_11_1 "11.1 First section"' in page, "the page links the previous section")
        first = open(f"{out}/section_11_1_first.md", encoding="utf-8").read()
        check('next: \\ref sec_11_2 "11.2 Second one"' in first, "a README without gen nav still gets the links")

        os.remove(f"{figs}/fig_a.png")
        r = run(root, gen, "--out", out, "--figures", figs, "--strict")
        check(r.returncode == 1 and "fig_a.png was not drawn" in r.stderr, "--strict: a missing figure is an error")
        write(f"{root}/solutions/11_2_second/k.cuh", "void f() {}\n")
        r = run(root, gen, "--out", out, "--figures", figs, "--strict")
        check(r.returncode == 1 and "no line holds" in r.stderr, "--strict: an anchor that matches nothing is an error")
    print(f"{len(failures)} check(s) failed" if failures else "all make_pages checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
