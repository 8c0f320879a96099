"""./lab release --student DIR [--level open|guided]: the student release, a copy of the lab without
the answers, each section's exercise at its level (levels.py; --level, else grading.toml's `level`).

Left out: solutions/, every section's mutants/ and valid/ (wrong and unusual copies of the solutions),
.ci/ (the full lab's CI, which runs them), tools/scanlab_lab/tests/ (fixtures made from solutions) and
the build outputs. What is copied are the files git
tracks (the working tree's version), or, without git, the files under the lab but build/. Without
solutions/, the lab's CMake builds the exercises alone, the docs from the stubs
(SCANLAB_DOCS_SOLUTIONS=OFF), and grades every section (section 11.3's tests that measure other
sections' solution kernels are left out there; sections 11.6 and 11.7 use the student's own 11.2
warp scan). Added: .github/workflows/classroom.yml (GitHub Classroom: per section its grading, then
one graded step per property of its rubric in grading.toml, or one for the section without a rubric). DIR becomes a git repository with one commit when git is here (a
GitHub Classroom template: push it, then mark the repository a template), else a plain folder."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from typing import List

from . import LabError, config, exercises, levels, sections

LEFT_OUT = [r"^solutions/", r"^chapters/[^/]+/(mutants|valid)/", r"^\.ci/", r"^build/", r"(^|/)\.git$",
            r"^tools/scanlab_lab/tests/",  # the lab's own tests: their fixtures hold kernels made from solutions
            r"(^|/)__pycache__/", r"\.pyc$"]


def arguments(args):
    """(DIR, --level or None)."""
    dst = level = None
    it = iter(args)
    for a in it:
        if a in ("--student", "--level"):
            v = next(it, None)
            if v is None:
                raise LabError(f"{a} needs a value (see ./lab help)", 2)
            dst, level = (v, level) if a == "--student" else (dst, v)
        elif a.startswith(("--student=", "--level=")):
            k, v = a.split("=", 1)
            dst, level = (v, level) if k == "--student" else (dst, v)
        else:
            raise LabError(f"unknown argument '{a}' for release: use ./lab release --student DIR [--level open|guided]", 2)
    if not dst:
        raise LabError("release needs --student DIR (the folder to write)", 2)
    if level is not None and level not in levels.LEVELS:
        raise LabError(f"--level must be open or guided, not '{level}'", 2)
    return dst, level


def chosen_levels(root, level=None):
    """{section folder: "open" or "guided"} of the release: --level for every section that has an open
    level (chapters/<dir>/open_level.txt), else grading.toml's `level` of each section. A section that
    grading.toml makes open without an open level is an error."""
    all_sections = sections.load(root)
    rules = config.load(root, [s.id for s in all_sections])
    out = {}
    for s in all_sections:
        want = level or rules.rule(s.id).level
        if want == "open" and not levels.has_open_level(root, s.folder):
            if level is None:
                raise LabError(f"{config.FILE}: section {s.id} has level = \"open\", but it has no open level "
                               f"(chapters/{s.folder}/{levels.SPEC})", 2)
            want = "guided"
        out[s.folder] = want
    return out


def files_of(root) -> List[str]:
    """The lab's files (relative paths): git's tracked files that exist, else every file but build/."""
    try:
        p = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=60)
        if p.returncode == 0:
            return sorted(f for f in p.stdout.decode().split("\0") if f and os.path.isfile(os.path.join(root, f)))
    except (OSError, subprocess.SubprocessError):
        pass
    return [f for f in exercises.files_under(root) if not f.startswith((".git/", "build/"))]


def kept(path) -> bool:
    return not any(re.search(p, path) for p in LEFT_OUT)


def yaml_str(value) -> str:
    """value as a YAML double-quoted scalar. JSON's string syntax is a subset of YAML's double-quoted
    style, so json.dumps quotes any text (':', '#', quotes, non-ASCII) safely."""
    return json.dumps(str(value))


def point_scale(weights) -> int:
    """The smallest of 1, 10, 100, 1000 that makes every weight a whole number: the command grader
    reads max-score with parseInt (7.5 would become 7), so fractional weights go in as tenths (or
    hundredths...). Raises LabError for a weight finer than thousandths."""
    for scale in (1, 10, 100, 1000):
        if all(abs(w * scale - round(w * scale)) < 1e-9 for w in weights):
            return scale
    raise LabError(f"{config.FILE}: the Classroom workflow takes weights to 3 decimals at most, not {weights}", 2)


def step_id(section) -> str:
    """s11p2 for 11.2: the reporter's runners input must be letters and digits separated by commas."""
    return "s" + section.id.replace(".", "p")


