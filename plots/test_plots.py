#!/usr/bin/env python3
"""Tests of make_plots.py (ctest: plots.make_plots, label "plots").

Draws every figure headless from the small data in plots/testdata/ (written by scanlab_11_3 and a
made-up GPU CSV) and checks each image is a real, non-blank PNG; checks the bandwidth figures of the
committed GPU runs (plots/data/) are readable: at most MAX_CURVES curves per panel, one colour and
marker per algorithm in every figure, every curve of a panel over the same n range, GB/s on a log
axis; then checks that a malformed or missing input gives exactly one error line and exit status 1. Exits 77 (ctest: skipped) when
matplotlib is not installed.

    test_plots.py [--venv DIR]   # re-runs itself with DIR/bin/python when that exists
"""
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


def check_readable_bandwidth_figures(tmp):
    sys.path.insert(0, HERE)
    import make_plots
    import matplotlib
    matplotlib.use("Agg")
    colours = [c for c, _ in make_plots.STYLE.values()]
    check(len(set(colours)) == len(colours), "STYLE gives every algorithm its own colour")
    figures = {}  # stem -> [(label, colour, marker, xs)] per curve

    def keep(fig, out_dir, stem, written):
        ax = fig.axes[0]
        figures[stem] = ([(line.get_label(), line.get_color(), line.get_marker(), list(line.get_xdata()))
                          for line in ax.get_lines()], ax.get_yscale())
        import matplotlib.pyplot as plt
        plt.close(fig)
    real_save = make_plots.save
    make_plots.save = keep
    try:
        rows = []
        for path in sorted(os.listdir(os.path.join(HERE, "data"))):
            if path.endswith(".csv"):
                rows += make_plots.read_bandwidth_csv(os.path.join(HERE, "data", path)) or []
        make_plots.plot_bandwidth(rows, tmp, [])
    finally:
        make_plots.save = real_save
    check(len(figures) >= 6, f"the GPU data gives the section figures ({len(figures)} figures)")
    style = {}
    for stem, (curves, yscale) in figures.items():
        check(0 < len(curves) <= make_plots.MAX_CURVES, f"{stem}: {len(curves)} curves, at most {make_plots.MAX_CURVES}")
        check(yscale == "log", f"{stem}: GB/s on a log axis")
        # The same n range: no curve starts or stops more than one step of the sparsest grid (the
        # in-block runs: 8 times more sections per step) before another.
        ranges = [(min(xs), max(xs)) for _, _, _, xs in curves]
        lo, hi = max(r[0] for r in ranges), min(r[1] for r in ranges)
        dense = all(b <= 4 * a for _, _, _, xs in curves for a, b in zip(sorted(xs), sorted(xs)[1:]))
        step = 1 if dense else 8
        check(all(lo / step <= r[0] <= lo * step and hi / step <= r[1] <= hi * step for r in ranges),
              f"{stem}: every curve over the same n range ({sorted(set(ranges))})")
        for label, colour, marker, _ in curves:
            style.setdefault(label, set()).add((colour, marker))
    check(all(len(v) == 1 for v in style.values()),
          "one colour and marker per algorithm across the figures: "
          + ", ".join(f"{k}: {sorted(v)}" for k, v in style.items() if len(v) > 1))


