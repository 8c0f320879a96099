"""config.py: grading.toml, read by tomllib and by the subset reader alike; the weights in a grade."""
import io
import os
import unittest

from scanlab_lab import LabError, config, grade, report, sections
from scanlab_lab.tests.util import ROOT, graded_build_dir

TEXT = '''
# a comment
[default]
weight = 10          # points
tests = ["*"]
exclude = []

[sections."11.1"]
weight = 4.5
exclude = ["Grading.sequential.int64_*", "*#odd*"]   # a "#" inside a string is not a comment
'''


class Read(unittest.TestCase):
    def test_subset_reads_as_tomllib(self):
        data = config.parse_subset(TEXT)
        self.assertEqual(data["sections"]["11.1"], {"weight": 4.5, "exclude": ["Grading.sequential.int64_*", "*#odd*"]})
        try:
            import tomllib
        except ImportError:
            self.skipTest("no tomllib (Python < 3.11): the subset reader is the only one")
        self.assertEqual(tomllib.loads(TEXT), data)

    def test_the_lab_file_is_the_default(self):
        rules = config.load(ROOT, [s.id for s in sections.load(ROOT)])
        with open(os.path.join(ROOT, "grading.toml"), encoding="utf-8") as f:
            self.assertEqual(config.rules_from(config.parse_subset(f.read())).default, config.DEFAULT)
        # Every section ships a rubric of 10 points (points for correctness; the counts are feedback).
        for s in sections.load(ROOT):
            rule = rules.rule(s.id)
            self.assertTrue(rule.properties, s.id)
            self.assertEqual(rule.weight, 10, s.id)
        self.assertFalse(any(p.decides("Section11_4.AppliesTheOperator2NMinus2MinusLog2NTimes")
                             for p in rules.rule("11.4").properties))
        self.assertTrue(any(p.decides("WorkModel.SequentialIsNMinusOne") for p in rules.rule("11.3").properties))

    def test_rules(self):
        rules = config.rules_from(config.parse_subset(TEXT), ["11.1", "11.2"])
        r = rules.rule("11.1")
        self.assertEqual(r.weight, 4.5)
        self.assertTrue(r.counts("Grading.sequential.int32_add_inclusive"))
        self.assertFalse(r.counts("Grading.sequential.int64_add_inclusive"))
        self.assertEqual(rules.rule("11.2").weight, 10)

    def test_errors_are_one_line(self):
        for text, says in (('[sections."12.1"]\nweight = 1\n', "is not a section"),
                           ("[default]\nweight = -1\n", "weight must be a number >= 0"),
                           ("[default]\npoints = 3\n", "unknown key 'points'"),
                           ("[default]\ntests = \"*\"\n", "tests must be a list"),
                           ("weight = 3\n", "inside a [table]"),
                           ("[other]\n", "unknown table [other]")):
            with self.assertRaises(LabError) as e:
                config.rules_from(config.parse_subset(text), ["11.1"])
            self.assertIn(says, str(e.exception))
            self.assertEqual(e.exception.status, 2)
            self.assertNotIn("\n", str(e.exception))


class Weights(unittest.TestCase):
    def test_points_follow_the_weight_and_the_counted_tests(self):
        bdir = graded_build_dir(self)
        s11_1 = sections.resolve(sections.load(ROOT), ["11.1"])
        build = {"11.1": {"status": "built", "warnings": [], "error": "", "log": None}}
        plain = grade.Grading(ROOT, bdir, s11_1, os.path.join(ROOT, "exercises"), "x").summarise(build, ["cpu"])
        self.assertEqual((plain["sections"][0]["passed"], plain["sections"][0]["total"]), (18, 42))
        rules = config.rules_from(config.parse_subset(TEXT), ["11.1"])
        s = grade.Grading(ROOT, bdir, s11_1, os.path.join(ROOT, "exercises"), "x", rules=rules).summarise(build, ["cpu"])
        sec = s["sections"][0]
        self.assertLess(sec["total"], 42)
        self.assertFalse(any("int64" in t["name"] for t in sec["failed_tests"]))
        self.assertEqual(sec["max_points"], 4.5)
        self.assertEqual(sec["points"], round(4.5 * sec["passed"] / sec["total"], 1))
        self.assertEqual(s["max_points"], 4.5)


