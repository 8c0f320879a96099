"""./lab grade, once the grade tree is configured: build each section's exercise tests on their
own (one that does not compile costs only its own points), run them, and report.

Writes build/grade/grade-junit.xml (ctest's, plus a failed case per section that does not build),
grade-summary.json, grade-ctest.log and build-<section>.log (the compiler's output). Each section's
tests run in a ctest of their own; with LAB_SECTION_TIMEOUT=S, one that runs past S seconds is stopped
and scores 0 (status "timed out"), the others keep their points."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import xml.etree.ElementTree as ET
from typing import Dict, List, Optional

from . import LabError, buildlog, config, ctest, diagnose, exercises, levels, report, sandbox
from . import sections as sections_file
from .sections import Section


class Grading:
    def __init__(self, root, bdir, sections: List[Section], student_dir, label, copy_dir=None, jobs=None,
                 preset="grade", rules=None, echo=True, includes_checked=False, confine=False):
        self.root, self.bdir, self.sections = root, bdir, sections
        # The build: `cmake --build --preset grade` (build/grade), or, with preset=None, the build tree
        # bdir itself (./lab grade --class: one per job slot).
        self.preset = preset
        self.rules = rules or config.load(root, [s.id for s in sections_file.load(root)])
        self.includes_checked = includes_checked  # refuse #includes outside the student's folder (--class)
        # Start the student's kernels confined (sandbox.runner_box) unless a caller's box is set
        # (SCANLAB_RUNNER_PREFIX: --class, Gradescope's root): ./lab grade runs as the kernels' user.
        self.confine = confine
        self.confinement = "as set by the caller (SCANLAB_RUNNER_PREFIX)" if os.environ.get("SCANLAB_RUNNER_PREFIX") \
            else "unconfined"
        self.echo = echo  # print the compiler's output as it comes (the class grader keeps it in logs)
        self.student_dir = student_dir  # the student's folder (absolute), or exercises/
        self.label = label  # that folder as the user gave it (exercises when none was given)
        self.copy_dir = copy_dir  # where it was copied for the build (None: built in place)
        self.jobs = jobs
        self._targets = None
        self.junit = os.path.join(bdir, "grade-junit.xml")
        self.log = os.path.join(bdir, "grade-ctest.log")
        self.summary_path = os.path.join(bdir, "grade-summary.json")
        # Each section's tests run within their own time (LAB_SECTION_TIMEOUT seconds; none when unset):
        # a section that runs past it scores 0 and the others keep their points.
        self.section_timeout = section_timeout()
        self.timed_out: Dict[str, float] = {}

    def student_text(self, text):
        return buildlog.rewrite_paths(text, self.copy_dir, self.student_dir)

    # ---- build -----------------------------------------------------------------------------------
    def targets(self) -> set:
        """The build's targets (`cmake --build --target help`), read once."""
        if self._targets is None:
            where = ["--preset", self.preset] if self.preset else [self.bdir]
            out = subprocess.run(["cmake", "--build"] + where + ["--target", "help"], cwd=self.root,
                                 stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, universal_newlines=True,
                                 errors="replace").stdout
            # Ninja: "name: phony"; Makefiles: "... name"
            self._targets = {m.group(1) for m in re.finditer(r"^(?:\.\.\. )?([\w.-]+)(?::| |$)", out, re.M)}
        return self._targets

    def has_target(self, name) -> bool:
        # No list read (an old CMake, another generator): try every target and let the build say.
        return not self.targets() or name in self.targets()

    def build(self, section: Section, backends) -> dict:
        """Builds the section's exercise tests; returns {status, warnings, error, log}."""
        targets = [t for t in (f"test_{section.us}_exercise_{b}" for b in backends) if self.has_target(t)]
        where = ["--preset", self.preset] if self.preset else [self.bdir]
        cmd = ["cmake", "--build"] + where + (["--parallel", str(self.jobs)] if self.jobs else [])
        cmd += ["--target"] + targets
        proc = subprocess.Popen(cmd, cwd=self.root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                universal_newlines=True, errors="replace")
        lines = []
        for line in proc.stdout:
            line = self.student_text(line)
            lines.append(line)
            if self.echo:
                sys.stdout.write(line)
                sys.stdout.flush()
        rc = proc.wait()
        text = "".join(lines)
        log = os.path.join(self.bdir, f"build-{section.id}.log")
        with open(log, "w", encoding="utf-8") as f:
            f.write(text)
        # Warnings come only from a build that compiled the kernels: keep them for the next grade,
        # which finds nothing to compile when nothing changed.
        saved = os.path.join(self.bdir, ".lab-warnings", f"{section.id}.txt")
        if buildlog.compiled_section(text, section.us) or rc != 0:
            warnings = buildlog.diagnostics(text, "warning")
            os.makedirs(os.path.dirname(saved), exist_ok=True)
            with open(saved, "w", encoding="utf-8") as f:
                f.write("".join(w + "\n" for w in warnings))
        else:
            try:
                with open(saved, encoding="utf-8") as f:
                    warnings = [self.student_text(l.rstrip("\n")) for l in f if l.strip()]
            except OSError:
                warnings = []
        if rc != 0:
            return {"status": "build-failed", "warnings": warnings, "error": buildlog.first_error(text), "log": log}
        return {"status": "built", "warnings": warnings, "error": "", "log": log}

    # ---- test ------------------------------------------------------------------------------------
    def run_tests(self, built: List[Section], backends) -> int:
        for path in (self.junit, self.log):
            if os.path.exists(path):
                os.remove(path)
        self.timed_out = {}
        if not built:
            return 0
        where = ["--preset", self.preset] if self.preset else ["--test-dir", self.bdir, "--output-on-failure"]
        env = dict(os.environ)
        if "cuda" in backends and gpu_present():
            # A GPU is here: a "no device" from a student's kernels is a failure, never a skip.
            env["SCANLAB_REQUIRE_DEVICE"] = "1"
        tmp = None
        if self.confine and not env.get("SCANLAB_RUNNER_PREFIX"):
            ways = confine_ways()
            # The kernels' only writable folder (Landlock), fresh for this grade and removed after it.
            tmp = tempfile.mkdtemp(prefix="scanlab-kernels-")
            # The same script runs compute-sanitizer's runs of the student's program (./lab configures
            # the grade build with it: SCANLAB_UNTRUSTED_PREFIX).
            path = os.path.join(self.root, "build", "grade-box.sh")
            box, self.confinement = sandbox.runner_box(self.root, self.bdir, tmp, path, ways)
            if box:
                env["SCANLAB_RUNNER_PREFIX"] = box
                say(f"the student's kernels run {self.confinement}")
            elif os.environ.get("LAB_CONFINE", "").strip():
                shutil.rmtree(tmp, ignore_errors=True)
                raise LabError(f"LAB_CONFINE={os.environ['LAB_CONFINE'].strip()} does not work here: the kernels "
                               f"would run {self.confinement}", 2)
            else:
                sandbox.write_script(path, [])  # runs its arguments as they are
                warn(f"the student's kernels run {self.confinement}")
        try:
            return self.run_all_tests(built, where, env, backends)
        finally:
            if tmp:
                shutil.rmtree(tmp, ignore_errors=True)

    def run_all_tests(self, built, where, env, backends) -> int:
        # One ctest per section, each within the section's time: a hang costs its own section alone.
        parts, rc = [], 0
        limit = f", at most {self.section_timeout:g} s a section" if self.section_timeout else ""
        say(f"testing (ctest {' '.join(where)} -L exercise -R '^<section>\\.exercise\\.({'|'.join(backends)})\\.'"
            f"{limit}; log: {rel(self.log, self.root)})...")
        with open(self.log, "w", encoding="utf-8") as log:
            for section in built:
                part = f"{self.junit}.{section.id}"
                if os.path.exists(part):
                    os.remove(part)
                regex = f"^{re.escape(section.id)}\\.exercise\\.({'|'.join(backends)})\\."
                cmd = ["ctest"] + where + ["-L", "exercise", "-R", regex, "--output-junit", part]
                rc = max(rc, self.run_section_tests(section, cmd, env, log))
                if section.id not in self.timed_out:
                    if not os.path.exists(part):
                        raise LabError(f"ctest wrote no JUnit file for {section.id}: see {rel(self.log, self.root)}", 2)
                    parts.append(part)
        merge_junit(parts, self.junit)
        return rc

    def run_section_tests(self, section, cmd, env, log) -> int:
        """Runs one section's ctest, its output into `log` (a line per finished test also printed);
        stops it, and every process it started, when the section's time runs out."""
        proc = subprocess.Popen(cmd, cwd=self.root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                universal_newlines=True, errors="replace", env=env, start_new_session=True)
        timer = None
        if self.section_timeout:
            def stop():
                self.timed_out[section.id] = self.section_timeout
                kill_session(proc)
            timer = threading.Timer(self.section_timeout, stop)
            timer.start()
        try:
            for line in proc.stdout:  # one line per test as it finishes; the rest goes to the log
                log.write(line)
                if ctest.STATUS_LINE.match(line):
                    print("  " + line.strip(), flush=True)
            return proc.wait()
        finally:
            if timer:
                timer.cancel()
            if section.id in self.timed_out:
                kill_session(proc)
                msg = f"section {section.id}: its tests were stopped after {self.section_timeout:g} s (LAB_SECTION_TIMEOUT)"
                log.write(msg + "\n")
                say(msg)

    # ---- all of it ---------------------------------------------------------------------------------
    def grade(self, backends) -> int:
        return self.test_and_report(self.build_all(backends), backends)

    def build_all(self, backends) -> Dict[str, dict]:
        """Builds every section's tests (after the include checks); returns {section id: build}."""
        builds: Dict[str, dict] = {}
        n = len(self.sections)
        for k, section in enumerate(self.sections, 1):
            if not os.path.isfile(os.path.join(self.root, "chapters", section.folder, "tests.cpp")):
                builds[section.id] = {"status": "no-tests", "warnings": [], "error": "", "log": None}
                continue
            refused = sandbox.check_includes(os.path.join(self.student_dir, section.folder), self.label) \
                if self.includes_checked else []
            missing = [b for b in backends if not self.has_target(f"test_{section.us}_exercise_{b}")]
            if refused:
                builds[section.id] = {"status": "build-failed", "warnings": [], "error": "\n".join(refused), "log": None}
            elif missing == list(backends):
                # 11.3's model is measured on the emulator: a cuda-only build has no test of it.
                why = (f"section {section.id} has no tests on the {' and '.join(backends)} backend: it is graded on "
                       f"the cpu backend, which this build does not have (SCANLAB_BACKENDS)")
                builds[section.id] = {"status": "not-graded", "warnings": [], "error": why, "log": None}
                warn(why)
            else:
                say(f"building section {section.id} ({k} of {n})...")
                builds[section.id] = self.build(section, backends)
                if builds[section.id]["status"] == "built":
                    # What the compiler really included (any spelling of #include): only the
                    # student's own section, the lab's public headers and the system's; and no
                    # solution's text in the objects (an asm .incbin, which that list never names).
                    targets = [t for b in backends for t in (f"scanlab_{section.us}_exercise_{b}", f"test_{section.us}_exercise_{b}")
                               if self.has_target(t)]
                    refused = sandbox.check_compiled_includes(
                        self.root, self.bdir, section.folder,
                        os.path.join(self.copy_dir or self.student_dir, section.folder), self.label, targets)
                    refused = refused or sandbox.check_embedded_solutions(self.root, self.bdir, section.folder,
                                                                          self.label, targets)
                    if refused:
                        builds[section.id].update(status="build-failed", error="\n".join(refused))
                        for line in refused:
                            warn(line)
            if builds[section.id]["status"] == "build-failed":
                warn(f"section {section.id} does not build: it scores 0 (see above)")
        return builds

    def test_and_report(self, builds: Dict[str, dict], backends) -> int:
        """Runs the built sections' tests, writes the summary and the JUnit file, prints the report."""
        built = [s for s in self.sections if builds[s.id]["status"] == "built"]
        self.run_tests(built, backends)
        summary = self.summarise(builds, backends)
        self.write(summary)
        report.print_report(summary)
        say(f"JUnit: {rel(self.junit, self.root)}; summary: {rel(self.summary_path, self.root)}; "
            f"ctest log: {rel(self.log, self.root)}")
        return 0 if summary["all_passed"] else 1

    def summarise(self, builds, backends) -> dict:
        cases = ctest.read_junit(self.junit) if os.path.exists(self.junit) else []
        statuses = {}
        if os.path.exists(self.log):
            with open(self.log, encoding="utf-8", errors="replace") as f:
                statuses = ctest.read_statuses(f.read())
        summary = {"exercises": self.student_dir, "backends": list(backends), "kernels_ran": self.confinement,
                   "junit": self.junit if os.path.exists(self.junit) else None, "sections": []}
        for section in self.sections:
            b = builds[section.id]
            rule = self.rules.rule(section.id)
            # The tests that count (grading.toml), named after "<section>.exercise.<backend>.".
            short = lambda c: c.name[len(section.id) + len(".exercise."):].partition(".")[2]
            mine = [c for c in cases if c.name.startswith(section.id + ".exercise.") and rule.counts(short(c))]
            failed = []
            for c in mine:
                if c.result == "failed":
                    d = diagnose.diagnose(c.name, c.output, statuses.get(c.name, "Failed"), c.time_s)
                    failed.append({"name": c.name, "why": clip(self.student_text(d.why)), "kind": d.kind})
                    explained = diagnose.explanation(failed[-1]["why"])
                    if explained:  # the smallest failing case and where it went wrong, as data
                        failed[-1]["explanation"] = explained
                    if rule.properties and not any(p.decides(short(c)) for p in rule.properties):
                        failed[-1]["feedback"] = True  # in no property of the rubric: costs no points
            if b["status"] == "build-failed":
                failed.append({"name": f"{section.id}.exercise.build", "kind": "build error",
                               "why": b["error"] or "the exercise does not compile"})
            if section.id in self.timed_out:
                failed.append({"name": f"{section.id}.exercise.time", "kind": "timeout",
                               "why": f"the section's tests were stopped after {self.timed_out[section.id]:g} s, its "
                                      "time limit: an endless loop (in host code, where the emulator's watchdog does "
                                      "not look), or kernels far too slow; the section scores 0"})
            passed = sum(c.result == "passed" for c in mine)
            skipped = sum(c.result == "skipped" for c in mine)
            total = passed + sum(c.result == "failed" for c in mine)
            status = b["status"]
            if status == "built":
                status = "timed out" if section.id in self.timed_out else "graded" if total else "no tests ran"
            in_place = os.path.realpath(self.student_dir) == os.path.realpath(os.path.join(self.root, "exercises"))
            stubs = exercises.stubs(self.root, section.folder, in_place)
            untouched = exercises.untouched(os.path.join(self.student_dir, section.folder), stubs)
            # A file may also be an untouched stub of the open level (made from the solutions, where
            # they are; a release's own exercises/ are its level's stubs already).
            opened = levels.open_files(self.root, section.folder)
            untouched = sorted(set(untouched) | set(exercises.untouched(
                os.path.join(self.student_dir, section.folder), opened)))
            points = round(rule.weight * passed / total, 1) if total and status == "graded" else 0.0
            properties = []
            for p in rule.properties:  # a rubric: each property earned when every test it decides passes
                decided = [c for c in mine if p.decides(short(c)) and c.result in ("passed", "failed")]
                broken = [c.name for c in decided if c.result == "failed"]
                earned = status == "graded" and bool(decided) and not broken
                properties.append({"name": p.name, "title": p.title, "points": p.points if earned else 0,
                                   "max_points": p.points, "passed": earned, "tests": len(decided),
                                   "failed_tests": broken})
            if rule.properties:
                points = round(sum(p["points"] for p in properties), 1)
            summary["sections"].append({
                "section": section.id, "title": section.title, "status": status,
                "passed": passed, "failed": len(failed) if status in ("build-failed", "timed out") else total - passed,
                "skipped": skipped, "total": total,
                "points": points, "max_points": rule.weight, "properties": properties,
                "failed_tests": failed,
                "notes": operand_order_notes([(short(c), c.result) for c in mine]),
                "warnings": b["warnings"],
                "untouched": [f"{self.label}/{section.folder}/{f}" for f in untouched],
                "not_started": bool(untouched) and len(untouched) == len(set(stubs) | set(opened)),
                "build_log": b["log"],
            })
        summary["total_points"] = round(sum(s["points"] for s in summary["sections"]), 1)
        summary["max_points"] = round(sum(s["max_points"] for s in summary["sections"]), 1)
        summary["all_passed"] = all(s["status"] == "graded" and s["failed"] == 0 for s in summary["sections"])
        return summary

    def write(self, summary):
        annotate_junit(self.junit, summary)
        with open(self.summary_path, "w", encoding="utf-8") as f:
            json.dump(summary, f, indent=2)
            f.write("\n")


