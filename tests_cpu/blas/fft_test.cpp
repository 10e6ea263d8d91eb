// blas/fft.h on the CPU against the DFT's definition, summed in long double
// with exactly reduced angles: every length from 1 to 70 (each radix path,
// direct primes up to 31, Bluestein above), longer powers of two, smooth
// and prime lengths up to 4099, both precisions, strided signals
// ([outer, n, inner] with inner > 1), the real transforms with cropped and
// padded bins, in place and out of place, many signals at once (the
// threaded path and Note [Signals in lanes]), and the argument errors.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <numbers>
#include <random>
#include <vector>

#include "blas/fft.h"
#include "test_util.h"

namespace libops {
namespace {

using cld = std::complex<long double>;

// sum_t x[t] exp(sign 2 pi i t k / n), per k, from a table of the n roots.
std::vector<cld> naive_dft(const std::vector<cld>& x, int sign) {
  const int64_t n = static_cast<int64_t>(x.size());
  std::vector<cld> roots(x.size());
  for (int64_t j = 0; j < n; ++j) {
    const long double angle =
        sign * 2.0L * std::numbers::pi_v<long double> * static_cast<long double>(j) / static_cast<long double>(n);
    roots[static_cast<size_t>(j)] = cld(std::cos(angle), std::sin(angle));
  }
  std::vector<cld> out(x.size());
  for (int64_t k = 0; k < n; ++k) {
    cld sum = 0;
    for (int64_t t = 0, j = 0; t < n; ++t, j = (j + k) % n) sum += x[static_cast<size_t>(t)] * roots[static_cast<size_t>(j)];
    out[static_cast<size_t>(k)] = sum;
  }
  return out;
}

std::vector<cld> random_signal(int64_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<cld> x(static_cast<size_t>(n));
  for (cld& v : x) {
    const double re = u(gen), im = u(gen);
    v = cld(re, im);
  }
  return x;
}

// Interleaved (re, im) of T, [outer, n, inner] with every signal equal to
// x times (1 + signal index), so a mix-up between signals shows.
template <typename T>
std::vector<T> interleave(const std::vector<cld>& x, int64_t outer, int64_t inner) {
  const int64_t n = static_cast<int64_t>(x.size());
  std::vector<T> d(static_cast<size_t>(2 * outer * n * inner));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t t = 0; t < n; ++t)
      for (int64_t i = 0; i < inner; ++i) {
        const long double f = static_cast<long double>(1 + o * inner + i);
        const size_t at = static_cast<size_t>(2 * ((o * n + t) * inner + i));
        d[at] = static_cast<T>(f * x[static_cast<size_t>(t)].real());
        d[at + 1] = static_cast<T>(f * x[static_cast<size_t>(t)].imag());
      }
  return d;
}

// Max |got - f * want| over every signal, relative to max |want| (f as in
// interleave).
template <typename T>
double max_rel_error(const std::vector<T>& got, const std::vector<cld>& want, int64_t outer, int64_t inner,
                     long double scale = 1.0L) {
  const int64_t n = static_cast<int64_t>(want.size());
  long double peak = 0, worst = 0;
  for (const cld& w : want) peak = std::max(peak, std::abs(w * scale));
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t t = 0; t < n; ++t)
      for (int64_t i = 0; i < inner; ++i) {
        const long double f = static_cast<long double>(1 + o * inner + i);
        const size_t at = static_cast<size_t>(2 * ((o * n + t) * inner + i));
        const cld w = want[static_cast<size_t>(t)] * scale * f;
        worst = std::max(worst, std::abs(cld(got[at], got[at + 1]) - w) / f);
      }
  return static_cast<double>(worst / std::max(peak, 1e-30L));
}

template <typename T>
void expect_c2c_matches(int64_t n, int64_t outer, int64_t inner, double tol) {
  const DataType dt = dtype_of_v<T>;
  const std::vector<cld> x = random_signal(n, static_cast<uint32_t>(n));
  // Forward out of place (the input stays as it was), inverse in place.
  const std::vector<T> in = interleave<T>(x, outer, inner);
  std::vector<T> d(in.size());
  ASSERT_TRUE(blas::fft_c2c_on(Device::cpu(), dt, false, outer, n, inner, in.data(), d.data(), 1.0).is_ok());
  EXPECT_LT(max_rel_error(d, naive_dft(x, -1), outer, inner), tol) << "forward n=" << n << " " << dtype_name(dt);
  EXPECT_EQ(in, interleave<T>(x, outer, inner));
  d = in;
  ASSERT_TRUE(blas::fft_c2c_on(Device::cpu(), dt, true, outer, n, inner, d.data(), d.data(), 0.5).is_ok());
  EXPECT_LT(max_rel_error(d, naive_dft(x, +1), outer, inner, 0.5L), tol) << "inverse n=" << n << " " << dtype_name(dt);
}

