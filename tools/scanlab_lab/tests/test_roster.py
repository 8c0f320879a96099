"""roster.py: who each submission of a class export is (Gradescope, GitHub Classroom, Moodle, Canvas
layouts, made here as the platforms write them), and the gradebooks to import."""
import csv
import os
import re
import shutil
import tempfile
import time
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

    def test_plain_folders_say_nothing(self):
        names = self.folders("alice", "bob")
        self.assertEqual(roster.identity(names, self.cls)["alice"]["source"], "")

    def files(self, *names, text=None):
        """Files in the class folder: names (each holding "x") or text, {name: contents}."""
        for n, t in list(dict.fromkeys(names, "x").items()) + list((text or {}).items()):
            with open(os.path.join(self.cls, n), "w") as f:
                f.write(t)

    def grouped(self):
        dst = os.path.join(self.d, "grouped")
        got = roster.group(self.cls, dst)
        return got, {k: sorted(os.listdir(os.path.join(dst, k))) for k in sorted(os.listdir(dst))} if got else {}

    def test_canvas_download(self):
        # As canvas-lms lib/content_zipper.rb names them: the sortable name lower-cased without
        # non-word characters ("Smith, Alice" -> smithalice; "García, María" keeps its letters),
        # _LATE, the user ID, the attachment ID; anonymous grading; a text entry; a file uploaded
        # again under the same name (Canvas renamed it "-1"); OS junk beside them.
        self.files(text={"smithalice_11_501_sequential_scan.cuh": "old", "smithalice_11_502_sequential_scan-1.cuh": "new",
                         "jonesbob_LATE_12_503_sequential_scan.cuh": "bob", "garcíamaría_13_504_sequential_scan.cuh": "m",
                         "garcíamaría_13_text.html": "<p>see the file</p>", "anon_Xb3Kq_505_sequential_scan.cuh": "a",
                         "LATE_anon_7Yz2W_506_sequential_scan.cuh": "a2", ".DS_Store": "", "Thumbs.db": ""})
        (layout, people), folders = self.grouped()
        self.assertEqual(layout, "a Canvas download")
        self.assertEqual(folders, {"anon_7Yz2W": ["sequential_scan.cuh"], "anon_Xb3Kq": ["sequential_scan.cuh"],
                                   "garc_amar_a_13": ["sequential_scan.cuh"], "jonesbob_12": ["sequential_scan.cuh"],
                                   "smithalice_11": ["sequential_scan.cuh"]})  # the text entry: nothing to grade
        with open(os.path.join(self.d, "grouped", "smithalice_11", "sequential_scan.cuh")) as f:
            self.assertEqual(f.read(), "new")  # the last upload of the file
        self.assertEqual({k: (p["name"], p["user_id"], p["source"]) for k, p in people.items()},
                         {"smithalice_11": ("smithalice", "11", "canvas"), "jonesbob_12": ("jonesbob", "12", "canvas"),
                          "garc_amar_a_13": ("garcíamaría", "13", "canvas"), "anon_Xb3Kq": ("anon_Xb3Kq", "", "canvas"),
                          "anon_7Yz2W": ("anon_7Yz2W", "", "canvas")})
        # A folder beside them, or a file named otherwise: not a Canvas download.
        os.makedirs(os.path.join(self.cls, "extra"))
        self.assertIsNone(roster.group(self.cls, os.path.join(self.d, "g2")))
        os.rmdir(os.path.join(self.cls, "extra"))
        self.files("notes.txt")
        self.assertIsNone(roster.group(self.cls, os.path.join(self.d, "g2")))

    def test_moodle_download_in_folders(self):
        # mod/assign/classes/downloader.php: a folder per student and plugin (Moodle >= 4.1 without the
        # trailing "_" of 3.x); the online text plugin's folder beside the file plugin's; blind marking.
        for folder, files in (("Alice Smith_1234_assignsubmission_file", ["sequential_scan.cuh"]),
                              ("Alice Smith_1234_assignsubmission_onlinetext", ["onlinetext.html"]),
                              ("Bob Jones_1235_assignsubmission_file_", ["work.zip"]),
                              ("Participant_1236_assignsubmission_file", ["exercises/11_1_sequential/sequential_scan.cuh"])):
            for f in files:
                os.makedirs(os.path.dirname(os.path.join(self.cls, folder, f)), exist_ok=True)
                open(os.path.join(self.cls, folder, f), "w").close()
        (layout, people), folders = self.grouped()
        self.assertEqual(layout, "a Moodle download")
        self.assertEqual(folders, {"Alice_Smith_1234": ["sequential_scan.cuh"], "Bob_Jones_1235": ["work.zip"],
                                   "Participant_1236": ["exercises"]})
        self.assertEqual({k: (p["name"], p["user_id"], p["source"]) for k, p in people.items()},
                         {"Alice_Smith_1234": ("Alice Smith", "1234", "moodle"), "Bob_Jones_1235": ("Bob Jones", "1235", "moodle"),
                          "Participant_1236": ("", "1236", "moodle")})

    def test_moodle_download_flat(self):
        # "Download submissions in folders" off: <Full Name>_<id>_assignsubmission_file_<file>.
        self.files("Alice Smith_1234_assignsubmission_file_sequential_scan.cuh",
                   "Alice Smith_1234_assignsubmission_onlinetext_onlinetext.html",
                   "Bob Jones_1235_assignsubmission_file_sequential_scan.cuh")
        (layout, people), folders = self.grouped()
        self.assertEqual(folders, {"Alice_Smith_1234": ["sequential_scan.cuh"], "Bob_Jones_1235": ["sequential_scan.cuh"]})

    def test_other_folders_are_no_download(self):
        self.folders("alice", "Bob Jones_1235_assignsubmission_file")
        self.assertIsNone(roster.group(self.cls, os.path.join(self.d, "g")))


