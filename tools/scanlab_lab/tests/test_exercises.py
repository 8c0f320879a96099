import os
import shutil
import tempfile
import unittest

from scanlab_lab import LabError, exercises
from scanlab_lab.tests.util import ROOT, broken_kernel

STUBS = os.path.join(ROOT, "exercises")


class Exercises(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)

    def test_check(self):
        shutil.copytree(os.path.join(STUBS, "11_2_kogge_stone"), os.path.join(self.tmp, "11_2_kogge_stone"))
        self.assertEqual(exercises.check(self.tmp, "s", STUBS, ["11_2_kogge_stone"]), [])
        os.remove(os.path.join(self.tmp, "11_2_kogge_stone", "warp_scan.cuh"))
        open(os.path.join(self.tmp, "11_2_kogge_stone", "notes.txt"), "w").close()
        self.assertEqual(exercises.check(self.tmp, "s", STUBS, ["11_2_kogge_stone", "11_1_sequential"]), [
            "missing file s/11_2_kogge_stone/warp_scan.cuh",
            "extra file s/11_2_kogge_stone/notes.txt (only the files of exercises/11_2_kogge_stone/ belong there)",
            "missing folder s/11_1_sequential (section 11.1: sequential_scan.cuh)"])
        with self.assertRaises(LabError) as e:
            exercises.check(os.path.join(self.tmp, "nowhere"), "nowhere", STUBS, [])
        self.assertEqual((str(e.exception), e.exception.status), ("--exercises nowhere does not exist", 2))

    def add_junk(self, folder):
        """The files that macOS, Windows and their zip tools leave behind, in folder."""
        for name in (".DS_Store", "Thumbs.db", "desktop.ini", "._kogge_stone.cuh", "__MACOSX/._kogge_stone.cuh"):
            os.makedirs(os.path.dirname(os.path.join(folder, name)), exist_ok=True)
            with open(os.path.join(folder, name), "wb") as f:
                f.write(b"\0\5\26\7junk")

    def test_os_junk_is_no_extra_file(self):
        mine = os.path.join(self.tmp, "11_2_kogge_stone")
        shutil.copytree(os.path.join(STUBS, "11_2_kogge_stone"), mine)
        self.add_junk(mine)
        self.add_junk(self.tmp)
        self.assertEqual(exercises.files_under(mine), ["kogge_stone.cuh", "warp_scan.cuh"])
        self.assertEqual(exercises.check(self.tmp, "s", STUBS, ["11_2_kogge_stone"]), [])
        # ./lab grade --exercises checks the folder the same way (and copies it with sync_tree).
        from scanlab_lab.__main__ import prepare_grade
        chosen, student, _, _ = prepare_grade(ROOT, ["--exercises", self.tmp, "11.2"])
        self.assertEqual(([s.id for s in chosen], student), (["11.2"], os.path.realpath(self.tmp)))
        # The junk is not copied for the build, and junk already there goes (the build globs *.cuh).
        dst = os.path.join(self.tmp, "copy")
        os.makedirs(dst)
        self.add_junk(dst)
        exercises.sync_tree(mine, dst)
        self.assertEqual(sorted(os.listdir(dst)), ["__MACOSX", "kogge_stone.cuh", "warp_scan.cuh"])
        self.assertEqual(os.listdir(os.path.join(dst, "__MACOSX")), [])
        # Only those names: a student's own extra file is still one.
        open(os.path.join(mine, "notes.DS_Store.txt"), "w").close()
        self.assertEqual(len(exercises.check(self.tmp, "s", STUBS, ["11_2_kogge_stone"])), 1)

    def test_exercise_file_names_are_unique(self):
        # A flat upload is sorted into section folders by the files' names: each must name one section.
        names = exercises.by_file_name(STUBS)
        every = [f for d in os.listdir(STUBS) for f in exercises.files_under(os.path.join(STUBS, d))]
        self.assertEqual(sorted(names), sorted(every))
        self.assertEqual(names["warp_scan.cuh"], "11_2_kogge_stone")

    def test_sort_flat(self):
        flat = os.path.join(self.tmp, "flat")
        os.makedirs(flat)
        for name in ("kogge_stone.cuh", "warp_scan.cuh", "sequential_scan.cuh", "README.txt"):
            with open(os.path.join(flat, name), "w") as f:
                f.write(name)
        self.add_junk(flat)
        dst = os.path.join(self.tmp, "sorted")
        self.assertEqual(exercises.sort_flat(flat, STUBS, dst), ["README.txt"])
        self.assertEqual(exercises.files_under(dst), ["11_1_sequential/sequential_scan.cuh",
                                                      "11_2_kogge_stone/kogge_stone.cuh",
                                                      "11_2_kogge_stone/warp_scan.cuh"])
        self.assertEqual(exercises.check(dst, "s", STUBS, ["11_1_sequential", "11_2_kogge_stone"]), [])

    def test_sync_copies_only_what_differs(self):
        src, dst = os.path.join(self.tmp, "a"), os.path.join(self.tmp, "b")
        os.makedirs(src)
        for name, text in (("x.cuh", "x"), ("y.cuh", "y")):
            with open(os.path.join(src, name), "w") as f:
                f.write(text)
        exercises.sync_tree(src, dst)
        os.utime(os.path.join(dst, "x.cuh"), (1, 1))
        with open(os.path.join(dst, "old.cuh"), "w") as f:
            f.write("gone")
        with open(os.path.join(src, "y.cuh"), "w") as f:
            f.write("y2")
        exercises.sync_tree(src, dst)
        self.assertEqual(sorted(os.listdir(dst)), ["x.cuh", "y.cuh"])
        self.assertEqual(os.stat(os.path.join(dst, "x.cuh")).st_mtime, 1)  # unchanged: not copied again
        with open(os.path.join(dst, "y.cuh")) as f:
            self.assertEqual(f.read(), "y2")

    def test_untouched_stubs(self):
        stubs = exercises.stubs(ROOT, "11_1_sequential", in_place=False)
        self.assertEqual(list(stubs), ["sequential_scan.cuh"])
        stub = os.path.join(STUBS, "11_1_sequential")
        self.assertEqual(exercises.untouched(stub, stubs), ["sequential_scan.cuh"])
        self.assertEqual(exercises.untouched(os.path.join(ROOT, "solutions", "11_1_sequential"), stubs), [])
        self.assertEqual(exercises.untouched(broken_kernel(self.tmp), stubs), [])
        # Re-indented, or edited outside the blocks: still not started.
        mine = os.path.join(self.tmp, "11_1_sequential")
        os.makedirs(mine)
        text = stubs["sequential_scan.cuh"]
        with open(os.path.join(mine, "sequential_scan.cuh"), "w") as f:
            f.write("// my notes\n" + text.replace("  // (your code here)", "      // (your code here)"))
        self.assertEqual(exercises.untouched(mine, stubs), ["sequential_scan.cuh"])

    def test_in_place_the_stubs_come_from_git(self):
        # exercises/ may hold the student's work: the reference is the committed stub.
        stubs = exercises.stubs(ROOT, "11_2_kogge_stone", in_place=True)
        self.assertEqual(sorted(stubs), ["kogge_stone.cuh", "warp_scan.cuh"])
        with open(os.path.join(STUBS, "11_2_kogge_stone", "warp_scan.cuh")) as f:
            self.assertEqual(exercises.todo_blocks(stubs["warp_scan.cuh"]), exercises.todo_blocks(f.read()))
        no_git = os.path.join(self.tmp, "repo")
        shutil.copytree(os.path.join(STUBS, "11_1_sequential"), os.path.join(no_git, "exercises", "11_1_sequential"))
        self.assertEqual(exercises.stubs(no_git, "11_1_sequential", in_place=True), {})

    def test_todo_blocks(self):
        text = "a\n  // TODO(student) begin: hint\n  x = 1;\n  // TODO(student) end\nb\n"
        self.assertEqual(exercises.todo_blocks(text), [": hint x = 1;"])


if __name__ == "__main__":
    unittest.main()
