import os
import tempfile
import unittest

from scanlab_lab import LabError, sections
from scanlab_lab.tests.util import ROOT


class Sections(unittest.TestCase):
    def setUp(self):
        self.all = sections.load(ROOT)

    def test_the_one_list(self):
        self.assertEqual(self.all[0].folder, "11_1_sequential")
        self.assertEqual(self.all[1].id, "11.2")
        self.assertEqual(self.all[1].us, "11_2")
        self.assertEqual(len({s.id for s in self.all}), len(self.all))

    def test_resolve(self):
        self.assertEqual(sections.resolve(self.all, []), self.all)
        got = sections.resolve(self.all, ["11_4", "11.2", "11_2_kogge_stone", "11.4"])
        self.assertEqual([s.id for s in got], ["11.4", "11.2"])

    def test_unknown_is_a_usage_error(self):
        with self.assertRaises(LabError) as e:
            sections.resolve(self.all, ["11.11"])
        self.assertEqual(e.exception.status, 2)
        self.assertIn("unknown section '11.11': the sections are 11.1 11.2", str(e.exception))

    def test_comments_and_bad_lines(self):
        with tempfile.TemporaryDirectory() as root:
            os.makedirs(os.path.join(root, "chapters"))
            path = os.path.join(root, "chapters", "sections.txt")
            with open(path, "w") as f:
                f.write("# a comment\n\n12_1_x   A title\n")
            self.assertEqual(sections.load(root), [sections.Section("12_1_x", "12.1", "A title")])
            with open(path, "w") as f:
                f.write("12x_1 Bad\n")
            with self.assertRaises(LabError):
                sections.load(root)


if __name__ == "__main__":
    unittest.main()
