"""A failed test's diagnosis, from what it printed and how ctest says it ended, and its kind.

Kinds: wrong value, race, barrier divergence, deadlock (a stuck block or the emulator's watchdog),
memory error, crash, timeout, build error (set by grade.py), other. The wording matched is that of
common/src/remote_checker.cpp (the runner of a student's kernels crashed or ended), common/src/verify.cpp, common/src/program.cpp (the race check), common/emu/src/block.cpp and
block_report.cpp (deadlock, watchdog, divergence, stack overflow) and the mutants' EXPECT files.
"""
import re
from typing import List, NamedTuple

# In the order a kind explains a failure best: a test that crashed after a wrong value crashed; a
# wrong value that the race check then shows to depend on the thread order is a race.
KINDS = ["crash", "timeout", "deadlock", "barrier divergence", "memory error", "race", "wrong value", "other"]

PATTERNS = [  # (kind, regex), the first match wins
    # The grader's runner, where a student's kernels run (common/src/remote_checker.cpp), died.
    ("crash", r"the kernels' process (crashed|ended before it answered|answered .* not a result)"),
    # The emulator's watchdog ended the runner: one thread ran on and on (an endless loop).
    ("timeout", r"the kernels' process was stopped by the emulator's watchdog|time limit: the launch ran"),
    ("deadlock", r"watchdog: no progress|deadlock: .*no thread can continue|\bdeadlock\b"),
    ("barrier divergence", r"barrier divergence|meet in different warp operations|Barrier error detected|"
                           r"calls __\w+_sync with (mask|width)|exited, but .* for it"),
    ("memory error", r"memory error: |stack overflow|AddressSanitizer|out of bounds|"
                     r"invalid (global |shared )?(read|write|address)|outside (the|its) (array|buffer|allocation)|"
                     r"Invalid __\w+__ (read|write|atomic)|Uninitialized __global__ memory read|"
                     r"illegal memory access|misaligned address"),
    ("race", r"depends on the order of the threads|a race\b|data race|Race reported between"),
    ("wrong value", r"elements? wrong|never written|, expected |is not within|tolerance|"
                    r"^Expected equality of these values|^Value of: |^Expected: "),
]

SIGNALS = {  # ctest's status -> what happened, in words
    "SEGFAULT": "segmentation fault",
    "NUMERICAL": "floating-point exception",
    "ILLEGAL": "illegal instruction",
    "INTERRUPT": "interrupted",
    "BUS_ERROR": "bus error",
    "OTHER_FAULT": "killed by a signal",
}

FAILURE_HEADER = re.compile(r"^(.*):(\d+): Failure$|^unknown file: Failure$")
TEST_END = re.compile(r"^\[\s+(FAILED|OK|SKIPPED)\s+\]")
NOISE = re.compile(r"^scanlab emu: random block/thread order")


class Diagnosis(NamedTuple):
    kind: str
    why: str  # the first diagnosis in full (several lines where the test said more)


def kind_of(text) -> str:
    for kind, pattern in PATTERNS:
        if re.search(pattern, text, re.MULTILINE):
            return kind
    return "other"


def unescape(literal) -> str:
    """The text of a C string literal as gtest prints it ("a\\nb\\"c" -> a, newline, b"c)."""
    body = literal[1:-1] if len(literal) >= 2 and literal[0] == literal[-1] == '"' else literal
    out, i = [], 0
    simple = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "'": "'", "0": "\0"}
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            nxt = body[i + 1]
            if nxt == "x":
                m = re.match(r"[0-9A-Fa-f]{1,2}", body[i + 2:])
                if m:
                    out.append(chr(int(m.group(0), 16)))
                    i += 2 + len(m.group(0))
                    continue
            out.append(simple.get(nxt, nxt))
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def failure_messages(output) -> List[str]:
    """Each gtest failure of the test, as the student should read it: for EXPECT_EQ(text, "") the
    text itself (unescaped, in full), then the message streamed after it ("see ...")."""
    messages, block = [], None
    for line in output.splitlines():
        if FAILURE_HEADER.match(line) or TEST_END.match(line):
            if block is not None:
                messages.append(tidy(block))
            block = [] if FAILURE_HEADER.match(line) else None
            continue
        if block is not None and not NOISE.match(line):
            block.append(line)
    if block is not None:
        messages.append(tidy(block))
    return [m for m in messages if m]


