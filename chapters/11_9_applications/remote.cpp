// The grader's two processes for section 11.9 (scanlab/remote.hpp): compiled into the checker, where it
// stands in for the kernel library's entry points (same names) and sends each call to the runner; and
// into the runner, as its main, which answers those calls with the student's kernels.
#include <cstdint>
#include <cstring>
#include <string>

#include "apps.hpp"
#include "scanlab/error.hpp"
#include "scanlab/remote.hpp"
#include "scanlab/section.hpp"
#include "scanlab/types.hpp"

#if defined(SCANLAB_REMOTE_CHECKER)

namespace scanlab::s11_9 {

Result SCANLAB_LINKED_ENTRY(run_app)(const Request& r) {
  if (r.before_each_run) throw Error("a request with before_each_run cannot run in the grader's runner");
  remote::for_backend(SCANLAB_LINKED_BACKEND);
  remote::Writer out;
  for (std::uint64_t v : {std::uint64_t(r.app), std::uint64_t(r.type), std::uint64_t(r.op), std::uint64_t(r.kind)}) {
    out.u64(v);
  }
  out.u64(r.n);
  out.str(std::string_view(static_cast<const char*>(r.input), r.input ? r.n * size_of(r.type) : 0));
  out.f64(r.pivot);
  out.str(std::string_view(reinterpret_cast<const char*>(r.heads), r.heads ? r.n * sizeof(std::uint32_t) : 0));
  out.u64(r.max_blocks);
  out.u64(r.misaligned);
  out.u64(static_cast<std::uint64_t>(r.reps));
  out.u64(r.trace);
  const std::string answer = remote::call("run_app", out.bytes());
  remote::Reader in(answer, /*defused=*/true);
  Result result;
  try {
    const std::string output = in.blob();
    result.output.assign(output.begin(), output.end());
    result.count = in.u64();
    const std::uint64_t steps = in.u64();
    for (std::uint64_t s = 0; s < steps && s < answer.size(); ++s) {
      auto& [name, values] = result.steps.emplace_back(in.str(), std::vector<std::string>{});
      const std::uint64_t count = in.u64();
      for (std::uint64_t v = 0; v < count && v < answer.size(); ++v) values.push_back(in.str());
    }
    RunResult counts = in.result();
    result.times_ms = std::move(counts.times_ms);
    result.launches = std::move(counts.launches);
    if (!in.done()) throw remote::Garbled("bytes after the result");
  } catch (const remote::Garbled& e) {
    throw remote::RunnerFailed(std::string("the kernels' process answered run_app with a malformed result (") + e.what() + ")");
  }
  return result;
}

std::string SCANLAB_LINKED_ENTRY(device)() {
  remote::for_backend(SCANLAB_LINKED_BACKEND);
  return remote::defused(remote::call("device", ""));
}

}  // namespace scanlab::s11_9

#else

int main() {
  using namespace scanlab;
  using namespace scanlab::s11_9;
  remote::Entries entries;
  entries.emplace_back("run_app", [](remote::Reader& in, remote::Writer& out) {
    Request r;
    const std::uint64_t app = in.u64(), type = in.u64(), op = in.u64(), kind = in.u64();
    if (app >= std::size(kApps) || type >= std::size(kAllTypes) || op >= std::size(kAllOps) || kind >= 2) {
      throw remote::Garbled("an unknown application, type, operator or kind");
    }
    r.app = App(app);
    r.type = DType(type);
    r.op = OpKind(op);
    r.kind = ScanKind(kind);
    r.n = in.u64();
    const std::string input = in.blob();
    r.input = input.empty() ? nullptr : input.data();
    r.pivot = in.f64();
    const std::string heads_bytes = in.blob();
    // Heads as their own array (the blob's bytes need not be aligned for uint32_t).
    std::vector<std::uint32_t> heads(heads_bytes.size() / sizeof(std::uint32_t));
    if (!heads.empty()) std::memcpy(heads.data(), heads_bytes.data(), heads.size() * sizeof(std::uint32_t));
    r.heads = heads.empty() ? nullptr : heads.data();
    r.max_blocks = in.u64();
    r.misaligned = in.u64() != 0;
    r.reps = static_cast<int>(in.u64());
    r.trace = in.u64() != 0;
    const Result result = SCANLAB_LINKED_ENTRY(run_app)(r);
    out.str(std::string_view(reinterpret_cast<const char*>(result.output.data()), result.output.size()));
    out.u64(result.count);
    out.u64(result.steps.size());
    for (const auto& [name, values] : result.steps) {
      out.str(name);
      out.u64(values.size());
      for (const std::string& v : values) out.str(v);
    }
    out.result(RunResult{result.times_ms, result.launches});
  });
  entries.emplace_back("device", [](remote::Reader&, remote::Writer& out) { out.str(SCANLAB_LINKED_ENTRY(device)()); });
  return remote::serve(entries);
}

#endif
