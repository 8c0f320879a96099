"""The sections of chapter 11, read from chapters/sections.txt (the one list)."""
import os
from typing import List, NamedTuple

from . import LabError


class Section(NamedTuple):
    folder: str  # 11_2_kogge_stone: chapters/<folder>, exercises/<folder>, solutions/<folder>
    id: str  # 11.2
    title: str

    @property
    def us(self):  # 11_2, as in target names (test_11_2_exercise_cpu)
        return self.id.replace(".", "_")


def load(root) -> List[Section]:
    """Every section, in the file's order. Lines that do not start with a digit are comments."""
    path = os.path.join(root, "chapters", "sections.txt")
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise LabError(f"cannot read chapters/sections.txt: {e.strerror}")
    sections = []
    for line in lines:
        if not line[:1].isdigit():
            continue
        folder, _, title = line.strip().partition(" ")
        parts = folder.split("_")
        if len(parts) < 2 or not (parts[0].isdigit() and parts[1].isdigit()):
            raise LabError(f"chapters/sections.txt: '{folder}' does not start with the section's numbers (11_2_...)")
        sections.append(Section(folder, f"{parts[0]}.{parts[1]}", title.strip()))
    return sections


def resolve(sections: List[Section], args: List[str]) -> List[Section]:
    """The sections named by args (11.2, 11_2 or the folder), in the order given, each once; all
    sections when args is empty. An unknown name is a usage error (exit status 2)."""
    if not args:
        return list(sections)
    chosen = []
    for arg in args:
        want = arg.replace("_", ".")
        found = [s for s in sections if s.id == want or s.folder == arg]
        if not found:
            known = " ".join(s.id for s in sections) or "(none yet)"
            raise LabError(f"unknown section '{arg}': the sections are {known} (see ./lab help)", 2)
        if found[0] not in chosen:
            chosen.append(found[0])
    return chosen
