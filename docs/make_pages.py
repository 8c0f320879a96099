#!/usr/bin/env python3
"""Turns each section's README (chapters/<folder>/README.md) into its page of the Doxygen site.

    make_pages.py --root REPO --out DIR --generated DIR --figures DIR [--exercises] [--strict]
    make_pages.py --root REPO --generated DIR --update      # refresh the READMEs' generated parts
    make_pages.py --root REPO --generated DIR --check       # fail if a README is out of date

The README is the one text of a section: it reads well on a Git host, and this script makes the
Doxygen page from it (DIR/section_<folder>.md). chapters/sections.txt gives the order. HTML comments
in the README, which a Git host does not show, mark what is generated:

  <!-- gen code FILE "FIRST" ["LAST"] -->  ```cpp ... ``` <!-- /gen -->
        the lines of FILE (solutions/<folder>/ or chapters/<folder>/) from the first line holding
        FIRST to the line holding LAST, or else to the brace that closes FIRST's line; dedented
  <!-- gen counts SECTION -->  table  <!-- /gen -->
        what the emulator counted when the docs were built (GENERATED/counts_<section>.json, written
        by the section program with --json on the cpu backend)
  <!-- gen value SECTION ALGORITHM FIELD -->9217<!-- /gen -->
        one number of that run (FIELD: ops, barrier_intervals, steps, launches, n)
  <!-- gen work ALGORITHM N FIELD -->289<!-- /gen -->
        one number of scanlab_11_3's work file (GENERATED/data/11.3.json): FIELD is a dotted path into
        its row (work_measured, steps_unlimited, steps.32.thread, ...)
  <!-- gen examples --> table <!-- /gen -->
        the book's worked examples of Sec. 11.3 against the steps measured
  <!-- gen trace NAME --> ``` ... ``` <!-- /gen -->
        a trace of the example array (GENERATED/trace_NAME.txt, docs/run_trace.cmake)
  <!-- gen nav -->  links  <!-- /gen -->
        the previous and next section
  <!-- figure STEM caption -->
        the figure STEM.png (drawn by plots/make_plots.py into FIGURES) with its caption; only on the
        Doxygen page (a Git host has no build to take it from)

The text between a `gen` comment and `<!-- /gen -->` is the README's copy, for the Git host (and for
a build that makes no runs, --committed). The page gets the generated text. A copy that differs from
it is a warning (an error with --check, ctest docs.readmes; --update refreshes it); with --strict a
code anchor that matches nothing, a missing run or a figure that was not drawn is an error. Other
pages (docs/pages/*.md) go through the same expansion, plus `<!-- gen sections -->`, the table of
the section pages. Code lines come without the exercise's TODO(student) markers, and comments are
wrapped to WIDTH characters.
"""
import argparse
import glob
import json
import os
import re
import sys

PROG = "make_pages.py"
WIDTH = 96  # the widest code line a page shows without a scroll bar
GEN = re.compile(r"<!--\s*gen\s+(.*?)\s*-->(.*?)<!--\s*/gen\s*-->", re.S)
FIGURE = re.compile(r"<!--\s*figure\s+(\S+)\s+(.*?)\s*-->", re.S)
LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
# Figures drawn from the GPU runs committed in plots/data/ (any build can draw them); the others are
# drawn from the emulator's runs of the docs build.
GPU_FIGURES = ("bandwidth_", "kogge_stone_variants", "kogge_stone_vs_brent_kung", "coarsened_shapes",
               "hierarchical_bandwidth", "single_pass_bandwidth", "decoupled_lookback_bandwidth")
FIELDS = {"ops": "operator applications", "barrier_intervals": "barrier intervals", "steps": "steps",
          "launches": "launches", "n": "n"}


class Problems:
    def __init__(self):
        self.items = []

    def add(self, where, text):
        self.items.append(f"{where}: {text}")


