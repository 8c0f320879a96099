"""sandbox.py: the #include check, the shadows, and each limit proven on a real bubblewrap sandbox
(skipped where bubblewrap cannot run; the class grader then refuses to run without --no-sandbox)."""
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import unittest

from scanlab_lab import confine, sandbox

MiB = 1 << 20


def run_in_box(box, code):
    """Runs Python `code` through the confining script `box` with an open pipe (the checker's channel),
    its descriptor in place of @FD@ in the code. Returns the process and what it wrote to the pipe."""
    r, w = os.pipe()
    try:
        p = subprocess.run([box, sandbox.python(), "-c", code.replace("@FD@", str(w))], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, pass_fds=(w,), timeout=60)
        os.close(w)
        w = -1
        return p, os.read(r, 100)
    finally:
        os.close(r)
        if w >= 0:
            os.close(w)

class Includes(unittest.TestCase):
    def check(self, line):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        os.makedirs(os.path.join(d, "11_1_sequential"))
        with open(os.path.join(d, "11_1_sequential", "k.cuh"), "w") as f:
            f.write("#pragma once\n" + line + "\n")
        return sandbox.check_includes(os.path.join(d, "11_1_sequential"), "alice")

    def test_allowed(self):
        for line in ('#include "scanlab/kernel.hpp"', "#include <cstddef>", '#include "warp_scan.cuh"',
                     "#  include <sys/socket.h>  // a comment", '#include "k.cuh"'):
            self.assertEqual(self.check(line), [], line)

    def test_refused(self):
        for line in ('#include "../../solutions/11_1_sequential/sequential_scan.cuh"',
                     '#include "/work/main/solutions/11_1_sequential/sequential_scan.cuh"',
                     "#include </etc/passwd>", '#include "sub/other.cuh"', "#include SOLUTION",
                     '#include <../../solutions/x.cuh>'):
            problems = self.check(line)
            self.assertEqual(len(problems), 1, line)
            self.assertTrue(problems[0].startswith("alice/11_1_sequential/k.cuh:2: "), problems[0])
            self.assertIn("only your section's own files", problems[0])



