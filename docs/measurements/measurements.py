#!/usr/bin/env python3
"""The one reader of scanlab's measurement CSVs, for the figures (plots/make_plots.py), the section
pages (docs/make_pages.py) and the Measurements page (this file's main), so that a column means the
same everywhere.

A timing CSV comes in one of two layouts, and both are read into the same Row:
  scanlab_bench (and its sweeps): device, cuda_version, driver, sm_clock_mhz, mem_clock_mhz, date,
      algorithm, type, n, median_us, gbps, verified (1/0), reps, min_us, timing, note
  a section program's --csv: section, algorithm, backend, device ("NAME, CUDA X.Y"), type, op, kind,
      n, seed, verified (true/false), reps, median_ms, min_ms, gbps, launches, ops, ..., date
What each field of a Row means, whatever the layout:
  device        the GPU's name ("NVIDIA H100 80GB HBM3"), without the CUDA version
  cuda_version  "13.0" (the bench's column, or the ", CUDA 13.0" a section program appends)
  date          the run's time as the program wrote it (ISO 8601); day: its date part
  algorithm     as the program names it ("11.6/hierarchical_coarsened", "memcpy", "kogge_stone")
  type, n       the element type and the number of elements
  median_us     the median time of one launch, in microseconds (a section program's median_ms x 1000)
  gbps          the bytes the job must move over the median time, in GB/s (10^9 bytes per second):
                2 n sizeof(T) for a scan and the copy; for 11.9's applications the bytes of its job
  verified      the result was checked against the CPU (bench "1", section program "true")
  backend       "cuda", or "cpu" (the emulator: its times say nothing about a GPU)
Other CSVs: scanlab_persistent_roles's (n, tiles, what, median_us, max_us) and
docs/measurements/ci_runs.csv are read as plain tables (read_table).

    measurements.py --root REPO --out PAGE.md    # writes the Measurements page of the docs
"""
import argparse
import csv
import glob
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
COPY = "memcpy"              # the device-to-device copy every scan is measured against
CUB = "cub_inclusive_sum"    # and CUB's scan
TIMING = {"events_l2_flushed": "CUDA events, L2 emptied before each launch",
          "events_l2_warm": "CUDA events, L2 not emptied",
          "run_scan_l2_flushed": "the sections' run_scan: the same",
          "run_scan_l2_warm": "the sections' run_scan: CUDA events, L2 not emptied"}
TRUE = ("1", "true", "yes")


class MeasurementError(Exception):
    """A CSV that cannot be read as it should: one line naming the file (and the line)."""


def n_text(n):
    """2^k for a power of two, else the number."""
    return f"2^{n.bit_length() - 1}" if n > 0 and n & (n - 1) == 0 else str(n)


def relative(path, root=ROOT):
    """The path from the repository root where it is inside, else as given."""
    full = os.path.abspath(path)
    return os.path.relpath(full, root) if full.startswith(os.path.abspath(root) + os.sep) else path


def read_table(path):
    """(header, [{column: text}], [line numbers]) of any CSV; MeasurementError if it cannot be read."""
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            header = reader.fieldnames or []
            rows, lines = [], []
            for r in reader:
                if None in r or any(r.get(c) is None for c in header):
                    raise MeasurementError(f"{path}:{reader.line_num}: {len(header)} columns expected, "
                                           f"the line has a different count")
                rows.append({k: v.strip() for k, v in r.items()})
                lines.append(reader.line_num)
            return header, rows, lines
    except UnicodeDecodeError:
        raise MeasurementError(f"{path} is not a text CSV file") from None
    except csv.Error as e:
        raise MeasurementError(f"{path}: not valid CSV ({e})") from None
    except OSError as e:
        raise MeasurementError(f"cannot read {path}: {e.strerror}") from None


def number(text, path, line, column, kind=float):
    try:
        value = kind(text)
    except (TypeError, ValueError):
        raise MeasurementError(f"{path}:{line}: column '{column}' is {text!r}, not a number") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise MeasurementError(f"{path}:{line}: column '{column}' is {text!r}, not a finite number")
    return value


