"""The commands ./lab calls: python3 -m scanlab_lab COMMAND ROOT [ARGS...] (ROOT: the repository).

    run-check ROOT [SECTION...] [--exercise] [-- ARG...]
                                           ./lab run's arguments, checked: prints the targets to
                                           build, one a line, then the results folder ("results:
                                           NAME"; run.py)
    sections ROOT [SECTION...]             their IDs, one a line (all sections without SECTION)
    run ROOT BUILD_DIR [SECTION...] [--exercise] [-- ARG...]
                                           run the built programs, print the table (or, after --,
                                           run each with the ARGs as they are)
    results ROOT JSON...                   the table alone
    grade-prepare ROOT [SECTION...] [--exercises PATH]
                                           check the arguments and the student's folder, copy it
                                           into build/grade/exercises; prints two lines: the
                                           folder to build (SCANLAB_EXERCISES_DIR) and its label
    grade ROOT [SECTION...] [--exercises PATH]
                                           build, test and report (after grade-prepare and the
                                           configure step); exit 0 all passed, 1 some failed
    grade-class ROOT --class DIR [--jobs N] [--timeout S] [--no-sandbox] [--resume] [SECTION...]
                                           grade a whole class (class_grade.py)
    grade-slot ROOT SLOT_DIR [--build | --test] SECTION...
                                           grade the submission in a class job slot: --build in
                                           the sandbox, then --test outside it (grade-class)
    release ROOT --student DIR             write the student release (release.py)
    gradescope ROOT                        grade /autograder/submission (gradescope.py)
    earned ROOT SECTION PROPERTY [--tests PATTERN... [--exclude PATTERN...]]
                                           after grade: exit 0 if the property was earned: the
                                           rubric's (grading.toml), or the tests the patterns pick
                                           (the Classroom workflow's; earned.py)
    open-level ROOT FOLDER OUT FILE...     write a section's kernel files at the open level into OUT
    rubric-check ROOT SECTION FAILED_FILE [PROPERTY... | --all | --feedback-only]
                                           a mutant's failed tests (one gtest name a line) against
                                           grading.toml's rubric: exit 0 if they cost points (and
                                           fail each PROPERTY), else 1 with the reason; with
                                           --feedback-only (a valid variant): exit 0 if they cost none
    rubric-filter ROOT SECTION [PROPERTY... | --all]
                                           the GoogleTest filter that runs the tests deciding those
                                           properties of the rubric (--all: every property; empty
                                           without a rubric): a mutant's run needs no other test
    runner-box ROOT BDIR TMP PATH WAY      write PATH, the script that starts the student's kernels
                                           confined (sandbox.runner_box) in WAY (bubblewrap or
                                           landlock), the build BDIR visible, TMP writable; prints
                                           how; exit 3 when WAY does not work here (the hostile tests)

Errors are one line each on stderr, "[lab] error: ...", with exit status 2 for bad input."""
import json
import os
import sys

from . import LabError, exercises, grade, results, run, sections


def grade_arguments(args):
    """(section arguments, --exercises PATH or None), as the user gave them."""
    names, path = [], None
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--exercises":
            if i + 1 >= len(args):
                raise LabError("--exercises needs a folder (see ./lab help)", 2)
            path, i = args[i + 1], i + 2
            continue
        if a.startswith("--exercises="):
            path = a.split("=", 1)[1]
        elif a.startswith("-"):
            raise LabError(f"unknown option '{a}' for grade (see ./lab help)", 2)
        else:
            names.append(a)
        i += 1
    return names, path


