// Section 11.10 with one process per GPU: scanlab_11_10_ranks. Each process (a rank) owns one GPU and
// its piece of the array; the piece totals cross through NCCL (ncclCommInitRank from the id rank 0
// made with ncclGetUniqueId), the way ranks on several hosts would run. Two ways to start it:
//
//   scanlab_11_10_ranks --ranks G [options]          starts G ranks of itself on this host (fork, exec),
//                                                    rank r on GPU r, the id in a private temp folder
//   scanlab_11_10_ranks --id-file PATH [--rank r --ranks G --device d] [options]
//                                                    one rank, started by hand or by a launcher on each
//                                                    host (rank and count from OMPI_COMM_WORLD_* or
//                                                    SLURM_*); PATH on a filesystem all ranks share
//
// Every rank makes the same seeded input, scans its piece, checks it against the CPU reference, and
// the ranks agree on who passed; rank 0 prints one line per scan, with the slowest rank's time. A rank
// that fails, dies or waits too long ends the run with one line naming it (never a hang: every wait
// has a deadline, --timeout). You do not need to change this file.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "multi_gpu_algorithms.hpp"
#include "scanlab/cli.hpp"
#include "scanlab/error.hpp"
#include "scanlab/inputs.hpp"
#include "scanlab/memory.hpp"
#include "scanlab/program.hpp"
#include "scanlab/report.hpp"
#include "scanlab/verify.hpp"

namespace {

using namespace scanlab;
using s11_10::RankId;
using s11_10::RankJob;

const char* const kProgram = "scanlab_11_10_ranks";

struct Options {
  int ranks = 0;                 // --ranks G
  int rank = -1;                 // --rank r (one rank), else from the launcher's environment
  int device = -1;               // --device d, else the launcher's local rank, else the rank
  std::string id_file;           // --id-file PATH: one rank; rank 0 writes the id there, the others read it
  std::vector<std::string> ways = {"carry", "reduce_then_scan"};
  std::vector<DType> types = {DType::int32};
  std::vector<OpKind> ops = {OpKind::add};
  std::vector<ScanKind> kinds = {ScanKind::inclusive};
  std::vector<std::size_t> sizes = {std::size_t{1} << 20};
  std::uint64_t seed = 2024;
  int reps = 10;
  bool in_place = false;
  std::string backend = "auto";
  int timeout_s = 300;           // --timeout: the longest any rank waits for the others, at each stage
  std::string csv;
  bool help = false;
};

/// `text`'s comma-separated items, each through `parse` (which throws UsageError on a bad one).
template <class T, class F>
std::vector<T> list_of(const std::string& text, F parse) {
  std::vector<T> items;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find(',', start), text.size());
    items.push_back(parse(text.substr(start, end - start)));
    start = end + 1;
  }
  return items;
}

/// An int from the environment (a launcher's rank or count), or -1.
int from_environment(std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (const char* v = std::getenv(name); v != nullptr && *v != '\0') {
      return static_cast<int>(cli::whole_number(name, v, 0, 1u << 20, "a whole number"));
    }
  }
  return -1;
}