TEST(BlasFft, EveryLengthUpTo70) {
  for (int64_t n = 1; n <= 70; ++n) {
    expect_c2c_matches<double>(n, 1, 1, 1e-14);
    expect_c2c_matches<float>(n, 1, 1, 2e-6);
  }
}

TEST(BlasFft, LongerLengths) {
  // Powers of two, smooth lengths, a product with a direct prime, primes and
  // a prime times a power of two (Bluestein).
  for (int64_t n : {128, 243, 625, 1000, 1024, 2 * 29 * 3, 4096, 97, 1009, 4099, 8 * 37}) {
    expect_c2c_matches<double>(n, 1, 1, 1e-13);
    expect_c2c_matches<float>(n, 1, 1, 5e-6);
  }
}

TEST(BlasFft, StridedAndBatchedSignals) {
  for (int64_t n : {12, 37}) {
    expect_c2c_matches<double>(n, 3, 4, 1e-14);
    expect_c2c_matches<float>(n, 2, 5, 2e-6);
  }
  // More signals than one thread chunk takes: the threaded path.
  expect_c2c_matches<double>(64, 1, 700, 1e-14);
  expect_c2c_matches<double>(64, 700, 1, 1e-14);
}

// Real to complex and back over [outer, n, inner], every signal x times
// (1 + its index), against the DFT of x.
template <typename T>
void expect_real_transforms_match(int64_t n, int64_t outer, int64_t inner, double tol) {
  const DataType dt = dtype_of_v<T>;
  std::vector<cld> x = random_signal(n, static_cast<uint32_t>(n + 7));
  for (cld& v : x) v = cld(v.real(), 0);
  const std::vector<cld> spectrum = naive_dft(x, -1);
  const int64_t h = blas::real_fft_bins(n), signals = outer * inner;
  const std::vector<T> complex_in = interleave<T>(x, outer, inner);
  std::vector<T> real_in(static_cast<size_t>(signals * n));
  for (size_t j = 0; j < real_in.size(); ++j) real_in[j] = complex_in[2 * j];
  std::vector<T> bins(static_cast<size_t>(2 * signals * h));
  ASSERT_TRUE(blas::fft_r2c_on(Device::cpu(), dt, outer, n, inner, real_in.data(), bins.data()).is_ok());
  const std::vector<cld> kept(spectrum.begin(), spectrum.begin() + h);
  EXPECT_LT(max_rel_error(bins, kept, outer, inner), tol) << "r2c n=" << n << " " << dtype_name(dt);
  // Back: the imaginary parts of bins 0 and n / 2 are rounding noise here,
  // which the inverse must drop as it drops any.
  std::vector<T> back(real_in.size());
  ASSERT_TRUE(
      blas::fft_c2r_on(Device::cpu(), dt, outer, h, n, inner, bins.data(), back.data(), 1.0 / static_cast<double>(n))
          .is_ok());
  double worst = 0, peak = 0;
  for (size_t j = 0; j < back.size(); ++j) {
    worst = std::max(worst, std::abs(static_cast<double>(back[j]) - static_cast<double>(real_in[j])));
    peak = std::max(peak, std::abs(static_cast<double>(real_in[j])));
  }
  EXPECT_LT(worst / peak, tol) << "c2r n=" << n << " " << dtype_name(dt);
}

TEST(BlasFft, SignalsInLanesEveryLayout) {
  // Enough signals for whole packs of 4 doubles or 8 floats and some left
  // over, laid out along the last axis (unit stride), along an inner axis
  // (neighbouring signals), and both (packs that cross an outer index).
  // Lengths: odd and even, radix, direct-prime and Bluestein paths.
  for (int64_t n : {1, 2, 5, 8, 12, 37, 60, 97}) {
    for (auto [outer, inner] : {std::pair<int64_t, int64_t>{19, 1}, {1, 19}, {3, 7}}) {
      expect_c2c_matches<double>(n, outer, inner, 1e-13);
      expect_c2c_matches<float>(n, outer, inner, 5e-6);
      expect_real_transforms_match<double>(n, outer, inner, 1e-13);
      expect_real_transforms_match<float>(n, outer, inner, 5e-6);
    }
  }
}

