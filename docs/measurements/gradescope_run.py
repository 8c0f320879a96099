#!/usr/bin/env python3
"""Measures the Gradescope autograder on this machine: a fake /autograder tree (SCANLAB_AUTOGRADER_DIR)
with a copy of the lab (git's files) as source/ and a whole-lab submission, then setup.sh (the image's
build, run once) and run_autograder (each submission), each under /usr/bin/time -v, while the sum of
the resident memory of every process it started is sampled (GNU time's "Maximum resident set size" is
the largest single process, not what a container's memory limit counts). Appends one row per phase to
docs/measurements/gradescope_runs.csv; tools/README.md ("Gradescope") reads it.

    python3 docs/measurements/gradescope_run.py WORK_DIR [--submission solutions|stubs] [--cpus LIST]

WORK_DIR: a new folder (the fake /autograder). --cpus: taskset's CPU list (e.g. 0 for one core)."""
import argparse
import csv
import datetime
import os
import re
import shutil
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CSV = os.path.join(HERE, "gradescope_runs.csv")
FIELDS = ["date", "machine", "commit", "phase", "submission", "cpus", "wall_s", "cpu_s", "load", "score",
          "max_rss_mib", "tree_peak_rss_mib", "note"]


def children_of(pids):
    """Every process under pids (from /proc's parent links)."""
    parent = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    parent[int(d)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    tree, grew = set(pids), True
    while grew:
        more = {p for p, pp in parent.items() if pp in tree and p not in tree}
        tree |= more
        grew = bool(more)
    return tree


def tree_rss_kib(pid):
    total = 0
    for p in children_of({pid}):
        try:
            with open(f"/proc/{p}/status") as f:
                m = re.search(r"^VmRSS:\s+(\d+) kB", f.read(), re.M)
            total += int(m.group(1)) if m else 0
        except OSError:
            pass
    return total


def measured(cmd, env):
    """(wall seconds, CPU seconds (user + system), GNU time's max RSS in MiB, the sampled peak of the
    tree's RSS in MiB, output)."""
    log = os.path.join(env["SCANLAB_AUTOGRADER_DIR"], "time.txt")
    t0 = time.time()
    p = subprocess.Popen(["/usr/bin/time", "-v", "-o", log] + cmd, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, universal_newlines=True, errors="replace")
    peak = [0]

    def sample():
        while p.poll() is None:
            peak[0] = max(peak[0], tree_rss_kib(p.pid))
            time.sleep(0.25)
    t = threading.Thread(target=sample)
    t.start()
    out = p.communicate()[0]
    t.join()
    wall = time.time() - t0
    with open(log) as f:
        text = f.read()
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1))
    cpu = sum(float(re.search(rf"{what} time \(seconds\): ([\d.]+)", text).group(1)) for what in ("User", "System"))
    if p.returncode:
        sys.exit(f"{' '.join(cmd)} exited with {p.returncode}:\n{out[-3000:]}")
    return wall, cpu, rss / 1024, peak[0] / 1024, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("work")
    ap.add_argument("--submission", choices=("solutions", "stubs"), default="solutions")
    ap.add_argument("--cpus")
    ap.add_argument("--skip-setup", action="store_true", help="WORK_DIR holds a set-up tree already")
    ap.add_argument("--machine", default=f"development machine ({os.cpu_count()} cores, shared)")
    a = ap.parse_args()
    ag = os.path.abspath(a.work)
    src = os.path.join(ag, "source")
    if not a.skip_setup:
        if os.path.exists(ag):
            sys.exit(f"{ag} exists: give a new folder")
        files = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], stdout=subprocess.PIPE, check=True).stdout
        for f in files.decode().split("\0"):
            if f and os.path.isfile(os.path.join(ROOT, f)):
                os.makedirs(os.path.dirname(os.path.join(src, f)), exist_ok=True)
                shutil.copy2(os.path.join(ROOT, f), os.path.join(src, f))
        for name in ("setup.sh", "run_autograder"):
            shutil.copy2(os.path.join(src, "tools", "gradescope", name), os.path.join(ag, name))
    sub = os.path.join(ag, "submission")
    shutil.rmtree(sub, ignore_errors=True)
    from_dir = "solutions" if a.submission == "solutions" else "exercises"
    for folder in sorted(os.listdir(os.path.join(src, "exercises"))):
        for f in os.listdir(os.path.join(src, "exercises", folder)):
            os.makedirs(os.path.join(sub, folder), exist_ok=True)
            shutil.copy2(os.path.join(src, from_dir, folder, f), os.path.join(sub, folder, f))
    env = dict(os.environ, SCANLAB_AUTOGRADER_DIR=ag)
    env.pop("CI", None)
    pin = ["taskset", "-c", a.cpus] if a.cpus else []
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], stdout=subprocess.PIPE,
                            universal_newlines=True).stdout.strip()
    rows = []
    phases = ([("setup.sh", ["bash", os.path.join(ag, "setup.sh")])] if not a.skip_setup else []) + \
        [("run_autograder", [os.path.join(ag, "run_autograder")])]
    for phase, cmd in phases:
        load0 = os.getloadavg()[0]
        wall, cpu, rss, peak, out = measured(pin + cmd, env)
        load = (load0 + os.getloadavg()[0]) / 2  # the machine's load around it: wall time is not CPU time
        score = ""
        if phase == "run_autograder":
            m = re.search(r"results\.json: ([\d.]+) of ([\d.]+)", out)
            score = f"{m.group(1)}/{m.group(2)}" if m else "?"
        rows.append(dict(date=datetime.date.today().isoformat(), machine=a.machine, commit=commit, phase=phase,
                         submission=a.submission, cpus=a.cpus or str(os.cpu_count()), wall_s=f"{wall:.0f}",
                         cpu_s=f"{cpu:.0f}", load=f"{load:.1f}",
                         score=score, max_rss_mib=f"{rss:.0f}", tree_peak_rss_mib=f"{peak:.0f}", note=""))
        print(rows[-1], flush=True)
    new = not os.path.exists(CSV)
    with open(CSV, "a", newline="") as f:
        w = csv.DictWriter(f, FIELDS)
        if new:
            w.writeheader()
        w.writerows(rows)


if __name__ == "__main__":
    main()