class CompiledIncludes(unittest.TestCase):
    """check_compiled_includes reads the compiler's own list of included files (-MD), so no spelling
    of #include that the text check misses (a line continuation, a comment, a digraph) reaches a
    solution. Compiled for real with the system's C++ compiler, as a Make build keeps its .d files."""

    def setUp(self):
        self.root = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.root)
        for path, text in (("solutions/11_2_kogge_stone/kogge_stone.cuh", "#pragma once\nint solution = 1;\n"),
                           ("common/include/scanlab/kernel.hpp", "#pragma once\n"),
                           ("chapters/11_2_kogge_stone/launch.cpp", '#include "kogge_stone.cuh"\n'),
                           ("chapters/11_2_kogge_stone/mutants/m.cuh", "#pragma once\n"),
                           ("chapters/11_4_brent_kung/algorithms.hpp", "#pragma once\n")):
            os.makedirs(os.path.dirname(os.path.join(self.root, path)), exist_ok=True)
            with open(os.path.join(self.root, path), "w") as f:
                f.write(text)
        self.student = os.path.join(self.root, "build", "grade", "exercises")
        self.bdir = os.path.join(self.root, "build", "grade")
        os.makedirs(os.path.join(self.student, "11_2_kogge_stone"))

    def compile(self, kernel):
        with open(os.path.join(self.student, "11_2_kogge_stone", "kogge_stone.cuh"), "w") as f:
            f.write(kernel)
        obj = os.path.join(self.bdir, "chapters", "11_2_kogge_stone", "CMakeFiles", "scanlab_11_2_exercise_cpu.dir",
                           "launch.cpp.o")
        os.makedirs(os.path.dirname(obj), exist_ok=True)
        subprocess.run(["c++", "-MD", "-MF", obj + ".d", "-c", "-o", obj, "-x", "c++",
                        "-I", os.path.join(self.student, "11_2_kogge_stone"), "-I", os.path.join(self.root, "common", "include"),
                        os.path.join(self.root, "chapters", "11_2_kogge_stone", "launch.cpp")], check=True)
        return sandbox.check_compiled_includes(self.root, self.bdir, "11_2_kogge_stone",
                                               os.path.join(self.student, "11_2_kogge_stone"), "alice",
                                               ["scanlab_11_2_exercise_cpu"])

    @unittest.skipUnless(shutil.which("c++"), "no C++ compiler")
    def test_allowed(self):
        self.assertEqual(self.compile('#pragma once\n#include "scanlab/kernel.hpp"\n#include <cstddef>\n'), [])
        # Another chapter's public files (11.3's tests include the measured sections' algorithms.hpp;
        # they hold no solution): allowed.
        self.assertEqual(self.compile('#include "%s"\n' % os.path.join(self.root, "chapters", "11_4_brent_kung",
                                                                       "algorithms.hpp")), [])

    @unittest.skipUnless(shutil.which("c++"), "no C++ compiler")
    def test_every_spelling_of_an_include_of_a_solution_is_refused(self):
        solution = os.path.join(self.root, "solutions", "11_2_kogge_stone", "kogge_stone.cuh")
        for kernel in ('#inc\\\nlude "%s"\n' % solution,  # a line continuation inside the directive
                       '#/**/include "%s"\n' % solution,   # a comment between # and include
                       '%%:include "%s"\n' % solution,     # the digraph of #
                       '#define S "%s"\n#include S\n' % solution,
                       '#include "%s"\n' % os.path.join(self.root, "chapters", "11_2_kogge_stone", "mutants", "m.cuh")):
            problems = self.compile(kernel)
            self.assertEqual(len(problems), 1, kernel)
            self.assertIn("alice/11_2_kogge_stone: the compiled kernels include ", problems[0])
            self.assertIn("which is not yours", problems[0])
        self.assertIn("solutions/11_2_kogge_stone/kogge_stone.cuh", self.compile('%%:include "%s"\n' % solution)[0])


    @unittest.skipUnless(shutil.which("c++"), "no C++ compiler")
    def test_a_solution_copied_in_by_the_assembler_is_refused(self):
        solution = os.path.join(self.root, "solutions", "11_2_kogge_stone", "kogge_stone.cuh")
        with open(solution, "w") as f:
            f.write("#pragma once\n// TODO(student) begin: the scan\n"
                    "    const int scanned = step_one(x, stride) + step_two(y, stride);\n"
                    "    return combine(scanned, carry_in, exclusive_first_element);\n// TODO(student) end\n")

        def embedded():
            return sandbox.check_embedded_solutions(self.root, self.bdir, "11_2_kogge_stone", "alice",
                                                    ["scanlab_11_2_exercise_cpu"])

        # The assembler reads an .incbin's file: the compiler's list of included files never names it.
        self.assertEqual(self.compile('__asm__(".section .rodata\\n.incbin \\"%s\\"\\n.text");\n' % solution), [])
        problems = embedded()
        self.assertEqual(len(problems), 1, problems)
        self.assertIn("alice/11_2_kogge_stone: a compiled object of the kernels holds the text of a solution", problems[0])
        self.assertIn("solutions/11_2_kogge_stone/kogge_stone.cuh", problems[0])
        self.compile('#pragma once\n#include "scanlab/kernel.hpp"\n')
        self.assertEqual(embedded(), [])


