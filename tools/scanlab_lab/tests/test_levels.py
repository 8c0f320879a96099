"""levels.py: the open level of an exercise, made from the solution (every opened body a TODO block,
no answer left in it), chosen per section by grading.toml or ./lab release --level."""
import os
import shutil
import tempfile
import unittest

from scanlab_lab import LabError, config, exercises, levels, release, sections
from scanlab_lab.tests.util import ROOT


def opened_sections():
    return [s for s in sections.load(ROOT) if levels.has_open_level(ROOT, s.folder)]


class OpenLevel(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_sections_with_an_open_level(self):
        self.assertEqual([s.id for s in opened_sections()], ["11.1", "11.2", "11.4", "11.5", "11.6", "11.7", "11.8"])

    def test_no_answer_left(self):
        blocks = exercises.solution_blocks(ROOT)
        for s in opened_sections():
            files = levels.open_files(ROOT, s.folder)
            self.assertTrue(files, s.id)
            for f, text in files.items():
                os.makedirs(os.path.join(self.tmp, s.folder), exist_ok=True)
                with open(os.path.join(self.tmp, s.folder, f), "w") as out:
                    out.write(text)
                todo = exercises.todo_blocks(text)
                self.assertTrue(todo and all("your code here" in b for b in todo), f"{s.folder}/{f}")
            written = [os.path.join(s.folder, f) for f in files]
            self.assertEqual(exercises.leaks(written, self.tmp, blocks), [], s.id)

    def test_a_body_becomes_a_todo_block(self):
        text = ("/// The contract.\ntemplate <class T, class Op>\n__global__ void k(const T* x, T* y,\n"
                "                  std::size_t n, Op op) {\n  // TODO(student) begin: hint\n  y[0] = x[0];\n"
                "  // TODO(student) end\n  if (n) y[1] = op(x[0], x[1]);  // a } in a comment\n}\n"
                "T first(const T* x) { return x[0]; }\nint after = 1;\n")
        out = levels.open_text(text, [levels.Opened("f.cuh", "k", None), levels.Opened("f.cuh", "first", "T{}")], "f.cuh")
        self.assertIn("__global__ void k(const T* x, T* y,\n                  std::size_t n, Op op) {\n"
                      "  // TODO(student) begin: your code;", out)
        self.assertIn("  (void)x, (void)y, (void)n, (void)op;", out)
        self.assertIn("T first(const T* x) {\n  // TODO(student) begin", out)
        self.assertIn("  return T{};\n  // TODO(student) end\n}\nint after = 1;\n", out)
        self.assertNotIn("y[0] = x[0]", out)
        # A TODO block outside the opened functions would leave an answer in the open file.
        with self.assertRaisesRegex(LabError, "outside the functions"):
            levels.open_text(text, [levels.Opened("f.cuh", "first", "T{}")], "f.cuh")
        with self.assertRaisesRegex(LabError, "no definition of nope"):
            levels.open_text(text, [levels.Opened("f.cuh", "nope", None)], "f.cuh")

    def test_an_untouched_open_stub_is_not_started(self):
        folder = "11_2_kogge_stone"
        files = levels.open_files(ROOT, folder)
        mine = os.path.join(self.tmp, folder)
        os.makedirs(mine)
        for f, text in files.items():
            with open(os.path.join(mine, f), "w") as out:
                out.write(text)
        self.assertEqual(exercises.untouched(mine, files), sorted(files))
        self.assertEqual(exercises.untouched(os.path.join(ROOT, "solutions", folder), files), [])


class Choice(unittest.TestCase):
    def test_grading_toml_level(self):
        rules = config.rules_from(config.parse_subset('[sections."11.2"]\nlevel = "open"\n'), ["11.2"])
        self.assertEqual((rules.rule("11.2").level, rules.rule("11.1").level), ("open", "guided"))
        with self.assertRaisesRegex(LabError, 'level must be "guided" or "open"'):
            config.rules_from(config.parse_subset('[default]\nlevel = "free"\n'))

    def test_release_arguments(self):
        self.assertEqual(release.arguments(["--student", "d", "--level", "open"]), ("d", "open", None))
        self.assertEqual(release.arguments(["--student=d"]), ("d", None, None))
        with self.assertRaisesRegex(LabError, "--level must be open or guided"):
            release.arguments(["--student", "d", "--level=hard"])
        levels_ = release.chosen_levels(ROOT, "open")
        self.assertEqual(levels_["11_2_kogge_stone"], "open")
        self.assertEqual(levels_["11_9_applications"], "guided")  # no open level yet
        self.assertEqual(set(release.chosen_levels(ROOT).values()), {"guided"})  # grading.toml's default

    def test_release_at_the_open_level(self):
        tmp = tempfile.mkdtemp()
        try:
            dst = os.path.join(tmp, "r")
            release.write(ROOT, dst, "open")
            for s in opened_sections():
                for f, text in levels.open_files(ROOT, s.folder).items():
                    with open(os.path.join(dst, "exercises", s.folder, f)) as r:
                        self.assertEqual(r.read(), text, f"{s.folder}/{f}")
        finally:
            shutil.rmtree(tmp)


if __name__ == "__main__":
    unittest.main()
