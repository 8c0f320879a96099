"""Compiler output: the student's paths put back, warnings and errors picked out.

./lab grade builds a copy of the student's folder (build/grade/exercises); the messages must name
the student's own files, so that an editor or a terminal can jump to them.
"""
import os
import re
from typing import List

DIAGNOSTIC = re.compile(r"^(\S.*?):(\d+):(?:(\d+):)? (warning|error|fatal error): ")


def rewrite_paths(text, copy_dir, student_dir) -> str:
    """copy_dir/... -> student_dir/... everywhere in text (both absolute, without a trailing /)."""
    if not copy_dir or not student_dir or copy_dir == student_dir:
        return text
    return text.replace(copy_dir.rstrip("/") + "/", student_dir.rstrip("/") + "/")


def diagnostics(text, severity) -> List[str]:
    """The compiler's lines of one severity ("warning" or "error", which takes "fatal error" too),
    each once, in order. nvcc's own '... warning #177-D: ...' lines count as well."""
    found = []
    for line in text.splitlines():
        m = DIAGNOSTIC.match(line)
        level = m.group(4) if m else None
        if not m and re.search(r"\(\d+\): (warning|error)( #\d+-D)?: ", line):
            level = "warning" if "): warning" in line else "error"
        if level and severity in level and line not in found:
            found.append(line.rstrip())
    return found


def first_error(text, context=6) -> str:
    """The first compiler error with the lines that follow it (the code and the caret), else the
    last lines of the output: what a student fixes first."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = DIAGNOSTIC.match(line)
        if m and "error" in m.group(4):
            block = [line]
            for nxt in lines[i + 1:i + 1 + context]:
                if DIAGNOSTIC.match(nxt) or nxt.startswith(("[", "ninja:", "In file included", "FAILED:")):
                    break
                block.append(nxt.rstrip())
            return "\n".join(block)
    tail = [l for l in lines if l.strip()][-context:]
    return "\n".join(tail)


def compiled_section(text, us) -> bool:
    """Did this build compile the section's exercise kernels (scanlab_<us>_exercise_<backend>)?
    When it did not (nothing changed), the warnings of the last build that did still hold."""
    return re.search(rf"Building (CXX|CUDA) object \S*scanlab_{re.escape(us)}_exercise_", text) is not None


def relative(path, root):
    """path relative to root when under it (exercises/11_2_kogge_stone/x.cuh), else as is."""
    try:
        rel = os.path.relpath(path, root)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel
