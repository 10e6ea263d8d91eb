// GEMM on the CPU: BLAS for float32/float64, a portable cache-blocked kernel
// for every other dtype (Note [GEMM dtypes] in gemm.h).
#include "blas/gemm.h"

#include <cblas.h>

#include <algorithm>
#include <climits>
#include <strings.h>
#include <cmath>
#include <memory>
#include <type_traits>
#include <vector>

#include "blas/blas_threads.h"
#include "blas/sgemm_dnnl.h"
#include "blas/small_gemm.h"
#include "libops/core/cpu_isa.h"
#include "libops/core/half.h"
#include "libops/core/parallel.h"

namespace libops::blas {

namespace {

// GEMMs of the portable kernel with m*n*k at or below this are spread over
// the batch; bigger ones are parallel inside.
constexpr int64_t kSmallGemm = 64 * 64 * 64;
// Multiply-adds one thread should get before another is started.
constexpr int64_t kWorkPerThread = 1 << 16;

// ---- argument checks -------------------------------------------------------

Status check_gemm_args(const char* what, DataType dtype, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
                       double alpha, const void* a, int64_t lda, const void* b, int64_t ldb, double beta,
                       const void* c, int64_t ldc) {
  if (!dtype_is_valid(dtype) || dtype == DataType::kBool)
    return Status::error(StatusCode::kDtype,
                         "%s: unsupported dtype %s; supported: float16, bfloat16, float32, float64 and integers",
                         what, dtype_name(dtype));
  if (m < 0 || n < 0 || k < 0)
    return Status::error(StatusCode::kInvalidArgument, "%s: negative extent (m=%lld, n=%lld, k=%lld)", what,
                         static_cast<long long>(m), static_cast<long long>(n), static_cast<long long>(k));
  const int64_t a_cols = trans_a ? m : k, b_cols = trans_b ? k : n;
  if (lda < std::max<int64_t>(1, a_cols) || ldb < std::max<int64_t>(1, b_cols) || ldc < std::max<int64_t>(1, n))
    return Status::error(StatusCode::kInvalidArgument,
                         "%s: leading dimension too small: lda=%lld (needs >= %lld), ldb=%lld (needs >= %lld), "
                         "ldc=%lld (needs >= %lld)",
                         what, static_cast<long long>(lda), static_cast<long long>(std::max<int64_t>(1, a_cols)),
                         static_cast<long long>(ldb), static_cast<long long>(std::max<int64_t>(1, b_cols)),
                         static_cast<long long>(ldc), static_cast<long long>(std::max<int64_t>(1, n)));
  const bool c_used = m > 0 && n > 0;
  const bool ab_used = c_used && k > 0 && alpha != 0.0;
  if ((c_used && c == nullptr) || (ab_used && (a == nullptr || b == nullptr)))
    return Status::error(StatusCode::kNullPointer, "%s: null matrix pointer (a=%p, b=%p, c=%p)", what, a, b, c);
  if (!std::isfinite(alpha) || !std::isfinite(beta)) {
    if (!dtype_is_float(dtype))
      return Status::error(StatusCode::kInvalidArgument, "%s: alpha=%g and beta=%g must be finite for %s", what,
                           alpha, beta, dtype_name(dtype));
  }
  if (dtype_is_integer(dtype)) {
    auto whole = [](double v) { return v == std::trunc(v) && std::fabs(v) < 9.2e18; };
    if (!whole(alpha) || !whole(beta))
      return Status::error(StatusCode::kInvalidArgument,
                           "%s: alpha=%g and beta=%g must be whole numbers for integer dtype %s", what, alpha, beta,
                           dtype_name(dtype));
  }
  return Status::ok();
}

// ---- the portable kernel ---------------------------------------------------
//
// Blocked as in the usual GEMM design: C is cut into MC x NC tiles (one task
// each, run in parallel); for each tile, K is walked in KC slices; each slice
// packs op(A) (MC x KC) and op(B) (KC x NC) into dense accumulator-type
// buffers, then a 4-row kernel adds their product into the tile's
// accumulator, whose rows the compiler vectorizes. The tile is stored once,
// converted to the dtype, after the last slice: one rounding per element.

constexpr int64_t kMC = 64;
constexpr int64_t kNC = 256;
constexpr int64_t kKC = 256;

// Accumulator type per dtype: float for float16/bfloat16/float32, double for
// float64; for integers an unsigned type (wrapping arithmetic without signed
// overflow): uint64_t for 64-bit dtypes, uint32_t for narrower ones. The low
// 32 bits of a wrapped sum do not depend on the higher bits, so 32-bit
// accumulation stores exactly what 64-bit accumulation would, and it
// vectorizes (there is no 64-bit vector multiply before AVX-512).
template <typename T>
using int_acc_t = std::conditional_t<(sizeof(T) <= 4), uint32_t, uint64_t>;
template <typename T>
using acc_t = std::conditional_t<std::is_same_v<T, double>, double,
                                 std::conditional_t<std::is_integral_v<T>, int_acc_t<T>, float>>;

template <typename T, typename Acc>
inline Acc to_acc(T v) {
  if constexpr (std::is_integral_v<T>) {
    // Sign-extend signed values: the low bits of every product and sum are
    // then those of the exact integer result.
    if constexpr (std::is_signed_v<T>) return static_cast<Acc>(static_cast<int64_t>(v));
    else return static_cast<Acc>(v);
  } else {
    return static_cast<Acc>(v);
  }
}

template <typename T, typename Acc>
inline T from_acc(Acc v) {
  return static_cast<T>(v);  // integers: keeps the low bits (C++20 modular conversion)
}

// dst[r * cols + c] = src[r * rs + c * cs] for a rows x cols block.
template <typename T, typename Acc>
void pack_block(const void* base, int64_t offset, int64_t rs, int64_t cs, int64_t rows, int64_t cols, Acc* dst) {
  const T* src = static_cast<const T*>(base) + offset;
  if (cs == 1 || rs != 1) {
    for (int64_t r = 0; r < rows; ++r) {
      const T* s = src + r * rs;
      Acc* d = dst + r * cols;
      for (int64_t c = 0; c < cols; ++c) d[c] = to_acc<T, Acc>(s[c * cs]);
    }
  } else {
    // Transposed source: walk it in its own (contiguous) order.
    for (int64_t c = 0; c < cols; ++c) {
      const T* s = src + c * cs;
      for (int64_t r = 0; r < rows; ++r) dst[r * cols + c] = to_acc<T, Acc>(s[r]);
    }
  }
}

// c[i * ldc + j] = alpha * acc[i * cols + j] + beta * c[...]; c is not read
// when beta_zero.
template <typename T, typename Acc>
void store_block(const Acc* acc, int64_t rows, int64_t cols, void* base, int64_t offset, int64_t ldc, Acc alpha,
                 Acc beta, bool beta_zero) {
  T* c = static_cast<T*>(base) + offset;
  for (int64_t i = 0; i < rows; ++i) {
    const Acc* a = acc + i * cols;
    T* row = c + i * ldc;
    if (beta_zero) {
      for (int64_t j = 0; j < cols; ++j) row[j] = from_acc<T, Acc>(alpha * a[j]);
    } else {
      for (int64_t j = 0; j < cols; ++j) row[j] = from_acc<T, Acc>(alpha * a[j] + beta * to_acc<T, Acc>(row[j]));
    }
  }
}

template <typename Acc>
struct GenericKernels {
  void (*pack)(const void*, int64_t, int64_t, int64_t, int64_t, int64_t, Acc*);
  void (*store)(const Acc*, int64_t, int64_t, void*, int64_t, int64_t, Acc, Acc, bool);
};

template <typename T>
GenericKernels<acc_t<T>> kernels_for() {
  return {&pack_block<T, acc_t<T>>, &store_block<T, acc_t<T>>};
}

// acc (rows x cols) += ap (rows x kc) * bp (kc x cols), four rows at a time.
template <typename Acc>
void multiply_panel(const Acc* __restrict ap, const Acc* __restrict bp, Acc* __restrict acc, int64_t rows,
                    int64_t cols, int64_t kc) {
  int64_t i = 0;
  for (; i + 4 <= rows; i += 4) {
    Acc* __restrict c0 = acc + (i + 0) * cols;
    Acc* __restrict c1 = acc + (i + 1) * cols;
    Acc* __restrict c2 = acc + (i + 2) * cols;
    Acc* __restrict c3 = acc + (i + 3) * cols;
    for (int64_t p = 0; p < kc; ++p) {
      const Acc a0 = ap[(i + 0) * kc + p], a1 = ap[(i + 1) * kc + p];
      const Acc a2 = ap[(i + 2) * kc + p], a3 = ap[(i + 3) * kc + p];
      const Acc* __restrict b = bp + p * cols;
      for (int64_t j = 0; j < cols; ++j) {
        const Acc bv = b[j];
        c0[j] += a0 * bv;
        c1[j] += a1 * bv;
        c2[j] += a2 * bv;
        c3[j] += a3 * bv;
      }
    }
  }
  for (; i < rows; ++i) {
    Acc* __restrict c0 = acc + i * cols;
    for (int64_t p = 0; p < kc; ++p) {
      const Acc a0 = ap[i * kc + p];
      const Acc* __restrict b = bp + p * cols;
      for (int64_t j = 0; j < cols; ++j) c0[j] += a0 * b[j];
    }
  }
}

template <typename Acc>
void gemm_blocked(const GenericKernels<Acc>& kern, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k,
                  Acc alpha, const void* a, int64_t lda, const void* b, int64_t ldb, Acc beta, bool beta_zero,
                  void* c, int64_t ldc, bool read_ab) {
  // op(A)(i, p) = A[i * a_rs + p * a_cs]; op(B)(p, j) = B[p * b_rs + j * b_cs].
  const int64_t a_rs = trans_a ? 1 : lda, a_cs = trans_a ? lda : 1;
  const int64_t b_rs = trans_b ? 1 : ldb, b_cs = trans_b ? ldb : 1;
  const int64_t tiles_m = (m + kMC - 1) / kMC, tiles_n = (n + kNC - 1) / kNC;
  const int64_t tile_work = std::min(m, kMC) * std::min(n, kNC) * std::max<int64_t>(k, 1);
  const int64_t grain = std::max<int64_t>(1, kWorkPerThread / tile_work);
  parallel_for(tiles_m * tiles_n, grain, [&](int64_t begin, int64_t end) {
    // Sized to the problem: a batch of tiny GEMMs must not pay for big blocks.
    const int64_t mb = std::min(m, kMC), nb = std::min(n, kNC), kb = std::min(k, kKC);
    std::unique_ptr<Acc[]> ap(new Acc[static_cast<size_t>(mb * kb)]), bp(new Acc[static_cast<size_t>(kb * nb)]),
        acc(new Acc[static_cast<size_t>(mb * nb)]);
    for (int64_t t = begin; t < end; ++t) {
      const int64_t i0 = (t / tiles_n) * kMC, j0 = (t % tiles_n) * kNC;
      const int64_t mc = std::min(kMC, m - i0), nc = std::min(kNC, n - j0);
      std::fill(acc.get(), acc.get() + mc * nc, Acc(0));
      for (int64_t p0 = 0; read_ab && p0 < k; p0 += kKC) {
        const int64_t kc = std::min(kKC, k - p0);
        kern.pack(a, i0 * a_rs + p0 * a_cs, a_rs, a_cs, mc, kc, ap.get());
        kern.pack(b, p0 * b_rs + j0 * b_cs, b_rs, b_cs, kc, nc, bp.get());
        // Compiled per instruction set (Note [Runtime ISA dispatch]).
        isa_dispatch([&] { multiply_panel(ap.get(), bp.get(), acc.get(), mc, nc, kc); });
      }
      kern.store(acc.get(), mc, nc, c, i0 * ldc + j0, ldc, alpha, beta, beta_zero);
    }
  });
}

template <typename T>
void run_generic_as(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha, const void* a,
                    int64_t lda, const void* b, int64_t ldb, double beta, void* c, int64_t ldc) {
  using Acc = acc_t<T>;
  Acc al, be;
  if constexpr (std::is_integral_v<Acc>) {
    // Whole numbers (checked), wrapped to the accumulator like the data.
    al = static_cast<Acc>(static_cast<int64_t>(alpha));
    be = static_cast<Acc>(static_cast<int64_t>(beta));
  } else {
    al = static_cast<Acc>(alpha);
    be = static_cast<Acc>(beta);
  }
  gemm_blocked<Acc>(kernels_for<T>(), trans_a, trans_b, m, n, k, al, a, lda, b, ldb, be, beta == 0.0, c, ldc,
                    alpha != 0.0);
}

// Arguments checked by the caller; m, n > 0.
void run_generic(DataType dtype, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha,
                 const void* a, int64_t lda, const void* b, int64_t ldb, double beta, void* c, int64_t ldc) {
#define LIBOPS_GEMM_GENERIC_CASE(DT, T) \
  case DataType::DT: return run_generic_as<T>(trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  switch (dtype) {
    LIBOPS_GEMM_GENERIC_CASE(kFloat16, float16)
    LIBOPS_GEMM_GENERIC_CASE(kBFloat16, bfloat16)
    LIBOPS_GEMM_GENERIC_CASE(kFloat32, float)
    LIBOPS_GEMM_GENERIC_CASE(kFloat64, double)
    LIBOPS_GEMM_GENERIC_CASE(kInt8, int8_t)
    LIBOPS_GEMM_GENERIC_CASE(kInt16, int16_t)
    LIBOPS_GEMM_GENERIC_CASE(kInt32, int32_t)
    LIBOPS_GEMM_GENERIC_CASE(kInt64, int64_t)
    LIBOPS_GEMM_GENERIC_CASE(kUInt8, uint8_t)
    LIBOPS_GEMM_GENERIC_CASE(kUInt16, uint16_t)
    LIBOPS_GEMM_GENERIC_CASE(kUInt32, uint32_t)
    LIBOPS_GEMM_GENERIC_CASE(kUInt64, uint64_t)
    default: return;  // bool and invalid are rejected by the checks
  }
#undef LIBOPS_GEMM_GENERIC_CASE
}

// ---- BLAS path -------------------------------------------------------------

bool fits_blas_int(int64_t v) { return v <= INT_MAX; }

template <typename T>
void zero_matrix(void* c, int64_t rows, int64_t cols, int64_t ld) {
  T* p = static_cast<T*>(c);
  for (int64_t i = 0; i < rows; ++i) std::fill(p + i * ld, p + i * ld + cols, T(0));
}

// Note [OpenBLAS core type]
// OpenBLAS picks its kernels once, when it loads: for the CPU it finds, or
// for OPENBLAS_CORETYPE where the environment names one (some container
// images set Haswell). An AVX2 core on an AVX-512 machine runs float32
// GEMMs at about half the machine's peak. So when the core OpenBLAS runs
// is below the machine's level (cpu_isa_supported(), Note [Runtime ISA
// dispatch]), float32 GEMMs go to oneDNN's sgemm instead, which generates
// its kernels for the machine at run time whatever that variable says.
// float64 and the matrix-vector products (bound by memory) stay on
// OpenBLAS.
// Where OpenBLAS runs the machine's own kernels, oneDNN's sgemm still takes
// float32 GEMMs of kDnnlSgemmWork multiply-adds or more on AVX-512 machines:
// it measured 3-10% faster on every shape from 128x64x128 to 1024^3 on one
// thread of an AVX-512 Xeon (2x on 16x512x2048), and 0.4 us slower per call
// below 96^3, where OpenBLAS keeps the work. Not on AVX2 machines: on one
// thread of a 2-core AMD EPYC (OpenBLAS's Zen kernels) oneDNN's sgemm took
// 4.75 ms on 512^3 against OpenBLAS's 3.35, 9.8 on 128x768x3072 against
// 8.9, 0.31 on 16x256x1024 against 0.17, and 1024^3 the same.
constexpr double kDnnlSgemmWork = double{1 << 20};

CpuIsa openblas_core_level(const char* core) {
  if (core == nullptr) return CpuIsa::kBaseline;
  for (const char* name : {"SkylakeX", "Cooperlake", "SapphireRapids"})
    if (strcasecmp(core, name) == 0) return CpuIsa::kAvx512;
  for (const char* name : {"Haswell", "Zen"})
    if (strcasecmp(core, name) == 0) return CpuIsa::kAvx2;
  return CpuIsa::kBaseline;
}

bool sgemm_on_dnnl() {
  static const bool below = static_cast<int>(openblas_core_level(openblas_get_corename())) <
                            static_cast<int>(cpu_isa_supported());
  return below;
}

// Whether large float32 GEMMs go to oneDNN's sgemm even where OpenBLAS runs
// the machine's own kernels (above): on AVX-512 machines only.
bool large_sgemm_on_dnnl() { return sgemm_on_dnnl() || cpu_isa_supported() == CpuIsa::kAvx512; }

// One cblas call (float32 / float64); arguments checked, m, n, k > 0,
// alpha != 0.
void blas_call(DataType dtype, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha,
               const void* a, int64_t lda, const void* b, int64_t ldb, double beta, void* c, int64_t ldc) {
  const bool f32 = dtype == DataType::kFloat32;
  const int im = static_cast<int>(m), in = static_cast<int>(n), ik = static_cast<int>(k);
  if (n == 1 || m == 1) {
    // A matrix-vector product: gemv, which skips GEMM's packing. gemv
    // scales y by beta first; with beta == 0 y is cleared here instead, so
    // whatever the output held (possibly NaN) cannot leak through 0 * NaN.
    if (beta == 0.0) {
      if (f32) zero_matrix<float>(c, m, n, ldc);
      else zero_matrix<double>(c, m, n, ldc);
    }
    CBLAS_TRANSPOSE op;
    int rows, cols, ld, incx, incy;
    const void *mat, *vec;
    if (n == 1) {  // c[:, 0] = op(A) * b[:, 0]
      op = trans_a ? CblasTrans : CblasNoTrans;
      rows = trans_a ? ik : im;
      cols = trans_a ? im : ik;
      mat = a;
      ld = static_cast<int>(lda);
      vec = b;
      incx = trans_b ? 1 : static_cast<int>(ldb);
      incy = static_cast<int>(ldc);
    } else {  // c[0, :] = op(B)^T * a[0, :]
      op = trans_b ? CblasNoTrans : CblasTrans;
      rows = trans_b ? in : ik;
      cols = trans_b ? ik : in;
      mat = b;
      ld = static_cast<int>(ldb);
      vec = a;
      incx = trans_a ? static_cast<int>(lda) : 1;
      incy = 1;
    }
    if (f32)
      cblas_sgemv(CblasRowMajor, op, rows, cols, static_cast<float>(alpha), static_cast<const float*>(mat), ld,
                  static_cast<const float*>(vec), incx, static_cast<float>(beta), static_cast<float*>(c), incy);
    else
      cblas_dgemv(CblasRowMajor, op, rows, cols, alpha, static_cast<const double*>(mat), ld,
                  static_cast<const double*>(vec), incx, beta, static_cast<double*>(c), incy);
    return;
  }
  const double work = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  if (f32 && (sgemm_on_dnnl() || (work >= kDnnlSgemmWork && large_sgemm_on_dnnl())) &&
      sgemm_dnnl(trans_a, trans_b, m, n, k, static_cast<float>(alpha), static_cast<const float*>(a), lda,
                 static_cast<const float*>(b), ldb, static_cast<float>(beta), static_cast<float*>(c), ldc))
    return;
  const CBLAS_TRANSPOSE ta = trans_a ? CblasTrans : CblasNoTrans, tb = trans_b ? CblasTrans : CblasNoTrans;
  if (f32)
    cblas_sgemm(CblasRowMajor, ta, tb, im, in, ik, static_cast<float>(alpha), static_cast<const float*>(a),
                static_cast<int>(lda), static_cast<const float*>(b), static_cast<int>(ldb), static_cast<float>(beta),
                static_cast<float*>(c), static_cast<int>(ldc));
  else
    cblas_dgemm(CblasRowMajor, ta, tb, im, in, ik, alpha, static_cast<const double*>(a), static_cast<int>(lda),
                static_cast<const double*>(b), static_cast<int>(ldb), beta, static_cast<double*>(c),
                static_cast<int>(ldc));
}

// Note [GEMM threads]: OpenBLAS's pthread pool and libops' OpenMP team
// each spin-wait after their work, on the cores the other needs next: a
// 3x3 conv2d (im2col on OpenMP, then the GEMM on OpenBLAS's threads) ran
// slower on 2 threads than on 1 (7.4 ms against 5.2), and in 2.6 ms with
// OpenMP's spinning turned off. So OpenBLAS GEMMs run single-threaded
// (blas_threads.h), and a large one is split here over libops' threads
// instead: C's columns (or its rows, when it has more of them) in one block
// per thread, each a BLAS call over the whole of k. Where oneDNN is built
// in, a large float32 GEMM goes to its sgemm on libops' OpenMP threads
// instead: sgemm 1024 on 2 threads took 9.9 ms there against 11.0 ms
// split over OpenBLAS (oneDNN's matmul primitive: 10.1 ms), measured in one
// run; the models (encoder, BERT, LSTM, U-Net, MLP b64) did not move. That
// was an AVX-512 Xeon; AVX2 machines keep the OpenBLAS split
// (large_sgemm_on_dnnl()).
constexpr int64_t kBlasWorkPerThread = int64_t{1} << 21;  // multiply-adds
constexpr int64_t kBlasSplitAlign = 16;                   // rows or columns per block, a multiple of

void run_blas(DataType dtype, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha, const void* a,
              int64_t lda, const void* b, int64_t ldb, double beta, void* c, int64_t ldc) {
  blas_single_threaded();
  const bool split_n = n >= m;
  const int64_t extent = split_n ? n : m;
  // In double: m * n * k of int-sized extents can pass int64's range.
  const double work = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  const int64_t by_work = static_cast<int64_t>(std::min(work / kBlasWorkPerThread, 1e9));
  const int64_t parts = std::min<int64_t>({get_num_threads(), by_work, extent / kBlasSplitAlign});
  if (parts <= 1 || detail::in_parallel_region())
    return blas_call(dtype, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  // float32 with oneDNN: its sgemm on our OpenMP team (one pool, so the
  // spinning above does not arise), which shares A's and B's packing
  // between the threads instead of each block packing all of A again.
  if (dtype == DataType::kFloat32 && large_sgemm_on_dnnl() &&
      sgemm_dnnl(trans_a, trans_b, m, n, k, static_cast<float>(alpha), static_cast<const float*>(a), lda,
                 static_cast<const float*>(b), ldb, static_cast<float>(beta), static_cast<float*>(c), ldc,
                 static_cast<int>(parts)))
    return;
  const int64_t es = static_cast<int64_t>(dtype_size(dtype));
  const int64_t block = (extent / parts + kBlasSplitAlign - 1) / kBlasSplitAlign * kBlasSplitAlign;
  const int64_t blocks = (extent + block - 1) / block;
  parallel_for(blocks, 1, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const int64_t first = i * block, count = std::min(block, extent - first);
      if (split_n) {  // columns of B (rows when B is transposed) and of C
        const char* bi = static_cast<const char*>(b) + (trans_b ? first * ldb : first) * es;
        blas_call(dtype, trans_a, trans_b, m, count, k, alpha, a, lda, bi, ldb, beta,
                  static_cast<char*>(c) + first * es, ldc);
      } else {  // rows of A (columns when A is transposed) and of C
        const char* ai = static_cast<const char*>(a) + (trans_a ? first : first * lda) * es;
        blas_call(dtype, trans_a, trans_b, count, n, k, alpha, ai, lda, b, ldb, beta,
                  static_cast<char*>(c) + first * ldc * es, ldc);
      }
    }
  });
}

// Note [16-bit GEMMs]
// A float16 or bfloat16 GEMM of some size is the float32 one on widened
// copies: A, B (and C where beta reads it) converted to float32 by the
// bulk converters (F16C where the CPU has it), the float32 path's GEMM,
// and C rounded back once. The portable kernel, which accumulates in float
// too (so the results agree within float32's rounding), ran [64, 512] x
// [512, 512] in 2.2 ms at one thread (15 GFLOP/s) where the widened sgemm
// takes BLAS's time plus the conversions. Below kWidenWork multiply-adds
// the copies cost more than they save.
constexpr int64_t kWidenWork = int64_t{1} << 15;

// rows x cols of 16-bit dtype `dtype` at src (row stride ld) as dense float32.
void widen(DataType dtype, const void* src, int64_t rows, int64_t cols, int64_t ld, std::vector<float>& out) {
  out.resize(static_cast<size_t>(rows * cols));
  const auto* s = static_cast<const uint16_t*>(src);
  parallel_for(rows, std::max<int64_t>(1, 16384 / std::max<int64_t>(cols, 1)), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      if (dtype == DataType::kFloat16) half_to_float_n(s + r * ld, out.data() + r * cols, cols);
      else bf16_to_float_n(s + r * ld, out.data() + r * cols, cols);
    }
  });
}

