import unittest

from scanlab_lab import buildlog
from scanlab_lab.tests.util import fixture

COPY = "/work/wt/lab/build/grade/exercises"  # where the fixtures were built


class BuildLog(unittest.TestCase):
    def test_error_names_the_students_file(self):
        text = buildlog.rewrite_paths(fixture("nobuild-build.log"), COPY, "/home/ana/my exercises")
        self.assertNotIn(COPY, text)
        first = buildlog.first_error(text)
        self.assertTrue(first.startswith("/home/ana/my exercises/11_1_sequential/sequential_scan.cuh:24:14: "
                                         "error: expected"), first)
        self.assertIn("undeclared_name = 3;", first)

    def test_warnings_once_each(self):
        text = buildlog.rewrite_paths(fixture("warning-build.log"), COPY, "/s")
        warnings = buildlog.diagnostics(text, "warning")
        self.assertEqual(len(warnings), 1)
        self.assertTrue(warnings[0].startswith("/s/11_1_sequential/sequential_scan.cuh:25:21: warning: comparison of "
                                               "integer expressions of different signedness"))
        self.assertEqual(buildlog.diagnostics(text, "error"), [])

    def test_compiled_section(self):
        text = fixture("warning-build.log")
        self.assertTrue(buildlog.compiled_section(text, "11_1"))
        self.assertFalse(buildlog.compiled_section(text, "11_2"))
        self.assertFalse(buildlog.compiled_section("ninja: no work to do.\n", "11_1"))

    def test_nvcc_warning(self):
        line = "/s/k.cuh(12): warning #177-D: variable \"x\" was declared but never referenced"
        self.assertEqual(buildlog.diagnostics(line, "warning"), [line])


if __name__ == "__main__":
    unittest.main()
