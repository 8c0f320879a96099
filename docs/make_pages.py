#!/usr/bin/env python3
"""Turns each section's README (chapters/<folder>/README.md) into its page of the Doxygen site.

    make_pages.py --root REPO --out DIR --generated DIR --figures DIR [--exercises] [--strict]
    make_pages.py --root REPO --generated DIR --update      # refresh the generated parts (READMEs, docs/pages)
    make_pages.py --root REPO --generated DIR --check       # fail if a README or a page is out of date
    make_pages.py --root REPO --typed                       # fail on a measurement typed by hand
    make_pages.py --root REPO --questions                   # fail on a section without its questions and answers

The README is the one text of a section: it reads well on a Git host, and this script makes the
Doxygen page from it (DIR/section_<folder>.md). chapters/sections.txt gives the order. HTML comments
in the README, which a Git host does not show, mark what is generated:

  <!-- gen code FILE "FIRST" ["LAST"] -->  ```cpp ... ``` <!-- /gen -->
        the lines of FILE (solutions/<folder>/ or chapters/<folder>/; ../<other folder>/FILE for a
        file an earlier section wrote) from the first line holding FIRST to the line holding LAST, or
        else to the brace that closes FIRST's line; dedented
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
  <!-- gen banks LAYOUT load|store -->1248<!-- /gen -->
        the bank conflicts of one block of LAYOUT (brent_kung or brent_kung_padded), counted from the
        shared-memory addresses the Brent-Kung trees used on the emulator (GENERATED/data/11.4.banks.json,
        scanlab_11_4_banks) as plots/make_plots.py counts them for the bank diagram
  <!-- gen statuses SECTION setup|nearest|overtake -->tile 7 reads ...<!-- /gen -->
        a sentence on the run of tile statuses that section's figure draws (GENERATED/data/11.8.statuses.json,
        scanlab_11_8_statuses), in plots/make_plots.py's words (status_story): the run's shape, the widest
        look-back and where it combined from, the tiles that finished before the tiles before them
  <!-- gen trace NAME --> ``` ... ``` <!-- /gen -->
        a trace of the example array (GENERATED/trace_NAME.txt, docs/run_trace.cmake)
  <!-- gen explain SECTION MUTANT --> ``` ... ``` <!-- /gen -->
        the grader's report of the mutant's first failure (GENERATED/explain_SECTION_MUTANT.txt,
        docs/run_explain.cmake)
  <!-- gen nav -->  links  <!-- /gen -->
        the previous and next section
  <!-- gen bench_table CSV ALGORITHM [copy=X] [cub=Y] -->  line, table  <!-- /gen -->
        from a bench CSV committed in the repository (CSV: its path from the repository root; columns
        device, cuda_version, driver, sm_clock_mhz, mem_clock_mhz, date, algorithm, type, n,
        median_us, verified, reps, timing): the run's line (device, CUDA, clocks, date, repetitions,
        timing, verification), then per n (rows) and type (columns) ALGORITHM's, memcpy's and
        cub_inclusive_sum's median times and ALGORITHM's time over each; bold where it is at most X
        times the copy's and at most Y times CUB's
  <!-- gen bench_summary CSV ALGORITHM copy=X cub=Y [at=N bandwidth=P% throughput=R
       [throughput_types=T,T]] -->  list  <!-- /gen -->
        the same targets counted (pairs of n and type met), per type where met and by how much
        missed; with at=N, each type's share of the copy's bandwidth (memcpy's time / ALGORITHM's)
        and throughput against CUB (CUB's time / ALGORITHM's) at N, against targets P% and R (R only
        for the types listed)
  <!-- gen bench_value CSV ALGORITHM TYPE N[..N2] [OVER [moved|share] | per=K] -->14.5<!-- /gen -->
        ALGORITHM's median time (us, 3 significant figures) at N, or the smallest to the largest over N..N2; with per=K that
        time divided by K (a number or 2^k: the time of one of K parts done one after another); with OVER the
        ratio to OVER's time ("0.983x"); with `moved` OVER's GB/s over ALGORITHM's; with `share`
        ALGORITHM's GB/s as a share of OVER's ("85.1%"). N: a number or 2^k
  <!-- gen ncu_value FILE "KERNEL" "METRIC" [UNIT] -->79.08<!-- /gen -->
        one metric of an Nsight Compute report (text or --csv form) for the first kernel whose name
        holds KERNEL
  <!-- gen roles_table CSV [WHAT ...] -->  table  <!-- /gen -->
        the time per role (scanlab_persistent_roles's CSV: n, tiles, what, median_us, max_us): per n
        the tiles and the median of each stamp WHAT (default: copy_started .. stored)
  <!-- gen roles_value CSV WHAT N[..N2] [median|max] -->1.32<!-- /gen -->
        one stamp's median (or largest) in us at N, or the smallest to the largest over N..N2
  <!-- csv NAME = CSV -->
        names a CSV for the directives of its file: `gen bench_table NAME ...`; a page that quotes
        one run in many places names the run's file once (not on the page)
  <!-- figure STEM caption -->
        the figure STEM.png (drawn by plots/make_plots.py into FIGURES) with its caption; only on the
        Doxygen page (a Git host has no build to take it from)

The text between a `gen` comment and `<!-- /gen -->` is the README's copy, for the Git host (and for
a build that makes no runs, --committed). The page gets the generated text. A copy that differs from
it is a warning (an error with --check, ctest docs.readmes; --update refreshes it); with --strict a
code anchor that matches nothing, a missing run or a figure that was not drawn is an error. Other
pages (docs/pages/*.md) go through the same expansion, plus `<!-- gen sections -->`, the table of
the section pages; --update and --check cover their copies too. A CSV that a directive names and
that is missing, or that lacks the algorithm, stamp or n asked for, is an error even without
--strict (it is committed, so no build lacks it). Code lines come without the exercise's TODO(student) markers, and comments are
wrapped to WIDTH characters.

The CSVs are read by docs/measurements/measurements.py, as the figures read them. A number with a
unit or a ratio (us, ms, GB/s, TB/s, %, x) typed in a page's prose that matches a value of the
committed data within its rounding is an error of --typed and --check (a target is not a
measurement; docs/typed_numbers.txt lists those still to be replaced, and may only shrink). A
figure's caption is the README's words and then what make_plots.py wrote of its run (STEM.caption).

Every section's README has a "## Questions" list, 3 to 5 questions for a reader of the book's
section, each with its answer in a <details><summary>Answer</summary> block under it (indented into
the list item, blank lines around the answer): a Git host shows it collapsed as it is, and the page
gets the two tags as Doxygen \htmlonly[block] (Doxygen 1.9 would close a <details> at the end of its
paragraph). A section without them is an error in every mode but --typed (--questions checks only
that). An answer's numbers come from gen directives like the rest of the page.
"""
import argparse
import glob
import html
import json
import math
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "measurements"))
from measurements import (COPY, CUB, MeasurementError, data_values, n_text, read_ncu, read_table, significant,  # noqa: E402
                          read_timings)

PROG = "make_pages.py"
WIDTH = 96  # the widest code line a page shows without a scroll bar
GEN = re.compile(r"<!--\s*gen\s+(.*?)\s*-->(.*?)<!--\s*/gen\s*-->", re.S)
FIGURE = re.compile(r"<!--\s*figure\s+(\S+)\s+(.*?)\s*-->", re.S)
LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
# Figures drawn from the GPU runs committed in plots/data/ (any build can draw them); the others are
# drawn from the emulator's runs of the docs build.
GPU_FIGURES = ("bandwidth_", "kogge_stone_variants", "kogge_stone_vs_brent_kung", "coarsened_shapes",
               "hierarchical_bandwidth", "single_pass_bandwidth", "full_scans_bandwidth", "decoupled_lookback_bandwidth")
# What a figure's typed caption may name only if the figure draws it (its generated caption, STEM.caption,
# lists the algorithms drawn as the CSV names them).
CAPTION_NAMES = (("Thrust", "thrust_"), ("CUB", "cub_"), ("copy", "memcpy"))
FIELDS = {"ops": "operator applications", "barrier_intervals": "barrier intervals", "steps": "steps",
          "launches": "launches", "n": "n"}