// sum_j a_j exp(2 pi i f_j t / n), angles reduced exactly: its DFT is
// n a_j at bin f_j and zero elsewhere.
std::vector<cld> tones(int64_t n, const std::vector<std::pair<int64_t, cld>>& parts) {
  std::vector<cld> x(static_cast<size_t>(n), 0);
  for (const auto& [f, a] : parts)
    for (int64_t t = 0; t < n; ++t) {
      const long double angle = 2.0L * std::numbers::pi_v<long double> * static_cast<long double>((f * t) % n) /
                                static_cast<long double>(n);
      x[static_cast<size_t>(t)] += a * cld(std::cos(angle), std::sin(angle));
    }
  return x;
}

// The signals of expect_long_transforms_match: three tones, and a cosine.
struct LongSignals {
  int64_t n;
  std::vector<std::pair<int64_t, cld>> parts;
  std::vector<cld> x, spectrum, real_x;
  int64_t f;
  explicit LongSignals(int64_t length)
      : n(length),
        parts{{3, cld(1.0L, 0.5L)}, {n / 3 + 1, cld(-0.25L, 2.0L)}, {n - 7, cld(0.75L, -1.0L)}},
        x(tones(n, parts)),
        spectrum(static_cast<size_t>(n), 0),
        f(n / 5 + 2) {
    for (const auto& [bin, a] : parts) spectrum[static_cast<size_t>(bin)] += static_cast<long double>(n) * a;
    real_x = tones(n, {{f, cld(0.5L, 0)}, {n - f, cld(0.5L, 0)}});
  }
};

template <typename T>
void expect_long_transforms_match(const LongSignals& sig, int64_t outer, int64_t inner, double tol) {
  const DataType dt = dtype_of_v<T>;
  const int64_t n = sig.n;
  const std::vector<cld>& x = sig.x;
  const std::vector<cld>& spectrum = sig.spectrum;
  std::vector<T> d = interleave<T>(x, outer, inner);
  ASSERT_TRUE(blas::fft_c2c_on(Device::cpu(), dt, false, outer, n, inner, d.data(), d.data(), 1.0).is_ok());
  EXPECT_LT(max_rel_error(d, spectrum, outer, inner), tol) << "forward n=" << n << " " << dtype_name(dt);
  ASSERT_TRUE(blas::fft_c2c_on(Device::cpu(), dt, true, outer, n, inner, d.data(), d.data(),
                               1.0 / static_cast<double>(n)).is_ok());
  EXPECT_LT(max_rel_error(d, x, outer, inner), tol) << "inverse n=" << n << " " << dtype_name(dt);
  // Real: cos(2 pi f t / n) has n / 2 at bin f (f < n / 2) of its n / 2 + 1.
  const int64_t h = blas::real_fft_bins(n);
  std::vector<cld> bins(static_cast<size_t>(h), 0);
  bins[static_cast<size_t>(sig.f)] = static_cast<long double>(n) / 2;
  const std::vector<T> complex_in = interleave<T>(sig.real_x, outer, inner);
  std::vector<T> real_in(complex_in.size() / 2), out(static_cast<size_t>(2 * outer * h * inner)),
      back(real_in.size());
  for (size_t j = 0; j < real_in.size(); ++j) real_in[j] = complex_in[2 * j];
  ASSERT_TRUE(blas::fft_r2c_on(Device::cpu(), dt, outer, n, inner, real_in.data(), out.data()).is_ok());
  EXPECT_LT(max_rel_error(out, bins, outer, inner), tol) << "r2c n=" << n << " " << dtype_name(dt);
  ASSERT_TRUE(blas::fft_c2r_on(Device::cpu(), dt, outer, h, n, inner, out.data(), back.data(),
                               1.0 / static_cast<double>(n)).is_ok());
  double worst = 0;
  for (size_t j = 0; j < back.size(); ++j)
    worst = std::max(worst, std::abs(static_cast<double>(back[j]) - static_cast<double>(real_in[j])));
  EXPECT_LT(worst / static_cast<double>(outer * inner), tol) << "c2r n=" << n << " " << dtype_name(dt);
}

TEST(BlasFft, LongLengthsTakeTheFourStepPath) {
  // Note [Four-step FFT] (float32; float64 runs the same lengths through its
  // plain passes): lengths from 2^14 up (the real transforms run the complex
  // plan of n / 2), one signal, several, and signals along an inner axis.
  const LongSignals pow2(int64_t{1} << 15), smooth(int64_t{3} << 14);
  for (auto [outer, inner] : {std::pair<int64_t, int64_t>{1, 1}, {5, 1}, {1, 9}}) {
    expect_long_transforms_match<double>(pow2, outer, inner, 1e-12);
    expect_long_transforms_match<float>(pow2, outer, inner, 2e-5);
  }
  expect_long_transforms_match<double>(smooth, 1, 1, 1e-12);
  expect_long_transforms_match<float>(smooth, 1, 1, 2e-5);
}