def main():
    reexec_in_venv()
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("matplotlib is not installed: skipped (pip install -r plots/requirements.txt)")
        return SKIP

    with tempfile.TemporaryDirectory(prefix="scanlab_plots_") as tmp:
        out = os.path.join(tmp, "out")
        empty_gpu = os.path.join(tmp, "no_gpu")
        os.makedirs(empty_gpu)

        # 1. Every figure from the test data (the GPU CSV is in the data folder itself).
        result = run("--data", TESTDATA, "--out", out, "--gpu-data", empty_gpu)
        check(result.returncode == 0, f"make_plots.py on plots/testdata exits 0 ({result.stderr.strip()})")
        expected = ["work_vs_n", "steps_vs_n", "trace_solution_kogge_stone_n8", "trace_solution_brent_kung_n8",
                    "bandwidth_example_gpu_test_data_cuda_13_0_int32_in_block", "kogge_stone_vs_brent_kung",
                    "kogge_stone_variants"]
        for stem in expected:
            check(png_ok(os.path.join(out, stem + ".png")), f"{stem}.png is a non-blank image")
            svg = os.path.join(out, stem + ".svg")
            check(os.path.exists(svg) and os.path.getsize(svg) > 1000, f"{stem}.svg written")

        # 1b. The figures of the committed GPU runs are readable.
        check_readable_bandwidth_figures(tmp)
        check_applications_figure()

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
        bad_case("csv_without_gbps", {"work_efficiency.json": json.dumps(work),
                                      "gpu.csv": "device,algorithm,n\nGPU,kogge_stone,1024\n"},
                 "no column gbps", ("--only", "bandwidth"))
        bad_case("csv_bad_number", {"gpu.csv": "device,algorithm,n,gbps\nGPU,kogge_stone,1024,fast\n"},
                 "column 'gbps' is 'fast'", ("--only", "bandwidth"))
        result = run("--data", os.path.join(tmp, "does_not_exist"), "--out", os.path.join(tmp, "x"))
        ok, lines = one_error_line(result, "is not a folder")
        check(ok, f"missing --data folder: one error line (got exit {result.returncode}: {lines})")

    print(f"{len(failures)} check(s) failed" if failures else "all plot checks passed")
    return 1 if failures else 0


# ---- Section 11.9: the applications' figure (plots/data/*applications*.csv) ------------------------

def check_applications_figure():
    """bandwidth_applications from the committed GPU runs: every panel on log axes, at most
    MAX_CURVES curves, each with the copy; 11.9's rows never in the scans' figures."""
    try:
        import matplotlib
    except ImportError:
        return
    sys.path.insert(0, HERE)
    import make_plots
    matplotlib.use("Agg")
    rows = []
    for path in sorted(os.listdir(os.path.join(HERE, "data"))):
        if path.endswith(".csv"):
            rows += make_plots.read_bandwidth_csv(os.path.join(HERE, "data", path)) or []
    if not any(algorithm in make_plots.APPLICATIONS for _, algorithm, _, _, _ in rows):
        check(False, "plots/data/ holds an applications CSV (scanlab_bench --only ...,11.9/)")
        return
    panels = {}  # stem -> [(title, [labels], xscale, yscale)]

    def keep(fig, out_dir, stem, written):
        panels[stem] = [(ax.get_title(), [line.get_label() for line in ax.get_lines()], ax.get_xscale(),
                         ax.get_yscale()) for ax in fig.axes]
        import matplotlib.pyplot as plt
        plt.close(fig)
    real_save = make_plots.save
    make_plots.save = keep
    try:
        with tempfile.TemporaryDirectory() as tmp:
            make_plots.plot_bandwidth(rows, tmp, [])
    finally:
        make_plots.save = real_save
    check("bandwidth_applications" in panels, "the applications figure is drawn (bandwidth_applications)")
    wanted = {make_plots.label_of(a) for a in make_plots.APPLICATIONS}
    for stem, axes in panels.items():
        labels = {label for _, curves, _, _ in axes for label in curves}
        if stem.endswith("applications"):
            check(len(axes) % len(make_plots.APPLICATION_PANELS) == 0 and len(axes) >= 3,
                  f"{stem}: a row of {len(make_plots.APPLICATION_PANELS)} panels per type ({len(axes)} panels)")
            for title, curves, xscale, yscale in axes:
                check(0 < len(curves) <= make_plots.MAX_CURVES and make_plots.label_of("memcpy") in curves,
                      f"{stem} '{title}': {len(curves)} curves with the copy")
                check(xscale == "log" and yscale == "log", f"{stem} '{title}': log axes")
            check(wanted <= labels, f"{stem}: every application and its CUB counterpart drawn "
                  f"(missing {sorted(wanted - labels)})")
        else:
            check(not (labels & wanted), f"{stem}: no application among the scans ({sorted(labels & wanted)})")


if __name__ == "__main__":
    sys.exit(main())
