/// \file remote.hpp
/// \brief The grader's two processes. A student's kernels run in a *runner* (the kernel library and a
/// small main, nothing else); the grading tests, the inputs, the expected results and the verdict live
/// in a *checker* (the section's tests.cpp), which the student's code cannot reach. The checker links
/// stand-ins for the kernel library's entry points (each section's remote.cpp) with the same names,
/// so tests.cpp reads as it does in-process: `table().algorithms[0].run(request)` sends the request to
/// the runner, which scans and sends back the output, the launch counts and traces (data that can only
/// lower a score: the values are checked here). A runner that exits, crashes, prints into the channel
/// or answers something else fails the call that met it, with what happened; the next call starts a
/// fresh runner. The solution's own tests link the kernels directly (nothing to defend against).
///
/// The channel: the runner reads requests on file descriptor 3 and answers on 4; its stdout and
/// stderr are kept (the first 16 KiB) and shown when it crashes or ends, with GoogleTest's markers
/// defused, so nothing a kernel prints reads as a test's result.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "scanlab/algorithm.hpp"

namespace scanlab::remote {

/// The longest message either end accepts: a longer length is garbage. The largest request and
/// answer carry 2^30 elements (4 GiB of int32 in 11.6's and 11.8's GPU tests; 8 GiB for an 8-byte
/// type) plus a header.
inline constexpr std::uint64_t kMaxMessageBytes = std::uint64_t{1} << 36;

/// Bytes on the channel: what a request or an answer holds, written and read in order.
class Writer {
 public:
  void u64(std::uint64_t v) { raw(&v, sizeof v); }
  void f64(double v) { raw(&v, sizeof v); }
  void str(std::string_view s) {
    u64(s.size());
    raw(s.data(), s.size());
  }
  void raw(const void* p, std::size_t n) { bytes_.append(static_cast<const char*>(p), n); }
  void request(const RunRequest& r);  ///< the problem and the input (not the output, not the callback)
  void result(const RunResult& r);
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

/// Reads what a Writer wrote; a short or malformed message throws Garbled. The checker reads the
/// runner's answers `defused`: every string in them (an exception's message, a trace's values, a
/// kernel's name) has GoogleTest's result markers made harmless (see defused), because the student's
/// code chose those bytes, and ctest reads a test's output ("[  SKIPPED ]" would skip a failed test).
class Reader {
 public:
  explicit Reader(std::string_view bytes, bool defused = false) : bytes_(bytes), defused_(defused) {}
  std::uint64_t u64();
  double f64();
  std::string str();
  std::string blob();  ///< what Writer::str wrote, as bytes (an array: never defused)
  std::string_view raw(std::size_t n);
  /// A request's problem and flags, with its input in `storage` (request.input points there).
  RunRequest request(std::string& storage);
  RunResult result();
  bool done() const { return at_ == bytes_.size(); }

 private:
  std::string_view bytes_;
  std::size_t at_ = 0;
  bool defused_ = false;
};

/// `text` with GoogleTest's result markers ("[  PASSED  ]", "[  SKIPPED ]", "[==========]") turned
/// into "(  PASSED  )" and so on: text from a student's code, shown in a test's output.
std::string defused(const std::string& text);

/// What an answer says the runner's code threw (the checker rethrows the same type).
enum class Thrown : std::uint64_t { error = 0, no_device = 1, other = 2 };

/// What a runner sent that is not an answer (the checker says so, and fails the call).
struct Garbled : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The runner is missing, ended, crashed or garbled its answer. Not a scanlab::Error, which a test
/// may expect from the kernel library (a bad argument refused), so that no test passes on it.
struct RunnerFailed : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// All of `n` bytes read from (written to) `fd`, through interruptions; false at the pipe's end or on
/// an error. Both ends' framing: a message is its length (8 bytes), then its bytes.
bool read_all(int fd, void* p, std::size_t n);
bool write_all(int fd, const void* p, std::size_t n);

// ---- the checker's side ---------------------------------------------------------------------------

/// Says which backend's kernels this checker grades (table says it too): a cpu runner that claims
/// there is no device fails, and so does a cuda one where SCANLAB_REQUIRE_DEVICE is set.
void for_backend(Backend backend);

/// Sends `payload` to the runner's entry `entry` and returns its answer. Rethrows what the runner's
/// code threw (scanlab::Error, NoDeviceError: same type, same message); throws RunnerFailed when the
/// runner is missing, ended, crashed or garbled its answer. Starts the runner on first use: the path
/// in SCANLAB_RUNNER, else the one built for this test program (runner_path), through the program
/// named in SCANLAB_RUNNER_PREFIX when set (./lab grade --class: the sandbox, in which the runner
/// reads the build and writes nothing; tools/scanlab_lab/sandbox.py).
std::string call(std::string_view entry, const std::string& payload);

/// Runs a RunFn entry of the runner (an algorithm of a table: "<table>.<name>", or a section's own
/// function) on `request`: the input goes there, the output comes back into request.output. A
/// section's own entry may take `args` (written before the request) and answer `more` (one string
/// after the result; see add_run's `answer`).
RunResult run(std::string_view entry, const RunRequest& request, const std::string& args = "",
              std::string* more = nullptr);

/// A table whose algorithms run in the runner: `infos` (the section's algorithms.hpp, the one list of
/// its algorithms) with a run function each that calls entry "<table>.<name>". The checker registers
/// its tests from `infos`, so the runner's code cannot change which tests there are. Made once per
/// table name.
AlgorithmTable table(Backend backend, std::string_view table, std::span<const AlgorithmInfo> infos);

/// The runner this test program was built with, and the emulator that runs it in a cross build
/// ("qemu-aarch64 -L ...", words split at spaces; "" natively): generated with the test program's
/// source hint (scanlab_source_hint in common/cmake/scanlab.cmake).
extern const char runner_path[];
extern const char runner_emulator[];

// ---- the runner's side ----------------------------------------------------------------------------

/// One entry: reads its arguments, writes its answer.
using Handler = std::function<void(Reader&, Writer&)>;
using Entries = std::vector<std::pair<std::string, Handler>>;

/// Adds entry "<name>.<algorithm>" for every algorithm of `table`, and "<name>.device".
void add_table(Entries& entries, std::string_view name, const AlgorithmTable& table);

/// Adds a RunFn-like entry: `fn(request)` on the request read, its output and result sent back.
void add_run(Entries& entries, std::string name, std::function<RunResult(const RunRequest&)> fn);

/// The answer of a RunFn-like entry whose `request` ran (its output array is request.output, of the
/// input's size): the output, the result, and for a section's own entry `more` (see run).
void answer(Writer& out, const RunRequest& request, std::size_t bytes, const RunResult& result,
            const std::string* more = nullptr);

/// The runner's main: answers requests on fd 3 through fd 4 until the checker closes the channel.
int serve(const Entries& entries);

}  // namespace scanlab::remote