class Problems:
    def __init__(self):
        self.items = []
        self.errors = []  # problems that are errors even without --strict (a committed CSV that is missing)

    def add(self, where, text, error=False):
        self.items.append(f"{where}: {text}")
        if error:
            self.errors.append(self.items[-1])


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
    lines that continue it): they are instructions for the stub, not part of the algorithm. Lines are
    (number, text) pairs: the file's line number stays with each line."""
    out, skipping = [], False
    for no, line in lines:
        comment = line.strip().startswith("//")
        if "TODO(student)" in line:
            skipping = comment
            continue
        if skipping and comment:
            continue
        skipping = False
        out.append((no, line))
    return out


def fit_width(lines):
    """Lines of at most WIDTH characters where only comments are too long: a trailing comment moves
    above its code, and a block of comment lines that is too wide is wrapped again as one paragraph.
    (A line of code stays as it is; the page scrolls it.) Lines are (number, text) pairs: a line of
    code keeps its number in the file; a rewrapped comment block keeps its numbers where it has as many
    lines as before, else only its first line has one; a comment moved above its code has None."""
    moved = []
    for no, line in lines:
        indent = line[:len(line) - len(line.lstrip())]
        code, sep, comment = line.partition("  // ")
        if len(line) > WIDTH and sep and code.strip() and '"' not in code:
            moved += [(None, indent + "// " + comment.strip()), (no, code.rstrip())]
        else:
            moved.append((no, line))
    out, k = [], 0
    while k < len(moved):
        no, line = moved[k]
        indent = line[:len(line) - len(line.lstrip())]
        if not line.lstrip().startswith("//"):
            out.append((no, line))
            k += 1
            continue
        block = [moved[k]]
        while k + len(block) < len(moved) and moved[k + len(block)][1].startswith(indent + "//") \
                and moved[k + len(block)][1][len(indent):len(indent) + 2] == "//":
            block.append(moved[k + len(block)])
        k += len(block)
        if all(len(x) <= WIDTH for _, x in block):
            out += block
            continue
        words = " ".join(x.lstrip()[2:].strip() for _, x in block).split()
        wrapped, current = [], indent + "//"
        for word in words:
            if len(current) + 1 + len(word) > WIDTH and current != indent + "//":
                wrapped.append(current)
                current = indent + "//"
            current += " " + word
        wrapped.append(current)
        numbers = [n for n, _ in block]
        if len(wrapped) != len(numbers) or None in numbers:  # (as many lines: the block keeps its numbers)
            numbers = [numbers[0]] + [None] * (len(wrapped) - 1)
        out += list(zip(numbers, wrapped))
    return out


# ---- code on a page: the file's line numbers in the margin ------------------------------------------
# Doxygen 1.9 numbers no lines of a Markdown code block, and the snippet leaves lines out (the
# exercise's TODO markers), so a reader counting from "from line N" lands elsewhere than the trace's
# "kogge_stone.cuh:85". The page's snippet is raw HTML in Doxygen's own classes instead (fragment,
# line, lineno, keyword, comment, ...), each line with its number in the file in the margin (not
# selected when the code is copied: scanlab.css); the README keeps the Markdown block.
CPP_FLOW = {"for", "if", "else", "while", "do", "return", "break", "continue", "switch", "case", "default", "goto"}
CPP_TYPES = {"void", "bool", "char", "short", "int", "long", "unsigned", "signed", "float", "double", "auto",
             "size_t", "uint32_t", "uint64_t", "int32_t", "int64_t", "T"}
CPP_KEYWORDS = {"const", "constexpr", "static", "inline", "template", "typename", "class", "struct", "using",
                "namespace", "static_cast", "reinterpret_cast", "const_cast", "volatile", "extern", "sizeof",
                "true", "false", "nullptr", "__global__", "__device__", "__host__", "__shared__",
                "__forceinline__", "operator", "enum", "this", "new", "delete", "public", "private"}
CPP_TOKEN = re.compile(r'(?P<comment>//.*$)|(?P<string>"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\')'
                       r'|(?P<pre>^\s*#.*$)|(?P<word>[A-Za-z_][A-Za-z0-9_]*)|(?P<other>.)')


def highlight_cpp(line):
    """One line of C++ as HTML with Doxygen's classes (a lexer for snippets, not a parser)."""
    out = []
    for m in CPP_TOKEN.finditer(line):
        text = html.escape(m.group(0), quote=False)
        if m.group("comment"):
            out.append(f'<span class="comment">{text}</span>')
        elif m.group("string"):
            out.append(f'<span class="stringliteral">{text}</span>')
        elif m.group("pre"):
            out.append(f'<span class="preprocessor">{text}</span>')
        elif m.group("word") in CPP_FLOW:
            out.append(f'<span class="keywordflow">{text}</span>')
        elif m.group("word") in CPP_TYPES:
            out.append(f'<span class="keywordtype">{text}</span>')
        elif m.group("word") in CPP_KEYWORDS:
            out.append(f'<span class="keyword">{text}</span>')
        else:
            out.append(text)
    return "".join(out)


def numbered_code_html(rel, lines):
    """The snippet as a raw HTML block for Doxygen: a fragment whose lines carry their number in the
    file (blank for a comment the page rewrapped); the first line names the file."""
    width = max(len(str(no)) for no, _ in lines if no is not None) if any(no for no, _ in lines) else 1
    out = [f'<div class="line"><span class="lineno">{" " * width}</span>'
           f'<span class="comment">// {html.escape(rel)} (the margin: its line numbers)</span></div>']
    for no, text in lines:
        out.append(f'<div class="line"><span class="lineno">{str(no or "").rjust(width)}</span>'
                   f'{highlight_cpp(text)}</div>')
    return ('\n\\htmlonly[block]<div class="fragment scanlab-numbered">' + "".join(out)
            + '</div>\\endhtmlonly\n')


REPORT_FENCE = re.compile(r"```\n(.*?)\n```", re.S)


def report_html(text):
    """The grader's report in TEXT (gen explain) as the page shows it: sentences, not code, so its long
    lines wrap under their first words (scanlab.css: scanlab-report) instead of running past the right
    edge of the page; the README keeps the fenced block."""
    def block(m):
        lines = "".join(f'<div class="line">{html.escape(x) or "&nbsp;"}</div>' for x in m.group(1).split("\n"))
        return f'\\htmlonly[block]<div class="fragment scanlab-report">{lines}</div>\\endhtmlonly'
    return REPORT_FENCE.sub(block, text)


# ---- tables and numbers from the measurement CSVs committed in the repository ----------------------
# (the bench programs' files: device, cuda_version, driver, sm_clock_mhz, mem_clock_mhz, date,
# algorithm, type, n, median_us, ..., verified, reps, ..., timing; and scanlab_persistent_roles's
# n, tiles, what, median_us, max_us). The CSV is named by its path from the repository root in the
# directive, so a new run's file replaces the old one in one place.
COPY_ALGORITHM = COPY   # the copy the kernels are measured against
CUB_ALGORITHM = CUB     # and CUB's scan
ROLES_COLUMNS = ("n", "tiles", "what", "median_us")
# The stamps of the time per role, in the order a tile goes through them (the CSV also has ticketed
# and the differences between stamps, ..._to_...; a roles_table directive may name other columns).
ROLE_STAMPS = ("copy_started", "landed", "aggregate_published", "scan_start", "lookback_start",
               "prefix_published", "stored")


# <!-- csv NAME = PATH --> names a CSV for the directives of its file (bench_table NAME ...), so a page
# that quotes one run in many places names its file once.
CSV_NAME = re.compile(r"<!--\s*csv\s+([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(\S+)\s*-->\n?")
MEASUREMENT_KINDS = ("bench_table", "bench_summary", "bench_value", "roles_table", "roles_value", "ncu_value")


class DataError(Exception):
    """A directive that cannot be filled from its CSV: one line, said as an error."""


