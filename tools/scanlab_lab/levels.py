"""The two levels of an exercise: guided and open.

guided (exercises/<folder>/, written by hand): the solution with small TODO(student) blocks emptied; the
    loads, shared arrays, loop headers and barriers around them are given.
open (made here from solutions/<folder>/): the body of each function that chapters/<dir>/open_level.txt
    names is the student's, whole; its signature and the contract in the comment above it stay. A
    kernel written from the book moves in with renames only, and the student's own structure (and its
    bugs: a missing load guard, a barrier in the wrong place) can be written at all.

The same grading tests serve both levels: the files, functions and signatures are the same.

open_level.txt, one line per function (# comments):
    <file> <function> [return <expression>]
The body of <function> in solutions/<dir>/<file> becomes a TODO(student) block with "(your code here)",
a (void) use of each parameter (no "unused" warnings before the student starts) and, for a function that
returns a value, `return <expression>;`. Every TODO(student) block of the solution must lie in a named
function, so no part of the guided answer is left in an open file."""
import os
import re
from typing import Dict, List, NamedTuple, Optional, Tuple

from . import LabError

LEVELS = ("guided", "open")
SPEC = "open_level.txt"
TODO_BEGIN = "// TODO(student) begin"


class Opened(NamedTuple):
    file: str
    function: str
    returns: Optional[str]  # the stub's return expression, or None for a void function


def read_spec(path) -> List[Opened]:
    out = []
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            m = re.fullmatch(r"(\S+)\s+([A-Za-z_]\w*)(?:\s+return\s+(.+))?", line)
            if not m:
                raise LabError(f"{path}:{n}: cannot read '{raw.strip()}' (<file> <function> [return <expression>])")
            out.append(Opened(m.group(1), m.group(2), m.group(3)))
    return out


def skip_code(text, i) -> int:
    """The index after the comment, string or character literal starting at text[i], else i."""
    if text.startswith("//", i):
        end = text.find("\n", i)
        return len(text) if end < 0 else end
    if text.startswith("/*", i):
        end = text.find("*/", i + 2)
        return len(text) if end < 0 else end + 2
    if text[i] in "\"'":
        q, j = text[i], i + 1
        while j < len(text) and text[j] != q:
            j += 2 if text[j] == "\\" else 1
        return j + 1
    return i


def matching(text, i, open_ch, close_ch) -> int:
    """The index of the bracket that closes the one at text[i] (comments and literals skipped)."""
    depth = 0
    while i < len(text):
        j = skip_code(text, i)
        if j != i:
            i = j
            continue
        if text[i] == open_ch:
            depth += 1
        elif text[i] == close_ch:
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise ValueError(f"no '{close_ch}' closes the '{open_ch}'")


def find_body(text, function) -> Tuple[List[str], int, int, str]:
    """(the parameter names, the index of the body's '{', the index of its '}', the body's indentation)
    of the definition of `function`: the first `function(...)` followed by a body."""
    for m in re.finditer(r"\b" + re.escape(function) + r"\s*\(", text):
        line_start = text.rfind("\n", 0, m.start()) + 1
        if "//" in text[line_start:m.start()]:  # in a comment
            continue
        close = matching(text, m.end() - 1, "(", ")")
        after = re.match(r"\s*(const\s*)?(noexcept\s*)?\{", text[close + 1:])
        if not after:
            continue
        params = split_top(text[m.end():close])
        names = [re.findall(r"[A-Za-z_]\w*", p.split("=")[0])[-1] for p in params if p.strip() and p.strip() != "void"]
        brace = close + 1 + after.end() - 1
        end = matching(text, brace, "{", "}")
        # The body's indentation: that of the line with the closing brace (a signature may wrap).
        indent = re.match(r"[ \t]*", text[text.rfind("\n", 0, end) + 1:]).group(0)
        return names, brace, end, indent
    raise ValueError(f"no definition of {function}()")


def split_top(params) -> List[str]:
    """The parameters of a list, split at the commas outside <>, () and []."""
    parts, depth, cur = [], 0, ""
    for ch in params:
        depth += ch in "<(["
        depth -= ch in ">)]"
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    return parts + [cur]


def open_text(text, opened: List[Opened], where) -> str:
    """The solution file `text` with the bodies of the `opened` functions made TODO(student) blocks."""
    spans = []
    for o in opened:
        try:
            names, lo, hi, indent = find_body(text, o.function)
        except ValueError as e:
            raise LabError(f"{where}: {e} (named in {SPEC})")
        indent += "  "
        body = [f"{indent}// TODO(student) begin: your code; the comment above states what the tests check.",
                f"{indent}// (your code here)"]
        if names:
            body.append(indent + ", ".join(f"(void){n}" for n in names) +
                        ";  // (silences \"unused\" warnings until you use them)")
        if o.returns:
            body.append(f"{indent}return {o.returns};")
        body.append(f"{indent}// TODO(student) end")
        spans.append((lo, hi, "{\n" + "\n".join(body) + "\n" + indent[:-2] + "}"))
    out, at = [], 0
    for lo, hi, new in sorted(spans):
        if lo < at:
            raise LabError(f"{where}: two functions of {SPEC} overlap")
        out += [text[at:lo], new]
        at = hi + 1
    result = "".join(out) + text[at:]
    # No part of the guided answer may stay: every TODO block of the solution was inside an opened body.
    left = [b for b in re.findall(r"// TODO\(student\) begin.*", result) if "your code; the comment above" not in b]
    if left:
        raise LabError(f"{where}: a TODO(student) block is outside the functions {SPEC} opens: '{left[0][:60]}...'")
    return result


def open_files(root, folder) -> Dict[str, str]:
    """{file: text} of section `folder`'s open level (the solution's files that open_level.txt names;
    the others are the same at both levels: taken from exercises/). {} without a spec or solutions."""
    spec = os.path.join(root, "chapters", folder, SPEC)
    if not os.path.isfile(spec) or not os.path.isdir(os.path.join(root, "solutions", folder)):
        return {}
    by_file: Dict[str, List[Opened]] = {}
    for o in read_spec(spec):
        by_file.setdefault(o.file, []).append(o)
    out = {}
    for f, opened in by_file.items():
        path = os.path.join(root, "solutions", folder, f)
        with open(path, encoding="utf-8") as s:
            out[f] = open_text(s.read(), opened, os.path.relpath(path, root))
    return out


def has_open_level(root, folder) -> bool:
    return os.path.isfile(os.path.join(root, "chapters", folder, SPEC))


def write_open(root, folder, dst) -> List[str]:
    """Writes section `folder`'s open-level files over dst/<folder>/ (a copy of the guided ones)."""
    written = []
    for f, text in open_files(root, folder).items():
        with open(os.path.join(dst, folder, f), "w", encoding="utf-8") as out:
            out.write(text)
        written.append(f)
    return written