void parse(int argc, char** argv, Options& o, cli::Parser& parser) {
  const auto number = [](const char* flag, std::uint64_t lo, std::uint64_t hi) {
    return [=](const std::string& v) { return cli::whole_number(flag, v, lo, hi, "a whole number"); };
  };
  parser.flag("--help,-h", "print this help and exit", o.help);
  parser.option("--ranks", "G", "the ranks (processes, one GPU each); without --id-file, start them all here",
                [&](const std::string& v) { o.ranks = static_cast<int>(number("--ranks", 1, 64)(v)); });
  parser.option("--id-file", "PATH", "run one rank: rank 0 writes the communicator's id to PATH (which must not "
                "exist yet), the other ranks wait for it there; a path every rank's host sees",
                o.id_file);
  parser.option("--rank", "R", "this rank (default: OMPI_COMM_WORLD_RANK, SLURM_PROCID or PMI_RANK)",
                [&](const std::string& v) { o.rank = static_cast<int>(number("--rank", 0, 63)(v)); });
  parser.option("--device", "D", "this rank's GPU (default: the launcher's local rank, else the rank)",
                [&](const std::string& v) { o.device = static_cast<int>(number("--device", 0, 1023)(v)); });
  parser.option("--way", "LIST", "carry, reduce_then_scan or both, comma-separated (default both)",
                [&](const std::string& v) {
                  o.ways = list_of<std::string>(v, [](const std::string& w) {
                    if (w != "carry" && w != "reduce_then_scan") {
                      throw UsageError("--way takes carry or reduce_then_scan, not '" + w + "'");
                    }
                    return w;
                  });
                });
  parser.option("--type", "LIST", "element types, comma-separated, or all (default int32)", [&](const std::string& v) {
    o.types = v == "all" ? std::vector<DType>(std::begin(kAllTypes), std::end(kAllTypes))
                         : list_of<DType>(v, [](const std::string& t) {
                             if (auto d = parse_dtype(t)) return *d;
                             std::string known;
                             for (const DType d : kAllTypes) known += (known.empty() ? "" : ", ") + std::string(name(d));
                             throw UsageError("--type: unknown type '" + t + "' (" + known + ")");
                           });
  });
  parser.option("--op", "LIST", "operators, comma-separated, or all (default add)", [&](const std::string& v) {
    o.ops = v == "all" ? std::vector<OpKind>(std::begin(kAllOps), std::end(kAllOps))
                       : list_of<OpKind>(v, [](const std::string& t) {
                           if (auto op = parse_op(t)) return *op;
                           throw UsageError("--op: unknown operator '" + t + "' (add, max, min, last)");
                         });
  });
  parser.option("--kind", "LIST", "inclusive, exclusive or all (default inclusive)", [&](const std::string& v) {
    o.kinds = v == "all" ? std::vector<ScanKind>(std::begin(kAllKinds), std::end(kAllKinds))
                         : list_of<ScanKind>(v, [](const std::string& k) {
                             if (k == "inclusive") return ScanKind::inclusive;
                             if (k == "exclusive") return ScanKind::exclusive;
                             throw UsageError("--kind takes inclusive, exclusive or all, not '" + k + "'");
                           });
  });
  parser.option("--n", "LIST", "array sizes, comma-separated (default 1048576)", [&](const std::string& v) {
    o.sizes = list_of<std::size_t>(v, number("--n", 0, std::uint64_t{1} << 40));
  });
  parser.option("--seed", "S", "the inputs' seed (default 2024)",
                [&](const std::string& v) { o.seed = number("--seed", 0, ~std::uint64_t{0})(v); });
  parser.option("--reps", "K", "timed runs of each scan after one warm-up, 0: check only (default 10)",
                [&](const std::string& v) { o.reps = static_cast<int>(number("--reps", 0, 100000)(v)); });
  parser.flag("--in-place", "scan each piece in place", o.in_place);
  parser.option("--backend", "B", "cuda, cpu or auto (default auto)", o.backend);
  parser.option("--timeout", "S", "seconds a rank waits for the others at any stage before it gives up (default 300)",
                [&](const std::string& v) { o.timeout_s = static_cast<int>(number("--timeout", 1, 86400)(v)); });
  parser.option("--csv", "FILE", "rank 0 appends one row per scan to FILE", o.csv);
  parser.footer("On one host: --ranks G starts G ranks of this program, rank r on GPU r. Across hosts: start one "
                "rank per GPU with --id-file on a shared filesystem (and --rank, --ranks, --device, or a "
                "launcher's OMPI_COMM_WORLD_* or SLURM_* variables); see chapters/11_10_multi_gpu/README.md.");
  parser.parse(argc, argv);
}

// ---- one rank --------------------------------------------------------------------------------------

/// Ends this rank with one line if a stage takes longer than its deadline: a rank the others wait for
/// forever (NCCL waits without end for a rank that never comes) becomes an error.
class Watchdog {
 public:
  Watchdog(std::string who, int seconds) : who_(std::move(who)), seconds_(seconds), thread_([this] { watch(); }) {}
  ~Watchdog() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopped_ = true;
    }
    wake_.notify_one();
    thread_.join();
  }
  /// A new stage, with a new deadline.
  void stage(std::string what) {
    std::lock_guard<std::mutex> lock(mutex_);
    what_ = std::move(what);
    deadline_ = std::chrono::steady_clock::now() + std::chrono::seconds(seconds_);
  }

 private:
  void watch() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stopped_) {
      if (!what_.empty() && std::chrono::steady_clock::now() > deadline_) {
        std::fprintf(stderr, "%s: %s: gave up after %d s %s (see --timeout)\n", kProgram, who_.c_str(), seconds_,
                     what_.c_str());
        std::fflush(stderr);
        _exit(2);
      }
      wake_.wait_for(lock, std::chrono::milliseconds(200));
    }
  }
  std::string who_;
  int seconds_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stopped_ = false;
  std::string what_;
  std::chrono::steady_clock::time_point deadline_;
  std::thread thread_;  // (last: starts once the rest is made)
};

