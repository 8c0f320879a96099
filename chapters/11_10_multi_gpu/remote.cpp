// The grader's two processes for section 11.10 (scanlab/remote.hpp): compiled into the checker, where it
// stands in for the kernel library's entry points (same names) and sends each call to the runner; and
// into the runner, as its main, which answers those calls with the student's kernels.
#include "multi_gpu_algorithms.hpp"
#include "scanlab/remote.hpp"

#if defined(SCANLAB_REMOTE_CHECKER)

namespace scanlab::s11_10 {
AlgorithmTable SCANLAB_LINKED_ENTRY(algorithms)() {
  return remote::table(SCANLAB_LINKED_BACKEND, "algorithms", kAlgorithmInfo);
}
AlgorithmTable SCANLAB_LINKED_ENTRY(test_algorithms)() {
  return remote::table(SCANLAB_LINKED_BACKEND, "test_algorithms", kTestAlgorithmInfo);
}
}  // namespace scanlab::s11_10

#else

int main() {
  using namespace scanlab;
  remote::Entries entries;
  remote::add_table(entries, "algorithms", s11_10::SCANLAB_LINKED_ENTRY(algorithms)());
  remote::add_table(entries, "test_algorithms", s11_10::SCANLAB_LINKED_ENTRY(test_algorithms)());
  return remote::serve(entries);
}

#endif