def parse_n(word, kind):
    """N or N1..N2, each a number or 2^k: the range (first, last)."""
    def one(w):
        w = w.strip()
        try:
            return 1 << int(w[2:]) if w.startswith("2^") else int(w)
        except ValueError:
            raise DataError(f"gen {kind}: {word!r} is not n (a number, 2^k, or N1..N2)") from None
    first, _, last = word.partition("..")
    return one(first), one(last) if last else one(first)


def ratio_text(r, target=None, digits=2):
    """r with two decimals, or three (four) where two would put it on the other side of the target."""
    text = f"{r:.{digits}f}"
    while target is not None and digits < 4 and (float(text) <= target) != (r <= target):
        digits += 1
        text = f"{r:.{digits}f}"
    return text


def spans_text(ns, all_ns):
    """The values ns as runs of consecutive values of all_ns: '2^10 .. 2^13 and 2^24 .. 2^29'."""
    runs, k = [], 0
    while k < len(all_ns):
        if all_ns[k] not in ns:
            k += 1
            continue
        j = k
        while j + 1 < len(all_ns) and all_ns[j + 1] in ns:
            j += 1
        if j <= k + 1:  # one or two values: each by itself
            runs += [n_text(all_ns[i]) for i in range(k, j + 1)]
        else:
            runs.append(f"{n_text(all_ns[k])} .. {n_text(all_ns[j])}")
        k = j + 1
    return ", ".join(runs[:-1]) + " and " + runs[-1] if len(runs) > 1 else (runs[0] if runs else "none")


def span_of(values, fmt, unit=""):
    lo, hi = fmt(min(values)), fmt(max(values))
    return f"{lo}{unit}" if lo == hi else f"{lo} to {hi}{unit}"


def options_of(words, allowed, kind):
    """key=value words after the positional ones, as floats."""
    out = {}
    for w in words:
        key, sep, value = w.partition("=")
        if not sep or key not in allowed:
            raise DataError(f"gen {kind}: unknown argument {w!r} (expected {', '.join(k + '=...' for k in allowed)})")
        try:
            out[key] = float(value.rstrip("x%"))
        except ValueError:
            raise DataError(f"gen {kind}: {w!r} needs a number") from None
    return out


