"""The student release's README (release.student_readme, made from the lab's README.md) is written for
students, and every command in its sh blocks works in a fresh clone of the release: read from the
README itself and run in order, on the cpu backend. A command that names no section runs for 11.1 (the
cheap one; `./lab run` alone would build every section); `$EDITOR FILE` puts the solution of FILE in,
so the commands after it meet a solved section.

Building costs minutes (measured 2026-11-27 with an empty ccache: 307 s of CPU, 26 min on the loaded
2-core machine), so the commands run only with LAB_RELEASE_BUILD=1, and `./lab test` among them (it
builds everything) only with LAB_RELEASE_BUILD=all; `./lab test` runs the rest (about 2 s)."""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import unittest

from scanlab_lab import release, sections
from scanlab_lab.tests.util import ROOT

# What the student's README must not talk about (the lab's README does): the answers, the grader's
# proofs, grading a class, the platforms' set-up and the lab's CI.
NOT_FOR_STUDENTS = ["solutions/", "mutant", "valid/", "--class", "--student", "Gradescope", "Classroom",
                    "instructor", ".ci/", "continuous integration", "lab-only", "release-only"]
CHEAP = "11.1"


def commands(text):
    """The commands of the README's sh blocks, in order, each as its words (comments dropped)."""
    out = []
    for block in re.findall(r"^```sh\n(.*?)^```", text, re.M | re.S):
        out += [w for w in (shlex.split(line, comments=True) for line in block.splitlines()) if w]
    return out


