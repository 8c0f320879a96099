// Section 11.7: the single-pass (domino) scan, as a program. Run with --help.
#include "algorithms.hpp"
#include "scanlab/program.hpp"

int main(int argc, char** argv) {
  return scanlab::section_main(argc, argv, {"11.7", "single-pass scan", 1u << 20, SCANLAB_GIVEN_NOTE},
                               scanlab::s11_7::linked_tables());
}
