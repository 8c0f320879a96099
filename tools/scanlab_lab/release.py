"""./lab release --student DIR: the student release, a copy of the lab without the answers.

Left out: solutions/, every section's mutants/ and valid/ (wrong and unusual copies of the solutions),
.ci/ (the full lab's CI, which runs them), tools/scanlab_lab/tests/ (fixtures made from solutions) and
the build outputs. What is copied are the files git
tracks (the working tree's version), or, without git, the files under the lab but build/. Without
solutions/, the lab's CMake builds the exercises alone, the docs from the stubs
(SCANLAB_DOCS_SOLUTIONS=OFF), and grades every section (section 11.3's tests that measure other
sections' solution kernels are left out there; sections 11.6 and 11.7 use the student's own 11.2
warp scan). Added: .github/workflows/classroom.yml (GitHub Classroom: one graded step per section,
its points from grading.toml). DIR becomes a git repository with one commit when git is here (a
GitHub Classroom template: push it, then mark the repository a template), else a plain folder."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
from typing import List

from . import LabError, config, exercises, sections

LEFT_OUT = [r"^solutions/", r"^chapters/[^/]+/(mutants|valid)/", r"^\.ci/", r"^build/", r"(^|/)\.git$",
            r"^tools/scanlab_lab/tests/",  # the lab's own tests: their fixtures hold kernels made from solutions
            r"(^|/)__pycache__/", r"\.pyc$"]


def arguments(args):
    dst = None
    it = iter(args)
    for a in it:
        if a == "--student":
            dst = next(it, None)
            if dst is None:
                raise LabError("--student needs a folder (see ./lab help)", 2)
        elif a.startswith("--student="):
            dst = a.split("=", 1)[1]
        else:
            raise LabError(f"unknown argument '{a}' for release: use ./lab release --student DIR", 2)
    if not dst:
        raise LabError("release needs --student DIR (the folder to write)", 2)
    return dst


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


def workflow(root) -> str:
    """.github/workflows/classroom.yml: set-up once, then one graded step per section (GitHub
    Classroom's autograding-command-grader, its points from grading.toml), then the reporter."""
    all_sections = sections.load(root)
    rules = config.load(root, [s.id for s in all_sections])
    ids = [f"s{s.us}" for s in all_sections]
    lines = [
        "# GitHub Classroom autograding, written by ./lab release (tools/scanlab_lab/release.py): one",
        "# step per section, each worth its points in grading.toml; a section's step passes when all",
        "# its tests pass. The full report of every section is in the log of each step.",
        "name: Autograding Tests",
        "on: [push, repository_dispatch]",
        "permissions:",
        "  checks: write",
        "  actions: read",
        "  contents: read",
        "jobs:",
        "  run-autograding-tests:",
        "    runs-on: ubuntu-latest",
        "    if: github.actor != 'github-classroom[bot]'",
        "    steps:",
        "      - name: Checkout code",
        "        uses: actions/checkout@v4",
        "      - name: Set up (packages, configure)",
        "        run: sudo apt-get update -q && sudo apt-get install -y -q cmake g++ ninja-build libgtest-dev libboost-context-dev libcli11-dev nlohmann-json3-dev patch python3",
    ]
    for s, step_id in zip(all_sections, ids):
        points = rules.rule(s.id).weight
        lines += [
            f"      - name: Section {s.id} ({s.title})",
            f"        id: {step_id}",
            "        uses: classroom-resources/autograding-command-grader@v1",
            "        with:",
            f"          test-name: Section {s.id}",
            f"          command: ./lab grade {s.id}",
            "          timeout: 30",
            f"          max-score: {points}",
        ]
    lines += [
        "      - name: Autograding Reporter",
        "        uses: classroom-resources/autograding-grading-reporter@v1",
        "        env:",
    ]
    lines += [f"          {i.upper()}_RESULTS: \"${{{{steps.{i}.outputs.result}}}}\"" for i in ids]
    lines += ["        with:", f"          runners: {','.join(ids)}"]
    return "\n".join(lines) + "\n"


def write(root, dst):
    """Writes the release into dst (new or empty); returns the files written."""
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
    dst = os.path.abspath(os.path.join(os.environ.get("LAB_CWD", os.getcwd()), arguments(args)))
    written = write(root, dst)
    repo = make_repository(dst)
    print(f"[lab] student release: {len(written)} files in {dst}"
          + (" (a git repository with one commit: push it and mark it a template for GitHub Classroom)" if repo
             else " (a plain folder: git was not found)"))
    print("[lab] left out: solutions/, chapters/*/mutants/ and valid/, .ci/, tools/scanlab_lab/tests/; in it, ./lab grade grades "
          "the exercises")
    return 0
