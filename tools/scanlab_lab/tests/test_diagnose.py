import unittest

from scanlab_lab import ctest, diagnose
from scanlab_lab.tests.util import fixture


def cases(name):
    junit = f"{name}-junit.xml"
    import os
    from scanlab_lab.tests.util import FIXTURES
    statuses = ctest.read_statuses(fixture(f"{name}-ctest.log"))
    return {c.name: (c, statuses.get(c.name, "Failed")) for c in ctest.read_junit(os.path.join(FIXTURES, junit))}


def diagnosed(name, test):
    c, status = cases(name)[test]
    return diagnose.diagnose(c.name, c.output, status, c.time_s)


class Crashes(unittest.TestCase):
    """Each way a test can die, as ctest reported it (crashes.cpp)."""

    def test_segfault_is_a_crash_named_as_such(self):
        d = diagnosed("crashes", "11.9.exercise.cpu.Grading.segfault")
        self.assertEqual(d.kind, "crash")
        self.assertTrue(d.why.startswith("crashed (segmentation fault) in 11.9.exercise.cpu.Grading.segfault"))
        self.assertNotIn("[ RUN", d.why)

    def test_abort(self):
        d = diagnosed("crashes", "11.9.exercise.cpu.Grading.aborts")
        self.assertEqual(d.kind, "crash")
        self.assertTrue(d.why.startswith("aborted in 11.9.exercise.cpu.Grading.aborts"))

    def test_timeout_says_how_long(self):
        d = diagnosed("crashes", "11.9.exercise.cpu.Grading.hangs")
        self.assertEqual(d.kind, "timeout")
        self.assertTrue(d.why.startswith("timed out after 3 s in 11.9.exercise.cpu.Grading.hangs"))

    def test_floating_point_exception(self):
        d = diagnosed("crashes", "11.9.exercise.cpu.Grading.fpe")
        self.assertEqual(d.kind, "crash")
        self.assertIn("floating-point exception", d.why)

    def test_exit_before_the_end_is_a_crash(self):
        d = diagnosed("crashes", "11.9.exercise.cpu.Grading.exits")
        self.assertEqual(d.kind, "crash")
        self.assertIn("stopped before the test finished", d.why)

    def test_plain_failure(self):
        d = diagnosed("crashes", "11.9.exercise.cpu.Grading.wrong")
        self.assertEqual(d.kind, "wrong value")
        self.assertEqual(d.why, "x\nsee here")


