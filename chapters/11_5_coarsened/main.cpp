// Section 11.5: the coarsened three-phase scan as a program. Run with --help for the options.
#include "algorithms.hpp"
#include "scanlab/program.hpp"

int main(int argc, char** argv) {
  return scanlab::section_main(argc, argv, {"11.5", "coarsened three-phase scan", 2048},
                               scanlab::s11_5::linked_tables());
}
