"""./lab grade --class DIR [--jobs N] [--timeout S] [--section-timeout S] [--no-sandbox] [SECTION...]:
a whole class.

DIR holds one entry per student: a folder, a .zip, or a .tar.gz/.tgz (as learning-management systems
export them), each with the exercises/ layout (the section folders) at its top, in an exercises/
folder, or inside one wrapping folder; or flat, the exercise files side by side (sorted into section
folders by their names under build/grade/class/flat/). Each student is graded in a job slot: a build tree of its own
(build/grade/class/slots/<k>), configured and built once with the repository's stubs, into which each
student's files are copied (only those that differ), so that only the student's kernels recompile.
N slots work at once. Each submission builds in the sandbox (sandbox.py); then its tests run outside
it, and their checkers start the student's kernels in the sandbox with everything read-only.

--timeout: the seconds a student's whole grading may take (900), --section-timeout: the seconds one
section's tests may take (300; LAB_SECTION_TIMEOUT for grade.py): a section past it scores 0 and the
student's other sections keep their points.

Writes build/grade/class/gradebook.csv (one row per student: who, points, status), notes.csv (the
feedback text per student), canvas.csv and moodle.csv (roster.py) and, per student, build/grade/class/
students/<name>/: grade-summary.json, grade-junit.xml and grade.log (everything it printed)."""
import concurrent.futures
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tarfile
import time
import zipfile
from typing import List, Optional

from . import LabError, config, diagnose, exercises, roster, sandbox, sections
from .grade import gpu_present, rel, say, warn

ARCHIVES = (".zip", ".tar.gz", ".tgz")
MAX_UNPACKED = 64 << 20  # bytes a submission's archive may unpack to
MAX_MEMBERS = 2000
NOTES = "notes.csv"  # the feedback text per student, beside gradebook.csv (which holds the numbers)


def arguments(args):
    """(section names, class dir, jobs, timeout s, sandbox on, resume, section timeout s, the
    assignment's title in canvas.csv)."""
    names, cls, jobs, timeout, box, resume, section_timeout, title = [], None, 1, 900, True, False, 300, "scanlab"
    it = iter(args)
    for a in it:
        key, eq, val = a.partition("=")
        if key in ("--class", "--jobs", "--timeout", "--section-timeout", "--assignment") and not eq:
            val = next(it, None)
            if val is None:
                raise LabError(f"{key} needs a value (see ./lab help)", 2)
        if key == "--class":
            cls = val
        elif key == "--assignment":
            if not val.strip() or not val.isprintable():
                raise LabError(f"--assignment needs a title on one line, as Canvas names the assignment "
                               f"(\"Scan lab\" or \"Scan lab (12345)\"), not {val!r}", 2)
            title = val.strip()
        elif key in ("--jobs", "--timeout", "--section-timeout"):
            if not val.isdigit() or int(val) < 1:
                raise LabError(f"{key} needs a whole number >= 1, not '{val}'", 2)
            if key == "--jobs":
                jobs = int(val)
            elif key == "--timeout":
                timeout = int(val)
            else:
                section_timeout = int(val)
        elif a == "--no-sandbox":
            box = False
        elif a == "--resume":
            resume = True
        elif a.startswith("-"):
            raise LabError(f"unknown option '{a}' for grade --class (see ./lab help)", 2)
        else:
            names.append(a)
    if cls is None:
        raise LabError("grade --class needs a folder of submissions", 2)
    return names, cls, jobs, timeout, box, resume, section_timeout, title


# ---- submissions -------------------------------------------------------------------------------------
def student_name(entry):
    for ext in ARCHIVES:
        if entry.lower().endswith(ext):
            return entry[:-len(ext)]
    return entry


