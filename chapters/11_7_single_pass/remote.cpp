// The grader's two processes for section 11.7 (scanlab/remote.hpp): compiled into the checker, where it
// stands in for the kernel library's entry points (same names) and sends each call to the runner; and
// into the runner, as its main, which answers those calls with the student's kernels.
#include <algorithm>
#include <string>

#include "algorithms.hpp"
#include "scanlab/remote.hpp"

#if defined(SCANLAB_REMOTE_CHECKER)

namespace scanlab::s11_7 {

AlgorithmTable SCANLAB_LINKED_ENTRY(algorithms)() {
  return remote::table(SCANLAB_LINKED_BACKEND, "algorithms", algorithm_info(SCANLAB_LINKED_BACKEND));
}
AlgorithmTable SCANLAB_LINKED_ENTRY(test_algorithms)() {
  return remote::table(SCANLAB_LINKED_BACKEND, "test_algorithms", test_algorithm_info(SCANLAB_LINKED_BACKEND));
}

// The request's arrays hold reps * n elements: sent as one request of that size, with n before it.
RunResult SCANLAB_LINKED_ENTRY(repeated_launches)(const RunRequest& request) {
  RunRequest all = request;
  all.problem.n = request.problem.n * static_cast<std::size_t>(std::max(request.reps, 0));
  remote::Writer args;
  args.u64(request.problem.n);
  return remote::run("repeated_launches", all, args.bytes());
}

}  // namespace scanlab::s11_7

#else

int main() {
  using namespace scanlab;
  remote::Entries entries;
  remote::add_table(entries, "algorithms", s11_7::SCANLAB_LINKED_ENTRY(algorithms)());
  remote::add_table(entries, "test_algorithms", s11_7::SCANLAB_LINKED_ENTRY(test_algorithms)());
  entries.emplace_back("repeated_launches", [](remote::Reader& in, remote::Writer& out) {
    const std::size_t n = in.u64();
    std::string input;
    RunRequest request = in.request(input);
    std::string output(input.size(), '\0');
    request.output = output.data();
    request.problem.n = n;
    remote::answer(out, request, output.size(), s11_7::SCANLAB_LINKED_ENTRY(repeated_launches)(request));
  });
  return remote::serve(entries);
}

#endif
