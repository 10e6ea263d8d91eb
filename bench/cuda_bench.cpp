// CUDA backend benchmarks (Google Benchmark), on cuda:0. Each libops figure
// has a reference measured in the same binary; bench/compare_cuda.py prints
// the ratios and the goals.
//
//   BM_CudaCopy                 cudaMemcpyAsync device-to-device of 256M
//                               float32: the bandwidth reference. Bytes: 8 per
//                               element (one read, one write).
//   BM_CudaAddLegacy            legacy pairwise add, 256M float32: 12 bytes
//                               per element (two reads, one write).
//   BM_CudaAddOp                the `add` custom op (DeclarableOp::execute
//                               with Context::set_device), same arrays.
//   BM_CudaSumLegacy            legacy reduce_same sum over all 256M float32
//                               elements into a scalar: 4 bytes per element.
//                               Goal for add and sum: >= 0.9 of the copy's
//                               bytes/s.
//   BM_Cuda{S,H}gemmMatmulOp    the matmul op on 4096 x 4096 x 4096, float32
//                               and float16 (float accumulation).
//   BM_Cuda{S,H}gemmCublasDirect  cublasSgemm / cublasGemmEx with
//                               CUBLAS_COMPUTE_32F on the same input buffers,
//                               same stream. Goal: op time <= 1.03 x direct.
//   BM_CudaFftOp                the fft op on 2^14 signals of 1024 complex
//                               float32 (128 MiB in, 128 MiB out).
//   BM_CudaCufftDirect          cufftExecC2C out of place on the same buffers,
//                               same stream, a plan made before the loop.
//                               Goal: op time <= 1.05 x direct.
//   BM_CudaGraphChain/N         a Session on cuda:0 running a chain of N adds
//                               on 1-element float32 arrays; per_node = time
//                               / N. Goal: <= 5 us per node at N = 100.
//
// Timing. Bandwidth and GEMM benchmarks use manual time: each iteration is
// bracketed by a pair of CUDA events on the stream libops launches on (the
// calling thread's LaunchContext stream; the references are queued on that
// same stream), then waits for the second event. The figure is therefore
// the device time from the first event to the last kernel's end, which
// includes any host work libops does between the two (validation, launch)
// when that leaves the device idle, but not the wait for the result. The
// graph benchmark uses real (wall) time, and every run ends with the
// runtime's synchronize, so a run's time covers host launch work and the
// device work both.
//
// Inputs are copied to the device once, before the timed loop (and stay
// current there: nothing writes them on the host), so the loops time
// kernels, not host-device copies. Each benchmark checks its result once
// per process and reports an error instead of a figure if it is wrong.
//
// Without a usable CUDA device the binary prints "no CUDA device: <reason>"
// and exits with 0, running nothing.
#include <benchmark/benchmark.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <cufft.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/chain_graph.h"
#include "graph/executor.h"
#include "libops/backends/cuda/launch_context.h"
#include "libops/core/half.h"
#include "libops/legacy/legacy.h"
#include "libops/legacy/ops/binary_ops.h"
#include "libops/legacy/ops/reduce_ops.h"
#include "libops/ops/declarable_op.h"

namespace {

using libops::DataType;
using libops::Device;
using libops::Dims;
using libops::NDArray;
using libops::Status;

constexpr Device kDevice = Device::cuda(0);
constexpr int64_t kStreamElements = int64_t{1} << 28;  // 256M float32 = 1 GiB per array
constexpr int64_t kGemmSize = 4096;

std::string cuda_message(cudaError_t e, const char* what) {
  return std::string(what) + " failed: " + cudaGetErrorString(e);
}

// The stream libops launches on from this thread (kernels, cuBLAS).
Status launch_stream(cudaStream_t* out) {
  libops::cuda::LaunchContext* ctx = nullptr;
  Status s = libops::cuda::LaunchContext::get(kDevice.index, &ctx);
  if (s.is_ok()) *out = ctx->stream();
  return s;
}

// A start/stop pair of CUDA events; elapsed() waits for stop.
struct EventTimer {
  cudaEvent_t start = nullptr, stop = nullptr;
  cudaStream_t stream = nullptr;
  std::string error;

