"""./lab run [SECTION...] [--exercise] [-- ARG...]: the arguments (plan), and once the programs are
built, each section's program run as it describes itself (run_all), or with the user's ARGs (passthrough).

--exercise runs the student's kernels (scanlab_<section>_exercise, built from exercises/) instead of the
solutions (scanlab_<section>); in the student release, which has no solutions, it is the default. After
`--`, the ARGs go to each program as they are (`-- --input 4,6,7,1,2,8,5,2 --trace`): no table.

`<program> --capabilities` prints one JSON object, e.g.
    {"section": "11.2", "options": ["--reps", "--json", "--csv", "--trace", ...], "trace_file": false}
"--reps" among the options: the program times (run with --reps 5); "trace_file": it takes
--trace FILE and writes the step-by-step traces the trace figures are drawn from (11.3's)."""
import json
import os
import subprocess
from typing import List, NamedTuple

from . import LabError, sections
from .grade import rel, say, warn
from .sections import Section


class Plan(NamedTuple):
    sections: List[Section]
    exercise: bool          # the student's kernels (scanlab_<id>_exercise)
    passthrough: List[str]  # the ARGs after --, or [] (the table run)
    given: bool             # sections were named (else: every section)

    def program(self, s: Section) -> str:
        return f"scanlab_{s.us}" + ("_exercise" if self.exercise else "")

    def targets(self) -> List[str]:
        """What to build: every solution program is one target (scanlab_programs)."""
        if not self.exercise and not self.given:
            return ["scanlab_programs"]
        return [self.program(s) for s in self.sections]

    def results(self, bdir) -> str:
        """Where the table run writes its JSON and CSV: the exercises' apart from the solutions'."""
        return os.path.join(bdir, "exercise-results" if self.exercise else "results")


def plan(root, args) -> Plan:
    """The run's sections, source and passthrough ARGs; a usage error (exit status 2) for a bad one."""
    passthrough = []
    if "--" in args:
        k = args.index("--")
        args, passthrough = args[:k], args[k + 1:]
        if not passthrough:
            raise LabError("nothing after '--': give the program's arguments (e.g. -- --input 4,6,7,1 --trace)", 2)
    exercise = "--exercise" in args or not os.path.isdir(os.path.join(root, "solutions"))
    names = [a for a in args if a != "--exercise"]
    bad = [a for a in names if a.startswith("-")]
    if bad:
        raise LabError(f"unknown option '{bad[0]}' for run (program options go after '--'; see ./lab help)", 2)
    chosen = sections.resolve(sections.load(root), names)
    if not chosen:
        raise LabError("there are no sections yet (chapters/sections.txt)")
    return Plan(chosen, exercise, passthrough, bool(names))


def passthrough(root, bdir, p: Plan) -> int:
    """Runs each program with the user's ARGs, its output as it comes; the worst exit status."""
    rc = 0
    for s in p.sections:
        exe = os.path.join(bdir, "bin", p.program(s))
        if not os.access(exe, os.X_OK):
            raise LabError(f"{rel(exe, root)} was not built")
        say(f"{rel(exe, root)} {' '.join(p.passthrough)}")
        rc = max(rc, subprocess.call([exe] + p.passthrough, cwd=root))
    return rc


def capabilities(exe) -> dict:
    """The program's own description; {} (with a warning) for one that cannot give it."""
    try:
        p = subprocess.run([exe, "--capabilities"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=60)
        caps = json.loads(p.stdout) if p.returncode == 0 else None
    except (OSError, ValueError, subprocess.SubprocessError):
        caps = None
    if not isinstance(caps, dict) or not isinstance(caps.get("options", []), list):
        warn(f"{os.path.basename(exe)} --capabilities gave no JSON object: running it with --json and --csv only")
        return {"options": ["--json", "--csv"]}
    return caps


def arguments(caps, results, section_id) -> List[str]:
    options = caps.get("options", [])
    args = []
    if "--reps" in options:
        args += ["--reps", "5"]
    if "--json" in options:
        args += ["--json", os.path.join(results, f"{section_id}.json")]
    if "--csv" in options:
        args += ["--csv", os.path.join(results, f"{section_id}.csv")]
    if caps.get("trace_file"):
        args += ["--trace", os.path.join(results, f"{section_id}.traces.json")]
    return args


def run_all(root, bdir, p: Plan) -> dict:
    """Runs the programs; returns {"ran": [...], "failed": [...], "jsons": [...], "results": DIR}."""
    results = p.results(bdir)
    os.makedirs(results, exist_ok=True)
    ran, failed, jsons = [], [], []
    present = [(s, os.path.join(bdir, "bin", p.program(s))) for s in p.sections]
    for s, exe in present:
        if not os.access(exe, os.X_OK):
            warn(f"section {s.id} has no program ({rel(exe, root)}): skipped")
    present = [(s, exe) for s, exe in present if os.access(exe, os.X_OK)]
    if not present:
        raise LabError(f"no section program was built in {rel(os.path.join(bdir, 'bin'), root)}")
    for k, (s, exe) in enumerate(present, 1):
        for ext in (".json", ".csv"):
            path = os.path.join(results, s.id + ext)
            if os.path.exists(path):
                os.remove(path)
        args = arguments(capabilities(exe), results, s.id)
        say(f"running section {s.id} ({k} of {len(present)}): {rel(exe, root)} "
            + " ".join(rel(a, root) if os.path.isabs(a) else a for a in args))
        rc = subprocess.call([exe] + args, cwd=root)
        (ran if rc == 0 else failed).append(s.id)
        if os.path.exists(os.path.join(results, s.id + ".json")):
            jsons.append(os.path.join(results, s.id + ".json"))
    return {"ran": ran, "failed": failed, "jsons": jsons, "results": results}
