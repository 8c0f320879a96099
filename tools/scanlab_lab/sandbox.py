"""The sandbox a student's submission builds and runs in (./lab grade --class).

The build runs in it with the slot writable (command); the student's kernels, started by the
grader's checkers outside it, run in it with the slot read-only too (box_script). With bubblewrap
(Debian: bubblewrap) and the kernel's namespaces, each submission sees:
  - no network (a network namespace of its own, with no interface but lo), its own PIDs, IPC, hostname;
  - the system (/usr, /etc, ...) and the lab read-only, with what would give answers away hidden:
    solutions/ and chapters/*/{mutants,valid}/ are replaced by empty files of the same names and dates
    (so the build still sees them unchanged), build/ and the repository's .git by empty folders (the
    sections that build on others, 11.6, 11.7, 11.9, 11.10, are built on common/given's stand-ins);
  - write access to its own build folder (the job slot) only, and an empty /tmp;
  - a user ID of its own (LAB_SANDBOX_UID, default 61000, plus the slot number; needs root), so that
    its process limit counts its processes alone,
and the limits below (setrlimit, per process): CPU seconds, address space, processes, file size (so a
flood of output ends at the limit), open files; ./lab stops the whole submission after its wall-clock
time (class_grade.py). A submission that #includes a file outside its own folder and the lab's public
headers fails before building, with the line that does it (check_includes)."""
import glob
import os
import re
import resource
import shlex
import shutil
import subprocess
from typing import List, NamedTuple, Optional

from . import exercises
from .confine import GPU_DRIVER

MiB = 1 << 20


class Limits(NamedTuple):
    cpu_s: int = 600  # CPU seconds per process (a compiler, a test program)
    memory: int = 4096 * MiB  # address space per process
    processes: int = 256  # processes and threads of the submission's user ID
    file_size: int = 256 * MiB  # the largest file it may write (build logs, the test log, a flood of output)
    open_files: int = 1024


SYSTEM = ["usr", "etc", "opt", "bin", "sbin", "lib", "lib32", "lib64", "libx32"]
PATH = "/usr/local/bin:/usr/bin:/bin"  # the sandbox's PATH: the system's programs only


def python() -> str:
    """A python3 the sandbox can see (the system's: one in a home folder, pyenv's say, is not there)."""
    return shutil.which("python3", path=PATH) or "/usr/bin/python3"


