"""grading.toml: each section's points (weight) and which of its tests count.

    [default]                 # every section (these are the defaults when the file says nothing)
    weight = 10               # the section's points: weight * passed / counted tests
    tests = ["*"]             # the tests that count: shell patterns on the test's name after
    exclude = []              #   "<section>.exercise.<backend>." (Grading.sequential.int32_add_inclusive)

    [sections."11.3"]         # one section: any key of [default]
    weight = 5
    exclude = ["Measured.*"]
    level = "open"            # the student release's exercise: "guided" (default) or "open" (levels.py)

    [sections."11.2".properties.exclusive]   # a rubric: the section's points come from properties,
    points = 3                               #   each earned when every test it decides passes
    tests = ["Grading.*_exclusive"]          #   (patterns as above; title = "..." names it in the
                                             #   report); a test no property decides is feedback:
                                             #   reported, worth no points. weight is their sum.

Python 3.11 reads it with tomllib; on 3.9 and 3.10 (no tomllib) the small reader below reads the same
subset: tables, and values that are numbers, strings or one-line arrays of strings."""
import fnmatch
import os
import re
from typing import Dict, NamedTuple, Tuple

from . import LabError

FILE = "grading.toml"


def matches(test, tests, exclude) -> bool:
    return (any(fnmatch.fnmatchcase(test, p) for p in tests)
            and not any(fnmatch.fnmatchcase(test, p) for p in exclude))


class Property(NamedTuple):
    """One property of a section's rubric: worth `points`, earned only when every test it names
    passes (and at least one ran); any of its tests failing fails it."""
    name: str
    title: str
    points: float
    tests: Tuple[str, ...]
    exclude: Tuple[str, ...]

    def decides(self, test):
        return matches(test, self.tests, self.exclude)


class Rule(NamedTuple):
    weight: float
    tests: Tuple[str, ...]
    exclude: Tuple[str, ...]
    properties: Tuple[Property, ...] = ()  # a rubric: the points come from these (weight is their sum)
    level: str = "guided"  # the exercise the student release gives: guided or open (levels.py)

    def counts(self, test):
        """Does the test (its name after "<section>.exercise.<backend>.") count?"""
        return matches(test, self.tests, self.exclude)


DEFAULT = Rule(10, ("*",), ())


class Rules:
    def __init__(self, default=DEFAULT, sections: Dict[str, Rule] = None, path=None):
        self.default, self.sections, self.path = default, sections or {}, path

    def rule(self, section_id) -> Rule:
        return self.sections.get(section_id, self.default)


def load(root, sections_known=None) -> Rules:
    """The rules of root/grading.toml (the defaults when there is none)."""
    path = os.path.join(root, FILE)
    if not os.path.isfile(path):
        return Rules()
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        import tomllib  # Python >= 3.11
        data = tomllib.loads(text)
    except ImportError:
        data = parse_subset(text)
    except ValueError as e:  # tomllib.TOMLDecodeError
        raise LabError(f"{FILE}: {e}", 2)
    return rules_from(data, sections_known)


def rules_from(data, sections_known=None) -> Rules:
    unknown = set(data) - {"default", "sections"}
    if unknown:
        raise LabError(f"{FILE}: unknown table [{sorted(unknown)[0]}] (use [default] and [sections.\"11.2\"])", 2)
    default = rule_from(data.get("default", {}), DEFAULT, "[default]")
    sections = {}
    for sid, table in data.get("sections", {}).items():
        if sections_known is not None and sid not in sections_known:
            raise LabError(f"{FILE}: [sections.\"{sid}\"] is not a section (they are {' '.join(sections_known)})", 2)
        sections[sid] = rule_from(table, default, f"[sections.\"{sid}\"]")
    return Rules(default, sections, FILE)