def find_submissions(cls) -> List[tuple]:
    """(name, path) of each submission in cls, sorted by name. Names must be unique."""
    if not os.path.isdir(cls):
        raise LabError(f"--class {cls} is not a folder (nor a .zip or .tar.gz of one)", 2)
    found, seen = [], {}
    for entry in sorted(os.listdir(cls)):
        path = os.path.join(cls, entry)
        if entry.startswith(".") or not (os.path.isdir(path) or entry.lower().endswith(ARCHIVES)):
            continue
        name = roster.folder_name(student_name(entry))
        if name in seen:
            raise LabError(f"--class {cls}: {seen[name]} and {entry} are the same student '{name}': rename one", 2)
        seen[name] = entry
        found.append((name, path))
    if not found:
        raise LabError(f"--class {cls} holds no submission (folders, .zip or .tar.gz files)", 2)
    return found


def unpack(path, dst):
    """Extracts an archive into dst, refusing absolute or climbing paths, links and devices, more than
    MAX_MEMBERS entries or MAX_UNPACKED bytes (raises ValueError saying which)."""
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(dst)
    if path.lower().endswith(".zip"):
        with zipfile.ZipFile(path) as z:
            infos = z.infolist()
            check_members([(i.filename, i.file_size, not i.is_dir() and (i.external_attr >> 28) == 0xA) for i in infos])
            for i in infos:
                z.extract(i, dst)
    else:
        with tarfile.open(path, "r:gz") as t:
            members = t.getmembers()
            check_members([(m.name, m.size, not (m.isfile() or m.isdir())) for m in members])
            safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}  # Python's own check too, where it has one
            for m in members:
                t.extract(m, dst, **safe)  # checked above: plain files and folders inside dst only


def check_members(members):
    if len(members) > MAX_MEMBERS:
        raise ValueError(f"the archive has more than {MAX_MEMBERS} entries")
    if sum(size for _, size, _ in members) > MAX_UNPACKED:
        raise ValueError(f"the archive unpacks to more than {MAX_UNPACKED >> 20} MiB")
    for name, _, special in members:
        parts = name.replace("\\", "/").split("/")
        if name.startswith("/") or ".." in parts:
            raise ValueError(f"the archive has a path outside itself: {name}")
        if special:
            raise ValueError(f"the archive has a link or a special file: {name}")


def lone_archive(folder) -> Optional[str]:
    """The archive that is all a submission folder holds (OS junk aside), as Canvas and Moodle give a
    student's uploaded .zip; else None."""
    entries = [e for e in os.listdir(folder) if not (exercises.junk(e) or e in exercises.JUNK_FOLDERS)]
    if len(entries) == 1 and entries[0].lower().endswith(ARCHIVES) and os.path.isfile(os.path.join(folder, entries[0])):
        return os.path.join(folder, entries[0])
    return None


def exercises_root(folder, wanted) -> Optional[str]:
    """The folder that holds the section folders: folder, folder/exercises, or either one level down
    (an archive's wrapping folder)."""
    def holds(d):
        return any(os.path.isdir(os.path.join(d, w)) for w in wanted)
    candidates = [folder, os.path.join(folder, "exercises")]
    subs = [os.path.join(folder, d) for d in sorted(os.listdir(folder))
            if os.path.isdir(os.path.join(folder, d)) and not d.startswith(("__MACOSX", "."))]
    if len(subs) == 1:
        candidates += [subs[0], os.path.join(subs[0], "exercises")]
    for c in candidates:
        if os.path.isdir(c) and holds(c):
            return c
    return None


def sections_root(folder, wanted, stub_root, scratch):
    """(the folder that holds the section folders, a note): exercises_root(), else a flat upload (the
    exercise files side by side at folder's top or in its one wrapping folder, as Gradescope's upload
    and some exports give them) sorted by file name into section folders under scratch, the note then
    naming the files at that top that are no exercise file (not graded). (None, "") when neither."""
    found = exercises_root(folder, wanted)
    if found:
        return found, ""
    names = exercises.by_file_name(stub_root)
    subs = [os.path.join(folder, d) for d in sorted(os.listdir(folder))
            if os.path.isdir(os.path.join(folder, d)) and d not in exercises.JUNK_FOLDERS and not d.startswith(".")]
    for c in [folder] + (subs if len(subs) == 1 else []):
        if exercises.flat_files(c, names):
            other = exercises.sort_flat(c, stub_root, scratch)
            return scratch, ("the files were sorted into section folders by their names" +
                             (f"; not an exercise file, not graded: {', '.join(other)}" if other else ""))
    return None, ""


