#!/usr/bin/env python3
"""Tests of make_plots.py (ctest: plots.make_plots, label "plots").

Draws every figure headless from the small data in plots/testdata/ (written by scanlab_11_3, by
scanlab_11_4_banks for a 64-thread block, by scanlab_11_8_statuses, and a made-up GPU CSV) and checks each image is a real,
non-blank PNG; the trace figures name each step by its stride or phase and draw an arrow into every
cell a step changed, and the bank diagram counts the conflicts of the addresses it is given. Then no figure drops a committed
point: every section figure and 11.9's, drawn from the committed GPU runs (plots/data/), has for each
algorithm it names exactly the verified points of its one CSV (read here with the csv module, not
with make_plots' reader), GB/s on log-log axes, and below it the comparisons at the same n on a
linear axis with the ratio at every n where both were measured (a point above the axis named in the
panel), and a caption that names its run; each algorithm has its own colour. Then a malformed or
missing input gives exactly one error line and exit status 1. Exits 77 (ctest: skipped) when
matplotlib is not installed.

    test_plots.py [--venv DIR]   # re-runs itself with DIR/bin/python when that exists
"""
import csv
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "make_plots.py")
TESTDATA = os.path.join(HERE, "testdata")
SKIP = 77


def reexec_in_venv():
    if "--venv" not in sys.argv:
        return
    venv = sys.argv[sys.argv.index("--venv") + 1]
    python = os.path.join(venv, "bin", "python")
    if os.path.exists(python) and os.path.realpath(sys.prefix) != os.path.realpath(venv):
        os.execv(python, [python, __file__])


failures = []


def check(condition, what):
    print(("ok    " if condition else "FAIL  ") + what)
    if not condition:
        failures.append(what)


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, timeout=300)


def png_ok(path):
    """A PNG with a header, a size, and more than one colour (not blank)."""
    if not os.path.exists(path) or os.path.getsize(path) < 1000:
        return False
    with open(path, "rb") as f:
        head = f.read(24)
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        return False
    width, height = struct.unpack(">II", head[16:24])
    if width < 100 or height < 100:
        return False
    import matplotlib.image
    pixels = matplotlib.image.imread(path)
    return float(pixels.std()) > 0.01


def one_error_line(result, expect):
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    return (result.returncode == 1 and len(lines) == 1 and lines[0].startswith("make_plots.py: error:")
            and expect in lines[0]), lines


# ---- the book's pictures: trace figures and the bank diagram -----------------------------------------

def check_traces(make_plots):
    """Every row of every trace figure of plots/testdata/traces.json (scanlab_11_3 --trace, cut to three
    runs) is named by its stride, tree or phase, never by a barrier's number; every cell a row changed
    has its arrow (a combination or a copy); the coarsened scan shows its totals and its three phases,
    with an arrow into each cell of phase 1 (but a subsection's first) and of phase 3 (but the first
    subsection's)."""
    with open(os.path.join(TESTDATA, "traces.json")) as f:
        runs = json.load(f)["runs"]
    for run in runs:
        name = f"trace of {run['algorithm']}, n = {run['n']}"
        rows = make_plots.trace_rows(run)
        steps = [r for r in rows[1:] if r["label"] != "y (output)"]
        named = all(any(w in r["label"] for w in ("stride", "phase", "the load")) and "after barrier" not in r["label"]
                    for r in steps)
        check(steps and named, f"{name}: each step named by stride or phase ({[r['label'] for r in steps]})")
        for r in steps:
            before = rows[r["before"]]["decoded"] if r["before"] is not None else [None] * len(r["values"])
            changed = {i for i, d in enumerate(r["decoded"]) if d != before[i]}
            arrows = {c["target"] for c in r["combos"]}
            check(changed == arrows, f"{name}: '{r['label'].splitlines()[0]}': an arrow into every changed cell "
                  f"(changed {sorted(changed)}, arrows {sorted(arrows)})")
        if run["algorithm"].startswith("coarsened") and run["threads"] > 1:
            labels = [r["label"] for r in steps]
            check(any(r["array"] == "totals" for r in steps), f"{name}: the totals are drawn")
            for phase in ("phase 1", "phase 2", "phase 3"):
                check(any(phase in label for label in labels), f"{name}: {phase} is named")
            per = run["n"] // run["threads"]
            p1 = next(r for r in steps if "phase 1" in r["label"] and r["array"] == "XY")
            p3 = next(r for r in steps if "phase 3" in r["label"])
            check({c["target"] for c in p1["combos"]} == {i for i in range(run["n"]) if i % per},
                  f"{name}: phase 1 has an arrow into every element but each subsection's first")
            check({c["target"] for c in p3["combos"]} == set(range(per, run["n"])),
                  f"{name}: phase 3 has an arrow into every element of every subsection but the first")