class Grading(unittest.TestCase):
    """Real grading tests of 11.1 on a broken kernel and on the untouched stub."""

    def test_wrong_value_in_full(self):
        d = diagnosed("broken", "11.1.exercise.cpu.Grading.sequential.int64_add_inclusive")
        self.assertEqual(d.kind, "wrong value")
        self.assertEqual(d.why, "sequential: int64 add inclusive scan, n = 511: element 510 of 511 is 889, "
                                "expected 892; 1 of 511 elements wrong\n"
                                "see the TODO(student) blocks in exercises/11_1_sequential/")

    def test_segfault_and_abort_in_grading(self):
        d = diagnosed("broken", "11.1.exercise.cpu.Grading.sequential.float_add_inclusive")
        self.assertEqual((d.kind, d.why.splitlines()[0]),
                         ("crash", "crashed (segmentation fault) in 11.1.exercise.cpu.Grading.sequential.float_add_inclusive"))
        d = diagnosed("broken", "11.1.exercise.cpu.Grading.sequential.double_min_exclusive")
        self.assertEqual(d.kind, "crash")
        self.assertTrue(d.why.startswith("aborted in 11.1.exercise.cpu.Grading.sequential.double_min_exclusive"))

    def test_the_others_still_count(self):
        all_cases = cases("broken")
        results = [c.result for c, _ in all_cases.values()]
        self.assertEqual((len(results), results.count("passed"), results.count("failed")), (42, 18, 24))

    def test_barrier_divergence(self):
        # 11.2 built from the mutant barrier_inside_branch (its EXPECT: the divergence at kogge_stone.cuh:LINE).
        for test in ("Grading.kogge_stone.int32_add_inclusive", "Section11_2.ExerciseArray"):
            with self.subTest(test=test):
                d = diagnosed("divergence", "11.2.exercise.cpu." + test)
                self.assertEqual(d.kind, "barrier divergence")
                self.assertRegex(d.why, r"barrier divergence: .* at __syncthreads\(\) at [^ ]*kogge_stone\.cuh:[0-9]+")

    def test_watchdog(self):
        # 11.7 built from the mutant waits_for_own_flag (its EXPECT: the watchdog names the spinning line).
        d = diagnosed("watchdog", "11.7.exercise.cpu.Grading.single_pass.int32_add_inclusive")
        self.assertEqual(d.kind, "deadlock")
        self.assertRegex(d.why, r"watchdog: no progress for .* spins at an atomic or fence at [^ ]*single_pass_scan\.cuh:[0-9]+")

    def test_stub_message_is_not_cut(self):
        d = diagnosed("stub", "11.1.exercise.cpu.Grading.sequential.uint32_add_inclusive")
        self.assertEqual(d.kind, "wrong value")
        self.assertGreater(len(d.why.splitlines()[0]), 200)
        self.assertTrue(d.why.splitlines()[0].endswith("(did the kernel store anything? look for TODO(student))"))

    def test_every_stub_failure_is_a_wrong_value(self):
        kinds = {diagnose.diagnose(c.name, c.output, s, c.time_s).kind for c, s in cases("stub").values()}
        self.assertEqual(kinds, {"wrong value"})