def tidy(lines) -> str:
    """One failure block -> its message. gtest's EXPECT_EQ block reads:
         Expected equality of these values:
           failure
             Which is: "the text"
           ""
         [With diff: ... ]   (multi-line text)
         the streamed message
    """
    if not lines or not lines[0].startswith("Expected equality"):
        return "\n".join(l.rstrip() for l in lines).strip()
    values, i = [], 1
    while i < len(lines) and lines[i].startswith("  "):  # the compared expressions and their values
        m = re.match(r'^\s+Which is: (".*")\s*$', lines[i])
        if m:
            values.append(unescape(m.group(1)))
        i += 1
    if i < len(lines) and lines[i].startswith("With diff:"):
        i += 1
        while i < len(lines) and (lines[i][:1] in ("@", "-", "+", " ") or not lines[i]):
            i += 1
    rest = [l.rstrip() for l in lines[i:] if l.strip()]
    text = "\n".join(v for v in values if v)
    if not text:  # not a string comparison: keep gtest's words
        return "\n".join(l.rstrip() for l in lines).strip()
    return "\n".join([text] + rest)


def died(output) -> bool:
    """The test started ([ RUN ]) but never finished ([ FAILED ] / [ OK ]): the process ended."""
    started = ended = False
    for line in output.splitlines():
        if line.startswith("[ RUN"):
            started = True
        elif TEST_END.match(line):
            ended = True
    return started and not ended


def diagnose(name, output, status="Failed", time_s=0.0) -> Diagnosis:
    """The kind and first diagnosis of the failed test `name`; status is ctest's (read_statuses)."""
    messages = failure_messages(output)
    said = ""
    if messages:
        best = min(messages, key=lambda m: KINDS.index(kind_of(m)))
        said = messages[0] if best == messages[0] else messages[0] + "\n" + best
    if status == "Timeout":
        head = f"timed out after {round(time_s)} s in {name} (a kernel that never finishes?)"
        return Diagnosis("timeout", "\n".join(x for x in (head, said) if x))
    if status in SIGNALS or "aborted" in status.lower():
        what = SIGNALS.get(status)
        head = f"crashed ({what}) in {name}" if what else f"aborted in {name} (abort() or a failed assert)"
        return Diagnosis("crash", "\n".join(x for x in (head, said or last_words(output)) if x))
    if died(output) and not messages:
        words = last_words(output)
        if kind_of(words) == "memory error":
            return Diagnosis("memory error", words)
        head = f"crashed (the test program stopped before the test finished) in {name}"
        return Diagnosis("crash", "\n".join(x for x in (head, words) if x))
    report = sanitizer_report(output) or program_failure(output)
    if report:
        return Diagnosis(kind_of(report), report)
    if not messages:
        return Diagnosis("other", last_words(output) or f"{name} failed without a message: see the ctest log")
    kind = kind_of(said)
    if kind == "other" and "Expected equality of these values" in output:
        kind = "wrong value"  # a value the test expected, not one it recognises
    return Diagnosis(kind, said)


def last_words(output, count=3) -> str:
    """What the program printed after the test started, last lines (a crash's own report)."""
    lines, started = [], False
    for line in output.splitlines():
        if line.startswith("[ RUN"):
            started = True
        elif started and line.strip() and not NOISE.match(line) and not line.startswith("[=") \
                and not line.startswith("[-"):
            lines.append(line.rstrip())
    return "\n".join(lines[-count:])


SANITIZER_LINE = re.compile(r"^========= ?(.*)$")
SANITIZER_NOISE = ("COMPUTE-SANITIZER", "ERROR SUMMARY", "RACECHECK SUMMARY", "Program hit", "Target application")
PROGRAM_FAILURE = re.compile(r"^\s*FAILED: (.+)$", re.MULTILINE)