class Row:
    __slots__ = ("line", "device", "cuda_version", "date", "algorithm", "type", "n", "median_us", "gbps",
                 "verified", "backend", "raw")

    def __init__(self, **fields):
        for k, v in fields.items():
            setattr(self, k, v)

    @property
    def day(self):
        return self.date[:10]


class Run:
    """One timing CSV: one run of a program (its rows in file order)."""

    def __init__(self, path, rows, layout, rel=None):
        self.path, self.rel, self.rows, self.layout = path, rel or relative(path), rows, layout
        self.types = list(dict.fromkeys(r.type for r in rows))
        self._table = None

    @property
    def name(self):
        return os.path.splitext(os.path.basename(self.path))[0]

    def algorithms(self, type_=None):
        return list(dict.fromkeys(r.algorithm for r in self.rows if type_ is None or r.type == type_))

    def table(self):
        """{(algorithm, type, n): Row}; a key measured twice in one run is an error (which to take?)."""
        if self._table is None:
            table = {}
            for r in self.rows:
                key = (r.algorithm, r.type, r.n)
                if key in table:
                    raise MeasurementError(f"{self.rel}:{r.line}: {r.algorithm} {r.type} n = {r.n} is measured "
                                           f"twice in one run (also line {table[key].line})")
                table[key] = r
            self._table = table
        return self._table

    def points(self, algorithm, type_, gpu_only=True):
        """{n: Row} of one algorithm and type: verified rows of a GPU (gpu_only) or all rows."""
        return {n: r for (a, t, n), r in self.table().items() if a == algorithm and t == type_
                and (not gpu_only or (r.verified and r.backend != "cpu"))}

    def ns(self, algorithm):
        return sorted({n for a, _, n in self.table() if a == algorithm})

    def need(self, algorithm):
        """The n of an algorithm the run measured; MeasurementError if it has none."""
        ns = self.ns(algorithm)
        if not ns:
            raise MeasurementError(f"{self.rel} has no algorithm {algorithm!r} (it has "
                                   f"{', '.join(sorted(self.algorithms()))})")
        return ns

    def us(self, algorithm, type_, n):
        r = self.table().get((algorithm, type_, n))
        return r.median_us if r else None

    def device_text(self, algorithms=None):
        rows = [r for r in self.rows if algorithms is None or r.algorithm in algorithms] or self.rows
        devices = list(dict.fromkeys(r.device + (f", CUDA {r.cuda_version}" if r.cuda_version else "") for r in rows))
        return " / ".join(devices)

    def days_text(self, algorithms=None):
        rows = [r for r in self.rows if algorithms is None or r.algorithm in algorithms] or self.rows
        days = sorted({r.day for r in rows if r.day})
        return days[0] if len(days) == 1 else (f"{days[0]} to {days[-1]}" if days else "no date")

    def summary(self, algorithms=None):
        """The run in one line for a caption: device, CUDA, day, repetitions, timing, verification."""
        rows = [r for r in self.rows if algorithms is None or r.algorithm in algorithms] or self.rows
        reps = sorted({r.raw.get("reps", "") for r in rows} - {""})
        timing = list(dict.fromkeys(TIMING.get(r.raw.get("timing", ""), r.raw.get("timing", "")) for r in rows
                                    if r.raw.get("timing")))
        bad = sum(1 for r in rows if not r.verified)
        text = f"{self.device_text(algorithms)}, {self.days_text(algorithms)}"
        if reps:
            text += f"; each point the median of {' or '.join(reps)} launches"
        if timing:
            text += f" ({'; '.join(timing)})"
        return text + ("; every result verified against the CPU" if not bad else
                       f"; {bad} of {len(rows)} results NOT verified against the CPU (not drawn)")

    def run_line(self, algorithms):
        """What the CSV says of the run: device, CUDA, clocks, date, repetitions, timing, verification."""
        rows = [r for r in self.rows if r.algorithm in algorithms]

        def values(col):
            seen = []
            for r in rows:
                v = r.raw.get(col, "")
                if v and v not in seen:
                    seen.append(v)
            return " / ".join(seen)
        parts = []
        if values("device"):
            parts.append(values("device"))
        if values("cuda_version"):
            parts.append(f"CUDA {values('cuda_version')}" +
                         (f" (the driver's: {values('driver')})" if values("driver") else ""))
        if values("sm_clock_mhz"):
            parts.append(f"SM clock {values('sm_clock_mhz')} MHz")
        if values("mem_clock_mhz"):
            parts.append(f"memory clock {values('mem_clock_mhz')} MHz")
        dates = sorted({r.date for r in rows if r.date})
        if dates:  # (a section program stamps every row: its first and last)
            parts.append(" / ".join(dates) if len(dates) <= 2 else f"{dates[0]} to {dates[-1]}")
        line = ", ".join(parts)
        timing = [TIMING.get(v, f"`{v}`") for v in values("timing").split(" / ") if v]
        if values("reps"):
            line += f"; each time the median of {values('reps')} launches" + (f" ({', '.join(timing)})" if timing else "")
        if rows and "verified" in rows[0].raw:
            bad = sum(1 for r in rows if not r.verified)
            line += ("; every result verified against the CPU" if not bad else
                     f"; {bad} of {len(rows)} results NOT verified against the CPU")
        return line


