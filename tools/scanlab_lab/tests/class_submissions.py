"""Writes a class of 22 submissions of section 11.1 into a folder, for ./lab grade --class (the
end-to-end check in tools/README.md; it needs a build, so it is not a ctest test):

    python3 tools/scanlab_lab/tests/class_submissions.py ROOT OUT_DIR PORT
    python3 tools/scanlab_lab/tests/class_submissions.py --check build/grade/class/gradebook.csv OUT_DIR-expected.json

Each is the solution or the stub with a small change; expected.json says what each must score
(points of 11.1, or "error"/"invalid"). The hostile ones try their attack once per test program and
write a wrong element if it worked, so a contained attack scores like the correct kernel it wraps.
PORT: a TCP port the caller listens on at 127.0.0.1 (the socket submission connects to it)."""
import json
import os
import shutil
import sys
import tarfile
import zipfile

FOLDER = "11_1_sequential"
FILE = "sequential_scan.cuh"
HOOK = "  // TODO(student) begin: the book's loop, with op(a, b) in place of a + b.\n"

# Attack code, run once per process at the start of the inclusive scan; `bad` set means it worked.
ATTACKS = {
    "read_outside": r'''
    for (const char* p : {"@ROOT@/solutions/11_1_sequential/sequential_scan.cuh", "/etc/shadow", "/root/.bashrc"}) {
      if (FILE* f = std::fopen(p, "r")) { char buf[64]; if (std::fread(buf, 1, sizeof buf, f) > 0) bad = true; std::fclose(f); }
    }''',
    "socket": r'''
    int s = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{}; a.sin_family = AF_INET; a.sin_port = htons(@PORT@); a.sin_addr.s_addr = htonl(0x7f000001);
    if (s >= 0 && connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) bad = true;
    if (s >= 0) close(s);''',
    "fork_bomb": r'''
    std::vector<pid_t> kids;
    for (int i = 0; i < 5000; ++i) { pid_t p = fork(); if (p == 0) { pause(); _exit(0); } if (p < 0) break; kids.push_back(p); }
    if (kids.size() >= 1000) bad = true;
    for (pid_t p : kids) kill(p, SIGKILL);
    for (pid_t p : kids) waitpid(p, nullptr, 0);''',
    "allocate": r'''
    std::size_t big = std::size_t(16) << 30;
    if (char* m = static_cast<char*>(std::malloc(big))) { std::memset(m, 1, big); bad = true; std::free(m); }''',
    "flood": r'''
    static char line[1 << 16]; std::memset(line, 'x', sizeof line);
    for (int i = 0; i < (1 << 15); ++i) if (std::fwrite(line, 1, sizeof line, stdout) != sizeof line) break;''',
    "forever": r'''
    if (open("/tmp/spinner", O_CREAT | O_EXCL | O_WRONLY, 0600) >= 0 && fork() == 0) { setsid(); if (fork() == 0) { volatile int stop = 0; while (stop == 0) {} } _exit(0); }''',
}
# Forgeries: a stub (it scores 0) whose kernel file, when the kernels' process starts, tries to make
# the grader report points: replace the checker program beside it with a script that passes, or leave
# a process behind that writes a full-marks grade-summary.json into the build folder for a minute.
FORGERIES = {
    "replace_checker": r'''
    std::string bin = exe.substr(0, exe.rfind('/'));
    std::string checker = bin + "/test_11_1_exercise_cpu", forged = checker + ".forged";
    if (FILE* f = std::fopen(forged.c_str(), "w")) {
      std::fputs("#!/bin/sh\necho '[  PASSED  ] 1 test.'\nexit 0\n", f);
      std::fclose(f);
      chmod(forged.c_str(), 0755);
      std::rename(forged.c_str(), checker.c_str());
    }''',
    "rewrite_summary": r'''
    std::string slot = exe.substr(0, exe.rfind('/', exe.rfind('/') - 1));
    if (fork() == 0) {
      setsid();
      if (fork() == 0) {
        for (int i = 0; i < 600; ++i) {
          if (FILE* f = std::fopen((slot + "/grade-summary.json").c_str(), "w")) {
            std::fputs("{\"sections\": [{\"section\": \"11.1\", \"points\": 10.0, \"status\": \"graded\", "
                       "\"warnings\": [], \"not_started\": false}]}\n", f);
            std::fclose(f);
          }
          usleep(100000);
        }
      }
      _exit(0);
    }''',
}
FORGERY = ('''
static const int scanlab_forgery = [] {
  char self[4096];
  const ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
  if (k <= 0) return 0;
  self[k] = 0;
  const std::string exe(self);
  if (exe.find("_runner") == std::string::npos && exe.find("test_11_1_exercise") == std::string::npos) return 0;
  @CODE@
  return 0;
}();
''')
HEADERS = ("#include <cstdio>\n#include <cstdlib>\n#include <cstring>\n#include <vector>\n#include <csignal>\n"
           "#include <unistd.h>\n#include <sys/wait.h>\n#include <sys/socket.h>\n#include <netinet/in.h>\n"
           "#include <arpa/inet.h>\n#include <fcntl.h>\n#include <string>\n#include <sys/stat.h>\n")


def write(folder, text):
    os.makedirs(os.path.join(folder, FOLDER), exist_ok=True)
    with open(os.path.join(folder, FOLDER, FILE), "w", encoding="utf-8") as f:
        f.write(text)


