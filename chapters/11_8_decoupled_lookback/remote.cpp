// The grader's two processes for section 11.8 (scanlab/remote.hpp): compiled into the checker, where it
// stands in for the kernel library's entry points (same names) and sends each call to the runner; and
// into the runner, as its main, which answers those calls with the student's kernels.
#include <cstring>
#include <string>
#include <type_traits>

#include "algorithms.hpp"
#include "scanlab/error.hpp"
#include "scanlab/remote.hpp"

namespace {
// RepeatedLaunches is plain data, built by one build on both sides: sent as its bytes.
static_assert(std::is_trivially_copyable_v<scanlab::s11_8::RepeatedLaunches>);
}  // namespace

#if defined(SCANLAB_REMOTE_CHECKER)

namespace scanlab::s11_8 {

AlgorithmTable SCANLAB_LINKED_ENTRY(algorithms)() {
  return remote::table(SCANLAB_LINKED_BACKEND, "algorithms", kAlgorithmInfo);
}
AlgorithmTable SCANLAB_LINKED_ENTRY(test_algorithms)() {
  return remote::table(SCANLAB_LINKED_BACKEND, "test_algorithms", kTestAlgorithmInfo);
}

namespace {
std::size_t items(std::string_view entry, DType type) {
  remote::Writer args;
  args.u64(static_cast<std::uint64_t>(type));
  const std::string answer = remote::call(entry, args.bytes());
  remote::Reader in(answer);
  try {
    return in.u64();
  } catch (const remote::Garbled& e) {
    throw remote::RunnerFailed(std::string("the kernels' process answered ") + std::string(entry) + " with " + e.what());
  }
}
}  // namespace

std::size_t SCANLAB_LINKED_ENTRY(tile_items)(DType type) { return items("tile_items", type); }
std::size_t SCANLAB_LINKED_ENTRY(persistent_tile_items)(DType type) { return items("persistent_tile_items", type); }

RepeatedOutputs SCANLAB_LINKED_ENTRY(repeated_launches)(const RepeatedLaunches& request) {
  remote::Writer args;
  args.raw(&request, sizeof request);
  const std::string answer = remote::call("repeated_launches", args.bytes());
  remote::Reader in(answer, /*defused=*/true);
  RepeatedOutputs out;
  try {
    const std::uint64_t launches = in.u64();
    for (std::uint64_t i = 0; i < launches && i < answer.size(); ++i) out.digests.push_back(in.u64());
    const std::uint64_t outputs = in.u64();
    for (std::uint64_t i = 0; i < outputs && i < answer.size(); ++i) out.outputs.push_back(in.blob());
    out.error = in.str();
    if (!in.done()) throw remote::Garbled("bytes after the answer");
  } catch (const remote::Garbled& e) {
    throw remote::RunnerFailed(std::string("the kernels' process answered repeated_launches with ") + e.what());
  }
  return out;
}

}  // namespace scanlab::s11_8

#else

int main() {
  using namespace scanlab;
  remote::Entries entries;
  remote::add_table(entries, "algorithms", s11_8::SCANLAB_LINKED_ENTRY(algorithms)());
  remote::add_table(entries, "test_algorithms", s11_8::SCANLAB_LINKED_ENTRY(test_algorithms)());
  for (const auto& [name, items] : {std::pair{"tile_items", &s11_8::SCANLAB_LINKED_ENTRY(tile_items)},
                                    std::pair{"persistent_tile_items", &s11_8::SCANLAB_LINKED_ENTRY(persistent_tile_items)}}) {
    entries.emplace_back(name, [items](remote::Reader& in, remote::Writer& out) {
      const std::uint64_t type = in.u64();
      if (type >= std::size(kAllTypes)) throw remote::Garbled("an unknown type");
      out.u64(items(static_cast<DType>(type)));
    });
  }
  entries.emplace_back("repeated_launches", [](remote::Reader& in, remote::Writer& out) {
    s11_8::RepeatedLaunches request;
    std::memcpy(&request, in.raw(sizeof request).data(), sizeof request);
    const s11_8::RepeatedOutputs outputs = s11_8::SCANLAB_LINKED_ENTRY(repeated_launches)(request);
    out.u64(outputs.digests.size());
    for (std::uint64_t d : outputs.digests) out.u64(d);
    out.u64(outputs.outputs.size());
    for (const std::string& o : outputs.outputs) out.str(o);
    out.str(outputs.error);
  });
  return remote::serve(entries);
}

#endif
