// The checker's side of the grader's channel (scanlab/remote.hpp): starts the runner, sends it
// requests, reads its answers, and says what happened when it ended, crashed or answered garbage.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "scanlab/error.hpp"
#include "scanlab/remote.hpp"
#include "scanlab/types.hpp"

#if defined(SCANLAB_WITH_EMULATOR)
#include "scanlab/emu/runtime.hpp"
#endif

namespace scanlab::remote {
namespace {

constexpr std::size_t kKeepPrinted = 16 * 1024;  // what the kernels printed, kept for the report
constexpr int kWatchdogStatus = 124;  // the status the emulator's watchdog ends a runner with
#if defined(SCANLAB_WITH_EMULATOR)
static_assert(kWatchdogStatus == emu::kWatchdogExitCode);
#endif

Backend& backend();

std::string signal_words(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV, a segmentation fault: a read or write of memory outside any array";
    case SIGBUS: return "SIGBUS, a bus error: a misaligned or unmapped address";
    case SIGFPE: return "SIGFPE, an arithmetic fault (an integer division by zero?)";
    case SIGABRT: return "SIGABRT, aborted (a failed assert, or the C library found its heap corrupted)";
    case SIGILL: return "SIGILL, an illegal instruction";
    case SIGKILL: return "SIGKILL, killed (a limit on memory or time?)";
    default: return "signal " + std::to_string(sig);
  }
}

class Runner {
 public:
  ~Runner() { stop(); }

  std::string exchange(const std::string& frame, std::string_view entry) {
    if (pid_ < 0) start();
    const std::uint64_t size = frame.size();
    if (!write_all(to_, &size, sizeof size) || !write_all(to_, frame.data(), frame.size())) ended(entry);
    std::uint64_t length = 0;
    if (!read_answer(&length, sizeof length)) ended(entry);
    if (length > kMaxMessageBytes) garbled(entry, "a message of " + std::to_string(length) + " bytes");
    std::string answer(length, '\0');
    if (!read_answer(answer.data(), length)) ended(entry);
    return answer;
  }

  // All of `n` bytes of the answer; false at the channel's end, or once the runner has exited with
  // nothing more in the channel: a process it left behind may hold the channel open, and must not
  // keep the checker waiting (the runner is not reaped here: ended() says how it ended).
  bool read_answer(void* p, std::size_t n) {
    auto* at = static_cast<char*>(p);
    while (n) {
      pollfd ready{from_, POLLIN, 0};
      const int polled = ::poll(&ready, 1, 100);
      if (polled < 0 && errno != EINTR) return false;
      if (polled <= 0) {
        siginfo_t info{};
        if (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid != 0) {
          pollfd last{from_, POLLIN, 0};
          if (::poll(&last, 1, 0) <= 0) return false;  // (what it wrote before it ended is still read)
        }
        continue;
      }
      const ssize_t got = ::read(from_, at, n);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) return false;
      at += got;
      n -= static_cast<std::size_t>(got);
    }
    return true;
  }

  // What the kernels printed so far, defused, or "".
  std::string printed() {
    std::lock_guard lock(mutex_);
    if (printed_.empty()) return "";
    return "\nThe kernels printed" + (dropped_ ? " (the first " + std::to_string(kKeepPrinted) + " bytes)" : std::string()) +
           ":\n" + defused(printed_);
  }

  [[noreturn]] void garbled(std::string_view entry, const std::string& what) {
    stop();
    throw RunnerFailed("the kernels' process answered " + std::string(entry) + " with " + what +
                ", not a result: something in the kernel files writes to the grader's channel (file descriptor 3 "
                "or 4)" + printed());
  }