void run_widened(DataType dtype, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha,
                 const void* a, int64_t lda, const void* b, int64_t ldb, double beta, void* c, int64_t ldc) {
  std::vector<float> af, bf, cf;
  const int64_t a_rows = trans_a ? k : m, a_cols = trans_a ? m : k;
  const int64_t b_rows = trans_b ? n : k, b_cols = trans_b ? k : n;
  widen(dtype, a, a_rows, a_cols, lda, af);
  widen(dtype, b, b_rows, b_cols, ldb, bf);
  if (beta != 0.0) widen(dtype, c, m, n, ldc, cf);
  else cf.resize(static_cast<size_t>(m * n));
  run_blas(DataType::kFloat32, trans_a, trans_b, m, n, k, alpha, af.data(), a_cols, bf.data(), b_cols, beta,
           cf.data(), n);
  auto* z = static_cast<uint16_t*>(c);
  parallel_for(m, std::max<int64_t>(1, 16384 / std::max<int64_t>(n, 1)), [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      if (dtype == DataType::kFloat16) float_to_half_n(cf.data() + r * n, z + r * ldc, n);
      else float_to_bf16_n(cf.data() + r * n, z + r * ldc, n);
    }
  });
}

// One checked GEMM: picks BLAS, BLAS on widened 16-bit operands, or the
// portable kernel.
void run_gemm(DataType dtype, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha, const void* a,
              int64_t lda, const void* b, int64_t ldb, double beta, void* c, int64_t ldc) {
  if (m == 0 || n == 0) return;
  const bool blas_dtype = dtype == DataType::kFloat32 || dtype == DataType::kFloat64;
  const bool sixteen = dtype == DataType::kFloat16 || dtype == DataType::kBFloat16;
  // k == 0 and alpha == 0 only scale C, which the portable kernel does
  // without reading A or B.
  const bool blas_sizes = k > 0 && alpha != 0.0 && fits_blas_int(m) && fits_blas_int(n) && fits_blas_int(k) &&
                          fits_blas_int(lda) && fits_blas_int(ldb) && fits_blas_int(ldc);
  if (blas_dtype && blas_sizes) return run_blas(dtype, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  if (sixteen && blas_sizes && static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k) >= kWidenWork)
    return run_widened(dtype, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  run_generic(dtype, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

}  // namespace

Status gemm(DataType dtype, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha, const void* a,
            int64_t lda, const void* b, int64_t ldb, double beta, void* c, int64_t ldc) {
  RETURN_IF_ERROR(check_gemm_args("gemm", dtype, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc));
  if (alpha != 0.0 && is_small_gemm(dtype, m, n, k)) {  // Note [Small matrices]
    small_gemm_batched(dtype, trans_a, trans_b, m, n, k, alpha, a, lda, 0, b, ldb, 0, beta, c, ldc, 0, 1);
    return Status::ok();
  }
  run_gemm(dtype, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  return Status::ok();
}

Status gemm_generic(DataType dtype, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha,
                    const void* a, int64_t lda, const void* b, int64_t ldb, double beta, void* c, int64_t ldc) {
  RETURN_IF_ERROR(
      check_gemm_args("gemm_generic", dtype, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc));
  if (m > 0 && n > 0) run_generic(dtype, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  return Status::ok();
}

Status gemm_batched(DataType dtype, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha,
                    const void* a, int64_t lda, int64_t stride_a, const void* b, int64_t ldb, int64_t stride_b,
                    double beta, void* c, int64_t ldc, int64_t stride_c, int64_t batch) {
  RETURN_IF_ERROR(
      check_gemm_args("gemm_batched", dtype, trans_a, trans_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc));
  RETURN_IF_NOT(batch >= 0, StatusCode::kInvalidArgument, "gemm_batched: negative batch count %lld",
                static_cast<long long>(batch));
  RETURN_IF_NOT(stride_a >= 0 && stride_b >= 0, StatusCode::kInvalidArgument,
                "gemm_batched: negative batch stride (stride_a=%lld, stride_b=%lld)",
                static_cast<long long>(stride_a), static_cast<long long>(stride_b));
  if (batch == 0 || m == 0 || n == 0) return Status::ok();
  // Each C matrix spans (m - 1) * ldc + n elements; the next must start after it.
  const int64_t c_span = (m - 1) * ldc + n;
  RETURN_IF_NOT(batch == 1 || stride_c >= c_span, StatusCode::kInvalidArgument,
                "gemm_batched: C matrices overlap: stride_c=%lld but each spans %lld elements",
                static_cast<long long>(stride_c), static_cast<long long>(c_span));
  if (alpha != 0.0 && is_small_gemm(dtype, m, n, k)) {  // Note [Small matrices]
    small_gemm_batched(dtype, trans_a, trans_b, m, n, k, alpha, a, lda, stride_a, b, ldb, stride_b, beta, c, ldc,
                       stride_c, batch);
    return Status::ok();
  }
  const size_t es = dtype_size(dtype);
  const char* ab = static_cast<const char*>(a);
  const char* bb = static_cast<const char*>(b);
  char* cb = static_cast<char*>(c);
  auto one = [&](int64_t i) {
    run_gemm(dtype, trans_a, trans_b, m, n, k, alpha, ab + i * stride_a * static_cast<int64_t>(es), lda,
             bb + i * stride_b * static_cast<int64_t>(es), ldb, beta, cb + i * stride_c * static_cast<int64_t>(es),
             ldc);
  };
  const int64_t work = m * n * std::max<int64_t>(k, 1);
  const bool blas_dtype = dtype == DataType::kFloat32 || dtype == DataType::kFloat64;
  // BLAS GEMMs too small for run_blas to split but big enough not to
  // contend inside OpenBLAS (below) take whole entries per thread: an
  // attention's 8 heads of 128x128x64 ran on one thread at 2.
  if (blas_dtype && batch > 1 && work >= kSmallGemm && work < 2 * kBlasWorkPerThread && get_num_threads() > 1) {
    parallel_for(batch, std::max<int64_t>(1, kBlasWorkPerThread / work), [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) one(i);
    });
    return Status::ok();
  }
  if (blas_dtype || work > kSmallGemm) {
    // BLAS calls run one after the other: run_blas splits big ones over
    // the threads (Note [GEMM threads]), and concurrent calls of small ones
    // from several threads contend inside OpenBLAS (measured: 4096 8x8x8
    // sgemms take ~0.9 ms in a loop, ~8 ms spread over 2 threads). Big
    // portable-kernel GEMMs are parallel inside.
    for (int64_t i = 0; i < batch; ++i) one(i);
    return Status::ok();
  }
  parallel_for(batch, std::max<int64_t>(1, kWorkPerThread / work), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) one(i);
  });
  return Status::ok();
}

}  // namespace libops::blas
