"""One submission, four ways: the same partly right 11.1 gets the same points from `./lab grade
--exercises`, `./lab grade --class` (sandboxed where bubblewrap can be), Gradescope's run_autograder in a
fake /autograder tree, and the student release's Classroom workflow, its steps run as the workflow
defines them with the actions' own code (classroom_runner.py, the fixture's dist/main.js under node).

It builds 11.1's grading four times from nothing (a copy of the lab, a class slot, the release): minutes,
so it runs only with LAB_FOUR_WAYS=1 (tools/README.md says how long it took)."""
import csv
import json
import os
import shutil
import subprocess
import tempfile
import unittest

from scanlab_lab import release, sandbox
from scanlab_lab.tests import classroom_runner
from scanlab_lab.tests.util import FIXTURES, ROOT

SECTION, FOLDER, FILE = "11.1", "11_1_sequential", "sequential_scan.cuh"
# Partly right: the inclusive scans are the solution's; the exclusive scan never writes its last element.
BREAK = "  y[n - 1] = running;\n"


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True,
                          errors="replace", **kw)


@unittest.skipUnless(os.environ.get("LAB_FOUR_WAYS") == "1", "builds 11.1's grading four times (minutes): LAB_FOUR_WAYS=1")
class FourWays(unittest.TestCase):
    def setUp(self):
        build = os.path.join(ROOT, "build")
        self.tmp = tempfile.mkdtemp(prefix="four-ways-", dir=build if os.path.isdir(build) else None)
        self.addCleanup(shutil.rmtree, self.tmp, True)
        os.chmod(self.tmp, 0o755)  # --class's sandbox user reads the lab copy (mkdtemp makes it 0700)
        # A copy of the lab (git's files), so that its build/grade is this test's own.
        self.lab = os.path.join(self.tmp, "lab")
        for f in release.files_of(ROOT):
            os.makedirs(os.path.dirname(os.path.join(self.lab, f)), exist_ok=True)
            shutil.copy2(os.path.join(ROOT, f), os.path.join(self.lab, f))
        with open(os.path.join(ROOT, "solutions", FOLDER, FILE), encoding="utf-8") as f:
            solution = f.read()
        self.assertEqual(solution.count(BREAK), 1)
        self.kernel = solution.replace(BREAK, "")
        self.submission = self.put(os.path.join(self.tmp, "submission"))

    def put(self, exercises):
        """Writes the submission's 11.1 into the folder `exercises` (section folders at its top)."""
        os.makedirs(os.path.join(exercises, FOLDER), exist_ok=True)
        with open(os.path.join(exercises, FOLDER, FILE), "w", encoding="utf-8") as f:
            f.write(self.kernel)
        return exercises

    def command_line(self):
        p = run([os.path.join(self.lab, "lab"), "grade", SECTION, "--exercises", self.submission], cwd=self.tmp)
        self.assertEqual(p.returncode, 1, p.stdout[-3000:])  # some tests failed
        with open(os.path.join(self.lab, "build", "grade", "grade-summary.json")) as f:
            (s,) = json.load(f)["sections"]
        return s["points"], s["max_points"]

    def class_run(self):
        cls = os.path.join(self.tmp, "class")
        self.put(os.path.join(cls, "alice"))
        box = [] if sandbox.available() is None else ["--no-sandbox"]
        p = run([os.path.join(self.lab, "lab"), "grade", "--class", cls, SECTION] + box, cwd=self.tmp)
        self.assertEqual(p.returncode, 0, p.stdout[-3000:])
        with open(os.path.join(self.lab, "build", "grade", "class", "gradebook.csv"), newline="") as f:
            (row,) = list(csv.DictReader(f))
        self.assertEqual(row["status"], "graded", row)
        return float(row[SECTION]), float(row["max"])

    def gradescope(self):
        ag = os.path.join(self.tmp, "autograder")
        os.makedirs(ag)
        os.symlink(self.lab, os.path.join(ag, "source"))
        self.put(os.path.join(ag, "submission"))
        p = run([os.path.join(self.lab, "tools", "gradescope", "run_autograder")],
                env=dict(os.environ, SCANLAB_AUTOGRADER_DIR=ag))
        self.assertEqual(p.returncode, 0, p.stdout[-3000:])
        with open(os.path.join(ag, "results", "results.json")) as f:
            (t,) = [t for t in json.load(f)["tests"] if t["name"].startswith(f"Section {SECTION}:")]
        return t["score"], t["max_score"]

    def classroom(self):
        missing = [w for w in ("node", "git") if not shutil.which(w)]
        try:
            import yaml  # noqa: F401
        except ImportError:
            missing.append("PyYAML")
        if missing:
            self.skipTest("the Classroom workflow is not run here: no " + ", ".join(missing))
        ws = os.path.join(self.tmp, "workspace")
        release.write(ROOT, ws)  # (git lists the lab's files: the copy is no repository)
        self.put(os.path.join(ws, "exercises"))
        job = classroom_runner.load_workflow(os.path.join(ws, release.WORKFLOW))
        job = classroom_runner.only_sections(job, [SECTION])
        res = classroom_runner.Runner(ws, os.path.join(FIXTURES, "classroom_actions")).run(job)
        total = res.total()
        self.assertIsNotNone(total, res.steps[-1].output[-3000:])
        return total

    def test_the_same_points(self):
        ways = {}
        for name, way in (("./lab grade --exercises", self.command_line), ("./lab grade --class", self.class_run),
                          ("Gradescope's run_autograder", self.gradescope), ("the Classroom workflow", self.classroom)):
            ways[name] = way()
            print(f"{name}: {ways[name][0]} of {ways[name][1]}", flush=True)
        points = {k: v[0] for k, v in ways.items()}
        self.assertEqual(len(set(points.values())), 1, ways)
        self.assertEqual({v[1] for v in ways.values()}, {10})
        self.assertTrue(0 < points["./lab grade --exercises"] < 10, ways)  # partly right: not 0, not full


if __name__ == "__main__":
    unittest.main()
