"""class_grade.py without a build: the arguments, the submissions a class folder holds, archives
unpacked safely, and where in a submission its section folders are. (The whole class, built and graded
in the sandbox, is the end-to-end check in tools/README.md.)"""
import csv
import io
import os
import shutil
import signal
import subprocess
import tarfile
import tempfile
import time
import unittest
import unittest.mock
import zipfile

from scanlab_lab import LabError, class_grade, exercises, sections
from scanlab_lab.tests.util import ROOT


class Arguments(unittest.TestCase):
    def test_parsed(self):
        self.assertEqual(class_grade.arguments(["--class", "subs", "--jobs", "3", "11.1", "--timeout=60"]),
                         (["11.1"], "subs", 3, 60, True, False, 300, "scanlab"))
        self.assertEqual(class_grade.arguments(["--class=subs", "--assignment", "Scan lab (123)"])[7], "Scan lab (123)")
        self.assertEqual(class_grade.arguments(["--class=subs", "--section-timeout", "45"])[6], 45)
        self.assertEqual(class_grade.arguments(["--class=subs", "--no-sandbox"])[4], False)
        self.assertEqual(class_grade.arguments(["--class=subs", "--resume"])[5], True)

    def test_bad(self):
        for args, says in ((["--jobs", "2"], "needs a folder"), (["--class", "d", "--jobs", "0"], ">= 1"),
                           (["--class"], "--class needs a value"), (["--class", "d", "--fast"], "unknown option"),
                           (["--class", "d", "--assignment", "a\nb"], "one line")):
            with self.assertRaises(LabError) as e:
                class_grade.arguments(args)
            self.assertIn(says, str(e.exception))
            self.assertEqual(e.exception.status, 2)


class Interrupted(unittest.TestCase):
    """A run stopped half-way (kill, Ctrl-C) says so, leaves no old gradebook looking current, and
    --resume grades only who is left. The grading itself is a stand-in (no build)."""

    def setUp(self):
        self.d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.d)
        self.cls = os.path.join(self.d, "cls")
        for name in ("alice", "bob", "carol"):
            os.makedirs(os.path.join(self.cls, name, "11_1_sequential"))
        self.graded = []

    def grading(self, resume, stop_at=None):
        s11_1 = sections.resolve(sections.load(ROOT), ["11.1"])
        g = class_grade.ClassGrading(ROOT, s11_1, self.cls, 1, 60, False, resume)
        g.base = os.path.join(self.d, "class")
        test = self

        def grade_student(name, path, slot):
            test.graded.append(name)
            if name == stop_at:
                os.kill(os.getpid(), signal.SIGTERM)  # as `kill` would: the run stops after this one
                deadline = time.time() + 10  # until the main thread has taken the signal (a fixed wait was too short under load)
                while not g.stopping and time.time() < deadline:
                    time.sleep(0.01)
            row = {"student": name, "sections": {"11.1": 10.0}, "warnings": 0}
            os.makedirs(os.path.join(g.base, "students", name), exist_ok=True)
            status = "interrupted" if g.stopping else "graded"  # as a grader killed half-way
            return g.finish(row, os.path.join(g.base, "students", name), time.time(), status, "")

        g.grade_student = grade_student
        with unittest.mock.patch.object(class_grade.Slot, "configure_and_build", lambda *a: None), \
                unittest.mock.patch("sys.stdout", io.StringIO()), unittest.mock.patch("sys.stderr", io.StringIO()) as err:
            rc = g.run()
        with open(os.path.join(g.base, "gradebook.csv")) as f:
            rows = {r["student"]: r["status"] for r in csv.DictReader(f)}
        with open(os.path.join(g.base, class_grade.NOTES)) as f:  # the notes are of the same students
            self.assertEqual({r["student"]: r["status"] for r in csv.DictReader(f)}, rows)
        return rc, rows, err.getvalue()

    def test_interrupted_then_resumed(self):
        os.makedirs(os.path.join(self.d, "class"))
        with open(os.path.join(self.d, "class", "gradebook.csv"), "w") as f:
            f.write("student,11.1,total,max,status\nold,10,10,10,graded\n")
        with open(os.path.join(self.d, "class", class_grade.NOTES), "w") as f:
            f.write("student,name,status,warnings,notes\nold,,graded,0,\n")
        rc, rows, err = self.grading(False, stop_at="bob")
        self.assertEqual(rc, 130)
        self.assertEqual(rows, {"alice": "graded", "bob": "interrupted", "carol": "interrupted"})  # no "old"
        self.assertIn("interrupted: 1 of 3 students graded", err)
        self.assertIn("--resume", err)
        self.graded = []
        rc, rows, _ = self.grading(True)
        self.assertEqual((rc, self.graded), (0, ["bob", "carol"]))
        self.assertEqual(rows, {"alice": "graded", "bob": "graded", "carol": "graded"})

    def test_resume_needs_the_same_run(self):
        with self.assertRaises(LabError) as e:
            self.grading(True)
        self.assertIn("no interrupted class run to resume", str(e.exception))


