import io
import json
import os
import unittest
import unittest.mock
import xml.etree.ElementTree as ET

from scanlab_lab import grade, report, sections
from scanlab_lab.tests.util import FIXTURES, ROOT, graded_build_dir


class Summary(unittest.TestCase):
    """grade.py's report on the captured 11.1 outputs: a broken kernel, the stub, a build error."""

    def grading(self, name, student, status="built", error=""):
        bdir = graded_build_dir(self, name)
        s11_1 = sections.resolve(sections.load(ROOT), ["11.1"])
        g = grade.Grading(ROOT, bdir, s11_1, student, "label")
        warnings = ["/s/11_1_sequential/sequential_scan.cuh:25:21: warning: comparison"]
        summary = g.summarise({"11.1": {"status": status, "warnings": warnings, "error": error, "log": None}}, ["cpu"])
        g.write(summary)
        out = io.StringIO()
        report.print_report(summary, out)
        with open(g.summary_path) as f:
            self.assertEqual(json.load(f), summary)
        return summary, out.getvalue(), g

    def test_broken_kernel(self):
        summary, text, g = self.grading("broken", os.path.join(FIXTURES, "..", "fixtures"))
        s = summary["sections"][0]
        for key in ("section", "status", "passed", "failed", "skipped", "total", "points", "max_points", "failed_tests"):
            self.assertIn(key, s)
        self.assertEqual((s["status"], s["passed"], s["failed"], s["total"], s["points"]), ("graded", 18, 24, 42, 1))
        # The rubric (grading.toml): only the book's example of 11.1 is earned; the report says so.
        self.assertEqual([(p["name"], p["points"]) for p in s["properties"]],
                         [("inclusive", 0), ("exclusive", 0), ("operand_order", 0), ("book_example", 1)])
        self.assertIn("[x] the book's example: 1 of 1 points", text)
        self.assertIn("[ ] inclusive scans: every type, operator and size: 0 of 4 points: failed by", text)
        kinds = [t["kind"] for t in s["failed_tests"]]
        self.assertEqual((kinds.count("crash"), kinds.count("wrong value")), (20, 4))
        self.assertTrue(all(t["why"] for t in s["failed_tests"]))
        self.assertEqual(s["warnings"], ["/s/11_1_sequential/sequential_scan.cuh:25:21: warning: comparison"])
        self.assertIn("crashed (segmentation fault) in 11.1.exercise.cpu.Grading.sequential.int32_add_inclusive", text)
        self.assertIn("aborted in 11.1.exercise.cpu.Grading.sequential.int64_add_exclusive", text)
        self.assertIn("element 510 of 511 is 889, expected 892", text)
        self.assertNotIn("[ RUN", text)
        self.assertFalse(summary["all_passed"])
        # The JUnit file now says why each test failed.
        failures = [f for f in ET.parse(g.junit).getroot().iter("failure")]
        self.assertEqual(len(failures), 24)
        self.assertTrue(all(f.get("message") for f in failures))

    def test_untouched_stub(self):
        summary, text, _ = self.grading("stub", os.path.join(ROOT, "exercises"))
        s = summary["sections"][0]
        self.assertEqual(s["untouched"], ["label/11_1_sequential/sequential_scan.cuh"])
        self.assertTrue(s["not_started"])
        self.assertIn("the TODO(student) blocks of label/11_1_sequential/sequential_scan.cuh are still empty", text)
        self.assertNotIn("never written", text)  # the stub note, not 42 wrong-value stories

    def test_build_error(self):
        summary, text, g = self.grading(None, os.path.join(ROOT, "solutions"), "build-failed",
                                        "/s/x.cuh:24:14: error: expected ';'")
        s = summary["sections"][0]
        self.assertEqual(s["status"], "build-failed")
        self.assertEqual(s["failed_tests"], [{"name": "11.1.exercise.build", "kind": "build error",
                                              "why": "/s/x.cuh:24:14: error: expected ';'"}])
        self.assertIn("does not build", text)
        self.assertEqual(summary["junit"], g.junit)
        case = ET.parse(g.junit).getroot().find("testcase")
        self.assertEqual(case.get("name"), "11.1.exercise.build")


    def test_section_without_tests_in_this_build(self):
        # A cuda-only build (a GPU machine without Boost.Context) has no test of 11.3's model, which
        # the emulator measures: the section is not graded, and the report says why (not "does not build").
        bdir = graded_build_dir(self, None)
        s11_3 = sections.resolve(sections.load(ROOT), ["11.3"])
        g = grade.Grading(ROOT, bdir, s11_3, os.path.join(ROOT, "solutions"), "label", echo=False)
        g._targets = {"test_11_2_exercise_cuda"}
        out = io.StringIO()
        with unittest.mock.patch("sys.stdout", out), unittest.mock.patch("sys.stderr", out):
            g.grade(["cuda"])
        with open(g.summary_path) as f:
            s = json.load(f)["sections"][0]
        self.assertEqual((s["status"], s["points"], s["total"]), ("not-graded", 0.0, 0))
        self.assertIn("section 11.3 has no tests on the cuda backend: it is graded on the cpu backend", out.getvalue())
        self.assertIn("not graded: no tests in this build", out.getvalue())
        self.assertNotIn("does not build", out.getvalue())