class Measurements:
    """The gen kinds that read committed CSVs (bench_table, bench_summary, bench_value, roles_table,
    roles_value). Each returns the text or raises DataError."""

    def __init__(self, root):
        self.root, self.files, self.names = root, {}, {}

    def read(self, rel, kind):
        """The rows of a roles CSV (docs/measurements/measurements.py reads it)."""
        rel = self.names.get(rel, rel)
        if rel not in self.files:
            try:
                _, rows, _ = read_table(os.path.join(self.root, rel))
            except MeasurementError as e:
                raise DataError(f"gen {kind}: {e} (a path from the repository root)") from None
            self.files[rel] = rows
        rows = self.files[rel]
        missing = [c for c in ROLES_COLUMNS if not rows or c not in rows[0]]
        if missing:
            raise DataError(f"gen {kind}: {rel} has no rows or no column {', '.join(missing)}")
        try:
            for r in rows:
                int(r["n"]), float(r["median_us"])
        except (ValueError, TypeError):
            raise DataError(f"gen {kind}: {rel}: a row whose n or median_us is not a number: {r}") from None
        return rows

    def bench(self, rel, kind):
        """The run of a bench CSV (measurements.read_timings: the columns mean what they mean in the
        figures), checked to have times."""
        rel = self.names.get(rel, rel)
        if ("bench", rel) not in self.files:
            try:
                run = read_timings(os.path.join(self.root, rel), rel)
                if run is None or not run.rows:
                    raise MeasurementError(f"{rel} has no timing rows (algorithm, type, n, median_us)")
                run.table()
            except MeasurementError as e:
                raise DataError(f"gen {kind}: {e}") from None
            self.files[("bench", rel)] = run
        return self.files[("bench", rel)]

    def need(self, run, algorithm, kind):
        try:
            return run.need(algorithm)
        except MeasurementError as e:
            raise DataError(f"gen {kind}: {e}") from None

    def bench_table(self, words):
        """CSV ALGORITHM [copy=X] [cub=Y]: the run's line, then per n and type the time of ALGORITHM,
        memcpy and CUB and the two ratios; bold where ALGORITHM's time is at most X times the copy's
        and at most Y times CUB's."""
        kind = "bench_table"
        if len(words) < 2:
            raise DataError(f"gen {kind} needs CSV ALGORITHM [copy=X] [cub=Y]")
        b = self.bench(words[0], kind)
        alg = words[1]
        opts = options_of(words[2:], ("copy", "cub"), kind)
        ns = self.need(b, alg, kind)
        self.need(b, COPY_ALGORITHM, kind)
        self.need(b, CUB_ALGORITHM, kind)
        t_copy, t_cub = opts.get("copy"), opts.get("cub")
        out = ["", "", f"`{b.rel}`: " + b.run_line((alg, COPY_ALGORITHM, CUB_ALGORITHM)) + ".", "",
               f"Each cell: the time of `{alg}` / `{COPY_ALGORITHM}` / `{CUB_ALGORITHM}` (us), then `{alg}`'s "
               f"time over the copy's and over CUB's"]
        if t_copy is not None and t_cub is not None:
            out[-1] += (f"; **bold**: within both targets (at most {t_copy:.2f}x the copy's time and "
                        f"{t_cub:.2f}x CUB's)")
        out[-1] += "."
        out += ["", "| n | " + " | ".join(b.types) + " |", "| --- |" + " --- |" * len(b.types)]
        for n in ns:
            cells = []
            for t in b.types:
                k, c, u = b.us(alg, t, n), b.us(COPY_ALGORITHM, t, n), b.us(CUB_ALGORITHM, t, n)
                if k is None or c is None or u is None:
                    cells.append("-")
                    continue
                cell = (f"{significant(k)} / {significant(c)} / {significant(u)}: {ratio_text(k / c, t_copy)}x, "
                        f"{ratio_text(k / u, t_cub)}x")
                met = (t_copy is not None and t_cub is not None and k / c <= t_copy and k / u <= t_cub
                       and b.table()[(alg, t, n)].verified)
                cells.append(f"**{cell}**" if met else cell)
            out.append(f"| {n_text(n)} | " + " | ".join(cells) + " |")
        return "\n".join(out) + "\n\n"

    def bench_summary(self, words):
        """CSV ALGORITHM copy=X cub=Y [at=N bandwidth=P% throughput=R [throughput_types=T,T]]: how many
        pairs of n and type meet both targets, per type where they are met and by how much they are
        missed elsewhere; with at=N the bandwidth (memcpy's time / ALGORITHM's) and the throughput
        against CUB (CUB's time / ALGORITHM's) of every type at N, against targets P% and R."""
        kind = "bench_summary"
        if len(words) < 2:
            raise DataError(f"gen {kind} needs CSV ALGORITHM copy=X cub=Y [at=N bandwidth=P% throughput=R]")
        b = self.bench(words[0], kind)
        alg = words[1]
        rest = [w for w in words[2:] if not w.startswith(("at=", "throughput_types="))]
        opts = options_of(rest, ("copy", "cub", "bandwidth", "throughput"), kind)
        at = next((parse_n(w[3:], kind)[0] for w in words[2:] if w.startswith("at=")), None)
        tp_types = next((w.split("=", 1)[1].split(",") for w in words[2:] if w.startswith("throughput_types=")), None)
        if "copy" not in opts or "cub" not in opts:
            raise DataError(f"gen {kind}: needs the targets copy=X and cub=Y (times over the copy's and CUB's)")
        ns = self.need(b, alg, kind)
        self.need(b, COPY_ALGORITHM, kind)
        self.need(b, CUB_ALGORITHM, kind)
        t_copy, t_cub = opts["copy"], opts["cub"]
        out = [""]
        if at is not None:
            t_bw, t_tp = opts.get("bandwidth"), opts.get("throughput")
            tp_types = tp_types or b.types
            parts, met = [], True
            for t in b.types:
                k, c, u = b.us(alg, t, at), b.us(COPY_ALGORITHM, t, at), b.us(CUB_ALGORITHM, t, at)
                if k is None or c is None or u is None:
                    raise DataError(f"gen {kind}: {b.rel} has no {alg}, {COPY_ALGORITHM} or {CUB_ALGORITHM} "
                                    f"time of {t} at n = {n_text(at)}")
                bw, tp = 100 * c / k, u / k
                met = met and (t_bw is None or bw >= t_bw) and (t_tp is None or t not in tp_types or tp >= t_tp)
                parts.append(f"{t} {bw:.1f}% of the copy's bandwidth and {tp:.3f}x CUB's throughput" if not parts
                             else f"{t} {bw:.1f}% and {tp:.3f}x")
            targets = []
            if t_bw is not None:
                targets.append(f"{t_bw:g}% of the copy's bandwidth")
            if t_tp is not None:
                targets.append(f"{t_tp:.2f}x CUB's throughput" +
                               ("" if set(tp_types) >= set(b.types) else
                                f" for {', '.join(tp_types[:-1])} and {tp_types[-1]}" if len(tp_types) > 1 else
                                f" for {tp_types[0]}"))
            verdict = (": met" if met else ": not met") if targets else ""
            out.append(f"- **n = {n_text(at)}{verdict}.** " + ", ".join(parts) + "." +
                       (f" (Targets: {'; '.join(targets)}.)" if targets else ""))
        met_pairs = total = 0
        lines = []
        for t in b.types:
            met_ns, missed, over_copy, over_cub = [], {}, [], []
            for n in ns:
                k, c, u = b.us(alg, t, n), b.us(COPY_ALGORITHM, t, n), b.us(CUB_ALGORITHM, t, n)
                if k is None or c is None or u is None:
                    continue
                total += 1
                if k / c <= t_copy and k / u <= t_cub:
                    met_ns.append(n)
                    continue
                missed[n] = (k / c, k / u)
                if k / c > t_copy:
                    over_copy.append(n)
                if k / u > t_cub:
                    over_cub.append(n)
            met_pairs += len(met_ns)
            line = f"  - {t}: met at {spans_text(met_ns, ns)}."
            if missed:
                def part(values, target, over, whose):
                    text = f"{span_of(values, lambda r: ratio_text(r, target))}x {whose} time"
                    if over and sorted(over) != sorted(missed):
                        text += f" (over the target at {spans_text(over, ns)})"
                    return text
                line += (f" Not met at {spans_text(list(missed), ns)}: "
                         + part([r[0] for r in missed.values()], t_copy, over_copy, "the copy's") + ", "
                         + part([r[1] for r in missed.values()], t_cub, over_cub, "CUB's") + ".")
            lines.append(line)
        out.append(f"- **Every n from {n_text(ns[0])} to {n_text(ns[-1])} within {t_copy:.2f}x the copy's time "
                   f"and {t_cub:.2f}x CUB's: {'met' if met_pairs == total else 'not met'}** ({met_pairs} of the "
                   f"{total} pairs of n and type met).")
        out += lines
        return "\n".join(out) + "\n\n"

    def bench_value(self, words):
        """CSV ALGORITHM TYPE N[..N2] [OVER [moved|share] | per=K]: ALGORITHM's median time in us (over n
        from N to N2: the smallest to the largest), divided by K with per=K; with OVER, the time over OVER's ('0.983x'); with `moved`,
        over the time OVER would take to move ALGORITHM's bytes (OVER's GB/s over ALGORITHM's: a row's
        GB/s counts the bytes its job must move); with `share`, ALGORITHM's GB/s as a share of OVER's
        ('85.3%', the figures' share of the copy's bandwidth)."""
        kind = "bench_value"
        per = next((w for w in words if w.startswith("per=")), None)
        if per:  # the time divided by K (per=K, a number or 2^k): the time of one of K equal parts
            words = [w for w in words if w != per]
            per = parse_n(per[4:], kind)[0]
            if len(words) != 4 or per <= 0:
                raise DataError(f"gen {kind}: per=K goes with a time only (CSV ALGORITHM TYPE N per=K), K >= 1")
        mode = words[5] if len(words) == 6 and words[5] in ("moved", "share") else None
        if len(words) not in (4, 5) and not mode:
            raise DataError(f"gen {kind} needs CSV ALGORITHM TYPE N[..N2] [OVER [moved|share]]")
        b = self.bench(words[0], kind)
        alg, t = words[1], words[2]
        lo, hi = parse_n(words[3], kind)
        over = words[4] if len(words) >= 5 else None
        for a in (alg, over):
            if a:
                self.need(b, a, kind)
        values = []
        table = b.table()
        for n in sorted({n for _, _, n in table if lo <= n <= hi}):
            if mode:
                k, o = table.get((alg, t, n)), table.get((over, t, n))
                if k is not None and o is not None and k.gbps > 0:
                    values.append(o.gbps / k.gbps if mode == "moved" else 100 * k.gbps / o.gbps)
                continue
            k = b.us(alg, t, n)
            o = b.us(over, t, n) if over else float(per or 1)
            if k is not None and o is not None:
                values.append(k / o)
        if not values:
            raise DataError(f"gen {kind}: {b.rel} has no time of {alg} ({t}) at n = {words[3]}")
        if mode == "share":
            return span_of(values, lambda r: f"{r:.1f}", "%")
        if over:
            return span_of(values, lambda r: f"{r:.3f}", "x")
        return span_of(values, significant)  # (a time: 3 significant figures, as every time the pages show)

    def ncu_value(self, words):
        """FILE KERNEL METRIC [UNIT]: one metric of an Nsight Compute report (text or --csv form, a path
        from the repository root) for the first kernel whose name holds KERNEL (and, given UNIT, in that
        unit: %, us, TB/s, ...), as the report writes it without thousands separators ('79.08', '1248')."""
        kind = "ncu_value"
        if len(words) not in (3, 4):
            raise DataError(f'gen {kind} needs FILE "KERNEL" "METRIC" [UNIT]')
        rel = self.names.get(words[0], words[0])
        path = os.path.join(self.root, rel)
        if not os.path.isfile(path):
            raise DataError(f"gen {kind}: cannot read {rel} (a path from the repository root)")
        for kernel, metric, unit, value in read_ncu(path):
            if words[1] in kernel and metric == words[2] and (len(words) == 3 or unit == words[3]):
                return f"{value:g}"
        raise DataError(f"gen {kind}: {rel} has no metric {words[2]!r}" + (f" in {words[3]}" if len(words) == 4 else "")
                        + f" of a kernel {words[1]!r}")

    def roles(self, rel, kind):
        rows = self.read(rel, kind)
        return {(int(r["n"]), r["what"]): r for r in rows}, sorted({int(r["n"]) for r in rows})

    def roles_table(self, words):
        """CSV [WHAT ...]: per n the tiles and the median of each stamp (default ROLE_STAMPS)."""
        kind = "roles_table"
        if not words:
            raise DataError(f"gen {kind} needs CSV [WHAT ...]")
        by, ns = self.roles(words[0], kind)
        # (the default stamps that the CSV has: a run of one-tile launches only has no copy stamps)
        cols = words[1:] or [w for w in ROLE_STAMPS if any(what == w for _, what in by)]
        unknown = [w for w in cols if not any(what == w for _, what in by)]
        if unknown:
            raise DataError(f"gen {kind}: {words[0]} has no stamp {', '.join(unknown)}")
        out = ["", "", f"`{self.names.get(words[0], words[0])}` (the median over the tiles of each stamp, in us "
               f"since the tile's block started; the file also has the largest and the differences):", "",
               "| n | tiles | " + " | ".join(w.replace("_", " ") for w in cols) + " |",
               "| --- | ---: |" + " ---: |" * len(cols)]
        for n in ns:
            tiles = next(r["tiles"] for (m, _), r in by.items() if m == n)
            cells = [significant(float(by[(n, w)]['median_us'])) if (n, w) in by else "-" for w in cols]
            out.append(f"| {n_text(n)} | {tiles} | " + " | ".join(cells) + " |")
        return "\n".join(out) + "\n\n"

    def roles_value(self, words):
        """CSV WHAT N[..N2] [max]: the median (or the largest) of stamp WHAT in us, over n from N to N2
        the smallest to the largest of them."""
        kind = "roles_value"
        if len(words) not in (3, 4) or (len(words) == 4 and words[3] not in ("median", "max")):
            raise DataError(f"gen {kind} needs CSV WHAT N[..N2] [median|max]")
        by, ns = self.roles(words[0], kind)
        lo, hi = parse_n(words[2], kind)
        field = "max_us" if len(words) == 4 and words[3] == "max" else "median_us"
        values = [float(by[(n, words[1])][field]) for n in ns if lo <= n <= hi and (n, words[1]) in by]
        if not values:
            raise DataError(f"gen {kind}: {words[0]} has no stamp {words[1]} at n = {words[2]}")
        return span_of(values, significant)


