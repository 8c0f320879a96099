"""release.py: the student release holds no solution, its workflow grades every section, and (with
LAB_RELEASE_BUILD=1, minutes: it builds) it builds and grades on its own, every stub failing."""
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from scanlab_lab import LabError, config, exercises, release, sections
from scanlab_lab.tests.util import FIXTURES, ROOT, broken_kernel


def solution_blocks(root):
    """{solution file: [block, ...]}, each TODO(student) block of the solutions as its lines
    (whitespace squeezed) that the stub does not have and that are at least 12 characters: the answers."""
    found = {}
    for f in exercises.files_under(os.path.join(root, "solutions")):
        with open(os.path.join(root, "solutions", f), encoding="utf-8") as s:
            text = s.read()
        stub_text = ""
        if os.path.isfile(os.path.join(root, "exercises", f)):
            with open(os.path.join(root, "exercises", f), encoding="utf-8") as s:
                stub_text = s.read()
        stub_lines = {" ".join(l.split()) for l in stub_text.splitlines()}
        block = None
        for line in text.splitlines():
            if exercises.BEGIN.search(line):
                block = []
            elif exercises.END.search(line):
                if block:
                    found.setdefault(f, []).append(block)
                block = None
            elif block is not None:
                squeezed = " ".join(line.split())
                if len(squeezed) >= 12 and squeezed not in stub_lines and not squeezed.startswith("//"):
                    block.append(squeezed)
    return found


def leaks(files, dst, blocks):
    """Files of the release that hold a solution block: all of it, or at least half of its lines
    (and two or more). A line or two in common (a loop header) is not an answer."""
    found = []
    for f in files:
        with open(os.path.join(dst, f), encoding="utf-8", errors="replace") as r:
            text = "\n".join(" ".join(l.split()) for l in r.read().splitlines())
        for src, bs in blocks.items():
            for b in bs:
                hits = [l for l in b if l in text]
                if len(hits) >= max(2, (len(b) + 1) // 2) or (len(b) == 1 and hits):
                    found.append(f"{f}: {len(hits)} of {len(b)} lines of a block of solutions/{src}: {hits[0]}")
    return found


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
        blocks = solution_blocks(ROOT)
        self.assertGreater(sum(len(b) for b in blocks.values()), 15)  # the check has something to find
        # ... and finds it: in the full lab, the solutions and the fixture made from one.
        self.assertTrue(leaks(["solutions/11_1_sequential/sequential_scan.cuh"], ROOT, blocks))
        broken_kernel(self.tmp)
        self.assertTrue(leaks(["broken_kernel/sequential_scan.cuh"], self.tmp, blocks))
        # Known and reported: the emulator's own test kernels hold the book's Brent-Kung scan (3 of the 5
        # answer lines of 11.4's tree phases); common/emu/CMakeLists.txt builds them, so the release
        # keeps them until that file lets them go.
        known = ("common/emu/tests/kernels_scan.cpp: ",)
        self.assertEqual([l for l in leaks(self.files, self.dst, blocks) if not l.startswith(known)], [])

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

    @unittest.skipUnless(os.environ.get("LAB_RELEASE_BUILD") == "1", "builds the release (minutes): LAB_RELEASE_BUILD=1")
    def test_builds_and_grades_from_a_clone(self):
        clone = os.path.join(self.tmp, "clone")
        subprocess.run(["git", "clone", "-q", self.dst, clone], check=True)
        args = "-DSCANLAB_BACKENDS=cpu" + (" -DCMAKE_CXX_COMPILER_LAUNCHER=ccache" if shutil.which("ccache") else "")
        env = dict(os.environ, LAB_CMAKE_ARGS=args)
        p = subprocess.run([os.path.join(clone, "lab"), "grade", "11.1"], cwd=clone, env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
        self.assertEqual(p.returncode, 1, p.stdout[-3000:])  # the stubs fail: exit status 1, not 2
        self.assertRegex(p.stdout, r"11\.1\s+0/42\s+0\.0")
        p = subprocess.run([os.path.join(clone, "lab"), "test"], cwd=clone, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("student release", p.stdout)


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

    def check(self, text, all_sections, rules, scale):
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
        want, points = [], []
        for sec in all_sections:
            rule = rules.rule(sec.id)
            if rule.properties:
                want += [(f"Section {sec.id}: {p.title}", f"./lab earned {sec.id} {p.name}") for p in rule.properties]
                points += [p.points for p in rule.properties]
                first = next(s for s in graders if s["with"]["command"].startswith(f"./lab earned {sec.id} "))
                before = steps[steps.index(first) - 1]
                self.assertEqual(before["run"], f"./lab grade {sec.id} || true")
                self.assertEqual(before["timeout-minutes"], 30)
            else:
                want.append((f"Section {sec.id}: {sec.title}", f"./lab grade {sec.id}"))
                points.append(rule.weight)
        self.assertEqual([(s["name"], s["with"]["command"]) for s in graders], want)
        self.assertEqual(sum(points), sum(rules.rule(sec.id).weight for sec in all_sections))
        # parseInt keeps every point: whole numbers, points x scale.
        self.assertEqual([s["with"]["max-score"] for s in graders], [str(round(w * scale)) for w in points])
        for s in graders:
            float(s["with"]["timeout"])  # parseFloat, minutes
        # Every package before the first timed step, and none inside one.
        first = steps.index(graders[0])
        self.assertTrue(any("tools/setup.sh" in s.get("run", "") for s in steps[:first]))
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


if __name__ == "__main__":
    unittest.main()
