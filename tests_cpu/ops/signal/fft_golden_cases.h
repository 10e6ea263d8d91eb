// The numpy golden cases of the Fourier-transform ops
// (tools/gen_goldens_fft.py, tests_cpu/golden/signal/), shared by tests_cpu
// and tests_cuda: each case's input, expected output and i args.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "golden_util.h"

namespace libops::test {

struct FftGoldenCase {
  const char* op;
  const char* name;
};

inline const FftGoldenCase kFftGoldenCases[] = {
    {"fft", "last_f64"},           {"fft", "radix_mix_f64"},      {"fft", "prime_f64"},
    {"fft", "direct_prime_f64"},   {"fft", "middle_axis_f64"},    {"fft", "two_axes_f32"},
    {"fft", "negative_axis_f32"},  {"fft", "all_axes_f64"},       {"ifft", "last_f64"},
    {"ifft", "radix_mix_f64"},     {"ifft", "prime_f64"},         {"ifft", "direct_prime_f64"},
    {"ifft", "middle_axis_f64"},   {"ifft", "two_axes_f32"},      {"ifft", "negative_axis_f32"},
    {"ifft", "all_axes_f64"},      {"rfft", "even_f64"},          {"rfft", "odd_f64"},
    {"rfft", "prime_f32"},         {"rfft", "middle_axis_f64"},   {"rfft", "two_axes_f32"},
    {"irfft", "default_f64"},      {"irfft", "odd_length_f64"},   {"irfft", "padded_f64"},
    {"irfft", "cropped_f64"},      {"irfft", "middle_axis_f32"},  {"irfft", "two_axes_f64"},
};

struct FftGoldenArrays {
  NDArray x, z;
  std::vector<int64_t> i_args;
};

inline FftGoldenArrays load_fft_golden(const FftGoldenCase& c) {
  const std::string base = std::string("signal/") + c.op + "_" + c.name + "_";
  FftGoldenArrays g{load_golden(base + "x.npy"), load_golden(base + "z.npy"), {}};
  NDArray args = load_golden(base + "args.npy");
  for (int64_t k = 0; k < args.length(); ++k) g.i_args.push_back(args.get_int64(k));
  return g;
}

// Spectra of the golden inputs reach magnitudes ~sqrt(n) * |x| ~ 10: an
// absolute (and relative) tolerance of a few ulps of that.
inline double fft_golden_tolerance(DataType t) { return t == DataType::kFloat64 ? 1e-12 : 1e-5; }

}  // namespace libops::test
