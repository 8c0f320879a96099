"""The student release's Classroom workflow run as GitHub runs it, with the GitHub Classroom actions'
own code (fixtures/classroom_actions/: their action.yml and dist/main.js, under node;
classroom_runner.py plays the runner), and what a student could change in their repository to score.

Each section's grading is a test double here (the release's `lab` answers `grade` with prepared
results, the JUnit file of a grade of 11.1's stubs with its tests' outcomes set, and the summary that
./lab grade's own code makes of it): a real grade builds for minutes. Everything else is real: the
workflow, ./lab earned, the actions. The reporter's total must be what ./lab grade's summary says.
The same run with a real grade is a manual check (tools/README.md, "GitHub Classroom")."""
import base64
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import unittest
import xml.etree.ElementTree as ET

from scanlab_lab import config, grade, release, sections
from scanlab_lab.tests import classroom_runner
from scanlab_lab.tests.util import FIXTURES, ROOT

ACTIONS = os.path.join(FIXTURES, "classroom_actions")

FAKE_LAB = r'''#!/usr/bin/env bash
# A test double (test_classroom_actions.py): `lab grade SECTION [--exercises DIR]` checks DIR as the
# real one does, then writes the prepared results of SECTION into build/grade as a grade would (exit
# status 1: some tests failed); any other command is the real lab's (lab.real).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [[ "${1:-}" == grade ]]; then
  printf '%s %s\n' "$here" "$*" >>"$FAKE_GRADE_LOG"
  if [[ " $* " == *" --exercises "* ]]; then
    PYTHONPATH="$here/tools" python3 -m scanlab_lab grade-prepare "$here" "${@:2}" >/dev/null
  fi
  mkdir -p "$here/build/grade"
  cp "$FAKE_GRADE_RESULTS/$2/grade-junit.xml" "$FAKE_GRADE_RESULTS/$2/grade-summary.json" "$here/build/grade/"
  exit 1
fi
exec "$here/lab.real" "$@"
'''

FORGED_LAB = "#!/bin/sh\n# the student's: every property earned\necho forged >> \"$FORGED_LOG\"\nexit 0\n"


def node_major() -> int:
    """node's major version, 0 without node. The actions declare node20 (tried with 20; 18, Debian
    12's and Ubuntu 24.04's, reads the same syntax); older ones may not parse their code."""
    if not shutil.which("node"):
        return 0
    try:
        out = subprocess.run(["node", "--version"], stdout=subprocess.PIPE, universal_newlines=True, timeout=30).stdout
        return int(out.strip().lstrip("v").split(".")[0])
    except (OSError, ValueError, subprocess.SubprocessError):
        return 0


def blob_id(path):
    with open(path, "rb") as f:
        data = f.read()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def junit(names, failing, path):
    """A JUnit file of 11.1's tests (fixtures/stub-junit.xml's names), the `failing` ones failed."""
    tree = ET.parse(os.path.join(FIXTURES, "stub-junit.xml"))
    suite = tree.getroot()
    for case in list(suite.iter("testcase")):
        if case.get("name") not in names:
            suite.remove(case)
        elif case.get("name") not in failing:
            case.set("status", "run")
            for f in case.findall("failure"):
                case.remove(f)
    tree.write(path, encoding="UTF-8", xml_declaration=True)


