"""./lab earned SECTION PROPERTY [--tests PATTERN ... [--exclude PATTERN ...]]: after ./lab grade
SECTION, exit 0 when the property was earned, else 1 (a GitHub Classroom step's verdict; its points
are the step's max-score).

With --tests (what the Classroom workflow gives, from the instructor's grading.toml when the release
was written), the property is the tests that the patterns pick (as in grading.toml: shell patterns on
the name after "<section>.exercise.<backend>.", --exclude leaving some out), read from the JUnit file
of the last grading (build/grade/grade-junit.xml): earned when at least one of them ran and none
failed, and the section built. grading.toml is not read, so a student's edited copy changes nothing.
Without --tests: the property of grading.toml's rubric, as the last grade's summary has it."""
import json
import os
from typing import List, Optional, Tuple

from . import LabError, config, ctest, diagnose, sections


def arguments(args) -> Tuple[str, str, Optional[List[str]], List[str]]:
    """(section, property, --tests patterns or None, --exclude patterns)."""
    plain, tests, exclude = [], None, []
    it = iter(args)
    for a in it:
        key, eq, value = a.partition("=")
        if key in ("--tests", "--exclude"):
            if not eq:
                value = next(it, None)
                if value is None:
                    raise LabError(f"{key} needs a pattern (see ./lab help)", 2)
            if key == "--tests":
                tests = (tests or []) + [value]
            else:
                exclude.append(value)
        elif a.startswith("-"):
            raise LabError(f"unknown option '{a}' for earned (see ./lab help)", 2)
        else:
            plain.append(a)
    if len(plain) != 2:
        raise LabError("earned needs SECTION PROPERTY [--tests PATTERN ...] (see ./lab help)", 2)
    if exclude and tests is None:
        raise LabError("earned: --exclude goes with --tests", 2)
    return plain[0], plain[1], tests, exclude


def read_summary(root, section_id):
    path = os.path.join(root, "build", "grade", "grade-summary.json")
    try:
        with open(path, encoding="utf-8") as f:
            summary = json.load(f)
    except (OSError, ValueError) as e:
        raise LabError(f"no grade summary to read ({e}): run ./lab grade {section_id} first", 1)
    graded = [s for s in summary.get("sections", []) if s.get("section") == section_id]
    if not graded:
        raise LabError(f"the last ./lab grade did not grade section {section_id}", 1)
    return graded[0]


def print_explanation(graded, broken):
    """The first of the failed tests `broken` that the grader explained (the smallest failing case and
    where it went wrong), in full: what the Classroom step's log shows the student."""
    for t in graded.get("failed_tests", []):
        if t.get("name") in broken and t.get("explanation"):
            print(f"  {t['name']}:")
            for line in t["why"].splitlines():
                print("    " + line)
            return


def from_tests(root, section, name, tests, exclude) -> int:
    graded = read_summary(root, section.id)
    junit = os.path.join(root, "build", "grade", "grade-junit.xml")
    try:
        cases = ctest.read_junit(junit)
    except (OSError, Exception) as e:  # a missing or garbled file: nothing was earned
        raise LabError(f"no test results to read ({junit}: {e}): run ./lab grade {section.id} first", 1)
    prefix = section.id + ".exercise."
    decided = [c for c in cases if c.name.startswith(prefix) and c.result in ("passed", "failed")
               and config.matches(c.name[len(prefix):].partition(".")[2], tests, exclude)]
    broken = [c.name for c in decided if c.result == "failed"]
    built = graded.get("status") == "graded"
    earned = built and bool(decided) and not broken
    why = ("" if earned else f": the section did not build or ran no test ({graded.get('status')})" if not built
           else ": no test of it ran" if not decided
           else f": failed by {', '.join(broken[:12])}" + (" ..." if len(broken) > 12 else ""))
    print(f"section {section.id}, {name} ({len(decided)} tests: {' '.join(tests)}"
          + (f", but not {' '.join(exclude)}" if exclude else "") + f"): {'earned' if earned else 'not earned'}{why}")
    print_explanation(graded, broken)
    return 0 if earned else 1


def main(root, args) -> int:
    section_arg, name, tests, exclude = arguments(args)
    (section,) = sections.resolve(sections.load(root), [section_arg])
    if tests is not None:
        return from_tests(root, section, name, tests, exclude)
    graded = read_summary(root, section.id)
    props = {p["name"]: p for p in graded.get("properties", [])}
    if name not in props:
        raise LabError(f"section {section.id} has no property '{name}' (it has: {', '.join(props) or 'none'})", 2)
    p = props[name]
    print(f"section {section.id}, {p['title']}: {p['points']:g} of {p['max_points']:g} points" +
          ("" if p["passed"] else ": no test of it ran" if not p["tests"] else
           f": failed by {', '.join(p['failed_tests'][:12])}" + (" ..." if len(p["failed_tests"]) > 12 else "")))
    print_explanation(graded, p["failed_tests"])
    return 0 if p["passed"] else 1
