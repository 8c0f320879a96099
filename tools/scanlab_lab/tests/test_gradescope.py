"""gradescope.py and tools/gradescope/run_autograder: results.json in Gradescope's documented format
(https://gradescope-autograders.readthedocs.io/en/latest/specs/, "Output format"), on a fake
/autograder tree (SCANLAB_AUTOGRADER_DIR). With LAB_GRADESCOPE_BUILD=1 (minutes: it builds), a real
submission of 11.1 is graded end to end."""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

from scanlab_lab import LabError, config, grade, gradescope, sections
from scanlab_lab.tests.util import FIXTURES, ROOT, graded_build_dir

# Gradescope's autograder specification, "Output format" (gradescope-autograders.readthedocs.io/en/latest/
# specs/, and its source gradescope/autograder_samples docs/specs.md): every field results.json may have,
# the type of its value (a set: the values allowed). All are optional; a score on each test or at the top.
NUMBER = (int, float)
FORMATS = {"text", "html", "simple_format", "md", "ansi"}  # "Output String Formatting"
VISIBILITY = {"hidden", "after_due_date", "after_published", "visible"}
TOP_FIELDS = {"score": NUMBER, "execution_time": int, "output": str, "output_format": FORMATS,
              "test_output_format": FORMATS, "test_name_format": FORMATS, "visibility": VISIBILITY,
              "stdout_visibility": VISIBILITY, "extra_data": dict, "tests": list, "leaderboard": list}
TEST_FIELDS = {"score": NUMBER, "max_score": NUMBER, "status": {"passed", "failed"}, "name": str,
               "name_format": FORMATS, "number": str, "output": str, "output_format": FORMATS, "tags": list,
               "visibility": VISIBILITY, "extra_data": dict}
LEADERBOARD_FIELDS = {"name": str, "value": NUMBER + (str,), "order": {"asc", "desc"}}


def check_fields(test, data, fields, where):
    """Every key of data is a field of the spec, every value of the type (or one of the values) it gives."""
    test.assertIsInstance(data, dict, where)
    for key, value in data.items():
        test.assertIn(key, fields, f"{where}: {key} is no field of Gradescope's results.json")
        kind = fields[key]
        if isinstance(kind, set):
            test.assertIn(value, kind, f"{where}: {key}")
        else:
            test.assertIsInstance(value, kind, f"{where}: {key}")
            test.assertNotIsInstance(value, bool, f"{where}: {key}")  # JSON true is no number


def check_format(test, data):
    """The documented format (the tables above), and ours within it: a score per test that adds up to the
    total, a name and output each, plain text everywhere (gradescope.OUTPUT_FORMAT)."""
    check_fields(test, data, TOP_FIELDS, "results.json")
    for k, t in enumerate(data["tests"]):
        check_fields(test, t, TEST_FIELDS, f"tests[{k}]")
        test.assertTrue(all(isinstance(tag, str) for tag in t.get("tags", [])))
        for key in ("score", "max_score", "status", "name", "output"):
            test.assertIn(key, t, f"tests[{k}]")
        test.assertLessEqual(t["score"], t["max_score"])
        test.assertEqual(t["output_format"], "text")
    for k, entry in enumerate(data.get("leaderboard", [])):
        check_fields(test, entry, LEADERBOARD_FIELDS, f"leaderboard[{k}]")
    test.assertEqual(data["output_format"], "text")
    test.assertEqual(data["test_output_format"], "text")
    test.assertIn("score", data)
    test.assertAlmostEqual(data["score"], sum(t["score"] for t in data["tests"]), places=1)


class Spec(unittest.TestCase):
    """check_format refuses what Gradescope's format does not allow (a check that cannot fail proves nothing)."""

    def test_refused(self):
        good = {"score": 1.0, "output": "", "output_format": "text", "test_output_format": "text",
                "tests": [{"score": 1.0, "max_score": 2, "status": "failed", "name": "a", "output": "",
                           "output_format": "text"}]}
        check_format(self, good)
        for bad in ({"score": "1"}, {"execution_time": 1.5}, {"output_format": "rich"}, {"stdout_visibility": "shown"},
                    {"leaderboard": [{"name": "t", "value": 1, "order": "up"}]}, {"grade": 1},
                    {"tests": [dict(good["tests"][0], status="partial")]}, {"tests": [dict(good["tests"][0], number=1)]},
                    {"tests": [dict(good["tests"][0], max_score=True)]}, {"tests": [dict(good["tests"][0], tags=[1])]}):
            with self.subTest(bad=bad), self.assertRaises(AssertionError):
                check_format(self, dict(good, **bad))