def rule_from(table, base: Rule, where) -> Rule:
    if not isinstance(table, dict):
        raise LabError(f"{FILE}: {where} must be a table", 2)
    bad = set(table) - {"weight", "tests", "exclude", "properties", "level"}
    if bad:
        raise LabError(f"{FILE}: {where} has an unknown key '{sorted(bad)[0]}' (use weight, tests, exclude, "
                       "properties, level)", 2)
    level = table.get("level", base.level)
    if level not in ("guided", "open"):
        raise LabError(f"{FILE}: {where} level must be \"guided\" or \"open\", not {level!r}", 2)
    if "properties" in table and where == "[default]":
        raise LabError(f"{FILE}: [default] cannot have properties: a rubric belongs to one section", 2)
    properties = properties_from(table.get("properties", {}), where)
    if properties:
        total = sum(p.points for p in properties)
        total = int(total) if float(total).is_integer() else round(total, 3)
        if "weight" in table and abs(table["weight"] - total) > 1e-9:
            raise LabError(f"{FILE}: {where} weight {table['weight']} is not the sum of its properties' points "
                           f"({total}): leave weight out, or make them agree", 2)
        table = dict(table, weight=total)
    weight = table.get("weight", base.weight)
    if isinstance(weight, bool) or not isinstance(weight, (int, float)) or weight < 0:
        raise LabError(f"{FILE}: {where} weight must be a number >= 0, not {weight!r}", 2)
    lists = {}
    for key in ("tests", "exclude"):
        v = table.get(key, getattr(base, key))
        if not isinstance(v, (list, tuple)) or not all(isinstance(p, str) for p in v):
            raise LabError(f"{FILE}: {where} {key} must be a list of strings (test name patterns)", 2)
        lists[key] = tuple(v)
    weight = int(weight) if float(weight).is_integer() else float(weight)
    return Rule(weight, lists["tests"], lists["exclude"], properties, level)


def properties_from(table, where) -> Tuple[Property, ...]:
    """[sections."11.2".properties.<name>] tables: points, tests, exclude, title."""
    if not isinstance(table, dict):
        raise LabError(f"{FILE}: {where} properties must be tables ([sections.\"11.2\".properties.inclusive])", 2)
    out = []
    for name, t in table.items():
        at = f"{where[:-1]}.properties.{name}]"
        if not isinstance(t, dict):
            raise LabError(f"{FILE}: {at} must be a table", 2)
        bad = set(t) - {"points", "tests", "exclude", "title"}
        if bad:
            raise LabError(f"{FILE}: {at} has an unknown key '{sorted(bad)[0]}' (use points, tests, exclude, title)", 2)
        points = t.get("points")
        if isinstance(points, bool) or not isinstance(points, (int, float)) or points < 0:
            raise LabError(f"{FILE}: {at} points must be a number >= 0, not {points!r}", 2)
        lists = {}
        for key, default in (("tests", None), ("exclude", [])):
            v = t.get(key, default)
            if v is None or not isinstance(v, (list, tuple)) or not v and key == "tests" \
                    or not all(isinstance(x, str) for x in v):
                raise LabError(f"{FILE}: {at} {key} must be a list of strings (test name patterns)"
                               + (", at least one" if key == "tests" else ""), 2)
            lists[key] = tuple(v)
        title = t.get("title", name.replace("_", " "))
        if not isinstance(title, str):
            raise LabError(f"{FILE}: {at} title must be a string", 2)
        points = int(points) if float(points).is_integer() else float(points)
        out.append(Property(name, title, points, lists["tests"], lists["exclude"]))
    return tuple(out)


def failed_properties(rule: Rule, failed_tests) -> Tuple[Tuple[str, ...], Tuple[str, ...]]:
    """(the properties of the rubric that these failed tests fail, the failed tests that no property
    decides: feedback). Tests named after "<section>.exercise.<backend>." (gtest's own names)."""
    counted = [t for t in failed_tests if rule.counts(t)]
    failed = tuple(p.name for p in rule.properties if any(p.decides(t) for t in counted))
    feedback = tuple(t for t in counted if not any(p.decides(t) for p in rule.properties))
    return failed, feedback


