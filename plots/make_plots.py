#!/usr/bin/env python3
"""Draws scanlab's figures from the data its programs write (never from their printed output).

    make_plots.py --data DIR --out DIR [--gpu-data DIR] [--only work,steps,trace,bandwidth,banks,statuses]

Reads, in --data:
  *.json  "scanlab.work_efficiency/1" (scanlab_11_3 --json FILE): operator applications and steps
          per algorithm and n, measured by the emulator, with the model and the book's formulas;
          "scanlab.trace/1" (scanlab_11_3 --trace FILE): the shared arrays after every barrier of an
          8- and a 16-element scan; "scanlab.banks/1" (scanlab_11_4_banks FILE): the shared-memory
          word each operator application of the Brent-Kung trees read and wrote, both layouts, on the
          emulator; "scanlab.statuses/1" (scanlab_11_8_statuses FILE): the tickets, flags and tile statuses
          of 11.7's domino and 11.8's look-back, every atomic on them in the order the emulator ran
          them; other JSON files are passed over.
  *.csv   timings (device, algorithm, n, median_us or median_ms, gbps; optionally type, verified,
          backend), read by docs/measurements/measurements.py, the reader the pages use too: the
          section programs' --csv files and scanlab_bench's. Emulator (backend cpu) and unverified
          rows are not drawn; tuning sweeps (*_sweep_*.csv) are records, not figures.
  --gpu-data (default plots/data/): the committed GPU runs each section figure names (SECTION_FIGURES,
          APPLICATIONS_RUN).
Writes, in --out (PNG and SVG each):
  work_vs_n         operator applications against n (log-log), measured and the book's formulas
  steps_vs_n        steps on P = 32, 128, 1024 execution units, thread and warp granularity, and
                    the book's estimates, with the book's worked examples marked
  trace_<source>_<algorithm>_n<N>   the array after each step, drawn like the book's figures: a
                    row per array that changed, labelled by its stride or phase, an arrow per operand
  brent_kung_banks  the bank of each lane of warp 0 at every stride of both trees, not padded and
                    padded (GPU Gems 3, ch. 39), with the conflicts of the whole block per step; its
                    caption (brent_kung_banks.caption) gives the block's totals
  statuses_11_7, statuses_11_8   tiles across, the emulator's turns down: each tile's flag or status
                    (X not ready, A aggregate, P inclusive prefix) and an arrow for every status read,
                    as Merrill and Garland draw the look-back; the caption (.caption) sums up the run
  the section figures (SECTION_FIGURES: kogge_stone_variants, kogge_stone_vs_brent_kung,
                    coarsened_shapes, hierarchical_bandwidth, single_pass_bandwidth,
                    full_scans_bandwidth, decoupled_lookback_bandwidth) and bandwidth_applications
                    (11.9 against CUB), each from one CSV of --gpu-data
  bandwidth_<csv>_<type>[_in_block|_libraries], bandwidth_<csv>_applications   per run of --data
Every bandwidth figure draws one run, and every verified point of each curve it draws: a point the
run lacks is a gap in its own curve. GB/s against n (log-log) on top; below, the same n compared on a
linear axis (the time over CUB's and the share of the copy's bandwidth, when the run has them, else
the time over one kernel's of the run). Its caption, made from the CSV (the run's file, device, date,
timing, each curve's points), is written beside it as <stem>.caption for docs/make_pages.py. Every
algorithm has one colour and marker in every figure (STYLE).
A missing or malformed input file is one line on stderr, "make_plots.py: error: ...", and exit 1.
"""
import argparse
import glob
import json
import math
import os
import re
import sys

PROG = "make_plots.py"
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "docs", "measurements"))
import measurements  # noqa: E402  (the one reader of the measurement CSVs)
WORK_SCHEMA = "scanlab.work_efficiency/1"
TRACE_SCHEMA = "scanlab.trace/1"
BANKS_SCHEMA = "scanlab.banks/1"
ALL_PLOTS = ("work", "steps", "trace", "bandwidth", "banks", "statuses")
DEFAULT_PLOTS = ("work", "steps", "trace", "bandwidth")  # (banks, statuses: the docs build asks for them)

# One colour and marker per algorithm, the same in every figure (the family's colour for its
# first-named algorithm in the work and step figures). Names as the CSVs and JSON files spell them,
# without the "11.x/" prefix of the full-scan runs.
STYLE = {
    "sequential": ("#555555", "x"),
    "kogge_stone": ("#d62728", "o"),
    "kogge_stone_double_buffer": ("#ff9896", "s"),
    "kogge_stone_warp_shuffle": ("#8c564b", "^"),
    "brent_kung": ("#1f77b4", "v"),
    "brent_kung_padded": ("#6baed6", "s"),
    "coarsened": ("#2ca02c", "p"),
    "coarsened_256x4": ("#98df8a", "s"),
    "coarsened_64x16": ("#006d2c", "D"),
    "hierarchical_kogge_stone": ("#e377c2", ">"),
    "hierarchical_brent_kung": ("#9467bd", "<"),
    "hierarchical_coarsened": ("#5e3c99", "v"),
    "single_pass": ("#ff7f0e", "P"),
    "decoupled_lookback": ("#000000", "*"),
    "cub_inclusive_sum": ("#bcbd22", "X"),
    "cub_inclusive_scan_max": ("#dbdb8d", "x"),
    "thrust_inclusive_scan": ("#17becf", "d"),
    "memcpy": ("#7f7f7f", "h"),
    "persistent": ("#8c6d31", "H"),
    # Section 11.9's applications and their CUB counterparts (scanlab_bench).
    "compact_persistent": ("#843c39", "H"),
    "compact_single_pass": ("#d6616b", "*"),
    "compact": ("#e7969c", "o"),
    "partition_persistent": ("#0b7285", "H"),
    "partition_single_pass": ("#393b79", "*"),
    "partition": ("#6b6ecf", "o"),
    "segmented_scan": ("#637939", "*"),
    "cub_select_if": ("#e7ba52", "X"),
    "cub_partition_if": ("#8ca252", "X"),
    "cub_inclusive_sum_by_key": ("#7b4173", "X"),
}
# Other names of the same algorithm in the CSVs (the benchmark's and the section programs').
ALIASES = {"persistent_pipelined": "persistent"}
LIBRARIES = ("cub_", "thrust_")
EXTRA_COLOURS = ["#e6550d", "#31a354", "#756bb1", "#636363", "#de2d26", "#3182bd", "#a1d99b", "#fdae6b"]
COLOURS = {family: STYLE[family][0] for family in ("sequential", "kogge_stone", "brent_kung", "coarsened")}
COLOURS["other"] = "#9467bd"
LABELS = {
    "sequential": "sequential (11.1)",
    "kogge_stone": "Kogge-Stone (11.2)",
    "brent_kung": "Brent-Kung (11.4)",
    "coarsened": "coarsened (11.5)",
}
# The kernels that scan one block's section (the in-block figures); every other algorithm scans the
# whole array (the full-scan figures).
IN_BLOCK = ("kogge_stone", "brent_kung", "coarsened")
MAX_CURVES = 8  # per panel: more are not told apart


def base_name(algorithm):
    name = algorithm.split("/", 1)[1] if "/" in algorithm else algorithm
    return ALIASES.get(name, name)


def style_of(algorithm):
    """(colour, marker) of an algorithm: its own, or (a new kernel) one derived from its name."""
    name = base_name(algorithm)
    if name in STYLE:
        return STYLE[name]
    k = sum(map(ord, name))
    return EXTRA_COLOURS[k % len(EXTRA_COLOURS)], "ovs^D<>P"[k % 8]


def is_in_block(algorithm):
    return base_name(algorithm).startswith(IN_BLOCK)


class PlotError(Exception):
    """A problem with the inputs: reported as one line, exit status 1."""


# ---- reading --------------------------------------------------------------------------------------

def read_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except json.JSONDecodeError as e:
        raise PlotError(f"{path} is not valid JSON (line {e.lineno}, column {e.colno}: {e.msg})")
    except OSError as e:
        raise PlotError(f"cannot read {path}: {e.strerror}")


def need(obj, key, kind, path, where):
    """obj[key], checked to be of `kind`; else a PlotError naming the file and the place."""
    if not isinstance(obj, dict) or key not in obj:
        raise PlotError(f"{path}: {where} has no '{key}' (not a file scanlab_11_3 wrote, or an old one)")
    value = obj[key]
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if isinstance(value, bool) and bool not in kinds:
        raise PlotError(f"{path}: {where}: '{key}' is {value!r}, expected a {kinds[0].__name__}")
    if not isinstance(value, kinds):
        raise PlotError(f"{path}: {where}: '{key}' is {value!r}, expected a {kinds[0].__name__}")
    return value


def check_work(doc, path):
    ps = need(doc, "p", list, path, "the file")
    if not ps or not all(isinstance(p, int) and p > 0 for p in ps):
        raise PlotError(f"{path}: 'p' must list positive whole numbers, not {ps!r}")
    rows = need(doc, "rows", list, path, "the file")
    for i, row in enumerate(rows):
        where = f"row {i + 1}"
        need(row, "algorithm", str, path, where)
        need(row, "family", str, path, where)
        need(row, "n", int, path, where)
        need(row, "verified", bool, path, where)
        need(row, "threads", int, path, where)
        need(row, "section_size", int, path, where)
        need(row, "work_measured", int, path, where)
        need(row, "steps_unlimited", int, path, where)
        steps = need(row, "steps", dict, path, where)
        for p in ps:
            cell = need(steps, str(p), dict, path, f"{where} steps")
            for key in ("thread", "warp"):
                need(cell, key, (int, float), path, f"{where} steps P = {p}")
            if cell.get("book") is not None:
                need(cell, "book", (int, float), path, f"{where} steps P = {p}")
    for i, ex in enumerate(need(doc, "book_examples", list, path, "the file")):
        where = f"book example {i + 1}"
        need(ex, "algorithm", str, path, where)
        need(ex, "book", (int, float), path, where)
        need(ex, "n", int, path, where)
    return doc


def check_trace(doc, path):
    for i, run in enumerate(need(doc, "runs", list, path, "the file")):
        where = f"run {i + 1}"
        need(run, "algorithm", str, path, where)
        n = need(run, "n", int, path, where)
        need(run, "verified", bool, path, where)
        for key in ("input", "output"):
            values = need(run, key, list, path, where)
            if len(values) != n or not all(isinstance(v, int) for v in values):
                raise PlotError(f"{path}: {where}: '{key}' must hold {n} whole numbers")
        for j, frame in enumerate(need(run, "frames", list, path, where)):
            fw = f"{where} frame {j + 1}"
            need(frame, "launch", int, path, fw)
            need(frame, "step", int, path, fw)
            need(frame, "name", str, path, fw)
            need(frame, "label", str, path, fw)  # the step's name (common/src/trace_labels.cpp)
            for c in need(frame, "combos", list, path, fw):  # and how it was made
                if (not isinstance(c, dict) or c.get("kind") not in ("copy", "combine") or not isinstance(c.get("target"), int)
                        or not (isinstance(c.get("left"), list) and len(c["left"]) == 2)
                        or not (c.get("right") is None or isinstance(c["right"], list) and len(c["right"]) == 2)):
                    raise PlotError(f"{path}: {fw}: each combination is {{kind: copy|combine, target, left: [frame, i], "
                                    f"right: [frame, i] or null}}, got {c}")
            values = need(frame, "values", list, path, fw)
            if not all(isinstance(v, str) for v in values):
                raise PlotError(f"{path}: {fw}: 'values' must be strings")
    return doc