  EventTimer() {
    Status s = launch_stream(&stream);
    if (!s.is_ok()) {
      error = s.message();
      return;
    }
    cudaError_t e = cudaEventCreate(&start);
    if (e == cudaSuccess) e = cudaEventCreate(&stop);
    if (e != cudaSuccess) error = cuda_message(e, "cudaEventCreate");
  }
  ~EventTimer() {
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
  }
  EventTimer(const EventTimer&) = delete;
  EventTimer& operator=(const EventTimer&) = delete;

  void begin() { cudaEventRecord(start, stream); }
  void end() { cudaEventRecord(stop, stream); }
  // Seconds between the two events, or a negative value on error (in `error`).
  double elapsed() {
    cudaError_t e = cudaEventSynchronize(stop);
    float ms = 0;
    if (e == cudaSuccess) e = cudaEventElapsedTime(&ms, start, stop);
    if (e != cudaSuccess) {
      error = cuda_message(e, "timing events");
      return -1;
    }
    return static_cast<double>(ms) * 1e-3;
  }
};

// Runs the timed loop: `body` returns a Status; each iteration's time is the
// event-pair time around it. Stops with an error on the first failure.
template <typename Body>
void timed_loop(benchmark::State& state, EventTimer& timer, Body body) {
  for (auto _ : state) {
    timer.begin();
    Status s = body();
    timer.end();
    const double seconds = timer.elapsed();
    if (!s.is_ok()) {
      state.SkipWithError(s.message().c_str());
      break;
    }
    if (seconds < 0) {
      state.SkipWithError(timer.error.c_str());
      break;
    }
    state.SetIterationTime(seconds);
  }
}

Status sync_all(std::initializer_list<const NDArray*> arrays) {
  for (const NDArray* a : arrays) RETURN_IF_ERROR(a->buffer()->sync_to_device(kDevice));
  return Status::ok();
}

// ---- element-wise add, sum, device copy: 256M float32 ----

struct StreamArrays {
  NDArray x, y, z, sum;
  Status status;  // why the arrays could not be made, if they could not
};

// Made once per process (1 GiB per array, host and device) and shared by the
// bandwidth benchmarks. x[i] and y[i] are exact in float and so are their
// sums, and the values are not all one.
StreamArrays& stream_arrays() {
  static StreamArrays a = [] {
    StreamArrays r;
    const Dims shape{kStreamElements};
    r.status = NDArray::create(DataType::kFloat32, shape, 'c', r.x);
    if (r.status.is_ok()) r.status = NDArray::create(DataType::kFloat32, shape, 'c', r.y);
    if (r.status.is_ok()) r.status = NDArray::create(DataType::kFloat32, shape, 'c', r.z);
    if (r.status.is_ok()) r.status = NDArray::create(DataType::kFloat32, Dims{}, 'c', r.sum);
    if (!r.status.is_ok()) return r;
    float* x = r.x.data_as<float>();
    float* y = r.y.data_as<float>();
    for (int64_t i = 0; i < kStreamElements; ++i) {
      x[i] = static_cast<float>(i & 1023) * (1.0f / 1024.0f);
      y[i] = static_cast<float>((i * 7) & 255) * 0.25f;
    }
    r.status = sync_all({&r.x, &r.y, &r.z, &r.sum});
    return r;
  }();
  return a;
}

// z == x + y at a spread of indices (z computed on the device).
Status check_add(StreamArrays& a) {
  RETURN_IF_ERROR(a.z.buffer()->sync_to_host());
  const float* x = a.x.data_as<float>();
  const float* y = a.y.data_as<float>();
  const float* z = a.z.data_as<float>();
  for (int64_t i = 0; i < kStreamElements; i += 999983) {
    if (z[i] != x[i] + y[i])
      return Status::error(libops::StatusCode::kInternal, "add: z[%lld] = %g, expected %g",
                           static_cast<long long>(i), static_cast<double>(z[i]), static_cast<double>(x[i] + y[i]));
  }
  const int64_t last = kStreamElements - 1;
  if (z[last] != x[last] + y[last])
    return Status::error(libops::StatusCode::kInternal, "add: the last element is wrong");
  return Status::ok();
}

libops::legacy::LegacyCall add_call(StreamArrays& a) {
  libops::legacy::LegacyCall call;
  call.group = OPS_PAIRWISE;
  call.num = static_cast<int>(libops::legacy::BinaryOp::add);
  call.x = &a.x;
  call.y = &a.y;
  call.z = &a.z;
  call.device = kDevice;
  return call;
}

void BM_CudaCopy(benchmark::State& state) {
  StreamArrays& a = stream_arrays();
  if (!a.status.is_ok()) return state.SkipWithError(a.status.message().c_str());
  EventTimer timer;
  if (!timer.error.empty()) return state.SkipWithError(timer.error.c_str());
  const size_t bytes = static_cast<size_t>(kStreamElements) * sizeof(float);
  auto copy = [&] {
    const cudaError_t e =
        cudaMemcpyAsync(a.z.device_data(), a.x.device_data(), bytes, cudaMemcpyDeviceToDevice, timer.stream);
    return e == cudaSuccess ? Status::ok()
                            : Status::error(libops::StatusCode::kDevice, "%s", cuda_message(e, "cudaMemcpyAsync").c_str());
  };
  Status warm = copy();
  if (!warm.is_ok()) return state.SkipWithError(warm.message().c_str());
  timed_loop(state, timer, copy);
  a.z.buffer()->mark_device_written();  // z's device copy changed behind libops's back
  state.SetBytesProcessed(state.iterations() * kStreamElements * 8);
}
BENCHMARK(BM_CudaCopy)->UseManualTime()->Unit(benchmark::kMillisecond);

void BM_CudaAddLegacy(benchmark::State& state) {
  StreamArrays& a = stream_arrays();
  if (!a.status.is_ok()) return state.SkipWithError(a.status.message().c_str());
  EventTimer timer;
  if (!timer.error.empty()) return state.SkipWithError(timer.error.c_str());
  const libops::legacy::LegacyCall call = add_call(a);
  Status warm = libops::legacy::exec(call);
  static bool checked = false;
  if (warm.is_ok() && !checked) {
    warm = check_add(a);
    checked = warm.is_ok();
  }
  if (!warm.is_ok()) return state.SkipWithError(warm.message().c_str());
  timed_loop(state, timer, [&] { return libops::legacy::exec(call); });
  state.SetBytesProcessed(state.iterations() * kStreamElements * 12);
}
BENCHMARK(BM_CudaAddLegacy)->UseManualTime()->Unit(benchmark::kMillisecond);

void BM_CudaAddOp(benchmark::State& state) {
  StreamArrays& a = stream_arrays();
  if (!a.status.is_ok()) return state.SkipWithError(a.status.message().c_str());
  EventTimer timer;
  if (!timer.error.empty()) return state.SkipWithError(timer.error.c_str());
  libops::DeclarableOp* op = libops::OpRegistry::instance().find("add");
  if (op == nullptr) return state.SkipWithError("add op not registered");
  libops::Context ctx;
  auto run = [&] {
    // As a direct caller does: a fresh call on a reused Context.
    ctx.clear();
    ctx.add_input(&a.x);
    ctx.add_input(&a.y);
    ctx.add_output(&a.z);
    ctx.set_device(kDevice);
    return op->execute(ctx);
  };
  Status warm = run();
  static bool checked = false;
  if (warm.is_ok() && !checked) {
    warm = check_add(a);
    checked = warm.is_ok();
  }
  if (!warm.is_ok()) return state.SkipWithError(warm.message().c_str());
  timed_loop(state, timer, run);
  state.SetBytesProcessed(state.iterations() * kStreamElements * 12);
}
BENCHMARK(BM_CudaAddOp)->UseManualTime()->Unit(benchmark::kMillisecond);

void BM_CudaSumLegacy(benchmark::State& state) {
  StreamArrays& a = stream_arrays();
  if (!a.status.is_ok()) return state.SkipWithError(a.status.message().c_str());
  EventTimer timer;
  if (!timer.error.empty()) return state.SkipWithError(timer.error.c_str());
  libops::legacy::LegacyCall call;
  call.group = OPS_REDUCE_SAME;
  call.num = static_cast<int>(libops::legacy::ReduceSameOp::sum);
  call.x = &a.x;
  call.z = &a.sum;  // rank 0 and no axes: all of x
  call.device = kDevice;
  Status warm = libops::legacy::exec(call);
  static bool checked = false;
  if (warm.is_ok() && !checked) {
    warm = a.sum.buffer()->sync_to_host();
    // x repeats 0, 1/1024, ..., 1023/1024: each period sums to 511.5.
    const double want = 511.5 * static_cast<double>(kStreamElements / 1024);
    const double got = warm.is_ok() ? a.sum.get_double(0) : 0;
    if (warm.is_ok() && !(std::fabs(got - want) <= 1e-4 * want))
      warm = Status::error(libops::StatusCode::kInternal, "sum: got %.9g, expected %.9g", got, want);
    checked = warm.is_ok();
  }
  if (!warm.is_ok()) return state.SkipWithError(warm.message().c_str());
  timed_loop(state, timer, [&] { return libops::legacy::exec(call); });
  state.SetBytesProcessed(state.iterations() * kStreamElements * 4);
}
BENCHMARK(BM_CudaSumLegacy)->UseManualTime()->Unit(benchmark::kMillisecond);

// ---- GEMM 4096: the matmul op against cuBLAS called directly ----

struct GemmArrays {
  NDArray x, y, z, z_ref;  // z: the op's output; z_ref: the direct call's
  Status status;
  bool checked = false;    // z and z_ref compared (once per process)
};

// Small values (multiples of 1/64 in [-0.1, 0.1]) that float16 holds
// exactly; products summed over k = 4096 stay far from float16's range.
GemmArrays make_gemm_arrays(DataType t) {
  GemmArrays r;
  const Dims shape{kGemmSize, kGemmSize};
  for (NDArray* a : {&r.x, &r.y, &r.z, &r.z_ref}) {
    r.status = NDArray::create(t, shape, 'c', *a);
    if (!r.status.is_ok()) return r;
  }
  const int64_t n = kGemmSize * kGemmSize;
  for (int pass = 0; pass < 2; ++pass) {
    const NDArray& a = pass == 0 ? r.x : r.y;
    for (int64_t i = 0; i < n; ++i) {
      const float v = static_cast<float>(((i * (pass == 0 ? 7 : 11) + pass) % 13) - 6) * (1.0f / 64.0f);
      if (t == DataType::kFloat16)
        a.data_as<uint16_t>()[i] = libops::float_to_half_bits(v);
      else
        a.data_as<float>()[i] = v;
    }
  }
  r.status = sync_all({&r.x, &r.y, &r.z, &r.z_ref});
  return r;
}

GemmArrays& gemm_arrays(DataType t) {
  static GemmArrays f32 = make_gemm_arrays(DataType::kFloat32);
  if (t == DataType::kFloat32) return f32;
  static GemmArrays f16 = make_gemm_arrays(DataType::kFloat16);
  return f16;
}

Status run_matmul(libops::DeclarableOp* op, libops::Context& ctx, GemmArrays& g) {
  ctx.clear();
  ctx.add_input(&g.x);
  ctx.add_input(&g.y);
  ctx.add_output(&g.z);
  ctx.set_device(kDevice);
  return op->execute(ctx);
}

// A cuBLAS handle of the benchmark's own, on libops's stream.
struct CublasHandle {
  cublasHandle_t h = nullptr;
  std::string error;
  explicit CublasHandle(cudaStream_t stream) {
    if (cudaSetDevice(kDevice.index) != cudaSuccess) {
      error = "cudaSetDevice failed";
      return;
    }
    cublasStatus_t s = cublasCreate(&h);
    if (s == CUBLAS_STATUS_SUCCESS) s = cublasSetStream(h, stream);
    if (s != CUBLAS_STATUS_SUCCESS) error = std::string("cuBLAS setup failed: ") + cublasGetStatusString(s);
  }
  ~CublasHandle() {
    if (h) cublasDestroy(h);
  }
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
};

// z_ref = x @ y, row-major, computed as the column-major z_ref^T = y^T x^T
// (cuBLAS gets y first, as libops's own cuBLAS path does).
Status cublas_direct(cublasHandle_t h, DataType t, GemmArrays& g) {
  const int n = static_cast<int>(kGemmSize);
  const float alpha = 1.0f, beta = 0.0f;
  cublasStatus_t s;
  if (t == DataType::kFloat32) {
    s = cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, static_cast<const float*>(g.y.device_data()), n,
                    static_cast<const float*>(g.x.device_data()), n, &beta, static_cast<float*>(g.z_ref.device_data()),
                    n);
  } else {
    s = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, g.y.device_data(), CUDA_R_16F, n,
                     g.x.device_data(), CUDA_R_16F, n, &beta, g.z_ref.device_data(), CUDA_R_16F, n,
                     CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  }
  if (s != CUBLAS_STATUS_SUCCESS)
    return Status::error(libops::StatusCode::kDevice, "direct cuBLAS GEMM failed: %s", cublasGetStatusString(s));
  return Status::ok();
}