def available(uid: Optional[int] = None) -> Optional[str]:
    """None when bubblewrap works here (as `uid`, when given), else why not (one line)."""
    bwrap = shutil.which("bwrap")
    if not bwrap:
        return "bubblewrap (bwrap) is not installed: apt-get install bubblewrap"
    try:
        p = subprocess.run([bwrap, "--ro-bind", "/", "/", "--unshare-all", "--die-with-parent", "true"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, timeout=60,
                           preexec_fn=None if uid is None else preexec(Limits(), uid))
    except (OSError, subprocess.SubprocessError) as e:
        return f"bubblewrap does not run: {e}"
    if p.returncode != 0:
        return f"bubblewrap cannot make namespaces here: {p.stdout.strip().splitlines()[-1] if p.stdout.strip() else p.returncode}"
    return None


def section_folders(text, keyword) -> List[str]:
    """The folders ("solutions/<F>", "chapters/<F>") that a chapter's CMakeLists (`text`) passes to
    scanlab_add_section after `keyword` (KERNEL_INCLUDES, GIVEN_INCLUDES), up to the next keyword."""
    found = []
    for block in re.findall(keyword + r"((?:\s+\"[^\"]*\")+)", text):
        found += re.findall(r"((?:solutions|chapters)/\w+)", block)
    return list(dict.fromkeys(found))


def hidden_paths(root) -> List[str]:
    """The lab's folders a submission must not read (their file names stay, their contents go)."""
    hide = []
    # Every solution: a grade build compiles student kernels on the given stand-ins (common/given),
    # never on a solution.
    solutions = os.path.join(root, "solutions")
    if os.path.isdir(solutions):
        hide += [os.path.join(solutions, d) for d in sorted(os.listdir(solutions))]
    chapters = os.path.join(root, "chapters")
    for name in sorted(os.listdir(chapters)):
        for sub in ("mutants", "valid"):
            p = os.path.join(chapters, name, sub)
            if os.path.isdir(p):
                hide.append(p)
    return hide


def shadow(src, dst):
    """dst: src's folders and files, every file empty but with src's dates (so make and ninja see
    nothing changed). Redone from scratch."""
    shutil.rmtree(dst, ignore_errors=True)
    for top, dirs, names in os.walk(src):
        out = os.path.join(dst, os.path.relpath(top, src))
        os.makedirs(out, exist_ok=True)
        for name in names:
            st = os.stat(os.path.join(top, name))
            path = os.path.join(out, name)
            open(path, "w").close()
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    st = os.stat(src)
    os.utime(dst, ns=(st.st_atime_ns, st.st_mtime_ns))


def make_shadows(root, where) -> List[tuple]:
    """Shadows of hidden_paths(root) under `where`; returns (shadow, hidden path) pairs."""
    pairs = []
    for k, path in enumerate(hidden_paths(root)):
        dst = os.path.join(where, f"{k}-{os.path.basename(path)}")
        shadow(path, dst)
        pairs.append((dst, path))
    return pairs


def command(root, slot, argv, shadows, env, writable=True) -> List[str]:
    """The bwrap command line that runs argv with the lab read-only and `slot` writable (or, not
    `writable`, read-only too: the student's kernels while the grader's checker runs them)."""
    cmd = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--clearenv"]
    for d in SYSTEM:
        host = "/" + d
        if os.path.islink(host):
            cmd += ["--symlink", os.readlink(host), host]
        elif os.path.isdir(host):
            cmd += ["--ro-bind", host, host]
    cmd += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--ro-bind", root, root]
    for dev in sorted(glob.glob("/dev/nvidia*")):  # the GPU, for the cuda backend's kernels
        cmd += ["--dev-bind", dev, dev]
    cmd += ["--tmpfs", os.path.join(root, "build")]
    if os.path.isdir(os.path.join(root, ".git")):
        cmd += ["--tmpfs", os.path.join(root, ".git")]
    for src, dst in shadows:
        cmd += ["--ro-bind", src, dst]
    cmd += ["--bind" if writable else "--ro-bind", slot, slot, "--chdir", slot]
    for k, v in env.items():
        cmd += ["--setenv", k, v]
    return cmd + list(argv)


def box_script(path, root, slot, shadows, limits: Limits, uid: Optional[int], links=()):
    """Writes `path`, a script that runs its arguments in the sandbox with everything read-only (the
    slot too), the limits and, as root, the submission's user ID. The grader's checker starts the
    student's kernels through it (SCANLAB_RUNNER_PREFIX), and ctest the tests that run student code in
    their own process (compute-sanitizer's: SCANLAB_UNTRUSTED_PREFIX). Nothing they do can
    touch the build, the checker or the results: only the answers they send count."""
    env = {"PATH": PATH, "HOME": "/tmp", "LANG": "C.UTF-8"}
    cmd = command(root, slot, [], shadows, env, writable=False)
    at = cmd.index("--chdir")
    for link, target in links:  # another path to the lab (a link to it) that the build's paths use
        cmd[at:at] = ["--symlink", target, link]
    return write_script(path, dropped(limits, uid) + cmd)


def drop_script(path, limits: Limits, uid: int):
    """Writes `path`, a script that runs its arguments as `uid` with the limits, without namespaces:
    where bubblewrap cannot run (a container that forbids them, as Gradescope's may), the student's
    kernels still run as a user that can write nothing of the grader's and read nothing it hides
    (hide())."""
    return write_script(path, dropped(limits, uid))


def dropped(limits: Limits, uid: Optional[int]) -> List[str]:
    """The command prefix: nice, the user ID (as root), the limits."""
    cmd = ["nice", "-n", "10"]
    if uid is not None:
        cmd += ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]
    return cmd + ["prlimit", f"--cpu={limits.cpu_s}", f"--as={limits.memory}", f"--nproc={limits.processes}",
                  f"--fsize={limits.file_size}", f"--nofile={limits.open_files}", "--core=0", "--"]


