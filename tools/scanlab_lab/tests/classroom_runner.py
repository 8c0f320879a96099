"""Runs a release's .github/workflows/classroom.yml here, the way a GitHub Actions runner runs it, with
the GitHub Classroom actions' own code (their dist/main.js, under node): the test of the workflow
(test_classroom_actions.py) and the manual check with a real grade (tools/README.md, "GitHub
Classroom").

What a runner does and this does too:
- `run:` steps: `bash --noprofile --norc -eo pipefail` on the script, in the workspace (or the step's
  working-directory), with the job's environment (CI=true, GITHUB_WORKSPACE, ...), the step's `env:`,
  and `timeout-minutes`; a failed step skips the steps after it (their `if:` is not evaluated: the
  workflows here have none).
- `uses:` steps of a node action (classroom-resources/autograding-*): `node <action>/dist/main.js`
  with each input as INPUT_<NAME> (upper case, spaces to underscores: INPUT_MAX-SCORE), the defaults
  that action.yml declares, GITHUB_OUTPUT and GITHUB_STEP_SUMMARY files, the step's `env:`; the outputs
  are read back from GITHUB_OUTPUT (name=value and name<<DELIMITER lines), as the runner does, for the
  `${{ steps.<id>.outputs.<name> }}` of later steps.
- actions/checkout: the workspace is already the student's repository (a copy made by the caller);
  with `repository:` it copies the local folder that `repos` maps OWNER/NAME to at `ref` (git archive)
  into `path`; with only `path:` it moves the student's files there.

    python3 -m scanlab_lab.tests.classroom_runner WORKSPACE --actions DIR [--repo OWNER/NAME=PATH ...]
                                                  [--only SECTION ...]

WORKSPACE is changed (it is the job's workspace): give a copy. --only keeps the steps of those sections
(named "Section <id>: ...") and the reporter's runners among them: the others' grading takes long. DIR holds the actions, one folder each,
named OWNER+NAME (as the fixture folder and the fetch tool's mirrors name them) with action.yml and
dist/main.js. Exit status: the job's (0 when every step succeeded)."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import uuid
from typing import Dict, List, NamedTuple

EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


class StepResult(NamedTuple):
    name: str
    id: str
    outcome: str  # success, failure, skipped
    output: str   # stdout and stderr together
    outputs: Dict[str, str]


class JobResult(NamedTuple):
    steps: List[StepResult]
    ok: bool

    def step(self, step_id) -> StepResult:
        return next(s for s in self.steps if s.id == step_id)

    def total(self):
        """(points, max points) that the reporter (the last step) announced."""
        return reporter_points(self.steps[-1].output)


def load_workflow(path):
    import yaml  # Debian's python3-yaml
    with open(path, encoding="utf-8") as f:
        data = yaml.safe_load(f)
    (job,) = data["jobs"].values()
    return job


def action_dir(actions, uses):
    """The folder of OWNER/NAME@REF in actions: OWNER+NAME."""
    name = uses.split("@", 1)[0]
    path = os.path.join(actions, name.replace("/", "+"))
    if not os.path.isfile(os.path.join(path, "action.yml")):
        raise RuntimeError(f"no action {uses} in {actions} (a folder {name.replace('/', '+')} with action.yml)")
    return path


def read_outputs(path) -> Dict[str, str]:
    """GITHUB_OUTPUT's name=value and name<<DELIMITER ... DELIMITER entries (@actions/core writes the
    second form, with a random delimiter)."""
    out = {}
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line:
            continue
        m = re.match(r"^([^=<]+)<<(.+)$", line)
        if m:
            value = []
            while i < len(lines) and lines[i] != m.group(2):
                value.append(lines[i])
                i += 1
            i += 1
            out[m.group(1)] = "\n".join(value)
        else:
            k, _, v = line.partition("=")
            out[k] = v
    return out


class Runner:
    def __init__(self, workspace, actions, repos=None, env=None, echo=False):
        self.ws = os.path.abspath(workspace)
        self.actions = actions
        self.repos = repos or {}
        self.outputs: Dict[str, Dict[str, str]] = {}
        self.echo = echo
        self.temp = tempfile.mkdtemp(prefix="runner-temp-")
        # The job's environment on a hosted runner (the part that the steps here can see).
        self.env = dict(os.environ if env is None else env)
        self.env.update({"CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": self.ws,
                         "RUNNER_TEMP": self.temp, "RUNNER_OS": "Linux", "GITHUB_REPOSITORY": "student/assignment",
                         "GITHUB_ACTOR": "student"})
        self.env.pop("GITHUB_OUTPUT", None)

    def expand(self, text):
        def one(m):
            expr = m.group(1)
            k = re.fullmatch(r"steps\.([A-Za-z0-9_-]+)\.outputs\.([A-Za-z0-9_-]+)", expr)
            if k:
                return self.outputs.get(k.group(1), {}).get(k.group(2), "")
            if expr == "github.token" or expr.startswith("secrets."):
                return "fake-token"
            if expr == "github.workspace":
                return self.ws
            raise RuntimeError(f"an expression this runner does not know: ${{{{ {expr} }}}}")
        return EXPR.sub(one, str(text))

    def run(self, job) -> JobResult:
        results, failed = [], False
        for n, step in enumerate(job["steps"]):
            sid = step.get("id", f"__step{n}")
            name = step.get("name", step.get("uses", step.get("run", "")))
            if failed:
                results.append(StepResult(name, sid, "skipped", "", {}))
                continue
            if "run" in step:
                r = self.run_script(step, sid, name)
            elif str(step["uses"]).startswith("actions/checkout@"):
                r = self.checkout(step, sid, name)
            else:
                r = self.node_action(step, sid, name)
            self.outputs[sid] = r.outputs
            results.append(r)
            if self.echo:
                print(f"== {name}: {r.outcome}\n{r.output}", flush=True)
            failed = r.outcome == "failure" and not step.get("continue-on-error")
        shutil.rmtree(self.temp, ignore_errors=True)
        return JobResult(results, not failed)

    def step_env(self, step):
        env = dict(self.env)
        for k, v in (step.get("env") or {}).items():
            env[k] = self.expand(v)
        return env

    def run_script(self, step, sid, name) -> StepResult:
        script = os.path.join(self.temp, f"{uuid.uuid4().hex}.sh")
        with open(script, "w", encoding="utf-8") as f:
            f.write(self.expand(step["run"]))
        cwd = os.path.join(self.ws, step.get("working-directory", "."))
        timeout = float(step.get("timeout-minutes", 360)) * 60
        try:
            p = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", script], cwd=cwd,
                               env=self.step_env(step), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               universal_newlines=True, errors="replace", timeout=timeout)
            return StepResult(name, sid, "success" if p.returncode == 0 else "failure", p.stdout, {})
        except subprocess.TimeoutExpired as e:
            return StepResult(name, sid, "failure", f"{e.output or ''}\nThe step timed out", {})

    def inputs_env(self, action, step):
        import yaml
        with open(os.path.join(action, "action.yml"), encoding="utf-8") as f:
            meta = yaml.safe_load(f)
        given = dict(step.get("with") or {})
        env = {}
        for k, decl in (meta.get("inputs") or {}).items():
            if k not in given and decl and "default" in decl:
                given[k] = decl["default"]
        for k, v in given.items():
            env["INPUT_" + k.replace(" ", "_").upper()] = self.expand(v)
        assert meta["runs"]["using"].startswith("node"), meta["runs"]
        return env, os.path.join(action, meta["runs"]["main"])

    def node_action(self, step, sid, name) -> StepResult:
        action = action_dir(self.actions, step["uses"])
        inputs, main = self.inputs_env(action, step)
        out_file = os.path.join(self.temp, f"output-{uuid.uuid4().hex}")
        summary = os.path.join(self.temp, f"summary-{uuid.uuid4().hex}")
        open(out_file, "w").close()
        open(summary, "w").close()
        env = self.step_env(step)
        env.update(inputs)
        env.update({"GITHUB_OUTPUT": out_file, "GITHUB_STEP_SUMMARY": summary, "GITHUB_ACTION": sid})
        p = subprocess.run(["node", main], cwd=self.ws, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True, errors="replace")
        return StepResult(name, sid, "success" if p.returncode == 0 else "failure", p.stdout, read_outputs(out_file))

    def checkout(self, step, sid, name) -> StepResult:
        given = {k: self.expand(v) for k, v in (step.get("with") or {}).items()}
        path = os.path.join(self.ws, given.get("path", "."))
        repo = given.get("repository")
        if repo is None:  # the student's repository, already in the workspace: moved into path
            if os.path.realpath(path) != os.path.realpath(self.ws):
                os.makedirs(path, exist_ok=True)
                for f in os.listdir(self.ws):
                    if os.path.join(self.ws, f) != path and not path.startswith(os.path.join(self.ws, f) + os.sep):
                        shutil.move(os.path.join(self.ws, f), os.path.join(path, f))
            return StepResult(name, sid, "success", "the student's repository", {})
        if repo not in self.repos:
            return StepResult(name, sid, "failure", f"repository {repo} not found (no --repo for it)", {})
        if os.path.exists(path):
            shutil.rmtree(path)
        os.makedirs(path)
        ref = given.get("ref") or "HEAD"
        p = subprocess.run(f"git -C '{self.repos[repo]}' archive '{ref}' | tar -x -C '{path}'", shell=True,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
        return StepResult(name, sid, "success" if p.returncode == 0 else "failure",
                          f"{repo}@{ref} into {given.get('path', '.')}\n{p.stdout}", {})


def reporter_points(output):
    """(points, max points) of the reporter's 'Points X/Y' notice (what GitHub Classroom records), or
    None when it printed none."""
    m = re.search(r"::notice title=Autograding complete::Points ([0-9.]+)/([0-9.]+)", output)
    return (float(m.group(1)), float(m.group(2))) if m else None


def only_sections(job, keep):
    """The job with the steps of the sections in `keep` alone (and the reporter told of those)."""
    kept, ids = [], []
    for step in job["steps"]:
        m = re.match(r"Section (\S+?):", str(step.get("name", "")))
        if m and m.group(1) not in keep:
            continue
        if "id" in step:
            ids.append(step["id"])
        kept.append(step)
    reporter = kept[-1]
    reporter["with"]["runners"] = ",".join(i for i in reporter["with"]["runners"].split(",") if i in ids)
    reporter["env"] = {k: v for k, v in reporter["env"].items() if k[:-len("_RESULTS")].lower() in ids}
    return dict(job, steps=kept)


def main(argv):
    import argparse
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("workspace")
    ap.add_argument("--actions", required=True)
    ap.add_argument("--repo", action="append", default=[], help="OWNER/NAME=LOCAL_GIT_FOLDER")
    ap.add_argument("--workflow", help="default: WORKSPACE/.github/workflows/classroom.yml")
    ap.add_argument("--only", nargs="+", help="the sections whose steps run (11.1 ...)")
    a = ap.parse_args(argv)
    wf = a.workflow or os.path.join(a.workspace, ".github", "workflows", "classroom.yml")
    job = load_workflow(wf)
    if a.only:
        job = only_sections(job, a.only)
    repos = dict(r.split("=", 1) for r in a.repo)
    res = Runner(a.workspace, a.actions, repos, echo=True).run(job)
    print(json.dumps({"ok": res.ok, "points": reporter_points(res.steps[-1].output)}))
    return 0 if res.ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