# ---- slots -------------------------------------------------------------------------------------------
class Slot:
    def __init__(self, root, base, k, box, where=None):
        self.k, self.dir = k, (where or os.path.join(base, "slots", "{k}")).format(k=k)
        self.exercises = os.path.join(self.dir, "exercises")
        self.build_jobs = 1  # compile jobs of this slot (set by ClassGrading: the cores shared by the slots)
        self.uid = (int(os.environ.get("LAB_SANDBOX_UID", "61000")) + k) if box and os.geteuid() == 0 else None
        # The read-only sandbox the student's kernels run in while the grader checks them (outside the
        # slot, so nothing in the sandbox can change it; sandbox.box_script); None without the sandbox.
        self.box = os.path.join(base, "boxes", f"slot-{k}.sh") if box else None

    def configure_and_build(self, root, chosen, log):
        """Trusted: the repository's stubs, configured and built outside the sandbox."""
        os.makedirs(self.dir, exist_ok=True)
        for s in sections.load(root):
            exercises.sync_tree(os.path.join(root, "exercises", s.folder), os.path.join(self.exercises, s.folder))
        args = ["cmake", "--preset", "grade", "-B", self.dir, f"-DSCANLAB_EXERCISES_DIR={self.exercises}",
                "-DSCANLAB_EXERCISES_LABEL=exercises", "-DSCANLAB_TEST_TIMEOUT=60",
                # Every test's output cut at a limit (ctest would keep a flood of it in memory).
                "-DCMAKE_CROSSCOMPILING_EMULATOR=" + os.path.join(root, "tools", "scanlab_lab", "cap_output.sh")]
        if self.box:
            args.append(f"-DSCANLAB_UNTRUSTED_PREFIX={self.box}")
        if not shutil.which("ninja"):
            args += ["-G", "Unix Makefiles"]
        extra = os.environ.get("LAB_CMAKE_ARGS", "").split()
        if not gpu_present() and not any("SCANLAB_BACKENDS" in e for e in extra):
            args.append("-DSCANLAB_BACKENDS=cpu")
        if shutil.which("ccache") and not any("LAUNCHER" in e for e in extra):
            args.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
        targets = [f"test_{s.us}_exercise_cpu" for s in chosen
                   if os.path.isfile(os.path.join(root, "chapters", s.folder, "tests.cpp"))]
        with open(log, "w", encoding="utf-8") as out:
            for cmd in (args + extra, ["cmake", "--build", self.dir, "--parallel", str(self.build_jobs), "--target"] + targets):
                if subprocess.run(cmd, cwd=root, stdout=out, stderr=subprocess.STDOUT).returncode != 0:
                    raise LabError(f"job slot {self.k} does not build with the repository's stubs: see {log}")
        if self.uid is not None:
            sandbox.chown_tree(self.dir, self.uid)