# The actions the workflow uses, at the versions whose action.yml and dist/main.js were read (the test
# checks the workflow's inputs against tests/fixtures/classroom_actions.json, written from them).
CHECKOUT = "actions/checkout@v4"
GRADER = "classroom-resources/autograding-command-grader@v1"
REPORTER = "classroom-resources/autograding-grading-reporter@v1"


def graded_steps(all_sections, rules):
    """The workflow's graded steps, in order: (step id, section, property or None, points, step name,
    command). A section with a rubric: one per property (`./lab earned`, after the section's grading);
    without: one for the section (`./lab grade`)."""
    out = []
    for s in all_sections:
        rule = rules.rule(s.id)
        if not rule.properties:
            out.append((step_id(s), s, None, rule.weight, f"Section {s.id}: {s.title}", f"./lab grade {s.id}"))
            continue
        for k, p in enumerate(rule.properties, 1):
            out.append((f"{step_id(s)}q{k}", s, p, p.points, f"Section {s.id}: {p.title}",
                        f"./lab earned {s.id} {p.name}"))
    return out


def workflow(root, all_sections=None, rules=None) -> str:
    """.github/workflows/classroom.yml: set-up once (tools/setup.sh: every package, before any timed
    step), then per section its grading (a plain step) and one graded step per property of its rubric
    (GitHub Classroom's autograding-command-grader running ./lab earned, the property's points), or one
    graded step for a section without a rubric; then the reporter. Every scalar is quoted (yaml_str)."""
    all_sections = all_sections if all_sections is not None else sections.load(root)
    rules = rules or config.load(root, [s.id for s in all_sections])
    graded = graded_steps(all_sections, rules)
    scale = point_scale([g[3] for g in graded])
    ids = [g[0] for g in graded]
    if len(set(ids)) != len(ids):
        raise LabError(f"two sections give the same Classroom step id: {ids}")
    q = yaml_str
    # With a fractional weight every max-score is weight x scale, and the test names say so.
    unit = [] if scale == 1 else [f"# max-score is grading.toml's points x {scale}: the grader takes whole numbers only."]
    per = "" if scale == 1 else f" (points x{scale})"
    lines = [
        "# GitHub Classroom autograding, written by ./lab release (tools/scanlab_lab/release.py): the",
        "# packages first (untimed), then per section a step that grades it (its report is in that step's",
        "# log) and one graded step per property of its rubric in grading.toml, worth the property's points",
        "# when all the tests that decide it pass (partial credit); a section without a rubric has one",
        "# graded step, all or nothing.",
    ] + unit + [
        "name: " + q("Autograding Tests"),
        "on: [" + q("push") + ", " + q("repository_dispatch") + "]",
        "permissions:",
        "  checks: " + q("write"),
        "  actions: " + q("read"),
        "  contents: " + q("read"),
        "jobs:",
        "  run-autograding-tests:",
        "    runs-on: " + q("ubuntu-latest"),
        "    if: " + q("github.actor != 'github-classroom[bot]'"),
        "    steps:",
        "      - name: " + q("Checkout code"),
        "        uses: " + q(CHECKOUT),
        # The graded steps run ./lab grade, which would install what is missing inside their timeout
        # (and with the grader's bare environment): install it all here, in a plain step.
        "      - name: " + q("Set up: the packages ./lab grade needs (tools/setup.sh)"),
        "        run: " + q("bash tools/setup.sh --preset grade"),
    ]
    graded_before = set()
    for step, s, prop, points, name, command in graded:
        if prop is not None and s.id not in graded_before:
            graded_before.add(s.id)  # the section's tests run once, then each property reads the result
            lines += [
                "      - name: " + q(f"Section {s.id}: {s.title} (build and test)"),
                "        run: " + q(f"./lab grade {s.id} || true"),
                "        timeout-minutes: 30",
            ]
        lines += [
            "      - name: " + q(name),
            "        id: " + q(step),
            "        uses: " + q(GRADER),
            "        with:",
            "          test-name: " + q(f"Section {s.id}" + (f": {prop.title}" if prop else "") + per),
            "          command: " + q(command),
            "          timeout: " + q(30 if prop is None else 1),  # minutes
            "          max-score: " + q(int(round(points * scale))),
        ]
    lines += [
        "      - name: " + q("Autograding Reporter"),
        "        uses: " + q(REPORTER),
        "        env:",
    ]
    lines += [f"          {i.upper()}_RESULTS: " + q(f"${{{{steps.{i}.outputs.result}}}}") for i in ids]
    lines += ["        with:", "          runners: " + q(",".join(ids))]
    return "\n".join(lines) + "\n"


