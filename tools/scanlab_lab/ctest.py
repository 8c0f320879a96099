"""What ctest writes: the JUnit file (--output-junit) and its console log.

ctest's JUnit says only pass, fail or not run: every <failure> has message="" whatever happened.
How a test ended (a wrong value, a signal, a timeout) is in the console log, on the test's status
line and in the list at the end (captured from ctest 3.25, see tests/fixtures/):

     3/8 Test #3: 11.9.exercise.cpu.Grading.segfault ...***Exception: SegFault  0.00 sec
     4/8 Test #4: 11.9.exercise.cpu.Grading.aborts .....Subprocess aborted***Exception:   0.00 sec
     5/8 Test #5: 11.9.exercise.cpu.Grading.hangs ......***Timeout   3.01 sec
    The following tests FAILED:
          3 - 11.9.exercise.cpu.Grading.segfault (SEGFAULT)
          4 - 11.9.exercise.cpu.Grading.aborts (Subprocess aborted)
"""
import re
import xml.etree.ElementTree as ET
from typing import Dict, List, NamedTuple


class Case(NamedTuple):
    name: str
    result: str  # passed, failed, skipped
    time_s: float
    output: str  # what the test printed (stdout and stderr)


def read_junit(path) -> List[Case]:
    cases = []
    for case in ET.parse(path).getroot().iter("testcase"):
        status = case.get("status", "")
        if case.find("failure") is not None or status == "fail":
            result = "failed"
        elif case.find("skipped") is not None or status in ("notrun", "disabled", "skipped"):
            result = "skipped"
        else:
            result = "passed"
        try:
            time_s = float(case.get("time") or 0)
        except ValueError:
            time_s = 0.0
        cases.append(Case(case.get("name", ""), result, time_s, case.findtext("system-out") or ""))
    return cases


STATUS_LINE = re.compile(r"^\s*\d+/\d+ Test\s+#\d+: (\S+) \.*\s*(.*?)\s+[\d.]+ sec\s*$")
FAILED_LINE = re.compile(r"^\s*\d+ - (\S+) \((.+)\)\s*$")


def read_statuses(log_text) -> Dict[str, str]:
    """How each test that did not pass ended, by name: "Failed", "SEGFAULT", "Timeout",
    "Subprocess aborted", "NUMERICAL", "ILLEGAL", "OTHER_FAULT", ... The list at the end of the
    log wins; a status line is used where that list is missing (ctest interrupted)."""
    statuses, in_list = {}, False
    for line in log_text.splitlines():
        m = STATUS_LINE.match(line)
        if m and not m.group(2).startswith("Passed"):
            statuses.setdefault(m.group(1), status_from_line(m.group(2)))
            continue
        if line.startswith("The following tests FAILED:"):
            in_list = True
        elif in_list:
            m = FAILED_LINE.match(line)
            if m:
                statuses[m.group(1)] = m.group(2)
            elif line.strip():
                in_list = False
    return statuses


def status_from_line(text):
    """'***Exception: SegFault' -> SEGFAULT, '***Timeout' -> Timeout, as the list at the end says."""
    text = text.strip()
    if "aborted" in text:
        return "Subprocess aborted"
    m = re.search(r"Exception: *(\S.*)?$", text)
    if m:
        return {"segfault": "SEGFAULT", "numerical": "NUMERICAL", "illegal": "ILLEGAL",
                "interrupt": "INTERRUPT"}.get((m.group(1) or "").strip().lower(), "OTHER_FAULT")
    return text.strip("*").strip() or "Failed"