def load(data_dir):
    """The work, trace and bank JSON files and the timing runs (measurements.Run, one per CSV) in data_dir."""
    if not os.path.isdir(data_dir):
        raise PlotError(f"--data {data_dir} is not a folder (give the folder the programs wrote their JSON/CSV to)")
    work, traces, runs, notes = [], [], [], []
    banks, statuses = [], []
    for path in sorted(glob.glob(os.path.join(data_dir, "*.json"))):
        doc = read_json(path)
        schema = doc.get("schema") if isinstance(doc, dict) else None
        if schema == WORK_SCHEMA:
            work.append((path, check_work(doc, path)))
        elif schema == TRACE_SCHEMA:
            traces.append((path, check_trace(doc, path)))
        elif schema == BANKS_SCHEMA:
            banks.append((path, check_banks(doc, path)))
        elif schema == STATUSES_SCHEMA:
            statuses.append((path, check_statuses(doc, path)))
        else:
            notes.append(f"{os.path.basename(path)}: not a work or trace file, passed over")
    for path in sorted(glob.glob(os.path.join(data_dir, "*.csv"))):
        if "_sweep_" not in os.path.basename(path):
            run = read_run(path)
            if run is not None and any(r.verified and r.backend != "cpu" for r in run.rows):
                runs.append(run)
    return work, traces, banks, statuses, runs, notes


def read_run(path):
    """The timing run of one CSV (docs/measurements/measurements.py reads it), None if the CSV is of
    another kind; a malformed one is a PlotError."""
    try:
        run = measurements.read_timings(path)
        if run is not None:
            run.table()  # (a key measured twice in one run is an error)
        return run
    except measurements.MeasurementError as e:
        raise PlotError(str(e)) from None


# ---- drawing --------------------------------------------------------------------------------------

PNG_DPI = 130
PNG_ONLY = False  # --png-only: no SVG (the docs show the PNGs)


def smallest_text_pt(fig):
    """The size in points of the smallest text the figure shows (titles, labels, ticks, legends, cells)."""
    from matplotlib.text import Text
    sizes = [t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]
    return min(sizes) if sizes else 10.0


def png_width(path):
    with open(path, "rb") as f:
        return int.from_bytes(f.read(24)[16:20], "big")  # (the PNG's IHDR: width, then height)


def save(fig, out_dir, stem, written, narrow=None):
    """STEM.png and STEM.svg (not with --png-only), STEM.narrow.png, the same figure laid out for a
    phone (narrow(): a figure drawn for it; else narrow_grid re-lays this one), and STEM.size: each
    PNG's width in pixels and its smallest text's height in them, from which a page sets how narrow
    each may be shown (docs/make_pages.py: no text under 10 px as displayed)."""
    import matplotlib.pyplot as plt
    for ext in ("png",) + (() if PNG_ONLY else ("svg",)):
        path = os.path.join(out_dir, f"{stem}.{ext}")
        fig.savefig(path, dpi=PNG_DPI if ext == "png" else None, bbox_inches="tight")
        written.append(path)
    size = {"width_px": png_width(os.path.join(out_dir, f"{stem}.png")),
            "smallest_text_px": round(smallest_text_pt(fig) * PNG_DPI / 72, 2)}
    small = narrow() if narrow else narrow_grid(fig)
    path = os.path.join(out_dir, f"{stem}.narrow.png")
    small.savefig(path, dpi=PNG_DPI, bbox_inches="tight")
    written.append(path)
    size["narrow"] = {"width_px": png_width(path), "smallest_text_px": round(smallest_text_pt(small) * PNG_DPI / 72, 2)}
    with open(os.path.join(out_dir, f"{stem}.size"), "w", encoding="utf-8") as f:
        json.dump(size, f)
    plt.close(fig)
    plt.close(small)


# ---- the narrow rendering: a phone's column --------------------------------------------------------
# A page 420 px wide (a phone) has a text column of about NARROW_COLUMN_PX (scanlab.css: no tree of
# pages, 6-px margins). A figure for it is drawn so narrow that, shown at that width, its smallest
# text is still SMALLEST_TEXT_PX high: the page serves it there instead of the wide one (<picture>).

NARROW_COLUMN_PX = 400
SMALLEST_TEXT_PX = 10


def narrow_width_in(fig):
    """The width (inches) at which the figure's smallest text, shown NARROW_COLUMN_PX wide, is
    SMALLEST_TEXT_PX high (less a margin for what bbox_inches="tight" adds)."""
    return 0.94 * NARROW_COLUMN_PX / SMALLEST_TEXT_PX * smallest_text_pt(fig) / 72


def wrap_text(text, width_in):
    """A Text's string re-wrapped, line by line, to width_in inches at its font size (a character:
    ~0.6 em); returns its number of lines."""
    if "$" not in text.get_text():
        text.set_text(wrap_words(text.get_text(), width_in, text.get_fontsize()))
    return text.get_text().count("\n") + 1 if text.get_text().strip() else 0


def wrap_words(words, width_in, size):
    """words wrapped to width_in inches at size points; a line break of theirs stays, unless it only
    wrapped a long line (one of 60 characters or more goes on with the next)."""
    import textwrap
    chars = max(12, int(width_in * 72 / (0.6 * size)))
    paragraphs = [""]
    for line in words.split("\n"):
        paragraphs[-1] = (paragraphs[-1] + " " + line).strip()
        if len(line) < 60:
            paragraphs.append("")
    return "\n".join(w for p in paragraphs if p for w in textwrap.wrap(p, chars))


def reading_order(fig):
    """The figure's panels top to bottom, left to right, each followed by those that share its x axis
    (a GB/s panel, then its comparisons)."""
    axes = sorted((ax for ax in fig.axes if ax.get_visible()),
                  key=lambda ax: (-round(ax.get_position().y1, 2), ax.get_position().x0))
    order = []
    for ax in axes:
        if ax not in order:
            order.append(ax)
            order += [b for b in axes if b not in order and ax.get_shared_x_axes().joined(ax, b)]
    return order


def narrow_grid(fig):
    """The figure's panels one above another at narrow_width_in, every title and note re-wrapped to
    that width, the figure's legend in one column above the panels and each panel's own legend under
    it (so it covers no curve); the text keeps its size. For figures of panels (curves, not
    diagrams, which draw their own narrow layout)."""
    width = narrow_width_in(fig)
    line = 1.4 / 72  # inches per point of text: one line
    left, right = 0.85, 0.15  # inches: the y axis's label and ticks; the last tick label's half
    axes = reading_order(fig)
    boxes = []  # per panel: room above (title), its height, room below (x labels, its legend)
    for ax in axes:
        above = sum(wrap_text(t, width - left) * t.get_fontsize() * line for t in (ax.title, ax._left_title,
                                                                                    ax._right_title)) + 0.15
        below = 0.65 if ax.get_xlabel() else 0.35
        old, new = ax.get_legend(), None
        if old:
            size = old.get_texts()[0].get_fontsize() if old.get_texts() else LEGEND_SIZE
            handles, labels = ax.get_legend_handles_labels()
            labels = [wrap_words(label, width - 0.75, size) for label in labels]
            new = ax.legend(handles, labels, loc="upper left", fontsize=size, frameon=False)
            below += sum(label.count("\n") + 1 for label in labels) * size * line + 0.15
        h = ax.get_position().height * fig.get_size_inches()[1]
        boxes.append((above, min(3.2, max(2.0, 0.7 * h)), below, new))
    head = 0.1
    title_in = 0
    if fig._suptitle is not None:
        title_in = wrap_text(fig._suptitle, width) * fig._suptitle.get_fontsize() * line + 0.1
        head += title_in
    legends = []
    for old in list(fig.legends):
        size = old.get_texts()[0].get_fontsize() if old.get_texts() else LEGEND_SIZE
        handles = old.legend_handles if hasattr(old, "legend_handles") else old.legendHandles
        legends.append((handles, [wrap_words(t.get_text(), width - 0.75, size) for t in old.get_texts()], size))
        old.remove()
    head += sum(sum(label.count("\n") + 1 for label in labels) * size * line + 0.15 for _, labels, size in legends)
    notes = [t for t in fig.texts if t is not fig._suptitle and t.get_visible() and t.get_text().strip()]
    foot = sum(wrap_text(t, width) * t.get_fontsize() * line for t in notes)
    total = head + sum(a + h + b for a, h, b, _ in boxes) + foot + 0.1
    fig.set_size_inches(width, total)
    y = total - 0.1
    if fig._suptitle is not None:
        fig._suptitle.set_position((0.5, y / total))
        fig._suptitle.set_va("top")
        y -= title_in
    for handles, labels, size in legends:
        fig.legend(handles, labels, loc="upper left", bbox_to_anchor=(0.02, y / total), ncol=1, fontsize=size,
                   frameon=False)
        y -= sum(label.count("\n") + 1 for label in labels) * size * line + 0.15
    for ax, (above, h, below, legend) in zip(axes, boxes):
        y -= above + h
        ax.set_position([left / width, y / total, (width - left - right) / width, h / total])
        if legend:  # under the panel's x labels
            legend.set_bbox_to_anchor((-left / (width - left - right), -(0.6 if ax.get_xlabel() else 0.3) / h),
                                      transform=ax.transAxes)
        y -= below
    for t in notes:
        t.set_position((0.01, 0.05 / total))
        t.set_ha("left")
        t.set_va("bottom")
    return fig


def pick_work(work):
    """The solution's work file if there is one (else the exercise's), and its source."""
    for path, doc in work:
        if doc.get("source") == "solution":
            return path, doc
    return work[0]


def series(doc):
    """{algorithm: [rows sorted by n]}, verified rows only, in the order the file has them."""
    out = {}
    for row in doc["rows"]:
        if row["verified"]:
            out.setdefault(row["algorithm"], []).append(row)
    for rows in out.values():
        rows.sort(key=lambda r: r["n"])
    return out