def check_narrow(folder):
    """Each figure's narrow rendering in folder fits a phone: shown NARROW_COLUMN_PX wide, its smallest
    text is at least SMALLEST_TEXT_PX (what the pages serve a screen up to 600 px wide:
    docs/make_pages.py)."""
    import glob
    sizes = sorted(glob.glob(os.path.join(folder, "*.size")))
    check(sizes, f"{folder}: figures with their sizes")
    for path in sizes:
        stem = os.path.basename(path)[:-len(".size")]
        with open(path) as f:
            narrow = json.load(f).get("narrow", {})
        fits = bool(narrow) and narrow["width_px"] * make_plots.SMALLEST_TEXT_PX / narrow["smallest_text_px"] \
            <= make_plots.NARROW_COLUMN_PX
        check(fits and png_ok(os.path.join(folder, stem + ".narrow.png")),
              f"{stem}: the narrow rendering fits a {make_plots.NARROW_COLUMN_PX}-px column at "
              f"{make_plots.SMALLEST_TEXT_PX}-px text ({narrow})")


def check_banks(make_plots, tmp):
    """plots/testdata/banks.json (scanlab_11_4_banks FILE 64: the trees' addresses on the emulator) drawn,
    and the conflicts make_plots counts (in the figure's caption and on the page) equal to a count
    made here: per warp and access, the most different words in one bank, less one."""
    with open(os.path.join(TESTDATA, "banks.json")) as f:
        doc = json.load(f)
    out = os.path.join(tmp, "banks")
    os.makedirs(out)
    written = []
    make_plots.plot_banks(make_plots.check_banks(doc, "banks.json"), out, written)  # (in this process: faster)
    check(png_ok(os.path.join(out, "brent_kung_banks.png")), "the bank diagram is drawn")
    with open(os.path.join(out, "brent_kung_banks.caption")) as f:
        caption = f.read()
    for layout in doc["layouts"]:
        groups = {}
        for thread, tree, stride, left, right, write in layout["accesses"]:
            for k, word in enumerate((left, right, write)):
                groups.setdefault((tree, stride, thread // 32, k), []).append(word)
        extra = [0, 0, 0]
        for (_, _, _, k), words in groups.items():
            banks = {}
            for w in set(words):
                banks[w % 32] = banks.get(w % 32, 0) + 1
            extra[k] += max(banks.values()) - 1
        _, loads, stores = make_plots.bank_conflicts(doc, layout)
        check((loads, stores) == (extra[0] + extra[1], extra[2]),
              f"banks, {layout['name']}: {loads} load and {stores} store conflicts, counted here "
              f"{extra[0] + extra[1]} and {extra[2]}")
        check(f"{layout['name']} {loads} load and {stores} store conflicts" in caption,
              f"banks, {layout['name']}: the caption gives its counts")


def check_statuses(make_plots, tmp):
    """plots/testdata/statuses.json (scanlab_11_8_statuses FILE: 11.7's domino and 11.8's look-back on
    the emulator, 8 tiles, 4 resident blocks), 11.8's figure drawn; each run's rows, replayed here from
    the events: every read is an arrow of its block's turn with what it found, every tile's status
    after each turn is what the writes so far left, and the protocol holds (11.8: a tile publishes A
    before it reads, P only after its last read found a P; 11.7: P in section order)."""
    with open(os.path.join(TESTDATA, "statuses.json")) as f:
        doc = json.load(f)
    out = os.path.join(tmp, "statuses")
    os.makedirs(out)
    make_plots.check_statuses(doc, "statuses.json")
    for run in doc["runs"]:
        name = f"statuses {run['section']}"
        stem = "statuses_" + run["section"].replace(".", "_")
        if run["section"] == "11.8":  # (one drawn: the same code draws both, and a drawing costs 1 to 2 s)
            make_plots.plot_statuses(run, out, [])
            check(png_ok(os.path.join(out, stem + ".png")), f"{name}: drawn")
        turns = make_plots.status_turns(run)
        reads = [(e[0], e[2], e[3]) for e in run["events"] if e[1] == "read"]
        drawn = [(t["block"], tile, seen) for t in turns for tile, seen_all in t["reads"].items() for seen in seen_all]
        check(sorted(reads) == sorted(drawn), f"{name}: every status read is drawn in its block's turn")
        state, k, wrong = [None] * run["tiles"], 0, []
        for r, turn in enumerate(turns):
            count = len(turn["tickets"]) + sum(len(v) for v in turn["reads"].values()) + len(turn["writes"])
            for block, kind, tile, status in run["events"][k:k + count]:
                if kind == "ticket":
                    state[tile] = "X"
                elif kind == "write":
                    state[tile] = status
            k += count
            if turn["state"] != state:
                wrong.append(r + 1)
        check(not wrong, f"{name}: every row is the state the events replayed here leave (wrong: {wrong})")
        check(k == len(run["events"]), f"{name}: every event is in a turn")
        prefixes = [e[2] for e in run["events"] if e[1] == "write" and e[3] == "P"]
        check(sorted(prefixes) == list(range(run["tiles"])), f"{name}: every tile publishes its prefix once")
        if run["section"] == "11.7":
            check(prefixes == sorted(prefixes), f"{name}: the domino publishes in section order")
        else:
            early = [tile for turn in turns for tile, status in turn["writes"]
                     if status == "P" and tile > 0 and not any(seen[-1] == "P" for seen in turn["reads"].values())]
            check(not early, f"{name}: every tile but 0 publishes P in a turn whose look-back found a P ({early})")
            check(not [e for e in run["events"] if e[1] == "read" and not any(
                w[1] == "write" and w[0] == e[0] and w[3] == "A" for w in run["events"][:run["events"].index(e)])],
                  f"{name}: a block publishes its aggregate before its look-back reads")
        if run["section"] == "11.8":
            with open(os.path.join(out, stem + ".caption")) as f:
                caption = f.read()
            check(f"in the order {', '.join(str(t) for t in prefixes)}." in caption, f"{name}: the caption gives the order")


# ---- every committed point drawn: each figure's curves against its CSV --------------------------------
# The CSV is read here with the csv module, not with the reader make_plots.py uses
# (docs/measurements/measurements.py), so that a fault of the reader shows too.

def csv_rows(path, dtype):
    """{algorithm: {n: (gbps, median_us)}} of the verified GPU rows of one type."""
    out = {}
    with open(path, newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            if r.get("type", "") != dtype or r.get("backend", "cuda") == "cpu":
                continue
            if r.get("verified", "true").strip().lower() not in ("1", "true", "yes"):
                continue
            us = float(r["median_us"]) if "median_us" in r else 1000 * float(r["median_ms"])
            out.setdefault(r["algorithm"], {})[int(r["n"])] = (float(r["gbps"]), us)
    return out


def points_of(line):
    """{x: y} of one curve (the NaN that make its gaps left out)."""
    return {float(x): float(y) for x, y in zip(line.get_xdata(), line.get_ydata()) if y == y}


def drawn_lines(ax):
    """{label: {x: y}} of the labelled curves of one panel."""
    return {line.get_label(): points_of(line) for line in ax.get_lines() if not line.get_label().startswith("_")}


def same_points(drawn, expected, rel=1e-9):
    """The n drawn and the n expected are the same, each value equal (relative 1e-9)."""
    if set(drawn) != {float(n) for n in expected}:
        return False, f"(n drawn {sorted(drawn)}, n in the CSV {sorted(expected)})"
    bad = [n for n, v in expected.items() if abs(drawn[float(n)] - v) > rel * abs(v)]
    return not bad, f"(values differ at n = {bad})" if bad else ""


def check_panel(name, ax, csv_path, dtype, algorithms, label_of):
    """A GB/s panel: exactly one curve per algorithm the CSV has, with every verified point of it."""
    rows = csv_rows(csv_path, dtype)
    lines = drawn_lines(ax)
    wanted = {label_of(a): a for a in algorithms if a in rows}
    check(set(lines) == set(wanted), f"{name}: the curves drawn are those the figure names and the run has "
          f"(drawn {sorted(lines)}, expected {sorted(wanted)})")
    for label, a in wanted.items():
        ok, why = same_points(lines.get(label, {}), {n: v[0] for n, v in rows[a].items()})
        check(ok, f"{name}: {a} ({dtype}): every point of {os.path.relpath(csv_path, HERE)} drawn, none added {why}")
    return rows


def check_ratio_panel(name, ax, rows, algorithms, label_of):
    """A comparison panel: per algorithm, the ratio at every n the run has of both, and nothing else;
    a point above the axis is named in the panel."""
    title = ax.get_title()
    by_label = {label_of(a): a for a in rows}
    if title.startswith("share of the copy's"):
        reference, kind = "memcpy", "share"
    else:
        reference, kind = by_label.get(title.split("time over ", 1)[-1].split("'s")[0]), "time"
    check(reference in rows, f"{name}: the panel '{title}' compares with an algorithm of the run ({reference})")
    if reference not in rows:
        return
    # (the curves of a comparison have no legend of their own: each is known by its colour, one per
    # algorithm in every figure)
    drawn = {line.get_color(): points_of(line) for line in ax.get_lines() if line.get_label() == "_nolegend_"}
    others = [a for a in algorithms if a in rows and a != reference and not (kind == "share" and a == "memcpy")]
    top = ax.get_ylim()[1]
    texts = " ".join(t.get_text() for t in ax.texts)
    for a in others:
        theirs = rows[reference]
        expected = {n: (v[1] / theirs[n][1] if kind == "time" else 100 * v[0] / theirs[n][0])
                    for n, v in rows[a].items() if n in theirs}
        colour = make_plots.style_of(a)[0]
        if not expected:
            check(colour not in drawn, f"{name} '{title}': {a} has no n in common with {reference}: no curve")
            continue
        ok, why = same_points(drawn.get(colour, {}), expected)
        check(ok, f"{name} '{title}': {a}: the ratio at every n where both were measured {why}")
        if max(expected.values()) > top:
            check(label_of(a) in texts, f"{name} '{title}': {a} goes above the axis and the panel says so")


def capture(draw):
    """The figures draw() makes: {stem: figure}, through make_plots.save (nothing written)."""
    figures = {}

    def keep(fig, out_dir, stem, written):
        figures[stem] = fig
    real = make_plots.save
    make_plots.save = keep
    try:
        draw()
    finally:
        make_plots.save = real
    return figures


def check_every_point_drawn(tmp):
    """Every section figure and 11.9's, drawn from the committed runs (plots/data/): each curve has
    every verified point of its CSV and no other, each comparison every n where both were measured."""
    import matplotlib.pyplot as plt
    data = os.path.join(HERE, "data")
    figures = capture(lambda: make_plots.draw_section_figures(data, tmp, [], []))
    expected = set(make_plots.SECTION_FIGURES) | {"bandwidth_applications"}
    check(set(figures) == expected, f"every section figure is drawn from plots/data ({sorted(expected - set(figures))} "
          "missing)")
    label_of = make_plots.label_of
    for stem, spec in make_plots.SECTION_FIGURES.items():
        if stem not in figures:
            continue
        fig = figures[stem]
        path = os.path.join(data, spec.csv)
        rows = check_panel(stem, fig.axes[0], path, spec.dtype, spec.algorithms, label_of)
        check(fig.axes[0].get_yscale() == "log" and fig.axes[0].get_xscale() == "log", f"{stem}: GB/s on log-log axes")
        check(len(fig.axes) >= 2, f"{stem}: the comparison at the same n below the GB/s ({len(fig.axes) - 1} panels)")
        for ax in fig.axes[1:]:
            check(ax.get_yscale() == "linear", f"{stem} '{ax.get_title()}': a linear axis")
            check_ratio_panel(stem, ax, rows, spec.algorithms, label_of)
        caption = os.path.join(tmp, stem + ".caption")
        text = open(caption, encoding="utf-8").read() if os.path.exists(caption) else ""
        check(f"plots/data/{spec.csv}" in text and "every point the run has" in text,
              f"{stem}: its caption names its run ({text[:80]}...)")
        plt.close(fig)
    fig = figures.get("bandwidth_applications")
    if fig:
        path = os.path.join(data, make_plots.APPLICATIONS_RUN)
        panels = [ax for ax in fig.axes if ax.get_yscale() == "log"]
        check(len(panels) >= len(make_plots.APPLICATION_PANELS), f"bandwidth_applications: {len(panels)} GB/s panels")
        for ax in fig.axes:
            if ax.get_yscale() != "log":
                continue
            what, dtype = ax.get_title().rsplit(",", 1)
            names = dict(make_plots.APPLICATION_PANELS)[what]
            rows = check_panel(f"bandwidth_applications {what} {dtype.strip()}", ax, path, dtype.strip(),
                               names + ("memcpy",), label_of)
            below = fig.axes[fig.axes.index(ax) + len(make_plots.APPLICATION_PANELS)]
            check_ratio_panel(f"bandwidth_applications {what} {dtype.strip()}", below, rows, names, label_of)
        plt.close(fig)


def check_style():
    colours = [c for c, _ in make_plots.STYLE.values()]
    check(len(set(colours)) == len(colours), "STYLE gives every algorithm its own colour")


make_plots = None


def main():
    global make_plots
    reexec_in_venv()
    try:
        import matplotlib
    except ImportError:
        # The system's python3, where ./lab installs Debian's python3-matplotlib, when the python3
        # that ran this (a pyenv one, say) has none.
        system = "/usr/bin/python3"
        if os.path.exists(system) and os.path.realpath(sys.executable) != os.path.realpath(system) and \
                subprocess.run([system, "-c", "import matplotlib"], capture_output=True).returncode == 0:
            os.execv(system, [system, __file__])
        print("matplotlib is not installed: skipped (pip install -r plots/requirements.txt)")
        return SKIP
    matplotlib.use("Agg")
    sys.path.insert(0, HERE)
    import make_plots as module
    make_plots = module

    with tempfile.TemporaryDirectory(prefix="scanlab_plots_") as tmp:
        out = os.path.join(tmp, "out")
        empty_gpu = os.path.join(tmp, "no_gpu")
        os.makedirs(empty_gpu)

        # 1. Every figure from the test data (the GPU CSV is in the data folder itself).
        result = run("--data", TESTDATA, "--out", out, "--gpu-data", empty_gpu)
        check(result.returncode == 0, f"make_plots.py on plots/testdata exits 0 ({result.stderr.strip()})")
        expected = ["work_vs_n", "steps_vs_n", "trace_solution_kogge_stone_n8", "trace_solution_brent_kung_n8",
                    "trace_solution_coarsened_256x4_n16", "bandwidth_gpu_example_int32_in_block"]
        for stem in expected:
            check(png_ok(os.path.join(out, stem + ".png")), f"{stem}.png is a non-blank image")
            svg = os.path.join(out, stem + ".svg")
            check(os.path.exists(svg) and os.path.getsize(svg) > 1000, f"{stem}.svg written")
        # 1a. Each figure's narrow rendering fits a phone (the diagrams' too: after 1b'' and 1b''' below).
        check_narrow(out)

        # 1b. A run of one's own (--data): every verified point drawn, the unverified one not.
        figure = capture(lambda: make_plots.draw_run_figures(
            make_plots.read_run(os.path.join(TESTDATA, "gpu_example.csv")), tmp, []))
        for stem, fig in figure.items():
            check_panel(stem, fig.axes[0], os.path.join(TESTDATA, "gpu_example.csv"), "int32",
                        ("kogge_stone", "brent_kung"), make_plots.label_of)

        # 1b'. The trace figures: each step named by its stride or phase, an arrow for every cell it
        # changed, the coarsened scan's totals drawn.
        check_traces(make_plots)

        # 1b''. The bank diagram: drawn, and its counts those of the addresses counted here.
        check_banks(make_plots, tmp)

        # 1b'''. The status figures of 11.7 and 11.8: every read and write of the emulator's run drawn.
        check_statuses(make_plots, tmp)

        check_narrow(os.path.join(tmp, "banks"))
        check_narrow(os.path.join(tmp, "statuses"))

        # 1c. The section figures of the committed GPU runs: every point, one run each.
        check_style()
        check_every_point_drawn(tmp)

        # 2. No GPU CSV at all: the bandwidth figure is skipped with a message, not an error.
        data = os.path.join(tmp, "data")
        os.makedirs(data)
        for name in ("work_efficiency.json", "traces.json"):
            shutil.copy(os.path.join(TESTDATA, name), data)
        result = run("--data", data, "--out", os.path.join(tmp, "out2"), "--gpu-data", empty_gpu)
        check(result.returncode == 0 and "bandwidth: no GPU timing CSV" in result.stdout,
              "without GPU CSVs: exit 0 and says the bandwidth figure was skipped")

        # 3. Malformed and missing inputs: one error line each, exit status 1.
        def bad_case(name, files, expect, extra=()):
            folder = os.path.join(tmp, name)
            os.makedirs(folder)
            for file_name, text in files.items():
                with open(os.path.join(folder, file_name), "w") as f:
                    f.write(text)
            result = run("--data", folder, "--out", os.path.join(tmp, name + "_out"), "--gpu-data", empty_gpu,
                         *extra)
            ok, lines = one_error_line(result, expect)
            check(ok, f"{name}: one error line containing '{expect}' (got exit {result.returncode}: {lines})")

        with open(os.path.join(TESTDATA, "work_efficiency.json")) as f:
            work = json.load(f)
        broken = json.loads(json.dumps(work))
        del broken["rows"][0]["work_measured"]
        bad_case("truncated_json", {"work_efficiency.json": '{"schema": "scanlab.work_efficiency/1", "rows": ['},
                 "is not valid JSON")
        bad_case("missing_field", {"work_efficiency.json": json.dumps(broken)}, "has no 'work_measured'")
        bad_case("no_work_file", {}, "no work-efficiency JSON", ("--only", "work"))
        bad_case("no_trace_file", {"work_efficiency.json": json.dumps(work)}, "no trace JSON", ("--only", "trace"))
        # A trace file whose frames lack the step's name or its combinations (scanlab_11_3 writes both:
        # common/src/trace_labels.cpp, the one source of the names the figures and --trace print).
        with open(os.path.join(TESTDATA, "traces.json")) as f:
            traces = json.load(f)
        unnamed = json.loads(json.dumps(traces))
        del unnamed["runs"][0]["frames"][0]["label"]
        bad_case("trace_without_label", {"work_efficiency.json": json.dumps(work), "traces.json": json.dumps(unnamed)},
                 "has no 'label'", ("--only", "trace"))
        wrong = json.loads(json.dumps(traces))
        next(f for f in wrong["runs"][0]["frames"] if f["combos"])["combos"][0]["left"] = 3
        bad_case("trace_bad_combination", {"work_efficiency.json": json.dumps(work), "traces.json": json.dumps(wrong)},
                 "each combination is", ("--only", "trace"))
        bad_case("csv_without_gbps", {"work_efficiency.json": json.dumps(work),
                                      "gpu.csv": "device,algorithm,n\nGPU,kogge_stone,1024\n"},
                 "no column gbps", ("--only", "bandwidth"))
        bad_case("csv_bad_number", {"gpu.csv": "device,algorithm,n,median_us,gbps\nGPU,kogge_stone,1024,5.0,fast\n"},
                 "column 'gbps' is 'fast'", ("--only", "bandwidth"))
        result = run("--data", os.path.join(tmp, "does_not_exist"), "--out", os.path.join(tmp, "x"))
        ok, lines = one_error_line(result, "is not a folder")
        check(ok, f"missing --data folder: one error line (got exit {result.returncode}: {lines})")

    print(f"{len(failures)} check(s) failed" if failures else "all plot checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
