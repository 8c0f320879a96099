// scanlab_bench: section 11.8 for int32 elements (see lookback.hpp).
#include <cstdint>

#include "lookback.hpp"

namespace scanlab::bench {
Contenders lookback_contenders_int32(bool sweep, unsigned spin_ns) { return make_lookback<std::int32_t>(sweep, spin_ns); }
}  // namespace scanlab::bench