RUBRIC = '''
[sections."11.1".properties.exclusive_32bit]
points = 4
title = "exclusive scans of 4-byte types"
tests = ["Grading.sequential.*int32_*_exclusive", "Grading.sequential.float_*_exclusive"]
[sections."11.1".properties.inclusive]
points = 3
tests = ["Grading.sequential.*_inclusive"]
[sections."11.1".properties.book]
points = 2.5
tests = ["Section11_1.BookExample"]
[sections."11.1".properties.never_run]
points = 0.5
tests = ["Grading.nope.*"]
'''


class Rubric(unittest.TestCase):
    """Points from properties: each earned when every test it decides passes; the rest is feedback."""

    def test_reads_as_tomllib(self):
        data = config.parse_subset(RUBRIC)
        self.assertEqual(data["sections"]["11.1"]["properties"]["book"], {"points": 2.5, "tests": ["Section11_1.BookExample"]})
        try:
            import tomllib
        except ImportError:
            self.skipTest("no tomllib (Python < 3.11)")
        self.assertEqual(tomllib.loads(RUBRIC), data)

    def test_gtest_filter_runs_the_named_properties_tests(self):
        # A mutant's run (expect_caught.cmake): only the tests that decide the properties it must fail.
        table = {"sections": {"11.1": {"properties": {
            "inclusive": {"points": 4, "tests": ["Grading.*_inclusive", "sanitize.*"], "exclude": ["*_last_*"]},
            "exclusive": {"points": 4, "tests": ["Grading.*_exclusive"], "exclude": ["*_last_*"]},
            "order": {"points": 2, "tests": ["Grading.*_last_*"]}}}}}
        rule = config.rules_from(table, ["11.1"]).rule("11.1")
        self.assertEqual(config.gtest_filter(rule, ["inclusive"]), "Grading.*_inclusive:sanitize.*-*_last_*")
        # Excludes that the properties share stay; others go (a superset: the rubric check decides).
        self.assertEqual(config.gtest_filter(rule, ["inclusive", "exclusive"]),
                         "Grading.*_inclusive:sanitize.*:Grading.*_exclusive-*_last_*")
        self.assertEqual(config.gtest_filter(rule, None),
                         "Grading.*_inclusive:sanitize.*:Grading.*_exclusive:Grading.*_last_*")
        self.assertEqual(config.gtest_filter(config.DEFAULT), "")  # no rubric: every test
        bad = config.rules_from({"sections": {"11.1": {"properties": {"p": {"points": 1, "tests": ["Grading.[ab]*"]}}}}},
                                ["11.1"]).rule("11.1")
        with self.assertRaises(LabError):
            config.gtest_filter(bad)

    def test_points_per_property(self):
        # The captured 11.1 run: every inclusive scan but four fails, the 4-byte exclusive ones and the
        # book's example pass, the 8-byte exclusive ones fail (in no property: feedback).
        bdir = graded_build_dir(self)
        s11_1 = sections.resolve(sections.load(ROOT), ["11.1"])
        build = {"11.1": {"status": "built", "warnings": [], "error": "", "log": None}}
        rules = config.rules_from(config.parse_subset(RUBRIC), ["11.1"])
        self.assertEqual(rules.rule("11.1").weight, 10)
        g = grade.Grading(ROOT, bdir, s11_1, os.path.join(ROOT, "exercises"), "x", rules=rules)
        sec = g.summarise(build, ["cpu"])["sections"][0]
        got = {p["name"]: (p["points"], p["max_points"], p["passed"], len(p["failed_tests"])) for p in sec["properties"]}
        self.assertEqual(got, {"exclusive_32bit": (4, 4, True, 0), "inclusive": (0, 3, False, 16),
                               "book": (2.5, 2.5, True, 0), "never_run": (0, 0.5, False, 0)})
        self.assertEqual((sec["points"], sec["max_points"]), (6.5, 10))
        feedback = sorted(t["name"].rsplit(".", 1)[1] for t in sec["failed_tests"] if t.get("feedback"))
        self.assertEqual(feedback, sorted(f"{t}_{o}_exclusive" for t in ("double", "int64") for o in ("add", "last", "max", "min")))
        out = io.StringIO()
        report.print_report({"sections": [sec], "total_points": 6.5, "max_points": 10}, out)
        text = out.getvalue()
        self.assertIn("[x] exclusive scans of 4-byte types: 4 of 4 points", text)
        self.assertIn("[ ] inclusive: 0 of 3 points: failed by ", text)
        self.assertIn("and 15 more", text)
        self.assertIn("[ ] never run: 0 of 0.5 points: no test of it ran", text)
        # Not built: no property is earned.
        broken = {"11.1": {"status": "build-failed", "warnings": [], "error": "x.cuh:1: error", "log": None}}
        self.assertEqual(g.summarise(broken, ["cpu"])["sections"][0]["points"], 0)

    def test_a_mutant_must_cost_points(self):
        """rubric-check (expect_caught.cmake): a mutant's failed tests must fail a property, and the ones
        its PROPERTY line names; failing only feedback tests (counts, traces) earns full points."""
        rules = config.rules_from(config.parse_subset(RUBRIC), ["11.1", "11.2"])
        self.assertEqual(config.check_mutant(rules, "11.1", ["Grading.sequential.int32_add_inclusive"], ["inclusive"]), "")
        self.assertEqual(config.failed_properties(rules.rule("11.1"), ["Grading.sequential.int32_add_inclusive",
                                                                      "Section11_1.AppliesTheOperatorNMinusOneTimes"]),
                         (("inclusive",), ("Section11_1.AppliesTheOperatorNMinusOneTimes",)))
        self.assertIn("it would earn full points",
                      config.check_mutant(rules, "11.1", ["Section11_1.AppliesTheOperatorNMinusOneTimes"]))
        self.assertIn("it should fail the property 'book'",
                      config.check_mutant(rules, "11.1", ["Grading.sequential.int32_add_inclusive"], ["book"]))
        self.assertIn("'nope', which is not a property of section 11.1",
                      config.check_mutant(rules, "11.1", ["Grading.sequential.int32_add_inclusive"], ["nope"]))
        # Without a rubric: any counted failure costs points.
        self.assertEqual(config.check_mutant(rules, "11.2", ["Grading.kogge_stone.int32_add_inclusive"]), "")
        self.assertIn("has no rubric", config.check_mutant(rules, "11.2", ["X.y"], ["inclusive"]))

    def test_the_lab_mutants_name_properties(self):
        """Each mutant's PROPERTY line names a property of its section's rubric in the lab's grading.toml."""
        import glob
        import re
        rules = config.load(ROOT, [s.id for s in sections.load(ROOT)])
        patches = glob.glob(os.path.join(ROOT, "chapters", "*", "mutants", "*.patch"))
        self.assertGreater(len(patches), 50)
        for path in patches:
            folder = os.path.basename(os.path.dirname(os.path.dirname(path)))
            sid = ".".join(folder.split("_")[:2])
            with open(path, encoding="utf-8") as f:
                m = re.search(r"^PROPERTY: (.*)$", f.read().split("\n--- ")[0], re.M)
            self.assertTrue(m, f"{path} has no PROPERTY line")
            names = {p.name for p in rules.rule(sid).properties}
            for name in re.split(r"[ ,]+", m.group(1).strip()):
                self.assertIn(name, names, path)

    def test_errors(self):
        for text, says in ((RUBRIC.replace("[sections.\"11.1\".properties.book]", "[sections.\"11.1\"]\nweight = 3\n"
                                           "[sections.\"11.1\".properties.book]"), "is not the sum of its properties' points"),
                           ('[sections."11.1".properties.a]\npoints = 1\n', "tests must be a list of strings"),
                           ('[sections."11.1".properties.a]\npoints = 1\ntests = []\n', "at least one"),
                           ('[sections."11.1".properties.a]\npoints = -1\ntests = ["*"]\n', "points must be a number >= 0"),
                           ('[sections."11.1".properties.a]\npoints = 1\ntests = ["*"]\nweight = 2\n', "unknown key 'weight'"),
                           ('[default.properties.a]\npoints = 1\ntests = ["*"]\n', "[default] cannot have properties")):
            with self.assertRaises(LabError, msg=text) as e:
                config.rules_from(config.parse_subset(text), ["11.1"])
            self.assertIn(says, str(e.exception))
            self.assertNotIn("\n", str(e.exception))


if __name__ == "__main__":
    unittest.main()
