// Section 11.1: the sequential scan as a program. Run with --help for the options.
#include "algorithms.hpp"
#include "scanlab/program.hpp"

int main(int argc, char** argv) {
  return scanlab::section_main(argc, argv, {"11.1", "sequential scan", 1u << 16},
                               scanlab::s11_1::linked_tables());
}
