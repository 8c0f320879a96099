"""./lab release --student DIR [--level open|guided]: the student release, a copy of the lab without
the answers, each section's exercise at its level (levels.py; --level, else grading.toml's `level`).

Left out: solutions/, every section's mutants/ and valid/ (wrong and unusual copies of the solutions),
.ci/ (the full lab's CI, which runs them), tools/scanlab_lab/tests/ (fixtures made from solutions) and
the build outputs. What is copied are the files git
tracks (the working tree's version), or, without git, the files under the lab but build/. Without
solutions/, the lab's CMake builds the exercises alone, the docs from the stubs
(SCANLAB_DOCS_SOLUTIONS=OFF), and grades every section (11.3 against the solution kernels' committed
counts; 11.6, 11.7, 11.9 and 11.10 built on the given stand-ins of common/given/, not on the student's
other sections). Added: .github/workflows/classroom.yml (GitHub Classroom: per section its grading, then
one graded step per property of its rubric in grading.toml, or one for the section without a rubric,
each with its points and the tests that decide it written in, so that the repository's grading.toml
is not read). DIR becomes a git repository with one commit when git is here (a GitHub Classroom
template: push it, then mark the repository a template), else a plain folder.

--grader-repo OWNER/NAME[@REF]: the workflow grades with the lab checked out from OWNER/NAME at REF
(the instructor's), the student's exercises/ alone read from their repository. Without @REF the
release gets two commits, the workflow (the second) checking out the first by its hash."""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from typing import List, NamedTuple, Optional

from . import LabError, config, exercises, levels, sections

LEFT_OUT = [r"^solutions/", r"^chapters/[^/]+/(mutants|valid)/", r"^\.ci/", r"^build/", r"(^|/)\.git$",
            r"^tools/scanlab_lab/tests/",  # the lab's own tests: their fixtures hold kernels made from solutions
            r"(^|/)__pycache__/", r"\.pyc$"]


class Grader(NamedTuple):
    """--grader-repo OWNER/NAME[@REF] (and --grader-token-secret NAME): the workflow grades with the
    instructor's copy of the lab, checked out from that repository at REF (without @REF: the release's
    own first commit, which holds everything but the workflow), the student's exercises/ grafted in."""
    repo: str
    ref: Optional[str]
    token_secret: Optional[str] = None


def arguments(args):
    """(DIR, --level or None, Grader or None)."""
    values = {}
    names = ("--student", "--level", "--grader-repo", "--grader-token-secret")
    it = iter(args)
    for a in it:
        key, eq, v = a.partition("=")
        if key not in names:
            raise LabError(f"unknown argument '{a}' for release: use ./lab release --student DIR [--level open|guided] "
                           "[--grader-repo OWNER/NAME[@REF] [--grader-token-secret NAME]]", 2)
        if not eq:
            v = next(it, None)
            if v is None:
                raise LabError(f"{a} needs a value (see ./lab help)", 2)
        values[key] = v
    dst, level = values.get("--student"), values.get("--level")
    if not dst:
        raise LabError("release needs --student DIR (the folder to write)", 2)
    if level is not None and level not in levels.LEVELS:
        raise LabError(f"--level must be open or guided, not '{level}'", 2)
    grader = None
    if "--grader-repo" in values:
        m = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9_.-]+)(?:@([A-Za-z0-9_./-]+))?", values["--grader-repo"])
        if not m:
            raise LabError(f"--grader-repo wants OWNER/NAME or OWNER/NAME@REF (a commit, tag or branch), not "
                           f"'{values['--grader-repo']}'", 2)
        secret = values.get("--grader-token-secret")
        if secret is not None and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", secret):
            raise LabError(f"--grader-token-secret wants a secret's name (letters, digits, _), not '{secret}'", 2)
        grader = Grader(m.group(1), m.group(2), secret)
    elif "--grader-token-secret" in values:
        raise LabError("--grader-token-secret goes with --grader-repo", 2)
    return dst, level, grader


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


STUDENT_PATH = "student"  # with a grader repository: the student's repository, checked out here
GRADER_PATH = "grader"    # ... and the instructor's copy of the lab, here


def earned_command(lab, section, name, tests, exclude) -> str:
    """`./lab earned` with the tests that decide the property on its command line (quoted for the
    shell that the command grader's execSync starts): the workflow, not grading.toml, says what counts."""
    words = [f"{lab}", "earned", section.id, name]
    for t in tests:
        words += ["--tests", shlex.quote(t)]
    for t in exclude:
        words += ["--exclude", shlex.quote(t)]
    return " ".join(words)


def graded_steps(all_sections, rules, lab="./lab"):
    """The workflow's graded steps, in order: (step id, section, property or None, points, step name,
    command). A section with a rubric: one per property; without: one for the section (the property
    "all", the section's tests and exclude), all or nothing. Each runs ./lab earned after the section's
    grading, with the tests that decide it and the points (max-score) from grading.toml as it is now."""
    out = []
    for s in all_sections:
        rule = rules.rule(s.id)
        if not rule.properties:
            out.append((step_id(s), s, None, rule.weight, f"Section {s.id}: {s.title}",
                        earned_command(lab, s, "all", rule.tests, rule.exclude)))
            continue
        for k, p in enumerate(rule.properties, 1):
            out.append((f"{step_id(s)}q{k}", s, p, p.points, f"Section {s.id}: {p.title}",
                        earned_command(lab, s, p.name, p.tests, p.exclude)))
    return out


