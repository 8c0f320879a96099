"""cap_output.sh: a test's output cut at the limit (the test fails, saying so); its exit status and
the signal it died of passed on unchanged (ctest tells a crash by the signal)."""
import os
import signal
import subprocess
import unittest

from scanlab_lab.tests.util import ROOT

CAP = os.path.join(ROOT, "tools", "scanlab_lab", "cap_output.sh")


def run(*argv, limit=None):
    env = dict(os.environ, **({"LAB_OUTPUT_LIMIT": str(limit)} if limit else {}))
    return subprocess.run([CAP] + list(argv), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, timeout=60)


class CapOutput(unittest.TestCase):
    def test_a_flood_is_cut_and_fails(self):
        p = run("yes", limit=1000)
        self.assertEqual(p.returncode, 1)
        self.assertLess(len(p.stdout), 1200)
        self.assertIn(b"printed more than 1000 bytes", p.stdout)

    def test_status_and_signals_pass_through(self):
        self.assertEqual(run("sh", "-c", "echo fine; exit 3").returncode, 3)
        p = run("sh", "-c", "echo out; echo err >&2")
        self.assertEqual((p.returncode, sorted(p.stdout.split())), (0, [b"err", b"out"]))
        self.assertEqual(run("sh", "-c", "kill -SEGV $$").returncode, -signal.SIGSEGV)
        self.assertEqual(run("sh", "-c", "kill -ABRT $$").returncode, -signal.SIGABRT)


if __name__ == "__main__":
    unittest.main()
