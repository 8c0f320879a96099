// The grader's channel format (scanlab/remote.hpp): fixed-size numbers in the machine's byte order
// (both ends are built by one build, on one machine) and length-prefixed strings.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <regex>

#include "scanlab/remote.hpp"
#include "scanlab/types.hpp"

namespace scanlab::remote {

void Writer::request(const RunRequest& r) {
  u64(static_cast<std::uint64_t>(r.problem.type));
  u64(static_cast<std::uint64_t>(r.problem.op));
  u64(static_cast<std::uint64_t>(r.problem.kind));
  u64(r.problem.n);
  u64(r.problem.in_place);
  u64(static_cast<std::uint64_t>(r.reps));
  u64(r.trace);
  // In place, the input is what the output holds now (one array).
  const void* input = r.problem.in_place ? r.output : r.input;
  const std::size_t bytes = r.problem.n * size_of(r.problem.type);
  u64(bytes);
  if (bytes) raw(input, bytes);
}

void Writer::result(const RunResult& r) {
  u64(r.times_ms.size());
  for (double t : r.times_ms) f64(t);
  u64(r.launches.size());
  for (const LaunchStats& l : r.launches) {
    str(l.kernel);
    u64(l.grid_blocks);
    u64(l.block_threads);
    u64(l.ops);
    u64(l.barrier_intervals);
    u64(l.intervals.size());
    for (const IntervalStats& i : l.intervals) {
      u64(i.block);
      u64(i.threads_applying);
      u64(i.warps_applying);
      u64(i.ops);
      u64(i.max_ops_per_thread);
    }
    u64(l.trace.size());
    for (const TraceFrame& f : l.trace) {
      u64(f.block);
      u64(f.step);
      str(f.name);
      str(f.where);
      u64(f.values.size());
      for (const std::string& v : f.values) str(v);
    }
  }
}

bool read_all(int fd, void* p, std::size_t n) {
  auto* at = static_cast<char*>(p);
  while (n) {
    const ssize_t got = ::read(fd, at, n);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    at += got;
    n -= static_cast<std::size_t>(got);
  }
  return true;
}

bool write_all(int fd, const void* p, std::size_t n) {
  const auto* at = static_cast<const char*>(p);
  while (n) {
    const ssize_t put = ::write(fd, at, n);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return false;
    at += put;
    n -= static_cast<std::size_t>(put);
  }
  return true;
}

std::string_view Reader::raw(std::size_t n) {
  if (n > bytes_.size() - at_) throw Garbled("a message ended early");
  const std::string_view out = bytes_.substr(at_, n);
  at_ += n;
  return out;
}

std::uint64_t Reader::u64() {
  std::uint64_t v;
  std::memcpy(&v, raw(sizeof v).data(), sizeof v);
  return v;
}

double Reader::f64() {
  double v;
  std::memcpy(&v, raw(sizeof v).data(), sizeof v);
  return v;
}

std::string Reader::blob() { return std::string(raw(u64())); }

std::string Reader::str() {
  std::string text(raw(u64()));
  return defused_ ? defused(text) : text;
}

std::string defused(const std::string& text) {
  static const std::regex marker(R"(\[( +[A-Z]+ *|=+|-+)\])");
  return std::regex_replace(text, marker, "($1)");
}

namespace {
// A count read from the channel, before anything is made that many times: each item takes at least
// `least` bytes, so a count the rest of the message cannot hold is garbage, not an allocation.
std::size_t count(Reader& in, std::size_t left, std::size_t least) {
  const std::uint64_t n = in.u64();
  if (n > left / least) throw Garbled("a count larger than its message");
  return static_cast<std::size_t>(n);
}

template <class Enum>
Enum enum_value(std::uint64_t v, std::uint64_t count) {
  if (v >= count) throw Garbled("an unknown type, operator or kind");
  return static_cast<Enum>(v);
}
}  // namespace

RunRequest Reader::request(std::string& storage) {
  RunRequest r;
  r.problem.type = enum_value<DType>(u64(), std::size(kAllTypes));
  r.problem.op = enum_value<OpKind>(u64(), std::size(kAllOps));
  r.problem.kind = enum_value<ScanKind>(u64(), std::size(kAllKinds));
  r.problem.n = u64();
  r.problem.in_place = u64() != 0;
  r.reps = static_cast<int>(u64());
  r.trace = u64() != 0;
  const std::uint64_t bytes = u64();
  if (bytes != r.problem.n * size_of(r.problem.type)) throw Garbled("an input of the wrong size");
  storage.assign(raw(bytes));
  r.input = storage.data();
  return r;
}

RunResult Reader::result() {
  RunResult r;
  const std::size_t left = bytes_.size() - at_;
  r.times_ms.resize(count(*this, left, 8));
  for (double& t : r.times_ms) t = f64();
  r.launches.resize(count(*this, left, 8));
  for (LaunchStats& l : r.launches) {
    l.kernel = str();
    l.grid_blocks = static_cast<std::uint32_t>(u64());
    l.block_threads = static_cast<std::uint32_t>(u64());
    l.ops = u64();
    l.barrier_intervals = u64();
    l.intervals.resize(count(*this, left, 40));
    for (IntervalStats& i : l.intervals) {
      i.block = static_cast<std::uint32_t>(u64());
      i.threads_applying = static_cast<std::uint32_t>(u64());
      i.warps_applying = static_cast<std::uint32_t>(u64());
      i.ops = u64();
      i.max_ops_per_thread = u64();
    }
    l.trace.resize(count(*this, left, 40));
    for (TraceFrame& f : l.trace) {
      f.block = static_cast<std::uint32_t>(u64());
      f.step = static_cast<std::uint32_t>(u64());
      f.name = str();
      f.where = str();
      f.values.resize(count(*this, left, 8));
      for (std::string& v : f.values) v = str();
    }
  }
  return r;
}

}  // namespace scanlab::remote
