// Section 11.8: the decoupled look-back scan as a program. Run with --help for the options.
#include "algorithms.hpp"
#include "scanlab/program.hpp"

int main(int argc, char** argv) {
  return scanlab::section_main(argc, argv, {"11.8", "decoupled look-back scan (beyond the book)", 1u << 20},
                               scanlab::s11_8::linked_tables());
}