class SectionTimeLimit(unittest.TestCase):
    """LAB_SECTION_TIMEOUT: one ctest per section; a section that runs past its time scores 0 and the
    others keep their points. A stand-in ctest on the PATH: 11.1's tests pass at once, 11.2's hang
    (a process it started too: the whole group is stopped)."""

    FAKE_CTEST = r"""#!/usr/bin/env bash
regex= junit=
while (($#)); do
  case $1 in -R) regex=$2; shift ;; --output-junit) junit=$2; shift ;; esac
  shift
done
if [[ $regex == *11\\.2* ]]; then
  sleep 300 & echo $! > "$(dirname "$junit")/hung.pid"
  echo "    Start 1: 11.2.exercise.cpu.Grading.kogge_stone.int32_add_inclusive"
  wait
fi
echo "1/1 Test #1: 11.1.exercise.cpu.Section11_1.BookExample ....   Passed    0.01 sec"
cat > "$junit" <<'XML'
<testsuite name="x" tests="1" failures="0" skipped="0" disabled="0" time="0.01">
<testcase name="11.1.exercise.cpu.Section11_1.BookExample" classname="x" time="0.01" status="run"/>
</testsuite>
XML
"""

    def test_a_hang_costs_its_own_section(self):
        import tempfile
        import time
        with tempfile.TemporaryDirectory() as tmp:
            os.makedirs(os.path.join(tmp, "bin"))
            ctest_path = os.path.join(tmp, "bin", "ctest")
            with open(ctest_path, "w") as f:
                f.write(self.FAKE_CTEST)
            os.chmod(ctest_path, 0o755)
            chosen = sections.resolve(sections.load(ROOT), ["11.1", "11.2"])
            env = {"PATH": os.path.join(tmp, "bin") + os.pathsep + os.environ["PATH"], "LAB_SECTION_TIMEOUT": "2"}
            out = io.StringIO()
            with unittest.mock.patch.dict(os.environ, env), unittest.mock.patch("sys.stdout", out), \
                    unittest.mock.patch("sys.stderr", out):
                g = grade.Grading(ROOT, tmp, chosen, os.path.join(ROOT, "solutions"), "label", preset=None, echo=False)
                t0 = time.time()
                g.run_tests(chosen, ["cpu"])
                self.assertLess(time.time() - t0, 30)
                summary = g.summarise({c.id: {"status": "built", "warnings": [], "error": "", "log": None}
                                       for c in chosen}, ["cpu"])
            with open(os.path.join(tmp, "hung.pid")) as f:
                hung = int(f.read())
            time.sleep(0.2)
            self.assertFalse(os.path.exists(f"/proc/{hung}") and open(f"/proc/{hung}/stat").read().split()[2] != "Z",
                             "the section's processes were left running")
            by_id = {s["section"]: s for s in summary["sections"]}
            self.assertEqual((by_id["11.1"]["status"], by_id["11.1"]["passed"]), ("graded", 1))
            self.assertEqual((by_id["11.2"]["status"], by_id["11.2"]["points"]), ("timed out", 0.0))
            self.assertEqual([t["kind"] for t in by_id["11.2"]["failed_tests"]], ["timeout"])
            self.assertIn("stopped after 2 s", by_id["11.2"]["failed_tests"][0]["why"])
            self.assertIn("section 11.2: its tests were stopped after 2 s", out.getvalue())
            text = io.StringIO()
            report.print_report(summary, text)
            self.assertIn("section 11.2 (", text.getvalue())
            self.assertIn("stopped: it ran past its time limit", text.getvalue())
            self.assertEqual([c.get("name") for c in ET.parse(g.junit).getroot().iter("testcase")],
                             ["11.1.exercise.cpu.Section11_1.BookExample"])

    def test_bad_value(self):
        with unittest.mock.patch.dict(os.environ, {"LAB_SECTION_TIMEOUT": "soon"}):
            with self.assertRaises(grade.LabError) as e:
                grade.section_timeout()
        self.assertIn("LAB_SECTION_TIMEOUT must be a number of seconds", str(e.exception))


