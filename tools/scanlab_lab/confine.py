"""Runs a program confined by Landlock (Linux 5.13+): the student's kernels where bubblewrap cannot
make namespaces (a container without them, GitHub's Ubuntu 24.04 runners, whose AppArmor forbids
unprivileged user namespaces) and the grader runs as the student's code's own user.

    python3 -B confine.py --write DIR [--hide PATH]... -- PROGRAM [ARG]...

The program, and everything it starts, may write nothing but DIR (a fresh folder, its working
directory and TMPDIR) and the devices it needs (/dev/null, the GPU's); it reads every file but the
--hide paths (the solutions, the mutants); with Landlock's ABI 4 or later it opens no TCP connection,
and with ABI 6 or later it sends no signal outside its own domain. A seccomp filter refuses Unix
sockets (Landlock lets a process connect to one: a Docker daemon the user may drive is a way out of
any confinement), io_uring (which would open them past the filter) and every other system call ABI. Landlock also keeps it from
ptrace and /proc/<pid>/mem of the checker. So the build, the checker binaries, grading.toml and the
results stay as the grader wrote them: the only way the kernels' code reaches a verdict is its
answers on the channel. Restrictions are inherited across exec and cannot be lifted.

Stdlib only; it starts once per runner (sandbox.py imports only GPU_DRIVER). `--probe` prints Landlock's ABI version
(0 when the kernel has none) and exits."""
import ctypes
import glob
import os
import sys

# The syscalls (the same numbers on every architecture the lab builds for: x86_64, aarch64).
CREATE_RULESET, ADD_RULE, RESTRICT_SELF = 444, 445, 446
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS = 38

# Filesystem rights, by the ABI version that added them.
EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REMOVE_DIR, REMOVE_FILE, MAKE_CHAR, MAKE_DIR, MAKE_REG = 1 << 4, 1 << 5, 1 << 6, 1 << 7, 1 << 8
MAKE_SOCK, MAKE_FIFO, MAKE_BLOCK, MAKE_SYM = 1 << 9, 1 << 10, 1 << 11, 1 << 12
REFER, TRUNCATE = 1 << 13, 1 << 14  # ABI 2, ABI 3
READ = READ_FILE | READ_DIR
WRITE_V1 = WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_CHAR | MAKE_DIR | MAKE_REG | MAKE_SOCK | MAKE_FIFO \
    | MAKE_BLOCK | MAKE_SYM
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE  # the rights a rule on a file (not a folder) may hold
NET_BIND_TCP, NET_CONNECT_TCP = 1, 2  # ABI 4
SCOPE_ABSTRACT_UNIX, SCOPE_SIGNAL = 1, 2  # ABI 6

# seccomp: the machine's own system call ABI and its numbers of socket() and io_uring_setup().
ARCHES = {"x86_64": (0xC000003E, 41), "aarch64": (0xC00000B7, 198)}
IO_URING_SETUP, AF_UNIX, X32_BIT = 425, 1, 0x40000000
NO_SYSCALL = 0xFFFFFFFF  # a number no system call has: a comparison with it never holds
PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
RET_ALLOW, RET_EACCES = 0x7FFF0000, 0x00050000 | 13
LD_ABS, JEQ, JGE, RET = 0x20, 0x15, 0x35, 0x06  # BPF_LD|W|ABS, BPF_JMP|JEQ|K, BPF_JMP|JGE|K, BPF_RET|K

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


class RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


class SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_uint16), ("filter", ctypes.POINTER(SockFilter))]


GPU_DRIVER = "/dev/nvidiactl"  # present where an NVIDIA driver is loaded


def refuse_unix_sockets(allow_unix):
    """The seccomp filter (after no_new_privs): socket(AF_UNIX, ...) unless `allow_unix`,
    io_uring_setup, another ABI's system calls (i386's int 0x80, x32) fail with EACCES; everything else
    is allowed. Jumps count the instructions skipped."""
    arch, socket_nr = ARCHES.get(os.uname().machine, (None, None))
    if arch is None:
        fail(f"no seccomp filter for {os.uname().machine}")
    program = [(LD_ABS, 0, 0, 4),             # 0: the ABI
               (JEQ, 0, 7, arch),             # 1: another: refuse
               (LD_ABS, 0, 0, 0),             # 2: the system call's number
               (JGE, 5, 0, X32_BIT),          # 3: x32: refuse
               (JEQ, 4, 0, IO_URING_SETUP),   # 4: refuse
               (JEQ, 0, 2, socket_nr if not allow_unix else NO_SYSCALL),  # 5: not socket(): allow
               (LD_ABS, 0, 0, 16),            # 6: socket's domain (the first argument's low half)
               (JEQ, 1, 0, AF_UNIX),          # 7: a Unix socket: refuse
               (RET, 0, 0, RET_ALLOW),        # 8
               (RET, 0, 0, RET_EACCES)]       # 9
    code = (SockFilter * len(program))(*[SockFilter(*i) for i in program])
    prog = SockFprog(len(program), code)
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        fail(f"cannot set the seccomp filter: {os.strerror(ctypes.get_errno())}")