// The op's result against the direct call's, once per dtype: both sum the
// same exact products in float, so they differ only by summation order.
Status check_gemm(libops::DeclarableOp* op, cublasHandle_t h, DataType t, GemmArrays& g) {
  if (g.checked) return Status::ok();
  libops::Context ctx;
  RETURN_IF_ERROR(run_matmul(op, ctx, g));
  RETURN_IF_ERROR(cublas_direct(h, t, g));
  g.z_ref.buffer()->mark_device_written();
  RETURN_IF_ERROR(g.z.buffer()->sync_to_host());
  RETURN_IF_ERROR(g.z_ref.buffer()->sync_to_host());
  const int64_t n = kGemmSize * kGemmSize;
  double max_abs = 0;
  for (int64_t i = 0; i < n; i += 4093) {
    const double a = g.z.get_double(i), b = g.z_ref.get_double(i);
    max_abs = std::max(max_abs, std::fabs(b));
    if (!(std::fabs(a - b) <= 2e-2 + 1e-2 * std::fabs(b)))
      return Status::error(libops::StatusCode::kInternal, "matmul %s: z[%lld] = %g, cuBLAS gives %g",
                           libops::dtype_name(t), static_cast<long long>(i), a, b);
  }
  if (max_abs == 0) return Status::error(libops::StatusCode::kInternal, "matmul: the reference result is all zero");
  g.checked = true;
  return Status::ok();
}