# ---- numbers typed by hand ----------------------------------------------------------------------------
# A number with a unit or a ratio (us, ms, GB/s, TB/s, %, x) in a page's prose that matches a value of
# the committed data within its rounding (measurements.data_values) was typed where a directive should
# make it. Not counted: what a gen block makes, code, HTML comments, a target ("target 1.10x", in
# the clause after the word) and a prediction (a table cell that starts "predicted"). docs/typed_numbers.txt lists those still typed, to be replaced: it may
# only shrink (a listed number no longer typed is an error too).
TYPED_LIST = os.path.join("docs", "typed_numbers.txt")
_NUMBER = r"\d+(?:\.\d+)?"
TYPED = re.compile(rf"(?<![\w.^/=+-])(?P<numbers>{_NUMBER}(?:(?:,\s*|\s+and\s+|\s+to\s+|\s*/\s*|\s+or\s+|\s*\.\.\s*)"
                   rf"{_NUMBER})*)"
                   r"(?P<space>\s?)(?P<unit>us\b|µs|ms\b|GB/s|TB/s|%|x(?!\w))")
UNIT_VALUES = {"us": ("us", 1), "µs": ("us", 1), "ms": ("us", 1000), "GB/s": ("GB/s", 1), "TB/s": ("GB/s", 1000),
               "%": ("%", 1), "x": ("x", 1)}


def prose_of(text):
    """The text with what is not typed prose blanked (lines kept): gen blocks, comments, code. A
    figure's caption (<!-- figure STEM caption -->) is prose: the page shows it."""
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    text = GEN.sub(blank, text)
    text = FIGURE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)[:m.start(2) - m.start(0)]) + m.group(2) +
                      re.sub(r"[^\n]", " ", m.group(0)[m.end(2) - m.start(0):]), text)
    for pattern in (re.compile(r"<!--.*?-->", re.S), re.compile(r"```.*?```", re.S), re.compile(r"`[^`\n]*`")):
        text = pattern.sub(blank, text)
    return text


def typed_measurements(text, values):
    """[(line, text)] of the numbers with a unit in the prose that match a value of the data."""
    import bisect
    found = []
    prose = prose_of(text)
    for m in TYPED.finditer(prose):
        unit = m.group("unit")
        if unit == "x" and m.group("space"):
            continue  # 8 x 32: a shape, not a ratio
        if re.search(r"targets?\b[^.;)]*$", prose[max(0, m.start() - 200):m.start()]):
            continue  # a target, not a measurement
        line_start = prose.rfind("\n", 0, m.start()) + 1
        if prose[line_start:line_start + 1] == "|":  # a table row: the cell the number is in
            cell = prose[prose.rfind("|", line_start, m.start()) + 1:m.start()]
            if re.match(r"\s*predicted\b", cell):
                continue  # a prediction made before measuring (a cell that starts "predicted")
        kind, scale = UNIT_VALUES[unit]
        data = values.get(kind, [])
        for number in re.findall(_NUMBER, m.group("numbers")):
            half = 0.5 * 10 ** -(len(number.split(".")[1]) if "." in number else 0)
            lo, hi = (float(number) - half) * scale, (float(number) + half) * scale
            i = bisect.bisect_left(data, lo)
            if i < len(data) and data[i] <= hi:
                found.append((prose.count("\n", 0, m.start()) + 1, " ".join(m.group(0).split())))
                break
    return found


def check_typed(root, sources):
    """The problems: numbers typed on the pages that the committed data has, less docs/typed_numbers.txt's
    (and that list's lines that match no typed number)."""
    values = data_values(root)
    allowed = {}
    list_path = os.path.join(root, TYPED_LIST)
    if os.path.isfile(list_path):
        with open(list_path, encoding="utf-8") as f:
            for line in f:
                if line.strip() and not line.startswith("#"):
                    key = tuple(line.rstrip("\n").split("\t", 1))
                    allowed[key] = allowed.get(key, 0) + 1
    problems = []
    for path in sources:
        rel = os.path.relpath(path, root)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for line, typed in typed_measurements(text, values):
            if allowed.get((rel, typed), 0) > 0:
                allowed[(rel, typed)] -= 1
                continue
            problems.append(f"{rel}:{line}: '{typed}' is typed, and the committed data has it: make it with a "
                            f"gen directive (bench_value, roles_value, ncu_value) or say it without the number")
    for (rel, typed), left in sorted(allowed.items()):
        if left > 0:
            problems.append(f"{TYPED_LIST}: '{typed}' of {rel} is no longer typed there ({left} too many): "
                            f"remove its line")
    return problems