def canvas_import(path):
    """What Canvas's gradebook import (canvas-lms app/models/gradebook_importer.rb) reads from a CSV:
    the header must start Student, ID, then SIS User ID and SIS Login ID, then Section; the columns after
    it are assignments ("Title (id)" or a title); a first cell holding "Points Possible" is that row.
    Returns ({title: points possible}, [(ID, SIS User ID, SIS Login ID, Student, {title: grade})])."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    head = rows[0]
    assert len(head) > 3 and "Student" in head[0] and "ID" in head[1], head
    assert re.search(r"SIS\s+User\s+ID", head[2]) and re.search(r"SIS\s+Login\s+ID", head[3]), head
    assert "Section" in head[4], head  # the last student column
    titles = head[5:]
    points, students = {}, []
    for r in rows[1:]:
        assert len(r) == len(head), r
        if "Points Possible" in r[0]:
            points = dict(zip(titles, r[5:]))
            continue
        students.append((r[1], r[2], r[3], r[0], dict(zip(titles, r[5:]))))
    return points, students


def moodle_worksheet(path):
    """What the Moodle assignment's grading worksheet import (assignfeedback_offline, importgradeslib.php)
    reads: the columns named Identifier, Grade and Last modified (grade) (all three or nothing is
    imported), Feedback comments; an Identifier is "Participant <id>". Returns [(id, grade, modified,
    feedback)] of the rows it would import."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    got = []
    for r in rows:
        for col in ("Identifier", "Grade", "Last modified (grade)"):
            assert col in r, col
        if r["Identifier"].startswith("Participant ") and r["Identifier"][len("Participant "):].isdigit():
            got.append((r["Identifier"][len("Participant "):], float(r["Grade"]),
                        time.strptime(r["Last modified (grade)"], "%Y-%m-%d %H:%M:%S"), r["Feedback comments"]))
    return got


class Exports(unittest.TestCase):
    def test_each_platform_reads_its_file(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        people = {"submission_1001": {"name": "Alice Smith", "sid": "20240001", "email": "alice@uni.edu",
                                      "login": "", "user_id": "", "source": "gradescope"},
                  "smithbob_12": {"name": "smithbob", "sid": "", "email": "", "login": "", "user_id": "12",
                                  "source": "canvas"},
                  "Carol_Wu_1236": {"name": "Carol Wu", "sid": "", "email": "", "login": "", "user_id": "1236",
                                    "source": "moodle"},
                  "scan-lab-dave": {"name": "", "sid": "", "email": "", "login": "dave", "user_id": "",
                                    "source": "classroom"}}
        rows = [{"student": s, "total": t, "max": 20.0, "status": "graded", "message": m}
                for s, t, m in (("submission_1001", 17.5, ""), ("smithbob_12", 9.0, "11.2: wrong value"),
                                ("Carol_Wu_1236", 20.0, ""), ("scan-lab-dave", 0, "not started: 11.1 11.2"))]
        notes = roster.write_exports(d, rows, people, "Scan lab (4711)")
        points, students = canvas_import(os.path.join(d, "canvas.csv"))
        self.assertEqual(points, {"Scan lab (4711)": "20.0"})
        self.assertEqual(students, [("", "20240001", "", "Alice Smith", {"Scan lab (4711)": "17.5"}),
                                    ("12", "", "", "smithbob", {"Scan lab (4711)": "9.0"}),  # Canvas's user ID
                                    ("", "", "", "Carol Wu", {"Scan lab (4711)": "20.0"}),
                                    ("", "", "", "scan-lab-dave", {"Scan lab (4711)": "0"})])
        sheet = moodle_worksheet(os.path.join(d, "moodle.csv"))
        self.assertEqual([(i, g, fb) for i, g, _, fb in sheet], [("1236", 20.0, "graded")])  # only Moodle's own id
        with open(os.path.join(d, "moodle.csv"), newline="") as f:
            by_email = {r["Email address"]: r["Grade"] for r in csv.DictReader(f) if r["Email address"]}
        self.assertEqual(by_email, {"alice@uni.edu": "17.5"})  # the gradebook import's email mapping
        # Who a file that matches some students cannot match is named, to fill in before importing.
        self.assertEqual(notes, ["canvas.csv: no ID for 2 student(s) (Carol_Wu_1236 scan-lab-dave): fill it in before importing",
                                 "moodle.csv: no ID for 2 student(s) (smithbob_12 scan-lab-dave): fill it in before importing"])
        # A file that matches no one (a Canvas class in moodle.csv) says nothing; neither matching anyone: one note.
        canvas_only = {k: v for k, v in people.items() if v["source"] == "canvas"}
        self.assertEqual(roster.write_exports(d, rows[1:2], canvas_only), [])
        self.assertEqual(roster.write_exports(d, rows[3:], {}),
                         ["canvas.csv, moodle.csv: no student has an ID a gradebook can match (the layout names none): "
                          "fill them in before importing"])


if __name__ == "__main__":
    unittest.main()
