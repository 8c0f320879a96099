"""A student's exercises folder: checked against exercises/, copied for the build, and its
untouched stubs found (files whose TODO(student) blocks are still the repository's)."""
import os
import re
import shutil
from typing import List

from . import LabError

BEGIN = re.compile(r"//\s*TODO\(student\)\s+begin")
END = re.compile(r"//\s*TODO\(student\)\s+end")


def files_under(folder) -> List[str]:
    """The files under folder, as sorted paths relative to it."""
    found = []
    for top, _, names in os.walk(folder):
        for name in names:
            found.append(os.path.relpath(os.path.join(top, name), folder))
    return sorted(found)


def check(path, given, stub_root, folders) -> List[str]:
    """Problems with the exercises folder `path` (`given`: as the user wrote it), one line each:
    every graded section folder must hold exactly the files of its stub folder in stub_root.
    Raises LabError (status 2) for a path that is not a folder at all."""
    if not os.path.exists(path):
        raise LabError(f"--exercises {given} does not exist", 2)
    if not os.path.isdir(path):
        raise LabError(f"--exercises {given} is not a folder", 2)
    problems = []
    for folder in folders:
        want = files_under(os.path.join(stub_root, folder))
        mine = os.path.join(path, folder)
        if not os.path.isdir(mine):
            section = ".".join(folder.split("_")[:2])
            problems.append(f"missing folder {given}/{folder} (section {section}: {' '.join(want)})")
            continue
        have = files_under(mine)
        problems += [f"missing file {given}/{folder}/{f}" for f in want if f not in have]
        problems += [f"extra file {given}/{folder}/{f} (only the files of exercises/{folder}/ belong there)"
                     for f in have if f not in want]
    return problems


def sync_tree(src, dst):
    """Makes dst hold exactly src's files, copying only those whose contents differ (so a student's
    file with an old date still rebuilds, and an unchanged one does not)."""
    os.makedirs(dst, exist_ok=True)
    wanted = set(files_under(src))
    for f in sorted(wanted):
        a, b = os.path.join(src, f), os.path.join(dst, f)
        if not (os.path.isfile(b) and same_bytes(a, b)):
            os.makedirs(os.path.dirname(b), exist_ok=True)
            shutil.copyfile(a, b)
    for f in files_under(dst):
        if f not in wanted:
            os.remove(os.path.join(dst, f))


def same_bytes(a, b):
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


def todo_blocks(text) -> List[str]:
    """The inside of each TODO(student) begin ... end block, whitespace squeezed (so re-indenting
    a block is not work done). The begin line's own hint is part of the block."""
    blocks, current = [], None
    for line in text.splitlines():
        if current is None:
            m = BEGIN.search(line)
            if m:
                current = [line[m.end():]]
        elif END.search(line):
            blocks.append(" ".join(" ".join(current).split()))
            current = None
        else:
            current.append(line)
    return blocks


def stubs(stub_dir) -> List[str]:
    """The files of stub_dir that have TODO(student) blocks."""
    found = []
    for f in files_under(stub_dir):
        with open(os.path.join(stub_dir, f), encoding="utf-8", errors="replace") as s:
            if todo_blocks(s.read()):
                found.append(f)
    return found


def untouched(student_dir, stub_dir) -> List[str]:
    """The files (relative paths) of student_dir whose TODO(student) blocks all equal those of the
    same file in stub_dir: stubs the student has not started. Files without blocks never count."""
    found = []
    for f in files_under(stub_dir):
        try:
            with open(os.path.join(stub_dir, f), encoding="utf-8", errors="replace") as s:
                stub = todo_blocks(s.read())
            with open(os.path.join(student_dir, f), encoding="utf-8", errors="replace") as m:
                mine = todo_blocks(m.read())
        except OSError:
            continue
        if stub and mine == stub:
            found.append(f)
    return found
