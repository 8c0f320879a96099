"""A student's exercises folder: checked against exercises/, copied for the build, and its
untouched stubs found (files whose TODO(student) blocks are still the repository's)."""
import os
import re
import shutil
import subprocess
from typing import Dict, List, Optional

from . import LabError

BEGIN = re.compile(r"//\s*TODO\(student\)\s+begin")
END = re.compile(r"//\s*TODO\(student\)\s+end")


# Files that operating systems leave in folders and archives on their own: never the student's work,
# so never an "extra file" (nor copied for the build).
JUNK_FILES = {".ds_store", "thumbs.db", "ehthumbs.db", "desktop.ini"}  # compared in lower case (Windows)
JUNK_FOLDERS = {"__MACOSX"}  # macOS's zip: resource forks


def junk(name) -> bool:
    """An OS junk file's name: .DS_Store, Thumbs.db, desktop.ini, or an AppleDouble ._x (macOS)."""
    return name.lower() in JUNK_FILES or name.startswith("._")


def files_under(folder, with_junk=False) -> List[str]:
    """The files under folder, as sorted paths relative to it; OS junk (junk(), __MACOSX/) left out
    unless with_junk. The one listing of a section folder: check, sync_tree and the stubs use it."""
    found = []
    for top, dirs, names in os.walk(folder):
        dirs[:] = [d for d in dirs if with_junk or d not in JUNK_FOLDERS]
        for name in names:
            if with_junk or not junk(name):
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


def by_file_name(stub_root) -> Dict[str, str]:
    """{file name: its section folder} for the exercise files at the top of each section folder of
    stub_root whose name no other section uses (every name is unique today: test_exercises checks)."""
    places: Dict[str, List[str]] = {}
    for folder in sorted(os.listdir(stub_root)):
        if os.path.isdir(os.path.join(stub_root, folder)):
            for f in files_under(os.path.join(stub_root, folder)):
                if "/" not in f:
                    places.setdefault(f, []).append(folder)
    return {name: folders[0] for name, folders in places.items() if len(folders) == 1}


def flat_files(folder, names) -> List[str]:
    """The files at the top of folder that are exercise files by name (names: by_file_name())."""
    return sorted(f for f in os.listdir(folder) if f in names and os.path.isfile(os.path.join(folder, f)))


def sort_flat(src, stub_root, dst) -> List[str]:
    """A flat upload (the exercise files side by side in src, as Gradescope's upload makes them) sorted
    into section folders: dst/<section folder>/<file> for each file of src's top that is an exercise
    file by name. Returns the names of the other files at src's top (not graded; OS junk not named)."""
    names = by_file_name(stub_root)
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(dst)
    for f in flat_files(src, names):
        os.makedirs(os.path.join(dst, names[f]), exist_ok=True)
        shutil.copyfile(os.path.join(src, f), os.path.join(dst, names[f], f))
    return sorted(f for f in os.listdir(src) if f not in names and not junk(f) and f not in JUNK_FOLDERS)


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
    for f in files_under(dst, with_junk=True):  # junk too: the build globs *.cuh, and ._x.cuh is one
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


def stubs(root, folder, in_place) -> Dict[str, str]:
    """The repository's stubs of a section, {file: text}, for the files with TODO(student) blocks
    that still say "(your code here)". Graded in place, exercises/ may hold the student's work: the
    stubs then come from git (origin/HEAD, else HEAD), or not at all without git (no claim made)."""
    found = {}
    for f in files_under(os.path.join(root, "exercises", folder)):
        if in_place:
            text = git_show(root, f"exercises/{folder}/{f}")
        else:
            with open(os.path.join(root, "exercises", folder, f), encoding="utf-8", errors="replace") as s:
                text = s.read()
        blocks = todo_blocks(text or "")
        if blocks and all("your code here" in b for b in blocks):
            found[f] = text
    return found


def git_show(root, path) -> Optional[str]:
    for ref in ("origin/HEAD", "HEAD"):
        try:
            p = subprocess.run(["git", "-C", root, "show", f"{ref}:{path}"], stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, universal_newlines=True, timeout=30)
        except (OSError, subprocess.SubprocessError):
            return None
        if p.returncode == 0:
            return p.stdout
    return None


def untouched(student_dir, stub_texts: Dict[str, str]) -> List[str]:
    """The files of student_dir whose TODO(student) blocks all equal the stub's (stub_texts, from
    stubs()): files the student has not started."""
    found = []
    for f, stub in sorted(stub_texts.items()):
        try:
            with open(os.path.join(student_dir, f), encoding="utf-8", errors="replace") as m:
                mine = todo_blocks(m.read())
        except OSError:
            continue
        if mine == todo_blocks(stub):
            found.append(f)
    return found


def solution_blocks(root) -> Dict[str, List[List[str]]]:
    """{solution file: [block, ...]}, each TODO(student) block of the solutions as its lines
    (whitespace squeezed) that the stub does not have and that are at least 12 characters: the answers.
    Empty without solutions/ (the student release)."""
    found: Dict[str, List[List[str]]] = {}
    for f in files_under(os.path.join(root, "solutions")) if os.path.isdir(os.path.join(root, "solutions")) else []:
        with open(os.path.join(root, "solutions", f), encoding="utf-8") as s:
            text = s.read()
        stub_text = ""
        if os.path.isfile(os.path.join(root, "exercises", f)):
            with open(os.path.join(root, "exercises", f), encoding="utf-8") as s:
                stub_text = s.read()
        stub_lines = {" ".join(l.split()) for l in stub_text.splitlines()}
        block = None
        for line in text.splitlines():
            if BEGIN.search(line):
                block = []
            elif END.search(line):
                if block:
                    found.setdefault(f, []).append(block)
                block = None
            elif block is not None:
                squeezed = " ".join(line.split())
                if len(squeezed) >= 12 and squeezed not in stub_lines and not squeezed.startswith("//"):
                    block.append(squeezed)
    return found


def blocks_in(text: str, blocks: Dict[str, List[List[str]]]) -> List[str]:
    """The solution blocks `text` (whitespace squeezed per line) holds: all of a block, or at least half
    of its lines (and two or more), one line each. A line or two in common (a loop header) is not an
    answer."""
    found = []
    for src, bs in blocks.items():
        for b in bs:
            hits = [l for l in b if l in text]
            if len(hits) >= max(2, (len(b) + 1) // 2) or (len(b) == 1 and hits):
                found.append(f"{len(hits)} of {len(b)} lines of a block of solutions/{src}: {hits[0]}")
    return found


def squeezed(data: str) -> str:
    """`data` with each line's whitespace squeezed, as solution_blocks' lines are."""
    return "\n".join(" ".join(l.split()) for l in data.splitlines())


def leaks(files, dst, blocks) -> List[str]:
    """Files (under dst) that hold a solution block (blocks_in), each as "<file>: <what>"."""
    found = []
    for f in files:
        with open(os.path.join(dst, f), encoding="utf-8", errors="replace") as r:
            found += [f"{f}: {b}" for b in blocks_in(squeezed(r.read()), blocks)]
    return found