class Expander:
    def __init__(self, root, generated, figures, exercises, sections, committed=False):
        self.root, self.generated, self.figures = root, generated, figures
        self.committed = committed
        self.exercises, self.sections = exercises, sections
        self.problems = Problems()
        self.counts = {}
        self.shown = {}  # figure stem -> the page that shows it (each figure once; other pages link to it)
        self.measurements = Measurements(root)

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
        lines = list(enumerate(lines, line_no))
        if "/solutions/" in path.replace(os.sep, "/") + "/":
            lines = without_todo_markers(lines)
        lines = fit_width(lines)
        rel = os.path.relpath(path, self.root)
        # (the traces name a file without its folder)
        self.lines_shown.update((os.path.basename(name), no) for no, _ in lines if no is not None)
        if for_page:  # the page: the file's line numbers in the margin, which the traces' barriers name
            return numbered_code_html(rel, lines), None
        return f"\n```cpp\n// {rel}, from line {line_no}\n" + "\n".join(x for _, x in lines) + "\n```\n", None

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

    def banks(self, words, where):
        """LAYOUT load|store: the conflicts of one block, from the emulator's addresses (make_plots.py's
        count, the one the bank diagram shows)."""
        if len(words) != 2 or words[1] not in ("load", "store"):
            return None, "gen banks needs LAYOUT load|store"
        path = os.path.join(self.generated, "data", "11.4.banks.json")
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            return None, f"gen banks: no bank file ({path}: {e}; scanlab_11_4_banks writes it)"
        sys.path.insert(0, os.path.join(self.root, "plots"))
        import make_plots  # (the count the figure shows; matplotlib is imported only to draw)
        layout = next((lay for lay in doc.get("layouts", []) if lay.get("name") == words[0]), None)
        if layout is None:
            return None, f"gen banks: {path} has no layout {words[0]}"
        _, loads, stores = make_plots.bank_conflicts(doc, layout)
        return str(loads if words[1] == "load" else stores), None

    def statuses(self, words, where):
        """SECTION setup|nearest|overtake: a sentence on the run of tile statuses the section's figure
        draws (GENERATED/data/11.8.statuses.json, scanlab_11_8_statuses), in plots/make_plots.py's
        words (status_story), so that what the page says of the run is what the run did."""
        parts = ("setup", "nearest", "overtake")
        if len(words) != 2 or words[1] not in parts:
            return None, f"gen statuses needs SECTION {'|'.join(parts)}"
        path = os.path.join(self.generated, "data", "11.8.statuses.json")
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            return None, f"gen statuses: no status file ({path}: {e}; scanlab_11_8_statuses writes it)"
        sys.path.insert(0, os.path.join(self.root, "plots"))
        import make_plots  # (the figure's own reading of the run)
        run = next((r for r in doc.get("runs", []) if r.get("section") == words[0]), None)
        if run is None:
            return None, f"gen statuses: {path} has no run of section {words[0]}"
        text = make_plots.status_story(run)[words[1]]
        if text is None:
            return None, f"gen statuses: the run of section {words[0]} shows nothing for '{words[1]}'"
        return text, None

    def trace(self, words, where):
        path = os.path.join(self.generated, f"trace_{words[0] if words else ''}.txt")
        if not os.path.isfile(path):
            return None, f"gen trace: {path} was not written (docs/run_trace.cmake)"
        with open(path, encoding="utf-8") as f:
            text = f.read().rstrip("\n")
        # Each row names the barrier at which it was seen by FILE:LINE; the reader finds that line in
        # the page's snippets, so expand() checks that one of them shows it.
        self.lines_cited.update((name, int(no)) for name, no in re.findall(r"\b([\w.]+\.cuh):([0-9]+)", text))
        return "\n```\n" + text + "\n```\n", None

    def explain(self, words, where):
        """The grader's report of a mutant (issue 37): its first failing test's name, then the report."""
        path = os.path.join(self.generated, f"explain_{'_'.join(words)}.txt")
        if len(words) != 2 or not os.path.isfile(path):
            return None, f"gen explain: {path} was not written (docs/run_explain.cmake)"
        with open(path, encoding="utf-8") as f:
            test, _, report = f.read().rstrip("\n").partition("\n")
        return f"\n`{test}` fails:\n\n```\n{report}\n```\n", None

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
            elif kind == "explain":
                new, err = self.explain(rest, where)
            elif kind == "banks":
                new, err = self.banks(rest, where)
            elif kind == "statuses":
                new, err = self.statuses(rest, where)
            elif kind == "nav" and section:
                new, err = self.nav(section, for_page)
            elif kind == "sections":
                new, err = self.section_table()
            elif kind in MEASUREMENT_KINDS:
                try:
                    new, err = getattr(self.measurements, kind)(rest), None
                except DataError as e:
                    # The CSV is committed, so no build lacks it: always an error.
                    self.problems.add(where, str(e), error=True)
                    new, err = match.group(2), None
            else:
                new, err = None, f"unknown directive 'gen {match.group(1)}'"
            if err and self.committed and kind in ("counts", "value", "work", "examples", "trace", "banks", "statuses",
                                                   "explain"):
                err, new = None, match.group(2)  # no runs in this build: the README's copy stands
            if err:
                self.problems.add(where, err)
                new = match.group(2)
            if for_page:
                return report_html(new) if kind == "explain" else new
            return f"<!-- gen {match.group(1)} -->{new}<!-- /gen -->"
        self.measurements.names = dict(CSV_NAME.findall(text))
        self.lines_shown, self.lines_cited = set(), set()
        text = GEN.sub(gen, text)
        for name, no in sorted(self.lines_cited - self.lines_shown):
            self.problems.add(where, f"a trace cites {name}:{no}, a line that no code snippet of the page shows: "
                                     f"widen a <!-- gen code {name} ... --> to it")
        if for_page:
            text = CSV_NAME.sub("", text)
            text = FIGURE.sub(lambda m: self.figure(m.group(1), m.group(2), where), text)
        return text

    def figure(self, stem, caption, where):
        """The figure with its caption: the README's words, then what plots/make_plots.py wrote of the
        run it drew (FIGURES/STEM.caption: the CSV, device, date, what is drawn). A typed caption that
        names Thrust, CUB or a copy that the figure does not draw is a problem."""
        caption = " ".join(caption.split()).replace('"', "'")
        page = where.split(":")[0]
        if self.shown.setdefault(stem, page) != page:
            self.problems.add(where, f"figure {stem} is shown on {self.shown[stem]} already: show each figure once "
                                     "and link to its section from the other pages")
        if not os.path.isfile(os.path.join(self.figures, stem + ".png")):
            if self.committed and not stem.startswith(GPU_FIGURES):
                return ""  # drawn from the emulator's runs, which this build does not make
            self.problems.add(where, f"figure {stem}.png was not drawn into {self.figures} (plots/make_plots.py)")
            return ""
        min_width = None
        try:
            with open(os.path.join(self.figures, stem + ".size"), encoding="utf-8") as f:
                min_width = min_width_px(json.load(f))
        except (OSError, ValueError):
            pass  # (a figure drawn before make_plots.py wrote sizes: shown at the column's width)
        generated = os.path.join(self.figures, stem + ".caption")
        if os.path.isfile(generated):
            with open(generated, encoding="utf-8") as f:
                drawn = " ".join(f.read().split()).replace('"', "'")
            for word, prefix in CAPTION_NAMES:
                if re.search(rf"\b{word}\b", caption) and prefix not in drawn:
                    self.problems.add(where, f"the caption of {stem} names {word}, which the figure does not draw "
                                             f"({drawn[:120]}...)")
            return image_html(stem + ".png", caption, f"{caption} {drawn}", min_width, drawn=True,
                              narrow=narrow_rendering(self.figures, stem))
        return image_html(stem + ".png", caption, caption, min_width, drawn=True,
                          narrow=narrow_rendering(self.figures, stem))


# ---- questions with answers -----------------------------------------------------------------------
# Every section's README has a "## Questions" list: numbered questions, each with its answer under it
# (indented into the list item) in a collapsible block, written as a Git host renders it:
#
#   1. Why ...?
#
#      <details><summary>Answer</summary>
#
#      The answer, in Markdown (a blank line after the summary and before the end, so that the
#      host reads it as Markdown, not as raw HTML).
#
#      </details>
#
# Doxygen 1.9 ends a <details> at the end of the paragraph it opens in, so the page gets the two tags
# as \htmlonly[block] (raw HTML outside any paragraph; the answer between them stays Markdown).
QUESTIONS = re.compile(r"^## Questions[ \t]*$", re.M)
ANSWER_OPEN = re.compile(r"^([ \t]*)<details>[ \t]*<summary>(.*?)</summary>[ \t]*$", re.M)
ANSWER_CLOSE = re.compile(r"^([ \t]*)</details>[ \t]*$", re.M)
QUESTION_ITEM = re.compile(r"^(\d+)\.[ \t]+\S", re.M)
QUESTIONS_MIN, QUESTIONS_MAX = 3, 5


def collapsible_for_doxygen(text):
    """The answers' <details> and </details> lines as raw HTML blocks for Doxygen (see above)."""
    text = ANSWER_OPEN.sub(lambda m: f"{m.group(1)}\\htmlonly[block]<details><summary>{m.group(2)}</summary>"
                                     f"\\endhtmlonly", text)
    return ANSWER_CLOSE.sub(lambda m: f"{m.group(1)}\\htmlonly[block]</details>\\endhtmlonly", text)


