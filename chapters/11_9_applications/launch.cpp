// Section 11.9: host code that runs each application on this backend (upload, poison, run, download,
// time), compiled once per backend from this one source. You do not need to change this file: the
// applications are in applications_host.hpp and applications.cuh.
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "applications_host.hpp"
#include "apps.hpp"
#include "persistent_select.hpp"

namespace scanlab::s11_9 {
namespace {

template <class T>
std::string format(T v) {
  char buffer[32];
  if constexpr (std::is_floating_point_v<T>) {
    std::snprintf(buffer, sizeof buffer, "%g", static_cast<double>(v));
  } else if constexpr (std::is_signed_v<T>) {
    std::snprintf(buffer, sizeof buffer, "%lld", static_cast<long long>(v));
  } else {
    std::snprintf(buffer, sizeof buffer, "%llu", static_cast<unsigned long long>(v));
  }
  return buffer;
}

/// `count` elements of a device array, downloaded.
template <class T>
std::vector<T> downloaded(const T* d, std::size_t count) {
  std::vector<T> host(count);
#if defined(SCANLAB_BACKEND_CUDA)
  if (count > 0) SCANLAB_CUDA_CHECK(cudaMemcpy(host.data(), d, count * sizeof(T), cudaMemcpyDeviceToHost));
#else
  if (count > 0) std::memcpy(host.data(), d, count * sizeof(T));
#endif
  return host;
}

/// Uploads `count` elements to a device array.
template <class T>
void upload_to(T* d, const T* host, std::size_t count) {
#if defined(SCANLAB_BACKEND_CUDA)
  if (count > 0) SCANLAB_CUDA_CHECK(cudaMemcpy(d, host, count * sizeof(T), cudaMemcpyHostToDevice));
#else
  if (count > 0) std::memcpy(d, host, count * sizeof(T));
#endif
}

/// Downloads `count` elements of a device array, formatted, for --trace.
template <class T>
std::vector<std::string> formatted(const T* d, std::size_t count) {
  std::vector<std::string> out;
  for (const T& v : downloaded(d, count)) out.push_back(format(v));
  return out;
}

template <class T>
T read_one(const T* d) {
  T v{};
#if defined(SCANLAB_BACKEND_CUDA)
  SCANLAB_CUDA_CHECK(cudaMemcpy(&v, d, sizeof(T), cudaMemcpyDeviceToHost));
#else
  std::memcpy(&v, d, sizeof(T));
#endif
  return v;
}

/// The verified run (with the emulator's counts), then, with reps, a warm-up and reps timed runs.
template <class F>
void run_and_time(const Request& request, Result& result, F&& run_once) {
  result.launches = run_counted(false, run_once);  // (run_app traces the arrays, not the launches)
  time_runs(request, result.times_ms, run_once);
}

template <class T>
void take_output(Result& result, const DeviceBuffer<T>& d, std::size_t count) {
  result.output.resize(count * sizeof(T));
  std::vector<T> host(d.size());
  d.download(host.data());
  std::memcpy(result.output.data(), host.data(), count * sizeof(T));
}

template <class T>
Result run_select(const Request& r) {
  const std::size_t n = r.n;
  const bool partition =
      r.app == App::partition || r.app == App::partition_single_pass || r.app == App::partition_persistent;
  const bool persistent = r.app == App::compact_persistent || r.app == App::partition_persistent;
  // (single pass: the kept and the rejected elements in two arrays)
  const bool single_pass = persistent || r.app == App::compact_single_pass || r.app == App::partition_single_pass;
  const Below<T> pred{static_cast<T>(r.pivot)};
  require_memory(3 * n * sizeof(T) + SelectWorkspace::bytes(n) + FusedWorkspace::bytes(n));
  // (misaligned: each array starts one element, 4 or 8 bytes, into its buffer)
  const std::size_t skip = r.misaligned ? 1 : 0;
  DeviceBuffer<T> in_buffer(n + skip), out_buffer(n + skip), rejected_buffer(single_pass && partition ? n + skip : 0);
  in_buffer.poison();
  out_buffer.poison();
  rejected_buffer.poison();
  Result result;
  if (n == 0) return result;
  T* const in = in_buffer.data() + skip;
  T* const out = out_buffer.data() + skip;
  T* const rejected = single_pass && partition ? rejected_buffer.data() + skip : nullptr;
  upload_to(in, static_cast<const T*>(r.input), n);
  if (single_pass) {
    FusedWorkspace ws(n, std::min(FusedWorkspace::kSmallestTile, persistent_select_tile<T>()));
    run_and_time(r, result, [&] {
      if (persistent) {
        select_persistent(static_cast<const T*>(in), out, rejected, n, pred, ws, r.max_blocks);
      } else {
        select_single_pass(static_cast<const T*>(in), out, rejected, n, pred, ws);
      }
    });
    result.count = read_one(ws.count.data());
    if (r.trace) result.steps.push_back({"kept count (from the look-back)", {format(result.count)}});
  } else {
    SelectWorkspace ws(n);
    run_and_time(r, result, [&] { select_three_step(static_cast<const T*>(in), out, n, pred, partition, ws); });
    result.count = read_one(ws.count.data());
    if (r.trace) {
      result.steps.push_back({"flags (x < pivot)", formatted(ws.flags.data(), n)});
      result.steps.push_back({"exclusive scan of the flags", formatted(ws.offsets.data(), n)});
    }
  }
  const std::size_t kept = std::min(result.count, n);
  const std::vector<T> host = downloaded(static_cast<const T*>(out), n);
  result.output.resize((partition ? n : kept) * sizeof(T));
  std::memcpy(result.output.data(), host.data(), (partition && !single_pass ? n : kept) * sizeof(T));
  if (single_pass && partition) {
    // The rejected elements, from their own array, after the kept ones.
    const std::vector<T> rest = downloaded(static_cast<const T*>(rejected), n - kept);
    std::memcpy(result.output.data() + kept * sizeof(T), rest.data(), (n - kept) * sizeof(T));
  }
  return result;
}

Result run_radix(const Request& r) {
  const std::size_t n = r.n;
  require_memory(3 * n * sizeof(Count) + SelectWorkspace::bytes(n));
  DeviceBuffer<Count> keys(n), other(n), original(n);
  original.upload(static_cast<const Count*>(r.input));
  Result result;
  if (n == 0) return result;
  SelectWorkspace ws(n);
  run_and_time(r, result, [&] {
    // Every run sorts the original keys (the timed ones include this copy: one read, one write).
    launch(copy_kernel<Count>, {"copy_kernel", grid_for(n), dim3(kThreads)}, static_cast<const Count*>(original.data()),
           keys.data(), n);
    radix_sort(keys.data(), other.data(), n, ws);
  });
  if (r.trace) {
    // The first split again, on the original keys, for the trace.
    select_three_step(static_cast<const Count*>(original.data()), other.data(), n, BitClear{0}, true, ws);
    result.steps.push_back({"flags of the first split (bit 0 is 0)", formatted(ws.flags.data(), n)});
    result.steps.push_back({"exclusive scan of those flags", formatted(ws.offsets.data(), n)});
    result.steps.push_back({"keys after the first split", formatted(other.data(), n)});
  }
  result.count = n;
  take_output(result, keys, n);
  return result;
}

Result run_allocate(const Request& r) {
  const std::size_t n = r.n;
  const Count* sizes = static_cast<const Count*>(r.input);
  std::uint64_t total = 0;  // to size the output buffer (the device computes the same total itself)
  for (std::size_t i = 0; i < n; ++i) total += sizes[i];
  if (total > 0xffffffffull) throw Error("allocate: the sizes add up to more than 2^32 - 1 slots");
  require_memory(2 * n * sizeof(Count) + total * sizeof(Count) + CountScan::workspace_bytes(n));
  DeviceBuffer<Count> d_sizes(n), starts(n), out(total), d_total(1);
  d_sizes.upload(sizes);
  out.poison();
  Result result;
  if (n == 0) return result;
  CountScan scan(n);
  run_and_time(r, result, [&] {
    allocate(static_cast<const Count*>(d_sizes.data()), starts.data(), n, out.data(), d_total.data(), scan);
  });
  result.count = read_one(d_total.data());
  if (r.trace) {
    result.steps.push_back({"sizes k_i", formatted(d_sizes.data(), n)});
    result.steps.push_back({"starts: exclusive scan of k", formatted(starts.data(), n)});
  }
  take_output(result, out, std::min<std::size_t>(result.count, total));
  return result;
}

template <class T, class Op>
Result run_segmented(const Request& r) {
  const std::size_t n = r.n;
  require_memory(2 * n * sizeof(T) + n * sizeof(Count) + SegmentedWorkspace<T>::bytes(n));
  DeviceBuffer<T> x(n), y(n);
  DeviceBuffer<Count> heads(n);
  x.upload(static_cast<const T*>(r.input));
  heads.upload(r.heads);
  y.poison();
  Result result;
  if (n == 0) return result;
  SegmentedWorkspace<T> ws(n);
  const bool exclusive = r.kind == ScanKind::exclusive;
  run_and_time(r, result, [&] { segmented_scan(static_cast<const T*>(x.data()), heads.data(), y.data(), n, Op{}, exclusive, ws); });
  if (r.trace) {
    // The pairs the scan combines, from the device's arrays: (head flag, value) per element.
    const std::vector<std::string> flags = formatted(heads.data(), n), values = formatted(x.data(), n);
    std::vector<std::string> pairs;
    for (std::size_t i = 0; i < n; ++i) pairs.push_back("(" + flags[i] + "," + values[i] + ")");
    result.steps.push_back({"head flags", flags});
    result.steps.push_back({"(head, value) pairs", pairs});
  }
  result.count = n;
  take_output(result, y, n);
  return result;
}

Result run(const Request& r) {
  require_backend();
  switch (r.app) {
    case App::radix_sort:
    case App::allocate:
      if (r.type != DType::uint32) throw Error("radix_sort and allocate take uint32 keys and sizes");
      return r.app == App::radix_sort ? run_radix(r) : run_allocate(r);
    case App::segmented_scan:
      return visit_type_op(r.type, r.op, [&](auto type, auto op) {
        return run_segmented<typename decltype(type)::type, decltype(op)>(r);
      });
    default:
      return visit_type(r.type, [&](auto type) { return run_select<typename decltype(type)::type>(r); });
  }
}

}  // namespace

Result SCANLAB_FOR_BACKEND(run_app)(const Request& request) {
#if defined(SCANLAB_BACKEND_CPU)
  const bool traced = emu::settings().trace;
  emu::settings().trace = false;  // the trace here is of global arrays, between launches
  try {
    Result result = run(request);
    emu::settings().trace = traced;
    return result;
  } catch (...) {
    emu::settings().trace = traced;
    throw;
  }
#else
  return run(request);
#endif
}

std::string SCANLAB_FOR_BACKEND(device)() { return device_description(); }

}  // namespace scanlab::s11_9