def workflow(root, all_sections=None, rules=None, grader: Optional[Grader] = None) -> str:
    """.github/workflows/classroom.yml: set-up once (tools/setup.sh: every package, before any timed
    step), then per section its grading (a plain step) and one graded step per property of its rubric
    (GitHub Classroom's autograding-command-grader running ./lab earned with the property's tests, worth
    the property's points), or one graded step for a section without a rubric; then the reporter.
    With a grader (--grader-repo): the student's repository is checked out into student/, the
    instructor's lab at the grader's ref into grader/, and grader/lab grades student/exercises; nothing
    else of the student's repository is read. Every scalar is quoted (yaml_str)."""
    all_sections = all_sections if all_sections is not None else sections.load(root)
    rules = rules or config.load(root, [s.id for s in all_sections])
    lab = f"{GRADER_PATH}/lab" if grader else "./lab"
    graded = graded_steps(all_sections, rules, lab)
    scale = point_scale([g[3] for g in graded])
    ids = [g[0] for g in graded]
    if len(set(ids)) != len(ids):
        raise LabError(f"two sections give the same Classroom step id: {ids}")
    if grader and not grader.ref:
        raise LabError("--grader-repo without @REF needs the release's first commit (git): give OWNER/NAME@REF", 2)
    q = yaml_str
    # With a fractional weight every max-score is weight x scale, and the test names say so.
    unit = [] if scale == 1 else [f"# max-score is grading.toml's points x {scale}: the grader takes whole numbers only."]
    per = "" if scale == 1 else f" (points x{scale})"
    where = ([f"# The grading code is the instructor's: {grader.repo} at {grader.ref}, checked out into {GRADER_PATH}/;",
              f"# of the student's repository ({STUDENT_PATH}/) only exercises/ is read."] if grader else
             ["# The grading code is the student's repository's own (tools/README.md, \"GitHub Classroom\", says what",
              "# a student could change; ./lab release --grader-repo grades with the instructor's copy)."])
    lines = [
        "# GitHub Classroom autograding, written by ./lab release (tools/scanlab_lab/release.py): the",
        "# packages first (untimed), then per section a step that grades it (its report is in that step's",
        "# log) and one graded step per property of its rubric, worth the property's points when all the",
        "# tests that decide it pass (partial credit); the points (max-score) and the tests (./lab earned",
        "# --tests) are written here from the instructor's grading.toml: the repository's grading.toml is",
        "# not read. A section without a rubric has one graded step, all or nothing.",
    ] + where + unit + [
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
    ]
    if grader:
        lines += [
            "      - name: " + q("Checkout the student's repository"),
            "        uses: " + q(CHECKOUT),
            "        with:",
            "          path: " + q(STUDENT_PATH),
            "      - name: " + q(f"Checkout the grader: {grader.repo} at {grader.ref}"),
            "        uses: " + q(CHECKOUT),
            "        with:",
            "          repository: " + q(grader.repo),
            "          ref: " + q(grader.ref),
            "          path: " + q(GRADER_PATH),
            "          persist-credentials: " + q("false"),
        ] + (["          token: " + q(f"${{{{ secrets.{grader.token_secret} }}}}")] if grader.token_secret else [])
    else:
        lines += [
            "      - name: " + q("Checkout code"),
            "        uses: " + q(CHECKOUT),
        ]
    # The graded steps run ./lab grade, which would install what is missing inside their timeout
    # (and with the grader's bare environment): install it all here, in a plain step.
    setup = f"bash {GRADER_PATH}/tools/setup.sh --preset grade" if grader else "bash tools/setup.sh --preset grade"
    lines += [
        "      - name: " + q("Set up: the packages ./lab grade needs (tools/setup.sh)"),
        "        run: " + q(setup),
    ]
    exercises_arg = f' --exercises "$GITHUB_WORKSPACE/{STUDENT_PATH}/exercises"' if grader else ""
    graded_before = set()
    for step, s, prop, points, name, command in graded:
        if s.id not in graded_before:
            graded_before.add(s.id)  # the section's tests run once, then each property reads the result
            lines += [
                "      - name: " + q(f"Section {s.id}: {s.title} (build and test)"),
                "        run: " + q(f"{lab} grade {s.id}{exercises_arg} || true"),
                "        timeout-minutes: 30",
            ]
        lines += [
            "      - name: " + q(name),
            "        id: " + q(step),
            "        uses: " + q(GRADER),
            "        with:",
            "          test-name: " + q(f"Section {s.id}" + (f": {prop.title}" if prop else "") + per),
            "          command: " + q(command),
            "          timeout: " + q(1),  # minutes: it reads the results of the step before
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


def write(root, dst, level=None, grader: Optional[Grader] = None, with_workflow=True):
    """Writes the release into dst (new or empty), each section's exercises at its level
    (chosen_levels), and its Classroom workflow (unless with_workflow is False: write_workflow later);
    returns the files written."""
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
    written.append(write_readme(root, dst))
    if with_workflow:
        written.append(write_workflow(root, dst, grader))
    return sorted(set(written))


# The release's README.md is the lab's, written for students (student_readme): one source, so that the
# two never drift apart.
LAB_ONLY = re.compile(r"<!-- lab-only -->.*?<!-- /lab-only -->\n?", re.S)
RELEASE_ONLY = re.compile(r"<!-- release-only[ \n](.*?)[ ]?-->(\n?)", re.S)


def student_readme(text) -> str:
    """The lab's README.md as the student release's: the parts between <!-- lab-only --> and
    <!-- /lab-only --> left out (solutions, mutants, class grading, CI), the text of each
    <!-- release-only ... --> comment put in. Raises LabError for a marker left unmatched."""
    # A comment of whole lines ("<!-- release-only", the lines, "-->") gives those lines; one inside a
    # line, its text.
    out = RELEASE_ONLY.sub(lambda m: m.group(1) if m.group(1).endswith("\n") else m.group(1) + m.group(2),
                           LAB_ONLY.sub("", text))
    stray = re.search(r"<!-- /?(lab-only|release-only)", out)
    if stray:
        line = out[:stray.start()].count("\n") + 1
        raise LabError(f"README.md: an unmatched <!-- {stray.group(1)} --> marker (line {line} of the student's README)", 2)
    return re.sub(r"\n{3,}", "\n\n", out).strip("\n") + "\n"


def write_readme(root, dst) -> str:
    with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
        text = student_readme(f.read())
    with open(os.path.join(dst, "README.md"), "w", encoding="utf-8") as f:
        f.write(text)
    return "README.md"


WORKFLOW = os.path.join(".github", "workflows", "classroom.yml")


def write_workflow(root, dst, grader: Optional[Grader] = None) -> str:
    os.makedirs(os.path.join(dst, os.path.dirname(WORKFLOW)), exist_ok=True)
    with open(os.path.join(dst, WORKFLOW), "w", encoding="utf-8") as out:
        out.write(workflow(root, grader=grader))
    return WORKFLOW


GIT_ENV = dict(GIT_AUTHOR_NAME="scanlab", GIT_AUTHOR_EMAIL="scanlab@localhost",
               GIT_COMMITTER_NAME="scanlab", GIT_COMMITTER_EMAIL="scanlab@localhost")


def make_repository(dst, message="scanlab: the student release") -> bool:
    """git init (unless dst is a repository already) + a commit of everything, when git is here."""
    if not shutil.which("git"):
        return False
    env = dict(os.environ, **GIT_ENV)
    init = [] if os.path.isdir(os.path.join(dst, ".git")) else [["git", "init", "-q", "-b", "main"]]
    for cmd in init + [["git", "add", "-A"], ["git", "commit", "-q", "-m", message]]:
        if subprocess.run(cmd, cwd=dst, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT).returncode:
            return False
    return True


def head(dst) -> str:
    return subprocess.run(["git", "rev-parse", "HEAD"], cwd=dst, stdout=subprocess.PIPE, check=True,
                          universal_newlines=True).stdout.strip()


def main(root, args) -> int:
    dst, level, grader = arguments(args)
    dst = os.path.abspath(os.path.join(os.environ.get("LAB_CWD", os.getcwd()), dst))
    pin = grader is not None and not grader.ref  # the workflow pins the release's first commit
    if pin and not shutil.which("git"):
        raise LabError("--grader-repo without @REF pins the release's first commit, which needs git: "
                       "give OWNER/NAME@REF", 2)
    written = write(root, dst, level, grader, with_workflow=not pin)
    opened = [f for f, lvl in chosen_levels(root, level).items() if lvl == "open"]
    print("[lab] exercises: " + (f"open level for {' '.join(sorted(opened))}, guided for the others" if opened
                                 else "guided (TODO blocks in given kernels)"))
    if pin:
        if not make_repository(dst, "scanlab: the student release (the grader: the Classroom workflow checks out this commit)"):
            raise LabError(f"git could not commit the release in {dst}", 2)
        grader = grader._replace(ref=head(dst))
        written.append(write_workflow(root, dst, grader))
        repo = make_repository(dst, f"scanlab: the Classroom workflow, grading with {grader.repo} at {grader.ref}")
    else:
        repo = make_repository(dst)
    if grader:
        print(f"[lab] the Classroom workflow grades with {grader.repo} at {grader.ref} (the student's exercises/ "
              "grafted in): push the release there" + (" with its history (both commits)" if pin else
                                                       f" and make {grader.ref} name the release's commit"))
    print(f"[lab] student release: {len(written)} files in {dst}"
          + (f" (a git repository with {2 if pin else 1} commit{'s' if pin else ''}: push it and mark it a "
             "template for GitHub Classroom)" if repo else " (a plain folder: git was not found)"))
    print("[lab] left out: solutions/, chapters/*/mutants/ and valid/, .ci/, tools/scanlab_lab/tests/; in it, ./lab grade grades "
          "the exercises")
    return 0