class Messages(unittest.TestCase):
    def test_race_after_a_wrong_value_keeps_both(self):
        d = diagnose.diagnose("11.2.exercise.cpu.Grading.kogge_stone.int32_add_inclusive", fixture("race-output.txt"))
        self.assertEqual(d.kind, "race")
        first, *rest = d.why.splitlines()
        self.assertIn("element 2 of 31 is 174, expected 89", first)
        self.assertIn("the result depends on the order of the threads, a race (is a __syncthreads() missing?)",
                      "\n".join(rest))

    def test_several_lines_survive_with_quotes(self):
        d = diagnose.diagnose("t", fixture("multiline-output.txt"))
        self.assertEqual(d.why, 'kogge_stone: element 2 is 5, expected 6\n  after barrier 1: [4 10 13 8]\n'
                                '  after barrier 2: [4 10 "17" 21]\nsee the TODO(student) blocks')
        self.assertEqual(d.kind, "wrong value")

    def emulator(self, text):
        """A gtest failure block as testing.cpp prints one, around an emulator error."""
        literal = '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
        out = ("[ RUN      ] Grading.x.int32_add_inclusive\n/src/common/src/testing.cpp:101: Failure\n"
               "Expected equality of these values:\n  failure\n    Which is: " + literal + '\n  ""\n'
               "see mutant m\n[  FAILED  ] Grading.x.int32_add_inclusive (9 ms)\n")
        return diagnose.diagnose("t", out)

    def test_emulator_reports(self):
        # The wording of block_report.cpp / block.cpp, shaped as the mutants' EXPECT files require.
        cases = {
            "barrier divergence": "kogge_stone at n = 32: kernel 'kogge_stone_kernel', block 0: barrier divergence: "
                                  "threads 0-15 wait at __syncthreads() at kogge_stone.cuh:41; threads 16-31 wait at "
                                  "__syncthreads() at kogge_stone.cuh:47. Every thread that has not exited must wait "
                                  "at the same __syncthreads()",
            "deadlock": "single_pass at n = 4097: kernel 'single_pass_scan_kernel', block 1: watchdog: no progress for "
                        "2 s (no barrier completed, no thread finished, no atomic changed memory) while thread 0 spins "
                        "at an atomic or fence at single_pass_scan.cuh:88. If it waits for another block: CUDA does "
                        "not promise any order or concurrency of blocks",
            "memory error": "scanlab emu: stack overflow: kernel 'k', block 0, thread 3 ran past the end of its fiber "
                            "stack of 64 KiB (deep recursion or large local arrays)",
            "timeout": "decoupled_lookback at n = 90000: kernel 'decoupled_lookback_scan_kernel', block 3: time limit: "
                       "the launch ran 60.1 s, past its limit of 60 s, while thread 0 spins at an atomic or fence at "
                       "decoupled_lookback.cuh:106 on tile statuses[2]; tile statuses when the launch stopped: 0-1 "
                       "prefix, 2-43 nothing published",
        }
        for kind, text in cases.items():
            with self.subTest(kind=kind):
                d = self.emulator(text)
                self.assertEqual(d.kind, kind)
                self.assertTrue(d.why.startswith(text))
        stuck = self.emulator("kernel 'k', block 0: deadlock: threads 0-31 wait in __shfl_up_sync at w.cuh:9 "
                              "(mask 0xffffffff) for lane 5; no thread can continue")
        self.assertEqual(stuck.kind, "deadlock")
        # A read past a device array (emu/src/memory_fault.cpp): a memory error, never a crash.
        fault = self.emulator("memory error: hierarchical_coarsened at n = 4097: kernel 'add_block_sums_kernel', block 1, thread 0 "
                              "read past the end of a 4097-element array of 4-byte elements (element 4352 = N+255) in "
                              "device memory at hierarchical_scan.cuh:48; look for an index that can reach n")
        self.assertEqual(fault.kind, "memory error")

    def test_memory_errors_of_the_guard_zones(self):
        # 11.2 graded on the mutant shared_write_one_past (the emulator's guard zones): the grading
        # tests say it in a failed comparison, the others in an exception; all are memory errors.
        failed = cases("memory")
        self.assertEqual(len(failed), 23)
        for name, (c, status) in failed.items():
            with self.subTest(test=name):
                d = diagnose.diagnose(c.name, c.output, status, c.time_s)
                self.assertEqual(d.kind, "memory error")
                self.assertIn("wrote past the end of its dynamic shared memory", d.why)

    def test_stack_overflow_that_ends_the_process(self):
        out = ("[ RUN      ] Grading.x.int32_add_inclusive\nscanlab emu: stack overflow: kernel 'k', block 0, thread 1 "
               "ran past the end of its fiber stack of 64 KiB (deep recursion or large local arrays); set "
               "SCANLAB_EMU_STACK_KB to more than 64\n")
        d = diagnose.diagnose("t", out, "Failed")
        self.assertEqual(d.kind, "memory error")
        self.assertIn("SCANLAB_EMU_STACK_KB", d.why)

    def test_unescape(self):
        self.assertEqual(diagnose.unescape(r'"a\nb\"c\\d\x41"'), 'a\nb"c\\dA')


if __name__ == "__main__":
    unittest.main()


class Sanitizer(unittest.TestCase):
    """compute-sanitizer on a student's program (./lab grade on an H100, cuda backend): the tool's
    first report, or the program's own failure when the tool saw nothing."""

    def test_racecheck_is_a_race_with_the_kernel(self):
        d = diagnosed("sanitizer-barrier", "11.2.exercise.cuda.sanitize.racecheck.int32")
        self.assertEqual(d.kind, "race")
        self.assertTrue(d.why.startswith("compute-sanitizer: Error: Race reported between Read access at "))
        self.assertIn("kogge_stone_scan_kernel<int", d.why)
        self.assertNotIn("Host Frame", d.why)

    def test_a_wrong_result_under_synccheck_is_a_wrong_value(self):
        d = diagnosed("sanitizer-barrier", "11.2.exercise.cuda.sanitize.synccheck.int32")
        self.assertEqual(d.kind, "wrong value")
        self.assertTrue(d.why.startswith("the program failed: int32 add inclusive scan, n = 1024: element 64"))

    def test_memcheck_names_the_access_and_the_thread(self):
        d = diagnosed("sanitizer-memory", "11.2.exercise.cuda.sanitize.memcheck.double")
        self.assertEqual(d.kind, "memory error")
        self.assertEqual(d.why.splitlines()[0], "compute-sanitizer: Invalid __shared__ write of size 8 bytes")
        self.assertIn("by thread (1023,0,0) in block (0,0,0)", d.why)
        self.assertNotIn("Saved host backtrace", d.why)

    def test_an_illegal_address_is_a_memory_error(self):
        for test in ("11.2.exercise.cuda.sanitize.racecheck.double", "11.2.exercise.cuda.Grading.kogge_stone.int32_add_exclusive"):
            d = diagnosed("sanitizer-memory", test)
            self.assertEqual(d.kind, "memory error", test)
            self.assertIn("cudaErrorIllegalAddress", d.why)