class Results(unittest.TestCase):
    def test_one_test_per_section_with_its_diagnosis(self):
        bdir = graded_build_dir(self)
        all_sections = sections.load(ROOT)
        s11_1 = [s for s in all_sections if s.id == "11.1"]
        g = grade.Grading(ROOT, bdir, s11_1, FIXTURES, "submission")
        summary = g.summarise({"11.1": {"status": "built", "warnings": [], "error": "", "log": None}}, ["cpu"])
        data = gradescope.results(summary, {"11.2": "not graded: missing folder"}, config.load(ROOT), all_sections, 3.2, "all")
        check_format(self, data)
        self.assertEqual(len(data["tests"]), len(all_sections))
        first = data["tests"][0]
        self.assertEqual((first["score"], first["max_score"], first["status"]), (1, 10, "failed"))
        self.assertIn("18 of 42 tests passed", first["output"])
        self.assertIn("element 510 of 511 is 889, expected 892", first["output"])
        self.assertEqual(data["tests"][1]["output"], "not graded: missing folder")
        self.assertEqual(data["score"], 1)


    def test_diagnoses_keep_their_angle_brackets(self):
        # "text": Gradescope shows the output as written, not as HTML (where <standard headers> vanishes).
        why = 'submission/11_2/kogge_stone.cuh:3: includes a file outside your folder: ... <standard headers> may be included'
        data = gradescope.results(None, {"11.2": why}, config.load(ROOT), sections.load(ROOT), 1.0, why)
        check_format(self, data)
        self.assertEqual(data["tests"][1]["output"], why)
        self.assertEqual(data["output"], why)


class Submitted(unittest.TestCase):
    """What gradescope.submitted() makes of /autograder/submission (no build needed)."""

    def submission(self, files):
        ag = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, ag)
        for rel in files:
            path = os.path.join(ag, "submission", rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            open(path, "w").close()  # the names are what is checked here
        found, graded, missing, note = gradescope.submitted(ag, ROOT, sections.load(ROOT))
        return [s.id for s in graded], missing, note

    def test_flat_upload(self):
        # Gradescope's drag-and-drop upload: the exercise files at the top, no folders.
        graded, missing, note = self.submission(["kogge_stone.cuh", "warp_scan.cuh", "sequential_scan.cuh",
                                                 "brent_kung.cuh", "notes.md"])
        self.assertEqual(graded, ["11.1", "11.2", "11.4"])
        self.assertIn("missing folder submission/11_3_work_efficiency", missing["11.3"])
        self.assertIn("not graded: notes.md", note)
        # A file of a section missing: that section only.
        graded, missing, _ = self.submission(["kogge_stone.cuh", "sequential_scan.cuh"])
        self.assertEqual(graded, ["11.1"])
        self.assertIn("missing file submission/11_2_kogge_stone/warp_scan.cuh", missing["11.2"])

    def test_os_junk_costs_nothing(self):
        junk = [".DS_Store", "exercises/11_2_kogge_stone/.DS_Store", "exercises/11_2_kogge_stone/Thumbs.db",
                "exercises/11_2_kogge_stone/desktop.ini", "exercises/11_2_kogge_stone/._kogge_stone.cuh",
                "__MACOSX/exercises/11_2_kogge_stone/._warp_scan.cuh"]
        graded, missing, note = self.submission(["exercises/11_2_kogge_stone/kogge_stone.cuh",
                                                 "exercises/11_2_kogge_stone/warp_scan.cuh"] + junk)
        self.assertEqual((graded, note), (["11.2"], ""))
        self.assertNotIn("11.2", missing)

    def test_nothing_there(self):
        graded, missing, note = self.submission(["README.txt"])
        self.assertEqual((graded, note), ([], ""))
        self.assertIn("no section folder in the submission", missing["11.1"])


class GradedSections(unittest.TestCase):
    """gradescope_sections.txt: an autograder for some sections (one Gradescope assignment each)."""
    def root(self, text):
        root = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, root)
        os.makedirs(os.path.join(root, "chapters"))
        shutil.copy(os.path.join(ROOT, "chapters", "sections.txt"), os.path.join(root, "chapters"))
        if text is not None:
            with open(os.path.join(root, gradescope.SECTIONS_FILE), "w") as f:
                f.write(text)
        return root

    def test_the_file_names_them(self):
        self.assertEqual(len(gradescope.graded_sections(self.root(None))), len(sections.load(ROOT)))
        chosen = gradescope.graded_sections(self.root("# the Kogge-Stone assignment\n11.2 11_4\n"))
        self.assertEqual([s.id for s in chosen], ["11.2", "11.4"])
        for bad in ("# nothing\n", "11.2 11.99\n"):
            with self.assertRaises(LabError) as e:
                gradescope.graded_sections(self.root(bad))
            self.assertIn(gradescope.SECTIONS_FILE, str(e.exception))
            self.assertEqual(e.exception.status, 2)