def gtest_filter(rule: Rule, names=None) -> str:
    """A GoogleTest filter that runs every test deciding the named properties of the rubric (all of
    them when `names` is None): the union of their `tests`, less the `exclude` patterns they all share
    (a superset when their excludes differ; the rubric check decides which failures count). Empty when
    the section has no rubric: run everything. Shell patterns are GoogleTest's (* and ?; no [...])."""
    chosen = [p for p in rule.properties if names is None or p.name in names]
    if not chosen:
        return ""
    positive = list(dict.fromkeys(t for p in chosen for t in p.tests))
    negative = [e for e in chosen[0].exclude if all(e in p.exclude for p in chosen)]
    for pattern in positive + negative:
        if "[" in pattern or ":" in pattern:
            raise LabError(f"{FILE}: the pattern {pattern!r} has [ or :, which a GoogleTest filter cannot say", 2)
    return ":".join(positive) + ("-" + ":".join(negative) if negative else "")


def check_mutant(rules: Rules, section_id, failed_tests, must_fail=()) -> str:
    """Why a mutant whose tests `failed_tests` failed would still earn full points under the rubric
    (or would not fail the properties its patch names in `must_fail`); "" when it loses points as it
    should. A section without a rubric loses points for any counted failure."""
    rule = rules.rule(section_id)
    if not rule.properties:
        unknown = must_fail
        if unknown:
            return f"its PROPERTY line names {', '.join(unknown)}, but section {section_id} has no rubric in {FILE}"
        if not any(rule.counts(t) for t in failed_tests):
            return f"every test it fails is left out by {FILE}: it would earn full points"
        return ""
    names = {p.name for p in rule.properties}
    unknown = [m for m in must_fail if m not in names]
    if unknown:
        return (f"its PROPERTY line names '{unknown[0]}', which is not a property of section {section_id} "
                f"(they are {', '.join(sorted(names))})")
    failed, feedback = failed_properties(rule, failed_tests)
    if not failed:
        return (f"it fails only tests that earn no points ({', '.join(feedback) or 'none counted'}): "
                f"under {FILE}'s rubric for {section_id} it would earn full points")
    missed = [m for m in must_fail if m not in failed]
    if missed:
        return (f"it should fail the property '{missed[0]}' (its PROPERTY line) but fails "
                f"{', '.join(failed)}")
    return ""


# ---- the subset reader (Python < 3.11) --------------------------------------------------------------
_STRING = r'"(?:[^"\\]|\\.)*"'
_KEY = re.compile(r'^([A-Za-z0-9_-]+)\s*=\s*(.*)$')


_PART = r'(?:' + _STRING + r'|[A-Za-z0-9_-]+)'


def parse_subset(text):
    """Tables ([a], [a."b".c]), and key = number | "string" | ["string", ...] on one line; # comments."""
    data, table = {}, None
    for n, raw in enumerate(text.splitlines(), 1):
        line = strip_comment(raw).strip()
        if not line:
            continue
        m = re.match(r'^\[\s*(' + _PART + r'(?:\s*\.\s*' + _PART + r')*)\s*\]$', line)
        if m:
            table = data
            for part in re.findall(_PART, m.group(1)):
                table = table.setdefault(part.strip('"'), {})
            continue
        m = _KEY.match(line)
        if not m or table is None:
            raise LabError(f"{FILE} line {n}: cannot read '{raw.strip()}' (key = value inside a [table])", 2)
        table[m.group(1)] = value(m.group(2).strip(), n)
    return data


def strip_comment(line):
    out, quoted = [], False
    for i, ch in enumerate(line):
        if ch == '"' and (i == 0 or line[i - 1] != "\\"):
            quoted = not quoted
        if ch == "#" and not quoted:
            break
        out.append(ch)
    return "".join(out)


def value(text, n):
    if re.fullmatch(_STRING, text):
        return text[1:-1].replace('\\"', '"').replace("\\\\", "\\")
    if re.fullmatch(r"[+-]?\d+", text):
        return int(text)
    if re.fullmatch(r"[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?", text):
        return float(text)
    if text in ("true", "false"):
        return text == "true"
    m = re.fullmatch(r"\[\s*((?:" + _STRING + r"\s*,\s*)*(?:" + _STRING + r")?\s*,?)\s*\]", text)
    if m:
        return [value(s, n) for s in re.findall(_STRING, m.group(1))]
    raise LabError(f"{FILE} line {n}: cannot read the value '{text}' (a number, a \"string\" or a [\"list\"])", 2)