class Submissions(unittest.TestCase):
    def setUp(self):
        self.d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.d)

    def path(self, *p):
        return os.path.join(self.d, *p)

    def test_found_and_named(self):
        os.makedirs(self.path("cls", "alice"))
        os.makedirs(self.path("cls", ".hidden"))
        open(self.path("cls", "bob.zip"), "w").close()
        open(self.path("cls", "carol smith.tar.gz"), "w").close()
        open(self.path("cls", "notes.txt"), "w").close()
        self.assertEqual([n for n, _ in class_grade.find_submissions(self.path("cls"))],
                         ["alice", "bob", "carol_smith"])

    def test_same_student_twice(self):
        os.makedirs(self.path("cls", "alice"))
        open(self.path("cls", "alice.zip"), "w").close()
        with self.assertRaises(LabError):
            class_grade.find_submissions(self.path("cls"))

    def test_unpacked_and_located(self):
        with zipfile.ZipFile(self.path("a.zip"), "w") as z:
            z.writestr("wrap/exercises/11_1_sequential/sequential_scan.cuh", "x")
            z.writestr("__MACOSX/._junk", "x")
        class_grade.unpack(self.path("a.zip"), self.path("a"))
        self.assertEqual(class_grade.exercises_root(self.path("a"), ["11_1_sequential"]),
                         self.path("a", "wrap", "exercises"))
        with tarfile.open(self.path("b.tar.gz"), "w:gz") as t:
            data = b"x"
            info = tarfile.TarInfo("11_1_sequential/sequential_scan.cuh")
            info.size = len(data)
            t.addfile(info, io.BytesIO(data))
        class_grade.unpack(self.path("b.tar.gz"), self.path("b"))
        self.assertEqual(class_grade.exercises_root(self.path("b"), ["11_1_sequential"]), self.path("b"))
        self.assertIsNone(class_grade.exercises_root(self.path("b"), ["11_2_kogge_stone"]))

    def test_os_junk_in_an_archive_costs_nothing(self):
        # As macOS's "Compress" makes it: __MACOSX/ beside the wrapping folder, .DS_Store and ._ files inside.
        stubs = os.path.join(ROOT, "exercises")
        with zipfile.ZipFile(self.path("mac.zip"), "w") as z:
            for f in ("kogge_stone.cuh", "warp_scan.cuh"):
                with open(os.path.join(stubs, "11_2_kogge_stone", f)) as src:
                    z.writestr(f"scan-lab/11_2_kogge_stone/{f}", src.read())
                z.writestr(f"__MACOSX/scan-lab/11_2_kogge_stone/._{f}", "\0\5\26\7")
            z.writestr("scan-lab/.DS_Store", "x")
            z.writestr("scan-lab/11_2_kogge_stone/.DS_Store", "x")
            z.writestr("scan-lab/11_2_kogge_stone/Thumbs.db", "x")
            z.writestr("scan-lab/11_2_kogge_stone/desktop.ini", "x")
        class_grade.unpack(self.path("mac.zip"), self.path("mac"))
        found = class_grade.exercises_root(self.path("mac"), ["11_2_kogge_stone"])
        self.assertEqual(found, self.path("mac", "scan-lab"))
        self.assertEqual(exercises.check(found, "mac", stubs, ["11_2_kogge_stone"]), [])  # what --class checks

    def test_flat_upload_sorted_by_file_name(self):
        stubs = os.path.join(ROOT, "exercises")
        flat = self.path("carol", "wrap")
        os.makedirs(flat)
        for f in ("kogge_stone.cuh", "warp_scan.cuh", "notes.txt", ".DS_Store"):
            open(os.path.join(flat, f), "w").close()
        os.makedirs(self.path("carol", "__MACOSX"))
        found, note = class_grade.sections_root(self.path("carol"), ["11_2_kogge_stone"], stubs, self.path("sorted"))
        self.assertEqual(found, self.path("sorted"))
        self.assertEqual(os.listdir(self.path("sorted")), ["11_2_kogge_stone"])
        self.assertIn("sorted into section folders", note)
        self.assertIn("not graded: notes.txt", note)
        self.assertNotIn("DS_Store", note)
        # Section folders win: a submission with them is not sorted.
        os.makedirs(self.path("dave", "11_2_kogge_stone"))
        open(self.path("dave", "kogge_stone.cuh"), "w").close()
        self.assertEqual(class_grade.sections_root(self.path("dave"), ["11_2_kogge_stone"], stubs, self.path("s2")),
                         (self.path("dave"), ""))
        # Neither: nothing found.
        os.makedirs(self.path("erin"))
        open(self.path("erin", "main.cpp"), "w").close()
        self.assertEqual(class_grade.sections_root(self.path("erin"), ["11_2_kogge_stone"], stubs, self.path("s3")),
                         (None, ""))

    def test_hostile_archives_refused(self):
        with zipfile.ZipFile(self.path("up.zip"), "w") as z:
            z.writestr("../../escaped.txt", "x")
        with self.assertRaisesRegex(ValueError, "outside itself"):
            class_grade.unpack(self.path("up.zip"), self.path("up"))
        self.assertFalse(os.path.exists(os.path.join(os.path.dirname(self.d), "escaped.txt")))
        with tarfile.open(self.path("link.tar.gz"), "w:gz") as t:
            info = tarfile.TarInfo("11_1_sequential/sequential_scan.cuh")
            info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
            t.addfile(info)
        with self.assertRaisesRegex(ValueError, "a link"):
            class_grade.unpack(self.path("link.tar.gz"), self.path("link"))
        with zipfile.ZipFile(self.path("bomb.zip"), "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr("big.bin", b"\0" * (class_grade.MAX_UNPACKED + 1))
        with self.assertRaisesRegex(ValueError, "more than"):
            class_grade.unpack(self.path("bomb.zip"), self.path("bomb"))


def built_flags(build_dir):
    """cmake -C lines that give a class slot the build type and C++ flags of build_dir (its CMakeCache),
    so that the slot's build of the lab's own code (the emulator, the harness, the checker) compiles
    exactly as build_dir's did and finds its objects in ccache."""
    cache = {}
    with open(os.path.join(build_dir, "CMakeCache.txt"), encoding="utf-8") as f:
        for line in f:
            key, _, value = line.rstrip("\n").partition("=")
            cache[key.split(":")[0]] = value
    kind = cache.get("CMAKE_BUILD_TYPE", "")
    keys = ["CMAKE_BUILD_TYPE", "CMAKE_CXX_FLAGS"] + ([f"CMAKE_CXX_FLAGS_{kind.upper()}"] if kind else [])
    return "".join(f'set({k} "{cache.get(k, "")}" CACHE STRING "")\n' for k in keys)


BUILD_DIR = os.environ.get("LAB_TEST_BUILD_DIR", "")  # the build tree ctest runs this from (CMakeLists.txt)


@unittest.skipUnless(os.path.isfile(os.path.join(BUILD_DIR, "CMakeCache.txt")) or os.environ.get("LAB_CLASS_E2E") == "1",
                     "grades a class for real: run by ctest (./lab test), whose build's objects it reuses, "
                     "or with LAB_CLASS_E2E=1 (it builds 11.1's grading: about 140 s of CPU)")
class EndToEnd(unittest.TestCase):
    """A small class graded for real, as an instructor gets it: Moodle's "Download all submissions" .zip
    itself, 11.1 on the cpu backend, sandboxed where bubblewrap can be. Three students, three shapes of
    upload: Alice's solution as a loose file (sorted by its name), Bob's partly right kernel in a .zip of
    his own (a wrapping folder, exercises/, macOS junk: it costs nothing), Carol's untouched stub beside
    her online text. The gradebook, notes.csv and moodle.csv's worksheet must give each the points their
    kernel deserves (10, the four-ways test's 4.0, 0).

    What it costs: the slot's build of the lab's own code (the emulator, harness and checker: most of the
    141 s of CPU this test took when it built them itself) is, under ctest, compiled as the build ctest
    runs from (LAB_TEST_BUILD_DIR, built moments before) compiled it, so ccache gives it back: the same
    flags (built_flags), the same sources (the class is graded in the repository itself, under
    build/class-e2e, not build/grade/class), and the slot a sibling of that build (ccache's base_dir
    makes paths relative to the build folder: they must be as deep). What compiles: the slot's stub
    kernel and checker, and the two students' own kernels (Carol's stub is unchanged: nothing to
    compile), in the sandbox as for any class."""

    def test_a_moodle_class(self):
        from scanlab_lab import sandbox
        from scanlab_lab.tests import test_four_ways, test_roster
        base = os.path.join(ROOT, "build", "class-e2e")
        shutil.rmtree(base, ignore_errors=True)
        os.makedirs(base)
        self.addCleanup(shutil.rmtree, base, True)
        os.chmod(base, 0o755)  # the sandbox's user reads the slot's way in
        folder, name = test_four_ways.FOLDER, test_four_ways.FILE
        with open(os.path.join(ROOT, "solutions", folder, name), encoding="utf-8") as f:
            solution = f.read()
        with open(os.path.join(ROOT, "exercises", folder, name), encoding="utf-8") as f:
            stub = f.read()
        bob = io.BytesIO()
        with zipfile.ZipFile(bob, "w") as z:
            z.writestr(f"scan-lab/exercises/{folder}/{name}", solution.replace(test_four_ways.BREAK, ""))
            z.writestr(f"scan-lab/exercises/{folder}/.DS_Store", "x")
            z.writestr(f"__MACOSX/scan-lab/exercises/{folder}/._{name}", "\0\5\26\7")
        download = os.path.join(base, "moodle.zip")
        with zipfile.ZipFile(download, "w") as z:
            z.writestr(f"Alice Smith_1234_assignsubmission_file/{name}", solution)
            z.writestr("Bob Jones_1235_assignsubmission_file/scan-lab.zip", bob.getvalue())
            z.writestr(f"Carol Wu_1236_assignsubmission_file/exercises/{folder}/{name}", stub)
            z.writestr("Carol Wu_1236_assignsubmission_onlinetext/onlinetext.html", "<p>done?</p>")
        env, slots = {"CCACHE_NOHASHDIR": "1"}, None  # a build with -g: its objects serve the slot's folder too
        if os.path.isfile(os.path.join(BUILD_DIR, "CMakeCache.txt")):
            flags = os.path.join(base, "flags.cmake")
            with open(flags, "w", encoding="utf-8") as f:
                f.write(built_flags(BUILD_DIR))
            env["LAB_CMAKE_ARGS"] = (os.environ.get("LAB_CMAKE_ARGS", "") + f" -C {flags}").strip()
            slots = os.path.join(os.path.dirname(os.path.abspath(BUILD_DIR)), "class-e2e-slot-{k}")
            self.addCleanup(shutil.rmtree, slots.format(k=0), True)
        s11_1 = sections.resolve(sections.load(ROOT), ["11.1"])
        g = class_grade.ClassGrading(ROOT, s11_1, download, 1, 900, sandbox.available() is None, base=base,
                                     slots=slots)
        with unittest.mock.patch.dict(os.environ, env), unittest.mock.patch("sys.stdout", io.StringIO()) as out, \
                unittest.mock.patch("sys.stderr", io.StringIO()) as err:
            rc = g.run()
        said = out.getvalue() + err.getvalue()
        self.assertEqual(rc, 0, said[-3000:])
        print("".join(line for line in said.splitlines(True) if "slots ready" in line or "gradebook:" in line))
        self.assertIn("a Moodle download: 3 students", said)
        with open(os.path.join(base, "gradebook.csv"), newline="") as f:
            rows = {r["student"]: r for r in csv.DictReader(f)}
        self.assertEqual({s: (r["name"], float(r["11.1"]), float(r["total"]), r["status"]) for s, r in rows.items()},
                         {"Alice_Smith_1234": ("Alice Smith", 10.0, 10.0, "graded"),
                          "Bob_Jones_1235": ("Bob Jones", 4.0, 4.0, "graded"),
                          "Carol_Wu_1236": ("Carol Wu", 0.0, 0.0, "graded")}, said[-3000:])
        # The feedback text is in notes.csv, beside the gradebook (which holds the numbers only).
        self.assertNotIn("message", next(iter(rows.values())))
        with open(os.path.join(base, class_grade.NOTES), newline="") as f:
            notes = {r["student"]: r for r in csv.DictReader(f)}
        self.assertEqual(set(notes), set(rows))
        self.assertIn("sorted into section folders", notes["Alice_Smith_1234"]["notes"])
        self.assertIn("11.1: ", notes["Bob_Jones_1235"]["notes"])  # his first explained failure
        self.assertIn("not started: 11.1", notes["Carol_Wu_1236"]["notes"])
        sheet = test_roster.moodle_worksheet(os.path.join(base, "moodle.csv"))
        self.assertEqual([(i, g) for i, g, _, _ in sheet], [("1234", 10.0), ("1235", 4.0), ("1236", 0.0)])


if __name__ == "__main__":
    unittest.main()


class Clip(unittest.TestCase):
    def test_a_flood_keeps_its_start_and_end(self):
        from scanlab_lab import grade
        text = "first line\n" + "x" * 1000000 + "\n[lab] the test printed more than 1048576 bytes"
        short = grade.clip(text)
        self.assertLess(len(short), 7000)
        self.assertTrue(short.startswith("first line"))
        self.assertTrue(short.endswith("more than 1048576 bytes"))
        self.assertIn("characters left out", short)
        self.assertEqual(grade.clip("short"), "short")