TIMING_NEEDS = ("device", "algorithm", "n", "gbps")


def read_timings(path, rel=None):
    """The Run of a timing CSV, or None for another kind of CSV (scanlab_11_3's work table, the
    roles, the CI runs). MeasurementError for a timing CSV that is malformed. rel: how to name the
    file (default: its path from the repository root)."""
    header, table, lines = read_table(path)
    if not header:
        raise MeasurementError(f"{path} is empty (expected a header line with device,algorithm,n,median_us,gbps)")
    if "algorithm" not in header or "work_measured" in header:
        return None  # not a timing CSV (scanlab_11_3 --csv: the work table, drawn from its JSON)
    missing = [c for c in TIMING_NEEDS if c not in header]
    if "median_us" not in header and "median_ms" not in header:
        missing.append("median_us")
    if missing:
        raise MeasurementError(f"{path}: the header has no column {', '.join(missing)} "
                               f"(a timing CSV needs device, algorithm, n, median_us or median_ms, gbps)")
    rows = []
    for r, line in zip(table, lines):
        device, cuda = r["device"], r.get("cuda_version", "")
        m = re.fullmatch(r"(.*), CUDA ([0-9.]+)", device)
        if m and not cuda:  # a section program's "NVIDIA H100 80GB HBM3, CUDA 13.0"
            device, cuda = m.group(1), m.group(2)
        if "median_us" in r:
            us = number(r["median_us"], path, line, "median_us")
        else:
            us = 1000 * number(r["median_ms"], path, line, "median_ms")
        rows.append(Row(line=line, device=device, cuda_version=cuda, date=r.get("date", ""),
                        algorithm=r["algorithm"], type=r.get("type", ""), n=number(r["n"], path, line, "n", int),
                        median_us=us, gbps=number(r["gbps"], path, line, "gbps"),
                        verified=r.get("verified", "true").lower() in TRUE, backend=r.get("backend", "cuda") or "cuda",
                        raw=r))
    return Run(path, rows, "program" if "median_ms" in header else "bench", rel)


# ---- Nsight Compute reports (bench/results/*ncu*.txt, results/*bank_conflicts*.txt) ------------------

NCU_UNITS = {"usecond": "us", "msecond": "ms", "Tbyte/s": "TB/s", "Gbyte/s": "GB/s"}


def read_ncu(path):
    """[(kernel, metric, unit, value)] of an Nsight Compute report, in file order: the sections of its
    text form ("    DRAM Throughput     %    79.08" under the kernel's line) and the rows of its --csv
    form (Kernel Name, Metric Name, Metric Unit, Metric Value). Values as numbers (1,248 -> 1248)."""
    out, kernel = [], ""
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith('"'):
                cells = next(csv.reader([line]))
                if len(cells) >= 15 and cells[0] != "ID":
                    try:
                        out.append((cells[4], cells[12], cells[13], float(cells[14].replace(",", ""))))
                    except ValueError:
                        pass
                continue
            m = re.match(r"  (\S.*\)) \(\d+, \d+, \d+\)x\(\d+, \d+, \d+\)", line)
            if m:
                kernel = m.group(1)
                continue
            m = re.match(r"    (\S.*?)\s{2,}(\S+)\s+([\d,]+(?:\.\d+)?)\s*$", line)
            if m and kernel:
                try:
                    out.append((kernel, m.group(1), NCU_UNITS.get(m.group(2), m.group(2)),
                                float(m.group(3).replace(",", ""))))
                except ValueError:
                    pass
    return out


