import os
import unittest

from scanlab_lab import ctest
from scanlab_lab.tests.util import FIXTURES, fixture


class CtestOutputs(unittest.TestCase):
    def test_junit_results(self):
        got = {c.name.split(".")[-1]: c.result for c in ctest.read_junit(os.path.join(FIXTURES, "crashes-junit.xml"))}
        self.assertEqual(got, {"passes": "passed", "wrong": "failed", "segfault": "failed", "aborts": "failed",
                               "hangs": "failed", "fpe": "failed", "exits": "failed", "skipped": "skipped"})

    def test_statuses_from_the_log(self):
        got = {k.split(".")[-1]: v for k, v in ctest.read_statuses(fixture("crashes-ctest.log")).items()}
        self.assertEqual(got, {"wrong": "Failed", "segfault": "SEGFAULT", "aborts": "Subprocess aborted",
                               "hangs": "Timeout", "fpe": "NUMERICAL", "exits": "Failed", "skipped": "Skipped"})

    def test_status_lines_alone(self):
        # ctest stopped before its summary: the status lines still say how each test ended.
        log = "\n".join(l for l in fixture("crashes-ctest.log").splitlines() if "Test #" in l)
        got = {k.split(".")[-1]: v for k, v in ctest.read_statuses(log).items()}
        self.assertEqual(got["segfault"], "SEGFAULT")
        self.assertEqual(got["aborts"], "Subprocess aborted")
        self.assertEqual(got["hangs"], "Timeout")
        self.assertEqual(got["fpe"], "NUMERICAL")
        self.assertEqual(got["wrong"], "Failed")

    def test_grading_log(self):
        statuses = ctest.read_statuses(fixture("broken-ctest.log"))
        self.assertEqual(sorted(set(statuses.values())), ["Failed", "SEGFAULT", "Subprocess aborted"])
        self.assertEqual(len(statuses), 24)


if __name__ == "__main__":
    unittest.main()
