// The grader's two processes for section 11.2 (scanlab/remote.hpp): compiled into the checker, where it
// stands in for the kernel library's entry points (same names) and sends each call to the runner; and
// into the runner, as its main, which answers those calls with the student's kernels.
#include <cstring>
#include <string>

#include "algorithms.hpp"
#include "scanlab/error.hpp"
#include "scanlab/remote.hpp"
#include "scanlab/types.hpp"

namespace {
// Bytes of the section totals of `request` (ceil(n / section) elements).
std::size_t totals_bytes(const scanlab::RunRequest& request, unsigned section) {
  const std::size_t n = request.problem.n;
  return (section ? (n + section - 1) / section : 0) * scanlab::size_of(request.problem.type);
}
}  // namespace

#if defined(SCANLAB_REMOTE_CHECKER)

namespace scanlab::s11_2 {

AlgorithmTable SCANLAB_LINKED_ENTRY(algorithms)() {
  return remote::table(SCANLAB_LINKED_BACKEND, "algorithms", kAlgorithmInfo);
}

RunResult SCANLAB_LINKED_ENTRY(scan_sections)(std::string_view algorithm, const RunRequest& request,
                                              unsigned section, void* totals) {
  remote::Writer args;
  args.str(algorithm);
  args.u64(section);
  std::string sums;
  RunResult result = remote::run("scan_sections", request, args.bytes(), &sums);
  if (sums.size() != totals_bytes(request, section)) {
    throw remote::RunnerFailed("the kernels' process sent section totals of the wrong size");
  }
  if (!sums.empty()) std::memcpy(totals, sums.data(), sums.size());
  return result;
}

}  // namespace scanlab::s11_2

#else

int main() {
  using namespace scanlab;
  remote::Entries entries;
  remote::add_table(entries, "algorithms", s11_2::SCANLAB_LINKED_ENTRY(algorithms)());
  entries.emplace_back("scan_sections", [](remote::Reader& in, remote::Writer& out) {
    const std::string algorithm = in.str();
    const auto section = static_cast<unsigned>(in.u64());
    std::string input;
    RunRequest request = in.request(input);
    std::string output = request.problem.in_place ? input : std::string(input.size(), '\0');
    if (request.problem.in_place) request.input = output.data();
    request.output = output.data();
    std::string totals(totals_bytes(request, section), '\0');
    const RunResult result = s11_2::SCANLAB_LINKED_ENTRY(scan_sections)(algorithm, request, section, totals.data());
    remote::answer(out, request, output.size(), result, &totals);
  });
  return remote::serve(entries);
}

#endif
