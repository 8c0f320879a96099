// scanlab_11_4_banks FILE [THREADS]: writes the shared-memory addresses of the Brent-Kung trees as JSON (see
// banks.cpp), which plots/make_plots.py draws as the bank diagram of section 11.4's page.
// A block of THREADS threads (default 1024, one 2048-element section).
#include <cstdio>
#include <cstdlib>

extern "C" int scanlab_11_4_write_banks(const char* path, unsigned threads);

int main(int argc, char** argv) {
  if (argc != 2 && argc != 3) {
    std::fprintf(stderr, "usage: scanlab_11_4_banks FILE.json [THREADS]\n");
    return 2;
  }
  return scanlab_11_4_write_banks(argv[1], argc == 3 ? static_cast<unsigned>(std::strtoul(argv[2], nullptr, 10)) : 1024u);
}
