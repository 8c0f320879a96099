// Section 11.10: a scan across the GPUs of one host, as a program. Run with --help for the options.
#include "multi_gpu_algorithms.hpp"
#include "scanlab/program.hpp"

int main(int argc, char** argv) {
  return scanlab::section_main(argc, argv, {"11.10", "scan across GPUs (beyond the book)", 1u << 20, SCANLAB_GIVEN_NOTE},
                               scanlab::s11_10::linked_tables());
}