class CompiledIncludesOnTheStandIns(unittest.TestCase):
    """A grade build (the student release, ./lab grade, --class, Gradescope) makes a section that builds
    on others (11.6) on the given stand-ins of common/given/: those are allowed to it, the solution it
    builds on in the full lab and the student's own other sections are not, and a section that builds
    on nothing (11.2) may not include the stand-ins either."""

    def setUp(self):
        self.root = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.root)
        for path, text in (("common/given/11_2_kogge_stone/kogge_stone.cuh", '#pragma once\n#include "given_scan.cuh"\n'),
                           ("solutions/11_2_kogge_stone/kogge_stone.cuh", "#pragma once\n"),
                           ("common/given/given_scan.cuh", "#pragma once\n"),
                           ("common/include/scanlab/kernel.hpp", "#pragma once\n"),
                           ("chapters/11_6_hierarchical/CMakeLists.txt",
                            'scanlab_add_section(ID 11.6 DIR 11_6_hierarchical KERNELS h.cuh\n'
                            '  KERNEL_INCLUDES "${PROJECT_SOURCE_DIR}/solutions/11_2_kogge_stone")\n')):
            os.makedirs(os.path.dirname(os.path.join(self.root, path)), exist_ok=True)
            with open(os.path.join(self.root, path), "w") as f:
                f.write(text)
        self.bdir = os.path.join(self.root, "build", "grade")
        self.student = os.path.join(self.bdir, "exercises")
        for folder in ("11_2_kogge_stone", "11_6_hierarchical"):
            os.makedirs(os.path.join(self.student, folder))
        with open(os.path.join(self.student, "11_2_kogge_stone", "kogge_stone.cuh"), "w") as f:
            f.write("#pragma once\n")

    def compile(self, folder, kernel):
        source = os.path.join(self.student, folder, "k.cpp")
        with open(source, "w") as f:
            f.write(kernel)
        target = "t_" + folder  # (one per folder: the check reads every <target>.dir of the build)
        obj = os.path.join(self.bdir, "chapters", folder, "CMakeFiles", target + ".dir", "k.cpp.o")
        os.makedirs(os.path.dirname(obj), exist_ok=True)
        subprocess.run(["c++", "-MD", "-MF", obj + ".d", "-c", "-o", obj, "-x", "c++",
                        "-I", os.path.join(self.root, "common", "given"), source], check=True)
        return sandbox.check_compiled_includes(self.root, self.bdir, folder, os.path.join(self.student, folder),
                                               "alice", [target])

    @unittest.skipUnless(shutil.which("c++"), "no C++ compiler")
    def test_the_stand_ins_only_where_the_section_builds_on_them(self):
        given = '#include "%s"\n' % os.path.join(self.root, "common", "given", "11_2_kogge_stone", "kogge_stone.cuh")
        self.assertEqual(self.compile("11_6_hierarchical", given), [])
        own = '#include "%s"\n' % os.path.join(self.student, "11_2_kogge_stone", "kogge_stone.cuh")
        self.assertEqual(len(self.compile("11_6_hierarchical", own)), 1)
        solution = '#include "%s"\n' % os.path.join(self.root, "solutions", "11_2_kogge_stone", "kogge_stone.cuh")
        self.assertEqual(len(self.compile("11_6_hierarchical", solution)), 1)
        problems = self.compile("11_2_kogge_stone", given)
        self.assertEqual(len(problems), 2)  # the stand-in and the given_scan.cuh it includes
        self.assertIn("common/given/11_2_kogge_stone/kogge_stone.cuh, which is not yours", problems[0] + problems[1])