 private:
  void start() {
    const char* env = std::getenv("SCANLAB_RUNNER");
    const std::string path = env && *env ? env : runner_path;
    if (path.empty() || ::access(path.c_str(), X_OK) != 0) {
      throw RunnerFailed("the grader's runner of these kernels, '" + path + "', is missing: build this test program's "
                  "runner (it is built with it)");
    }
    // A sandbox to start the runner in (./lab grade --class: tools/scanlab_lab/sandbox.py writes it),
    // then the emulator's words (a cross build), then the runner.
    std::vector<std::string> words;
    const char* prefix = std::getenv("SCANLAB_RUNNER_PREFIX");
    boxed_ = prefix && *prefix;
    if (boxed_) words.emplace_back(prefix);
    for (std::size_t at = 0; runner_emulator[at];) {
      const std::string_view rest(runner_emulator + at);
      const std::size_t end = std::min(rest.find(' '), rest.size());
      if (end) words.emplace_back(rest.substr(0, end));
      at += end + (end < rest.size());
    }
    words.push_back(path);
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    // The checker's memory is not readable through /proc or ptrace by the runner (same user).
    ::prctl(PR_SET_DUMPABLE, 0);
    ::signal(SIGPIPE, SIG_IGN);
    int requests[2], answers[2], output[2];
    if (::pipe2(requests, O_CLOEXEC) || ::pipe2(answers, O_CLOEXEC) || ::pipe2(output, O_CLOEXEC)) {
      throw Error(std::string("cannot make the runner's pipes: ") + std::strerror(errno));
    }
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid < 0) throw Error(std::string("cannot start the runner: ") + std::strerror(errno));
    if (pid == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // dies with the checker (a ctest timeout kills the checker)
      if (::getppid() != parent) ::_exit(127);
      ::setpgid(0, 0);  // a group of its own: what it leaves behind is killed with it (stop, ended)
      // Above 10 first, so no dup2 below overwrites another pipe's end (dup2 clears close-on-exec).
      const int in = ::fcntl(requests[0], F_DUPFD_CLOEXEC, 10), out = ::fcntl(answers[1], F_DUPFD_CLOEXEC, 10),
                printed = ::fcntl(output[1], F_DUPFD_CLOEXEC, 10);
      ::dup2(in, 3);
      ::dup2(out, 4);
      ::dup2(printed, 1);
      ::dup2(printed, 2);
      const int devnull = ::open("/dev/null", O_RDONLY);
      if (devnull >= 0) ::dup2(devnull, 0);
      for (int fd = 5; fd < 1024; ++fd) ::close(fd);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    ::setpgid(pid, pid);  // (the child does it too: whichever runs first)
    ::close(requests[0]);
    ::close(answers[1]);
    ::close(output[1]);
    pid_ = pid;
    to_ = requests[1];
    from_ = answers[0];
    {
      std::lock_guard lock(mutex_);
      printed_.clear();
      dropped_ = false;
    }
    reaped_ = false;
    // Reads what the kernels print until the pipe's end, or, once the runner is reaped, for at most
    // 1 s more: a process it left behind (outside its group: setsid) may hold the pipe open, and must
    // not keep the checker waiting.
    drain_ = std::thread([this, fd = output[0]] {
      char buffer[4096];
      std::chrono::steady_clock::time_point until{};
      for (;;) {
        if (reaped_ && until == std::chrono::steady_clock::time_point{}) {
          until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
        }
        if (until != std::chrono::steady_clock::time_point{} && std::chrono::steady_clock::now() > until) break;
        pollfd p{fd, POLLIN, 0};
        const int ready = ::poll(&p, 1, 100);
        if (ready < 0 && errno != EINTR) break;
        if (ready <= 0) continue;
        const ssize_t got = ::read(fd, buffer, sizeof buffer);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        std::lock_guard lock(mutex_);
        const std::size_t keep = std::min<std::size_t>(static_cast<std::size_t>(got), kKeepPrinted - printed_.size());
        printed_.append(buffer, keep);
        if (keep < static_cast<std::size_t>(got)) dropped_ = true;
      }
      ::close(fd);
    });
  }

  void stop() {
    if (pid_ < 0) return;
    ::close(to_);
    ::close(from_);
    ::kill(-pid_, SIGKILL);
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    reaped();
  }