def write(root, dst, level=None):
    """Writes the release into dst (new or empty), each section's exercises at its level
    (chosen_levels); returns the files written."""
    chosen = chosen_levels(root, level)
    dst = os.path.abspath(os.path.join(os.environ.get("LAB_CWD", os.getcwd()), dst))  # from the user's folder
    if os.path.exists(dst) and (not os.path.isdir(dst) or os.listdir(dst)):
        raise LabError(f"--student {dst} exists and is not an empty folder: give a new one", 2)
    if os.path.realpath(dst).startswith(os.path.realpath(root) + os.sep) and \
            not os.path.realpath(dst).startswith(os.path.realpath(os.path.join(root, "build")) + os.sep):
        raise LabError("--student: write the release outside the lab (or under build/)", 2)
    written = []
    for f in files_of(root):
        if kept(f):
            os.makedirs(os.path.dirname(os.path.join(dst, f)) or dst, exist_ok=True)
            shutil.copy2(os.path.join(root, f), os.path.join(dst, f))
            written.append(f)
    for folder, lvl in chosen.items():  # the open level: written over the guided stubs
        if lvl == "open":
            levels.write_open(root, folder, os.path.join(dst, "exercises"))
    # The READMEs quote the kernels (docs/make_pages.py's `gen code` parts, copied from solutions/):
    # in the release they quote the stubs, whose TODO blocks say that those lines are the student's.
    with tempfile.TemporaryDirectory() as generated:
        subprocess.run([sys.executable, os.path.join(dst, "docs", "make_pages.py"), "--root", dst,
                        "--generated", generated, "--exercises", "--committed", "--update"],
                       check=True, stdout=subprocess.DEVNULL)
    wf = os.path.join(".github", "workflows", "classroom.yml")
    os.makedirs(os.path.join(dst, os.path.dirname(wf)), exist_ok=True)
    with open(os.path.join(dst, wf), "w", encoding="utf-8") as out:
        out.write(workflow(root))
    written.append(wf)
    return sorted(set(written))


def make_repository(dst) -> bool:
    """git init + one commit, when git is here."""
    if not shutil.which("git"):
        return False
    env = dict(os.environ, GIT_AUTHOR_NAME="scanlab", GIT_AUTHOR_EMAIL="scanlab@localhost",
               GIT_COMMITTER_NAME="scanlab", GIT_COMMITTER_EMAIL="scanlab@localhost")
    for cmd in (["git", "init", "-q", "-b", "main"], ["git", "add", "-A"],
                ["git", "commit", "-q", "-m", "scanlab: the student release"]):
        if subprocess.run(cmd, cwd=dst, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT).returncode:
            return False
    return True


def main(root, args) -> int:
    dst, level = arguments(args)
    dst = os.path.abspath(os.path.join(os.environ.get("LAB_CWD", os.getcwd()), dst))
    written = write(root, dst, level)
    opened = [f for f, lvl in chosen_levels(root, level).items() if lvl == "open"]
    print("[lab] exercises: " + (f"open level for {' '.join(sorted(opened))}, guided for the others" if opened
                                 else "guided (TODO blocks in given kernels)"))
    repo = make_repository(dst)
    print(f"[lab] student release: {len(written)} files in {dst}"
          + (" (a git repository with one commit: push it and mark it a template for GitHub Classroom)" if repo
             else " (a plain folder: git was not found)"))
    print("[lab] left out: solutions/, chapters/*/mutants/ and valid/, .ci/, tools/scanlab_lab/tests/; in it, ./lab grade grades "
          "the exercises")
    return 0