def abi() -> int:
    """Landlock's ABI version here; 0 when the kernel lacks it or it is off (or a seccomp filter
    forbids it)."""
    v = libc.syscall(CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(CREATE_RULESET_VERSION))
    return max(0, v)


def fail(text):
    print(f"scanlab confine: {text}", file=sys.stderr)
    sys.exit(126)


def allow(ruleset, path, rights):
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError:
        return  # gone or unreadable: nothing to allow
    if not os.path.isdir(path):
        rights &= FILE_RIGHTS
    rule = PathBeneath(rights, fd)
    rc = libc.syscall(ADD_RULE, ruleset, ctypes.c_int(RULE_PATH_BENEATH), ctypes.byref(rule), ctypes.c_uint32(0))
    os.close(fd)
    if rc != 0:
        fail(f"cannot add a rule for {path}: {os.strerror(ctypes.get_errno())}")


def readable_tops(path, hidden):
    """The smallest set of folders and files that covers everything under `path` but the `hidden`
    paths: a path with no hidden path under it is one entry; a hidden path is left out; any other
    folder is opened up."""
    if path in hidden:
        return []
    prefix = path.rstrip("/") + "/"
    if not any(h.startswith(prefix) for h in hidden):
        return [path]
    try:
        names = sorted(os.listdir(path))
    except OSError:
        return []
    out = []
    for name in names:
        child = prefix + name
        if os.path.islink(child):
            continue  # what a link names is reached (and allowed or not) by its own path
        out += readable_tops(child, hidden)
    return out


def confine(write_dir, hidden):
    version = abi()
    if version < 1:
        fail("Landlock is not available on this kernel")
    rights = READ | WRITE_V1 | (REFER if version >= 2 else 0) | (TRUNCATE if version >= 3 else 0)
    attr = RulesetAttr(rights, NET_BIND_TCP | NET_CONNECT_TCP if version >= 4 else 0,
                       SCOPE_ABSTRACT_UNIX | SCOPE_SIGNAL if version >= 6 else 0)
    size = 8 if version < 4 else 16 if version < 6 else 24
    ruleset = libc.syscall(CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if ruleset < 0:
        fail(f"cannot make a Landlock ruleset: {os.strerror(ctypes.get_errno())}")
    for top in readable_tops("/", {os.path.realpath(h) for h in hidden}):
        allow(ruleset, top, READ)
    allow(ruleset, write_dir, rights)
    for dev in ["/dev/null", "/dev/zero", "/dev/full"] + sorted(glob.glob("/dev/nvidia*")):
        allow(ruleset, dev, READ_FILE | WRITE_FILE)  # the GPU's devices are opened read-write
    # The CUDA driver writes to its own process's /proc entry as it starts, and opens a Unix socket:
    # refused either, cudaGetDeviceCount fails ("OS call failed", seen on an H200 host). The entry is
    # this process's alone (its pid outlives the exec below); the Unix sockets only where a driver is.
    gpu = os.path.exists(GPU_DRIVER)
    if gpu:
        allow(ruleset, f"/proc/{os.getpid()}", rights)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        fail(f"cannot set no_new_privs: {os.strerror(ctypes.get_errno())}")
    if libc.syscall(RESTRICT_SELF, ruleset, ctypes.c_uint32(0)) != 0:
        fail(f"cannot confine: {os.strerror(ctypes.get_errno())}")
    os.close(ruleset)
    refuse_unix_sockets(allow_unix=gpu)


def main(argv):
    if argv == ["--probe"]:
        print(abi())
        return 0
    write_dir, hidden = None, []
    while argv and argv[0] != "--":
        if argv[0] in ("--write", "--hide") and len(argv) > 1:
            if argv[0] == "--write":
                write_dir = argv[1]
            else:
                hidden.append(argv[1])
            argv = argv[2:]
        else:
            fail(f"unknown argument '{argv[0]}' (usage: --write DIR [--hide PATH]... -- PROGRAM [ARG]...)")
    if not write_dir or len(argv) < 2:
        fail("usage: --write DIR [--hide PATH]... -- PROGRAM [ARG]...")
    write_dir = os.path.realpath(write_dir)
    os.makedirs(write_dir, exist_ok=True)
    if "/" in argv[1]:
        argv[1] = os.path.abspath(argv[1])  # a path from the caller's folder, before the chdir below
    confine(write_dir, hidden)
    os.chdir(write_dir)
    os.environ["TMPDIR"] = write_dir
    os.environ["CUDA_CACHE_PATH"] = os.path.join(write_dir, "cuda-cache")  # the JIT cache (else in $HOME)
    try:
        os.execvp(argv[1], argv[1:])
    except OSError as e:
        fail(f"cannot start {argv[1]}: {e.strerror}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
