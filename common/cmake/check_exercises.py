#!/usr/bin/env python3
"""Checks that every exercise file is its solution with the TODO(student) blocks emptied.

exercises/<folder>/ and solutions/<folder>/ (folders from chapters/sections.txt) must hold the same code
files (.cuh, .hpp, .h, .cu, .cpp; the Markdown worksheets differ by design), and each exercise file must
equal its solution once the lines between `// TODO(student) begin` and `// TODO(student) end` are
removed from both; the marker lines themselves must match. So a fix to a solution that is not made in
the exercise (or the other way round) fails here, with the file and the first line that differs.

Usage: check_exercises.py REPO_ROOT    (exit status 0: consistent, 1: a difference, 2: bad usage)
"""
import pathlib
import sys

BEGIN = "// TODO(student) begin"
END = "// TODO(student) end"
CODE_SUFFIXES = {".cuh", ".hpp", ".h", ".cu", ".cpp"}


def outside_blocks(path):
    """The (line number, text) pairs of `path` outside the TODO(student) blocks, markers kept."""
    kept, inside, begin_line = [], False, 0
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        marker = line.strip()
        if marker.startswith(BEGIN):
            if inside:
                raise ValueError(f"{path}:{number}: a TODO(student) begin inside the block of line {begin_line}")
            inside, begin_line = True, number
            kept.append((number, line))
        elif marker.startswith(END):
            if not inside:
                raise ValueError(f"{path}:{number}: a TODO(student) end without a begin")
            inside = False
            kept.append((number, line))
        elif not inside:
            kept.append((number, line))
    if inside:
        raise ValueError(f"{path}:{begin_line}: a TODO(student) begin without an end")
    return kept


def code_files(folder):
    return {p.name for p in folder.iterdir() if p.is_file() and p.suffix in CODE_SUFFIXES}


def check(root):
    problems = []
    sections = root / "chapters" / "sections.txt"
    folders = [line.split()[0] for line in sections.read_text().splitlines() if line[:1].isdigit()]
    for folder in folders:
        exercise_dir, solution_dir = root / "exercises" / folder, root / "solutions" / folder
        if not exercise_dir.is_dir() or not solution_dir.is_dir():
            problems.append(f"exercises/{folder}/ or solutions/{folder}/ is missing")
            continue
        exercises, solutions = code_files(exercise_dir), code_files(solution_dir)
        for name in sorted(exercises ^ solutions):
            where = "exercises" if name in exercises else "solutions"
            other = "solutions" if name in exercises else "exercises"
            problems.append(f"{where}/{folder}/{name} has no counterpart in {other}/{folder}/")
        for name in sorted(exercises & solutions):
            exercise_file, solution_file = f"exercises/{folder}/{name}", f"solutions/{folder}/{name}"
            try:
                exercise = outside_blocks(exercise_dir / name)
                solution = outside_blocks(solution_dir / name)
            except ValueError as error:
                problems.append(str(error.args[0]).replace(f"{root}/", ""))
                continue
            for (e_number, e_text), (s_number, s_text) in zip(exercise, solution):
                if e_text != s_text:
                    problems.append(f"{exercise_file}:{e_number} differs from {solution_file}:{s_number} outside the "
                                    f"TODO(student) blocks:\n  exercise: {e_text}\n  solution: {s_text}")
                    break
            else:
                if len(exercise) != len(solution):
                    longer, extra = ((exercise_file, exercise[len(solution)]) if len(exercise) > len(solution)
                                     else (solution_file, solution[len(exercise)]))
                    problems.append(f"{longer}:{extra[0]} has lines the other file lacks, outside the "
                                    f"TODO(student) blocks:\n  {extra[1]}")
    return problems


def main(argv):
    if len(argv) != 2 or not (pathlib.Path(argv[1]) / "chapters" / "sections.txt").is_file():
        print("usage: check_exercises.py REPO_ROOT (the folder with chapters/sections.txt)", file=sys.stderr)
        return 2
    problems = check(pathlib.Path(argv[1]).resolve())
    for problem in problems:
        print(problem, file=sys.stderr)
    if problems:
        print(f"{len(problems)} file(s) of exercises/ do not match solutions/ outside the TODO(student) blocks: "
              "make the same change in both", file=sys.stderr)
        return 1
    print("exercises/ matches solutions/ outside the TODO(student) blocks")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
