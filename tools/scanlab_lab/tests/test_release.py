"""release.py: the student release holds no solution and its workflow grades every section (that it
builds, runs and grades on its own: test_student_readme.py, which runs its README's commands)."""
import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile
import unittest

from scanlab_lab import LabError, config, exercises, release, sections
from scanlab_lab.tests.util import FIXTURES, ROOT, broken_kernel


class Release(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp()
        cls.dst = os.path.join(cls.tmp, "scanlab-student")
        cls.files = release.write(ROOT, cls.dst)
        cls.repo = release.make_repository(cls.dst)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def test_left_out(self):
        self.assertFalse(os.path.exists(os.path.join(self.dst, "solutions")))
        self.assertFalse([f for f in self.files if re.search(r"/(mutants|valid)/|^\.ci/|^build/", f)])
        for s in sections.load(ROOT):
            self.assertTrue(os.path.isdir(os.path.join(self.dst, "exercises", s.folder)), s.folder)
        self.assertTrue(os.access(os.path.join(self.dst, "lab"), os.X_OK))

    def test_no_solution_text(self):
        blocks = exercises.solution_blocks(ROOT)
        self.assertGreater(sum(len(b) for b in blocks.values()), 15)  # the check has something to find
        # ... and finds it: in the full lab, the solutions and the fixture made from one.
        self.assertTrue(exercises.leaks(["solutions/11_1_sequential/sequential_scan.cuh"], ROOT, blocks))
        broken_kernel(self.tmp)
        self.assertTrue(exercises.leaks(["broken_kernel/sequential_scan.cuh"], self.tmp, blocks))
        # Known and reported: the emulator's own test kernels hold the book's Brent-Kung scan (3 of the 5
        # answer lines of 11.4's tree phases); common/emu/CMakeLists.txt builds them, so the release
        # keeps them until that file lets them go.
        known = ("common/emu/tests/kernels_scan.cpp: ",)
        self.assertEqual([l for l in exercises.leaks(self.files, self.dst, blocks) if not l.startswith(known)], [])

    def test_classroom_workflow(self):
        with open(os.path.join(self.dst, ".github", "workflows", "classroom.yml"), encoding="utf-8") as f:
            text = f.read()
        self.assertEqual(text, release.workflow(ROOT))  # the file is what ClassroomWorkflow checks

    @unittest.skipIf(not shutil.which("git"), "no git")
    def test_one_commit(self):
        self.assertTrue(self.repo)
        log = subprocess.run(["git", "-C", self.dst, "log", "--oneline"], stdout=subprocess.PIPE,
                             universal_newlines=True).stdout
        self.assertEqual(len(log.splitlines()), 1)
        status = subprocess.run(["git", "-C", self.dst, "status", "--porcelain"], stdout=subprocess.PIPE,
                                universal_newlines=True).stdout
        self.assertEqual(status, "")

    def test_refuses_a_full_folder(self):
        from scanlab_lab import LabError
        with self.assertRaises(LabError):
            release.write(ROOT, self.dst)


def load_yaml(test, text):
    try:
        import yaml  # Debian's python3-yaml (tools/setup.sh installs it where it can)
    except ImportError:
        test.skipTest("no PyYAML (Debian: python3-yaml) to parse the workflow with")
    return yaml.safe_load(text)


class ClassroomWorkflow(unittest.TestCase):
    """The generated workflow, parsed by a YAML parser and checked against the inputs that the actions'
    action.yml declare (fixtures/classroom_actions.json, written from them) and how their code reads
    them (max-score: parseInt)."""

    @classmethod
    def setUpClass(cls):
        with open(os.path.join(FIXTURES, "classroom_actions.json"), encoding="utf-8") as f:
            cls.actions = json.load(f)

    def steps(self, text):
        data = load_yaml(self, text)
        self.assertEqual(data.get("on", data.get(True)), ["push", "repository_dispatch"])  # YAML 1.1 reads on: as true
        (job,) = data["jobs"].values()
        return job["steps"]

    def check(self, text, all_sections, rules, scale, grader=None):
        steps = self.steps(text)
        for step in steps:
            if "uses" not in step:
                continue
            self.assertIn(step["uses"], self.actions, "an action the fixture does not describe")
            declared = self.actions[step["uses"]]
            given = step.get("with", {})
            self.assertLessEqual(set(given), set(declared["inputs"]), step["name"])
            self.assertLessEqual(set(declared["required"]), set(given), step["name"])
            self.assertTrue(all(isinstance(v, str) for v in given.values()), step["name"])  # inputs are strings
        graders = [s for s in steps if s.get("uses") == release.GRADER]
        # A section with a rubric: its grading once (a plain step, before its first property), then a
        # graded step per property (partial credit); without: one graded step, ./lab grade.
        # Each graded step: ./lab earned with the tests that decide the property (grading.toml's, as
        # written into the workflow), so that the repository's grading.toml is not read.
        want, points = [], []
        lab = "grader/lab" if grader else "./lab"
        for sec in all_sections:
            rule = rules.rule(sec.id)
            props = rule.properties or [config.Property("all", sec.title, rule.weight, rule.tests, rule.exclude)]
            for p in props:
                words = [lab, "earned", sec.id, p.name] + [w for t in p.tests for w in ("--tests", t)] \
                    + [w for t in p.exclude for w in ("--exclude", t)]
                want.append((f"Section {sec.id}: {p.title}", words))
                points.append(p.points)
            first = next(s for s in graders if s["with"]["command"].startswith(f"{lab} earned {sec.id} "))
            before = steps[steps.index(first) - 1]
            exercises_arg = ' --exercises "$GITHUB_WORKSPACE/student/exercises"' if grader else ""
            self.assertEqual(before["run"], f"{lab} grade {sec.id}{exercises_arg} || true")
            self.assertEqual(before["timeout-minutes"], 30)
        self.assertEqual([(s["name"], shlex.split(s["with"]["command"])) for s in graders], want)
        self.assertEqual(sum(points), sum(rules.rule(sec.id).weight for sec in all_sections))
        # parseInt keeps every point: whole numbers, points x scale.
        self.assertEqual([s["with"]["max-score"] for s in graders], [str(round(w * scale)) for w in points])
        for s in graders:
            float(s["with"]["timeout"])  # parseFloat, minutes
        # Every package before the first timed step, and none inside one.
        first = steps.index(graders[0])
        setup = "bash grader/tools/setup.sh --preset grade" if grader else "bash tools/setup.sh --preset grade"
        self.assertTrue(any(s.get("run") == setup for s in steps[:first]))
        # With a grader: the student's repository in student/, the instructor's at the ref in grader/,
        # and no step runs anything of student/ (only its exercises/ are read, by grader/lab grade).
        checkouts = [s for s in steps if s.get("uses") == release.CHECKOUT]
        if grader:
            self.assertEqual([c["with"] for c in checkouts], [
                {"path": "student"},
                dict({"repository": grader.repo, "ref": grader.ref, "path": "grader", "persist-credentials": "false"},
                     **({"token": f"${{{{ secrets.{grader.token_secret} }}}}"} if grader.token_secret else {}))])
            for s in steps:
                command = s.get("run") or s.get("with", {}).get("command") or ""
                self.assertNotRegex(command.replace("$GITHUB_WORKSPACE/student/exercises", ""), r"student|\./lab|^tools/")
        else:
            self.assertEqual([c.get("with") for c in checkouts], [None])
        for s in graders:
            self.assertFalse(re.search(r"apt-get|setup\.sh", s["with"]["command"] + s["with"].get("setup-command", "")))
        # The reporter reads <ID>_RESULTS for each runner, the grader steps' result outputs.
        (reporter,) = [s for s in steps if s.get("uses") == release.REPORTER]
        self.assertIs(steps[-1], reporter)
        runners = reporter["with"]["runners"]
        self.assertRegex(runners, self.actions[release.REPORTER]["runners_pattern"])
        self.assertEqual(runners.split(","), [s["id"] for s in graders])
        self.assertEqual(reporter["env"], {f"{s['id'].upper()}_RESULTS": f"${{{{steps.{s['id']}.outputs.result}}}}"
                                           for s in graders})

    def test_the_lab(self):
        all_sections = sections.load(ROOT)
        rules = config.load(ROOT)
        points = [g[3] for g in release.graded_steps(all_sections, rules)]
        self.check(release.workflow(ROOT), all_sections, rules, release.point_scale(points))

    def test_with_a_grader_repository(self):
        all_sections = sections.load(ROOT)
        rules = config.load(ROOT)
        points = [g[3] for g in release.graded_steps(all_sections, rules)]
        for grader in (release.Grader("prof/scanlab-2026", "v1.0"), release.Grader("prof/x", "0" * 40, "GRADER_TOKEN")):
            text = release.workflow(ROOT, grader=grader)
            self.check(text, all_sections, rules, release.point_scale(points), grader)
            self.assertIn(f"{grader.repo} at {grader.ref}", text)

    def test_fractional_weights_and_titles_that_need_quoting(self):
        all_sections = [sections.Section("11_1_a", "11.1", "What scan is for: compaction, partition"),
                        sections.Section("11_2_b", "11.2", "\"quoted\" # not a comment, 'single', ünïcode"),
                        sections.Section("11_3_c", "11.3", "- [a list?] {a map?} & *alias ! %")]
        rules = config.rules_from({"default": {"weight": 10}, "sections": {"11.2": {"weight": 7.5},
                                                                           "11.3": {"weight": 2.25}}})
        text = release.workflow(ROOT, all_sections, rules)
        self.assertEqual(release.point_scale([10, 7.5, 2.25]), 100)
        self.check(text, all_sections, rules, 100)
        self.assertIn("x100", text)  # the workflow says its points are scaled
        self.assertEqual(release.point_scale([10, 5]), 1)
        self.assertEqual(release.point_scale([7.5]), 10)


class Earned(unittest.TestCase):
    """./lab earned SECTION PROPERTY: a Classroom step's verdict on one property, from the summary that
    the section's ./lab grade step wrote."""

    def test_reads_the_summary(self):
        from scanlab_lab import __main__ as cli
        tmp = tempfile.mkdtemp()
        try:
            os.makedirs(os.path.join(tmp, "chapters"))
            shutil.copy(os.path.join(ROOT, "chapters", "sections.txt"), os.path.join(tmp, "chapters"))
            with self.assertRaisesRegex(LabError, "run ./lab grade 11.2 first"):
                cli.main(["earned", tmp, "11.2", "kogge_stone"])
            os.makedirs(os.path.join(tmp, "build", "grade"))
            prop = lambda name, ok: {"name": name, "title": name, "points": 3 if ok else 0, "max_points": 3,
                                     "passed": ok, "tests": 40, "failed_tests": [] if ok else ["11.2.exercise.cpu.X.y"]}
            with open(os.path.join(tmp, "build", "grade", "grade-summary.json"), "w") as f:
                json.dump({"sections": [{"section": "11.2", "properties": [prop("a", True), prop("b", False)]}]}, f)
            self.assertEqual(cli.main(["earned", tmp, "11.2", "a"]), 0)
            self.assertEqual(cli.main(["earned", tmp, "11_2", "b"]), 1)
            with self.assertRaisesRegex(LabError, "has no property 'c' \\(it has: a, b\\)"):
                cli.main(["earned", tmp, "11.2", "c"])
            with self.assertRaisesRegex(LabError, "did not grade section 11.4"):
                cli.main(["earned", tmp, "11.4", "a"])
        finally:
            shutil.rmtree(tmp)

    def test_the_tests_from_the_command_line(self):
        # What the Classroom workflow runs: the tests that decide the property on the command line, read
        # from the JUnit file; the repository's grading.toml (here: one that a student edited so that
        # the one passing test decides every property) is not read.
        from scanlab_lab import __main__ as cli
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        os.makedirs(os.path.join(tmp, "chapters"))
        shutil.copy(os.path.join(ROOT, "chapters", "sections.txt"), os.path.join(tmp, "chapters"))
        with open(os.path.join(tmp, "grading.toml"), "w") as f:
            f.write('[sections."11.1".properties.inclusive]\npoints = 10\ntests = ["Section11_1.BookExample"]\n')
        bdir = os.path.join(tmp, "build", "grade")
        os.makedirs(bdir)
        junit = os.path.join(bdir, "grade-junit.xml")
        with open(os.path.join(FIXTURES, "stub-junit.xml"), encoding="utf-8") as f:
            text = f.read()  # 11.1's stubs: every test failed; the book's example made to pass
        book = '<testcase name="11.1.exercise.cpu.Section11_1.BookExample"'
        i = text.index(book)
        j = text.index("</testcase>", i)
        with open(junit, "w", encoding="utf-8") as f:
            f.write(text[:i] + book + ' status="run"/>' + text[j + len("</testcase>"):])
        summary = {"sections": [{"section": "11.1", "status": "graded", "properties": [
            {"name": "inclusive", "title": "x", "points": 10, "max_points": 10, "passed": True, "tests": 1,
             "failed_tests": []}]}]}
        with open(os.path.join(bdir, "grade-summary.json"), "w") as f:
            json.dump(summary, f)
        earned = lambda *a: cli.main(["earned", tmp, "11.1"] + list(a))
        self.assertEqual(earned("inclusive"), 0)  # grading.toml's rubric (./lab earned without --tests): forged
        self.assertEqual(earned("inclusive", "--tests", "Grading.*_inclusive", "--tests", "sanitize.*",
                                "--exclude", "*_last_*"), 1)
        self.assertEqual(earned("book_example", "--tests", "Section11_1.BookExample"), 0)
        self.assertEqual(earned("x", "--tests=Section11_1.*", "--exclude=*Book*"), 1)  # the work count fails
        self.assertEqual(earned("x", "--tests", "NoSuch.*"), 1)
        with self.assertRaisesRegex(LabError, "--exclude goes with --tests"):
            earned("x", "--exclude", "a")
        # The section did not build (or ran no test): nothing earned, whatever the JUnit file says.
        summary["sections"][0]["status"] = "build-failed"
        with open(os.path.join(bdir, "grade-summary.json"), "w") as f:
            json.dump(summary, f)
        self.assertEqual(earned("book_example", "--tests", "Section11_1.BookExample"), 1)
        os.remove(junit)
        with self.assertRaisesRegex(LabError, "no test results"):
            earned("book_example", "--tests", "Section11_1.BookExample")


class GraderRepository(unittest.TestCase):
    """./lab release --grader-repo OWNER/NAME[@REF]: the workflow grades with the instructor's copy."""

    def test_arguments(self):
        self.assertEqual(release.arguments(["--student", "d"]), ("d", None, None))
        self.assertEqual(release.arguments(["--student=d", "--grader-repo", "prof/lab@v2", "--grader-token-secret=T"]),
                         ("d", None, release.Grader("prof/lab", "v2", "T")))
        self.assertEqual(release.arguments(["--student", "d", "--grader-repo", "prof/lab"])[2], release.Grader("prof/lab", None))
        for bad in (["--student", "d", "--grader-repo", "lab"], ["--student", "d", "--grader-repo", "a/b@x y"],
                    ["--student", "d", "--grader-token-secret", "T"],
                    ["--student", "d", "--grader-repo", "a/b", "--grader-token-secret", "T-1"], ["--student", "d", "--x"]):
            with self.assertRaises(LabError, msg=bad):
                release.arguments(bad)

    @unittest.skipIf(not shutil.which("git"), "no git")
    def test_pins_its_own_first_commit(self):
        # Without @REF: commit 1 is the release (the grader), commit 2 adds the workflow, which checks out
        # commit 1. Pushed with its history to the template repository, that commit is there to check out.
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        dst = os.path.join(tmp, "rel")
        self.assertEqual(release.main(ROOT, ["--student", dst, "--grader-repo", "prof/scanlab"]), 0)
        log = subprocess.run(["git", "-C", dst, "log", "--format=%H"], stdout=subprocess.PIPE,
                             universal_newlines=True, check=True).stdout.split()
        self.assertEqual(len(log), 2)
        with open(os.path.join(dst, ".github", "workflows", "classroom.yml"), encoding="utf-8") as f:
            text = f.read()
        self.assertEqual(text, release.workflow(ROOT, grader=release.Grader("prof/scanlab", log[1])))
        changed = subprocess.run(["git", "-C", dst, "diff", "--name-only", log[1], log[0]], stdout=subprocess.PIPE,
                                 universal_newlines=True, check=True).stdout.split()
        self.assertEqual(changed, [".github/workflows/classroom.yml"])


if __name__ == "__main__":
    unittest.main()