def confine_ways() -> List[str]:
    """LAB_CONFINE: the one way to confine the student's kernels (bubblewrap or landlock; unset: the
    first of them that works here)."""
    way = os.environ.get("LAB_CONFINE", "").strip()
    if not way:
        return list(sandbox.WAYS)
    if way not in sandbox.WAYS:
        raise LabError(f"LAB_CONFINE must be {' or '.join(sandbox.WAYS)}, not '{way}'", 2)
    return [way]


def section_timeout() -> Optional[float]:
    """LAB_SECTION_TIMEOUT: seconds for one section's tests (unset or empty: no limit)."""
    text = os.environ.get("LAB_SECTION_TIMEOUT", "").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        value = -1
    if value <= 0:
        raise LabError(f"LAB_SECTION_TIMEOUT must be a number of seconds above 0, not '{text}'", 2)
    return value


def kill_session(proc):
    """Kills a process started with start_new_session=True and everything in its session's group."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass


def merge_junit(parts, path):
    """One JUnit file at `path` with the test cases of every file in `parts` (one ctest run each)."""
    suite = ET.Element("testsuite", {"name": "scanlab-grade"})
    counts = {"tests": 0, "failures": 0, "skipped": 0, "disabled": 0, "time": 0.0}
    for part in parts:
        root = ET.parse(part).getroot()
        for key in counts:
            try:
                counts[key] += float(root.get(key) or 0)
            except ValueError:
                pass
        for case in root.iter("testcase"):
            suite.append(case)
        os.remove(part)
    for key, value in counts.items():
        suite.set(key, f"{value:g}" if key == "time" else str(int(value)))
    ET.ElementTree(suite).write(path, encoding="utf-8", xml_declaration=True)


def operand_order_notes(results) -> List[str]:
    """From [(test name after "<section>.exercise.<backend>.", result)]: for each kernel whose `last`
    scans fail while all its scans with the other operators pass, a note that says so. `last` (keep the
    later element) is the one operator of the lab where the order of the operands matters, so a kernel
    that combines them the wrong way round fails it alone. And for each kernel whose add scans all pass
    while every other operator's fail: a kernel that adds (the book's figures use +) instead of op."""
    ops: Dict[str, Dict[str, set]] = {}
    for name, result in results:
        m = re.match(r"^Grading\.(\w+)\.\w+?_(add|max|min|last)_(?:inclusive|exclusive)$", name)
        if m and result in ("passed", "failed"):
            ops.setdefault(m.group(1), {}).setdefault(m.group(2), set()).add(result)
    notes = []
    for kernel, by_op in ops.items():
        others = [r for op, rs in by_op.items() if op != "last" for r in rs]
        if "failed" in by_op.get("last", set()) and others and all(r == "passed" for r in others):
            notes.append(f"{kernel}: only the scans with the `last` operator fail, and every scan with add, max and "
                         f"min passes. `last` is the one operator here whose operands' order matters: "
                         f"op(a, b) must get the earlier element as a, the later as b")
        others = [r for op, rs in by_op.items() if op != "add" for r in rs]
        if by_op.get("add") == {"passed"} and others and all(r == "failed" for r in others):
            notes.append(f"{kernel}: every scan with add passes, and every scan with max, min and last fails: "
                         f"does the kernel add (a + b, +=) where it should apply the operator, op(a, b)?")
    return notes


def annotate_junit(path, summary):
    """Puts each failure's kind and diagnosis into the JUnit file (ctest leaves message=""), and
    adds a failed test case per section that does not compile, so that CI tools see it."""
    why = {t["name"]: t for s in summary["sections"] for t in s["failed_tests"]}
    if os.path.exists(path):
        tree = ET.parse(path)
        suite = tree.getroot()
    else:
        suite = ET.Element("testsuite", {"name": "scanlab-grade", "tests": "0", "failures": "0",
                                         "disabled": "0", "skipped": "0", "time": "0"})
        tree = ET.ElementTree(suite)
    for case in suite.iter("testcase"):
        failure = case.find("failure")
        t = why.get(case.get("name", ""))
        if failure is not None and t:
            failure.set("message", f"{t['kind']}: {t['why'].splitlines()[0] if t['why'] else ''}")
            failure.set("type", t["kind"])
            failure.text = t["why"]
    added = 0
    for s in summary["sections"]:
        if s["status"] == "build-failed":
            name = f"{s['section']}.exercise.build"
            case = ET.SubElement(suite, "testcase", {"name": name, "classname": name, "time": "0", "status": "fail"})
            failure = ET.SubElement(case, "failure", {"message": "build error: the exercise does not compile",
                                                      "type": "build error"})
            failure.text = why[name]["why"]
            added += 1
    if added or summary["junit"] is None:
        suite.set("tests", str(int(suite.get("tests", "0")) + added))
        suite.set("failures", str(int(suite.get("failures", "0")) + added))
    if added or os.path.exists(path):
        tree.write(path, encoding="UTF-8", xml_declaration=True)
        summary["junit"] = path


def backends_to_grade(bdir) -> List[str]:
    """cpu when built; cuda when built and a GPU is here (or when it is the only backend)."""
    built = cache_value(bdir, "SCANLAB_BACKENDS").split(";")
    graded = ["cpu"] if "cpu" in built else []
    if "cuda" in built and (gpu_present() or not graded):
        graded.append("cuda")
    return graded


def cache_value(bdir, var) -> str:
    try:
        with open(os.path.join(bdir, "CMakeCache.txt"), encoding="utf-8", errors="replace") as f:
            for line in f:
                m = re.match(rf"^{re.escape(var)}:[A-Z]*=(.*)$", line.rstrip("\n"))
                if m:
                    return m.group(1)
    except OSError:
        pass
    return ""


def gpu_present() -> bool:
    if not shutil.which("nvidia-smi"):
        return False
    try:
        out = subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                             universal_newlines=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return "GPU" in out


def clip(text, keep=3000):
    """A diagnosis of at most about 2 * keep characters: its start and its end (where a flood of output
    that was cut says so), not megabytes of a test's output in the JSON and JUnit files."""
    if len(text) <= 2 * keep + 200:
        return text
    return f"{text[:keep]}\n[... {len(text) - 2 * keep} characters left out ...]\n{text[-keep:]}"


def rel(path, root):
    return buildlog.relative(path, root)


def say(text):
    print(f"[lab] {text}", flush=True)


def warn(text):
    print(f"[lab] warning: {text}", file=sys.stderr, flush=True)