def questions_problems(text):
    """What is wrong with a section README's questions: no "## Questions" list, fewer than
    QUESTIONS_MIN or more than QUESTIONS_MAX questions, a question without its answer (one
    <details><summary>Answer</summary> ... </details> block inside the item, not empty, with blank
    lines around the answer), or a <details> anywhere without its </details>."""
    problems = []
    opens, closes = len(ANSWER_OPEN.findall(text)), len(ANSWER_CLOSE.findall(text))
    if opens != closes:
        problems.append(f"{opens} <details> lines against {closes} </details> lines")
    m = QUESTIONS.search(text)
    if not m:
        return problems + ["no '## Questions' list (questions for the reader, each with its answer)"]
    end = re.search(r"^## |^<!--\s*gen\s+nav", text[m.end():], re.M)
    body = text[m.end():m.end() + end.start() if end else len(text)]
    line0 = text.count("\n", 0, m.end()) + 1
    starts = list(QUESTION_ITEM.finditer(body))
    if not QUESTIONS_MIN <= len(starts) <= QUESTIONS_MAX:
        problems.append(f"'## Questions' (line {line0}) has {len(starts)} numbered questions; "
                        f"{QUESTIONS_MIN} to {QUESTIONS_MAX} wanted")
    for k, q in enumerate(starts):
        item = body[q.start():starts[k + 1].start() if k + 1 < len(starts) else len(body)]
        where = f"question {q.group(1)} (line {line0 + body.count(chr(10), 0, q.start())})"
        indent = " " * (len(q.group(1)) + 2)
        lines = item.split("\n")
        o = [j for j, x in enumerate(lines) if ANSWER_OPEN.match(x)]
        c = [j for j, x in enumerate(lines) if ANSWER_CLOSE.match(x)]
        if len(o) != 1 or len(c) != 1 or c[0] < o[0]:
            problems.append(f"{where} has no answer: one '{indent}<details><summary>Answer</summary>' ... "
                            f"'{indent}</details>' block under it")
            continue
        if ANSWER_OPEN.match(lines[o[0]]).group(2).strip() != "Answer":
            problems.append(f"{where}: the summary of its answer must read 'Answer'")
        if any(not lines[j].startswith(indent) or lines[j].startswith(indent + " ") for j in (o[0], c[0])):
            problems.append(f"{where}: <details> and </details> must be indented {len(indent)} spaces, into the item")
        answer = lines[o[0] + 1:c[0]]
        if not "".join(answer).strip():
            problems.append(f"{where}: its answer is empty")
        elif answer[0].strip() or answer[-1].strip():
            problems.append(f"{where}: a blank line must follow <summary> and precede </details> "
                            f"(else a Git host shows the answer as raw HTML)")
        # A line that starts with an HTML comment (a gen directive) starts a raw HTML block on a Git
        # host, which cuts the paragraph in two: put a word before the comment.
        for j, x in enumerate(item.split("\n")):
            if x.lstrip().startswith("<!--"):
                problems.append(f"{where}: line {line0 + body.count(chr(10), 0, q.start()) + j} starts with "
                                f"'<!--', which breaks the paragraph on a Git host: put a word before it")
    return problems


# ---- images -------------------------------------------------------------------------------------
# Doxygen 1.9's \image html writes alt="" and no link. A page's figure is raw HTML instead: the image
# with its alt text (the README's words of the caption, without the run's details), linked to the
# full-size file, and the whole caption with a "full-size image" link under it. Doxygen does not copy
# files that only raw HTML names: configure_docs.cmake lists the figures in HTML_EXTRA_FILES.
IMAGE_LINE = re.compile(r'^[ \t]*\\image html (\S+)[ \t]+"([^"]*)"[ \t]*$', re.M)


def caption_html(text):
    """A caption's Markdown (`code`, **bold**) as HTML, everything else escaped."""
    out = html.escape(" ".join(text.split()), quote=True)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    return re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", out)


SMALLEST_TEXT_PX = 10  # no text of a figure is shown smaller than this


def min_width_px(size):
    """How narrow a figure may be shown so that its smallest text stays SMALLEST_TEXT_PX high, from
    make_plots.py's STEM.size ({width_px, smallest_text_px}); None without one."""
    try:
        width, text = float(size["width_px"]), float(size["smallest_text_px"])
    except (KeyError, TypeError, ValueError):
        return None
    if width <= 0 or text <= 0:
        return None
    return int(math.ceil(min(width, width * SMALLEST_TEXT_PX / text)))


# A phone's column (scanlab.css: the page at most NARROW_SCREEN_PX wide) shows the figure's narrow
# rendering (make_plots.py: STEM.narrow.png, drawn so that its text is 10 px at NARROW_COLUMN_PX).
NARROW_SCREEN_PX = 600
NARROW_COLUMN_PX = 400


def narrow_rendering(figures, stem):
    """(file, min_width) of the figure's narrow rendering, if make_plots.py drew one; None if not."""
    if not os.path.isfile(os.path.join(figures, stem + ".narrow.png")):
        return None
    try:
        with open(os.path.join(figures, stem + ".size"), encoding="utf-8") as f:
            width = min_width_px(json.load(f).get("narrow"))
    except (OSError, ValueError, AttributeError):
        width = None
    return stem + ".narrow.png", width


def image_html(src, alt, caption, min_width=None, drawn=False, narrow=None):
    """The figure as a raw HTML block for Doxygen: alt text, a link to the full-size image. A figure
    make_plots.py drew (drawn) sits in a div.scanlab-figure and is never shown narrower than min_width
    (a narrower column scrolls it: scanlab.css; docs/check_site.py checks that it has one). With a
    narrow rendering ((file, min_width): narrow_rendering), a screen up to NARROW_SCREEN_PX wide shows
    that instead, as wide as the column (its min_width, data-min-width, is what check_site.py holds
    against a phone's column)."""
    alt = html.escape(re.sub(r"[`*]", "", " ".join(alt.split())), quote=True)
    src = html.escape(src, quote=True)
    style = f' style="min-width: {min_width}px"' if min_width else ""
    link = f'<a href="{src}"><img src="{src}" alt="{alt}"{style}/></a>'
    if narrow:
        small = html.escape(narrow[0], quote=True)
        at = f' data-min-width="{narrow[1]}"' if narrow[1] else ""
        link = (f'<a href="{src}"><picture><source media="(max-width: {NARROW_SCREEN_PX}px)" srcset="{small}"{at}/>'
                f'<img src="{src}" alt="{alt}"{style}/></picture></a>')
    return (f'\n\\htmlonly[block]<div class="image">' +
            (f'<div class="scanlab-figure">{link}</div>' if drawn else link) +
            f'<div class="caption">{caption_html(caption)} <a class="fullsize" href="{src}">Full-size image</a>'
            f'</div></div>\\endhtmlonly\n')


def committed_narrow(root, src):
    """(file, None) of a committed image's narrow rendering (docs/images/STEM.narrow.png, drawn for a
    phone's column by the script that draws the image), None if it has none."""
    small = src[:-len(".png")] + ".narrow.png" if src.endswith(".png") else None
    if root and small and os.path.isfile(os.path.join(root, "docs", "images", small)):
        return small, None
    return None


def for_doxygen(text, root=None):
    """What Doxygen 1.9 needs in a page: the answers' collapsible blocks as raw HTML, and each
    remaining `\\image html FILE "caption"` line as a figure with alt text and a link (and its narrow
    rendering for a phone where docs/images/ has one: committed_narrow)."""
    text = IMAGE_LINE.sub(lambda m: image_html(m.group(1), m.group(2), m.group(2),
                                               narrow=committed_narrow(root, m.group(1))).strip("\n"), text)
    return long_code_for_doxygen(collapsible_for_doxygen(text))


CODE_SPAN = re.compile(r"`([^`]+)`([.,;:)]*)")  # (left to right: each span's own backticks)
LONG_CODE_CHARS = 30


def long_code_for_doxygen(text):
    """A long code span in running text (a path, a command) with the punctuation after it, in a
    <span class="scanlab-long">: code in text never wraps (scanlab.css), but on a phone a long one
    must, and its comma stays with it. A span may run over two lines of a paragraph; code blocks are
    left alone."""
    def wrap(m):
        long = len(m.group(1)) >= LONG_CODE_CHARS and "\n\n" not in m.group(1)
        return f'<span class="scanlab-long">{m.group(0)}</span>' if long else m.group(0)

    out, prose, fenced = [], [], False
    for line in text.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            code = True
        else:
            code = fenced or line.startswith("    ")
        if code:
            if prose:
                out.append(CODE_SPAN.sub(wrap, "\n".join(prose)))
            prose = []
            out.append(line)
        else:
            prose.append(line)
    if prose:
        out.append(CODE_SPAN.sub(wrap, "\n".join(prose)))
    return "\n".join(out)


HEADING = re.compile(r"^(#{2,4})[ \t]+(.*?)[ \t]*$")