# ---- every value of the committed data, for the check that finds numbers typed on a page --------------
DATA_GLOBS = ("plots/data/*.csv", "chapters/*/results/*.csv", "chapters/*/results/*.txt",
              "chapters/*/bench/results/*.csv", "chapters/*/bench/results/*.txt")


def data_values(root):
    """{unit: sorted values} a page could quote from the committed data: us (every time: medians,
    minima, the roles' stamps, Nsight Compute's durations), GB/s (every gbps, Nsight Compute's
    throughputs; TB/s as 1000 GB/s), % (each row's share of its run's copy at the same type and n, by
    time and by GB/s, and Nsight Compute's percentages), x (each row's time over, and under, its run's
    copy's and CUB's at the same type and n, and the copy's GB/s over its own), count (Nsight Compute's
    unitless counts)."""
    values = {"us": [], "GB/s": [], "%": [], "x": [], "count": []}
    paths = sorted({p for g in DATA_GLOBS for p in glob.glob(os.path.join(root, g))})
    for path in paths:
        if path.endswith(".txt"):
            scale = {"%": ("%", 1), "us": ("us", 1), "ms": ("us", 1000), "GB/s": ("GB/s", 1),
                     "TB/s": ("GB/s", 1000), "": ("count", 1)}
            for _, _, unit, v in read_ncu(path):
                if unit in scale:
                    values[scale[unit][0]].append(scale[unit][1] * v)
            continue
        try:
            header, rows, _ = read_table(path)
            run = read_timings(path) if "algorithm" in header else None
        except MeasurementError:
            continue
        if run is None:
            values["us"] += [float(r[c]) for r in rows for c in header if c.endswith("_us") and
                             re.fullmatch(r"-?[\d.]+", r[c] or "")]
            continue
        groups = {}
        for r in run.rows:
            values["us"].append(r.median_us)
            values["GB/s"].append(r.gbps)
            for col, scale in (("min_us", 1), ("min_ms", 1000)):
                if re.fullmatch(r"[\d.]+", r.raw.get(col, "")):
                    values["us"].append(scale * float(r.raw[col]))
            groups.setdefault((r.raw.get("variant", ""), r.type, r.n), []).append(r)
        for rows_at in groups.values():
            for ref in (r for r in rows_at if r.algorithm == COPY or r.algorithm.startswith("cub_")):
                for r in rows_at:
                    if r is ref or r.median_us <= 0 or r.gbps <= 0:
                        continue
                    values["x"] += [r.median_us / ref.median_us, ref.median_us / r.median_us]
                    if ref.algorithm == COPY:
                        values["%"] += [100 * ref.median_us / r.median_us, 100 * r.gbps / ref.gbps]
                        values["x"].append(ref.gbps / r.gbps)
    return {unit: sorted(v) for unit, v in values.items()}


# ---- the Measurements page -------------------------------------------------------------------------
# Every number on it comes from a file named beside it (never typed by hand):
#   plots/data/*.csv                                   GPU runs of the benchmark and of the sections
#   chapters/11_8_decoupled_lookback/bench/results/*   the benchmark's experiments, GPU test and
#                                                      compute-sanitizer logs, Nsight Compute profiles
#   .ci/records/*.log                                  whole-suite sanitizer runs
#   docs/measurements/ci_runs.csv                      CI runs (bash .ci/run) as timed
# Commit hashes stay in the files; the page says what was measured, on which device, and when.

BENCH_LOG2S = (10, 14, 16, 18, 20, 22, 24, 26, 28, 29)  # the sizes of the benchmark's tables


def significant(v, figures=3):
    """v with that many significant figures (3, every time and GB/s the pages show), never in exponent
    form, so a number of more integer digits keeps them all: 1304.2 -> 1304, 1.93939 -> 1.94, 754.27 -> 754."""
    if v == 0 or not math.isfinite(v):
        return f"{v:g}"
    return f"{v:.{max(0, figures - 1 - math.floor(math.log10(abs(v))))}f}"