class Shadow(unittest.TestCase):
    def test_same_names_and_dates_no_content(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        src = os.path.join(d, "src", "a")
        os.makedirs(src)
        with open(os.path.join(src, "k.cuh"), "w") as f:
            f.write("the answer")
        sandbox.shadow(os.path.join(d, "src"), os.path.join(d, "dst"))
        out = os.path.join(d, "dst", "a", "k.cuh")
        self.assertEqual(os.path.getsize(out), 0)
        self.assertEqual(os.stat(out).st_mtime_ns, os.stat(os.path.join(src, "k.cuh")).st_mtime_ns)

    def test_hidden_paths_of_the_lab(self):
        from scanlab_lab.tests.util import ROOT
        hidden = [os.path.relpath(p, ROOT) for p in sandbox.hidden_paths(ROOT)]
        self.assertIn("solutions/11_1_sequential", hidden)
        self.assertIn("chapters/11_2_kogge_stone/mutants", hidden)
        # 11.6 and 11.7 build on 11.2's kernels, but a grade build makes them on the given stand-ins
        # (common/given): 11.2's solution is hidden too.
        self.assertIn("solutions/11_2_kogge_stone", hidden)


@unittest.skipIf(sandbox.available() is not None, f"no sandbox here: {sandbox.available()}")
class Limits(unittest.TestCase):
    """Each limit, on a small fake lab: solutions/ hidden, the slot the only writable folder."""

    def setUp(self):
        self.d = tempfile.mkdtemp()
        os.chmod(self.d, 0o755)  # the sandbox's own user ID walks through it
        self.addCleanup(shutil.rmtree, self.d)
        self.root = os.path.join(self.d, "lab")
        for p in ("build", "chapters/11_1_x", "solutions/11_1_x"):
            os.makedirs(os.path.join(self.root, p))
        with open(os.path.join(self.root, "solutions", "11_1_x", "answer.cuh"), "w") as f:
            f.write("SECRET ANSWER\n")
        self.slot = os.path.join(self.root, "build", "slot")
        os.makedirs(self.slot)
        self.shadows = sandbox.make_shadows(self.root, os.path.join(self.d, "shadow"))
        self.uid = 61999 if os.geteuid() == 0 else None
        if self.uid is not None:
            sandbox.chown_tree(self.slot, self.uid)

    def run_py(self, code, limits=sandbox.Limits(), timeout=60):
        log = os.path.join(self.d, "out.log")
        cmd = sandbox.command(self.root, self.slot, [sandbox.python(), "-c", code], self.shadows,
                              {"PATH": sandbox.PATH})
        with open(log, "wb") as f:
            p = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, preexec_fn=sandbox.preexec(limits, self.uid),
                               timeout=timeout)
        with open(log, "rb") as f:
            return p.returncode, f.read()

    def test_reads_only_what_it_may(self):
        rc, out = self.run_py(
            "import os\n"
            f"print('solution:', repr(open('{self.root}/solutions/11_1_x/answer.cuh').read()))\n"
            f"print('others:', os.path.exists('{os.path.dirname(self.d)}/' + os.path.basename('{self.d}') + '/shadow'))\n"
            "print('root home:', os.path.exists('/root'), 'work:', os.path.exists('/work'))\n")
        self.assertEqual(rc, 0, out)
        self.assertIn(b"solution: ''", out)
        self.assertIn(b"root home: False work: False", out)

    def test_writes_only_its_slot(self):
        rc, out = self.run_py(
            f"open('{self.slot}/mine', 'w').write('ok')\n"
            f"try:\n  open('{self.root}/chapters/evil', 'w')\nexcept OSError as e:\n  print('refused', e.errno)\n")
        self.assertEqual(rc, 0, out)
        self.assertIn(b"refused", out)
        self.assertTrue(os.path.exists(os.path.join(self.slot, "mine")))
        self.assertFalse(os.path.exists(os.path.join(self.root, "chapters", "evil")))

    def test_kernels_box_writes_nothing(self):
        # The student's kernels while a checker runs them (box_script): the slot is read-only too, the
        # lab's solutions hidden, the slot's user ID (as root), the limits; the checker's channel (open
        # file descriptors) passes through.
        box = sandbox.box_script(os.path.join(self.d, "boxes", "slot-0.sh"), self.root, self.slot, self.shadows,
                                 sandbox.Limits(), self.uid)
        code = ("import os\n"
                f"print('solution:', repr(open('{self.root}/solutions/11_1_x/answer.cuh').read()))\n"
                "print('uid:', os.getuid())\n"
                "os.write(int(os.environ.get('FD', '0')) or @FD@, b'channel')\n"
                f"for p in ('{self.slot}/mine', '{self.root}/chapters/evil', '{box}'):\n"
                "  try:\n    open(p, 'w')\n    print('wrote', p)\n  except OSError as e:\n    print('refused', e.errno)\n")
        p, channel = run_in_box(box, code)
        self.assertEqual(channel, b"channel")
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertIn(b"solution: ''", p.stdout)
        self.assertNotIn(b"wrote", p.stdout)
        self.assertEqual(p.stdout.count(b"refused"), 3, p.stdout)
        if self.uid is not None:
            self.assertIn(f"uid: {self.uid}".encode(), p.stdout)
        self.assertFalse(os.path.exists(os.path.join(self.slot, "mine")))

    def test_no_network(self):
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        self.addCleanup(server.close)
        port = server.getsockname()[1]
        rc, out = self.run_py(
            "import socket\ns = socket.socket()\n"
            f"try:\n  s.connect(('127.0.0.1', {port})); print('connected')\nexcept OSError as e:\n  print('refused', e.errno)\n")
        self.assertEqual(rc, 0, out)
        self.assertIn(b"refused", out)

    @unittest.skipIf(os.geteuid() != 0, "the process limit needs a user ID of the sandbox's own (root)")
    def test_processes(self):
        rc, out = self.run_py(
            "import os, time\nn = 0\n"
            "try:\n  for i in range(200):\n    if os.fork() == 0:\n      time.sleep(5); os._exit(0)\n    n += 1\n"
            "except OSError as e:\n  pass\nprint('forked', n)\n", sandbox.Limits(processes=50))
        n = int(out.split(b"forked ")[1].split()[0])
        self.assertLess(n, 50, out)

    def test_memory(self):
        rc, out = self.run_py(
            "try:\n  b = bytearray(1 << 30); print('allocated')\nexcept MemoryError:\n  print('refused')\n",
            sandbox.Limits(memory=256 * MiB))
        self.assertIn(b"refused", out)

    def test_output_size(self):
        rc, out = self.run_py("import sys\nfor i in range(100):\n  sys.stdout.write('x' * 1000000)\n",
                              sandbox.Limits(file_size=1 * MiB))
        self.assertNotEqual(rc, 0)
        self.assertLessEqual(len(out), 1 * MiB + 4096)

    def test_cpu_time(self):
        rc, out = self.run_py("while True: pass\n", sandbox.Limits(cpu_s=1), timeout=30)
        self.assertNotEqual(rc, 0)

    @unittest.skipIf(os.geteuid() != 0, "finding leftover processes needs the sandbox's own user ID (root)")
    def test_nothing_outlives_it(self):
        rc, out = self.run_py(
            "import os\nif os.fork() == 0:\n  os.setsid()\n  if os.fork() == 0:\n    while True: pass\n  os._exit(0)\n"
            "print('left a spinner')\n")
        self.assertIn(b"left a spinner", out)
        # The sandbox's PID namespace ends with it: the kernel kills what is left (give it a moment).
        for _ in range(50):
            left = subprocess.run(["pgrep", "-u", str(self.uid)], stdout=subprocess.PIPE).stdout
            if not left:
                break
            time.sleep(0.1)
        self.assertEqual(left, b"")