class RunnerEnded(unittest.TestCase):
    """A student's kernels run in a process of their own (scanlab/remote.hpp); when it crashes or ends,
    the checker fails the test with what happened (output of a real run: 11.4's block_sums_not_checked)."""
    OUTPUT = (
        "[ RUN      ] Grading.brent_kung.int32_add_inclusive\n"
        "unknown file: Failure\n"
        "C++ exception with description \"the kernels' process crashed while it ran algorithms.brent_kung: "
        "SIGSEGV, a segmentation fault: a read or write of memory outside any array\" thrown in the test body.\n"
        "[  FAILED  ] Grading.brent_kung.int32_add_inclusive (15 ms)\n")

    def test_crash_of_the_kernels_process_is_a_crash(self):
        d = diagnose.diagnose("11.4.exercise.cpu.Grading.brent_kung.int32_add_inclusive", self.OUTPUT)
        self.assertEqual(d.kind, "crash")
        self.assertIn("SIGSEGV, a segmentation fault", d.why)

    def test_an_early_exit_is_a_crash_too(self):
        d = diagnose.diagnose("11.2.exercise.cpu.Grading.kogge_stone.int32_add_inclusive", self.OUTPUT.replace(
            "crashed while it ran algorithms.brent_kung: SIGSEGV, a segmentation fault: a read or write of memory "
            "outside any array", "ended before it answered algorithms.device: it exited with status 0"))
        self.assertEqual(d.kind, "crash")
        self.assertIn("exited with status 0", d.why)

    def test_an_endless_loop_is_a_timeout(self):
        # The emulator's watchdog ends a runner whose thread never reaches a sync point (worker.cpp).
        d = diagnose.diagnose("11.1.exercise.cpu.Grading.sequential.int32_add_inclusive", self.OUTPUT.replace(
            "crashed while it ran algorithms.brent_kung: SIGSEGV, a segmentation fault: a read or write of memory "
            "outside any array", "was stopped by the emulator's watchdog while it ran algorithms.sequential: a CUDA "
            "thread ran on without reaching a barrier, a warp operation, an atomic or a fence (an endless loop?)"))
        self.assertEqual(d.kind, "timeout")
        self.assertIn("an endless loop?", d.why)