/// Rank 0: a new id, written to `path` atomically (a temp file renamed), which must not exist yet.
void write_id(const std::string& path, const RankId& id) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0) {
    throw UsageError("--id-file " + path + " exists already: remove it, or give a new path (an old id would send "
                     "the other ranks to a communicator that is gone)");
  }
  const std::string temp = path + ".tmp" + std::to_string(getpid());
  {
    std::ofstream out(temp, std::ios::binary);
    out.write(id.data(), static_cast<std::streamsize>(id.size()));
    if (!out.flush()) throw Error("cannot write the id to " + temp + ": " + std::strerror(errno));
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) throw Error("cannot rename " + temp + ": " + std::strerror(errno));
}

/// The other ranks: rank 0's id from `path`, once it is there (the watchdog ends a wait too long).
RankId read_id(const std::string& path) {
  for (;;) {
    std::ifstream in(path, std::ios::binary);
    RankId id;
    if (in && in.read(id.data(), static_cast<std::streamsize>(id.size()))) return id;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

/// The backend's two entry points, as linked into this program.
struct Entries {
  Backend backend;
  RankId (*new_id)();
  void (*run)(const RankJob&);
};
Entries entries_for(Backend backend) {
  SCANLAB_IF_LINKED_CUDA(if (backend == Backend::cuda) return {backend, s11_10::new_rank_id_cuda, s11_10::run_rank_cuda};)
  SCANLAB_IF_LINKED_CPU(if (backend == Backend::cpu) return {backend, s11_10::new_rank_id_cpu, s11_10::run_rank_cpu};)
  throw UsageError(std::string("this build has no ") + name(backend) + " backend");
}

/// The rank and rank count from the command line or the launcher's environment.
void find_rank(Options& o) {
  if (o.rank < 0) o.rank = from_environment({"OMPI_COMM_WORLD_RANK", "SLURM_PROCID", "PMI_RANK"});
  if (o.ranks <= 0) o.ranks = from_environment({"OMPI_COMM_WORLD_SIZE", "SLURM_NTASKS", "PMI_SIZE"});
  if (o.rank < 0 || o.ranks <= 0) {
    throw UsageError("--id-file runs one rank: give --rank and --ranks, or start it with a launcher that sets "
                     "OMPI_COMM_WORLD_RANK and _SIZE (mpirun) or SLURM_PROCID and SLURM_NTASKS (srun)");
  }
  if (o.rank >= o.ranks) {
    throw UsageError("--rank " + std::to_string(o.rank) + " of " + std::to_string(o.ranks) + ": ranks go from 0 to " +
                     std::to_string(o.ranks - 1));
  }
}

std::string who(const Options& o) { return "rank " + std::to_string(o.rank) + " of " + std::to_string(o.ranks); }

int run_one_rank(const Options& given) {
  Options o = given;
  if (o.device < 0) o.device = from_environment({"OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID", "MPI_LOCALRANKID"});
  if (o.device < 0) o.device = o.rank;
  // The emulator's model of NCCL gives up after --timeout, and names the ranks it waited for; the
  // watchdog, a little later, ends a wait that has no deadline of its own (NCCL's).
  setenv("SCANLAB_NCCL_TIMEOUT", std::to_string(o.timeout_s).c_str(), 0);

  std::string note;
  const std::vector<AlgorithmTable> tables = s11_10::linked_tables();
  const AlgorithmTable& table = choose_backend(tables, o.backend, note);
  const Entries entries = entries_for(table.backend);
  const std::string device = table.device();

  // The scans, in order; each one's whole input (the same on every rank) is made when it comes.
  std::vector<s11_10::RankScan> plan;
  for (const std::string& way : o.ways) {
    for (const DType type : o.types) {
      for (const OpKind op : o.ops) {
        for (const ScanKind kind : o.kinds) {
          for (const std::size_t n : o.sizes) plan.push_back({way, {type, op, kind, n, o.in_place}, nullptr, nullptr});
        }
      }
    }
  }
  HostArray input, output;  // the current scan's
  RankJob job;
  job.rank = o.rank;
  job.ranks = o.ranks;
  job.device = o.device;
  job.reps = o.reps;
  job.scans = plan.size();
  job.make_scan = [&](std::size_t s) {
    const ScanProblem& p = plan[s].problem;
    input = HostArray();  // (the last scan's arrays go first)
    output = HostArray();
    input = make_input(p.type, p.op, p.n, o.seed);
    output = HostArray(p.type, p.n);
    output.fill_bytes(kPoisonByte);
    s11_10::RankScan scan = plan[s];
    scan.input = input.data();
    scan.output = output.data();
    return scan;
  };

  Watchdog watchdog(who(o), o.timeout_s + 5);
  // Once every rank has joined, the id is spent: rank 0 removes its file at the end (the launcher of
  // one host removes its folder too).
  struct RemoveId {
    const std::string* path = nullptr;
    ~RemoveId() {
      if (path != nullptr) std::remove(path->c_str());
    }
  } remove_id;
  bool all_passed = true;
  std::vector<ResultRow> rows;
  if (o.rank == 0) {  // (first: a refused id file stops rank 0 before anything is printed)
    job.id = entries.new_id();
    write_id(o.id_file, job.id);
    remove_id.path = &o.id_file;
    std::printf("scanlab section 11.10: scan across GPUs, one process per GPU, %d ranks\n", o.ranks);
    std::printf("backend %s (%s)%s%s\n", name(table.backend), device.c_str(), note.empty() ? "" : "; ", note.c_str());
    std::fflush(stdout);
  }
  std::string piece_failure;
  job.check = [&](std::size_t s, std::size_t first) {
    ScanProblem upto = plan[s].problem;  // the scan up to the end of this rank's piece, checked from its start
    upto.n = static_cast<std::size_t>((static_cast<unsigned __int128>(upto.n) * (o.rank + 1)) / o.ranks);
    piece_failure = verify_scan(upto, input.data(), output.data(), first).message;
    watchdog.stage("in scan " + std::to_string(s + 1) + " of " + std::to_string(plan.size()) +
                   ", agreeing on the checks or timing (a rank that never reaches the all-gather?)");
    return piece_failure;
  };
  job.done = [&](std::size_t s, const std::vector<int>& failed, const std::vector<double>& slowest_ms) {
    const ScanProblem& p = plan[s].problem;
    const std::string what = plan[s].way + " " + name(p.type) + " " + name(p.op) + " " + name(p.kind) +
                             " n = " + std::to_string(p.n);
    if (!piece_failure.empty()) std::printf("%s: FAILED: %s: %s\n", who(o).c_str(), what.c_str(), piece_failure.c_str());
    all_passed = all_passed && failed.empty();
    if (o.rank == 0) {
      ResultRow row = run_row("11.10", plan[s].way + "_" + std::to_string(o.ranks) + "_ranks", table.backend,
                              device, p.type, p.op, p.kind, p.n, o.seed);
      row.verified = failed.empty();
      set_times(row, slowest_ms);
      row.gbps = row.median_ms > 0 ? 2.0 * static_cast<double>(p.n * size_of(p.type)) / (row.median_ms * 1e-3) / 1e9 : 0;
      std::string failed_list;
      for (int r : failed) failed_list += (failed_list.empty() ? "" : ", ") + std::to_string(r);
      if (!failed.empty()) {
        std::printf("%s on %d ranks: FAILED on rank %s\n", what.c_str(), o.ranks, failed_list.c_str());
      } else if (row.median_ms > 0) {
        std::printf("%s on %d ranks: Passed  time %.4f ms (median of %d, the slowest rank's), %.2f GB/s\n",
                    what.c_str(), o.ranks, row.median_ms, row.reps, row.gbps);
      } else {
        std::printf("%s on %d ranks: Passed\n", what.c_str(), o.ranks);
      }
      rows.push_back(row);
    }
    std::fflush(stdout);
    watchdog.stage("in scan " + std::to_string(s + 2) + " of " + std::to_string(plan.size()) +
                   " (a rank that never reaches the all-gather?)");
  };


  if (o.rank > 0) {
    watchdog.stage("waiting for rank 0's id in " + o.id_file);
    job.id = read_id(o.id_file);
  }
  watchdog.stage("in ncclCommInitRank or scan 1, waiting for the other ranks");
  entries.run(job);
  if (o.rank == 0) {
    if (!o.csv.empty()) append_csv(o.csv, rows);
    std::printf("%s\n", all_passed ? "Passed" : "FAILED");
  }
  return all_passed ? 0 : 1;
}

// ---- the ranks of one host ---------------------------------------------------------------------------

/// Starts `ranks` ranks of this program (this command line, with --rank r --device r --id-file in a
/// private temp folder) and waits for them. A rank that exits with an error or dies stops the others.
int start_ranks(int argc, char** argv, const Options& o) {
  std::string folder = (std::getenv("TMPDIR") ? std::string(std::getenv("TMPDIR")) : std::string("/tmp")) +
                       "/scanlab_ranks.XXXXXX";
  if (mkdtemp(folder.data()) == nullptr) throw Error("cannot make a temp folder " + folder + ": " + std::strerror(errno));
  const std::string id_file = folder + "/id";
  std::vector<pid_t> pids;
  for (int r = 0; r < o.ranks; ++r) {
    std::vector<std::string> args(argv, argv + argc);
    for (const std::string& extra : {std::string("--rank"), std::to_string(r), std::string("--device"),
                                     std::to_string(r), std::string("--id-file"), id_file}) {
      args.push_back(extra);
    }
    const pid_t pid = fork();
    if (pid < 0) throw Error(std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
      std::vector<char*> c_args;
      for (std::string& a : args) c_args.push_back(a.data());
      c_args.push_back(nullptr);
      execv("/proc/self/exe", c_args.data());
      std::fprintf(stderr, "%s: rank %d: cannot start: %s\n", kProgram, r, std::strerror(errno));
      _exit(2);
    }
    pids.push_back(pid);
  }
  // Wait for all. An agreed check failure (status 1) lets the others finish; anything else stops them.
  int status_out = 0, left = o.ranks;
  while (left > 0) {
    int status = 0;
    const pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) break;
    const auto which = std::find(pids.begin(), pids.end(), pid);
    if (which == pids.end()) continue;
    const int r = static_cast<int>(which - pids.begin());
    *which = -1;
    --left;
    const int code = WIFSIGNALED(status) ? 2 : WEXITSTATUS(status);  // (a rank that exits says why itself)
    if (code != 0 && status_out == 0) {
      if (WIFSIGNALED(status)) {
        std::fprintf(stderr, "%s: rank %d of %d died: signal %d (%s)\n", kProgram, r, o.ranks, WTERMSIG(status),
                     strsignal(WTERMSIG(status)));
      }
      status_out = code;
      if (code != 1) {
        for (pid_t other : pids) {
          if (other > 0) kill(other, SIGKILL);  // (their waits are for the rank that is gone)
        }
      }
    }
  }
  std::remove(id_file.c_str());
  rmdir(folder.c_str());
  return status_out;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Options o;
    cli::Parser parser(kProgram, "scanlab section 11.10: a scan across GPUs with one process per GPU (NCCL)");
    parse(argc, argv, o, parser);
    if (o.help) {
      std::printf("%s", parser.help().c_str());
      return 0;
    }
    if (!o.id_file.empty()) {
      find_rank(o);
      try {
        return run_one_rank(o);
      } catch (const std::exception& e) {  // (one line, naming the rank)
        std::fprintf(stderr, "%s: %s: error: %s\n", kProgram, who(o).c_str(), e.what());
        return 2;
      }
    }
    if (o.rank >= 0 || o.device >= 0) throw UsageError("--rank and --device run one rank: give --id-file too");
    if (o.ranks < 1) throw UsageError("give --ranks G to start G ranks here, or --id-file to run one rank (see --help)");
    return start_ranks(argc, argv, o);
  } catch (const UsageError& e) {
    std::fprintf(stderr, "%s: error: %s\n", kProgram, e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: error: %s\n", kProgram, e.what());
    return 2;
  }
}