WAYS = ("bubblewrap", "landlock")


def runner_box(root, bdir, tmp, path, ways=WAYS) -> tuple:
    """(`path`, a script the checkers start the student's kernels through, or None; how they are
    confined, in words) for `./lab grade` (--exercises or not), where the grader runs as the student's
    code's own user. The first of `ways` that works here: bubblewrap's read-only sandbox where it can
    make namespaces (as --class, whose test is available()), the build `bdir` visible; Landlock
    (confine.py), nothing writable but the fresh folder `tmp`, the hidden paths unreadable. Neither
    (an old kernel, a seccomp filter that forbids Landlock): None, the kernels run as the grader."""
    real = os.path.realpath(root)
    if "bubblewrap" in ways and available() is None:
        # The sandbox binds real paths; the build's may go through a link to the lab.
        links = [(os.path.abspath(root), real)] if os.path.abspath(root) != real else []
        shadows = make_shadows(real, path + ".shadow")
        box_script(path, real, os.path.realpath(bdir), shadows, Limits(), None, links)
        return path, "in bubblewrap's read-only sandbox (no network, the solutions hidden)"
    confine = os.path.join(os.path.dirname(os.path.abspath(__file__)), "confine.py")
    # Landlock and the seccomp filter tried for real (a container's own filter may forbid either).
    works = "landlock" in ways and subprocess.run([python(), "-B", confine, "--write", tmp, "--", "true"],
                                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
    probe = subprocess.run([python(), "-B", confine, "--probe"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           universal_newlines=True) if works else None
    if probe:
        # No process limit: without a user namespace it would count every process of the grader's
        # user (a desktop's browser threads too), and the emulator starts threads.
        cmd = [c for c in dropped(Limits(), None) if not c.startswith("--nproc")]
        cmd += [python(), "-B", confine, "--write", tmp]
        for hidden in hidden_paths(real):
            cmd += ["--hide", hidden]
        write_script(path, cmd + ["--"])
        gpu = ("; Unix sockets and their own /proc entry allowed, which the GPU's driver needs"
               if os.path.exists(GPU_DRIVER) else "")
        return path, (f"under Landlock (ABI {probe.stdout.strip()}): they write nothing but a fresh temporary "
                      f"folder, the solutions hidden{gpu}")
    return None, (f"unconfined, as your own user ({' and '.join(ways)}: not usable here): a hostile kernel can "
                  "write your files and its own verdict; grade code you do not trust with --class")


def hide(root):
    """hidden_paths(root) readable by their owner only (a user of the sandbox's own reads none of them)."""
    for path in hidden_paths(root):
        os.chmod(path, 0o700)


def write_script(path, cmd):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write("#!/bin/sh\n# Written by the grader (tools/scanlab_lab/sandbox.py): runs its arguments as a student's code.\n")
        f.write("exec " + " ".join(shlex.quote(c) for c in cmd) + ' "$@"\n')
    os.chmod(path, 0o755)
    return path


def preexec(limits: Limits, uid: Optional[int]):
    """A preexec_fn: the limits, then (as root) the submission's own user and group ID."""
    def apply():
        os.setsid()
        os.nice(10)  # the grader and the other work on the machine come first
        for what, value in ((resource.RLIMIT_CPU, limits.cpu_s), (resource.RLIMIT_AS, limits.memory),
                            (resource.RLIMIT_NPROC, limits.processes), (resource.RLIMIT_FSIZE, limits.file_size),
                            (resource.RLIMIT_NOFILE, limits.open_files), (resource.RLIMIT_CORE, 0)):
            resource.setrlimit(what, (value, value))
        if uid is not None:
            os.setgroups([])
            os.setgid(uid)
            os.setuid(uid)
    return apply


def chown_tree(path, uid):
    os.chown(path, uid, uid)
    for top, dirs, names in os.walk(path):
        for name in dirs + names:
            os.chown(os.path.join(top, name), uid, uid, follow_symlinks=False)


# ---- includes ---------------------------------------------------------------------------------------
INCLUDE = re.compile(r'^\s*#\s*include\s*(.*?)\s*(//.*|/\*.*)?$')


def check_includes(folder, label) -> List[str]:
    """Problems (one line each, "file:line: ...") with the #include lines of the files under `folder`:
    a student's file may include its own section's files ("name.cuh"), the lab's public headers
    ("scanlab/...") and the standard library (<...>), nothing by a path that climbs out (..) or starts
    at / and nothing computed by a macro."""
    problems = []
    for top, _, names in os.walk(folder):
        for name in sorted(names):
            path = os.path.join(top, name)
            shown = os.path.join(label, os.path.relpath(path, os.path.dirname(folder)))
            with open(path, encoding="utf-8", errors="replace") as f:
                lines = f.read().splitlines()
            for n, line in enumerate(lines, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                what = m.group(1)
                target = what[1:-1] if len(what) > 1 and (what[0], what[-1]) in (('"', '"'), ("<", ">")) else None
                if target is None:
                    why = "a computed #include (a macro) is not allowed"
                elif target.startswith("/") or ".." in target.split("/") or "\\" in target:
                    why = "includes a file outside your folder"
                elif what[0] == '"' and "/" in target and not target.startswith("scanlab/"):
                    why = "includes a file outside your folder"
                else:
                    continue
                problems.append(f"{shown}:{n}: {why}: {line.strip()} (only your section's own files, "
                                "\"scanlab/...\" and <standard headers> may be included)")
    return problems


# ---- includes, as the compiler saw them --------------------------------------------------------------
DEPS_HEADER = re.compile(r"^(\S.*?): #deps \d+")


def compiled_includes(bdir, target):
    """{object: [files it included]} for the objects of CMake target `target` in build tree `bdir`:
    the compiler's own list (-MD), whatever spelling or macro trick a #include used. Ninja keeps it
    in its deps log (`ninja -t deps`); Make builds keep the compiler's .d files beside the objects."""
    found = {}
    if os.path.exists(os.path.join(bdir, ".ninja_deps")):
        out = subprocess.run(["ninja", "-C", bdir, "-t", "deps"], stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL, universal_newlines=True, errors="replace").stdout
        current = None
        for line in out.splitlines():
            m = DEPS_HEADER.match(line)
            if m:
                current = m.group(1) if f"/{target}.dir/" in m.group(1) else None
                if current:
                    found[current] = []
            elif current and line.strip():
                found[current].append(line.strip())
        return found
    for top, _, names in os.walk(bdir):
        if f"{os.sep}{target}.dir" not in top + os.sep:
            continue
        for name in names:
            if name.endswith(".o.d"):
                with open(os.path.join(top, name), encoding="utf-8", errors="replace") as f:
                    text = f.read().replace("\\\n", " ")
                _, _, files = text.partition(": ")
                found[os.path.join(top, name[:-2])] = files.split()
    return found


def kernel_include_folders(root, folder) -> List[str]:
    """The other sections' folders a section's kernels may include, as "solutions/<F>" or "chapters/<F>"
    (chapters/<folder>/CMakeLists.txt, KERNEL_INCLUDES; not GIVEN_INCLUDES, the given library's)."""
    path = os.path.join(root, "chapters", folder, "CMakeLists.txt")
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return []
    return section_folders(text, "KERNEL_INCLUDES")


TEXT_RUN = re.compile(rb"[\t\n\r\x20-\x7e]{120,}")


def check_embedded_solutions(root, bdir, folder, label, targets) -> List[str]:
    """Problems (one line each) with the objects of the student's targets that hold a solution's
    answer lines (exercises.solution_blocks): the assembler's `.incbin` (an asm statement) copies a file
    into an object without the compiler's list of included files naming it, and a kernel could then
    print the text into its report."""
    blocks = exercises.solution_blocks(root)
    problems = []
    for target in targets if blocks else []:
        for obj in compiled_includes(bdir, target):
            try:
                with open(obj if os.path.isabs(obj) else os.path.join(bdir, obj), "rb") as f:
                    data = f.read()
            except OSError:
                continue
            # Only the object's long runs of text can hold a source file (fast on a large object).
            text = "\n".join(run.decode("ascii") for run in TEXT_RUN.findall(data))
            found = exercises.blocks_in(exercises.squeezed(text), blocks)
            if found:
                problems.append(f"{label}/{folder}: a compiled object of the kernels holds the text of a solution "
                                f"({found[0]}), which is not yours: an .incbin or a copy")
    return sorted(set(problems))


def check_compiled_includes(root, bdir, folder, kernels_dir, label, targets) -> List[str]:
    """Problems (one line each) with the files the student's kernel libraries `targets` of section
    `folder` were compiled from: under the lab's folder (`root`), only the lab's public headers, the
    chapters' files (not their mutants and valid variants) and the build's generated sources; the student's own section folder
    (`kernels_dir`, shown as `label`); and the sections its kernels build on. A solution, a mutant, a
    build's copy of a solution or another section's files fail the section, however the #include was
    spelled. Files outside the lab (the system's, CUDA's) are fine."""
    def inside(path, top):
        return os.path.commonpath([path, top]) == top

    root, kernels_dir = os.path.realpath(root), os.path.realpath(kernels_dir)
    student_top = os.path.dirname(kernels_dir)
    allowed = [os.path.join(root, "common", "include"), os.path.join(root, "common", "emu", "module"), kernels_dir]
    for f in kernel_include_folders(root, folder):
        if f.startswith("solutions/"):
            # A grade build makes the section on the given stand-in of that one (common/given/README.md),
            # never on its solution nor on the student's own folder of it.
            allowed += [os.path.join(root, "common", "given", f.split("/")[1]), os.path.join(root, "common", "given")]
        else:
            allowed.append(os.path.join(root, f))
    chapters = os.path.join(root, "chapters")
    generated = os.path.join(os.path.realpath(bdir), "chapters", folder)
    problems = []
    for target in targets:
        for obj, files in compiled_includes(bdir, target).items():
            for path in files:
                real = os.path.realpath(path if os.path.isabs(path) else os.path.join(bdir, path))
                if not (inside(real, root) or inside(real, student_top)):
                    continue  # the system's headers
                if any(inside(real, a) for a in allowed):
                    continue
                if inside(real, chapters) and os.path.relpath(real, chapters).split(os.sep)[1:2] not in (["mutants"], ["valid"]):
                    continue  # the chapters' own files are public (11.3's runner reads its model.hpp)
                if os.path.dirname(real) == generated:
                    continue  # the cuda library's one-line .cu (scanlab_kernel_library)
                if any(inside(real, os.path.join(generated, "cpu_sources", t)) for t in targets):
                    continue  # the cpu library's copies of the folders above (cpu_sources.py)
                if inside(real, student_top):
                    shown = os.path.join(label, os.path.relpath(real, student_top))
                else:
                    shown = os.path.relpath(real, root)
                problems.append(f"{label}/{folder}: the compiled kernels include {shown}, which is not yours: "
                                f"a submission may include its own section's files, \"scanlab/...\" and "
                                f"<standard headers> (found in the compiler's list of included files)")
    return sorted(set(problems))
