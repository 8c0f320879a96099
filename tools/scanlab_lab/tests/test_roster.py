"""roster.py: who each submission of a class export is (Gradescope, GitHub Classroom, Moodle, Canvas
layouts, made here as the platforms write them), and the gradebooks to import."""
import csv
import os
import shutil
import tempfile
import unittest

from scanlab_lab import class_grade, roster

GRADESCOPE_METADATA = """---
submission_1001:
  :submitters:
  - :name: Alice Smith
    :sid: '20240001'
    :email: alice@uni.edu
  :created_at: 2026-11-20 10:00:00.000000000 -08:00
  :score: 0.0
submission_1002:
  :submitters:
  - :name: Bob Jones
    :sid: "20240002"
    :email: bob@uni.edu
  - :name: Carol Wu
    :sid: '20240003'
    :email: carol@uni.edu
  :created_at: 2026-11-21 11:00:00.000000000 -08:00
"""


class Layouts(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.d)
        self.cls = os.path.join(self.d, "cls")
        os.makedirs(self.cls)

    def folders(self, *names):
        for n in names:
            os.makedirs(os.path.join(self.cls, n, "11_1_sequential"))
        return [n for n, _ in class_grade.find_submissions(self.cls)]

    def test_gradescope_export(self):
        names = self.folders("submission_1001", "submission_1002")
        with open(os.path.join(self.cls, "submission_metadata.yml"), "w") as f:
            f.write(GRADESCOPE_METADATA)
        people = roster.identity(names, self.cls)
        self.assertEqual(people["submission_1001"], {"name": "Alice Smith", "sid": "20240001", "email": "alice@uni.edu",
                                                     "login": "", "user_id": "", "source": "gradescope"})
        self.assertEqual(people["submission_1002"]["name"], "Bob Jones; Carol Wu")  # a group
        self.assertEqual(people["submission_1002"]["sid"], "20240002; 20240003")

    def test_classroom_clones(self):
        names = self.folders("scan-lab-alice-s", "scan-lab-bob99", "scan-lab-carol")
        people = roster.identity(names, self.cls)
        self.assertEqual([people[n]["login"] for n in names], ["alice-s", "bob99", "carol"])
        self.assertTrue(all(people[n]["source"] == "classroom" for n in names))

    def test_moodle_download(self):
        names = self.folders("Alice Smith_1234_assignsubmission_file_", "Bob Jones_1235_assignsubmission_file_")
        people = roster.identity(names, self.cls)
        self.assertEqual([(people[n]["name"], people[n]["user_id"]) for n in names],
                         [("Alice Smith", "1234"), ("Bob Jones", "1235")])

    def test_plain_folders_say_nothing(self):
        names = self.folders("alice", "bob")
        self.assertEqual(roster.identity(names, self.cls)["alice"]["source"], "")

    def test_canvas_download_grouped_per_student(self):
        # Canvas: <login>[_LATE]_<user id>_<submission id>_<file>; a resubmitted file gains "-1".
        for name, text in (("smithalice_11_501_sequential_scan.cuh", "old"),
                           ("smithalice_11_502_sequential_scan-1.cuh", "new"),
                           ("jonesbob_LATE_12_503_sequential_scan.cuh", "bob")):
            with open(os.path.join(self.cls, name), "w") as f:
                f.write(text)
        self.assertEqual(sorted(roster.canvas_files(self.cls)), ["jonesbob_12", "smithalice_11"])
        dst = os.path.join(self.d, "grouped")
        people = roster.group_canvas(self.cls, dst)
        with open(os.path.join(dst, "smithalice_11", "sequential_scan.cuh")) as f:
            self.assertEqual(f.read(), "new")  # the newest submission of the file
        self.assertEqual(os.listdir(os.path.join(dst, "jonesbob_12")), ["sequential_scan.cuh"])
        self.assertEqual((people["smithalice_11"]["login"], people["smithalice_11"]["user_id"]), ("smithalice", "11"))
        # A folder beside them, or a file named otherwise: not a Canvas download.
        open(os.path.join(self.cls, "notes.txt"), "w").close()
        self.assertEqual(roster.canvas_files(self.cls), {})

    def test_exports(self):
        people = {"submission_1001": {"name": "Alice Smith", "sid": "20240001", "email": "alice@uni.edu",
                                      "login": "", "user_id": "", "source": "gradescope"},
                  "smithbob_12": {"name": "", "sid": "", "email": "", "login": "smithbob", "user_id": "12",
                                  "source": "canvas"}}
        rows = [{"student": "submission_1001", "total": 17.5}, {"student": "smithbob_12", "total": 9.0},
                {"student": "carol", "total": 0}]
        canvas, moodle = roster.write_exports(self.d, rows, people)
        with open(canvas, newline="") as f:
            got = list(csv.reader(f))
        self.assertEqual(got[0], ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "scanlab"])
        self.assertEqual(got[1:], [["Alice Smith", "", "20240001", "", "", "17.5"],
                                   ["smithbob_12", "12", "", "smithbob", "", "9.0"],
                                   ["carol", "", "", "", "", "0"]])
        with open(moodle, newline="") as f:
            got = list(csv.reader(f))
        self.assertEqual(got[0], ["Email address", "ID number", "Full name", "scanlab"])
        self.assertEqual(got[1], ["alice@uni.edu", "20240001", "Alice Smith", "17.5"])


if __name__ == "__main__":
    unittest.main()
