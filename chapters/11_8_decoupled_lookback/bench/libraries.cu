// scanlab_bench: the yardsticks. A device-to-device copy (the bandwidth bound of any scan: n reads and
// n writes), CUB's single-pass scans and Thrust's inclusive_scan (which calls CUB). Temporary storage
// is allocated in prepare(), outside the timed region.
#include <cub/device/device_scan.cuh>
#include <thrust/execution_policy.h>
#include <thrust/scan.h>
#include <thrust/system/cuda/execution_policy.h>

#include <cstdint>

#include "contender.hpp"
#include "scanlab/error.hpp"
#include "scanlab/ops.hpp"

namespace scanlab::bench {
namespace {

/// Device memory that grows on demand and is kept (cudaMalloc is never in a timed region).
class Scratch {
 public:
  ~Scratch() {
    if (data_ != nullptr) cudaFree(data_);
  }
  void* get(std::size_t bytes) {
    if (bytes > bytes_) {
      if (data_ != nullptr) SCANLAB_CUDA_CHECK(cudaFree(data_));
      data_ = nullptr;
      SCANLAB_CUDA_CHECK(cudaMalloc(&data_, bytes));
      bytes_ = bytes;
    }
    return data_;
  }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

template <class T>
class Memcpy final : public Contender {
 public:
  std::string name() const override { return "memcpy"; }
  bool is_copy() const override { return true; }
  void prepare(std::size_t) override {}
  void run(const void* d_in, void* d_out, std::size_t n) override {
    SCANLAB_CUDA_CHECK(cudaMemcpyAsync(d_out, d_in, n * sizeof(T), cudaMemcpyDeviceToDevice));
  }
};

template <class T>
class CubInclusiveSum final : public Contender {
 public:
  std::string name() const override { return "cub_inclusive_sum"; }
  void prepare(std::size_t n) override {
    bytes_ = 0;
    SCANLAB_CUDA_CHECK(cub::DeviceScan::InclusiveSum(nullptr, bytes_, static_cast<const T*>(nullptr),
                                                     static_cast<T*>(nullptr), static_cast<std::int64_t>(n)));
    temp_.get(bytes_);
  }
  void run(const void* d_in, void* d_out, std::size_t n) override {
    std::size_t bytes = bytes_;
    SCANLAB_CUDA_CHECK(cub::DeviceScan::InclusiveSum(temp_.get(bytes_), bytes, static_cast<const T*>(d_in),
                                                     static_cast<T*>(d_out), static_cast<std::int64_t>(n)));
  }

 private:
  Scratch temp_;
  std::size_t bytes_ = 0;
};

/// InclusiveScan with an operator object: scanlab's Max (the same functor the reference uses).
template <class T>
class CubInclusiveScanMax final : public Contender {
 public:
  std::string name() const override { return "cub_inclusive_scan_max"; }
  OpKind op() const override { return OpKind::max; }
  void prepare(std::size_t n) override {
    bytes_ = 0;
    SCANLAB_CUDA_CHECK(cub::DeviceScan::InclusiveScan(nullptr, bytes_, static_cast<const T*>(nullptr),
                                                      static_cast<T*>(nullptr), Max<T>{},
                                                      static_cast<std::int64_t>(n)));
    temp_.get(bytes_);
  }
  void run(const void* d_in, void* d_out, std::size_t n) override {
    std::size_t bytes = bytes_;
    SCANLAB_CUDA_CHECK(cub::DeviceScan::InclusiveScan(temp_.get(bytes_), bytes, static_cast<const T*>(d_in),
                                                      static_cast<T*>(d_out), Max<T>{},
                                                      static_cast<std::int64_t>(n)));
  }

 private:
  Scratch temp_;
  std::size_t bytes_ = 0;
};

/// Thrust allocates its temporary storage through this: the first (untimed) run allocates, later runs
/// reuse the block. par_nosync: Thrust would otherwise synchronize after the scan, and the stop event
/// would then wait for a host round trip.
class KeptAllocator {
 public:
  using value_type = char;
  char* allocate(std::ptrdiff_t bytes) { return static_cast<char*>(scratch_.get(static_cast<std::size_t>(bytes))); }
  void deallocate(char*, std::size_t) {}

 private:
  Scratch scratch_;
};

template <class T>
class ThrustInclusiveScan final : public Contender {
 public:
  std::string name() const override { return "thrust_inclusive_scan"; }
  void prepare(std::size_t n) override {
    // One run on scratch buffers, so the allocator holds enough for n before anything is timed.
    Scratch in, out;
    run(in.get(n * sizeof(T)), out.get(n * sizeof(T)), n);
    SCANLAB_CUDA_CHECK(cudaDeviceSynchronize());
  }
  void run(const void* d_in, void* d_out, std::size_t n) override {
    const T* in = static_cast<const T*>(d_in);
    thrust::inclusive_scan(thrust::cuda::par_nosync(allocator_), in, in + n, static_cast<T*>(d_out));
  }

 private:
  KeptAllocator allocator_;
};

template <class T>
Contenders make_all() {
  Contenders list;
  list.push_back(std::make_unique<Memcpy<T>>());
  list.push_back(std::make_unique<CubInclusiveSum<T>>());
  list.push_back(std::make_unique<CubInclusiveScanMax<T>>());
  list.push_back(std::make_unique<ThrustInclusiveScan<T>>());
  return list;
}

}  // namespace

Contenders library_contenders(DType type) {
  switch (type) {
    case DType::int32: return make_all<std::int32_t>();
    case DType::float32: return make_all<float>();
    case DType::int64: return make_all<std::int64_t>();
    case DType::float64: return make_all<double>();
    case DType::uint32: break;
  }
  throw Error("scanlab_bench: no library contenders for uint32 (use int32, float, int64 or double)");
}

}  // namespace scanlab::bench