def read_sections(root):
    sections = []
    with open(os.path.join(root, "chapters", "sections.txt"), encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                folder, title = line.split(None, 1)
                sid = ".".join(folder.split("_")[:2])
                sections.append({"folder": folder, "title": title.strip(), "id": sid,
                                 "label": "sec_" + folder.split("_")[0] + "_" + folder.split("_")[1]})
    return sections


def args_of(text):
    """The words of a directive; "quoted strings" stay whole."""
    return [a[1:-1] if a.startswith('"') else a for a in re.findall(r'"[^"]*"|\S+', text)]


def code_lines(path, first, last):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    start = next((k for k, line in enumerate(lines) if first in line), None)
    if start is None:
        return None, f"no line holds {first!r}"
    end = None
    if last:
        end = next((k for k in range(start, len(lines)) if last in lines[k]), None)
        if end is None:
            return None, f"no line after {first!r} holds {last!r}"
    else:
        depth, opened = 0, False
        for k in range(start, len(lines)):
            depth += lines[k].count("{") - lines[k].count("}")
            opened = opened or "{" in lines[k]
            if opened and depth <= 0:
                end = k
                break
        if end is None:
            return None, f"the brace opened after {first!r} never closes"
    chunk = lines[start:end + 1]
    indent = min((len(x) - len(x.lstrip()) for x in chunk if x.strip()), default=0)
    return [x[indent:] for x in chunk], start + 1


def without_todo_markers(lines):
    """The solution's lines without the exercise's markers (a TODO(student) comment, with the comment
    lines that continue it): they are instructions for the stub, not part of the algorithm."""
    out, skipping = [], False
    for line in lines:
        comment = line.strip().startswith("//")
        if "TODO(student)" in line:
            skipping = comment
            continue
        if skipping and comment:
            continue
        skipping = False
        out.append(line)
    return out


def fit_width(lines):
    """Lines of at most WIDTH characters where only comments are too long: a trailing comment moves
    above its code, and a block of comment lines that is too wide is wrapped again as one paragraph.
    (A line of code stays as it is; the page wraps it.)"""
    moved = []
    for line in lines:
        indent = line[:len(line) - len(line.lstrip())]
        code, sep, comment = line.partition("  // ")
        if len(line) > WIDTH and sep and code.strip() and '"' not in code:
            moved += [indent + "// " + comment.strip(), code.rstrip()]
        else:
            moved.append(line)
    out, k = [], 0
    while k < len(moved):
        line = moved[k]
        indent = line[:len(line) - len(line.lstrip())]
        if not line.lstrip().startswith("//"):
            out.append(line)
            k += 1
            continue
        block = [line]
        while k + len(block) < len(moved) and moved[k + len(block)].startswith(indent + "//") \
                and moved[k + len(block)][len(indent):len(indent) + 2] == "//":
            block.append(moved[k + len(block)])
        k += len(block)
        if all(len(x) <= WIDTH for x in block):
            out += block
            continue
        words = " ".join(x.lstrip()[2:].strip() for x in block).split()
        current = indent + "//"
        for word in words:
            if len(current) + 1 + len(word) > WIDTH and current != indent + "//":
                out.append(current)
                current = indent + "//"
            current += " " + word
        out.append(current)
    return out


class Expander:
    def __init__(self, root, generated, figures, exercises, sections, committed=False):
        self.root, self.generated, self.figures = root, generated, figures
        self.committed = committed
        self.exercises, self.sections = exercises, sections
        self.problems = Problems()
        self.counts = {}

    def run_rows(self, sid, where):
        if sid not in self.counts:
            path = os.path.join(self.generated, f"counts_{sid}.json")
            try:
                with open(path, encoding="utf-8") as f:
                    self.counts[sid] = json.load(f)
            except (OSError, ValueError) as e:
                if not self.committed:
                    self.problems.add(where, f"no counts of section {sid} ({path}: {e})")
                self.counts[sid] = []
        return self.counts[sid]

    def code(self, words, section, where, for_page):
        if len(words) < 2:
            return None, "gen code needs FILE \"FIRST\" [\"LAST\"]"
        name, first = words[0], words[1]
        last = words[2] if len(words) > 2 else None
        folder = section["folder"] if section else ""
        dirs = [os.path.join(self.root, "exercises" if self.exercises else "solutions", folder),
                os.path.join(self.root, "chapters", folder)]
        path = next((os.path.join(d, name) for d in dirs if os.path.isfile(os.path.join(d, name))), None)
        if path is None:
            return None, f"gen code: no file {name} in {' or '.join(os.path.relpath(d, self.root) for d in dirs)}"
        lines, line_no = code_lines(path, first, last)
        if lines is None and self.exercises:
            # The stub leaves these lines to the student: the page says where they go.
            rel = os.path.relpath(path, self.root)
            return f"\n<em>These lines are yours to write: the TODO(student) blocks of {rel}.</em>\n", None
        if lines is None:
            return None, f"gen code {name}: {line_no}"
        if "/solutions/" in path.replace(os.sep, "/") + "/":
            lines = without_todo_markers(lines)
        lines = fit_width(lines)
        rel = os.path.relpath(path, self.root)
        return f"\n```cpp\n// {rel}, from line {line_no}\n" + "\n".join(lines) + "\n```\n", None

    def counts_table(self, words, where):
        if not words:
            return None, "gen counts needs SECTION"
        rows = self.run_rows(words[0], where)
        if not rows:
            return None, f"gen counts {words[0]}: the run wrote no row"
        out = ["", "", "| algorithm | n | launches | operator applications | barrier intervals | steps |",
               "|---|---:|---:|---:|---:|---:|"]
        for r in rows:
            out.append(f"| `{r['algorithm']}` | {r['n']} | {r['launches']} | {r['ops']} | {r['barrier_intervals']} | "
                       f"{r['steps']} |")
        return "\n".join(out) + "\n\n", None

    def value(self, words, where):
        if len(words) != 3 or words[2] not in FIELDS:
            return None, f"gen value needs SECTION ALGORITHM FIELD ({', '.join(FIELDS)})"
        rows = [r for r in self.run_rows(words[0], where) if r.get("algorithm") == words[1]]
        if not rows:
            return None, f"gen value: the run of {words[0]} has no algorithm {words[1]}"
        return str(rows[0][words[2]]), None

    def work_doc(self, where):
        path = os.path.join(self.generated, "data", "11.3.json")
        try:
            with open(path, encoding="utf-8") as f:
                return json.load(f)
        except (OSError, ValueError) as e:
            if not self.committed:
                self.problems.add(where, f"no work file of section 11.3 ({path}: {e})")
            return None

    def work(self, words, where):
        """One number of scanlab_11_3's work file: ALGORITHM N FIELD, FIELD a dotted path into the
        row (work_measured, steps_unlimited, steps.32.thread, ...)."""
        if len(words) != 3:
            return None, "gen work needs ALGORITHM N FIELD (e.g. kogge_stone 1024 steps.32.thread)"
        doc = self.work_doc(where) or {"rows": []}
        row = next((r for r in doc["rows"] if r["algorithm"] == words[0] and str(r["n"]) == words[1]), None)
        if row is None:
            return None, f"gen work: scanlab_11_3 ran no {words[0]} at n = {words[1]}"
        value = row
        for key in words[2].split("."):
            if not isinstance(value, dict) or key not in value:
                return None, f"gen work: the row of {words[0]} at n = {words[1]} has no {words[2]}"
            value = value[key]
        return f"{value:g}" if isinstance(value, float) else str(value), None

    def examples(self, where):
        doc = self.work_doc(where)
        if not doc:
            return None, "gen examples: no work file"
        out = ["", "", "| the book's example (N = 1024, P = 32) | book | measured on | threads | warps |",
               "|---|---:|---|---:|---:|"]
        for ex in doc["book_examples"]:
            out.append(f"| {ex['what']} | {ex['book']:g} | `{ex['measured_algorithm']}`, {ex['measured_threads']} "
                       f"threads | {ex['measured_thread']} | {ex['measured_warp']} |")
        return "\n".join(out) + "\n\n", None

    def trace(self, words, where):
        path = os.path.join(self.generated, f"trace_{words[0] if words else ''}.txt")
        if not os.path.isfile(path):
            return None, f"gen trace: {path} was not written (docs/run_trace.cmake)"
        with open(path, encoding="utf-8") as f:
            return "\n```\n" + f.read().rstrip("\n") + "\n```\n", None

    def nav(self, section, for_page):
        k = self.sections.index(section)
        parts = []
        for j, arrow in ((k - 1, "previous"), (k + 1, "next")):
            if 0 <= j < len(self.sections):
                s = self.sections[j]
                if for_page:
                    parts.append(f"{arrow}: \\ref {s['label']} \"{s['id']} {s['title']}\"")
                else:
                    parts.append(f"{arrow}: [{s['id']} {s['title']}](../{s['folder']}/README.md)")
        return "\n" + " | ".join(parts) + "\n", None

    def section_table(self):
        out = ["", "| Section | Page |", "|---|---|"]
        for s in self.sections:
            out.append(f"| {s['id']} | \\ref {s['label']} \"{s['title']}\" |")
        return "\n".join(out) + "\n", None

    def expand(self, text, section, where, for_page):
        """The text with every gen block filled; for the page (for_page) also the figures."""
        def gen(match):
            words = args_of(match.group(1))
            kind, rest = (words[0], words[1:]) if words else ("", [])
            if kind == "code":
                new, err = self.code(rest, section, where, for_page)
            elif kind == "counts":
                new, err = self.counts_table(rest, where)
            elif kind == "value":
                new, err = self.value(rest, where)
            elif kind == "work":
                new, err = self.work(rest, where)
            elif kind == "examples":
                new, err = self.examples(where)
            elif kind == "trace":
                new, err = self.trace(rest, where)
            elif kind == "nav" and section:
                new, err = self.nav(section, for_page)
            elif kind == "sections":
                new, err = self.section_table()
            else:
                new, err = None, f"unknown directive 'gen {match.group(1)}'"
            if err and self.committed and kind in ("counts", "value", "work", "examples", "trace"):
                err, new = None, match.group(2)  # no runs in this build: the README's copy stands
            if err:
                self.problems.add(where, err)
                new = match.group(2)
            if for_page:
                return new
            return f"<!-- gen {match.group(1)} -->{new}<!-- /gen -->"
        text = GEN.sub(gen, text)
        if for_page:
            text = FIGURE.sub(lambda m: self.figure(m.group(1), m.group(2), where), text)
        return text

    def figure(self, stem, caption, where):
        caption = " ".join(caption.split()).replace('"', "'")
        if not os.path.isfile(os.path.join(self.figures, stem + ".png")):
            if self.committed and not stem.startswith(GPU_FIGURES):
                return ""  # drawn from the emulator's runs, which this build does not make
            self.problems.add(where, f"figure {stem}.png was not drawn into {self.figures} (plots/make_plots.py)")
            return ""
        return f'\n\\image html {stem}.png "{caption}"\n'


def page_text(text, section, expander, where):
    """The README as a Doxygen page: the label on the title, a table of contents, links made local,
    the previous and next section (also where the README has no `gen nav`)."""
    text_in = text
    text = expander.expand(text, section, where, True)
    lines = text.split("\n")
    if not lines or not lines[0].startswith("# "):
        expander.problems.add(where, "the first line must be the title ('# ...')")
        return text
    label = section["label"] if section else None
    title = lines[0][2:].strip()
    head = [f"{title} {{#{label}}}" if label else title, "=" * max(3, len(title)), "", "[TOC]"]

    def link(m):
        words, target = " ".join(m.group(1).split()), m.group(2)
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            return m.group(0)
        folder = re.search(r"(?:\.\./)?(11_[0-9][A-Za-z0-9_]*)/README\.md$", target)
        if folder:
            s = next((s for s in expander.sections if s["folder"] == folder.group(1)), None)
            if s:
                return f"\\ref {s['label']} \"{words}\""
        page = re.search(r"docs/pages/([A-Za-z0-9_.-]+\.md)$", target)
        if page:  # a page of the site: a subpage of this section (nested under it in the tree)
            try:
                with open(os.path.join(expander.root, "docs", "pages", page.group(1)), encoding="utf-8") as f:
                    label = re.search(r"\{#([A-Za-z0-9_]+)\}", f.readline())
            except OSError:
                label = None
            if label:
                return f"\\subpage {label.group(1)} \"{words}\""
            expander.problems.add(where, f"the link to {target}: no such page with a {{#label}} on its first line")
        return words  # a file of the repository: its name is in the words; the site has no copy
    body = LINK.sub(link, "\n".join(lines[1:]))  # (a link's words may run over two lines)
    if section and not re.search(r"<!--\s*gen\s+nav", text_in):
        nav = expander.nav(section, True)[0]
        body = nav + "\n" + body.rstrip("\n") + "\n\n" + nav
    return "\n".join(head) + "\n" + body


def main(argv=None):
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n")[0])
    p.add_argument("--root", required=True)
    p.add_argument("--generated", required=True, help="where the counts and traces of the docs build are")
    p.add_argument("--out", help="folder for the pages")
    p.add_argument("--figures", default="", help="folder of the drawn figures")
    p.add_argument("--exercises", action="store_true", help="show the stubs of exercises/ in the pages")
    p.add_argument("--strict", action="store_true", help="any problem is an error")
    p.add_argument("--update", action="store_true", help="rewrite the generated parts of the READMEs")
    p.add_argument("--check", action="store_true",
                   help="a README whose generated parts are out of date is an error (else a warning)")
    p.add_argument("--committed", action="store_true",
                   help="this build made no runs (no cpu backend, or the docs of the stubs): keep the READMEs' "
                        "copies of counts and traces, and leave out the figures drawn from runs")
    a = p.parse_args(argv)
    sections = read_sections(a.root)
    ex = Expander(a.root, a.generated, a.figures, a.exercises, sections, a.committed)
    sources = [(s, os.path.join(a.root, "chapters", s["folder"], "README.md")) for s in sections]
    sources += [(None, path) for path in sorted(glob.glob(os.path.join(a.root, "docs", "pages", "*.md")))]
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        for old in glob.glob(os.path.join(a.out, "*.md")):
            os.remove(old)
    stale = []
    for section, path in sources:
        where = os.path.relpath(path, a.root)
        if not os.path.isfile(path):
            ex.problems.add(where, "missing: every section of chapters/sections.txt needs its README")
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
        fresh = ex.expand(text, section, where, False)
        if a.update:
            if fresh != text and section:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(fresh)
                print(f"{PROG}: updated {where}")
        elif fresh != text and not a.committed and section:
            stale.append(where)  # (docs/pages/ are the site's own sources: their copies are not read)
        if a.out:
            name = f"section_{section['folder']}.md" if section else os.path.basename(path)
            with open(os.path.join(a.out, name), "w", encoding="utf-8") as f:
                f.write(page_text(text, section, ex, where) if section else ex.expand(text, None, where, True))
    for item in ex.problems.items:
        print(f"{PROG}: {'error' if a.strict else 'warning'}: {item}", file=sys.stderr)
    # A README whose copy of the code or the counts is older than the code: its page is right (made
    # from the code), the Git host's text is not. An error only with --check (ctest docs.readmes).
    for where in stale:
        print(f"{PROG}: {'error' if a.check else 'warning'}: {where}: its generated parts differ from what the "
              f"code and the runs give now; to refresh them: python3 docs/make_pages.py --root . "
              f"--generated {a.generated} --update", file=sys.stderr)
    return 1 if (a.strict and ex.problems.items) or (a.check and stale) else 0


if __name__ == "__main__":
    sys.exit(main())
