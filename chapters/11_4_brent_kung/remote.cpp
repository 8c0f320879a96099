// The grader's two processes for section 11.4 (scanlab/remote.hpp): compiled into the checker, where it
// stands in for the kernel library's entry points (same names) and sends each call to the runner; and
// into the runner, as its main, which answers those calls with the student's kernels.
#include "algorithms.hpp"
#include "scanlab/remote.hpp"

#if defined(SCANLAB_REMOTE_CHECKER)

namespace scanlab::s11_4 {
AlgorithmTable SCANLAB_LINKED_ENTRY(algorithms)() {
  return remote::table(SCANLAB_LINKED_BACKEND, "algorithms", kAlgorithmInfo);
}
}  // namespace scanlab::s11_4

#else

int main() {
  using namespace scanlab;
  remote::Entries entries;
  remote::add_table(entries, "algorithms", s11_4::SCANLAB_LINKED_ENTRY(algorithms)());
  return remote::serve(entries);
}

#endif
