"""./lab run's table: one row per algorithm from the programs' --json files."""
import json
import sys
from typing import List, Tuple

HEAD = ["section", "algorithm", "backend", "n", "verified", "time ms", "GB/s", "ops", "steps"]
RIGHT = {3, 5, 6, 7, 8}


def unverified_in(x, found):
    """Every object anywhere in x with "verified": false (11.3's work table nests its verdicts)."""
    if isinstance(x, dict):
        if x.get("verified") is False:
            found.append(x)
        for v in x.values():
            unverified_in(v, found)
    elif isinstance(x, list):
        for v in x:
            unverified_in(v, found)
    return found


def load(paths) -> Tuple[list, list, list, list]:
    """(timing rows, files of another shape, unreadable files, unverified objects)."""
    rows, other, bad, unverified = [], [], [], []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, ValueError) as e:
            bad.append(f"{path}: {e}")
            continue
        if isinstance(data, list) and all(isinstance(r, dict) and "algorithm" in r for r in data):
            rows += data
        else:  # another shape (11.3's work-efficiency table): not timings; only its verdicts count
            other.append(path)
            unverified_in(data, unverified)
    return rows, other, bad, unverified


def num(v, fmt):
    return format(v, fmt) if v else "-"


def table(rows) -> List[str]:
    cells = [[str(r.get("section", "?")), str(r.get("algorithm", "?")), str(r.get("backend", "?")),
              str(r.get("n", "?")), "yes" if r.get("verified") else "NO", num(r.get("median_ms", 0), ".4g"),
              num(r.get("gbps", 0), ".3g"), num(r.get("ops", 0), "d"), num(r.get("steps", 0), "d")]
             for r in rows]
    width = [max(len(x) for x in col) for col in zip(HEAD, *cells)]

    def line(c):
        return "  ".join(x.rjust(w) if i in RIGHT else x.ljust(w) for i, (x, w) in enumerate(zip(c, width))).rstrip()

    return [line(HEAD), "  ".join("-" * w for w in width)] + [line(c) for c in cells]


def report(paths, out=sys.stdout, err=sys.stderr) -> int:
    """Prints the table; 1 when a file is unreadable or a result is not verified, else 0."""
    rows, other, bad, unverified = load(paths)
    for line in table(rows):
        print(line, file=out)
    for p in other:
        print(f"(not a timing table, so not above: {p}; see the program's output and the plots)", file=out)
    for b in bad:
        print(f"[lab] warning: could not read {b}", file=err)
    for u in unverified:
        print(f"[lab] not verified: {json.dumps(u)}", file=err)
    return 1 if bad or unverified or any(not r.get("verified") for r in rows) else 0
