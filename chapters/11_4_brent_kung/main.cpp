// Section 11.4: the Brent-Kung scan as a program. Run with --help for the options.
#include "algorithms.hpp"
#include "scanlab/program.hpp"

int main(int argc, char** argv) {
  return scanlab::section_main(argc, argv, {"11.4", "Brent-Kung scan", 2048}, scanlab::s11_4::linked_tables());
}