class StudentReadme(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # Under build/ when there is one: ccache (base_dir /work) then shares the clone's objects between
        # its two build trees and between runs.
        build = os.path.join(ROOT, "build")
        cls.tmp = tempfile.mkdtemp(prefix="student-readme-", dir=build if os.path.isdir(build) else None)
        cls.release = os.path.join(cls.tmp, "release")
        release.write(ROOT, cls.release)
        with open(os.path.join(cls.release, "README.md"), encoding="utf-8") as f:
            cls.text = f.read()
        cls.commands = commands(cls.text)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_written_for_students(self):
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
            lab_readme = f.read()
        self.assertEqual(self.text, release.student_readme(lab_readme))
        for word in NOT_FOR_STUDENTS:
            self.assertIn(word.lower(), lab_readme.lower())  # the check has something to find
            self.assertNotIn(word.lower(), self.text.lower())
        # What a student does: edit, run, trace, grade, test the lab here.
        self.assertIn(["./lab", "grade"], self.commands)
        self.assertIn(["./lab", "test"], self.commands)
        self.assertIn(["./lab", "docs"], self.commands)
        self.assertTrue(any(c[:2] == ["./lab", "run"] and "--exercise" in c and "--trace" in c for c in self.commands))
        self.assertTrue(any(c[0] == "$EDITOR" for c in self.commands))
        self.assertTrue(all(c[0] in ("./lab", "$EDITOR") for c in self.commands), self.commands)
        # Without building (CI): each command's arguments pass the lab's own checks in the release, and
        # each file to edit is there.
        from scanlab_lab import run
        from scanlab_lab.__main__ import prepare_grade
        for c in self.commands:
            if c[0] == "$EDITOR":
                self.assertTrue(os.path.isfile(os.path.join(self.release, c[1])), c)
            elif c[1] == "run":
                self.assertTrue(run.plan(self.release, c[2:]).exercise, c)  # the release runs the student's
            elif c[1] == "grade":
                prepare_grade(self.release, c[2:])
            else:
                self.assertIn(c[1:], (["test"], ["docs"]))

    def test_an_unmatched_marker(self):
        from scanlab_lab import LabError
        with self.assertRaises(LabError):
            release.student_readme("a\n<!-- lab-only -->\nb\n")
        self.assertEqual(release.student_readme("a <!-- release-only b -->c\n<!-- lab-only -->x<!-- /lab-only -->d\n"),
                         "a bc\nd\n")

    @unittest.skipUnless(os.environ.get("LAB_RELEASE_BUILD") in ("1", "all"),
                         "builds a release's 11.1 and 11.2 (minutes): LAB_RELEASE_BUILD=1 (=all: ./lab test too)")
    def test_the_commands_in_a_fresh_clone(self):
        if not shutil.which("git"):
            self.skipTest("no git to clone the release with")
        self.assertTrue(release.make_repository(self.release))
        clone = os.path.join(self.tmp, "clone")
        subprocess.run(["git", "clone", "-q", self.release, clone], check=True)
        # ccache in both build trees (./lab grade leaves it out unless told), the trees' folder left out of
        # its hash (CCACHE_NOHASHDIR): ./lab grade's tree reuses what ./lab run's compiled.
        args = "-DSCANLAB_BACKENDS=cpu" + (" -DCMAKE_CXX_COMPILER_LAUNCHER=ccache" if shutil.which("ccache") else "")
        env = dict(os.environ, LAB_CMAKE_ARGS=args, LAB_PRESET="default", LAB_JOBS="2", CCACHE_NOHASHDIR="1")
        known = {s.id: s for s in sections.load(ROOT)}
        solved = set()
        ran = []
        for words in self.commands:
            if words[0] == "$EDITOR":  # the student's work: the solution of that file
                rel = os.path.relpath(words[1], "exercises")
                shutil.copy(os.path.join(ROOT, "solutions", rel), os.path.join(clone, words[1]))
                solved.add(next(s.id for s in known.values() if s.folder == rel.split(os.sep)[0]))
                continue
            command = words[1]
            if command == "test" and os.environ.get("LAB_RELEASE_BUILD") != "all":
                continue
            own = words[2:words.index("--")] if "--" in words else words[2:]
            named = [a for a in own if not a.startswith("-")]
            if command in ("run", "grade") and not named:
                words, named = words[:2] + [CHEAP] + words[2:], [CHEAP]
            p = subprocess.run([os.path.join(clone, "lab")] + words[1:], cwd=clone, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, universal_newlines=True, errors="replace")
            ran.append(" ".join(words))
            where = f"{' '.join(words)} (exit status {p.returncode}):\n{p.stdout[-4000:]}"
            if command == "test":
                self.assertEqual(p.returncode, 0, where)
                self.assertIn("all tests passed", p.stdout, where)
                continue
            if command == "docs":  # the student's pages: every section with its questions, no instructor matter
                self.assertEqual(p.returncode, 0, where)
                html = os.path.join(clone, "build", "default", "docs", "html")
                site = subprocess.run([sys.executable, os.path.join(clone, "docs", "check_site.py"), "--root", clone,
                                       "--html", html], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                      universal_newlines=True)
                self.assertEqual(site.returncode, 0, site.stdout)
                with open(os.path.join(html, "index.html"), encoding="utf-8") as f:
                    main = re.sub(r"<[^>]*>", "", f.read()).lower()
                for word in NOT_FOR_STUDENTS[:-2]:  # (the markers are the README's own)
                    self.assertNotIn(word.lower(), main, "the main page of the release's docs")
                self.assertIn("scanlab_11_2_exercise", main)
                continue
            # A section not solved yet fails (exit status 1: it ran and said so), a solved one passes.
            self.assertEqual(p.returncode, 0 if set(named) <= solved else 1, where)
            if command == "grade":
                for s in named:
                    m = re.search(rf"^{re.escape(s)}\s+(\d+)/(\d+)\s+([\d.]+)", p.stdout, re.M)
                    self.assertTrue(m, where)
                    self.assertEqual(float(m.group(3)), 10.0 if s in solved else 0.0, where)
            elif "--" in words:  # the program, with the README's arguments
                self.assertIn(f"scanlab_{named[0].replace('.', '_')}_exercise", p.stdout, where)
                if "--trace" in words:
                    self.assertIn("trace of ", p.stdout, where)
            else:  # the table run
                self.assertRegex(p.stdout, r"results \(\d+ sections?", where)
        self.assertTrue(ran)
        self.assertIn(f"./lab grade {CHEAP}", ran)


if __name__ == "__main__":
    unittest.main()