def number_text(raw):
    """A CSV's number as the page shows it: GB/s and times with 3 significant figures."""
    try:
        return significant(float(raw))
    except ValueError:
        return raw


def bench_tables(run, root):
    """scanlab_bench's CSV: per element type a row per size 2^k, a column per algorithm,
    'median us (GB/s)'."""
    algorithms = run.algorithms()
    cells, failed = {}, []
    for r in run.rows:
        if r.verified:
            cells[(r.type, r.n, r.algorithm)] = f"{number_text(r.raw['median_us'])} ({number_text(r.raw['gbps'])})"
        else:
            cells[(r.type, r.n, r.algorithm)] = "FAILED"
            failed.append(f"{r.algorithm} {r.type} n = {r.n}")
    first = run.rows[0].raw
    text = (f"`{relative(run.path, root)}`: {first['device']}, CUDA {first['cuda_version']}, SM clock "
            f"{first['sm_clock_mhz']} MHz, memory clock {first['mem_clock_mhz']} MHz, {run.rows[0].day}; "
            f"{len(run.rows)} rows, median of {first['reps']} timed runs each (timing `{first['timing']}`); ")
    text += (f"**failed verification**: {', '.join(failed)}. " if failed else "every row verified. ")
    text += "Median µs (GB/s) per size:\n"
    for t in run.types:
        text += f"\n| {t}, n |" + "".join(f" `{a}` |" for a in algorithms) + "\n|---|" + "---:|" * len(algorithms) + "\n"
        for k in BENCH_LOG2S:
            row = [cells.get((t, 1 << k, a), "") for a in algorithms]
            if any(row):
                text += f"| 2^{k} |" + "".join(f" {c} |" if c else " |" for c in row) + "\n"
    return text


def program_table(run, root):
    """A section program's CSV: one row per run."""
    first = run.rows[0]
    out = [f"`{relative(run.path, root)}`: {first.raw['device']}, {first.day}; median of {first.raw['reps']} "
           f"timed runs each.", "",
           "| section | algorithm | type | op | kind | n | verified | median µs | GB/s |",
           "|---|---|---|---|---|---:|---|---:|---:|"]
    for r in run.rows:
        out.append(f"| {r.raw['section']} | `{r.algorithm}` | {r.type} | {r.raw['op']} | {r.raw['kind']} | {r.n} | "
                   f"{r.raw['verified']} | {significant(r.median_us)} | {number_text(r.raw['gbps'])} |")
    return "\n".join(out) + "\n"


def ctest_what(names, preset):
    """What a ctest run ran, from its tests' names (SECTION.solution.cuda.*, SECTION[.large|.small].sanitize.TOOL.*,
    SECTION.exercise.cuda.*): e.g. "compute-sanitizer memcheck, racecheck on 11.8's program"."""
    if preset in ("asan", "tsan"):
        return ("whole suite under AddressSanitizer and UBSan (`asan` preset, cpu backend)" if preset == "asan" else
                "whole suite under ThreadSanitizer (`tsan` preset, cpu backend)")
    groups = {}  # kind -> (sections, tools)
    for name in names:
        m = re.match(r"(11\.[0-9]+)\.(?:(?:large|small)\.)?sanitize\.([a-z]+)\.", name)
        if m:
            groups.setdefault("sanitize", (set(), set()))
            groups["sanitize"][0].add(m.group(1))
            groups["sanitize"][1].add(m.group(2))
            continue
        m = re.match(r"(11\.[0-9]+)\.(solution|exercise)\.cuda\.", name)
        kind = m.group(2) if m else "other"
        groups.setdefault(kind, (set(), set()))[0].add(m.group(1) if m else name)

    def sections(ids):
        ids = sorted(ids, key=lambda i: int(i.split(".")[1]))
        return f"{ids[0]}'s" if len(ids) == 1 else ", ".join(ids[:-1]) + f" and {ids[-1]}'s"
    parts = []
    for kind, (ids, tools) in sorted(groups.items()):
        if kind == "sanitize":
            order = [t for t in ("memcheck", "racecheck", "synccheck", "initcheck") if t in tools]
            parts.append(f"compute-sanitizer {', '.join(order)} on {sections(ids)} programs")
        elif kind == "other":
            parts.append(f"{len(ids)} other tests")
        else:
            parts.append(f"{sections(ids)} {kind} tests on the GPU" + (" (the release's stand-ins)" if kind == "exercise"
                                                                         else ""))
    return f"ctest, {len(names)} tests: " + "; ".join(parts)


