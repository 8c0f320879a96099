// scanlab_bench: section 11.8 for double elements (see lookback.hpp).
#include <cstdint>

#include "lookback.hpp"

namespace scanlab::bench {
Contenders lookback_contenders_double(bool sweep, unsigned spin_ns) { return make_lookback<double>(sweep, spin_ns); }
}  // namespace scanlab::bench
