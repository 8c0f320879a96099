import io
import json
import os
import shutil
import tempfile
import unittest

from scanlab_lab import results


class Results(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)

    def write(self, name, data):
        path = os.path.join(self.tmp, name)
        with open(path, "w") as f:
            f.write(data if isinstance(data, str) else json.dumps(data))
        return path

    def report(self, *paths):
        out, err = io.StringIO(), io.StringIO()
        return results.report(paths, out, err), out.getvalue(), err.getvalue()

    def test_table(self):
        p = self.write("11.2.json", [{"section": "11.2", "algorithm": "kogge_stone", "backend": "cpu", "n": 1024,
                                      "verified": True, "median_ms": 1.23456, "gbps": 0, "ops": 9217, "steps": 10}])
        rc, out, _ = self.report(p)
        self.assertEqual(rc, 0)
        lines = out.splitlines()
        self.assertTrue(lines[0].startswith("section  algorithm"))
        self.assertIn("kogge_stone", lines[2])
        self.assertIn("1.235", lines[2])

    def test_unverified_anywhere_fails(self):
        rows = self.write("a.json", [{"algorithm": "x", "verified": False}])
        self.assertEqual(self.report(rows)[0], 1)
        nested = self.write("11.3.json", {"rows": [{"deep": {"verified": False}}]})
        rc, out, err = self.report(nested)
        self.assertEqual(rc, 1)
        self.assertIn("not a timing table", out)
        self.assertIn("not verified", err)
        self.assertEqual(self.report(self.write("bad.json", "{"))[0], 1)


if __name__ == "__main__":
    unittest.main()
