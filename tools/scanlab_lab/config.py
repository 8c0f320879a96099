"""grading.toml: each section's points (weight) and which of its tests count.

    [default]                 # every section (these are the defaults when the file says nothing)
    weight = 10               # the section's points: weight * passed / counted tests
    tests = ["*"]             # the tests that count: shell patterns on the test's name after
    exclude = []              #   "<section>.exercise.<backend>." (Grading.sequential.int32_add_inclusive)

    [sections."11.3"]         # one section: any key of [default]
    weight = 5
    exclude = ["Measured.*"]

Python 3.11 reads it with tomllib; on 3.9 and 3.10 (no tomllib) the small reader below reads the same
subset: tables, and values that are numbers, strings or one-line arrays of strings."""
import fnmatch
import os
import re
from typing import Dict, NamedTuple, Tuple

from . import LabError

FILE = "grading.toml"


class Rule(NamedTuple):
    weight: float
    tests: Tuple[str, ...]
    exclude: Tuple[str, ...]

    def counts(self, test):
        """Does the test (its name after "<section>.exercise.<backend>.") count?"""
        return (any(fnmatch.fnmatchcase(test, p) for p in self.tests)
                and not any(fnmatch.fnmatchcase(test, p) for p in self.exclude))


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
    bad = set(table) - {"weight", "tests", "exclude"}
    if bad:
        raise LabError(f"{FILE}: {where} has an unknown key '{sorted(bad)[0]}' (use weight, tests, exclude)", 2)
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
    return Rule(weight, lists["tests"], lists["exclude"])


# ---- the subset reader (Python < 3.11) --------------------------------------------------------------
_STRING = r'"(?:[^"\\]|\\.)*"'
_KEY = re.compile(r'^([A-Za-z0-9_-]+)\s*=\s*(.*)$')


def parse_subset(text):
    """Tables ([a], [a."b"]), and key = number | "string" | ["string", ...] on one line; # comments."""
    data, table = {}, None
    for n, raw in enumerate(text.splitlines(), 1):
        line = strip_comment(raw).strip()
        if not line:
            continue
        m = re.match(r'^\[\s*([A-Za-z0-9_-]+)(?:\s*\.\s*(' + _STRING + r'|[A-Za-z0-9_-]+))?\s*\]$', line)
        if m:
            table = data.setdefault(m.group(1), {})
            if m.group(2):
                table = table.setdefault(m.group(2).strip('"'), {})
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