void gemm_bench(benchmark::State& state, DataType t, bool direct) {
  GemmArrays& g = gemm_arrays(t);
  if (!g.status.is_ok()) return state.SkipWithError(g.status.message().c_str());
  EventTimer timer;
  if (!timer.error.empty()) return state.SkipWithError(timer.error.c_str());
  CublasHandle handle(timer.stream);
  if (!handle.error.empty()) return state.SkipWithError(handle.error.c_str());
  libops::DeclarableOp* op = libops::OpRegistry::instance().find("matmul");
  if (op == nullptr) return state.SkipWithError("matmul op not registered");
  Status s = check_gemm(op, handle.h, t, g);
  if (!s.is_ok()) return state.SkipWithError(s.message().c_str());
  libops::Context ctx;
  if (direct) {
    // Warm-up (cuBLAS picks and loads its kernel on the first call).
    s = cublas_direct(handle.h, t, g);
    if (!s.is_ok()) return state.SkipWithError(s.message().c_str());
    timed_loop(state, timer, [&] { return cublas_direct(handle.h, t, g); });
    g.z_ref.buffer()->mark_device_written();
  } else {
    s = run_matmul(op, ctx, g);
    if (!s.is_ok()) return state.SkipWithError(s.message().c_str());
    timed_loop(state, timer, [&] { return run_matmul(op, ctx, g); });
  }
  state.counters["flops"] =
      benchmark::Counter(2.0 * static_cast<double>(kGemmSize * kGemmSize * kGemmSize) *
                             static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate);
}

