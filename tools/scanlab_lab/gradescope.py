"""The Gradescope autograder (tools/gradescope/): grade /autograder/submission, write
/autograder/results/results.json in Gradescope's format
(https://gradescope-autograders.readthedocs.io/en/latest/specs/): one test per section, its score and
max_score (grading.toml), status, and the section's report (warnings, each kind of failure with its
first diagnosis) as its output; the whole report as the top-level output.

SCANLAB_AUTOGRADER_DIR sets the /autograder folder (to test it elsewhere). The submission may hold the
section folders at its top, in exercises/, or in one wrapping folder, or be a flat upload (the exercise
files side by side, sorted into section folders by their names); a section it lacks scores 0 (the
others are graded). #includes outside the student's folder are refused (the lab, solutions included,
is in /autograder/source).

gradescope_sections.txt at the zip's root (/autograder/source), when there is one, names the sections
this autograder grades (e.g. `11.2 11.4`): setup.sh builds those alone and results.json has one test
each. One assignment per section (or a few) so fits Gradescope's default limits where the whole lab does
not (tools/README.md, "Gradescope", with the measurements)."""
import io
import json
import os
import shutil
import subprocess
import time

from . import LabError, class_grade, config, exercises, report, sandbox, sections


# Gradescope renders "output" as simple_format by default, which reads HTML: a diagnosis's
# "<standard headers>" or "std::vector<int>" would vanish. Our reports are plain text aligned with
# spaces (tables, indented diagnoses), which "md" would reflow or turn into code blocks: "text" shows
# them as written. The same for the whole output and every test's.
OUTPUT_FORMAT = "text"


SECTIONS_FILE = "gradescope_sections.txt"


def graded_sections(root):
    """The sections this autograder grades: those SECTIONS_FILE names (words; # starts a comment), else
    every section. An unknown name or an empty list is an error (exit status 2)."""
    every = sections.load(root)
    path = os.path.join(root, SECTIONS_FILE)
    if not os.path.isfile(path):
        return every
    with open(path, encoding="utf-8") as f:
        names = [w for line in f for w in line.split("#", 1)[0].split()]
    if not names:
        raise LabError(f"{SECTIONS_FILE} names no section: name some (11.2 11.4) or remove it to grade them all", 2)
    try:
        return sections.resolve(every, names)
    except LabError as e:
        raise LabError(f"{SECTIONS_FILE}: {e}", 2)


def results_path(ag):
    return os.path.join(ag, "results", "results.json")


def section_output(summary, s) -> str:
    out = io.StringIO()
    one = dict(summary, sections=[s], total_points=s["points"], max_points=s["max_points"])
    report.print_report(one, out)
    return out.getvalue().strip()


def results(summary, missing, rules, all_sections, elapsed, whole_output) -> dict:
    by_id = {s["section"]: s for s in summary["sections"]} if summary else {}
    tests = []
    for k, sec in enumerate(all_sections, 1):
        weight = rules.rule(sec.id).weight
        s = by_id.get(sec.id)
        if s is None:
            tests.append({"name": f"Section {sec.id}: {sec.title}", "number": str(k), "score": 0.0,
                          "max_score": weight, "status": "failed", "visibility": "visible",
                          "output": missing.get(sec.id, "not graded"), "output_format": OUTPUT_FORMAT})
            continue
        # With a rubric, a failed feedback test costs nothing: passed when every property is earned.
        passed = s["status"] == "graded" and (all(p["passed"] for p in s["properties"]) if s.get("properties")
                                              else s["failed"] == 0)
        tests.append({"name": f"Section {sec.id}: {sec.title}", "number": str(k), "score": float(s["points"]),
                      "max_score": s["max_points"], "status": "passed" if passed else "failed",
                      "visibility": "visible", "output_format": OUTPUT_FORMAT,
                      "output": f"{s['passed']} of {s['total']} tests passed\n\n" + section_output(summary, s)})
    return {"score": round(sum(t["score"] for t in tests), 1), "execution_time": int(elapsed),
            "output": whole_output, "output_format": OUTPUT_FORMAT, "test_output_format": OUTPUT_FORMAT,
            "visibility": "visible", "stdout_visibility": "hidden", "tests": tests}


def submitted(ag, root, all_sections):
    """What ag/submission holds: (the folder of its section folders or None, the sections to grade,
    {section id: why it is not graded}, a note for the output). A flat upload (the exercise files at
    the top, every name unique) is sorted into section folders by name, under ag/work/flat."""
    folders = [s.folder for s in all_sections]
    stub_root = os.path.join(root, "exercises")
    sub = os.path.join(ag, "submission")
    found, note = class_grade.sections_root(sub, folders, stub_root, os.path.join(ag, "work", "flat")) \
        if os.path.isdir(sub) else (None, "")
    missing, graded = {}, []
    if found:
        for s in all_sections:
            problems = exercises.check(found, "submission", stub_root, [s.folder])
            if problems:
                missing[s.id] = "not graded: " + "; ".join(problems)
            else:
                graded.append(s)
    else:
        for s in all_sections:
            missing[s.id] = (f"no section folder in the submission, nor an exercise file at its top (upload the "
                             f"folders {' '.join(folders)}, or exercises/, or the exercise files themselves)")
    return found, graded, missing, note