@unittest.skipIf(confine.abi() == 0, "no Landlock on this kernel")
class Landlock(unittest.TestCase):
    """./lab grade's kernels where bubblewrap cannot run (sandbox.runner_box's Landlock way, confine.py),
    as the grader's own user: on a small fake lab, nothing writable but the fresh folder, the
    solutions unreadable, the checker's channel (open file descriptors) passed through."""

    def test_kernels_write_only_their_folder(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        root = os.path.join(d, "lab")
        for p in ("build/grade", "chapters/11_1_x", "solutions/11_1_x"):
            os.makedirs(os.path.join(root, p))
        with open(os.path.join(root, "solutions", "11_1_x", "answer.cuh"), "w") as f:
            f.write("SECRET ANSWER\n")
        with open(os.path.join(root, "grading.toml"), "w") as f:
            f.write("# the instructor's\n")
        tmp = os.path.join(d, "kernels")
        os.makedirs(tmp)
        box, how = sandbox.runner_box(root, os.path.join(root, "build", "grade"), tmp,
                                      os.path.join(root, "build", "grade-box.sh"), ["landlock"])
        self.assertIsNotNone(box, how)
        self.assertIn("Landlock", how)
        code = ("import os\n"
                "print('cwd:', os.getcwd(), os.environ['TMPDIR'])\n"
                "open('mine', 'w').write('ok')\n"
                "os.write(@FD@, b'channel')\n"
                f"for p in ('{root}/solutions/11_1_x/answer.cuh', '{root}/solutions/11_1_x'):\n"
                "  try:\n    print('read', repr(open(p).read()) if os.path.isfile(p) else os.listdir(p))\n"
                "  except OSError as e:\n    print('refused', e.errno)\n"
                f"for p in ('{root}/grading.toml', '{root}/build/grade/grade-summary.json', '{box}', '{root}/x'):\n"
                "  try:\n    open(p, 'a')\n    print('wrote', p)\n  except OSError as e:\n    print('refused', e.errno)\n"
                "import socket\n"
                "try:\n  socket.socket(socket.AF_UNIX).connect('/var/run/docker.sock')\n  print('wrote to a daemon')\n"
                "except OSError as e:\n  print('refused', e.errno, 'EACCES' if e.errno == 13 else '')\n"
                "s = socket.socket(socket.AF_INET)\nprint('inet socket ok')\n")
        p, channel = run_in_box(box, code)
        self.assertEqual(channel, b"channel")
        self.assertEqual(p.returncode, 0, p.stdout)
        self.assertIn(f"cwd: {os.path.realpath(tmp)} {os.path.realpath(tmp)}".encode(), p.stdout)
        self.assertNotIn(b"SECRET", p.stdout)
        self.assertNotIn(b"wrote", p.stdout)
        self.assertEqual(p.stdout.count(b"refused"), 7, p.stdout)
        self.assertIn(b"refused 13 EACCES", p.stdout)  # the Unix socket, by the seccomp filter
        self.assertIn(b"inet socket ok", p.stdout)
        with open(os.path.join(tmp, "mine")) as f:
            self.assertEqual(f.read(), "ok")
        self.assertFalse(os.path.exists(os.path.join(root, "build", "grade", "grade-summary.json")))

    def confined_child(self, driver):
        """What a process confined with GPU_DRIVER at `driver` may do: write its own /proc entry, its
        parent's, make a Unix socket (each 1 or 0, as a string)."""
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        parent = os.getpid()
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child confines itself, as confine.py's main does before its exec
            os.close(r)
            answer = ""
            try:
                confine.GPU_DRIVER = driver
                confine.confine(d, [])
                for path in ("/proc/self/comm", f"/proc/{parent}/comm"):
                    try:
                        with open(path, "w") as f:
                            f.write("x")
                        answer += "1"
                    except OSError:
                        answer += "0"
                try:
                    socket.socket(socket.AF_UNIX).close()
                    answer += "1"
                except OSError:
                    answer += "0"
            finally:
                os.write(w, answer.encode())
                os._exit(0)
        os.close(w)
        with os.fdopen(r, "rb") as f:
            out = f.read().decode()
        os.waitpid(pid, 0)
        return out

    def test_what_the_gpu_driver_needs_only_where_a_driver_is(self):
        # The CUDA driver fails to start without its own /proc entry and a Unix socket (seen on an H200
        # host); without a driver both stay refused, and the parent's entry always is.
        self.assertEqual(self.confined_child("/nonexistent/nvidiactl"), "000")
        self.assertEqual(self.confined_child("/dev/null"), "101")

    def test_no_way_left_says_so(self):
        box, how = sandbox.runner_box("/nonexistent", "/nonexistent/build/grade", "/tmp", "/nonexistent/box.sh", [])
        self.assertIsNone(box)
        self.assertIn("unconfined", how)


if __name__ == "__main__":
    unittest.main()
