// scanlab_bench: section 11.9's applications against their CUB counterparts, in the same run as the
// scans: stream compaction (cub::DeviceSelect::If), partition (cub::DevicePartition::If) and
// segmented scan (cub::DeviceScan::InclusiveSumByKey), with section 11.9's single-pass and three-step
// forms. The predicate keeps x < 0, about half of make_input's add inputs (uniform in [-100, 100] or
// [-1, 1]). Each contender checks its own output (check()), and counts the bytes its job must move
// (bytes_moved(): the input read, and what is kept, or everything, written) for GB/s.
#include <cub/device/device_partition.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <vector>

#include "applications_host.hpp"
#include "contender.hpp"
#include "persistent_select.hpp"
#include "scanlab/error.hpp"

namespace scanlab::bench {
namespace {

using s11_9::Below;
using s11_9::Count;

/// Device memory of one type that grows on demand and is kept (never allocated in a timed region).
template <class T>
class Buffer {
 public:
  ~Buffer() {
    if (data_ != nullptr) cudaFree(data_);
  }
  T* get(std::size_t count) {
    if (count > count_) {
      if (data_ != nullptr) SCANLAB_CUDA_CHECK(cudaFree(data_));
      data_ = nullptr;
      SCANLAB_CUDA_CHECK(cudaMalloc(&data_, std::max<std::size_t>(count, 1) * sizeof(T)));
      count_ = count;
    }
    return data_;
  }
  std::vector<T> download(std::size_t count) const {
    std::vector<T> host(count);
    if (count > 0) SCANLAB_CUDA_CHECK(cudaMemcpy(host.data(), data_, count * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

template <class T>
std::vector<T> download(const void* d, std::size_t count) {
  std::vector<T> host(count);
  if (count > 0) SCANLAB_CUDA_CHECK(cudaMemcpy(host.data(), d, count * sizeof(T), cudaMemcpyDeviceToHost));
  return host;
}

/// "" if `got` (count elements) are the kept elements of x in order, then (partition) the rejected
/// ones in order, or reversed (`reversed_rest`, CUB's partition).
template <class T>
std::string check_select(const T* x, std::size_t n, std::size_t count, const std::vector<T>& kept,
                         const std::vector<T>* rest, bool reversed_rest) {
  std::vector<T> want_kept, want_rest;
  for (std::size_t i = 0; i < n; ++i) (x[i] < T(0) ? want_kept : want_rest).push_back(x[i]);
  if (count != want_kept.size()) {
    return "kept " + std::to_string(count) + " elements, expected " + std::to_string(want_kept.size());
  }
  if (!std::equal(want_kept.begin(), want_kept.end(), kept.begin())) return "the kept elements differ";
  if (rest != nullptr) {
    if (reversed_rest) std::reverse(want_rest.begin(), want_rest.end());
    if (rest->size() != want_rest.size() || !std::equal(want_rest.begin(), want_rest.end(), rest->begin())) {
      return "the rejected elements differ";
    }
  }
  return "";
}

template <class T>
class CubSelectIf final : public Contender {
 public:
  std::string name() const override { return "cub_select_if"; }
  void prepare(std::size_t n) override {
    bytes_ = 0;
    SCANLAB_CUDA_CHECK(cub::DeviceSelect::If(nullptr, bytes_, static_cast<const T*>(nullptr), static_cast<T*>(nullptr),
                                             static_cast<int*>(nullptr), static_cast<int>(n), Below<T>{T(0)}));
    temp_.get(bytes_);
    count_.get(1);
  }
  void run(const void* d_in, void* d_out, std::size_t n) override {
    std::size_t bytes = bytes_;
    SCANLAB_CUDA_CHECK(cub::DeviceSelect::If(temp_.get(bytes_), bytes, static_cast<const T*>(d_in),
                                             static_cast<T*>(d_out), count_.get(1), static_cast<int>(n),
                                             Below<T>{T(0)}));
  }
  std::optional<std::string> check(const void* input, const void* d_out, std::size_t n) override {
    kept_ = static_cast<std::size_t>(count_.download(1)[0]);
    if (kept_ > n) return "the count " + std::to_string(kept_) + " is more than n";
    return check_select<T>(static_cast<const T*>(input), n, kept_, download<T>(d_out, kept_), nullptr, false);
  }
  double bytes_moved(std::size_t n) const override { return static_cast<double>((n + kept_) * sizeof(T)); }

 private:
  Buffer<unsigned char> temp_;
  Buffer<int> count_;
  std::size_t bytes_ = 0, kept_ = 0;
};

template <class T>
class CubPartitionIf final : public Contender {
 public:
  std::string name() const override { return "cub_partition_if"; }
  void prepare(std::size_t n) override {
    bytes_ = 0;
    SCANLAB_CUDA_CHECK(cub::DevicePartition::If(nullptr, bytes_, static_cast<const T*>(nullptr),
                                                static_cast<T*>(nullptr), static_cast<int*>(nullptr),
                                                static_cast<int>(n), Below<T>{T(0)}));
    temp_.get(bytes_);
    count_.get(1);
  }
  void run(const void* d_in, void* d_out, std::size_t n) override {
    std::size_t bytes = bytes_;
    SCANLAB_CUDA_CHECK(cub::DevicePartition::If(temp_.get(bytes_), bytes, static_cast<const T*>(d_in),
                                                static_cast<T*>(d_out), count_.get(1), static_cast<int>(n),
                                                Below<T>{T(0)}));
  }
  std::optional<std::string> check(const void* input, const void* d_out, std::size_t n) override {
    const std::size_t kept = static_cast<std::size_t>(count_.download(1)[0]);
    if (kept > n) return "the count " + std::to_string(kept) + " is more than n";
    const std::vector<T> all = download<T>(d_out, n);
    const std::vector<T> rest(all.begin() + static_cast<std::ptrdiff_t>(kept), all.end());
    // CUB writes the rejected side from the end: reversed (not stable).
    return check_select(static_cast<const T*>(input), n, kept, all, &rest, true);
  }
  double bytes_moved(std::size_t n) const override { return 2.0 * static_cast<double>(n * sizeof(T)); }

 private:
  Buffer<unsigned char> temp_;
  Buffer<int> count_;
  std::size_t bytes_ = 0;
};

/// "" for the tuned tile shape (Threads 0), else "_<threads>x<items>" (a --sweep shape).
template <int Threads, int Items>
std::string shape_suffix() {
  return Threads == 0 ? "" : "_" + std::to_string(Threads) + "x" + std::to_string(Items);
}

/// Section 11.9's compaction or partition in three steps, in one launch (single pass), or in one launch
/// of resident blocks (persistent).
enum class SelectForm { three_step, single_pass, persistent };

/// Section 11.9's compaction or partition in `form`: the tuned shape (A 0), or (--sweep) the single pass
/// in A threads x B items, the persistent one in A warps x B items x C stages.
template <class T, int A = 0, int B = 0, int C = 0>
class AppSelect final : public Contender {
 public:
  AppSelect(SelectForm form, bool partition) : form_(form), partition_(partition) {}
  std::string name() const override {
    std::string shape;
    if (A != 0) {
      shape = "_" + std::to_string(A) + "x" + std::to_string(B) + (C != 0 ? "x" + std::to_string(C) : "");
    }
    return std::string("11.9/") + (partition_ ? "partition" : "compact") +
           (form_ == SelectForm::single_pass  ? "_single_pass"
            : form_ == SelectForm::persistent ? "_persistent"
                                              : "") +
           shape;
  }
  void prepare(std::size_t n) override {
    if (form_ == SelectForm::single_pass) {
      fused_ = std::make_unique<s11_9::FusedWorkspace>(
          n, A == 0 ? s11_9::FusedWorkspace::kSmallestTile : std::size_t{A} * B);
    } else if (form_ == SelectForm::persistent) {
      fused_ = std::make_unique<s11_9::FusedWorkspace>(
          n, A == 0 ? s11_9::persistent_select_tile<T>() : std::size_t{A} * 32 * B);
    } else {
      three_ = std::make_unique<s11_9::SelectWorkspace>(n);
    }
    if (form_ != SelectForm::three_step && partition_) rejected_.get(n);
  }
  void run(const void* d_in, void* d_out, std::size_t n) override {
    const T* in = static_cast<const T*>(d_in);
    T* out = static_cast<T*>(d_out);
    // (Only the form's own shapes are instantiated: a single-pass sweep shape has C 0, a persistent one not.)
    if (form_ == SelectForm::single_pass) {
      if constexpr (C == 0) {  // (A 0, B 0: select_single_pass's tuned shape)
        s11_9::select_single_pass<A == 0 ? s11_9::kFusedThreads : A, B>(
            in, out, partition_ ? rejected_.get(n) : nullptr, n, Below<T>{T(0)}, *fused_);
      }
    } else if (form_ == SelectForm::persistent) {
      if constexpr (A == 0 || C != 0) {
        s11_9::select_persistent<A, B, C>(in, out, partition_ ? rejected_.get(n) : nullptr, n, Below<T>{T(0)},
                                          *fused_);
      }
    } else {
      s11_9::select_three_step(in, out, n, Below<T>{T(0)}, partition_, *three_);
    }
  }
  std::optional<std::string> check(const void* input, const void* d_out, std::size_t n) override {
    Count count = 0;
    const bool two_arrays = form_ != SelectForm::three_step;  // (kept and rejected)
    SCANLAB_CUDA_CHECK(cudaMemcpy(&count, two_arrays ? fused_->count.data() : three_->count.data(), sizeof(Count),
                                  cudaMemcpyDeviceToHost));
    kept_ = count;
    if (kept_ > n) return "the count " + std::to_string(kept_) + " is more than n";
    std::vector<T> kept = download<T>(d_out, partition_ && !two_arrays ? n : kept_);
    std::vector<T> rest;
    if (partition_) {
      rest = two_arrays ? rejected_.download(n - kept_)
                        : std::vector<T>(kept.begin() + static_cast<std::ptrdiff_t>(kept_), kept.end());
    }
    return check_select(static_cast<const T*>(input), n, kept_, kept, partition_ ? &rest : nullptr, false);
  }
  double bytes_moved(std::size_t n) const override {
    return static_cast<double>((n + (partition_ ? n : kept_)) * sizeof(T));
  }

 private:
  SelectForm form_;
  bool partition_;
  std::unique_ptr<s11_9::FusedWorkspace> fused_;
  std::unique_ptr<s11_9::SelectWorkspace> three_;
  Buffer<T> rejected_;
  std::size_t kept_ = 0;
};

/// Segment heads for the segmented scans: element 0 and about one in 128 others (seeded).
std::vector<Count> bench_heads(std::size_t n) {
  std::mt19937_64 rng(11);
  std::vector<Count> heads(n);
  for (std::size_t i = 0; i < n; ++i) heads[i] = i == 0 || rng() % 128 == 0 ? 1u : 0u;
  return heads;
}

/// "" if `got` is the inclusive segmented sum of x (floats: within 2 (k + 1) eps sum|x|, as 11.9's tests).
template <class T>
std::string check_segmented(const T* x, const std::vector<Count>& heads, const std::vector<T>& got) {
  double sum = 0, magnitude = 0;
  std::size_t terms = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (heads[i] != 0) sum = 0, magnitude = 0, terms = 0;
    sum += static_cast<double>(x[i]);
    magnitude += std::fabs(static_cast<double>(x[i]));
    ++terms;
    const double tolerance =
        std::is_floating_point_v<T> ? 2.0 * (terms + 1) * std::numeric_limits<T>::epsilon() * magnitude : 0.0;
    if (std::fabs(static_cast<double>(got[i]) - sum) > tolerance) return "element " + std::to_string(i) + " differs";
  }
  return "";
}

template <class T>
class CubInclusiveSumByKey final : public Contender {
 public:
  std::string name() const override { return "cub_inclusive_sum_by_key"; }
  void prepare(std::size_t n) override {
    heads_ = bench_heads(n);
    std::vector<Count> keys(n);
    Count key = 0;
    for (std::size_t i = 0; i < n; ++i) keys[i] = key += heads_[i];  // a segment = a run of equal keys
    Count* d_keys = keys_.get(n);
    if (n > 0) SCANLAB_CUDA_CHECK(cudaMemcpy(d_keys, keys.data(), n * sizeof(Count), cudaMemcpyHostToDevice));
    bytes_ = 0;
    SCANLAB_CUDA_CHECK(cub::DeviceScan::InclusiveSumByKey(nullptr, bytes_, static_cast<const Count*>(nullptr),
                                                          static_cast<const T*>(nullptr), static_cast<T*>(nullptr),
                                                          static_cast<int>(n)));
    temp_.get(bytes_);
  }
  void run(const void* d_in, void* d_out, std::size_t n) override {
    std::size_t bytes = bytes_;
    SCANLAB_CUDA_CHECK(cub::DeviceScan::InclusiveSumByKey(temp_.get(bytes_), bytes,
                                                          static_cast<const Count*>(keys_.get(n)),
                                                          static_cast<const T*>(d_in), static_cast<T*>(d_out),
                                                          static_cast<int>(n)));
  }
  std::optional<std::string> check(const void* input, const void* d_out, std::size_t n) override {
    return check_segmented(static_cast<const T*>(input), heads_, download<T>(d_out, n));
  }
  double bytes_moved(std::size_t n) const override { return static_cast<double>(n * (2 * sizeof(T) + sizeof(Count))); }

 private:
  std::vector<Count> heads_;
  Buffer<Count> keys_;
  Buffer<unsigned char> temp_;
  std::size_t bytes_ = 0;
};

/// Section 11.9's segmented scan, in the tuned tile shape (Threads 0) or in Threads x Items (--sweep).
template <class T, int Threads = 0, int Items = 0>
class AppSegmentedScan final : public Contender {
 public:
  std::string name() const override { return "11.9/segmented_scan" + shape_suffix<Threads, Items>(); }
  void prepare(std::size_t n) override {
    heads_ = bench_heads(n);
    Count* d_heads = d_heads_.get(n);
    if (n > 0) SCANLAB_CUDA_CHECK(cudaMemcpy(d_heads, heads_.data(), n * sizeof(Count), cudaMemcpyHostToDevice));
    ws_ = std::make_unique<s11_9::SegmentedWorkspace<T>>(
        n, Threads == 0 ? s11_9::SegmentedWorkspace<T>::kTile : std::size_t{Threads} * Items);
  }
  void run(const void* d_in, void* d_out, std::size_t n) override {
    s11_9::segmented_scan<Threads == 0 ? s11_9::kSegmentedThreads : Threads,
                          Items == 0 ? s11_9::kSegmentedItems : Items>(
        static_cast<const T*>(d_in), static_cast<const Count*>(d_heads_.get(n)), static_cast<T*>(d_out), n, Add<T>{},
        false, *ws_);
  }
  std::optional<std::string> check(const void* input, const void* d_out, std::size_t n) override {
    return check_segmented(static_cast<const T*>(input), heads_, download<T>(d_out, n));
  }
  double bytes_moved(std::size_t n) const override { return static_cast<double>(n * (2 * sizeof(T) + sizeof(Count))); }

 private:
  std::vector<Count> heads_;
  Buffer<Count> d_heads_;
  std::unique_ptr<s11_9::SegmentedWorkspace<T>> ws_;
};

/// Adds the single-pass compaction and partition in the (Threads, Items) pairs a --sweep tries.
template <class T, int Threads, int Items, int... Rest>
void add_select_shapes(Contenders& list) {
  list.push_back(std::make_unique<AppSelect<T, Threads, Items>>(SelectForm::single_pass, false));
  list.push_back(std::make_unique<AppSelect<T, Threads, Items>>(SelectForm::single_pass, true));
  if constexpr (sizeof...(Rest) > 0) add_select_shapes<T, Rest...>(list);
}

/// Adds the persistent compaction and partition in the (Warps, Items, Stages) triples a --sweep tries.
template <class T, int Warps, int Items, int Stages, int... Rest>
void add_persistent_select_shapes(Contenders& list) {
  list.push_back(std::make_unique<AppSelect<T, Warps, Items, Stages>>(SelectForm::persistent, false));
  list.push_back(std::make_unique<AppSelect<T, Warps, Items, Stages>>(SelectForm::persistent, true));
  if constexpr (sizeof...(Rest) > 0) add_persistent_select_shapes<T, Rest...>(list);
}

/// Adds the segmented scan in the (Threads, Items) pairs a --sweep tries.
template <class T, int Threads, int Items, int... Rest>
void add_segmented_shapes(Contenders& list) {
  list.push_back(std::make_unique<AppSegmentedScan<T, Threads, Items>>());
  if constexpr (sizeof...(Rest) > 0) add_segmented_shapes<T, Rest...>(list);
}

template <class T>
Contenders make_application_contenders(bool sweep) {
  Contenders c;
  c.push_back(std::make_unique<CubSelectIf<T>>());
  c.push_back(std::make_unique<AppSelect<T>>(SelectForm::persistent, false));
  c.push_back(std::make_unique<AppSelect<T>>(SelectForm::single_pass, false));
  c.push_back(std::make_unique<AppSelect<T>>(SelectForm::three_step, false));
  c.push_back(std::make_unique<CubPartitionIf<T>>());
  c.push_back(std::make_unique<AppSelect<T>>(SelectForm::persistent, true));
  c.push_back(std::make_unique<AppSelect<T>>(SelectForm::single_pass, true));
  c.push_back(std::make_unique<AppSelect<T>>(SelectForm::three_step, true));
  c.push_back(std::make_unique<CubInclusiveSumByKey<T>>());
  c.push_back(std::make_unique<AppSegmentedScan<T>>());
  if (sweep) {
    // Threads x items per thread (items: whole 16-byte chunks, at most 32 for a thread's flag mask),
    // the tuned shapes included under their own names.
    add_select_shapes<T, 64, 32, 128, 16, 128, 24, 128, 32, 256, 8, 256, 16, 256, 32, 512, 8>(c);
    add_segmented_shapes<T, 64, 16, 128, 8, 128, 12, 128, 16, 128, 24, 256, 8, 256, 16>(c);
    // Select warps x items per thread x stages (4-byte items: a 32 KiB tile at 8 x 32).
    add_persistent_select_shapes<T, 8, 32, 2, 8, 32, 3, 8, 32, 4, 8, 32, 5, 8, 24, 3, 8, 24, 4, 8, 16, 2, 8, 16, 3, 8, 16, 4,
                                 8, 16, 5, 8, 16, 8, 4, 32, 4, 16, 16, 4, 16, 8, 4>(c);
  }
  return c;
}

}  // namespace

Contenders application_contenders(DType type, bool sweep) {
  switch (type) {
    case DType::int32: return make_application_contenders<std::int32_t>(sweep);
    case DType::float32: return make_application_contenders<float>(sweep);
    default: return {};  // int64 and double: not measured (the issue asks for int32 and float)
  }
}

}  // namespace scanlab::bench
