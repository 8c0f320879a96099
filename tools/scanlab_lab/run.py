"""./lab run, once the programs are built: run each section's program as it describes itself.

`<program> --capabilities` prints one JSON object, e.g.
    {"section": "11.2", "options": ["--reps", "--json", "--csv", "--trace", ...], "trace_file": false}
"--reps" among the options: the program times (run with --reps 5); "trace_file": it takes
--trace FILE and writes the step-by-step traces the trace figures are drawn from (11.3's)."""
import json
import os
import subprocess
from typing import List

from . import LabError
from .grade import rel, say, warn
from .sections import Section


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


def run_all(root, bdir, sections: List[Section]) -> dict:
    """Runs the programs; returns {"ran": [...], "failed": [...], "jsons": [...], "results": DIR}."""
    results = os.path.join(bdir, "results")
    os.makedirs(results, exist_ok=True)
    ran, failed, jsons = [], [], []
    # The student release has no solutions: its programs run the student's kernels (scanlab_<id>_exercise).
    suffix = "" if os.path.isdir(os.path.join(root, "solutions")) else "_exercise"
    present = [(s, os.path.join(bdir, "bin", f"scanlab_{s.us}{suffix}")) for s in sections]
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