class ConfineWays(unittest.TestCase):
    """LAB_CONFINE: the one way ./lab grade confines the student's kernels (sandbox.runner_box)."""

    def test_values(self):
        for value, ways in (("", ["bubblewrap", "landlock"]), ("landlock", ["landlock"]),
                            (" bubblewrap ", ["bubblewrap"])):
            with unittest.mock.patch.dict(os.environ, {"LAB_CONFINE": value}):
                self.assertEqual(grade.confine_ways(), ways)
        with unittest.mock.patch.dict(os.environ, {"LAB_CONFINE": "none"}):
            with self.assertRaises(grade.LabError) as e:
                grade.confine_ways()
        self.assertIn("LAB_CONFINE must be bubblewrap or landlock, not 'none'", str(e.exception))


class OperandOrder(unittest.TestCase):
    def test_only_last_fails(self):
        names = [f"Grading.kogge_stone.int32_{op}_{kind}" for op in ("add", "max", "min", "last")
                 for kind in ("inclusive", "exclusive")]
        swapped = [(n, "failed" if "_last_" in n else "passed") for n in names]
        notes = grade.operand_order_notes(swapped + [("Grading.brent_kung.int32_last_inclusive", "passed")])
        self.assertEqual(len(notes), 1)
        self.assertTrue(notes[0].startswith("kogge_stone: only the scans with the `last` operator fail"), notes[0])
        # Any other operator failing too, or no other operator run: no such note (it would not be true).
        self.assertEqual(grade.operand_order_notes([(n, "failed" if "_last_" in n or "_add_" in n else "passed")
                                                    for n in names]), [])
        self.assertEqual(grade.operand_order_notes([("Grading.k.int32_last_inclusive", "failed")]), [])

    def test_only_add_passes(self):
        names = [f"Grading.kogge_stone.int32_{op}_{kind}" for op in ("add", "max", "min", "last")
                 for kind in ("inclusive", "exclusive")]
        notes = grade.operand_order_notes([(n, "passed" if "_add_" in n else "failed") for n in names])
        self.assertEqual(len(notes), 1)
        self.assertIn("does the kernel add (a + b, +=) where it should apply the operator", notes[0])
        self.assertEqual(grade.operand_order_notes([(n, "failed") for n in names]), [])  # nothing passes


class Report(unittest.TestCase):
    def test_long_groups_are_counted_not_dropped(self):
        tests = [{"name": f"11.2.exercise.cpu.Grading.k.t{i}", "kind": "race", "why": f"race {i}"} for i in range(20)]
        tests.insert(1, {"name": "11.2.exercise.cpu.Grading.w.x", "kind": "race", "why": "race w"})
        section = {"section": "11.2", "title": "T", "status": "graded", "passed": 1, "failed": 21, "skipped": 0,
                   "total": 22, "points": 0.5, "failed_tests": tests, "warnings": [], "untouched": [],
                   "not_started": False}
        out = io.StringIO()
        report.print_report({"sections": [section], "total_points": 0.5, "max_points": 10}, out)
        text = out.getvalue()
        self.assertIn("[race, 21 tests] Grading.k.t0:\n      race 0\n", text)
        self.assertIn("also: Grading.w.x, t1, t2,", text)  # another suite keeps its name
        self.assertIn("and 8 more (grade-summary.json lists them)", text)
        self.assertRegex(text, r"\n11\.2 +1/22 +0\.5  21 race\n")


if __name__ == "__main__":
    unittest.main()
