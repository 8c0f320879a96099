// Section 11.3's model (model.hpp), three ways, chosen by CMake:
//   SCANLAB_MODEL_DIRECT   the solution's tests: each function calls work_model.hpp's.
//   SCANLAB_REMOTE_CHECKER the checker: each function sends its arguments to the runner
//                          (scanlab/remote.hpp) and reads back one number.
//   SCANLAB_REMOTE_RUNNER  the runner's main: answers those calls with the student's work_model.hpp.
// Only the runner and the direct side include work_model.hpp.
#include "model.hpp"

#include <string>
#include <vector>

#if defined(SCANLAB_REMOTE_CHECKER) || defined(SCANLAB_REMOTE_RUNNER)
#include "scanlab/remote.hpp"
#endif
#if !defined(SCANLAB_REMOTE_CHECKER)
#include "work_model.hpp"
#endif

namespace scanlab::s11_3::model {
namespace {

// An interval on the channel, as a RunResult of one launch that holds it (launches carry intervals).
#if defined(SCANLAB_REMOTE_CHECKER)
void put(remote::Writer& out, const IntervalStats& i) {
  RunResult r;
  r.launches.emplace_back().intervals.push_back(i);
  out.result(r);
}
#endif
#if defined(SCANLAB_REMOTE_RUNNER)
IntervalStats get_interval(remote::Reader& in) {
  const RunResult r = in.result();
  if (r.launches.size() != 1 || r.launches[0].intervals.size() != 1) throw remote::Garbled("not one interval");
  return r.launches[0].intervals[0];
}
#endif

#if !defined(SCANLAB_REMOTE_CHECKER)
s11_3::Phase2 to_model(Phase2 p) { return p == Phase2::kogge_stone ? s11_3::Phase2::kogge_stone : s11_3::Phase2::brent_kung; }
s11_3::Granularity to_model(Granularity g) {
  return g == Granularity::thread ? s11_3::Granularity::thread : s11_3::Granularity::warp;
}
#endif

#if defined(SCANLAB_REMOTE_CHECKER)
// One call to the runner: `entry` with the arguments `args` wrote; its one number back.
std::uint64_t ask(const char* entry, const remote::Writer& args) {
  const std::string answer = remote::call(entry, args.bytes());
  remote::Reader in(answer);
  const std::uint64_t value = in.u64();
  if (!in.done()) throw remote::RunnerFailed(std::string("the model's process garbled its answer to ") + entry);
  return value;
}
#endif

}  // namespace

#if defined(SCANLAB_REMOTE_CHECKER)

std::uint64_t work_sequential(std::uint64_t N) {
  remote::Writer a;
  a.u64(N);
  return ask("work_sequential", a);
}
std::uint64_t work_kogge_stone(std::uint64_t N) {
  remote::Writer a;
  a.u64(N);
  return ask("work_kogge_stone", a);
}
std::uint64_t work_brent_kung(std::uint64_t N) {
  remote::Writer a;
  a.u64(N);
  return ask("work_brent_kung", a);
}
std::uint64_t work_coarsened(std::uint64_t N, std::uint64_t T, Phase2 phase2) {
  remote::Writer a;
  a.u64(N);
  a.u64(T);
  a.u64(static_cast<std::uint64_t>(phase2));
  return ask("work_coarsened", a);
}
std::uint64_t idle_lanes(const IntervalStats& interval) {
  remote::Writer a;
  put(a, interval);
  return ask("idle_lanes", a);
}
std::uint64_t interval_steps(const IntervalStats& interval, std::uint64_t P, Granularity granularity) {
  remote::Writer a;
  put(a, interval);
  a.u64(P);
  a.u64(static_cast<std::uint64_t>(granularity));
  return ask("interval_steps", a);
}
std::uint64_t steps_with_units(std::span<const LaunchStats> launches, std::uint64_t P, Granularity granularity) {
  remote::Writer a;
  RunResult r;
  r.launches.assign(launches.begin(), launches.end());
  a.result(r);
  a.u64(P);
  a.u64(static_cast<std::uint64_t>(granularity));
  return ask("steps_with_units", a);
}

#elif defined(SCANLAB_MODEL_DIRECT)

std::uint64_t work_sequential(std::uint64_t N) { return s11_3::work_sequential(N); }
std::uint64_t work_kogge_stone(std::uint64_t N) { return s11_3::work_kogge_stone(N); }
std::uint64_t work_brent_kung(std::uint64_t N) { return s11_3::work_brent_kung(N); }
std::uint64_t work_coarsened(std::uint64_t N, std::uint64_t T, Phase2 phase2) {
  return s11_3::work_coarsened(N, T, to_model(phase2));
}
std::uint64_t idle_lanes(const IntervalStats& interval) { return s11_3::idle_lanes(interval); }
std::uint64_t interval_steps(const IntervalStats& interval, std::uint64_t P, Granularity granularity) {
  return s11_3::interval_steps(interval, P, to_model(granularity));
}
std::uint64_t steps_with_units(std::span<const LaunchStats> launches, std::uint64_t P, Granularity granularity) {
  return s11_3::steps_with_units(launches, P, to_model(granularity));
}

#endif
}  // namespace scanlab::s11_3::model

#if defined(SCANLAB_REMOTE_RUNNER)

int main() {
  using namespace scanlab;
  using namespace scanlab::s11_3::model;
  remote::Entries e;
  const auto one = [&e](const char* name, std::uint64_t (*f)(std::uint64_t)) {
    e.emplace_back(name, [f](remote::Reader& in, remote::Writer& out) { out.u64(f(in.u64())); });
  };
  one("work_sequential", [](std::uint64_t N) { return s11_3::work_sequential(N); });
  one("work_kogge_stone", [](std::uint64_t N) { return s11_3::work_kogge_stone(N); });
  one("work_brent_kung", [](std::uint64_t N) { return s11_3::work_brent_kung(N); });
  e.emplace_back("work_coarsened", [](remote::Reader& in, remote::Writer& out) {
    const std::uint64_t N = in.u64(), T = in.u64();
    out.u64(s11_3::work_coarsened(N, T, to_model(static_cast<Phase2>(in.u64()))));
  });
  e.emplace_back("idle_lanes", [](remote::Reader& in, remote::Writer& out) { out.u64(s11_3::idle_lanes(get_interval(in))); });
  e.emplace_back("interval_steps", [](remote::Reader& in, remote::Writer& out) {
    const IntervalStats interval = get_interval(in);
    const std::uint64_t P = in.u64();
    out.u64(s11_3::interval_steps(interval, P, to_model(static_cast<Granularity>(in.u64()))));
  });
  e.emplace_back("steps_with_units", [](remote::Reader& in, remote::Writer& out) {
    const RunResult r = in.result();
    const std::uint64_t P = in.u64();
    out.u64(s11_3::steps_with_units(r.launches, P, to_model(static_cast<Granularity>(in.u64()))));
  });
  return remote::serve(e);
}

#endif