class ContainerCpus(unittest.TestCase):
    def test_the_quota(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        path = os.path.join(tmp, "cpu.max")
        for text, want in (("50000 100000\n", 1), ("150000 100000\n", 2), ("200000 100000\n", 2)):
            with open(path, "w") as f:
                f.write(text)
            self.assertEqual(gradescope.container_cpus(path), want, text)
        with open(path, "w") as f:
            f.write("max 100000\n")
        self.assertEqual(gradescope.container_cpus(path), len(os.sched_getaffinity(0)))
        self.assertEqual(gradescope.container_cpus(os.path.join(tmp, "none")), len(os.sched_getaffinity(0)))


class RunAutograder(unittest.TestCase):
    def autograder(self, submission_files, graded=None):
        """Runs run_autograder on a fake /autograder tree; `graded`: its gradescope_sections.txt (the
        source is then a folder of links to the lab's files, with that file beside them)."""
        ag = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, ag)
        if graded is None:
            os.symlink(ROOT, os.path.join(ag, "source"))
        else:
            os.makedirs(os.path.join(ag, "source"))
            for name in os.listdir(ROOT):
                if name not in ("build", ".git"):
                    os.symlink(os.path.join(ROOT, name), os.path.join(ag, "source", name))
            with open(os.path.join(ag, "source", gradescope.SECTIONS_FILE), "w") as f:
                f.write(graded)
        for rel, text in submission_files.items():
            path = os.path.join(ag, "submission", rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        os.makedirs(os.path.join(ag, "submission"), exist_ok=True)
        p = subprocess.run([os.path.join(ROOT, "tools", "gradescope", "run_autograder")],
                           env=dict(os.environ, SCANLAB_AUTOGRADER_DIR=ag), stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True)
        self.assertEqual(p.returncode, 0, p.stdout[-3000:])
        with open(os.path.join(ag, "results", "results.json")) as f:
            data = json.load(f)
        check_format(self, data)
        return data

    def test_empty_submission(self):
        data = self.autograder({"README.txt": "nothing here\n"})
        self.assertEqual(data["score"], 0)
        self.assertIn("no section folder in the submission", data["tests"][0]["output"])
        self.assertEqual(len(data["tests"]), len(sections.load(ROOT)))

    def test_some_sections(self):
        data = self.autograder({"README.txt": "nothing here\n"}, graded="11.2\n")
        self.assertEqual([t["name"] for t in data["tests"]], ["Section 11.2: Kogge-Stone parallel scan"])
        self.assertEqual(data["tests"][0]["max_score"], 10)

    @unittest.skipUnless(os.environ.get("LAB_GRADESCOPE_BUILD") == "1", "builds the grade tree (minutes): LAB_GRADESCOPE_BUILD=1")
    def test_graded_submission(self):
        with open(os.path.join(ROOT, "solutions", "11_1_sequential", "sequential_scan.cuh")) as f:
            solution = f.read()
        data = self.autograder({"exercises/11_1_sequential/sequential_scan.cuh": solution})
        by_name = {t["name"].split(":")[0]: t for t in data["tests"]}
        self.assertEqual((by_name["Section 11.1"]["score"], by_name["Section 11.1"]["status"]), (10, "passed"))
        self.assertEqual(by_name["Section 11.2"]["score"], 0)
        self.assertIn("missing folder", by_name["Section 11.2"]["output"])

    @unittest.skipUnless(os.environ.get("LAB_GRADESCOPE_BUILD") == "1", "builds the grade tree (minutes): LAB_GRADESCOPE_BUILD=1")
    def test_forged_submission(self):
        # The stub, whose kernels try to replace the checker program beside them with a script that
        # passes: they run as nobody (in the sandbox where it can be made), so the checker stays.
        from scanlab_lab.tests import class_submissions as cs
        with open(os.path.join(ROOT, "exercises", "11_1_sequential", "sequential_scan.cuh")) as f:
            stub = f.read()
        forged = stub.replace("#include <cstddef>\n", "#include <cstddef>\n" + cs.HEADERS, 1)
        forged += cs.FORGERY.replace("@CODE@", cs.FORGERIES["replace_checker"])
        data = self.autograder({"exercises/11_1_sequential/sequential_scan.cuh": forged})
        by_name = {t["name"].split(":")[0]: t for t in data["tests"]}
        self.assertEqual(by_name["Section 11.1"]["score"], 0)
        with open(os.path.join(ROOT, "build", "grade", "bin", "test_11_1_exercise_cpu"), "rb") as f:
            self.assertEqual(f.read(4), b"\x7fELF")


if __name__ == "__main__":
    unittest.main()
