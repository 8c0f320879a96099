"""What ./lab grade prints: per section its warnings and untouched stubs, then the failed tests
grouped by what went wrong (the kind, and for crashes the signal), each group with its first
diagnosis in full and the names of the others; then the points."""
import re
import sys

ALSO = 12  # names listed after a group's first test; the JSON has them all


def fmt(points) -> str:
    return f"{points:g}"


def short(name):
    """11.2.exercise.cpu.Grading.kogge_stone.int32_add_inclusive -> cpu Grading.kogge_stone.int32_..."""
    m = re.match(r"^\d+\.\d+\.exercise\.(\w+)\.(.*)$", name)
    return f"{m.group(2)} ({m.group(1)})" if m and m.group(1) != "cpu" else (m.group(2) if m else name)


def also(first, name):
    """name, short, and without the suite when it is first's (int32_max_inclusive)."""
    a, b = short(first), short(name)
    return b.rsplit(".", 1)[-1] if a.rsplit(".", 1)[0] == b.rsplit(".", 1)[0] else b


def indent(text, by="      "):
    return "\n".join(by + line for line in text.splitlines())


def print_report(summary, out=None):
    """What the student reads: per section its warnings, then the failed tests grouped by what went
    wrong, each group with its first diagnosis in full; then the points."""
    out = out or sys.stdout
    w = lambda s="": print(s, file=out)
    w()
    for s in summary["sections"]:
        if not s["failed_tests"] and not s["warnings"]:
            continue
        w(f"section {s['section']} ({s['title']}): " +
          ("does not build" if s["status"] == "build-failed" else "stopped: it ran past its time limit"
           if s["status"] == "timed out" else f"{s['failed']} of {s['total']} tests failed"))
        for line in s["warnings"]:
            w(f"  {line}")
        for line in s.get("notes", []):
            w(f"  note: {line}")
        for p in s.get("properties", []):
            why = ("" if p["passed"] else ": no test of it ran" if not p["tests"] else
                   f": failed by {short(p['failed_tests'][0])}" +
                   (f" and {len(p['failed_tests']) - 1} more" if len(p["failed_tests"]) > 1 else ""))
            w(f"  [{'x' if p['passed'] else ' '}] {p['title']}: {fmt(p['points'])} of {fmt(p['max_points'])} points{why}")
        if s["untouched"]:
            for f in s["untouched"]:
                w(f"  the TODO(student) blocks of {f} are still empty")
        groups = {}
        for t in s["failed_tests"]:
            key = (t["kind"], re.sub(r" in \S+", "", t["why"].splitlines()[0]) if t["kind"] in ("crash", "timeout")
                   else "")
            groups.setdefault(key, []).append(t)
        if s["not_started"] and s["status"] != "build-failed":
            w()
            continue  # nothing was filled in: the per-test stories would only say "never written"
        for (kind, _), tests in groups.items():
            # In full: the first test the grader explained (its smallest failing case and where it went
            # wrong, grade.py), else the first; a kernel with large sections is explained only by a
            # later test (its small-section variant).
            first = next((t for t in tests if t.get("explanation")), tests[0])
            tests = [first] + [t for t in tests if t is not first]
            label = f"{kind}, {len(tests)} test{'s' if len(tests) > 1 else ''}"
            if all(t.get("feedback") for t in tests):
                label += "; feedback, no points"
            w(f"  [{label}] {short(first['name'])}:")
            w(indent(first["why"]))
            if len(tests) > 1:
                names = [also(first["name"], t["name"]) for t in tests[1:]]
                more = f" and {len(names) - ALSO} more (grade-summary.json lists them)" if len(names) > ALSO else ""
                w(f"    also: {', '.join(names[:ALSO])}{more}")
        w()
    rows = [[s["section"], f"{s['passed']}/{s['total']}", f"{s['points']:.1f}", note(s)] for s in summary["sections"]]
    head = ["section", "passed/total", "points", ""]
    width = [max(len(r[i]) for r in rows + [head]) for i in range(4)]
    w(f"{head[0]:<{width[0]}}  {head[1]:>{width[1]}}  {head[2]:>{width[2]}}")
    for r in rows:
        w(f"{r[0]:<{width[0]}}  {r[1]:>{width[1]}}  {r[2]:>{width[2]}}  {r[3]}".rstrip())
    w(f"{'total':<{width[0]}}  {'':>{width[1]}}  {summary['total_points']:>{width[2]}.1f}  of {summary['max_points']}")


def note(s) -> str:
    parts = [{"graded": "", "build-failed": "does not build", "no-tests": "no tests for this section",
              "no tests ran": "no tests ran", "not-graded": "not graded: no tests in this build",
              "timed out": ""}[s["status"]]]
    kinds = {}
    for t in s["failed_tests"]:
        kinds[t["kind"]] = kinds.get(t["kind"], 0) + 1
    if s["status"] != "build-failed":
        parts += [f"{n} {k}" for k, n in kinds.items()]
    if s["skipped"]:
        parts.append(f"{s['skipped']} skipped")
    if s["warnings"]:
        parts.append(f"{len(s['warnings'])} warning{'s' if len(s['warnings']) > 1 else ''}")
    if s["untouched"]:
        parts.append("not started" if s["not_started"] else "partly not started")
    return "; ".join(p for p in parts if p)
