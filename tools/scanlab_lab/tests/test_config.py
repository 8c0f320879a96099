"""config.py: grading.toml, read by tomllib and by the subset reader alike; the weights in a grade."""
import os
import unittest

from scanlab_lab import LabError, config, grade, sections
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
        self.assertEqual(rules.rule("11.2"), config.DEFAULT)

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


if __name__ == "__main__":
    unittest.main()