class ClassroomActions(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        missing = [w for w, ok in (("node 18 or newer (the actions run on node 20)", node_major() >= 18),
                                   ("git", shutil.which("git"))) if not ok]
        try:
            import yaml  # noqa: F401 (classroom_runner reads the workflow with it)
        except ImportError:
            missing.append("PyYAML (Debian: python3-yaml)")
        if not os.path.isdir(ACTIONS):
            missing.append(f"the actions' code ({ACTIONS})")
        if missing:
            raise unittest.SkipTest("the Classroom actions are not run here: no " + ", ".join(missing))
        cls.tmp = tempfile.mkdtemp()
        cls.release = os.path.join(cls.tmp, "release")
        release.write(ROOT, cls.release)
        os.rename(os.path.join(cls.release, "lab"), os.path.join(cls.release, "lab.real"))
        with open(os.path.join(cls.release, "lab"), "w") as f:
            f.write(FAKE_LAB)
        os.chmod(os.path.join(cls.release, "lab"), 0o755)
        with open(os.path.join(cls.release, "tools", "setup.sh"), "w") as f:  # the packages: here already
            f.write("echo 'tools/setup.sh: a test double'\n")
        cls.sections = sections.load(ROOT)
        cls.rules = config.load(ROOT)
        cls.s11_1 = cls.sections[0]
        tree = ET.parse(os.path.join(FIXTURES, "stub-junit.xml"))
        cls.names = [c.get("name") for c in tree.getroot().iter("testcase")]
        cls.n = 0

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def results(self, failing, rules=None, names=None, every_section=False):
        """A folder of prepared grade results per section (SECTION/grade-junit.xml and
        grade-summary.json): 11.1's tests with `failing` failed, no test for the other sections (with
        every_section); the summaries made by ./lab grade's code (Grading.summarise) under `rules`.
        Returns (folder, {section: the points ./lab grade gives})."""
        ClassroomActions.n += 1
        out = os.path.join(self.tmp, f"results{self.n}")
        points = {}
        for s in self.sections if every_section else [self.s11_1]:
            bdir = os.path.join(out, s.id)
            os.makedirs(bdir)
            junit(names or self.names if s.id == "11.1" else [], failing, os.path.join(bdir, "grade-junit.xml"))
            g = grade.Grading(self.release, bdir, [s], os.path.join(self.release, "exercises"), "exercises",
                              rules=rules or self.rules, echo=False)
            summary = g.summarise({s.id: {"status": "built", "warnings": [], "log": None, "error": None}}, ["cpu"])
            g.write(summary)
            points[s.id] = summary["total_points"]
        return out, points

    def run_workflow(self, workspace, results, text, repos=None, log_expected=True):
        """Runs the workflow `text` in `workspace`: (the job's result, the grade commands that ran)."""
        job = __import__("yaml").safe_load(text)["jobs"]["run-autograding-tests"]
        log = os.path.join(self.tmp, f"grade-log{self.n}")
        env = dict(os.environ, FAKE_GRADE_RESULTS=results, FAKE_GRADE_LOG=log,
                   FORGED_LOG=os.path.join(self.tmp, "forged.log"))
        res = classroom_runner.Runner(workspace, ACTIONS, repos, env=env).run(job)
        if not log_expected:
            return res, None
        with open(log) as f:
            return res, f.read().splitlines()

    def workspace(self):
        ws = os.path.join(self.tmp, f"ws{self.n}")
        shutil.copytree(self.release, ws, symlinks=True)
        return ws

    def reported(self, res, scale=1):
        """The reporter's 'Points X/Y' notice (what Classroom records), in grading.toml's points."""
        total = res.total()
        self.assertIsNotNone(total, res.steps[-1].output)
        return total[0] / scale, total[1] / scale

    def check_one_section(self, failing, want):
        results, points = self.results(failing)
        self.assertEqual(points["11.1"], want)
        text = release.workflow(ROOT, [self.s11_1], self.rules)
        res, graded = self.run_workflow(self.workspace(), results, text)
        self.assertEqual(self.reported(res), (want, 10))
        self.assertEqual(graded, [f"{self.tmp}/ws{self.n} grade 11.1"])
        # The reporter fails the job when a property is lost (as on GitHub), else it passes.
        self.assertEqual(res.ok, want == 10, res.steps[-1].output)
        for s in res.steps:
            if s.id.startswith("s11p1q"):
                result = json.loads(base64.b64decode(s.outputs["result"]))
                self.assertEqual(result["tests"][0]["score"], result["max_score"] if result["status"] == "pass" else 0)
        return res

    def test_the_fixture_is_the_actions_code(self):
        with open(os.path.join(ACTIONS, "SOURCE.json")) as f:
            source = json.load(f)
        with open(os.path.join(FIXTURES, "classroom_actions.json")) as f:
            described = json.load(f)
        for folder, s in source.items():
            self.assertEqual(described[s["repository"] + "@" + s["tag"]]["commit"], s["commit"])
            for path, want in s["blobs"].items():
                self.assertEqual(blob_id(os.path.join(ACTIONS, folder, path)), want, path)
        self.assertEqual({release.GRADER, release.REPORTER}, {s["repository"] + "@" + s["tag"] for s in source.values()})

    def test_untouched_stubs(self):
        self.check_one_section(self.names, 0)

    def partly_right(self):
        """Inclusive scans right, exclusive ones and `last` wrong: 4 (inclusive) + 1 (the book's example)."""
        return [n for n in self.names if n.endswith("_exclusive") or "_last_" in n]

    def test_partly_right(self):
        res = self.check_one_section(self.partly_right(), 5)
        self.assertIn("Total points for s11p1q1: 4.00/4", res.steps[-1].output)
        self.assertIn("Total points for s11p1q2: 0.00/4", res.steps[-1].output)

    def test_every_section_every_step(self):
        # The whole workflow: every step id, its <ID>_RESULTS, every property's command; 11.1 solved
        # (a section solved: 10 points), the others ran no test.
        results, points = self.results([], every_section=True)
        res, graded = self.run_workflow(self.workspace(), results, release.workflow(ROOT))
        self.assertEqual(len(graded), len(self.sections))
        self.assertEqual(self.reported(res), (sum(points.values()), sum(self.rules.rule(s.id).weight
                                                                        for s in self.sections)))
        self.assertEqual(self.reported(res)[0], 10)

    def test_fractional_weights(self):
        # No rubric, 7.5 points: one step (all or nothing), max-score 75, the reporter's total / 10.
        rules = config.rules_from({"sections": {"11.1": {"weight": 7.5, "exclude": ["*_last_*"]}}})
        failing = [n for n in self.names if "_last_" in n]  # excluded: they count for nothing
        results, points = self.results(failing, rules)
        self.assertEqual(points["11.1"], 7.5)
        res, _ = self.run_workflow(self.workspace(), results, release.workflow(ROOT, [self.s11_1], rules))
        self.assertEqual(self.reported(res, 10), (7.5, 7.5))

    # ---- what a student could change in their repository -------------------------------------------
    def forge_grading_toml(self, ws):
        """The student's grading.toml: every property decided by the one test their stub passes."""
        with open(os.path.join(ws, "grading.toml"), "a") as f:
            f.write('\n[sections."11.1".properties.mine]\npoints = 100\ntests = ["Section11_1.BookExample"]\n')
        with open(os.path.join(ws, "grading.toml")) as f:
            text = f.read()
        text = text.replace('tests = ["Grading.*_inclusive", "sanitize.*"]', 'tests = ["Section11_1.BookExample"]')
        with open(os.path.join(ws, "grading.toml"), "w") as f:
            f.write(text)

    def test_edited_grading_toml(self):
        failing = [n for n in self.names if not n.endswith("Section11_1.BookExample")]
        results, points = self.results(failing)
        self.assertEqual(points["11.1"], 1)
        ws = self.workspace()
        self.forge_grading_toml(ws)
        # The student's lab reads it ...
        self.assertEqual(config.load(ws).rule("11.1").properties[0].tests, ("Section11_1.BookExample",))
        # ... the workflow's steps do not: the book's example alone, 1 point.
        res, _ = self.run_workflow(ws, results, release.workflow(ROOT, [self.s11_1], self.rules))
        self.assertEqual(self.reported(res), (1, 10))

    def test_without_a_grader_the_students_lab_decides(self):
        # What --grader-repo is for: without it the workflow runs the student's own lab.
        results, _ = self.results(self.names)
        ws = self.workspace()
        with open(os.path.join(ws, "lab"), "w") as out:
            out.write(FORGED_LAB)
        res, _ = self.run_workflow(ws, results, release.workflow(ROOT, [self.s11_1], self.rules), log_expected=False)
        self.assertEqual(self.reported(res), (10, 10))
        os.remove(os.path.join(self.tmp, "forged.log"))

    def grader_repository(self):
        """The instructor's copy: the release (its fake lab) as a git repository; returns (folder, commit)."""
        repo = os.path.join(self.tmp, "grader-repo")
        if not os.path.isdir(repo):
            shutil.copytree(self.release, repo, symlinks=True)
            self.assertTrue(release.make_repository(repo))
        return repo, release.head(repo)

    def test_grader_repository_ignores_the_students_files(self):
        # The student's repository: a kernel partly right (5 points), and everything else forged:
        # grading.toml, a test that cannot compile, a lab that earns every property, a setup.sh.
        repo, commit = self.grader_repository()
        results, points = self.results(self.partly_right())
        ws = self.workspace()
        self.forge_grading_toml(ws)
        tests = os.path.join(ws, "chapters", "11_1_sequential", "tests.cpp")
        if os.path.exists(tests):
            with open(tests, "a") as f:
                f.write("\n#error forged: this file is the student's\n")
        for f in ("lab", os.path.join("tools", "setup.sh")):
            with open(os.path.join(ws, f), "w") as out:
                out.write(FORGED_LAB)
        text = release.workflow(ROOT, [self.s11_1], self.rules, release.Grader("prof/scanlab", commit))
        res, graded = self.run_workflow(ws, results, text, {"prof/scanlab": repo})
        self.assertEqual(self.reported(res), (5, 10))
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "forged.log")), "the student's lab or setup.sh ran")
        # Graded: the grader's lab, the student's exercises/ (checked and copied by grade-prepare).
        self.assertEqual(graded, [f"{ws}/grader grade 11.1 --exercises {ws}/student/exercises"])
        self.assertTrue(os.path.isdir(os.path.join(ws, "grader", "build", "grade", "exercises", "11_1_sequential")))

    def test_grader_repository_refuses_extra_files(self):
        # A file the section does not have: refused (./lab grade --exercises), nothing earned, though
        # the results it would have read are full points.
        repo, commit = self.grader_repository()
        results, _ = self.results([])
        ws = self.workspace()
        with open(os.path.join(ws, "exercises", "11_1_sequential", "extra.cuh"), "w") as f:
            f.write("// the student's\n")
        text = release.workflow(ROOT, [self.s11_1], self.rules, release.Grader("prof/scanlab", commit))
        res, graded = self.run_workflow(ws, results, text, {"prof/scanlab": repo})
        self.assertEqual(graded, [f"{ws}/grader grade 11.1 --exercises {ws}/student/exercises"])
        self.assertEqual(self.reported(res), (0, 10))


if __name__ == "__main__":
    unittest.main()
