// scanlab_11_8_statuses FILE [TILES [RESIDENT]]: writes the tickets, flags and tile statuses of 11.7's
// domino and 11.8's decoupled look-back over time as JSON (see statuses.cpp), which
// plots/make_plots.py draws as the status figures of sections 11.7 and 11.8's pages.
// TILES tiles (default 8), RESIDENT blocks resident at once (default 4).
#include <cstdio>
#include <cstdlib>

extern "C" int scanlab_11_8_write_statuses(const char* path, unsigned tiles, unsigned resident);

int main(int argc, char** argv) {
  if (argc < 2 || argc > 4) {
    std::fprintf(stderr, "usage: scanlab_11_8_statuses FILE.json [TILES [RESIDENT]]\n");
    return 2;
  }
  const auto number = [&](int i, unsigned fallback) {
    return argc > i ? static_cast<unsigned>(std::strtoul(argv[i], nullptr, 10)) : fallback;
  };
  return scanlab_11_8_write_statuses(argv[1], number(2, 8u), number(3, 4u));
}
