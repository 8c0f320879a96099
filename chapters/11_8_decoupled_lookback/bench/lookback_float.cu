// scanlab_bench: section 11.8 for float elements (see lookback.hpp).
#include <cstdint>

#include "lookback.hpp"

namespace scanlab::bench {
Contenders lookback_contenders_float(bool sweep, unsigned spin_ns) { return make_lookback<float>(sweep, spin_ns); }
}  // namespace scanlab::bench
