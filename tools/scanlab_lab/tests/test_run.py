import os
import shutil
import stat
import tempfile
import unittest

from scanlab_lab import LabError, run
from scanlab_lab.tests.util import ROOT


class Capabilities(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)

    def program(self, body):
        path = os.path.join(self.tmp, "prog")
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + body + "\n")
        os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)
        return path

    def test_arguments_follow_the_description(self):
        caps = run.capabilities(self.program(
            'echo \'{"section": "11.3", "options": ["--json", "--csv", "--trace"], "trace_file": true}\''))
        self.assertEqual(run.arguments(caps, "/r", "11.3"),
                         ["--json", "/r/11.3.json", "--csv", "/r/11.3.csv", "--trace", "/r/11.3.traces.json"])
        caps = run.capabilities(self.program('echo \'{"section": "11.2", "options": ["--reps", "--json"]}\''))
        self.assertEqual(run.arguments(caps, "/r", "11.2"), ["--reps", "5", "--json", "/r/11.2.json"])

    def test_a_program_that_cannot_describe_itself(self):
        caps = run.capabilities(self.program("echo 'unknown option' >&2; exit 2"))
        self.assertEqual(run.arguments(caps, "/r", "11.1"), ["--json", "/r/11.1.json", "--csv", "/r/11.1.csv"])


class Plan(unittest.TestCase):
    def test_the_solutions_or_the_students_kernels(self):
        p = run.plan(ROOT, [])
        self.assertEqual((p.targets(), p.exercise, p.passthrough), (["scanlab_programs"], False, []))
        self.assertEqual(p.results("/b"), "/b/results")
        p = run.plan(ROOT, ["11.2", "--exercise", "11_4"])
        self.assertEqual(p.targets(), ["scanlab_11_2_exercise", "scanlab_11_4_exercise"])
        self.assertEqual(p.results("/b"), "/b/exercise-results")

    def test_the_programs_own_arguments(self):
        p = run.plan(ROOT, ["--exercise", "11.2", "--", "--input", "4,6", "--trace", "11.4"])
        self.assertEqual((p.targets(), p.passthrough), (["scanlab_11_2_exercise"], ["--input", "4,6", "--trace", "11.4"]))
        for bad in (["11.2", "--"], ["--trace"], ["11.2", "--fast", "--", "--trace"]):
            with self.assertRaises(LabError) as e:
                run.plan(ROOT, bad)
            self.assertEqual(e.exception.status, 2, bad)

    def test_the_student_release_runs_the_students(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        os.makedirs(os.path.join(tmp, "chapters"))
        shutil.copy(os.path.join(ROOT, "chapters", "sections.txt"), os.path.join(tmp, "chapters"))
        p = run.plan(tmp, [])  # no solutions/
        self.assertTrue(p.exercise)
        self.assertEqual(len(p.targets()), len(p.sections))
        self.assertTrue(all(t.endswith("_exercise") for t in p.targets()))


if __name__ == "__main__":
    unittest.main()