void BM_CudaSgemmMatmulOp(benchmark::State& state) { gemm_bench(state, DataType::kFloat32, false); }
void BM_CudaSgemmCublasDirect(benchmark::State& state) { gemm_bench(state, DataType::kFloat32, true); }
void BM_CudaHgemmMatmulOp(benchmark::State& state) { gemm_bench(state, DataType::kFloat16, false); }
void BM_CudaHgemmCublasDirect(benchmark::State& state) { gemm_bench(state, DataType::kFloat16, true); }
BENCHMARK(BM_CudaSgemmMatmulOp)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CudaSgemmCublasDirect)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CudaHgemmMatmulOp)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CudaHgemmCublasDirect)->UseManualTime()->Unit(benchmark::kMillisecond);

// ---- FFT: 2^14 signals of 1024 complex float32 ----

constexpr int64_t kFftLength = 1024, kFftSignals = int64_t{1} << 14;

struct FftArrays {
  NDArray x, z, z_ref;
  Status status;
  bool checked = false;
};

FftArrays& fft_arrays() {
  static FftArrays f = [] {
    FftArrays r;
    const Dims shape{kFftSignals, kFftLength, 2};
    r.status = NDArray::create(DataType::kFloat32, shape, 'c', r.x);
    if (r.status.is_ok()) r.status = NDArray::create(DataType::kFloat32, shape, 'c', r.z);
    if (r.status.is_ok()) r.status = NDArray::create(DataType::kFloat32, shape, 'c', r.z_ref);
    if (!r.status.is_ok()) return r;
    float* x = r.x.data_as<float>();
    for (int64_t i = 0; i < r.x.length(); ++i) x[i] = std::sin(0.37f * static_cast<float>(i & 4095));
    r.status = sync_all({&r.x, &r.z, &r.z_ref});
    return r;
  }();
  return f;
}