def main(root, out, port):
    with open(os.path.join(root, "solutions", FOLDER, FILE), encoding="utf-8") as f:
        solution = f.read()
    with open(os.path.join(root, "exercises", FOLDER, FILE), encoding="utf-8") as f:
        stub = f.read()
    assert HOOK in solution
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    expected = {}
    tmp = os.path.join(out, ".tmp")

    def folder(name, text, score, how="folder"):
        expected[name] = score
        where = os.path.join(tmp if how != "folder" else out, name)
        inner = os.path.join(where, "exercises") if how in ("folder-exercises", "zip", "tgz") else where
        write(inner, text)
        if how == "zip":
            with zipfile.ZipFile(os.path.join(out, name + ".zip"), "w") as z:
                for top, _, names in os.walk(where):
                    for n in names:
                        z.write(os.path.join(top, n), os.path.relpath(os.path.join(top, n), tmp))
        elif how == "tgz":
            with tarfile.open(os.path.join(out, name + ".tar.gz"), "w:gz") as t:
                t.add(where, arcname=name)
        elif how == "folder-exercises":
            shutil.move(where, os.path.join(out, name))

    # Correct: the solution, with harmless changes, in every layout an LMS may give.
    folder("correct_plain", solution, 10)
    folder("correct_comment", solution.replace(HOOK, HOOK + "  // my own comment\n"), 10)
    folder("correct_zip", solution, 10, "zip")
    folder("correct_tgz", solution, 10, "tgz")
    folder("correct_nested", solution, 10, "folder-exercises")
    folder("correct_renamed", solution.replace("running", "total_so_far"), 10)
    folder("correct_blank_lines", solution.replace("\n\n", "\n\n\n"), 10)
    # Untouched stubs, and a file missing (an invalid layout).
    folder("stub_a", stub, 0)
    folder("stub_b", stub, 0, "zip")
    expected["missing_file"] = "invalid"
    os.makedirs(os.path.join(out, "missing_file", FOLDER))
    # Broken builds, and an #include of a solution.
    folder("broken_syntax", solution.replace("y[0] = x[0];", "y[0] = x[0]"), 0)
    folder("broken_type", solution.replace("y[0] = x[0];", "y[0] = x;"), 0)
    folder("include_solution", solution.replace(HOOK, HOOK + f'#include "../../solutions/{FOLDER}/{FILE}"\n', 1)
           .replace('#include "scanlab/kernel.hpp"', '#include "scanlab/kernel.hpp"'), 0)
    # A hanging inclusive scan (a spin the emulator's watchdog ends): the tests that run an inclusive
    # scan fail (and the book's example, which runs both kinds); of grading.toml's rubric for 11.1 only
    # the exclusive scans' 4 points are earned (the `last` operator's property has inclusive tests too).
    folder("hangs", solution.replace(HOOK, HOOK + "  volatile int stop = 0;\n  while (stop == 0) {}\n"), 4)
    # Hostile, contained: scores as the correct kernel it wraps, but for what the attack itself breaks.
    for name, code in ATTACKS.items():
        code = code.replace("@ROOT@", root).replace("@PORT@", str(port))
        attack = (HOOK + "  {\n    static bool tried = false; static bool bad = false;\n    if (!tried) {\n      tried = true;"
                  + code + "\n    }\n    if (bad && n > 0) { y[0] = x[0]; for (std::size_t i = 1; i < n; ++i) y[i] = x[i]; return; }\n  }\n")
        text = solution.replace("#include <cstddef>\n", "#include <cstddef>\n" + HEADERS, 1).replace(HOOK, attack)
        # forever: its spinner dies with the sandbox its runner ran in; flood: what the kernels print goes
        # to the checker, which keeps the first bytes for a diagnosis and drops the rest (the test's own
        # output stays small): both score as the correct kernel they wrap.
        folder(f"hostile_{name}", text, 10)
    for name, code in FORGERIES.items():
        stub_headers = stub.replace("#include <cstddef>\n", "#include <cstddef>\n" + HEADERS, 1)
        assert stub_headers != stub
        folder(f"forge_{name}", stub_headers + FORGERY.replace("@CODE@", code), 0)
    shutil.rmtree(tmp, ignore_errors=True)
    with open(os.path.join(out, "..", os.path.basename(out) + "-expected.json"), "w") as f:
        json.dump(expected, f, indent=2)
    return expected


def check(gradebook, expected_path) -> int:
    """Compares build/grade/class/gradebook.csv with the expected points; prints each mismatch."""
    import csv
    with open(expected_path) as f:
        expected = json.load(f)
    with open(gradebook, newline="") as f:
        rows = {r["student"]: r for r in csv.DictReader(f)}
    bad = 0
    for name, want in expected.items():
        r = rows.get(name)
        got = None if r is None else ("invalid" if r["status"] == "invalid submission" else
                                      "error" if r["status"] in ("error", "timed out") else float(r["total"]))
        ok = got == want if isinstance(want, str) else got is not None and not isinstance(got, str) and abs(got - want) < 0.05
        print(f"{'ok ' if ok else 'BAD'} {name}: expected {want}, got {got}" + (f" ({r['status']})" if r else ""))
        bad += not ok
    print(f"{len(expected) - bad} of {len(expected)} as expected")
    return 1 if bad else 0


if __name__ == "__main__":
    if sys.argv[1] == "--check":  # --check GRADEBOOK EXPECTED_JSON
        sys.exit(check(sys.argv[2], sys.argv[3]))
    e = main(os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2]), int(sys.argv[3]))
    print(f"{len(e)} submissions")