def coarsening_factor(rows):
    """Elements per thread of a coarsened scan (its section over its threads), from its largest run."""
    r = max(rows, key=lambda r: r["n"])
    return max(1, r["section_size"] // max(1, r["threads"]))


def algorithm_label(name, rows):
    family = rows[0]["family"]
    if family == "coarsened":
        return f"{name} (11.5, {coarsening_factor(rows)} elements per thread)"
    return LABELS.get(family, name) if name == family else name


def style_for(name, rows, index_in_family):
    return style_of(name)


def book_work(family, n, t):
    if family == "sequential":
        return n - 1
    if family == "kogge_stone":
        return n * math.log2(n) - (n - 1)
    if family == "brent_kung":
        return 2 * n - 2 - math.log2(n)
    if family == "coarsened":
        return (n - t) + t * math.log2(t) + (n - t)
    return None


def plot_work(doc, source_note, out_dir, written):
    import matplotlib.pyplot as plt
    # The in-block scans and the sequential one (the full scans of 11.6 have no formula of the book;
    # more curves would not be told apart).
    data = {name: rows for name, rows in series(doc).items() if rows[0]["family"] in LABELS}
    parallel_max = max((r["n"] for rows in data.values() for r in rows if r["family"] != "sequential"), default=0)
    if parallel_max:  # every curve over the same range: the sequential scan's too
        data = {name: [r for r in rows if r["n"] <= parallel_max] for name, rows in data.items()}
    if not data:
        raise PlotError("the work file has no verified row to draw")
    # One panel above the other, 8.5 inches wide: a page column of 840 px shows its smallest text (10 pt)
    # at 13 px (docs/make_pages.py sets the width below which the page scrolls it instead).
    fig, (ax, ax_ratio) = plt.subplots(2, 1, figsize=(8.5, 13))
    n_all = sorted({r["n"] for rows in data.values() for r in rows})
    n_lo, n_hi = max(2, min(n_all)), max(n_all)
    grid = [n_lo * (n_hi / n_lo) ** (k / 200) for k in range(201)]
    drawn_formula = set()
    per_family = {}
    for name, rows in data.items():
        family = rows[0]["family"]
        k = per_family.get(family, 0)
        per_family[family] = k + 1
        colour, marker = style_for(name, rows, k)
        label = algorithm_label(name, rows)
        full = [r for r in rows if r["family"] == "sequential" or r["section_size"] in (0, r["n"])]
        padded = [r for r in rows if r not in full]
        for ax_, value in ((ax, lambda r: r["work_measured"]),
                           (ax_ratio, lambda r: r["work_measured"] / max(r["n"] - 1, 1))):
            if full:
                ax_.plot([r["n"] for r in full], [value(r) for r in full], marker, color=colour, ms=6,
                         label=label + " (measured)" if ax_ is ax else None, zorder=3)
            if padded:
                ax_.plot([r["n"] for r in padded], [value(r) for r in padded], marker, color=colour, ms=6,
                         mfc="none", zorder=3,
                         label=(label + ": padded section") if ax_ is ax else None)
        # The book's formula as a line (one per family; per factor f, T = N / f, for the coarsened scan).
        f = coarsening_factor(rows) if family == "coarsened" else 1
        key = (family, f)
        if family in LABELS and key not in drawn_formula:
            drawn_formula.add(key)
            xs = [n for n in grid if n >= 2 * f]
            if xs:
                ys = [book_work(family, n, n / f) for n in xs]
                text = {"sequential": "N - 1", "kogge_stone": "N log2 N - (N - 1)",
                        "brent_kung": "2N - 2 - log2 N",
                        "coarsened": f"2(N - T) + T log2 T, T = N / {f}"}[family]
                dashes = [(None), (0, (6, 2)), (0, (2, 2)), (0, (6, 2, 2, 2))][len([k for k in drawn_formula if k[0] == family]) % 4 - 1]
                ls = "-" if dashes is None else dashes
                ax.plot(xs, ys, linestyle=ls, color=colour, lw=1.2, alpha=0.6, label=f"book: {text}")
                ax_ratio.plot(xs, [y / max(n - 1, 1) for n, y in zip(xs, ys)], linestyle=ls, color=colour, lw=1.2,
                              alpha=0.6)
    for a in (ax, ax_ratio):
        a.set_xscale("log", base=2)
        a.set_xlabel("N (elements scanned)")
        a.grid(True, which="both", alpha=0.25)
    ax.set_yscale("log")
    ax.set_ylabel("operator applications")
    ax.set_title("Work: markers measured by the emulator, lines the book's formulas", fontsize=10)
    ax_ratio.set_yscale("log", base=2)
    ax_ratio.set_ylabel("work / (N - 1)")
    ax_ratio.set_title("Times the sequential scan's work: Kogge-Stone ~ log2 N, Brent-Kung < 2", fontsize=10)
    ax_ratio.axhline(2, color=COLOURS["brent_kung"], lw=0.8, ls=":")
    fig.subplots_adjust(bottom=0.25, top=0.91, hspace=0.28)
    fig.legend(*ax.get_legend_handles_labels(), loc="lower center", ncol=2, fontsize=10, frameon=False,
               bbox_to_anchor=(0.5, 0.0))
    import textwrap
    fig.suptitle("\n".join(textwrap.wrap(f"Section 11.3: work efficiency{source_note}", 90)) + "\n" + "\n".join(
        textwrap.wrap("Hollow markers: N is not a power of two; the kernel pads its section to one with the "
                      "identity, and works on the padding too", 90)), fontsize=10)
    save(fig, out_dir, "work_vs_n", written)


def plot_steps(doc, source_note, out_dir, written):
    import matplotlib.pyplot as plt
    everything = series(doc)
    # One algorithm per family keeps the panels readable: the first of each in the file, except the
    # coarsened scan of the book's example (64 threads for 1024 elements) when there is one.
    preferred = {ex.get("measured_algorithm") for ex in doc["book_examples"] if ex.get("measured_algorithm")}
    chosen = {}
    for name, rows in everything.items():
        family = rows[0]["family"]
        if family not in LABELS:
            continue
        if family not in chosen or (name in preferred and chosen[family] not in preferred):
            chosen[family] = name
    data = {name: rows for name, rows in everything.items() if name in chosen.values()}
    parallel_max = max((r["n"] for rows in data.values() for r in rows if r["family"] != "sequential"), default=0)
    if parallel_max:  # the sequential scan only over the range of the parallel ones
        data = {name: [r for r in rows if r["family"] != "sequential" or r["n"] <= parallel_max]
                for name, rows in data.items()}
    same = all(r["steps"][str(p)]["thread"] == r["steps"][str(p)]["warp"]
               for rows in data.values() for r in rows for p in doc["p"])
    ps = doc["p"]
    shown = [p for p in (32, 128, 1024) if p in ps] or ps[:3]
    # The panels one above another, 8.5 inches wide (as work_vs_n: 10-pt text at 13 px in an 840-px column).
    fig, axes = plt.subplots(len(shown), 1, figsize=(8.5, 4.3 * len(shown) + 4.6), squeeze=False)
    axes = axes[:, 0]
    for ax, p in zip(axes, shown):
        key = str(p)
        per_family = {}
        for name, rows in data.items():
            family = rows[0]["family"]
            k = per_family.get(family, 0)
            per_family[family] = k + 1
            colour, marker = style_for(name, rows, k)
            label = algorithm_label(name, rows)
            rows = [r for r in rows if r["n"] & (r["n"] - 1) == 0] or rows  # powers of two: clean lines
            ns = [r["n"] for r in rows]
            thread = [r["steps"][key]["thread"] for r in rows]
            warp = [r["steps"][key]["warp"] for r in rows]
            book = [r["steps"][key].get("book") for r in rows]
            ax.plot(ns, thread, "-" + marker, color=colour, ms=4, lw=1.4, label=f"{label}: thread granularity")
            if family != "sequential":
                ax.plot(ns, warp, "--", color=colour, lw=1.2, label=f"{label}: warp granularity (32 lanes)")
            if family in LABELS and family != "sequential" and all(b is not None for b in book):
                ax.plot(ns, book, ":", color=colour, lw=1.6, alpha=0.8, label=f"{label}: book estimate")
        if p == 32:
            for ex in doc["book_examples"]:
                family = ex["algorithm"]
                colour = style_of(ex.get("measured_algorithm") or family)[0]
                ax.plot([ex["n"]], [ex["book"]], "*", color=colour, ms=15, mec="black", mew=0.6, zorder=5)
                measured = ex.get("measured_thread")
                text = f"book: {ex['book']:g}"
                if measured is not None:
                    text += f"\nmeasured: {measured}"
                    if ex.get("measured_warp") not in (None, measured):
                        text += f" / warp {ex['measured_warp']}"
                where = {"kogge_stone": (0.04, 0.80), "brent_kung": (0.70, 0.22), "coarsened": (0.04, 0.55)}
                name = {"kogge_stone": "Kogge-Stone", "brent_kung": "Brent-Kung"}.get(family, family)
                ax.annotate(f"{name}, {ex.get('measured_threads', '?')} threads\n{text}", (ex["n"], ex["book"]),
                            xytext=where.get(family, (0.05, 0.5)), textcoords="axes fraction", fontsize=10,
                            color=colour, arrowprops=dict(arrowstyle="->", color=colour, lw=0.8))
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("N (elements scanned)")
        ax.set_ylabel("steps")
        ax.set_title(f"P = {p} execution units")
        ax.grid(True, which="both", alpha=0.25)
    handles, labels = axes[0].get_legend_handles_labels()
    import textwrap
    fig.subplots_adjust(bottom=0.14, top=0.9, hspace=0.3)
    fig.legend(handles, labels, loc="lower center", ncol=2, fontsize=10, frameon=False, bbox_to_anchor=(0.5, 0.0))
    lines = [f"Section 11.3: steps on P execution units{source_note}",
             "steps = sum over barrier intervals of ceil(active / P) x (most applications by one thread); "
             "active = threads applying (solid) or 32 x warps applying (dashed)",
             "dotted: the book's estimate (work / P, at least the steps with unlimited units); "
             "stars: the book's worked examples (1024 elements, P = 32)"]
    if same:
        lines.append("dashed lies on solid: these kernels keep their applying threads packed in whole warps")
    fig.suptitle("\n".join(w for line in lines for w in textwrap.wrap(line, 90)), fontsize=10)
    save(fig, out_dir, "steps_vs_n", written)


# -- traces --

def decode(value, n):
    """The run of inputs x_lo..x_hi a traced value sums, when the input is x_i = 2^i; None if the
    value is not such a run (a wrong partial result), '?' if never written."""
    if value == "?":
        return "?"
    try:
        v = int(value)
    except ValueError:
        return None
    if v == 0:
        return ()  # the identity: sums nothing (padding)
    if v < 0 or v >= (1 << n):
        return None
    lo = (v & -v).bit_length() - 1
    hi = v.bit_length() - 1
    if v != ((1 << (hi + 1)) - (1 << lo)):
        return None
    return (lo, hi)


def cell_text(run):
    if run == "?":
        return "?"
    if run is None:
        return "wrong"
    if run == ():
        return "id"
    lo, hi = run
    return f"x{lo}" if lo == hi else f"x{lo}..\n{hi}" if hi - lo >= 1 else ""


# What a trace figure draws: per barrier, each traced array that changed is a row, and each changed
# cell has its arrows: its left and right operands, or the cell it was copied from. Which cells were
# combined, and the step's name (stride or phase), come with each frame of the trace file: the emulator's
# run named them (common/src/trace_labels.cpp, from the values alone: x[i] = 2^i, so a value says which
# inputs it sums), the one source of these names, which the console's --trace prints too.


def covers(d):
    return isinstance(d, tuple) and len(d) == 2


def trace_rows(run):
    """The rows of a trace figure: the input, then each traced array each time a barrier shows it
    changed (the coarsened scan's XY and totals each get rows), then the output if it differs from
    the last full row. Each row: {label, step, array, values, decoded, where, launch, before, combos},
    combos as the frame gives them ({kind, target, left: (row, j), right: (row, j) or None}), its label
    from step_labels."""
    n = run["n"]
    inputs = [str(v) for v in run["input"]]
    rows = [{"label": "x (input)", "array": "x", "values": inputs, "decoded": [decode(v, n) for v in inputs],
             "where": "", "launch": -1, "before": None, "combos": []}]
    state = {}     # (launch, block, array) -> the index of its latest row
    row_of = {-1: 0}  # a frame's index in run["frames"] -> the row that shows its state (-1: the input)
    for fi, f in enumerate(run["frames"]):
        key, values = (f["launch"], f.get("block", 0), f["name"]), f["values"]
        if all(v == "?" for v in values):
            continue
        before = state.get(key)
        if before is not None and rows[before]["values"] == values:
            row_of[fi] = before
            continue
        if before is None and values == inputs:
            state[key] = row_of[fi] = 0  # the load: the input row shows it
            continue
        rows.append({"label": "", "step": f["label"], "array": f["name"], "values": values,
                     "decoded": [decode(v, n) for v in values], "where": f.get("where", ""), "launch": f["launch"],
                     "before": before, "frame_combos": f.get("combos", [])})
        state[key] = row_of[fi] = len(rows) - 1
    for r, row in enumerate(rows[1:], 1):
        row["combos"] = []
        for c in row.pop("frame_combos"):
            try:
                left = (row_of[c["left"][0]], c["left"][1])
                right = None if c["right"] is None else (row_of[c["right"][0]], c["right"][1])
            except (KeyError, TypeError, IndexError):
                raise PlotError(f"run {run['algorithm']} n = {n}: a combination names a frame that shows no state: {c}")
            row["combos"].append({"kind": c["kind"], "target": c["target"], "left": left, "right": right})
    out = [str(v) for v in run["output"]]
    last_full = next(r for r in reversed(rows) if len(r["values"]) >= n)
    if out != last_full["values"][:n]:
        rows.append({"label": "y (output)", "array": "y", "values": out, "decoded": [decode(v, n) for v in out],
                     "where": "", "launch": -1, "before": None, "combos": []})
    step_labels(run, rows)
    return rows


def step_labels(run, rows):
    """Each row's label: its step by stride or phase, as the emulator's run named it (the frame's
    "label": common/src/trace_labels.cpp, the one source of these names, which the console's --trace
    and the pages' text traces print too), and where the emulator saw it (the barrier's line in the
    kernel file, which the page's code shows in its margin). A run of several launches names the
    launch."""
    launches = len({r["launch"] for r in rows if r["launch"] >= 0})
    for row in rows[1:]:
        if row["label"]:
            continue
        what = row["step"]
        where = re.match(r"^.*:(\d+)$", row["where"] or "")
        seen = f"barrier, line {where.group(1)}" if where else (row["where"] or "").replace("end of", "end of the")
        head = f"launch {row['launch'] + 1}: " if launches > 1 else ""
        row["label"] = f"{head}{row['array']}: {what}\n(seen at the {seen})" if seen else f"{head}{row['array']}: {what}"


def trace_columns(rows):
    """The column of each array's cell: the longest arrays one cell per column; a shorter one (the
    coarsened scan's totals) under the last column of each part it stands for."""
    longest = max(len(r["values"]) for r in rows)

    def column(row, i):
        m = len(row["values"])
        return i if m == longest or longest % m else (i + 1) * (longest // m) - 1
    return longest, column


def plot_trace(run, source, out_dir, written):
    rows = trace_rows(run)
    if len(rows) < 2:
        return False
    save(trace_figure(run, source, rows, False), out_dir, f"trace_{source}_{run['algorithm']}_n{run['n']}", written,
         narrow=lambda: trace_figure(run, source, rows, True))
    return True


def trace_figure(run, source, rows, narrow):
    """The trace's figure: the input, then a row per step, arrows into every cell it changed. Wide: the
    step's name left of its row; narrow (a phone's column): above it, the cells as wide as the column
    lets them be, each run of inputs on three lines."""
    import textwrap
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, Rectangle
    n = run["n"]
    width, column = trace_columns(rows)
    cell_w = 1.0
    if narrow:
        # x and y in the same unit (a cell's width, unit inches), sized so that 8.5-point text is 10 px on
        # a 400-px column: the name of each step (two lines) above its row, room for the arrows under it
        fig_w = 0.94 * NARROW_COLUMN_PX / SMALLEST_TEXT_PX * 8.5 / 72
        unit = fig_w / (width * cell_w + 0.3)
        cell_h = max(1.0, 3 * 8.5 * 1.25 / 72 / unit)  # three lines of a cell
        label_h = 2 * 10 * 1.3 / 72 / unit + 0.45  # (and a thread's arcs over its row)
        gap = cell_h + label_h + max(0.6, 0.3 / unit)
        top = cell_h + label_h + 0.6 + 9 * 1.4 / 72 / unit
    else:
        cell_h, gap, top = 1.0, 1.6, 1.8
    # Sized for the page: the PNG (labels, then the cells) is shown about 680 px wide, where 10-point
    # text is about 10 px; the link under the figure opens it full size.
    fig_w = fig_w if narrow else 0.5 + 0.42 * width
    bottom = -(len(rows) - 1) * gap - 0.3
    fig_h = (top - bottom) * unit if narrow else 1.0 + 0.62 * len(rows)
    fig, ax = plt.subplots(figsize=(fig_w, fig_h))
    if narrow:
        fig.subplots_adjust(left=0, right=1, bottom=0, top=1)

    def y_of(r):
        return -r * gap

    def centre(r, i):
        return column(rows[r], i) * cell_w + 0.47

    for r, row in enumerate(rows):
        y = y_of(r)
        if narrow:
            ax.text(0, y + cell_h + 0.5, row["label"], ha="left", va="bottom", fontsize=10)
        else:
            ax.text(-0.35, y + cell_h / 2, row["label"], ha="right", va="center", fontsize=10)
        changed = {c["target"] for c in row["combos"]}
        before = rows[row["before"]]["decoded"] if row.get("before") is not None else None
        for i, v in enumerate(row["values"]):
            d = row["decoded"][i]
            moved = i in changed or (before is not None and i < len(before) and d != before[i]
                                     and row["label"] != "y (output)")
            face = "#f4b6b6" if d == "?" else "#f08080" if d is None else "#ffd966" if moved else "white"
            x = column(row, i) * cell_w
            ax.add_patch(Rectangle((x, y), cell_w * 0.94, cell_h, facecolor=face, edgecolor="#333333",
                                   lw=0.7, hatch="//" if d == "?" else None))
            text = cell_text(d) if d is not None else f"{v}\nwrong"
            if narrow and covers(d) and d[0] != d[1]:
                text = f"x{d[0]}\n..\n{d[1]}"
            if i >= n and d == () and len(row["values"]) == width:
                text = "pad"
            ax.text(x + 0.47, y + cell_h / 2, text, ha="center", va="center", fontsize=8.5)
        for c in row["combos"]:
            i = c["target"]
            tx, ty = centre(r, i), y + cell_h
            k, j = c["left"]
            if c["kind"] == "copy":
                ax.add_patch(FancyArrowPatch((centre(k, j), y_of(k)), (tx, ty), arrowstyle="-|>", mutation_scale=7,
                                             color="#777777", lw=0.7, linestyle="--"))
                continue
            if k == r:  # earlier in the same row: a thread's sequential loop, an arc over the cells
                ax.add_patch(FancyArrowPatch((centre(k, j), ty), (tx, ty), arrowstyle="-|>", mutation_scale=7,
                                             color="#b8860b", lw=0.8, connectionstyle="arc3,rad=-0.6"))
            else:
                ax.add_patch(FancyArrowPatch((centre(k, j), y_of(k)), (tx, ty), arrowstyle="-|>", mutation_scale=7,
                                             color="#b8860b", lw=0.8))
            rk, rj = c["right"]
            ax.add_patch(FancyArrowPatch((centre(rk, rj), y_of(rk)), (tx, ty), arrowstyle="-", color="#999999",
                                         lw=0.6))
    index_y = cell_h + (label_h + 0.15 if narrow else 0.25)
    for i in range(width):
        ax.text(i * cell_w + 0.47, index_y, f"{i}", ha="center", va="bottom", fontsize=9, color="#555555")
    ax.set_xlim(-0.15 if narrow else -0.2, width * cell_w + (0.15 if narrow else 0.1))
    ax.set_ylim(bottom, top)
    ax.axis("off")
    status = "output verified" if run["verified"] else "WRONG OUTPUT: " + (run.get("failure") or "")[:90]
    work = run.get("work_measured")
    title = (f"{run['algorithm']} ({run.get('section', '')}, {source}): {n} elements x[i] = 2^i, "
             f"{run.get('threads', '?')} thread{'' if run.get('threads') == 1 else 's'}; {work} operator applications; {status}")
    note = ("xa..b = x[a] + ... + x[b]; yellow: changed in this step; gold arrow: the left operand, grey line: the "
            "right (the cell's old value), gold arc: within one thread's loop, dashed: a copy; red hatched: never "
            "written; pad: the identity past n")
    if narrow:  # (the title and the note as wide as the figure: wrap_text sets their lines)
        wrap_text(ax.set_title(title, fontsize=10, loc="left"), fig_w)
        wrap_text(fig.text(0, 0, note, fontsize=9, va="top"), fig_w)
    else:
        ax.set_title(title, fontsize=10, loc="right")
        ax.text(width * cell_w, bottom - 0.2, "\n".join(textwrap.wrap(note, 70)), ha="right", va="top", fontsize=9)
    return fig


# -- the Brent-Kung bank diagram --

def check_banks(doc, path):
    for key in ("section", "threads", "banks", "word_bytes"):
        need(doc, key, int, path, "the file")
    layouts = need(doc, "layouts", list, path, "the file")
    if len(layouts) != 2:
        raise PlotError(f"{path}: 'layouts' must hold the two layouts (not padded, padded)")
    for i, layout in enumerate(layouts):
        where = f"layout {i + 1}"
        need(layout, "name", str, path, where)
        need(layout, "padded", bool, path, where)
        for a in need(layout, "accesses", list, path, where):
            if not isinstance(a, list) or len(a) != 6 or not all(isinstance(v, int) for v in a):
                raise PlotError(f"{path}: {where}: each access is [thread, tree, stride, left, right, write]")
    return doc


def bank_steps(doc, layout):
    """[(tree, stride, {warp: [(lane, left, right, write)]})] in the order the kernel runs them."""
    steps = {}
    for thread, tree, stride, left, right, write in layout["accesses"]:
        steps.setdefault((tree, stride), {}).setdefault(thread // 32, []).append((thread % 32, left, right, write))
    return sorted(steps.items(), key=lambda kv: (kv[0][0], kv[0][1] if kv[0][0] == 0 else -kv[0][1]))


def ways(words, banks):
    """The n-way conflict of one warp's access: the most distinct words in one bank (a word read by
    several lanes is one broadcast)."""
    per = {}
    for w in words:
        per.setdefault(w % banks, set()).add(w)
    return max((len(v) for v in per.values()), default=0)


def bank_conflicts(doc, layout):
    """Per step: (tree, stride, warp 0's lanes, the worst n-way of any warp, the block's extra load
    wavefronts (both operands), extra store wavefronts); and the block's totals."""
    banks = doc["banks"]
    out, loads, stores = [], 0, 0
    for (tree, stride), warps in bank_steps(doc, layout):
        worst = ld = st = 0
        for lanes in warps.values():
            for k in (1, 2):
                d = ways([a[k] for a in lanes], banks)
                ld += d - 1
                worst = max(worst, d)
            d = ways([a[3] for a in lanes], banks)
            st += d - 1
            worst = max(worst, d)
        out.append((tree, stride, sorted(warps.get(0, [])), worst, ld, st))
        loads, stores = loads + ld, stores + st
    return out, loads, stores


def plot_banks(doc, out_dir, written):
    """The bank of the element each lane of warp 0 updates (and reads: the other operand is `stride`
    away), step by step, not padded (top) and padded (bottom), as GPU Gems 3 draws it; beside each
    row the worst conflict of any warp in that step and the block's extra wavefronts. Narrow (a
    phone's column): each step's 32 lanes in two rows of 16, what it costs above them."""
    data = [bank_conflicts(doc, lay) for lay in doc["layouts"]]
    save(banks_figure(doc, data, False), out_dir, "brent_kung_banks", written,
         narrow=lambda: banks_figure(doc, data, True))
    caption = [f"{lay['name']} {loads} load and {stores} store conflicts"
               for lay, (_, loads, stores) in zip(doc["layouts"], data)]
    write_caption(out_dir, "brent_kung_banks",
                  f"Drawn from the addresses the solution's brent_kung_trees used on the emulator "
                  f"({doc.get('kernel_file', '')}, one {doc['section']}-element section, {doc['threads']} threads): "
                  + " and ".join(caption) + " per block (an n-way access counted as n - 1).")
    return True


def banks_figure(doc, data, narrow):
    import textwrap
    import matplotlib.pyplot as plt
    from matplotlib.patches import Rectangle
    banks = doc["banks"]
    palette = [plt.get_cmap("tab20")(i) for i in range(20)] + [plt.get_cmap("tab20b")(i) for i in range(20)]
    colours = [palette[(7 * b) % len(palette)] for b in range(banks)]  # neighbouring banks far apart
    layouts = doc["layouts"]
    rows = max(len(d[0]) for d in data)
    per_row = 16 if narrow else 32  # lanes in one row of cells
    if narrow:  # (x and y in one unit, a cell's width: the steps' heights add up)
        fig_w = 0.94 * NARROW_COLUMN_PX / SMALLEST_TEXT_PX * 8.5 / 72
        unit = fig_w / (per_row + 0.2)
        heights = [[1.3 + 1.1 * math.ceil(len(step[2]) / per_row) for step in d[0]] for d in data]
        panels = [(sum(h) + 1.7) * unit for h in heights]  # inches
        title_in, note_in = 0.6, 1.5
        fig_h = sum(panels) + len(panels) * title_in + note_in
        fig, axes = plt.subplots(2, 1, figsize=(fig_w, fig_h))
        top = fig_h
        for ax, h in zip(axes, panels):
            top -= title_in + h
            ax.set_position([0, top / fig_h, 1, h / fig_h])
    else:
        fig, axes = plt.subplots(2, 1, figsize=(9.3, 2 * (0.3 * rows + 0.9) + 1.0))
    for ax, lay, (steps, loads, stores) in zip(axes, layouts, data):
        y = 0
        for r, (tree, stride, lanes, worst, ld, st) in enumerate(steps):
            y = -r if not narrow else y - (heights[layouts.index(lay)][r - 1] if r else 0)
            name = "reduction" if tree == 0 else "reverse"
            cost = f"{worst}-way  +{ld} / +{st}"
            colour = "#b22222" if worst > 2 else "#333333"
            if narrow:
                ax.text(0, y + 0.1, f"{name}, stride {stride}:", ha="left", va="bottom", fontsize=10)
                ax.text(per_row, y + 0.1, cost, ha="right", va="bottom", fontsize=10, color=colour)
            else:
                ax.text(-0.4, y + 0.45, f"{name}, stride {stride}", ha="right", va="center", fontsize=11)
                ax.text(32.4, y + 0.45, cost, ha="left", va="center", fontsize=10.5, color=colour)
            for lane, left, right, write in lanes:
                b = write % banks
                x, yy = (lane % per_row, y - 1.1 - 1.1 * (lane // per_row)) if narrow else (lane, y)
                ax.add_patch(Rectangle((x, yy), 0.94, 0.9, facecolor=colours[b], edgecolor="#555555", lw=0.4))
                ax.text(x + 0.47, yy + 0.45, str(b), ha="center", va="center", fontsize=8.5)
        if narrow:
            ax.text(0, 1.0, "lanes 0 to 15, then 16 to 31", ha="left", va="bottom", fontsize=8.5, color="#555555")
            ax.text(per_row, 1.0, "worst, extra ld / st", ha="right", va="bottom", fontsize=8.5, color="#555555")
            ax.set_xlim(-0.1, per_row + 0.1)
            ax.set_ylim(-sum(heights[layouts.index(lay)]) + 1.2, 1.9)
        else:
            for lane in range(32):
                ax.text(lane + 0.47, 1.05, str(lane), ha="center", va="bottom", fontsize=8.5, color="#555555")
            ax.text(32.4, 1.05, "worst, extra ld / st", ha="left", va="bottom", fontsize=10, color="#555555")
            ax.set_xlim(-10.5, 41.5)
            ax.set_ylim(-rows - 0.2, 2.2)
        ax.axis("off")
        layout_text = "element i at XY[i + i/32]" if lay["padded"] else "element i at XY[i]"
        title = ax.set_title(f"{lay['name']} ({layout_text}): {loads} load and {stores} store conflicts per block",
                             fontsize=12 if not narrow else 10, loc="left")
        if narrow:
            wrap_text(title, fig_w)
    note = (f"Each cell: the bank (word mod {banks}) of the element lane t of warp 0 updates, XY[at(index)], at each "
            f"step of one {doc['section']}-element section ({doc['threads']} threads), from the addresses the kernel "
            "used on the emulator. Right: the worst n-way conflict of any warp in that step (its two loads and its "
            "store), and the block's extra load and store wavefronts in that step (an n-way access costs n - 1).")
    if narrow:
        wrap_text(fig.text(0.01, 0.003, note.replace("Right:", "Above each step's cells:"), fontsize=9, va="bottom"),
                  fig_w)
    else:
        fig.text(0.01, 0.003, "\n".join(textwrap.wrap(note, 105)), fontsize=10, va="bottom")
        fig.subplots_adjust(left=0.01, right=0.99, top=0.96, bottom=0.08, hspace=0.12)
    return fig


# -- the tile statuses of 11.7's domino and 11.8's decoupled look-back over time --

STATUSES_SCHEMA = "scanlab.statuses/1"
STATUS_COLOUR = {"X": "#e0e0e0", "A": "#f5b041", "P": "#58b368", None: "#ffffff"}
STATUS_WORD = {"X": "not ready", "A": "aggregate", "P": "inclusive prefix"}


def check_statuses(doc, path):
    runs = need(doc, "runs", list, path, "the file")
    for i, run in enumerate(runs):
        where = f"run {i + 1}"
        for key in ("section", "kernel", "kernel_file", "block_schedule", "statuses"):
            need(run, key, str, path, where)
        for key in ("tiles", "tile_elements", "resident_blocks"):
            need(run, key, int, path, where)
        for e in need(run, "events", list, path, where):
            if (not isinstance(e, list) or len(e) != 4 or not isinstance(e[0], int) or e[1] not in ("ticket", "read", "write")
                    or not isinstance(e[2], int) or not 0 <= e[2] < run["tiles"] or e[3] not in ("X", "A", "P")):
                raise PlotError(f"{path}: {where}: each event is [block, ticket|read|write, tile, X|A|P], got {e}")
    return doc


def status_turns(run):
    """The run as turns, one per row of the figure: a turn is what one block did between two switches
    of the emulator (consecutive events of one block); consecutive turns that only take tickets are one
    row. Each: {"tile": the acting block's tile (None for a row of tickets), "tickets": [(block, tile)],
    "reads": {tile: [statuses seen, in order]}, "writes": [(tile, status)], "state": [status per tile
    after the turn, None before its ticket]}."""
    tile_of, state, turns = {}, [None] * run["tiles"], []
    for block, kind, tile, status in run["events"]:
        last = turns[-1] if turns else None
        if kind == "ticket":
            if last is None or last["block"] is not None:
                last = {"block": None, "tile": None, "tickets": [], "reads": {}, "writes": []}
                turns.append(last)
            tile_of[block] = tile
            state[tile] = "X"
            last["tickets"].append((block, tile))
        else:
            if last is None or last["block"] != block:
                last = {"block": block, "tile": tile_of.get(block), "tickets": [], "reads": {}, "writes": []}
                turns.append(last)
            if kind == "read":
                last["reads"].setdefault(tile, []).append(status)
            else:
                last["writes"].append((tile, status))
                state[tile] = status
        last["state"] = list(state)
    return turns


def tiles_text(tiles):
    """'0-2' or '0, 2' for sorted tile numbers."""
    if tiles and tiles == list(range(tiles[0], tiles[-1] + 1)) and len(tiles) > 2:
        return f"{tiles[0]}-{tiles[-1]}"
    return ", ".join(str(t) for t in tiles)


def unit_of(run):
    """What the run's kernel calls its pieces: 11.7's sections (the book's word), 11.8's tiles."""
    return "section" if run["statuses"] == "XP" else "tile"


def turn_text(turn, unit="tile"):
    if turn["block"] is None:
        tickets = turn["tickets"]
        many = "s" if len(tickets) > 1 else ""
        return (f"{unit}{many} {tiles_text([t for _, t in tickets])} to block{many} "
                + ", ".join(str(b) for b, _ in tickets))
    parts = []
    writes = [w for w in turn["writes"]]
    for tile, status in writes[:1]:
        if turn["reads"] and status == "A":
            parts.append(f"publishes A")
    if turn["reads"]:
        tiles = sorted(turn["reads"])
        tries = max(len(v) for v in turn["reads"].values())
        seen = " ".join(turn["reads"][t][-1] for t in tiles)
        parts.append(f"reads {tiles_text(tiles)}: {seen}" + (f" ({tries} tries)" if tries > 1 else ""))
    for tile, status in writes:
        if not (turn["reads"] and status == "A" and (tile, status) == writes[0]):
            parts.append(f"publishes {status}")
    if turn["reads"] and not writes[1:] and not any(s == "P" for _, s in writes):
        parts.append("waits")
    return f"{unit} {turn['tile']}: " + ", ".join(parts)


def units(unit, tiles):
    """'tile 3' or 'tiles 1-3'."""
    return f"{unit}{'s' if len(tiles) > 1 else ''} {tiles_text(sorted(tiles))}"


def status_story(run):
    """What a run of statuses shows, in words (a page quotes them: docs/make_pages.py's `gen statuses`,
    so no sentence about the run is typed): {"setup": "8 tiles of 128 elements and 4 blocks resident at
    once", "nearest": the look-back that read the longest window, where it combined from, "overtake":
    the tiles that published their inclusive prefix before a tile before them had, and whose aggregates
    they used}. A sentence the run gives nothing for is None (the domino's flags have no aggregates)."""
    unit = unit_of(run)
    turns = status_turns(run)
    story = {"setup": f"{run['tiles']} {unit}s of {run['tile_elements']} elements and {run['resident_blocks']} "
                      f"blocks resident at once", "nearest": None, "overtake": None}
    done = [t for t in turns if t["tile"] is not None and t["reads"] and any(s == "P" for _, s in t["writes"])]
    if done:
        widest = max(done, key=lambda t: len(t["reads"]))  # (the first of the widest)
        seen = {tile: found[-1] for tile, found in widest["reads"].items()}
        nearest = max((tile for tile, s in seen.items() if s == "P"), default=None)
        if nearest is not None:
            aggregates = sorted(tile for tile, s in seen.items() if tile > nearest and s == "A")
            story["nearest"] = (f"{unit} {widest['tile']} reads {units(unit, seen)} at once and adds "
                                f"{unit} {nearest}'s prefix and " +
                                (f"the aggregates of {unit}s {tiles_text(aggregates)}" if aggregates
                                 else "nothing before it"))
    state = [None] * run["tiles"]
    ahead, behind, used = [], set(), set()
    for turn in turns:
        for tile, status in turn["writes"]:
            if status == "P":
                waiting = {t for t in range(tile) if state[t] != "P"}
                if waiting:
                    ahead.append(tile)
                    behind |= waiting
                    used |= {t for t in waiting if turn["reads"].get(t, [None])[-1] == "A"}
        state = turn["state"]
    if ahead:
        behind, used = sorted(behind), sorted(used)
        one = len(ahead) == 1
        story["overtake"] = (f"{units(unit, ahead)} {'publishes its' if one else 'publish their'} inclusive prefix "
                             f"while {units(unit, behind)} still {'waits' if len(behind) == 1 else 'wait'} for "
                             f"{'its' if len(behind) == 1 else 'their'} turn: {'it' if one else 'they'} used " +
                             (f"that {unit}'s aggregate" if used == behind and len(behind) == 1 else
                              f"those {unit}s' aggregates" if used == behind else
                              f"the aggregates of {units(unit, used)}" if used else "no aggregate"))
    return story


def statuses_figure(run, turns, narrow):
    import textwrap
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, Rectangle
    tiles = run["tiles"]
    texts = [turn_text(turn, unit_of(run)) for turn in turns]
    if narrow:  # what each turn did on its own lines under its cells; x and y in one unit (a tile)
        fig_w = 0.94 * NARROW_COLUMN_PX / SMALLEST_TEXT_PX * 10 / 72
        unit = fig_w / (tiles + 1.2)
        chars = max(12, int(fig_w * 72 / (0.6 * 10)))
        texts = ["\n".join(textwrap.wrap(t, chars)) for t in texts]
        heights = [1.25 + (t.count("\n") + 1) * 10 * 1.35 / 72 / unit for t in texts]
        right = tiles + 0.1
        tops = [-sum(heights[:r]) for r in range(len(turns))]
        fig, ax = plt.subplots(figsize=(fig_w, (sum(heights) + 3.0) * unit + 0.8))
        fig.subplots_adjust(left=0, right=1, bottom=0, top=1 - 0.8 / ((sum(heights) + 3.0) * unit + 0.8))
    else:
        row_h = 1.55
        right = tiles + 0.2 + 0.115 * max(len(t) for t in texts)  # (a character: ~0.115)
        tops = [-r * row_h for r in range(len(turns))]
        fig, ax = plt.subplots(figsize=(0.69 * (right + 1.6), 0.5 * row_h * len(turns) + 1.4))
    for r, turn in enumerate(turns):
        y = tops[r]
        ax.text(-0.3 if not narrow else -0.1, y + 0.4, str(r + 1), ha="right", va="center", fontsize=11 if not narrow else 10,
                color="#555555")
        for t, status in enumerate(turn["state"]):
            acting = t == turn["tile"]
            ax.add_patch(Rectangle((t, y), 0.9, 0.8, facecolor=STATUS_COLOUR[status],
                                   edgecolor="#000000" if acting else "#999999", lw=2.2 if acting else 0.5))
            if status is not None:
                ax.text(t + 0.45, y + 0.4, status, ha="center", va="center", fontsize=12,
                        fontweight="bold" if acting else "normal")
        for t, seen in turn["reads"].items():
            if turn["tile"] is None:
                continue
            colour = {"X": "#c0392b", "A": "#d68910", "P": "#1e8449"}[seen[-1]]
            bend = min(0.35, 0.55 / max(1, abs(turn["tile"] - t)))  # at most half a row above the cells
            ax.add_patch(FancyArrowPatch((turn["tile"] + 0.45, y + 0.82), (t + 0.45, y + 0.82),
                                         connectionstyle=f"arc3,rad={bend}", arrowstyle="-|>", mutation_scale=9,
                                         color=colour, lw=1.1, linestyle="--" if seen[-1] == "X" else "-"))
        if narrow:
            ax.text(0, y - 0.1, texts[r], ha="left", va="top", fontsize=10)
        else:
            ax.text(tiles + 0.2, y + 0.4, texts[r], ha="left", va="center", fontsize=11)
    for t in range(tiles):
        ax.text(t + 0.45, 1.0, str(t), ha="center", va="bottom", fontsize=11, color="#555555")
    ax.text(-0.3 if not narrow else -0.1, 1.0, "turn", ha="right", va="bottom", fontsize=11 if not narrow else 10,
            color="#555555")
    ax.text(tiles / 2, 1.6, unit_of(run), ha="center", va="bottom", fontsize=11, color="#555555")
    ax.set_xlim(-1.6 if not narrow else -1.1, right)
    ax.set_ylim((tops[-1] - 0.3) if not narrow else tops[-1] - heights[-1] + 0.5, 2.2)
    ax.axis("off")
    names = ", ".join(f"{k} {STATUS_WORD[k]}" for k in run["statuses"])
    title = ax.set_title(f"{run['kernel']} on the emulator: {tiles} {unit_of(run)}s, {run['resident_blocks']} blocks "
                         f"resident\n{names}", fontsize=12 if not narrow else 10, loc="left")
    if narrow:
        wrap_text(title, fig_w)
    else:
        fig.subplots_adjust(left=0.01, right=0.99, top=0.97, bottom=0.01)
    return fig


def plot_statuses(run, out_dir, written):
    """Tiles across, the emulator's turns down (Merrill and Garland's picture): each tile's status
    after the turn (X not ready, A aggregate, P inclusive prefix; blank before its block took its
    ticket), the acting tile outlined, an arrow to every tile its look-back read in that turn, coloured
    by what it saw; on the right what the turn did (narrow, a phone's column: under the row). Returns
    the caption's facts."""
    turns = status_turns(run)
    tiles = run["tiles"]
    stem = f"statuses_{run['section'].replace('.', '_')}"
    save(statuses_figure(run, turns, False), out_dir, stem, written,
         narrow=lambda: statuses_figure(run, turns, True))
    reads = sum(len(v) for turn in turns for v in turn["reads"].values())
    waits = sum(v.count("X") for turn in turns for v in turn["reads"].values())
    order = [t for turn in turns for t, s in turn["writes"] if s == "P"]
    write_caption(out_dir, stem,
                  f"Drawn from the atomics the solution's {run['kernel']} ({run['kernel_file']}) made on the emulator "
                  f"(scanlab_11_8_statuses): {tiles} {unit_of(run)}s of {run['tile_elements']} int32 elements, "
                  f"{run['resident_blocks']} blocks resident at once under the {run['block_schedule']} block schedule, "
                  f"{len(turns)} turns, {reads} {'flag' if unit_of(run) == 'section' else 'status'} reads ({waits} of them "
                  f"found a {unit_of(run)} not ready); "
                  f"the {unit_of(run)}s published their inclusive prefix in the order {', '.join(str(t) for t in order)}.")
    return True


# ---- the GPU runs: GB/s against n ------------------------------------------------------------------
# Every figure draws one run (one CSV, one run of a program) and every point of it that it draws a
# curve for: a point the run lacks is a gap in that curve, never a cut of the others. Below the GB/s
# (log-log) the same n compared on a linear axis: the time over CUB's and the share of the copy's
# bandwidth, when the run has them, else the time over one kernel's of the run. Each figure's caption
# is written beside it (STEM.caption), from the CSV, for the page (docs/make_pages.py).

class Figure:
    """A figure of the section pages: one CSV of plots/data/, one element type, the algorithms drawn
    (as the CSV names them; those it lacks are not drawn, and the caption says so), and the kernel
    whose time the others are compared with when the run has neither CUB nor a copy."""

    def __init__(self, csv, dtype, title, algorithms, over=None):
        self.csv, self.dtype, self.title, self.algorithms, self.over = csv, dtype, title, algorithms, over


IN_BLOCK_RUN = "h100_in_block_same_n_2026-11-27.csv"  # (plots/in_block_same_n_gpu.sh)
SECTIONS_RUN = "h100_sections_2026-11-23.csv"
SECTION_FIGURES = {
    "kogge_stone_variants": Figure(IN_BLOCK_RUN, "int32", "Kogge-Stone (11.2): Fig. 11.3, double buffering and warp "
                                   "shuffles", ("kogge_stone", "kogge_stone_double_buffer", "kogge_stone_warp_shuffle"),
                                   over="kogge_stone"),
    "kogge_stone_vs_brent_kung": Figure(IN_BLOCK_RUN, "int32", "Kogge-Stone (11.2), Brent-Kung (11.4) and the "
                                        "coarsened scan (11.5)",
                                        ("kogge_stone", "brent_kung", "brent_kung_padded", "coarsened"), over="brent_kung"),
    "coarsened_shapes": Figure(IN_BLOCK_RUN, "int32", "Coarsened scan (11.5): threads x elements per thread",
                               ("coarsened", "coarsened_256x4", "coarsened_64x16", "brent_kung_padded"),
                               over="brent_kung_padded"),
    "hierarchical_bandwidth": Figure(SECTIONS_RUN, "int32", "Hierarchical scan (11.6) with each block scan",
                                     ("11.6/hierarchical_coarsened", "11.6/hierarchical_brent_kung",
                                      "11.6/hierarchical_kogge_stone", "cub_inclusive_sum", "memcpy")),
    "single_pass_bandwidth": Figure(SECTIONS_RUN, "int32", "Single pass (11.7) against the hierarchical scan (11.6) "
                                    "and the decoupled look-back (11.8)",
                                    ("11.7/single_pass", "11.6/hierarchical_coarsened", "11.8/decoupled_lookback",
                                     "cub_inclusive_sum", "memcpy")),
    "full_scans_bandwidth": Figure(SECTIONS_RUN, "int32", "Every full scan of the lab (11.6, 11.7, 11.8)",
                                   ("11.6/hierarchical_coarsened", "11.6/hierarchical_brent_kung",
                                    "11.6/hierarchical_kogge_stone", "11.7/single_pass", "11.8/decoupled_lookback",
                                    "cub_inclusive_sum", "memcpy")),
    "decoupled_lookback_bandwidth": Figure("h100_bench_2026-11-23.csv", "int32", "Decoupled look-back (11.8) against "
                                           "CUB and Thrust",
                                           ("decoupled_lookback", "cub_inclusive_sum", "thrust_inclusive_scan",
                                            "memcpy")),
    "multi_gpu_bandwidth": Figure("h100x2_sections_multi_gpu_look_back_run_32_2026-11-27.csv", "int32", "Scan across 2 GPUs "
                                  "(11.10) against one GPU's persistent scan (11.8)",
                                  ("carry", "reduce_then_scan", "look_back", "persistent_pipelined"),
                                  over="persistent_pipelined"),
}
# Section 11.9 against CUB (bandwidth_applications): the run, and the applications of each panel with
# their CUB counterpart first. Their GB/s counts the bytes each job must move (compaction: n read and
# the kept elements written; partition: 2n; segmented scan: values and heads read, values written), the
# copy's 2 n sizeof(T): so a curve at the copy's height moves its bytes as fast as a copy would.
APPLICATIONS_RUN = "h100_applications_2026-11-26.csv"
APPLICATION_PANELS = (
    ("stream compaction, keep x < 0 (about half)",
     ("cub_select_if", "11.9/compact_persistent", "11.9/compact_single_pass", "11.9/compact")),
    ("stable partition, the same predicate",
     ("cub_partition_if", "11.9/partition_persistent", "11.9/partition_single_pass", "11.9/partition")),
    ("segmented inclusive sum, a head in about 1 of 128", ("cub_inclusive_sum_by_key", "11.9/segmented_scan")),
)
APPLICATIONS = {name for _, names in APPLICATION_PANELS for name in names}
LABEL_OF = {
    "kogge_stone": "Kogge-Stone, Fig. 11.3 (11.2)", "kogge_stone_double_buffer": "Kogge-Stone, double buffer (11.2)",
    "kogge_stone_warp_shuffle": "Kogge-Stone, warp shuffles (11.2)", "brent_kung": "Brent-Kung (11.4)",
    "brent_kung_padded": "Brent-Kung, padded (11.4)", "coarsened": "coarsened 256 x 8 (11.5)",
    "coarsened_256x4": "coarsened 256 x 4 (11.5)", "coarsened_64x16": "coarsened 64 x 16, the book's (11.5)",
    "hierarchical_kogge_stone": "hierarchical, Kogge-Stone (11.6)",
    "hierarchical_brent_kung": "hierarchical, Brent-Kung (11.6)",
    "hierarchical_coarsened": "hierarchical, coarsened (11.6)", "single_pass": "single pass, domino (11.7)",
    "decoupled_lookback": "decoupled look-back (11.8)", "cub_inclusive_sum": "CUB InclusiveSum",
    "cub_inclusive_scan_max": "CUB InclusiveScan, max", "thrust_inclusive_scan": "Thrust inclusive_scan",
    "memcpy": "copy (cudaMemcpy)", "persistent": "persistent pipelined, TMA (11.8)",
    "compact_persistent": "compaction, persistent on 11.8's ring (11.9)",
    "compact_single_pass": "compaction, one launch (11.9)", "compact": "compaction, three steps (11.9)",
    "partition_persistent": "partition, persistent on 11.8's ring (11.9)",
    "partition_single_pass": "partition, one launch (11.9)", "partition": "partition, three steps (11.9)",
    "segmented_scan": "segmented scan, one launch (11.9)", "carry": "carry, 2 GPUs (11.10)",
    "reduce_then_scan": "reduce, then scan, 2 GPUs (11.10)", "look_back": "look-back across 2 GPUs (11.10)",
    "cub_select_if": "CUB DeviceSelect::If",
    "cub_partition_if": "CUB DevicePartition::If", "cub_inclusive_sum_by_key": "CUB InclusiveSumByKey",
}
LEGEND_SIZE = 10  # points: at least 10 px on a page that shows the figure at about 850 px


def label_of(algorithm):
    return LABEL_OF.get(base_name(algorithm), algorithm)


def log2_axis(ax):
    """n on a log2 axis, a labelled tick at every other power of two (2^10, 2^12, ...)."""
    import matplotlib.ticker as ticker
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(ticker.LogLocator(base=2, numticks=40))
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(
        lambda v, _: f"$2^{{{round(math.log2(v))}}}$" if v > 0 and round(math.log2(v)) % 2 == 0 else ""))
    ax.xaxis.set_minor_locator(ticker.NullLocator())


def gbps_axes(ax, title):
    """GB/s on a log axis (its ticks: log_ticks, once the curves are drawn)."""
    log2_axis(ax)
    ax.set_yscale("log")
    ax.set_ylabel("GB/s (log)")
    ax.set_title(title, fontsize=11)
    ax.grid(True, which="major", alpha=0.3)


def log_ticks(ax):
    """Labelled ticks on a log y axis, written out (20, 50, 100, not 10^2): at 1, 2 and 5 times each
    power of ten over several decades, more where the curves span less."""
    import matplotlib.ticker as ticker
    lo, hi = ax.get_ylim()
    decades = math.log10(hi / lo)
    subs = (1, 2, 5) if decades > 2 else (1, 2, 3, 5, 7) if decades > 1 else (1, 1.5, 2, 3, 4, 5, 6, 7, 8, 9)
    ax.yaxis.set_major_locator(ticker.LogLocator(base=10, subs=subs, numticks=40))
    ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_locator(ticker.NullLocator())


def with_gaps(ns, values):
    """x and y of one curve, with a NaN between two points further apart than the curve's usual step
    (the median ratio of neighbouring n): a missing point is a gap in the line, never bridged."""
    if len(ns) < 3:
        return list(ns), list(values)
    steps = sorted(b / a for a, b in zip(ns, ns[1:]))
    usual = steps[len(steps) // 2]
    xs, ys = [ns[0]], [values[0]]
    for (a, b), v in zip(zip(ns, ns[1:]), values[1:]):
        if b / a > 1.5 * usual:
            xs.append(math.sqrt(a * b))
            ys.append(float("nan"))
        xs.append(b)
        ys.append(v)
    return xs, ys


def draw_points(ax, algorithm, points, label=True):
    """One curve: every point given ({n: value}), a line between neighbours, a gap where one is missing."""
    ns = sorted(points)
    if not ns:
        return
    colour, marker = style_of(algorithm)
    xs, ys = with_gaps(ns, [points[n] for n in ns])
    ax.plot(xs, ys, ("--" if base_name(algorithm) == "memcpy" else "-") + marker, color=colour,
            ms=7 if marker == "*" else 5.5, lw=1.4, mec="black", mew=0.4,
            label=label_of(algorithm) if label else "_nolegend_")


def references(algorithms, over=None):
    """The comparisons at the same n the figure draws below its GB/s: [(reference, what, kind)]."""
    refs = []
    cub = next((a for a in algorithms if base_name(a).startswith("cub_")), None)
    if cub:
        refs.append((cub, f"time over {label_of(cub)}'s", "time"))
    if any(base_name(a) == "memcpy" for a in algorithms):
        refs.append((next(a for a in algorithms if base_name(a) == "memcpy"), "share of the copy's bandwidth",
                     "share"))
    if not refs and over in algorithms:
        refs.append((over, f"time over {label_of(over)}'s", "time"))
    return refs


def ratio_points(run, dtype, algorithm, reference, kind):
    """{n: value} at every n where the run has both: the time over the reference's, or the share (%)
    of the reference's GB/s (the copy's: both count the bytes the job must move)."""
    mine, theirs = run.points(algorithm, dtype), run.points(reference, dtype)
    if kind == "time":
        return {n: r.median_us / theirs[n].median_us for n, r in mine.items() if n in theirs}
    return {n: 100 * r.gbps / theirs[n].gbps for n, r in mine.items() if n in theirs}


RATIO_CAP = 6  # the time over a reference's on a linear axis up to this; a curve above it is named


def draw_ratio(ax, run, dtype, algorithms, reference, what, kind):
    """The same n compared on a linear axis: one curve per algorithm but the reference, and a line at
    the reference's own value (1, or 100%). A time ratio above RATIO_CAP is drawn at the top edge's
    far side and named in the panel. Returns (the algorithms with no n in common with the reference,
    [(algorithm, its largest ratio)] of those off the scale)."""
    log2_axis(ax)
    ax.axhline(1 if kind == "time" else 100, color="black", lw=0.9, ls=":")
    apart, off, top = [], [], 0
    for a in algorithms:
        if a == reference or (kind == "share" and base_name(a) == "memcpy"):
            continue
        points = ratio_points(run, dtype, a, reference, kind)
        if not points:
            apart.append(a)
            continue
        draw_points(ax, a, points, label=False)
        top = max(top, max(points.values()))
        if kind == "time" and max(points.values()) > RATIO_CAP:
            off.append((a, max(points.values())))
    if off:
        ax.set_ylim(0, RATIO_CAP * 1.05)
        ax.text(0.02, 0.97, "off the scale: " + "; ".join(f"{label_of(a)}, up to {r:.1f}x" for a, r in off),
                transform=ax.transAxes, va="top", fontsize=9, bbox={"fc": "white", "ec": "0.7", "alpha": 0.9})
    else:
        ax.set_ylim(0, max(top, 1 if kind == "time" else 100) * 1.08)
    ax.set_ylabel(("time / reference's" if kind == "time" else "% of the copy's GB/s") + "\n(linear)")
    ax.set_title(what + " at the same n" + (" (lower is faster)" if kind == "time" else ""), fontsize=10.5)
    ax.grid(True, alpha=0.3)
    ax.set_xlabel("n (elements)")
    return apart, off


def n_span(ns):
    return measurements.n_text(ns[0]) if len(ns) == 1 else f"{measurements.n_text(ns[0])} to {measurements.n_text(ns[-1])}"


def drawn_text(run, dtype, algorithms):
    """What a panel draws: the curves (as the CSV names them) grouped by the n the run has of them."""
    groups = {}
    for a in algorithms:
        groups.setdefault(tuple(sorted(run.points(a, dtype))), []).append(a)
    parts = []
    for ns, labels in groups.items():
        parts.append(f"{', '.join(labels)} ({len(ns)} n{' each' if len(labels) > 1 else ''}, {n_span(ns)})")
    return "; ".join(parts)


def caption(run, dtype, algorithms, refs, apart, off=(), missing=()):
    """What the figure draws, from its CSV: the run (file, device, date, timing), each curve's points,
    the comparisons below, and what it could not draw."""
    parts = [f"One run, {run.rel}: {run.summary(algorithms)}.",
             f"Drawn ({dtype}): every point the run has of {drawn_text(run, dtype, algorithms)}."]
    if refs:
        parts.append("Below: " + " and ".join(what for _, what, _ in refs) + " at every n where both were measured.")
    for reference, others in apart:
        parts.append(f"Not compared with {reference} (no point at the same n): {', '.join(others)}.")
    if off:
        parts.append(f"Above {RATIO_CAP}x, off the linear scale: " +
                     ", ".join(f"{a} (up to {r:.1f}x)" for a, r in off) + ".")
    if missing:
        parts.append(f"The run has no {', '.join(missing)} of {dtype}.")
    return " ".join(parts)


def write_caption(out_dir, stem, text):
    with open(os.path.join(out_dir, stem + ".caption"), "w", encoding="utf-8") as f:
        f.write(text + "\n")


def comparison_figure(run, dtype, algorithms, title, over=None, missing=()):
    """GB/s against n (log-log) of each algorithm on top, the comparisons at the same n below; and its
    caption."""
    import matplotlib.pyplot as plt
    refs = references(algorithms, over)
    fig = plt.figure(figsize=(10, 9.5 if refs else 6))
    grid = fig.add_gridspec(2 if refs else 1, max(1, len(refs)), height_ratios=[1.5, 1] if refs else [1],
                            hspace=0.35, wspace=0.28)
    ax = fig.add_subplot(grid[0, :])
    gbps_axes(ax, f"{title}\n{run.device_text(algorithms)}, {run.days_text(algorithms)}, {dtype}")
    for a in algorithms:
        draw_points(ax, a, {n: r.gbps for n, r in run.points(a, dtype).items()})
    log_ticks(ax)
    ax.legend(fontsize=LEGEND_SIZE, loc="best", framealpha=0.9)
    apart, off = [], []
    for k, (reference, what, kind) in enumerate(refs):
        below = fig.add_subplot(grid[1, k], sharex=ax)
        others, above = draw_ratio(below, run, dtype, algorithms, reference, what, kind)
        if others:
            apart.append((reference, others))
        off += above
    ax.set_xlabel("n (elements scanned)")
    return fig, caption(run, dtype, algorithms, refs, apart, off, missing)


def draw_section_figures(gpu_dir, out_dir, written, notes):
    """The figures the section pages show (SECTION_FIGURES and bandwidth_applications), each from its
    CSV in gpu_dir."""
    for stem, spec in SECTION_FIGURES.items():
        path = os.path.join(gpu_dir, spec.csv)
        if not os.path.isfile(path):
            notes.append(f"{stem}: no {spec.csv} in {gpu_dir}: not drawn")
            continue
        run = read_run(path)
        have = [a for a in spec.algorithms if run.points(a, spec.dtype)]
        missing = [a for a in spec.algorithms if a not in have]
        if not have:
            raise PlotError(f"{stem}: {spec.csv} has none of {', '.join(spec.algorithms)} ({spec.dtype})")
        fig, text = comparison_figure(run, spec.dtype, have, spec.title, spec.over, missing)
        save(fig, out_dir, stem, written)
        write_caption(out_dir, stem, text)
    path = os.path.join(gpu_dir, APPLICATIONS_RUN)
    if os.path.isfile(path):
        run = read_run(path)
        fig, text = application_figure(run)
        save(fig, out_dir, "bandwidth_applications", written)
        write_caption(out_dir, "bandwidth_applications", text)
    else:
        notes.append(f"bandwidth_applications: no {APPLICATIONS_RUN} in {gpu_dir}: not drawn")


def draw_run_figures(run, out_dir, written):
    """The figures of one run of the --data folder (a run of your own): per element type the lab's
    full scans, its in-block kernels and the libraries' scans (at most MAX_CURVES each, with the copy
    and CUB where the run has them), and 11.9's applications."""
    slug = re.sub(r"[^A-Za-z0-9]+", "_", run.name).strip("_").lower() or "gpu"
    if any(r.algorithm in APPLICATIONS for r in run.rows):
        fig, text = application_figure(run)
        save(fig, out_dir, f"bandwidth_{slug}_applications", written)
        write_caption(out_dir, f"bandwidth_{slug}_applications", text)
    for dtype in run.types:
        drawn = [a for a in run.algorithms(dtype) if run.points(a, dtype) and a not in APPLICATIONS
                 and base_name(a) != "cub_inclusive_sum_by_key"]
        copy = [a for a in drawn if base_name(a) == "memcpy"]
        cub = [a for a in drawn if base_name(a) == "cub_inclusive_sum"]
        scans = [a for a in drawn if a not in copy]
        in_block = [a for a in scans if is_in_block(a)]
        libraries = [a for a in scans if base_name(a).startswith(LIBRARIES)]
        full = [a for a in scans if a not in in_block and a not in libraries]
        for kind, group, refs, what in (("", full, cub, "the lab's full scans of the array"),
                                        ("_in_block", in_block, [], "one block per section, many per launch"),
                                        ("_libraries", libraries, [], "the libraries' scans")):
            if not group:
                continue
            chosen = sorted(group, key=lambda a: ("_max" in a, a))[:MAX_CURVES - len(copy) - len(refs)]
            chosen += [a for a in refs if a not in chosen] + copy
            stem = f"bandwidth_{slug}_{re.sub(r'[^A-Za-z0-9]+', '_', dtype).lower() or 'any'}{kind}"
            fig, text = comparison_figure(run, dtype, chosen, f"Scan bandwidth, {what}")
            save(fig, out_dir, stem, written)
            write_caption(out_dir, stem, text)


def application_figure(run):
    """Section 11.9 against CUB, one run: per element type a row of panels (compaction, partition,
    segmented scan) of GB/s with the copy, and under it each one's time over its CUB counterpart's; one
    legend for all (an algorithm has one colour and marker in every panel)."""
    import matplotlib.pyplot as plt
    dtypes = sorted((t for t in run.types if any(run.points(a, t) for a in APPLICATIONS)),
                    key=lambda t: (t != "int32", t))
    fig, axes = plt.subplots(2 * len(dtypes), len(APPLICATION_PANELS), figsize=(11, 1.2 + 8 * len(dtypes)),
                             squeeze=False, gridspec_kw={"height_ratios": [1.5, 1] * len(dtypes)})
    drawn, apart, off, legend = [], [], [], {}
    for row, dtype in enumerate(dtypes):
        for col, (what, names) in enumerate(APPLICATION_PANELS):
            ax, below = axes[2 * row][col], axes[2 * row + 1][col]
            chosen = [a for a in names + ("memcpy",) if run.points(a, dtype)]
            gbps_axes(ax, f"{what},\n{dtype}")
            ax.set_ylabel("GB/s of the bytes moved (log)")
            for a in chosen:
                draw_points(ax, a, {n: r.gbps for n, r in run.points(a, dtype).items()})
                drawn.append((a, dtype))
            log_ticks(ax)
            for handle, label in zip(*ax.get_legend_handles_labels()):
                legend.setdefault(label, handle)
            below.sharex(ax)
            cub = names[0]
            if run.points(cub, dtype):
                others, above = draw_ratio(below, run, dtype, [a for a in chosen if a != "memcpy"], cub,
                                           f"time over {label_of(cub)}'s", "time")
                below.set_title(f"time over {label_of(cub)}'s", fontsize=10.5)
                if others:
                    apart.append((cub, others))
                off += [(f"{a} ({dtype})", r) for a, r in above]
    fig.suptitle(f"Section 11.9 against CUB: GB/s against n (log-log), and the time over CUB's at the same n "
                 f"(linear, lower is faster)\n{run.device_text()}, {run.days_text()}", fontsize=12)
    # (two columns of legend: three would make the figure wider than a page shows at 10-px text)
    fig.tight_layout(rect=(0, 0, 1, 1 - 1.85 / (1.2 + 8 * len(dtypes))))
    fig.legend(list(legend.values()), list(legend.keys()), loc="upper center", ncol=2, fontsize=LEGEND_SIZE + 1,
               bbox_to_anchor=(0.5, 1 - 0.75 / (1.2 + 8 * len(dtypes))), frameon=False)
    algorithms = list(dict.fromkeys(a for a, _ in drawn))
    parts = [f"One run, {run.rel}: {run.summary(algorithms)}."]
    for dtype in dtypes:
        parts.append(f"Drawn ({dtype}): every point the run has of "
                     f"{drawn_text(run, dtype, list(dict.fromkeys(a for a, t in drawn if t == dtype)))}.")
    parts.append("Under each panel: the time over its CUB counterpart's at every n where both were measured.")
    for reference, others in apart:
        parts.append(f"Not compared with {reference} (no point at the same n): {', '.join(others)}.")
    if off:
        parts.append(f"Above {RATIO_CAP}x, off the linear scale: " +
                     ", ".join(f"{a} (up to {r:.1f}x)" for a, r in off) + ".")
    return fig, " ".join(parts)


def main(argv=None):
    parser = argparse.ArgumentParser(prog=PROG, description="Draw scanlab's figures from its JSON/CSV data.")
    parser.add_argument("--data", required=True, help="folder with the programs' JSON/CSV files")
    parser.add_argument("--out", required=True, help="folder for the PNG and SVG files (created)")
    parser.add_argument("--gpu-data", default=os.path.join(HERE, "data"),
                        help="folder of committed GPU timing CSVs (default: plots/data)")
    parser.add_argument("--only", default=",".join(DEFAULT_PLOTS),
                        help="comma-separated subset of: " + ", ".join(ALL_PLOTS))
    parser.add_argument("--png-only", action="store_true", help="no SVG files (the docs show the PNGs)")
    args = parser.parse_args(argv)
    global PNG_ONLY
    PNG_ONLY = args.png_only
    try:
        wanted = [w.strip() for w in args.only.split(",") if w.strip()]
        unknown = [w for w in wanted if w not in ALL_PLOTS]
        if unknown:
            raise PlotError(f"--only: unknown plot {', '.join(unknown)} (choose from {', '.join(ALL_PLOTS)})")
        work, traces, banks, statuses, runs, notes = load(args.data)
        if ("work" in wanted or "steps" in wanted) and not work:
            raise PlotError(f"no work-efficiency JSON in {args.data} "
                            "(write one with: scanlab_11_3 --json DIR/work_efficiency.json)")
        if "trace" in wanted and not traces:
            raise PlotError(f"no trace JSON in {args.data} (write one with: scanlab_11_3 --trace DIR/traces.json)")
        try:
            import matplotlib
        except ImportError:
            raise PlotError("matplotlib is not installed (pip install -r plots/requirements.txt)")
        matplotlib.use("Agg")
        os.makedirs(args.out, exist_ok=True)
        written = []
        if work:
            path, doc = pick_work(work)
            note = "" if doc.get("source", "solution") == "solution" else f" ({doc['source']} kernels and model)"
            if "work" in wanted:
                plot_work(doc, note, args.out, written)
            if "steps" in wanted:
                plot_steps(doc, note, args.out, written)
        if "trace" in wanted:
            drawn = 0
            for path, doc in traces:
                for run in doc["runs"]:
                    drawn += plot_trace(run, doc.get("source", "solution"), args.out, written)
            if drawn == 0:
                raise PlotError("the trace files hold no traced array to draw")
        if "banks" in wanted:
            if not banks:
                raise PlotError(f"no bank file in {args.data} (write one with: scanlab_11_4_banks DIR/11.4.banks.json)")
            for path, doc in banks:
                plot_banks(doc, args.out, written)
        if "statuses" in wanted:
            if not statuses:
                raise PlotError(f"no status file in {args.data} (write one with: scanlab_11_8_statuses DIR/11.8.statuses.json)")
            for path, doc in statuses:
                for run in doc["runs"]:
                    plot_statuses(run, args.out, written)
        if "bandwidth" in wanted:
            for run in runs:
                draw_run_figures(run, args.out, written)
            named = [f.csv for f in SECTION_FIGURES.values()] + [APPLICATIONS_RUN]
            if os.path.isdir(args.gpu_data) and any(os.path.isfile(os.path.join(args.gpu_data, c)) for c in named):
                draw_section_figures(args.gpu_data, args.out, written, notes)
            elif not runs:
                print(f"{PROG}: bandwidth: no GPU timing CSV in {args.data} or {args.gpu_data}: skipped")
        for note in notes:
            print(f"{PROG}: {note}")
        print(f"{PROG}: wrote {len(written)} files to {args.out}")
        return 0
    except PlotError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