TEST(BlasFft, RealToComplexKeepsTheFirstHalf) {
  for (int64_t n : {1, 2, 7, 10, 37, 64}) {
    std::vector<cld> x = random_signal(n, 99);
    for (cld& v : x) v = cld(v.real(), 0);
    const std::vector<cld> want = naive_dft(x, -1);
    const int64_t h = blas::real_fft_bins(n), inner = 3;
    std::vector<double> in(static_cast<size_t>(n * inner)), out(static_cast<size_t>(2 * h * inner));
    for (int64_t t = 0; t < n; ++t)
      for (int64_t i = 0; i < inner; ++i) in[static_cast<size_t>(t * inner + i)] = (1 + i) * static_cast<double>(x[static_cast<size_t>(t)].real());
    ASSERT_TRUE(blas::fft_r2c_on(Device::cpu(), DataType::kFloat64, 1, n, inner, in.data(), out.data()).is_ok());
    const std::vector<cld> kept(want.begin(), want.begin() + h);
    EXPECT_LT(max_rel_error(out, kept, 1, inner), 1e-14) << "n=" << n;
  }
}

TEST(BlasFft, ComplexToRealCropsPadsAndIgnoresTheImaginaryEdges) {
  // bins[k], k < m, with imaginary parts on bin 0 and bin n/2 that a real
  // result cannot hold; the reference is the inverse DFT of the Hermitian
  // spectrum made from the first min(m, h) bins, those parts dropped.
  for (auto [m, n] : {std::pair<int64_t, int64_t>{5, 8}, {5, 9}, {5, 16}, {6, 4}, {1, 1}, {3, 37}}) {
    const std::vector<cld> bins = random_signal(m, static_cast<uint32_t>(m * 100 + n));
    const int64_t h = blas::real_fft_bins(n);
    std::vector<cld> full(static_cast<size_t>(n), 0);
    for (int64_t k = 0; k < std::min(m, h); ++k) full[static_cast<size_t>(k)] = bins[static_cast<size_t>(k)];
    full[0] = full[0].real();
    if (n % 2 == 0 && n / 2 < m) full[static_cast<size_t>(n / 2)] = full[static_cast<size_t>(n / 2)].real();
    for (int64_t k = h; k < n; ++k) full[static_cast<size_t>(k)] = std::conj(full[static_cast<size_t>(n - k)]);
    const std::vector<cld> want = naive_dft(full, +1);
    std::vector<float> in = interleave<float>(bins, 2, 1), out(static_cast<size_t>(2 * n));
    ASSERT_TRUE(
        blas::fft_c2r_on(Device::cpu(), DataType::kFloat32, 2, m, n, 1, in.data(), out.data(), 1.0 / n).is_ok());
    for (int64_t s = 0; s < 2; ++s)
      for (int64_t t = 0; t < n; ++t)
        EXPECT_NEAR(out[static_cast<size_t>(s * n + t)],
                    static_cast<double>((1 + s) * want[static_cast<size_t>(t)].real() / n), 1e-5)
            << "m=" << m << " n=" << n << " signal " << s << " t=" << t;
  }
}

TEST(BlasFft, ArgumentErrors) {
  std::vector<float> d(8);
  Status s = blas::fft_c2c_on(Device::cpu(), DataType::kFloat16, false, 1, 4, 1, d.data(), d.data(), 1.0);
  EXPECT_EQ(s.code(), StatusCode::kNotImplemented);
  EXPECT_EQ(s.message(), "fft c2c: dtype float16 is not supported (float32, float64 are)");
  s = blas::fft_c2c_on(Device::cpu(), DataType::kFloat32, false, 1, 0, 1, d.data(), d.data(), 1.0);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "fft c2c: outer=1 and inner=1 must be >= 0 and the length n=0 >= 1");
  s = blas::fft_r2c_on(Device::cpu(), DataType::kFloat32, 1, 4, 1, nullptr, d.data());
  EXPECT_EQ(s.code(), StatusCode::kNullPointer);
  EXPECT_EQ(s.message(), "fft r2c: null data pointer");
  s = blas::fft_c2r_on(Device::cpu(), DataType::kFloat32, 1, 0, 4, 1, d.data(), d.data(), 1.0);
  EXPECT_EQ(s.message(), "fft c2r: the input has 0 bins; it needs at least 1");
  // No signals: nothing is read, null pointers included.
  EXPECT_TRUE(blas::fft_c2c_on(Device::cpu(), DataType::kFloat64, false, 0, 4, 1, nullptr, nullptr, 1.0).is_ok());
}

}  // namespace
}  // namespace libops