# The student's kernels run as this user (Ubuntu's nobody), never as root, which Gradescope's
# autograder runs as: the checkers start them through the box (SCANLAB_RUNNER_PREFIX, 11.3's work
# model too), and compute-sanitizer's runs of the student's program go through it too
# (SCANLAB_UNTRUSTED_PREFIX, fixed at configure time: setup.sh configures with the same path).
KERNELS_UID = 65534


def box_path(root):
    return os.path.join(root, "build", "kernels-box.sh")


def container_cpus(cpu_max="/sys/fs/cgroup/cpu.max") -> int:
    """The CPUs this container may use, rounded up: cgroup v2's quota (Gradescope gives half a CPU by
    default), else the CPUs the process may run on. A build runs that many compilers at once: ninja's
    own default (the machine's CPUs + 2, which a container's quota does not change) would run several,
    each up to about 750 MiB (docs/measurements/gradescope_runs.csv), past the container's memory."""
    try:
        with open(cpu_max, encoding="utf-8") as f:
            quota, period = f.read().split()[:2]
        if quota != "max":
            return max(1, -(-int(quota) // int(period)))
    except (OSError, ValueError):
        pass
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def grade_env(root) -> dict:
    """The environment of `./lab grade`: the box, written here when running as root. With bubblewrap
    usable, the full sandbox (the build read-only, the solutions' contents hidden, no network); else
    (a container without namespaces) the user and limits alone, the solutions made unreadable to it."""
    box = box_path(root)
    env = dict(os.environ, LAB_CHECK_INCLUDES="1")
    env.setdefault("LAB_JOBS", str(container_cpus()))
    if os.geteuid() != 0:
        return env  # not Gradescope's root: ./lab grade confines the kernels itself (sandbox.runner_box)
    env["LAB_CMAKE_ARGS"] = (os.environ.get("LAB_CMAKE_ARGS", "") + f" -DSCANLAB_UNTRUSTED_PREFIX={box}").strip()
    limits = sandbox.Limits()
    # The sandbox binds real paths; the build's may go through a link (the tests' /autograder/source).
    real = os.path.realpath(root)
    links = [(os.path.abspath(root), real)] if os.path.abspath(root) != real else []
    if sandbox.available(KERNELS_UID) is None:
        shadows = sandbox.make_shadows(real, os.path.join(real, "build", "shadow"))
        sandbox.box_script(box, real, os.path.join(real, "build", "grade"), shadows, limits, KERNELS_UID, links)
    else:
        sandbox.hide(real)
        sandbox.drop_script(box, limits, KERNELS_UID)
    env["SCANLAB_RUNNER_PREFIX"] = box
    return env


def main(root, args) -> int:
    chosen = graded_sections(root)
    if args == ["--setup"]:  # setup.sh: the grade build with the stubs, configured as main() grades
        subprocess.run([os.path.join(root, "lab"), "grade"] + [s.id for s in chosen], cwd=root, env=grade_env(root),
                           stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        return 0  # the stubs fail their tests; only the build matters here
    if args:
        raise LabError(f"gradescope takes no arguments but --setup, got '{args[0]}'", 2)
    t0 = time.time()
    ag = os.environ.get("SCANLAB_AUTOGRADER_DIR", "/autograder")
    every = sections.load(root)
    rules = config.load(root, [s.id for s in every])
    os.makedirs(os.path.dirname(results_path(ag)), exist_ok=True)
    found, graded, missing, note = submitted(ag, root, chosen)
    summary, output = None, ""
    if graded:
        # The graded folder: the student's sections, the repository's stubs for the rest (CMake needs
        # every section's files); graded as `./lab grade --exercises` does.
        copy = os.path.join(ag, "work", "exercises")
        shutil.rmtree(copy, ignore_errors=True)
        for s in every:
            src = found if s in graded else os.path.join(root, "exercises")
            exercises.sync_tree(os.path.join(src, s.folder), os.path.join(copy, s.folder))
        env = grade_env(root)
        p = subprocess.run([os.path.join(root, "lab"), "grade", "--exercises", copy] + [s.id for s in graded],
                           cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True, errors="replace")
        print(p.stdout)  # the instructor's stdout (results/stdout)
        path = os.path.join(root, "build", "grade", "grade-summary.json")
        if p.returncode in (0, 1) and os.path.isfile(path):
            with open(path, encoding="utf-8") as f:
                summary = json.load(f)
            text = json.dumps(summary).replace(copy + "/", "")
            summary = json.loads(text)
            out = io.StringIO()
            report.print_report(summary, out)
            output = out.getvalue().strip()
        else:
            output = "the grader could not grade this submission (exit status %d):\n%s" % (
                p.returncode, "\n".join(p.stdout.splitlines()[-20:]))
            for s in graded:
                missing[s.id] = output
    elif not found:
        output = missing[chosen[0].id]
    if note:
        output = f"{note}\n\n{output}"
    data = results(summary, missing, rules, chosen, time.time() - t0, output)
    with open(results_path(ag), "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2)
    print(f"[lab] {results_path(ag)}: {data['score']} of {sum(t['max_score'] for t in data['tests'])}")
    return 0
