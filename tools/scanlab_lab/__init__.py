"""scanlab_lab: what ./lab does beyond calling CMake (stdlib only, Python >= 3.9).

    sections.py    chapters/sections.txt: the sections and their IDs
    exercises.py   a student's exercises folder: checked, copied, and untouched stubs found
    ctest.py       what ctest wrote: the JUnit file and the console log
    diagnose.py    a failed test's first diagnosis and its kind (wrong value, race, crash, ...)
    buildlog.py    compiler output: warnings and errors, with the student's own paths
    config.py      grading.toml: each section's points and which of its tests count
    grade.py       ./lab grade: build each section, run its tests, write the report
    class_grade.py ./lab grade --class: a whole class, N job slots, gradebook.csv
    roster.py      who each submission of a class export is; canvas.csv, moodle.csv
    sandbox.py     the sandbox each submission builds and runs in (bubblewrap, limits, #includes)
    cap_output.sh  the test command prefix that cuts a test's output at a limit (--class)
    release.py     ./lab release --student: the student release (no solutions)
    gradescope.py  the Gradescope autograder (tools/gradescope/run_autograder)
    report.py      ./lab grade: print the report
    results.py     ./lab run: the table of the programs' JSON results
    run.py         ./lab run: run each section's program as it describes itself (--capabilities)
    __main__.py    the commands ./lab calls (python3 -m scanlab_lab ...)
"""


class LabError(Exception):
    """A one-line error for the user; `status` is the exit status (2: bad input, 1: failure)."""

    def __init__(self, message, status=1):
        super().__init__(message)
        self.status = status