class Explanation(unittest.TestCase):
    """The grader's smallest failing case and where it went wrong (common/src/explain.cpp), as data."""

    WHY = ("kogge_stone: int32 add inclusive scan, n = 31: element 2 of 31 is 174, expected 89; 29 of 31 elements "
           "wrong\nThe smallest failing case found: n = 3, x = all ones\n  x        [1, 1, 1]\n  expected [1, 2, 3]\n"
           "  got      [1, 2, 4]\n  (1 of 3 elements wrong)\nWhere it first leaves the book's algorithm (n = 3 run "
           "again as an int64 add inclusive scan of x[i] = 16^i, so that each value in shared memory says which "
           "inputs it combines):\n  after the step with stride 1 (traced at the barrier at kogge_stone.cuh:85):\n"
           "    XY[2] holds x[0..2], it should hold x[1..2]: x[0] should not be in it\n"
           "    XY[3] holds x[0..2], it should hold x[2]: x[0..1] should not be in it")

    def test_the_case_and_the_step(self):
        ex = diagnose.explanation(self.WHY)
        self.assertEqual((ex["n"], ex["x_is"], ex["x"], ex["expected"], ex["got"], ex["wrong"]),
                         (3, "all ones", [1, 1, 1], [1, 2, 3], [1, 2, 4], 1))
        self.assertEqual(ex["where"]["step"], "after the step with stride 1 (traced at the barrier at kogge_stone.cuh:85)")
        self.assertEqual(len(ex["where"]["elements"]), 2)
        self.assertEqual(diagnose.explanation_line(ex),
                         "n = 3 (x = all ones): got [1, 2, 4], expected [1, 2, 3]; after the step with stride 1 "
                         "(traced at the barrier at kogge_stone.cuh:85): XY[2] holds x[0..2], it should hold x[1..2]: "
                         "x[0] should not be in it")

    def test_a_long_case_and_none(self):
        why = ("The smallest failing case found: n = 20, x = 1, 2, ..., n\n  x        [1, 2, ... (18 more)]\n"
               "  expected [1, 3, ... (18 more)]\n  got      [1, 2, ... (18 more)]\n  (19 of 20 elements wrong)")
        ex = diagnose.explanation(why)
        self.assertEqual((ex["n"], ex["x"], ex["wrong"]), (20, [1, 2], 19))
        self.assertNotIn("where", ex)
        self.assertEqual(diagnose.explanation_line(ex), "n = 20 (x = 1, 2, ..., n): got [1, 2, ...], expected [1, 3, ...]")
        self.assertIsNone(diagnose.explanation("element 2 of 31 is 174, expected 89"))

    def test_an_error_shrunk(self):
        # After an error (explain::smallest_error): the size and the input, then the error at that size.
        why = ("memory error: k at n = 33: kernel 'k', block 0, thread 36 read past the end\n"
               "The smallest failing case found: n = 3, x = seeded random values, the same memory error\n"
               "  x        [57, -9, 19]\nWhere it goes wrong (n = 3):\n    memory error: kernel 'k', block 0, thread 3 "
               "read past the end")
        ex = diagnose.explanation(why)
        self.assertEqual((ex["n"], ex["x"]), (3, [57, -9, 19]))
        self.assertEqual(ex["where"]["elements"], ["memory error: kernel 'k', block 0, thread 3 read past the end"])
        self.assertEqual(diagnose.explanation_line(ex), "n = 3 (x = seeded random values, the same memory error); "
                         "memory error: kernel 'k', block 0, thread 3 read past the end")
        self.assertEqual(diagnose.kind_of(why), "memory error")


class ExplanationInEveryReport(unittest.TestCase):
    """The gradebook's notes (class_grade.explained_notes) and the Classroom step's log
    (earned.print_explanation) carry the first explained failure."""

    def test_gradebook_notes_and_classroom_log(self):
        import contextlib
        import io
        from scanlab_lab import class_grade, earned
        why = Explanation.WHY
        failed = {"name": "11.2.exercise.cpu.Grading.kogge_stone.int32_add_inclusive", "why": why,
                  "explanation": diagnose.explanation(why)}
        summary = {"sections": [{"section": "11.1", "failed_tests": []},
                                {"section": "11.2", "failed_tests": [{"name": "x", "why": "?"}, failed]}]}
        self.assertEqual(class_grade.explained_notes(summary),
                         ["11.2: " + diagnose.explanation_line(failed["explanation"])])
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            earned.print_explanation(summary["sections"][1], [failed["name"]])
        self.assertIn("\n    The smallest failing case found: n = 3, x = all ones\n", out.getvalue())
        self.assertIn("\n      after the step with stride 1 (traced at the barrier at kogge_stone.cuh:85):\n",
                      out.getvalue())