class ClassGrading:
    def __init__(self, root, chosen, cls, jobs, timeout, box, resume=False, section_timeout=300, title="scanlab",
                 base=None, slots=None):
        self.root, self.chosen, self.cls, self.jobs, self.timeout, self.box = root, chosen, cls, jobs, timeout, box
        self.section_timeout = section_timeout
        self.title = title  # the assignment's column in canvas.csv (--assignment)
        self.resume = resume  # --resume: keep the results of an interrupted run, grade who is left
        # Where the slots and results go (a test grades elsewhere, not to replace an instructor's class).
        self.base = base or os.path.join(root, "build", "grade", "class")
        self.slots = slots  # the slots' folders, "{k}" for the slot's number (default: base/slots/{k})
        self.limits = sandbox.Limits()
        self.rules = config.load(root, [s.id for s in sections.load(root)])
        self.shadows = []
        self.people = {}  # {student: identity} (roster.py)
        self.stopping = False  # interrupted: grade no one else
        self.running = set()  # the graders running now (killed when interrupted)

    # ---- the run's record: the class and sections it grades (what --resume must match) -------------------
    def run_path(self):
        return os.path.join(self.base, "run.json")

    def previous_results(self, subs) -> dict:
        """--resume: {student: row} of the interrupted run of this class and these sections."""
        try:
            with open(self.run_path(), encoding="utf-8") as f:
                run = json.load(f)
        except (OSError, ValueError):
            raise LabError("--resume: no interrupted class run to resume (build/grade/class/run.json)", 2)
        want = {"class": self.cls, "sections": [s.id for s in self.chosen]}
        if {k: run.get(k) for k in want} != want:
            raise LabError(f"--resume: the interrupted run graded {run.get('class')} (sections "
                           f"{' '.join(run.get('sections') or [])}): resume it with the same folder and sections", 2)
        return self.results_on_disk(subs)

    def results_on_disk(self, subs) -> dict:
        """{student: row} of the students whose grading finished (their result.json)."""
        rows = {}
        for name, _ in subs:
            try:
                with open(os.path.join(self.base, "students", name, "result.json"), encoding="utf-8") as f:
                    row = json.load(f)
            except (OSError, ValueError):
                continue
            if row.get("student") == name and row.get("status") not in ("", "interrupted"):
                rows[name] = row
        return rows

    def run(self) -> int:
        cls = self.cls
        if os.path.isfile(cls) and cls.lower().endswith(ARCHIVES):  # the platform's download as it came
            cls = os.path.join(self.base, "download")
            try:
                unpack(self.cls, cls)
            except (ValueError, OSError, zipfile.BadZipFile, tarfile.TarError) as e:
                raise LabError(f"--class {self.cls}: {e}", 2)
        grouped = roster.group(cls, os.path.join(self.base, "lms")) if os.path.isdir(cls) else None
        if grouped:  # Canvas or Moodle: sorted into a folder per student
            layout, self.people = grouped
            subs = find_submissions(os.path.join(self.base, "lms"))
            say(f"{layout}: {len(subs)} students' files sorted into build/grade/class/lms/")
        else:
            subs = find_submissions(cls)
            self.people = roster.identity([n for n, _ in subs], cls)
        done = self.previous_results(subs) if self.resume else {}  # before any build: a wrong --resume stops
        if self.box:
            why = sandbox.available(Slot(self.root, self.base, 0, True, self.slots).uid)
            if why:
                raise LabError(f"{why}; or grade without the sandbox (only code you trust): --no-sandbox", 2)
            self.shadows = sandbox.make_shadows(self.root, os.path.join(self.base, "shadow"))
        else:
            warn("--no-sandbox: the submissions run with your rights, network and files")
        jobs = min(self.jobs, len(subs))
        slots = [Slot(self.root, self.base, k, self.box, self.slots) for k in range(jobs)]
        for s in slots:
            if s.box:
                sandbox.box_script(s.box, self.root, s.dir, self.shadows, self.limits, s.uid)
        for s in slots:
            s.build_jobs = max(1, (os.cpu_count() or 1) // jobs)
        t0 = time.time()
        say(f"preparing {jobs} job slot(s) with the repository's stubs (build/grade/class/slots)...")
        logs = os.path.join(self.base, "slots")  # slot-<k>.log, beside the slots (where they are in base)
        os.makedirs(logs, exist_ok=True)
        with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
            list(pool.map(lambda s: s.configure_and_build(self.root, self.chosen, os.path.join(logs, f"slot-{s.k}.log")), slots))
        t1 = time.time()
        if not self.resume:
            for old in ("students", "unpacked", "unpacked-inner", "flat"):  # this class's results only
                shutil.rmtree(os.path.join(self.base, old), ignore_errors=True)
        for old in ("gradebook.csv", NOTES, "canvas.csv", "moodle.csv"):  # never an old one that looks current
            if os.path.exists(os.path.join(self.base, old)):
                os.remove(os.path.join(self.base, old))
        write_json(self.run_path(), {"class": self.cls, "sections": [s.id for s in self.chosen]})
        todo = [sub for sub in subs if sub[0] not in done]
        say(f"slots ready in {t1 - t0:.0f} s; grading {len(todo)} submission(s), {jobs} at a time"
            + (f" ({len(done)} graded before, kept: --resume)" if done else "") + "...")
        free = queue.Queue()
        for s in slots:
            free.put(s)
        rows = list(done.values())

        def one(sub):
            if self.stopping:
                return None
            slot = free.get()
            try:
                return self.grade_student(sub[0], sub[1], slot)
            finally:
                free.put(slot)

        previous = signal.signal(signal.SIGTERM, interrupt)  # kill: as Ctrl-C
        try:
            with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
                try:
                    for row in pool.map(one, todo):
                        if row is None:
                            continue
                        rows.append(row)
                        say(f"  {row['student']}: {row['total']} of {row['max']} ({row['status']}; {row['seconds']} s)")
                except KeyboardInterrupt:
                    self.stopping = True
                    for p in list(self.running):
                        kill_group(p)
        finally:
            signal.signal(signal.SIGTERM, previous)
        if self.stopping:
            rows = list(self.results_on_disk(subs).values())  # who finished, also after the last row read
            graded = {r["student"] for r in rows}
            rows += [{"student": name, "sections": {}, "total": 0, "status": "interrupted", "warnings": 0,
                      "message": "not graded: the run was interrupted (--resume grades who is left)",
                      "max": round(sum(self.rules.rule(s.id).weight for s in self.chosen), 1)}
                     for name, _ in subs if name not in graded]
            path = self.write_gradebook(rows)
            warn(f"interrupted: {len(graded)} of {len(subs)} students graded; {rel(path, self.root)} marks the rest "
                 f"'interrupted'; to grade them: ./lab grade --class {self.cls} --resume "
                 + " ".join(s.id for s in self.chosen))
            return 130
        t2 = time.time()
        path = self.write_gradebook(rows)
        say(f"gradebook: {rel(path, self.root)} ({len(rows)} students; per student: "
            f"build/grade/class/students/<name>/); slots {t1 - t0:.0f} s, grading {t2 - t1:.0f} s, "
            f"{(t2 - t1) * jobs / max(1, len(todo)):.1f} s per student per slot")
        errors = [r["student"] for r in rows if r["status"] in ("error", "timed out")]
        if errors:
            warn(f"not graded (the grader failed or timed out; see their grade.log): {' '.join(errors)}")
        return 1 if errors else 0

    # ---- one student ---------------------------------------------------------------------------------
    def grade_student(self, name, path, slot) -> dict:
        t0 = time.time()
        out = os.path.join(self.base, "students", name)
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)
        row = {"student": name, "status": "", "message": "", "warnings": 0, "sections": {}}
        folders = [s.folder for s in self.chosen]
        try:
            folder = path
            if not os.path.isdir(path):
                folder = os.path.join(self.base, "unpacked", name)
                unpack(path, folder)
            inner = lone_archive(folder)
            if inner and not exercises_root(folder, folders):  # an LMS folder holding the student's .zip
                folder = os.path.join(self.base, "unpacked-inner", name)
                unpack(inner, folder)
            found, note = sections_root(folder, folders, os.path.join(self.root, "exercises"),
                                        os.path.join(self.base, "flat", name))
            if not found:
                raise ValueError(f"no section folder ({', '.join(folders)}) in it, nor in an exercises/ folder, "
                                 "nor an exercise file at its top")
            problems = exercises.check(found, name, os.path.join(self.root, "exercises"), folders)
            if problems:
                raise ValueError("; ".join(problems[:5]) + (f"; and {len(problems) - 5} more" if len(problems) > 5 else ""))
        except (ValueError, OSError, zipfile.BadZipFile, tarfile.TarError) as e:
            return self.finish(row, out, t0, "invalid submission", str(e))
        for s in self.chosen:
            exercises.sync_tree(os.path.join(found, s.folder), os.path.join(slot.exercises, s.folder))
        for f in ("grade-summary.json", "grade-junit.xml", "grade-ctest.log"):
            if os.path.exists(os.path.join(slot.dir, f)):
                os.remove(os.path.join(slot.dir, f))
        if slot.uid is not None:
            sandbox.chown_tree(slot.exercises, slot.uid)
        slot_args = [slot.dir] + [s.id for s in self.chosen]
        env = {"PATH": sandbox.PATH if self.box else os.environ.get("PATH", sandbox.PATH), "HOME": "/tmp", "LANG": "C.UTF-8",
               "PYTHONPATH": os.path.join(self.root, "tools"), "CCACHE_DIR": "/tmp/ccache",
               "CTEST_OUTPUT_ON_FAILURE": "1", "LAB_JOBS": str(slot.build_jobs),
               "LAB_SECTION_TIMEOUT": str(self.section_timeout)}
        if self.box:
            # Two phases. The build, in the sandbox with the slot writable (no student code runs:
            # only the compiler reads it). Then the tests, outside it, as the grader: the checkers
            # start the student's kernels in the read-only sandbox, so nothing the kernels do can
            # change a checker, a test's verdict or the results.
            argv = [sandbox.python(), "-B", "-m", "scanlab_lab", "grade-slot", self.root, "--build"] + slot_args
            phases = [(sandbox.command(self.root, slot.dir, argv, self.shadows, env),
                       sandbox.preexec(self.limits, slot.uid), {"PATH": env["PATH"]}),
                      ([sys.executable, "-B", "-m", "scanlab_lab", "grade-slot", self.root, "--test"] + slot_args, os.setsid,
                       dict(os.environ, **dict(env, PATH=os.environ.get("PATH", sandbox.PATH),
                                               SCANLAB_RUNNER_PREFIX=slot.box)))]
        else:
            phases = [([sys.executable, "-B", "-m", "scanlab_lab", "grade-slot", self.root] + slot_args, os.setsid,
                       dict(os.environ, **env))]
        log = os.path.join(out, "grade.log")
        status, message = "", ""
        rc = 0
        with open(log, "wb") as f:
            for cmd, pre, penv in phases:
                if self.stopping:
                    rc, status, message = None, "interrupted", "not graded: the run was interrupted"
                    break
                p = subprocess.Popen(cmd, cwd=slot.dir, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                     preexec_fn=pre, env=penv)
                self.running.add(p)
                try:
                    rc = p.wait(timeout=max(1.0, self.timeout - (time.time() - t0)))
                except subprocess.TimeoutExpired:
                    kill_group(p)
                    rc = None
                    status, message = "timed out", f"stopped after {self.timeout} s (--timeout)"
                finally:
                    self.running.discard(p)
                if self.stopping:
                    rc, status, message = None, "interrupted", "not graded: the run was interrupted"
                if rc != 0:
                    break
        if slot.uid is not None:
            sandbox.chown_tree(slot.dir, slot.uid)  # what the tests wrote, for the next build in this slot
        if os.path.getsize(log) < (16 << 20):  # the student's paths, not the slot's
            with open(log, encoding="utf-8", errors="replace") as r:
                text = r.read().replace(slot.exercises + "/", name + "/")
            with open(log, "w", encoding="utf-8") as w:
                w.write(text)
        summary = os.path.join(slot.dir, "grade-summary.json")
        if rc is not None and not os.path.exists(summary):
            status, message = "error", f"the grader ended with status {rc} and no result: see {rel(log, self.root)}"
        if os.path.exists(summary):
            for f in ("grade-summary.json", "grade-junit.xml"):
                src = os.path.join(slot.dir, f)
                if os.path.exists(src):
                    with open(src, encoding="utf-8", errors="replace") as r:
                        text = r.read().replace(slot.exercises + "/", name + "/").replace(slot.dir + "/", "")
                    with open(os.path.join(out, f), "w", encoding="utf-8") as w:
                        w.write(text)
            if not status:
                with open(os.path.join(out, "grade-summary.json"), encoding="utf-8") as r:
                    data = json.load(r)
                row["sections"] = {s["section"]: s["points"] for s in data["sections"]}
                row["warnings"] = sum(len(s["warnings"]) for s in data["sections"])
                broken = [s["section"] for s in data["sections"] if s["status"] == "build-failed"]
                status = "graded" if not broken else "graded; does not build: " + " ".join(broken)
                idle = [s["section"] for s in data["sections"] if s["not_started"]]
                message = "; ".join(["not started: " + " ".join(idle)] * bool(idle) + explained_notes(data))
        if note:  # a flat upload: say so, and which files were not graded
            message = f"{note}; {message}" if message else note
        return self.finish(row, out, t0, status, message)

    def finish(self, row, out, t0, status, message):
        row["status"], row["message"] = status, message
        row["total"] = round(sum(row["sections"].values()), 1)
        row["max"] = round(sum(self.rules.rule(s.id).weight for s in self.chosen), 1)
        row["seconds"] = round(time.time() - t0, 1)
        write_json(os.path.join(out, "result.json"), row)  # whole or not at all: --resume reads it
        return row

    def write_gradebook(self, rows):
        """gradebook.csv (the student's folder, who they are where the export says, points per section,
        total, max, status: numbers to import or sort), notes.csv beside it (per student the status, the
        warnings and the feedback text: what to read or paste as a comment), and canvas.csv and
        moodle.csv to import (roster.py)."""
        path = os.path.join(self.base, "gradebook.csv")
        rows = sorted(rows, key=lambda r: r["student"])
        blank = {k: "" for k in roster.FIELDS}
        roster.write_csv(path, ["student", "name", "email", "sid", "login"] + [s.id for s in self.chosen]
                         + ["total", "max", "status"],
                         [[r["student"]] + [self.people.get(r["student"], blank)[k] for k in ("name", "email", "sid", "login")]
                          + [r["sections"].get(s.id, 0) for s in self.chosen]
                          + [r["total"], r["max"], r["status"]] for r in rows])
        roster.write_csv(os.path.join(self.base, NOTES), ["student", "name", "status", "warnings", "notes"],
                         [[r["student"], self.people.get(r["student"], blank)["name"], r["status"], r["warnings"],
                           r["message"]] for r in rows])
        for note in roster.write_exports(self.base, rows, self.people, self.title):
            warn(note)
        return path


def explained_notes(summary):
    """Per section, its first explained failure in one line (diagnose.explanation_line)."""
    notes = []
    for s in summary["sections"]:
        first = next((t["explanation"] for t in s["failed_tests"] if t.get("explanation")), None)
        if first:
            notes.append(f"{s['section']}: {diagnose.explanation_line(first)}")
    return notes


def write_json(path, data):
    """Writes `path` whole or not at all (a run stopped half-way leaves the old file or the new one)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2)
    os.replace(path + ".tmp", path)


def interrupt(signum, frame):
    raise KeyboardInterrupt


def kill_group(p):
    try:
        os.killpg(p.pid, 9)
    except OSError:
        pass
    p.wait()