  // After the runner's end: its group killed (what it left behind), the printed text drained.
  void reaped() {
    ::kill(-pid_, SIGKILL);
    reaped_ = true;
    if (drain_.joinable()) drain_.join();
    pid_ = to_ = from_ = -1;
  }

  // The runner closed the channel: how it ended, in a Error for the call that met it.
  [[noreturn]] void ended(std::string_view entry) {
    ::close(to_);
    ::close(from_);
    int status = 0;
    pid_t done = 0;
    for (int tries = 0; tries < 200 && done == 0; ++tries) {  // up to 2 s to exit on its own
      done = ::waitpid(pid_, &status, WNOHANG);
      if (done == 0) ::usleep(10000);
    }
    if (done == 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
    }
    reaped();
    // In the sandbox (bwrap), the runner's signal comes back as the sandbox's status 128 + signal.
    const int signal = done == 0 ? 0
                       : WIFSIGNALED(status)                                           ? WTERMSIG(status)
                       : boxed_ && WIFEXITED(status) && WEXITSTATUS(status) > 128 ? WEXITSTATUS(status) - 128
                                                                                     : 0;
    if (signal != 0) {
      throw RunnerFailed("the kernels' process crashed while it ran " + std::string(entry) + ": " +
                  signal_words(signal) + printed());
    }
    if (done != 0 && WIFEXITED(status) && WEXITSTATUS(status) == kWatchdogStatus && backend() == Backend::cpu) {
      throw RunnerFailed("the kernels' process was stopped by the emulator's watchdog while it ran " + std::string(entry) +
                         ": a CUDA thread ran on without reaching a barrier, a warp operation, an atomic or a fence "
                         "(an endless loop?)" + printed());
    }
    std::string how;
    if (done != 0 && WIFEXITED(status)) {
      how = "exited with status " + std::to_string(WEXITSTATUS(status));
      if (WEXITSTATUS(status) == 127) how += " (it could not be started)";
    } else {
      how = "closed the grader's channel";
    }
    throw RunnerFailed("the kernels' process ended before it answered " + std::string(entry) + ": it " + how +
                ". A test passes only on the results it checks: code that ends the program (exit, _exit, abort, "
                "in a kernel file or a static initializer) fails it" + printed());
  }

  pid_t pid_ = -1;
  bool boxed_ = false;  // started through SCANLAB_RUNNER_PREFIX
  int to_ = -1, from_ = -1;
  std::thread drain_;
  std::atomic<bool> reaped_{false};
  std::mutex mutex_;
  std::string printed_;
  bool dropped_ = false;
};

Runner& runner() {
  static Runner r;
  return r;
}

// The backend of the kernels this checker grades (set by for_backend, and by table).
Backend& backend() {
  static Backend b = Backend::cpu;
  return b;
}

}  // namespace

void for_backend(Backend b) { backend() = b; }

std::string call(std::string_view entry, const std::string& payload) {
  Writer frame;
  frame.str(entry);
#if defined(SCANLAB_WITH_EMULATOR)
  frame.str(std::string_view(reinterpret_cast<const char*>(&emu::settings()), sizeof(emu::Settings)));
#else
  frame.str("");
#endif
  frame.raw(payload.data(), payload.size());
  const std::string answer = runner().exchange(frame.bytes(), entry);
  std::uint64_t status = 0, kind = 0;
  std::string text;
  std::vector<std::string> places;
  try {
    Reader in(answer, /*defused=*/true);
    status = in.u64();
    if (status == 0) {
      text = in.blob();
    } else {
      kind = in.u64();
      text = in.str();
    }
    const std::uint64_t n = in.u64();
    for (std::uint64_t i = 0; i < n; ++i) places.push_back(in.str());
    if (!in.done() || status > 1) throw Garbled("bytes after the answer");
  } catch (const Garbled& e) {
    runner().garbled(entry, std::string("a malformed message (") + e.what() + ")");
  }
#if defined(SCANLAB_WITH_EMULATOR)
  emu::add_block_waits(places);
#endif
  if (status == 0) return text;
  if (kind == static_cast<std::uint64_t>(Thrown::no_device)) {
    // Only a GPU can be missing, and the grader asks for the cuda tests only where one is (saying so
    // with SCANLAB_REQUIRE_DEVICE): anywhere else a "no device" from the kernels' process would turn
    // failed tests into skipped ones.
    const char* required = std::getenv("SCANLAB_REQUIRE_DEVICE");
    if (backend() != Backend::cuda || (required && *required && std::string(required) != "0")) {
      throw RunnerFailed("the kernels' process says no device is available (" + text + "), where the grader has one");
    }
    throw NoDeviceError(text);
  }
  if (kind == static_cast<std::uint64_t>(Thrown::error)) throw Error(text);
  throw std::runtime_error(text);
}

