"""Who each submission of a class export belongs to, and gradebooks a course can import.

The layouts a class folder comes in, as the platforms export them:
  - Gradescope ("Export Submissions"): a folder per submission (submission_<id>/) and
    submission_metadata.yml, which names each submission's submitters (name, sid, email);
  - GitHub Classroom (the assistant or `gh classroom clone`): a repository per student,
    <assignment>-<username>, the assignment prefix shared by all;
  - Canvas ("Download Submissions", canvas-lms lib/content_zipper.rb): one flat folder of every
    student's files, each "<name key>[_LATE]_<user id>_<attachment id>_<file>": the name key is the
    sortable name ("Smith, Alice") in lower case without its non-word characters ("smithalice");
    with anonymous grading "[LATE_]anon_<anonymous id>_<attachment id>_<file>"; a text entry or a URL
    "<name key>[_LATE]_<user id>_text.html" or "_link.html". Only the current attempt is in it; a file
    uploaded again under the same name was renamed "<name>-1.<ext>" by Canvas.
  - Moodle ("Download all submissions", mod/assign/classes/downloader.php): per student and
    submission plugin a folder "<Full Name>_<participant id>_assignsubmission_<plugin>" (Moodle >= 3.1;
    before 4.1 with a trailing "_"), or with "Download submissions in folders" off, flat files
    "<Full Name>_<participant id>_assignsubmission_file_<file>". The participant id is the
    assignment's own number for the student (blind marking: the name is "Participant"), the one its
    grading worksheet's "Identifier" column holds ("Participant <id>").
Anything else: the folder or archive's name is the student.

group() sorts a Canvas or Moodle download into a folder per student (their `file` plugin's files;
Moodle's online text is not graded). identity() gives {name, email, sid, login, user_id, source} per
submission of the other layouts: what the layout says ("" where it says nothing); sid is the
student's (SIS) ID, user_id the platform's own number for them (Canvas's user ID, Moodle's
participant id), source the layout it came from.

The exports, one row per student (write_exports):
  - canvas.csv, Canvas's gradebook import (canvas-lms app/models/gradebook_importer.rb): the header
    Student, ID, SIS User ID, SIS Login ID, Section, then the assignment's column (its title, or
    "Title (assignment id)" to update that assignment; a title alone makes a new one), a "Points
    Possible" row, and per student the total. Canvas finds a student by ID (Canvas's user ID: a
    Canvas download gives it), else SIS User ID, else SIS Login ID, else the name.
  - moodle.csv, the Moodle assignment's grading worksheet ("Upload grading worksheet",
    assignfeedback_offline): Identifier ("Participant <id>": a Moodle download gives it), Full name,
    Email address, ID number, Grade, Maximum Grade, Last modified (grade), Feedback comments. The
    worksheet import reads Identifier, Grade, Last modified (grade) and Feedback comments by their
    names and skips rows without an identifier; the gradebook's CSV import instead maps a column
    (Email address or ID number) to its users and stops at a row it cannot map.
"""
import csv
import os
import re
import shutil
import time
from typing import Dict, List, Optional

from .exercises import JUNK_FOLDERS, junk

FIELDS = ("name", "email", "sid", "login", "user_id", "source")
# The anonymous form first: an anonymous id may be all digits.
CANVAS_FILE = re.compile(r"^(?:(?:LATE_)?anon_(?P<anon>[A-Za-z0-9]+)|(?P<key>\w+?)(?:_LATE)?_(?P<uid>\d+))"
                         r"_(?P<att>\d+)_(?P<file>.+)$")
CANVAS_TEXT = re.compile(r"^(?:(?:LATE_)?anon_(?P<anon>[A-Za-z0-9]+)|(?P<key>\w+?)(?:_LATE)?_(?P<uid>\d+))"
                         r"_(?P<file>text|link)\.html$")
MOODLE_ENTRY = re.compile(r"^(?P<name>.+?)_(?P<id>\d+)_assignsubmission_(?P<plugin>[a-z]+)(?:_(?P<file>.*))?$")
GRADESCOPE_FOLDER = re.compile(r"^submission_(?P<id>\d+)$")


def blank(**known) -> dict:
    return dict({k: "" for k in FIELDS}, **known)


def folder_name(name) -> str:
    """A submission's folder under build/grade/class/: its name with anything but [A-Za-z0-9._@+-] as "_"."""
    return re.sub(r"[^A-Za-z0-9._@+-]", "_", name)


def visible(cls) -> List[str]:
    """The entries of cls but OS junk and hidden files, sorted."""
    return [e for e in sorted(os.listdir(cls)) if not (e.startswith(".") or junk(e) or e in JUNK_FOLDERS)]


# ---- Canvas and Moodle: sorted into a folder per student ---------------------------------------------
def canvas_entries(cls) -> Dict[str, List[tuple]]:
    """{student key: [(match, file), ...]} when cls is a Canvas download (plain files only, each named
    the Canvas way, at least one uploaded file), else {}. The key: "<name key>_<user id>" or "anon_<id>"."""
    entries = visible(cls)
    if not entries or any(os.path.isdir(os.path.join(cls, e)) for e in entries):
        return {}
    by_key: Dict[str, List[tuple]] = {}
    for e in entries:
        m = CANVAS_FILE.match(e) or CANVAS_TEXT.match(e)
        if not m:
            return {}
        key = f"anon_{m.group('anon')}" if m.group("anon") else f"{m.group('key')}_{m.group('uid')}"
        by_key.setdefault(key, []).append((m, e))
    if not any(CANVAS_FILE.match(e) for e in entries):
        return {}
    return by_key


