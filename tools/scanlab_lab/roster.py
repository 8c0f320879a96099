"""Who each submission of a class export belongs to, and gradebooks a course can import.

The layouts a class folder comes in, as the platforms export them:
  - Gradescope ("Export Submissions"): a folder per submission (submission_<id>/) and
    submission_metadata.yml, which names each submission's submitters (name, sid, email);
  - GitHub Classroom (the assistant or `gh classroom clone`): a repository per student,
    <assignment>-<username>, the assignment prefix shared by all;
  - Moodle ("Download all submissions"): a folder per student, "<Full Name>_<participant id>_
    assignsubmission_file_" (or _onlinetext_);
  - Canvas ("Download Submissions"): one flat folder of every student's files, each named
    <login>[_LATE]_<user id>_<submission id>_<file name> (a resubmitted file's name gains "-1", "-2").
    group_canvas() sorts them into a folder per student.
Anything else: the folder or archive's name is the student.

identity() gives {name, email, sid, login, user_id, source} per submission: what the layout says
("" where it says nothing); sid is the student's (SIS) ID, user_id the platform's own number for them
(Canvas's user ID, Moodle's participant ID), source the layout it came from. The exports: gradebook.csv (every column), canvas.csv (Canvas's grade import: Student, ID,
SIS User ID, SIS Login ID, Section, then the total as a new assignment), moodle.csv (Moodle's grade
import: an identifier column, email or ID number, then the total), each with one row per student.
"""
import csv
import os
import re
import shutil
from typing import Dict, List

FIELDS = ("name", "email", "sid", "login", "user_id", "source")
CANVAS_FILE = re.compile(r"^(?P<login>[a-z0-9]+)(?:_LATE)?_(?P<uid>\d+)_(?P<sub>\d+)_(?P<file>.+)$")
MOODLE_FOLDER = re.compile(r"^(?P<name>.+)_(?P<id>\d+)_assignsubmission_[a-z]+_?$")
GRADESCOPE_FOLDER = re.compile(r"^submission_(?P<id>\d+)$")


# ---- Canvas: files of every student in one folder -----------------------------------------------------
def canvas_files(cls) -> Dict[str, List[str]]:
    """{login: [file, ...]} when cls is a Canvas download (every plain file named the Canvas way), else {}."""
    files = [e for e in sorted(os.listdir(cls)) if os.path.isfile(os.path.join(cls, e)) and not e.startswith(".")]
    if not files or any(os.path.isdir(os.path.join(cls, e)) and not e.startswith(".") for e in os.listdir(cls)):
        return {}
    matched = [CANVAS_FILE.match(f) for f in files]
    if not all(matched):
        return {}
    by_login: Dict[str, List[str]] = {}
    for m in matched:
        by_login.setdefault(f"{m.group('login')}_{m.group('uid')}", []).append(m.string)
    return by_login


def group_canvas(cls, dst) -> Dict[str, dict]:
    """Copies a Canvas download's files into dst/<login>_<user id>/ under their own names (a resubmission's
    "-1" dropped; the newest submission wins); returns {folder name: identity}."""
    shutil.rmtree(dst, ignore_errors=True)
    people = {}
    for key, files in canvas_files(cls).items():
        folder = os.path.join(dst, key)
        os.makedirs(folder)
        newest = {}
        for f in files:
            m = CANVAS_FILE.match(f)
            name = re.sub(r"-\d+(\.[^.]+)$", r"\1", m.group("file"))
            if name not in newest or int(m.group("sub")) > newest[name][0]:
                newest[name] = (int(m.group("sub")), f)
        for name, (_, f) in newest.items():
            shutil.copyfile(os.path.join(cls, f), os.path.join(folder, name))
        login, uid = key.rsplit("_", 1)
        people[key] = {"name": "", "email": "", "sid": "", "login": login, "user_id": uid, "source": "canvas"}
    return people


# ---- the other layouts: from the folder names and Gradescope's metadata --------------------------------
def gradescope_metadata(cls) -> Dict[str, dict]:
    """{submission_<id>: identity} from cls/submission_metadata.yml (the file Gradescope writes: under
    each submission, `:submitters:`, a list of `:name:`, `:sid:`, `:email:`; a group's joined by "; ")."""
    path = os.path.join(cls, "submission_metadata.yml")
    if not os.path.isfile(path):
        return {}
    people, current = {}, None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            m = re.match(r"^(submission_\d+):\s*$", line)
            if m:
                current = people.setdefault(m.group(1), dict({k: "" for k in FIELDS}, source="gradescope"))
                continue
            m = re.match(r"^\s*(?:-\s*)?:(name|sid|email):\s*(.*?)\s*$", line)
            if current is not None and m:
                value = m.group(2).strip("'\"")
                key = m.group(1)
                current[key] = f"{current[key]}; {value}" if current[key] else value
    return people


def identity(names: List[str], cls) -> Dict[str, dict]:
    """{submission name: {name, email, sid, login}} for the names find_submissions gave."""
    out = {n: {k: "" for k in FIELDS} for n in names}
    meta = gradescope_metadata(cls)
    for n in names:
        if n in meta:
            out[n] = meta[n]
            continue
        m = MOODLE_FOLDER.match(n)
        if m:
            out[n].update(name=m.group("name").replace("_", " "), user_id=m.group("id"), source="moodle")
    # GitHub Classroom: <assignment>-<username>, the assignment the same for every student.
    dashed = [n for n in names if "-" in n and not MOODLE_FOLDER.match(n) and n not in meta]
    if len(dashed) >= 2:
        prefix = os.path.commonprefix(dashed)
        prefix = prefix[:prefix.rfind("-") + 1]
        if prefix:
            for n in dashed:
                out[n].update(login=n[len(prefix):], source="classroom")
    return out


# ---- exports -----------------------------------------------------------------------------------------
def write_csv(path, header, rows):
    with open(path + ".tmp", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    os.replace(path + ".tmp", path)


def write_exports(base, rows, people, title="scanlab") -> List[str]:
    """canvas.csv and moodle.csv beside the gradebook; returns their paths. Canvas matches a row by its
    ID (Canvas's user ID: a Canvas download gives it), SIS User ID or SIS Login ID; Moodle by email or
    ID number. A row with none of them is there for the instructor to fill in."""
    def who(r):
        return people.get(r["student"]) or {k: "" for k in FIELDS}

    canvas = os.path.join(base, "canvas.csv")
    write_csv(canvas, ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", title],
              [[who(r)["name"] or r["student"], who(r)["user_id"] if who(r)["source"] == "canvas" else "",
                who(r)["sid"], who(r)["login"], "", r["total"]] for r in rows])
    moodle = os.path.join(base, "moodle.csv")
    write_csv(moodle, ["Email address", "ID number", "Full name", title],
              [[who(r)["email"], who(r)["sid"], who(r)["name"] or r["student"], r["total"]] for r in rows])
    return [canvas, moodle]
