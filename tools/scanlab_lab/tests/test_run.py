import os
import shutil
import stat
import tempfile
import unittest

from scanlab_lab import run


class Capabilities(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)

    def program(self, body):
        path = os.path.join(self.tmp, "prog")
        with open(path, "w") as f:
            f.write("#!/bin/sh\n" + body + "\n")
        os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)
        return path

    def test_arguments_follow_the_description(self):
        caps = run.capabilities(self.program(
            'echo \'{"section": "11.3", "options": ["--json", "--csv", "--trace"], "trace_file": true}\''))
        self.assertEqual(run.arguments(caps, "/r", "11.3"),
                         ["--json", "/r/11.3.json", "--csv", "/r/11.3.csv", "--trace", "/r/11.3.traces.json"])
        caps = run.capabilities(self.program('echo \'{"section": "11.2", "options": ["--reps", "--json"]}\''))
        self.assertEqual(run.arguments(caps, "/r", "11.2"), ["--reps", "5", "--json", "/r/11.2.json"])

    def test_a_program_that_cannot_describe_itself(self):
        caps = run.capabilities(self.program("echo 'unknown option' >&2; exit 2"))
        self.assertEqual(run.arguments(caps, "/r", "11.1"), ["--json", "/r/11.1.json", "--csv", "/r/11.1.csv"])


if __name__ == "__main__":
    unittest.main()