def log_row(path):
    """A log of a test, sanitizer or benchmark run: what ran, where, when, the result and the test time,
    all read from the log itself (its file name gives the date, and the device where the log names none).
    A cell the log has nothing for says so. The log cell is the file's name alone (its folder heads the
    table), in a span that may break anywhere (scanlab.css), so a long name does not widen the table."""
    name = os.path.basename(path)
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    lines = text.splitlines()
    date = (re.search(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", name) or ["not in the name"])[0]

    # What ran: a script's step headings, else ctest's test names (when the log lists every test), else
    # the comment it starts with, else the program whose output it is.
    steps = [re.sub(r" \([0-9:]+\)$", "", line[4:]) for line in lines if line.startswith("=== ")]
    steps = [st for st in steps if not st.startswith("configure and build") and not st.endswith(".log")]
    names = []
    for line in lines:
        m = re.search(r"(?:Test +#[0-9]+|Start +[0-9]+): (\S+)", line)
        if m and m.group(1) not in names:
            names.append(m.group(1))
    total = re.search(r"tests passed.*out of ([0-9]+)", text)
    preset = (re.search(r"^Test project \S*/build/([a-z]+)$", text, re.M) or [None, None])[1]
    header = [line[2:] for line in lines[:3] if line.startswith("# ")]
    script = re.search(r"^(\S+\.sh): all steps passed", text, re.M)
    if lines and lines[0].startswith("[lab] grading"):
        what, names, total = "`./lab grade` on the GPU of a copy of the exercises", [], None
    elif steps:
        what = (f"`{script.group(1)}`: " if script else "") + "; ".join(steps)
    elif names and (total is None or int(total.group(1)) == len(names) or preset in ("asan", "tsan")):
        what = ctest_what(names, preset)
    elif header:
        before, _, after = header[0].partition(": ")
        what = after if re.search(r"commit|driver", before) and after else before
        what = re.sub(r"\s*\(.*\)$", "", what)
    elif "scanlab_bench on" in text:
        what = "`scanlab_bench`"
    elif "Running main() from" in text:
        m = re.search(r"Google Test filter = (\S+)", text)
        what = "a test program" + (f", tests `{m.group(1)}`" if m else "")
    else:
        what = "not said in the log"
    alone = re.findall(r"^--- ([a-z]+check) ", text, re.M)
    if alone:
        what += f"; {len(alone)} runs of the program under compute-sanitizer ({', '.join(sorted(set(alone)))})"
    gtest = [int(k) for k in re.findall(r"^\[  PASSED  \] ([0-9]+) tests?\.", text, re.M)]
    if gtest and "Running main() from" in text and not what.startswith("a test program"):
        what += "; a test program run directly"

    m = re.search(r"NVIDIA (H100[^,()\n]*?|H200)(?=[,()\n]| \(| on)", text) or re.search(r"\b(H100 80GB HBM3)", text)
    token = re.search(r"(?:^|_)(h100|h200)(x[0-9])?(?=_)", name)
    if m:
        device = f"NVIDIA {m.group(1).strip()}"
        driver = re.search(r"driver ([0-9]+\.[0-9]+\.[0-9]+)|NVIDIA [^,\n]+, ([0-9]+\.[0-9]+\.[0-9]+),", text)
        if driver:
            device += f", driver {driver.group(1) or driver.group(2)}"
    elif token:
        device = (f"{token.group(2)[1:]} × " if token.group(2) else "") + f"NVIDIA {token.group(1).upper()} (from the log's file name)"
    elif preset in ("asan", "tsan"):
        device = "the device machine's CPU (no GPU)"
    else:
        device = "not in the log"

    results = []
    if total:
        results.append(re.search(r"[0-9]+% tests passed.*out of [0-9]+", text).group(0))
        skipped = len(re.findall(r"^\t *[0-9]+ - .*\(Skipped\)", text, re.M))
        if skipped:
            results[-1] += f", {skipped} skipped"
    elif names:
        finished = len(re.findall(r"Test +#[0-9]+: \S+ \.*", text))
        passed = len(re.findall(r"Test +#[0-9]+: \S+ \.*\s+Passed", text))
        results.append(f"ctest's summary is not in the log: it shows {len(names)} tests starting, {finished} finishing, "
                       f"{passed} of them passed")
    if gtest:
        results.append(f"{sum(gtest)} test{'s' * (sum(gtest) != 1)} of the test program passed")
    failed = re.findall(r"^\[  FAILED  \] ([0-9]+) tests?,", text, re.M)
    if failed:
        results.append(f"{sum(map(int, failed))} failed")
    for rows, bad in re.findall(r"^([0-9]+) rows written to \S+; ([0-9]+) failed verification", text, re.M):
        results.append(f"{rows} benchmark rows, {bad} failed verification")
    grade = re.search(r"^total +([0-9.]+) +of ([0-9.]+)", text, re.M)
    if grade:
        results.append(f"graded {grade.group(1)} of {grade.group(2)}")
    clean = len(re.findall(r"(ERROR SUMMARY: 0 errors|RACECHECK SUMMARY: 0 hazards displayed \(0 errors, 0 warnings\))$",
                           text, re.M))
    if clean:
        results.append(f"{clean} sanitizer summaries of 0 errors and 0 hazards")
    if "all steps passed" in text and not results:
        results.append("every step passed")
    result = "; ".join(results) or "no summary: the log ends before one"

    times = [f"{t} s (ctest)" for t in re.findall(r"Total Test time \(real\) = *([0-9.]+) sec", text)]
    gtest_ms = [int(k) for k in re.findall(r"tests? from [0-9]+ test suites? ran\. \(([0-9]+) ms total\)", text)]
    if gtest_ms:
        times.append(f"{sum(gtest_ms) / 1000:.2f} s (test program)")
    seconds = " + ".join(times) or "not in the log"
    return f'| {date} | {what} | {device} | {result} | {seconds} | <span class="scanlab-file">`{name}`</span> |'


def options_text(text):
    """A cell of prose in which a command's --option stays two hyphens on the page (Doxygen's Markdown
    prints "--name" as an en dash and "name"; "\\--" is its escape for two hyphens)."""
    return re.sub(r"(?<![-\\\w`])--(?=[A-Za-z])", r"\\--", text)


def measurements_page(root):
    out = ["Measurements {#measurements}", "============", "",
           "What was measured, on which device, and when. This page is generated when the docs are built",
           "(docs/measurements/measurements.py) from the results committed in the repository; each table",
           "names its file. Times on the `cpu` backend are the emulator's and say nothing about a GPU.", "",
           "Continuous integration {#measurements_ci}", "======================", "",
           "`bash .ci/run` on a fresh clone (no GPU): set-up, the build of both backends, `./lab test`. Then",
           "`.ci/sanitizers` runs a subset under the `asan` (AddressSanitizer and UBSan) and `tsan`",
           "(ThreadSanitizer) presets: the emulator's own tests (fiber switches, barriers, warp operations, the",
           "error reports, the watchdog) and the harness, with `asan` also the solution tests of 11.8 (shared",
           "memory, barriers, warp shuffles, atomics, two emulator workers; its persistent kernel graded over two",
           "of its 40 type and operator runs), with `tsan` two tests of 11.6 that run many blocks of 1024 threads",
           "(`.ci/sanitizers` says what each subset covers). The whole suite under a sanitizer needs a full build "
           "of its own, more",
           "than CI's budget allows: `LAB_PRESET=asan ./lab test`, or `.ci/full_sanitizer_suite.sh` (which",
           "unpacks Debian's Boost.Context packages where a machine has none). From "
           "`docs/measurements/ci_runs.csv`, oldest first (one entry a run, not a table: what ran is a",
           "paragraph, which a table cell would make a column of a few words on a phone):", ""]
    _, ci, _ = read_table(os.path.join(root, "docs", "measurements", "ci_runs.csv"))
    for r in sorted(ci, key=lambda r: r["date"]):
        out.append(f"- **{r['date']}**, {r['machine']}: {options_text(r['what'])}. **Tests:** "
                   f"{options_text(r['tests'])}; **time:** {options_text(r['time'])}.")
    out += ["", "Whole suites, GPU tests and sanitizers {#measurements_suites}",
            "======================================", "",
            "The logs of whole test suites and sanitizer runs, one table per folder, oldest first."]
    for folder, what in ((".ci/records", "whole suites, sanitizers and GPU tests"),
                         ("chapters/11_8_decoupled_lookback/bench/results", "the benchmark's and 11.8's GPU runs")):
        out += ["", f"In `{folder}/` ({what}):", "",
                "| date | what ran | device | result | test time | log |", "|---|---|---|---|---|---|"]
        out += sorted(log_row(p) for p in glob.glob(os.path.join(root, *folder.split("/"), "*.log")))
    out += ["", "Each row is read from its log: \"not in the log\" where the log has no such line (a script's log",
            "that prints no test time, a run cut short), and the device from the log's file name where the log",
            "names none.", "", "A test skipped on the GPU counts operator applications or traces arrays, which only the",
            "emulator does; one skipped on the cpu backend needs a GPU (or, under a sanitizer, the other one).",
            "ThreadSanitizer makes every fiber switch slow: the `tsan` suite ran with 16 tests at a time.",
            "The emulator's own speed is measured in `common/emu/README.md`.", "",
            "On a GPU: the benchmark {#measurements_bench}", "=======================", "",
            "`scanlab_bench` (chapters/11_8_decoupled_lookback/bench) runs every scan of the lab that takes any",
            "n against CUB, Thrust and a device-to-device copy in one run; each result is verified before it is",
            "timed, with L2 emptied before each timed run. Section 11.8's README discusses the results.", ""]
    paths = sorted(glob.glob(os.path.join(root, "plots", "data", "*_bench_*.csv")) +
                   glob.glob(os.path.join(root, "plots", "data", "*_sections_*.csv")))
    for path in paths:
        run = read_timings(path)
        if run and run.rows:
            out.append(bench_tables(run, root) if run.layout == "bench" else program_table(run, root))
    out += ["Other records {#measurements_other}", "=============", "",
            "The runs of the tuning (sweeps of shapes, variants, profiles); the \\ref lab_notebook \"lab notebook\"",
            "tells what each showed.", "", "| file | what | rows |", "|---|---|---|"]
    results = os.path.join(root, "chapters", "11_8_decoupled_lookback", "bench", "results")
    others = sorted(set(glob.glob(os.path.join(results, "*.csv")) + glob.glob(os.path.join(results, "*.txt")) +
                        glob.glob(os.path.join(root, "chapters", "*", "results", "*.txt"))))
    for path in others:
        name = os.path.basename(path)
        with open(path, encoding="utf-8", errors="replace") as f:
            count = len(f.read().splitlines())
        m = re.search(r"ncu_([a-z]+)", name)
        what = (f"Nsight Compute profile ({m.group(1)})" if m else
                "the benchmark over every compiled tile shape of 11.8" if "sweep" in name else
                "the benchmark under the variants of bench/experiments.sh" if "experiments" in name else
                "shared-memory bank conflicts (Nsight Compute)" if "bank_conflicts" in name else "")
        if name.endswith(".csv"):
            count -= 1
        out.append(f"| `{relative(path, root)}` | {what} | {count} |")
    return "\n".join(out) + "\n"


def main(argv=None):
    p = argparse.ArgumentParser(prog="measurements.py", description="Write the docs' Measurements page.")
    p.add_argument("--root", default=ROOT, help="the repository")
    p.add_argument("--out", required=True, help="the page to write (rewritten only when it changes)")
    a = p.parse_args(argv)
    try:
        page = measurements_page(a.root)
    except MeasurementError as e:
        print(f"measurements.py: error: {e}", file=sys.stderr)
        return 1
    old = None
    if os.path.exists(a.out):
        with open(a.out, encoding="utf-8") as f:
            old = f.read()
    if old != page:  # an unchanged page keeps its time stamp
        with open(a.out, "w", encoding="utf-8") as f:
            f.write(page)
    return 0


if __name__ == "__main__":
    sys.exit(main())