def sanitizer_report(output, count=5) -> str:
    """compute-sanitizer's first report (memcheck, racecheck, synccheck, initcheck), its first lines:
    what happened, where (kernel, file:line), and by which thread; "" if the output has none."""
    lines, inside = [], False
    for line in output.splitlines():
        m = SANITIZER_LINE.match(line)
        if not m:
            continue
        text = m.group(1).rstrip()
        if not inside:
            inside = bool(text) and not text.startswith(SANITIZER_NOISE)
        if inside:
            if not text or text.lstrip().startswith(("Saved host backtrace", "Host Frame", "Device Frame")):
                break
            lines.append(" ".join(text.split()))
            if len(lines) == count:
                break
    return "compute-sanitizer: " + "\n".join(lines) if lines else ""


def program_failure(output) -> str:
    """The first "FAILED: ..." line of a section program run outside GoogleTest (the sanitizer tests
    run the program; a kernel that fails on its own there says so in its results)."""
    m = PROGRAM_FAILURE.search(output)
    return f"the program failed: {m.group(1).strip()}" if m else ""


# The grader's smallest failing case and where it goes wrong (common/src/explain.cpp, issue 37), as data.
SHRUNK = re.compile(r"The smallest failing case found: n = (\d+), x = ([^\n]+)\n  x +\[([^\]]*)\]\n"
                    r"  expected \[([^\]]*)\]\n  got +\[([^\]]*)\]\n  \((\d+) of \d+ elements? wrong\)")
# After an error (or for a case shown without its output): the size and the input alone.
SHRUNK_INPUT = re.compile(r"The smallest failing case found: n = (\d+), x = ([^\n]+)(?:\n  x +\[([^\]]*)\])?")
WHERE = re.compile(r"^(Where it [^\n]*|Its shared memory [^\n]*)\n((?:  [^\n]*\n?)*)", re.MULTILINE)


def _elements(text):
    """'1, 2, ... (3 more)' -> [1, 2] (numbers as the grader printed them: int where whole)."""
    out = []
    for item in text.split(", "):
        if item.startswith("..."):
            break
        try:
            out.append(int(item))
        except ValueError:
            try:
                out.append(float(item))
            except ValueError:
                out.append(item)
    return out


def explanation(why):
    """{"n", "x_is", "x", "expected", "got", "wrong", "where": {"run", "step", "elements"}} from a
    diagnosis that holds the grader's smallest failing case and/or where it went wrong; None if neither.
    x, expected and got hold at most their first 16 elements, as the report shows them."""
    data = {}
    m = SHRUNK.search(why)
    if m:
        data.update(n=int(m.group(1)), x_is=m.group(2), x=_elements(m.group(3)), expected=_elements(m.group(4)),
                    got=_elements(m.group(5)), wrong=int(m.group(6)))
    elif SHRUNK_INPUT.search(why):
        m = SHRUNK_INPUT.search(why)
        data.update(n=int(m.group(1)), x_is=m.group(2))
        if m.group(3) is not None:
            data["x"] = _elements(m.group(3))
    w = WHERE.search(why)
    if w:
        lines = [line for line in w.group(2).splitlines() if line.strip()]
        steps = [line.strip() for line in lines if not line.startswith("    ")]
        data["where"] = {"run": w.group(1).rstrip(":"), "step": steps[0].rstrip(":") if steps else "",
                         "elements": [line.strip() for line in lines if line.startswith("    ")]}
    return data or None


def explanation_line(ex) -> str:
    """One line of an explanation() for a gradebook's notes: "n = 3 (x = all ones): got [1, 2, 4], expected
    [1, 2, 3]; after the step with stride 1 (traced at ...): XY[2] holds x[0..2], it should hold x[1..2]"."""
    parts = []
    if "n" in ex:
        show = lambda a: "[" + ", ".join(str(v) for v in a) + ("" if len(a) == ex["n"] else ", ...") + "]"
        if "got" in ex:
            parts.append(f"n = {ex['n']} (x = {ex['x_is']}): got {show(ex['got'])}, expected {show(ex['expected'])}")
        else:  # an error: the size and the input
            parts.append(f"n = {ex['n']} (x = {ex['x_is']})")
    where = ex.get("where")
    if where and (where["step"] or where["elements"]):
        parts.append(": ".join(p for p in (where["step"], where["elements"][0] if where["elements"] else "") if p))
    return "; ".join(parts)
