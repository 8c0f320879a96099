// Section 11.2: the Kogge-Stone scans as a program. Run with --help for the options.
#include "algorithms.hpp"
#include "scanlab/program.hpp"

int main(int argc, char** argv) {
  return scanlab::section_main(argc, argv, {"11.2", "Kogge-Stone scan", 1024},
                               scanlab::s11_2::linked_tables());
}