Status run_fft(libops::DeclarableOp* op, libops::Context& ctx, FftArrays& f) {
  ctx.clear();
  ctx.add_input(&f.x);
  ctx.add_output(&f.z);
  ctx.set_device(kDevice);
  return op->execute(ctx);
}

Status cufft_direct(cufftHandle plan, FftArrays& f) {
  const cufftResult r = cufftExecC2C(plan, static_cast<cufftComplex*>(f.x.device_data()),
                                     static_cast<cufftComplex*>(f.z_ref.device_data()), CUFFT_FORWARD);
  if (r != CUFFT_SUCCESS)
    return Status::error(libops::StatusCode::kDevice, "cufftExecC2C failed (%d)", static_cast<int>(r));
  return Status::ok();
}

// The op's result against cuFFT's, once per process, at a spread of indices.
Status check_fft(libops::DeclarableOp* op, cufftHandle plan, FftArrays& f) {
  if (f.checked) return Status::ok();
  libops::Context ctx;
  RETURN_IF_ERROR(run_fft(op, ctx, f));
  RETURN_IF_ERROR(cufft_direct(plan, f));
  f.z_ref.buffer()->mark_device_written();
  RETURN_IF_ERROR(f.z.buffer()->sync_to_host());
  RETURN_IF_ERROR(f.z_ref.buffer()->sync_to_host());
  for (int64_t i = 0; i < f.z.length(); i += 4099) {
    const double a = f.z.get_double(i), b = f.z_ref.get_double(i);
    if (!(std::fabs(a - b) <= 1e-3 + 1e-4 * std::fabs(b)))
      return Status::error(libops::StatusCode::kInternal, "fft: z[%lld] = %g, cuFFT gives %g",
                           static_cast<long long>(i), a, b);
  }
  f.checked = true;
  return Status::ok();
}