def prepare_grade(root, args):
    """Checks the arguments and the folder; returns (sections, student dir, label, copy dir)."""
    names, given = grade_arguments(args)
    chosen = sections.resolve(sections.load(root), names)
    if not chosen:
        raise LabError("there are no sections yet (chapters/sections.txt)", 2)
    stub_root = os.path.join(root, "exercises")
    if given is None:
        return chosen, stub_root, "exercises", None
    path = os.path.abspath(given)
    problems = exercises.check(path, given, stub_root, [s.folder for s in chosen])
    if problems:
        for p in problems:
            print(f"[lab] error: {p}", file=sys.stderr)
        if os.path.isdir(os.path.join(stub_root, os.path.basename(path.rstrip("/")))):
            raise LabError(f"{given} is a section folder: --exercises wants the folder that holds the "
                           "section folders (its parent)", 2)
        raise LabError(f"{given} is not a valid exercises folder (see above)", 2)
    return chosen, os.path.realpath(path), given.rstrip("/") or given, os.path.join(root, "build", "grade", "exercises")


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    command, root, args = argv[0], argv[1], argv[2:]
    if command == "run-check":
        p = run.plan(root, args)
        print("\n".join(p.targets()))
        print("results: " + ("" if p.passthrough else os.path.basename(p.results(""))))
        return 0
    if command == "sections":
        for s in sections.resolve(sections.load(root), args):
            print(s.id)
        return 0
    if command == "run":
        bdir, p = args[0], run.plan(root, args[1:])
        if p.passthrough:
            return run.passthrough(root, bdir, p)
        done = run.run_all(root, bdir, p)
        print()
        grade.say(f"results ({len(done['jsons'])} sections; JSON in {grade.rel(done['results'], root)}):")
        table_rc = results.report(done["jsons"]) if done["jsons"] else 0
        print()
        if done["failed"]:
            raise LabError(f"section(s) {' '.join(done['failed'])} failed (see above)")
        if table_rc:
            raise LabError("some results were not verified (see the table)")
        grade.say(f"all {len(done['ran'])} section(s) verified")
        return 0
    if command == "results":
        return results.report(args)
    if command == "grade-prepare":
        chosen, student, label, copy = prepare_grade(root, args)
        if copy:
            for s in sections.load(root):  # every section's files (CMake needs them); graded from the student
                src = student if s in chosen else os.path.join(root, "exercises")
                if os.path.isdir(os.path.join(src, s.folder)):
                    exercises.sync_tree(os.path.join(src, s.folder), os.path.join(copy, s.folder))
            print(f"[lab] grading {label} (copied to {grade.rel(copy, root)})", file=sys.stderr)
        print(copy or student)
        print(label)
        return 0
    if command == "grade":
        chosen, student, label, copy = prepare_grade(root, args)
        bdir = os.path.join(root, "build", "grade")
        backends = grade.backends_to_grade(bdir)
        if not backends:
            raise LabError("build/grade has no backend to grade (SCANLAB_BACKENDS)", 2)
        skipped = grade.cache_value(bdir, "SCANLAB_CPU_SKIPPED")
        if skipped:
            grade.warn(f"the cpu backend is skipped: {skipped}; grading the cuda backend alone")
        g = grade.Grading(root, bdir, chosen, student, label, copy, os.environ.get("LAB_JOBS") or None,
                          includes_checked=os.environ.get("LAB_CHECK_INCLUDES") == "1", confine=True)
        return g.grade(backends)
    if command == "grade-class":
        from . import class_grade
        names, cls, jobs, timeout, box, resume, section_timeout, title = class_grade.arguments(args)
        chosen = sections.resolve(sections.load(root), names)
        cls = os.path.join(os.environ.get("LAB_CWD", os.getcwd()), cls)  # as the user wrote it, from their folder
        return class_grade.ClassGrading(root, chosen, os.path.abspath(cls), jobs, timeout, box, resume,
                                         section_timeout, title).run()
    if command == "grade-slot":
        # --build (in the sandbox: the student's files compile) or --test (outside it: the checkers run,
        # each starting the student's kernels in the read-only sandbox), or both when neither is given.
        phases = [a for a in args if a in ("--build", "--test")]
        args = [a for a in args if a not in phases]
        slot, chosen = args[0], sections.resolve(sections.load(root), args[1:])
        g = grade.Grading(root, slot, chosen, os.path.join(slot, "exercises"), os.path.join(slot, "exercises"),
                          jobs=os.environ.get("LAB_JOBS") or None, preset=None, echo=False, includes_checked=True)
        backends = grade.backends_to_grade(slot)
        builds_path = os.path.join(slot, "grade-builds.json")
        if phases == ["--build"]:
            with open(builds_path, "w", encoding="utf-8") as f:
                json.dump(g.build_all(backends), f)
            return 0
        if phases == ["--test"]:
            try:
                with open(builds_path, encoding="utf-8") as f:
                    builds = json.load(f)
            except (OSError, ValueError) as e:
                raise LabError(f"the build phase left no result ({builds_path}: {e})", 2)
            if not isinstance(builds, dict) or set(builds) != {s.id for s in chosen}:
                raise LabError(f"{builds_path} does not hold the builds of the sections graded", 2)
            return g.test_and_report(builds, backends)
        return g.grade(backends)
    if command == "release":
        from . import release
        return release.main(root, args)
    if command == "gradescope":
        from . import gradescope
        return gradescope.main(root, args)
    if command == "earned":
        # earned ROOT SECTION PROPERTY [--tests P ... --exclude P ...]: was it earned in the last ./lab grade?
        from . import earned
        return earned.main(root, args)
    if command == "open-level":
        # open-level ROOT FOLDER OUT FILE...: the section's kernel files at the open level in OUT (the
        # build's open-stub variant): the solution's files, with open_level.txt's bodies emptied.
        from . import levels
        folder, out, files = args[0], args[1], args[2:]
        os.makedirs(out, exist_ok=True)
        opened = levels.open_files(root, folder)
        for f in files:
            text = opened.get(f)
            if text is None:
                with open(os.path.join(root, "solutions", folder, f), encoding="utf-8") as s:
                    text = s.read()
            path = os.path.join(out, f)
            old = open(path, encoding="utf-8").read() if os.path.isfile(path) else None
            if old != text:  # unchanged files keep their dates: no rebuild
                with open(path, "w", encoding="utf-8") as o:
                    o.write(text)
        return 0
    if command == "runner-box":
        from . import sandbox
        if len(args) != 4 or args[3] not in sandbox.WAYS:
            raise LabError(f"runner-box needs BDIR TMP PATH WAY ({' or '.join(sandbox.WAYS)})", 2)
        box, how = sandbox.runner_box(root, args[0], args[1], args[2], [args[3]])
        print(how)
        return 0 if box else 3
    if command == "rubric-check":
        from . import config
        if len(args) < 2:
            raise LabError("rubric-check needs SECTION FAILED_FILE [PROPERTY...]", 2)
        section_id, failed_file, must_fail = args[0], args[1], args[2:]
        with open(failed_file, encoding="utf-8") as f:
            failed = [line.strip() for line in f if line.strip()]
        rules = config.load(root, [s.id for s in sections.load(root)])
        if must_fail == ["--all"]:  # an untouched stub: every property fails
            must_fail = [p.name for p in rules.rule(section_id).properties]
        if must_fail == ["--feedback-only"]:  # a valid variant: full points, its failures all feedback
            lost, feedback = config.failed_properties(rules.rule(section_id), failed)
            if lost or not rules.rule(section_id).properties:
                print(f"it fails {', '.join(lost) or 'tests that count'} ({', '.join(failed)})")
                return 1
            print(", ".join(feedback))
            return 0
        why = config.check_mutant(rules, section_id, failed, must_fail)
        if why:
            print(why)
            return 1
        rule = rules.rule(section_id)
        print(", ".join(config.failed_properties(rule, failed)[0]) if rule.properties else "points lost")
        return 0
    if command == "rubric-filter":
        from . import config
        if not args:
            raise LabError("rubric-filter needs SECTION [PROPERTY... | --all]", 2)
        section_id, names = args[0], args[1:]
        rule = config.load(root, [s.id for s in sections.load(root)]).rule(section_id)
        known = {p.name for p in rule.properties}
        if names == ["--all"] or not names:
            names = None
        elif rule.properties and not set(names) <= known:
            bad = sorted(set(names) - known)[0]
            raise LabError(f"'{bad}' is not a property of section {section_id} (they are {', '.join(sorted(known))})", 2)
        print(config.gtest_filter(rule, names))
        return 0
    raise LabError(f"unknown command '{command}'", 2)


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except LabError as e:
        print(f"[lab] error: {e}", file=sys.stderr)
        sys.exit(e.status)
    except KeyboardInterrupt:
        sys.exit(130)