RunResult run(std::string_view entry, const RunRequest& request, const std::string& args, std::string* more) {
  if (request.before_each_run) throw Error("a request with before_each_run cannot run in the grader's runner");
  Writer payload;
  payload.raw(args.data(), args.size());
  payload.request(request);
  const std::string answer = call(entry, payload.bytes());
  try {
    Reader in(answer, /*defused=*/true);
    const std::string output = in.blob();
    if (output.size() != request.problem.n * size_of(request.problem.type)) throw Garbled("an output of the wrong size");
    if (!output.empty()) std::memcpy(request.output, output.data(), output.size());
    RunResult result = in.result();
    if (more) *more = in.blob();
    if (!in.done()) throw Garbled("bytes after the result");
    return result;
  } catch (const Garbled& e) {
    runner().garbled(entry, std::string("a malformed result (") + e.what() + ")");
  }
}

// ---- tables whose algorithms run in the runner ---------------------------------------------------

namespace {

constexpr std::size_t kTables = 4, kPerTable = 16;  // (11.10's test table has 9)

struct Slot {
  std::string name;  // the table's entry prefix, "algorithms"
  std::vector<Algorithm> algorithms;
  std::vector<std::string> entries;  // "<table>.<algorithm>"
};
// A function's static: the tests register themselves from these tables as the program starts.
std::array<Slot, kTables>& slots() {
  static std::array<Slot, kTables> made;
  return made;
}

template <std::size_t T, std::size_t I>
RunResult run_in_runner(const RunRequest& request) {
  return run(slots()[T].entries[I], request);
}

template <std::size_t T>
std::string device_in_runner() {
  return defused(call(slots()[T].name + ".device", ""));
}

template <std::size_t T, std::size_t... I>
constexpr std::array<RunFn, kPerTable> run_fns(std::index_sequence<I...>) {
  return {&run_in_runner<T, I>...};
}

template <std::size_t... T>
constexpr std::array<std::array<RunFn, kPerTable>, kTables> all_run_fns(std::index_sequence<T...>) {
  return {run_fns<T>(std::make_index_sequence<kPerTable>())...};
}

constexpr auto kRunFns = all_run_fns(std::make_index_sequence<kTables>());
constexpr std::array<std::string (*)(), kTables> kDeviceFns = {&device_in_runner<0>, &device_in_runner<1>,
                                                               &device_in_runner<2>, &device_in_runner<3>};

}  // namespace

AlgorithmTable table(Backend backend, std::string_view name, std::span<const AlgorithmInfo> infos) {
  std::size_t t = 0;
  while (t < kTables && !slots()[t].name.empty() && slots()[t].name != name) ++t;
  if (t == kTables || infos.size() > kPerTable) throw Error("remote::table: more tables or algorithms than slots");
  for_backend(backend);
  Slot& slot = slots()[t];
  if (slot.name.empty()) {
    slot.name = std::string(name);
    for (std::size_t i = 0; i < infos.size(); ++i) {
      slot.algorithms.push_back(with_run(infos[i], kRunFns[t][i]));
      slot.entries.push_back(slot.name + "." + std::string(infos[i].name));
    }
  }
  return {backend, slot.algorithms, kDeviceFns[t]};
}

}  // namespace scanlab::remote