def moodle_entries(cls) -> Dict[tuple, List[tuple]]:
    """{(full name, participant id): [(match, entry), ...]} when every entry of cls is named the Moodle
    way (folders or flat files), else {}."""
    entries = [e for e in visible(cls) if e != "submission_metadata.yml"]
    matched = [MOODLE_ENTRY.match(e) for e in entries]
    if not entries or not all(matched):
        return {}
    by_key: Dict[tuple, List[tuple]] = {}
    for m in matched:
        by_key.setdefault((m.group("name"), m.group("id")), []).append((m, m.string))
    return by_key


def group(cls, dst) -> Optional[tuple]:
    """A Canvas or Moodle download sorted into dst/<student>/ (their uploaded files, under their own
    names): (the layout's name, {student: identity}); None when cls is neither."""
    canvas, moodle = canvas_entries(cls), moodle_entries(cls)
    if not canvas and not moodle:
        return None
    shutil.rmtree(dst, ignore_errors=True)
    os.makedirs(dst)
    people = {}
    for key, entries in canvas.items():
        key = folder_name(key)
        folder = os.path.join(dst, key)
        os.makedirs(folder)
        newest = {}  # a file uploaded again under the same name: the last one (the largest attachment id)
        for m, f in entries:
            if "att" not in m.groupdict():
                continue  # a text entry or a URL: nothing to grade
            name = re.sub(r"-\d+(\.[^.]+)$", r"\1", m.group("file"))
            if name not in newest or int(m.group("att")) > newest[name][0]:
                newest[name] = (int(m.group("att")), f)
        for name, (_, f) in newest.items():
            shutil.copyfile(os.path.join(cls, f), os.path.join(folder, name))
        m = entries[0][0]
        people[key] = blank(name=f"anon_{m.group('anon')}" if m.group("anon") else m.group("key"), user_id=m.group("uid") or "",
                            source="canvas")
    for (full, pid), entries in moodle.items():
        key = folder_name(f"{full}_{pid}")
        folder = os.path.join(dst, key)
        os.makedirs(folder)
        for m, e in entries:
            if m.group("plugin") != "file":
                continue  # online text and the like: nothing to grade
            src = os.path.join(cls, e)
            if os.path.isdir(src):
                shutil.copytree(src, folder, dirs_exist_ok=True)
            elif m.group("file"):
                shutil.copyfile(src, os.path.join(folder, m.group("file")))
        people[key] = blank(name="" if full == "Participant" else full, user_id=pid, source="moodle")
    return ("a Canvas download" if canvas else "a Moodle download"), people


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
    # GitHub Classroom: <assignment>-<username>, the assignment the same for every student.
    dashed = [n for n in names if "-" in n and n not in meta]
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
    """canvas.csv and moodle.csv beside the gradebook (the module's docstring says what each holds and
    how the platform reads it); title: the assignment's column in canvas.csv. Returns the notes to print:
    which students a file that identifies some leaves out (fill them in before importing)."""
    def who(r):
        return people.get(r["student"]) or blank()

    total_max = max([r["max"] for r in rows] or [0])
    canvas_rows = [["Student", "ID", "SIS User ID", "SIS Login ID", "Section", title],
                   ["    Points Possible", "", "", "", "", total_max]]
    moodle_rows = [["Identifier", "Full name", "Email address", "ID number", "Grade", "Maximum Grade",
                    "Last modified (grade)", "Feedback comments"]]
    graded_at = time.strftime("%Y-%m-%d %H:%M:%S")  # strtotime reads it; a grade changed later in Moodle wins
    lost = {"canvas.csv": [], "moodle.csv": []}
    for r in rows:
        p = who(r)
        canvas_id = p["user_id"] if p["source"] == "canvas" else ""
        canvas_rows.append([p["name"] or r["student"], canvas_id, p["sid"], "", "", r["total"]])
        identifier = f"Participant {p['user_id']}" if p["source"] == "moodle" else ""
        moodle_rows.append([identifier, p["name"], p["email"], p["sid"], r["total"], r["max"], graded_at,
                            f"{r['status']}: {r['message']}" if r.get("message") else r["status"]])
        if not (canvas_id or p["sid"]):
            lost["canvas.csv"].append(r["student"])
        if not (identifier or p["email"] or p["sid"]):
            lost["moodle.csv"].append(r["student"])
    write_csv(os.path.join(base, "canvas.csv"), canvas_rows[0], canvas_rows[1:])
    write_csv(os.path.join(base, "moodle.csv"), moodle_rows[0], moodle_rows[1:])
    # A file that identifies no one is for another platform's class (a Canvas download has no Moodle ID):
    # one note when neither identifies anyone, else a note per file for those it leaves out.
    if all(len(who_) == len(rows) for who_ in lost.values()):
        return ["canvas.csv, moodle.csv: no student has an ID a gradebook can match (the layout names none): "
                "fill them in before importing"] if rows else []
    return [f"{f}: no ID for {len(who_)} student(s) ({' '.join(who_[:5])}{' ...' if len(who_) > 5 else ''}): "
            "fill it in before importing" for f, who_ in lost.items() if who_ and len(who_) < len(rows)]
