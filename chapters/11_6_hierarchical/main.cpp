// Section 11.6: the hierarchical scan of arrays of any length, as a program. Run with --help.
#include "algorithms.hpp"
#include "scanlab/program.hpp"

int main(int argc, char** argv) {
  return scanlab::section_main(argc, argv, {"11.6", "hierarchical scan", 1u << 20, SCANLAB_GIVEN_NOTE},
                               scanlab::s11_6::linked_tables());
}
