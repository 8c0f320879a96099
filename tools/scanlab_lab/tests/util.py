"""Shared by the tests: where the fixtures and the repository are."""
import os
import shutil
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "fixtures")
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))


def fixture(name):
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as f:
        return f.read()


def broken_kernel(tmp):
    """Writes the broken 11.1 kernel (the solution with fixtures/broken_kernel.patch applied) into
    tmp/broken_kernel/ and returns that folder."""
    folder = os.path.join(tmp, "broken_kernel")
    os.makedirs(folder)
    shutil.copy(os.path.join(ROOT, "solutions", "11_1_sequential", "sequential_scan.cuh"), folder)
    subprocess.run(["patch", "-p1", "--fuzz=0", "--batch", "--quiet", "-d", folder,
                    "-i", os.path.join(FIXTURES, "broken_kernel.patch")], check=True)
    return folder


def graded_build_dir(test, name="broken"):
    """A build folder (removed after `test`) holding a grade run's outputs: the fixtures
    `<name>-junit.xml` and `<name>-ctest.log` as grade-junit.xml and grade-ctest.log (none if no name)."""
    bdir = tempfile.mkdtemp()
    test.addCleanup(shutil.rmtree, bdir)
    for suffix in ("junit.xml", "ctest.log") if name else ():
        shutil.copy(os.path.join(FIXTURES, f"{name}-{suffix}"), os.path.join(bdir, f"grade-{suffix}"))
    return bdir
