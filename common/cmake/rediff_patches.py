#!/usr/bin/env python3
"""Rewrites the mutant and valid-variant patches as small diffs against the current solutions.

Each chapters/<folder>/{mutants,valid}/<name>.patch is applied (GNU patch, no fuzz) to a copy of
solutions/<folder>/ and diffed again with as few context lines as leave every hunk unambiguous: one
line where the hunk's old text (context and removed lines) stands only once in the solution file,
else two, else three. The preamble becomes the description on one line, then its `EXPECT:`,
`FORBID:`, `PROPERTY:` and `SHRINKS:` lines as they are.

Run it after changing a solution (a patch that still applies, perhaps at an offset, comes out
exact again), or after writing a new patch with `diff -u` (see common/cmake/scanlab.cmake). A patch
that no longer applies is named, and left for you to redo by hand.

Usage: rediff_patches.py REPO_ROOT [PATCH...]   (default: every patch of every section)
Exit status 0: all rewritten (or already minimal), 1: a patch does not apply, 2: bad usage.
"""
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

MAX_CONTEXT = 3


def split_patch(text):
    """(preamble, diff): the lines before the first '--- ' line, and the rest."""
    match = re.search(r"^--- ", text, re.MULTILINE)
    if not match:
        raise ValueError("no '--- a/<file>' line: not a unified diff")
    return text[:match.start()], text[match.start():]


KEYS = ("EXPECT: ", "FORBID: ", "PROPERTY: ", "SHRINKS: ")  # the preamble's lines that expect_caught.cmake reads


def one_line_preamble(preamble):
    """The description joined into one line, then the EXPECT, FORBID, PROPERTY and SHRINKS lines (if any)."""
    lines = preamble.splitlines()
    keyed = [line for line in lines if line.startswith(KEYS)]
    words = " ".join(line.strip() for line in lines if not line.startswith(KEYS)).split()
    return "".join(f"{line}\n" for line in [" ".join(words)] + keyed if line)


def old_blocks(diff):
    """The old text of each hunk of one file's diff (its context and removed lines)."""
    blocks, block = [], None
    for line in diff.splitlines():
        if line.startswith("@@"):
            block = []
            blocks.append(block)
        elif block is not None and line[:1] in (" ", "-"):
            block.append(line[1:])
    return blocks


def unambiguous(diff, original_lines):
    """Whether each hunk's old text stands exactly once in the original file."""
    for block in old_blocks(diff):
        width = len(block)
        starts = [i for i in range(len(original_lines) - width + 1) if original_lines[i:i + width] == block]
        if len(starts) != 1:
            return False
    return True


def smallest_diff(name, original, patched):
    """The diff of one file with the fewest context lines that keep it unambiguous."""
    lines = original.read_text().splitlines()
    for context in range(1, MAX_CONTEXT + 1):
        run = subprocess.run(["diff", f"-U{context}", "--label", f"a/{name}", "--label", f"b/{name}",
                              str(original), str(patched)], capture_output=True, text=True)
        if run.returncode > 1:
            raise RuntimeError(run.stderr.strip())
        if context == MAX_CONTEXT or unambiguous(run.stdout, lines):
            return run.stdout


def rediff(root, patch):
    """Rewrites one patch; returns an error line, or None."""
    folder = patch.parent.parent.name
    solutions = root / "solutions" / folder
    try:
        preamble, diff = split_patch(patch.read_text())
    except ValueError as error:
        return f"{patch.relative_to(root)}: {error}"
    names = re.findall(r"^\+\+\+ b/(\S+)", diff, re.MULTILINE)
    with tempfile.TemporaryDirectory() as tmp:
        stage = pathlib.Path(tmp) / folder
        shutil.copytree(solutions, stage)
        run = subprocess.run(["patch", "-p1", "--fuzz=0", "--batch", "--forward", "--no-backup-if-mismatch",
                              "--reject-file=-", "-d", str(stage), "-i", str(patch.resolve())],
                             capture_output=True, text=True)
        if run.returncode != 0:
            return (f"{patch.relative_to(root)} no longer applies to solutions/{folder}: redo its change "
                    f"on the solution (patch says: {run.stdout.strip().splitlines()[-1]})")
        diffs = [smallest_diff(name, solutions / name, stage / name) for name in names]
    patch.write_text(one_line_preamble(preamble) + "".join(diffs))
    return None


def main(argv):
    if len(argv) >= 2 and argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0
    if len(argv) < 2:
        print("usage: rediff_patches.py REPO_ROOT [PATCH...] (see --help)", file=sys.stderr)
        return 2
    root = pathlib.Path(argv[1]).resolve()
    if not (root / "chapters" / "sections.txt").is_file():
        print(f"{root} is not the scanlab repository (no chapters/sections.txt): pass its root", file=sys.stderr)
        return 2
    patches = [pathlib.Path(p).resolve() for p in argv[2:]] or sorted(root.glob("chapters/*/mutants/*.patch")) + sorted(
        root.glob("chapters/*/valid/*.patch"))
    errors = [error for error in (rediff(root, patch) for patch in patches) if error]
    for error in errors:
        print(error, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
