// Discrete Fourier transforms through the C API (the fft and rfft ops on the
// CPU, one thread), for bench/compare_fft.py to set beside numpy.fft (pocketfft,
// also PyTorch's CPU FFT) timed on the same shapes in the same run.
//
// Each case transforms a batch of signals holding 2^18 complex (or real)
// values along its last axis: powers of two, a 2-3-5-smooth length, and a
// prime (Bluestein), and one signal of 2^18. Names: BM_<Op><dtype>/<n>; the
// batch is 2^18 / n.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "libops/c_api.h"

namespace {

constexpr int64_t kValues = int64_t{1} << 18;

// One op call over [kValues / n, n] (complex: [..., n, 2]) of `dtype`.
void run_transform(benchmark::State& state, const char* op_name, ops_dtype_t dtype, bool complex_input) {
  ops_set_num_threads(1);
  const int64_t n = state.range(0), batch = kValues / n;
  const int64_t shape[3] = {batch, n, 2};
  const int rank = complex_input ? 3 : 2;
  const int64_t count = batch * n * (complex_input ? 2 : 1);
  std::vector<double> values(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) values[static_cast<size_t>(i)] = std::sin(0.37 * static_cast<double>(i));
  std::vector<float> values_f(values.begin(), values.end());
  const bool f32 = dtype == OPS_DTYPE_FLOAT32;
  ops_array_t* x = nullptr;
  ops_array_create_from(dtype, rank, shape, f32 ? static_cast<const void*>(values_f.data()) : values.data(),
                        static_cast<size_t>(count) * (f32 ? 4 : 8), &x);
  // The output: fft's shape is x's; rfft keeps n / 2 + 1 bins.
  const int64_t out_shape[3] = {batch, complex_input ? n : n / 2 + 1, 2};
  ops_array_t* z = nullptr;
  ops_array_create(dtype, 3, out_shape, 'c', &z);
  ops_op_t* op = nullptr;
  if (ops_op_find(op_name, &op) != OPS_OK) state.SkipWithError(ops_last_error());
  ops_array_t* in[1] = {x};
  ops_array_t* out[1] = {z};
  for (auto _ : state) {
    if (op && ops_op_exec(op, in, 1, out, 1, nullptr) != OPS_OK) {
      state.SkipWithError(ops_last_error());
      break;
    }
  }
  ops_array_free(z);
  ops_array_free(x);
  ops_set_num_threads(0);
}

void BM_FftFloat64(benchmark::State& s) { run_transform(s, "fft", OPS_DTYPE_FLOAT64, true); }
void BM_FftFloat32(benchmark::State& s) { run_transform(s, "fft", OPS_DTYPE_FLOAT32, true); }
void BM_RfftFloat32(benchmark::State& s) { run_transform(s, "rfft", OPS_DTYPE_FLOAT32, false); }

}  // namespace

BENCHMARK(BM_FftFloat64)->Arg(256)->Arg(1024)->Arg(4096)->Arg(65536)->Arg(kValues)->Arg(1000)->Arg(1009)
    ->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_FftFloat32)->Arg(1024)->Arg(65536)->Arg(kValues)->Arg(1009)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_RfftFloat32)->Arg(1024)->Arg(65536)->Arg(kValues)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