def heading_slugs(text):
    """[(line index, slug)] of the README's ##-#### headings outside code blocks, each slug as a Git host
    makes it (lower case, punctuation dropped, spaces to hyphens, -1, -2 ... for repeats): the anchor
    of a link `../11_3_work_efficiency/README.md#work-and-steps-measured`."""
    out, seen, fence = [], {}, False
    for i, line in enumerate(text.split("\n")):
        if line.lstrip().startswith("```"):
            fence = not fence
            continue
        m = None if fence else HEADING.match(line)
        if m:
            slug = re.sub(r"[^\w\- ]", "", m.group(2).lower()).replace(" ", "-")
            n = seen.get(slug, 0)
            seen[slug] = n + 1
            out.append((i, slug if n == 0 else f"{slug}-{n}"))
    return out


def heading_id(label, slug):
    """The Doxygen id of a section page's heading (page_text gives every heading one)."""
    return f"{label}_{slug.replace('-', '_')}"


def page_link(name, words, section, expander, where, target):
    """A link to a page of the site (docs/pages/NAME): a page of this section (its name starts with
    the section's id, 11_8_persistent.md under 11.8) is its subpage, nested under it in the tree;
    another (the lab notebook, which several sections link) a plain link, the page staying at the top
    of the tree."""
    try:
        with open(os.path.join(expander.root, "docs", "pages", name), encoding="utf-8") as f:
            label = re.search(r"\{#([A-Za-z0-9_]+)\}", f.readline())
    except OSError:
        label = None
    if not label:
        expander.problems.add(where, f"the link to {target}: no such page with a {{#label}} on its first line")
        return words
    own = section and name.startswith("_".join(section["folder"].split("_")[:2]) + "_")
    return f"\\{'subpage' if own else 'ref'} {label.group(1)} \"{words}\""


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
    if label:  # every heading its own id, so that a link to README.md#slug lands on it
        for i, slug in heading_slugs(text):
            lines[i] = f"{lines[i]} {{#{heading_id(label, slug)}}}"
    title = lines[0][2:].strip()
    head = [f"{title} {{#{label}}}" if label else title, "=" * max(3, len(title)), "", "[TOC]"]

    def link(m):
        words, target = " ".join(m.group(1).split()), m.group(2)
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            return m.group(0)
        folder = re.search(r"(?:\.\./)?(11_[0-9][A-Za-z0-9_]*)/README\.md(?:#([a-z0-9_-]+))?$", target)
        if folder:
            s = next((s for s in expander.sections if s["folder"] == folder.group(1)), None)
            if s and folder.group(2):  # a heading of that page: its README must have it
                try:
                    with open(os.path.join(expander.root, "chapters", s["folder"], "README.md"), encoding="utf-8") as f:
                        slugs = [slug for _, slug in heading_slugs(f.read())]
                except OSError:
                    slugs = []
                if folder.group(2) in slugs:
                    return f"\\ref {heading_id(s['label'], folder.group(2))} \"{words}\""
                expander.problems.add(where, f"the link to {target}: {s['folder']}/README.md has no heading "
                                             f"#{folder.group(2)}")
            if s:
                return f"\\ref {s['label']} \"{words}\""
        answers = re.search(r"(?:solutions|exercises)/(11_[0-9][A-Za-z0-9_]*)/ANSWERS\.md$", target)
        if answers:  # a section's worksheet of answers: Doxygen's page of the tree the site shows
            tree = "exercises" if expander.exercises else "solutions"
            if os.path.isfile(os.path.join(expander.root, tree, answers.group(1), "ANSWERS.md")):
                return f"\\ref md_{tree}_{answers.group(1)}_ANSWERS \"{words}\""
            return words
        page = re.search(r"docs/pages/([A-Za-z0-9_.-]+\.md)$", target)
        if page:
            return page_link(page.group(1), words, section, expander, where, target)
        return words  # a file of the repository: its name is in the words; the site has no copy
    body = LINK.sub(link, "\n".join(lines[1:]))  # (a link's words may run over two lines)
    if section and not re.search(r"<!--\s*gen\s+nav", text_in):
        nav = expander.nav(section, True)[0]
        body = nav + "\n" + body.rstrip("\n") + "\n\n" + nav
    return for_doxygen("\n".join(head) + "\n" + body, expander.root)


def main(argv=None):
    p = argparse.ArgumentParser(prog=PROG, description=__doc__.split("\n")[0])
    p.add_argument("--root", required=True)
    p.add_argument("--generated", default="", help="where the counts and traces of the docs build are")
    p.add_argument("--out", help="folder for the pages")
    p.add_argument("--figures", default="", help="folder of the drawn figures")
    p.add_argument("--exercises", action="store_true", help="show the stubs of exercises/ in the pages")
    p.add_argument("--strict", action="store_true", help="any problem is an error")
    p.add_argument("--update", action="store_true", help="rewrite the generated parts of the READMEs and docs/pages")
    p.add_argument("--check", action="store_true",
                   help="a README or page whose generated parts are out of date is an error (else a warning); "
                        "so is a number typed on a page that the committed data has (--typed)")
    p.add_argument("--typed", action="store_true",
                   help="only check for numbers typed on the pages that the committed data has")
    p.add_argument("--questions", action="store_true",
                   help="only check that every section's README has its questions, each with its answer")
    p.add_argument("--committed", action="store_true",
                   help="this build made no runs (no cpu backend, or the docs of the stubs): keep the READMEs' "
                        "copies of counts and traces, and leave out the figures drawn from runs")
    a = p.parse_args(argv)
    if not a.generated and not a.typed and not a.questions:
        p.error("--generated is needed (except with --typed and --questions)")
    sections = read_sections(a.root)
    ex = Expander(a.root, a.generated, a.figures, a.exercises, sections, a.committed)
    sources = [(s, os.path.join(a.root, "chapters", s["folder"], "README.md")) for s in sections]
    sources += [(None, path) for path in sorted(glob.glob(os.path.join(a.root, "docs", "pages", "*.md")))]
    typed = check_typed(a.root, [path for _, path in sources if os.path.isfile(path)]) if a.check or a.typed else []
    for item in typed:
        print(f"{PROG}: error: {item}", file=sys.stderr)
    # Every section page has its questions with answers (an error in every mode but --typed).
    questions = []
    if not a.typed:
        for section, path in sources:
            if section and os.path.isfile(path):
                with open(path, encoding="utf-8") as f:
                    questions += [f"{os.path.relpath(path, a.root)}: {item}" for item in questions_problems(f.read())]
    for item in questions:
        print(f"{PROG}: error: {item}", file=sys.stderr)
    if a.typed or a.questions:
        return 1 if typed or questions else 0
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
            if fresh != text:
                with open(path, "w", encoding="utf-8") as f:
                    f.write(fresh)
                print(f"{PROG}: updated {where}")
        elif fresh != text and not a.committed:
            stale.append(where)  # (a README or a page of docs/pages/: both keep copies)
        if a.out:
            name = f"section_{section['folder']}.md" if section else os.path.basename(path)
            with open(os.path.join(a.out, name), "w", encoding="utf-8") as f:
                f.write(page_text(text, section, ex, where) if section
                        else for_doxygen(ex.expand(text, None, where, True), ex.root))
    for item in ex.problems.items:
        print(f"{PROG}: {'error' if a.strict or item in ex.problems.errors else 'warning'}: {item}", file=sys.stderr)
    # A README whose copy of the code or the counts is older than the code: its page is right (made
    # from the code), the Git host's text is not. An error only with --check (ctest docs.readmes).
    for where in stale:
        print(f"{PROG}: {'error' if a.check else 'warning'}: {where}: its generated parts differ from what the "
              f"code and the runs give now; to refresh them: python3 docs/make_pages.py --root . "
              f"--generated {a.generated} --update", file=sys.stderr)
    return 1 if (a.strict and ex.problems.items) or ex.problems.errors or questions or (a.check and (stale or typed)) else 0


if __name__ == "__main__":
    sys.exit(main())