void fft_bench(benchmark::State& state, bool direct) {
  FftArrays& f = fft_arrays();
  if (!f.status.is_ok()) return state.SkipWithError(f.status.message().c_str());
  EventTimer timer;
  if (!timer.error.empty()) return state.SkipWithError(timer.error.c_str());
  libops::DeclarableOp* op = libops::OpRegistry::instance().find("fft");
  if (op == nullptr) return state.SkipWithError("fft op not registered");
  cufftHandle plan = 0;
  if (cufftPlan1d(&plan, static_cast<int>(kFftLength), CUFFT_C2C, static_cast<int>(kFftSignals)) != CUFFT_SUCCESS ||
      cufftSetStream(plan, timer.stream) != CUFFT_SUCCESS)
    return state.SkipWithError("cuFFT plan failed");
  Status s = check_fft(op, plan, f);  // also the warm-up of both (the op makes its plan)
  libops::Context ctx;
  if (s.is_ok() && direct) timed_loop(state, timer, [&] { return cufft_direct(plan, f); });
  else if (s.is_ok()) timed_loop(state, timer, [&] { return run_fft(op, ctx, f); });
  else state.SkipWithError(s.message().c_str());
  cufftDestroy(plan);
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * 2 * f.x.length() * 4);
}

void BM_CudaFftOp(benchmark::State& state) { fft_bench(state, false); }
void BM_CudaCufftDirect(benchmark::State& state) { fft_bench(state, true); }
BENCHMARK(BM_CudaFftOp)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CudaCufftDirect)->UseManualTime()->Unit(benchmark::kMillisecond);

// ---- graph launch overhead: a chain of adds on 1-element arrays ----

using libops::bench::chain_graph;

void BM_CudaGraphChain(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  std::vector<uint8_t> bytes = chain_graph(n);
  std::shared_ptr<const libops::graph::Graph> g;
  libops::graph::LoadOptions node_by_node;  // per-node launch cost: no element-wise fusion
  node_by_node.fuse_elementwise = false;
  Status s = libops::graph::Graph::load_buffer(bytes.data(), bytes.size(), node_by_node, g);
  if (!s.is_ok()) return state.SkipWithError(s.message().c_str());
  libops::graph::Session session(g);
  session.set_device(kDevice);
  NDArray x, x1;
  s = NDArray::scalar(DataType::kFloat32, 2.0, x);
  if (s.is_ok()) s = x.reshape(Dims{1}, x1);
  if (s.is_ok()) s = x1.buffer()->sync_to_device(kDevice);  // fed from device memory in every run
  if (!s.is_ok()) return state.SkipWithError(s.message().c_str());
  const libops::DeviceRuntime* rt = libops::device_runtime(kDevice.type);
  const NDArray* in[] = {&x1};
  // Warm-up: the first run plans, allocates the pooled buffers and copies c.
  s = session.run(in, 1);
  if (s.is_ok()) s = rt->synchronize(kDevice.index);
  if (!s.is_ok()) return state.SkipWithError(s.message().c_str());
  for (auto _ : state) {
    s = session.run(in, 1);
    if (s.is_ok()) s = rt->synchronize(kDevice.index);
    if (!s.is_ok()) {
      state.SkipWithError(s.message().c_str());
      break;
    }
  }
  if (!s.is_ok()) return;
  NDArray out = session.output(0);
  s = out.buffer()->sync_to_host();
  if (!s.is_ok()) return state.SkipWithError(s.message().c_str());
  if (out.get_double(0) != 2.0 + n) return state.SkipWithError("graph chain: wrong result");
  state.counters["per_node"] = benchmark::Counter(static_cast<double>(n) * static_cast<double>(state.iterations()),
                                                  benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_CudaGraphChain)->Arg(1)->Arg(100)->UseRealTime()->Unit(benchmark::kMicrosecond);

}  // namespace

int main(int argc, char** argv) {
  const Status s = libops::check_device(kDevice);
  if (!s.is_ok()) {
    std::printf("no CUDA device: %s\n", s.message().c_str());
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
