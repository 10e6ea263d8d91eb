// Cholesky and triangular solves on the CPU (LAPACK potrf and cblas trsm
// from OpenBLAS), and the dispatch of both to a device backend.
//
// Note [NaN pivots]: OpenBLAS's potrf tests each pivot with `<= 0`, so a
// NaN pivot passes and the factor fills with NaN; reference LAPACK reports
// it as not positive definite (info = its order). potrf_batched_cpu does the same by looking
// for the first NaN on the factor's diagonal after a successful call: a NaN
// anywhere in the triangle read reaches the diagonal of its row, so the
// first NaN pivot is where the reference would stop.
//
// Batches run one matrix after the other: OpenBLAS threads each call
// itself (at libops' thread count, blas_threads.h), and calling it from
// several of our threads at once would stack two thread pools.
#include "blas/linalg.h"

#include <cblas.h>

#include <atomic>
#include <climits>
#include <cmath>
#include <cstddef>
#include <initializer_list>

#include "blas/blas_threads.h"

// LAPACK's Cholesky, from the BLAS library we link (there is no LAPACKE
// header here). The trailing length is the hidden length of the character
// argument that Fortran compilers pass; a C implementation ignores it.
extern "C" {
void spotrf_(const char* uplo, const int* n, float* a, const int* lda, int* info, size_t uplo_len);
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info, size_t uplo_len);
}

namespace libops::blas {

namespace {

std::atomic<const DeviceLinalg*> g_device_linalg[kNumDeviceTypes];

Status check_dtype(const char* what, DataType dtype) {
  if (dtype == DataType::kFloat32 || dtype == DataType::kFloat64) return Status::ok();
  return Status::error(StatusCode::kNotImplemented, "%s: dtype %s is not supported (float32, float64 are)", what,
                       dtype_name(dtype));
}

// BLAS and LAPACK count in int.
Status check_int_extents(const char* what, std::initializer_list<int64_t> extents) {
  for (int64_t v : extents)
    if (v > INT_MAX)
      return Status::error(StatusCode::kInvalidArgument, "%s: extent %lld is above BLAS's int limit %d", what,
                           static_cast<long long>(v), INT_MAX);
  return Status::ok();
}

Status check_potrf_args(DataType dtype, int64_t n, const void* a, int64_t lda, int64_t stride, int64_t batch) {
  RETURN_IF_ERROR(check_dtype("potrf", dtype));
  if (n < 0 || batch < 0 || stride < 0)
    return Status::error(StatusCode::kInvalidArgument, "potrf: negative n=%lld, batch=%lld or stride=%lld",
                         static_cast<long long>(n), static_cast<long long>(batch), static_cast<long long>(stride));
  if (n == 0 || batch == 0) return Status::ok();
  if (lda < n)
    return Status::error(StatusCode::kInvalidArgument, "potrf: lda=%lld is below n=%lld", static_cast<long long>(lda),
                         static_cast<long long>(n));
  if (a == nullptr) return Status::error(StatusCode::kNullPointer, "potrf: null matrix pointer");
  return check_int_extents("potrf", {n, lda});
}

Status check_trsm_args(DataType dtype, int64_t n, int64_t k, const void* a, int64_t lda, int64_t stride_a,
                       const void* b, int64_t ldb, int64_t stride_b, int64_t batch) {
  RETURN_IF_ERROR(check_dtype("trsm", dtype));
  if (n < 0 || k < 0 || batch < 0 || stride_a < 0 || stride_b < 0)
    return Status::error(StatusCode::kInvalidArgument,
                         "trsm: negative n=%lld, k=%lld, batch=%lld, stride_a=%lld or stride_b=%lld",
                         static_cast<long long>(n), static_cast<long long>(k), static_cast<long long>(batch),
                         static_cast<long long>(stride_a), static_cast<long long>(stride_b));
  if (n == 0 || k == 0 || batch == 0) return Status::ok();
  if (lda < n || ldb < k)
    return Status::error(StatusCode::kInvalidArgument,
                         "trsm: leading dimension too small: lda=%lld (needs >= %lld), ldb=%lld (needs >= %lld)",
                         static_cast<long long>(lda), static_cast<long long>(n), static_cast<long long>(ldb),
                         static_cast<long long>(k));
  if (a == nullptr || b == nullptr)
    return Status::error(StatusCode::kNullPointer, "trsm: null matrix pointer (a=%p, b=%p)", a, b);
  return check_int_extents("trsm", {n, k, lda, ldb});
}

// The order of the first NaN pivot on the diagonal of an n x n factor, or 0.
template <typename T>
int64_t first_nan_pivot(const void* m, int64_t n, int64_t lda) {
  const T* p = static_cast<const T*>(m);
  for (int64_t j = 0; j < n; ++j)
    if (std::isnan(p[j * lda + j])) return j + 1;
  return 0;
}

Status potrf_batched_cpu(DataType dtype, bool lower, int64_t n, void* a, int64_t lda, int64_t stride, int64_t batch,
                         int64_t* bad_matrix, int64_t* bad_order) {
  *bad_matrix = -1;
  *bad_order = 0;
  RETURN_IF_ERROR(check_potrf_args(dtype, n, a, lda, stride, batch));
  if (n == 0 || batch == 0) return Status::ok();
  blas_threads_follow_libops();
  // Note [Row-major LAPACK]: the row-major lower triangle is LAPACK's upper.
  const char uplo = lower ? 'U' : 'L';
  const int in = static_cast<int>(n), ild = static_cast<int>(lda);
  const size_t item = dtype_size(dtype);
  for (int64_t i = 0; i < batch; ++i) {
    void* m = static_cast<char*>(a) + static_cast<size_t>(i * stride) * item;
    int info = 0;
    if (dtype == DataType::kFloat32) spotrf_(&uplo, &in, static_cast<float*>(m), &ild, &info, 1);
    else dpotrf_(&uplo, &in, static_cast<double*>(m), &ild, &info, 1);
    if (info < 0)
      return Status::error(StatusCode::kInternal, "potrf: LAPACK rejected argument %d", -info);
    const int64_t order = info > 0 ? info
                          : dtype == DataType::kFloat32 ? first_nan_pivot<float>(m, n, lda)
                                                        : first_nan_pivot<double>(m, n, lda);
    if (order > 0) {
      *bad_matrix = i;
      *bad_order = order;
      return Status::ok();
    }
  }
  return Status::ok();
}

Status trsm_batched_cpu(DataType dtype, bool lower, bool transpose, bool unit_diag, int64_t n, int64_t k,
                        const void* a, int64_t lda, int64_t stride_a, void* b, int64_t ldb, int64_t stride_b,
                        int64_t batch) {
  RETURN_IF_ERROR(check_trsm_args(dtype, n, k, a, lda, stride_a, b, ldb, stride_b, batch));
  if (n == 0 || k == 0 || batch == 0) return Status::ok();
  blas_threads_follow_libops();
  // cblas takes row-major data itself: a left-side solve with A n x n.
  const CBLAS_UPLO uplo = lower ? CblasLower : CblasUpper;
  const CBLAS_TRANSPOSE op = transpose ? CblasTrans : CblasNoTrans;
  const CBLAS_DIAG diag = unit_diag ? CblasUnit : CblasNonUnit;
  const int in = static_cast<int>(n), ik = static_cast<int>(k), ilda = static_cast<int>(lda),
            ildb = static_cast<int>(ldb);
  const size_t item = dtype_size(dtype);
  for (int64_t i = 0; i < batch; ++i) {
    const void* am = static_cast<const char*>(a) + static_cast<size_t>(i * stride_a) * item;
    void* bm = static_cast<char*>(b) + static_cast<size_t>(i * stride_b) * item;
    if (dtype == DataType::kFloat32)
      cblas_strsm(CblasRowMajor, CblasLeft, uplo, op, diag, in, ik, 1.0f, static_cast<const float*>(am), ilda,
                  static_cast<float*>(bm), ildb);
    else
      cblas_dtrsm(CblasRowMajor, CblasLeft, uplo, op, diag, in, ik, 1.0, static_cast<const double*>(am), ilda,
                  static_cast<double*>(bm), ildb);
  }
  return Status::ok();
}

Status no_device_linalg(const char* what, Device device) {
  return Status::error(StatusCode::kNotImplemented, "%s: no %s implementation (device %s)", what,
                       device_type_name(device.type), device.str().c_str());
}

}  // namespace

void register_device_linalg(DeviceType type, const DeviceLinalg* fns) {
  g_device_linalg[static_cast<int>(type)].store(fns, std::memory_order_release);
}

const DeviceLinalg* device_linalg(DeviceType type) {
  return g_device_linalg[static_cast<int>(type)].load(std::memory_order_acquire);
}

Status potrf_batched_on(Device device, DataType dtype, bool lower, int64_t n, void* a, int64_t lda, int64_t stride,
                        int64_t batch, int64_t* bad_matrix, int64_t* bad_order) {
  if (bad_matrix == nullptr || bad_order == nullptr)
    return Status::error(StatusCode::kNullPointer, "potrf: null bad_matrix or bad_order pointer");
  if (device.is_cpu()) return potrf_batched_cpu(dtype, lower, n, a, lda, stride, batch, bad_matrix, bad_order);
  *bad_matrix = -1;
  *bad_order = 0;
  RETURN_IF_ERROR(check_device(device));
  const DeviceLinalg* fns = device_linalg(device.type);
  if (fns == nullptr || fns->potrf_batched == nullptr) return no_device_linalg("potrf", device);
  return fns->potrf_batched(device.index, dtype, lower, n, a, lda, stride, batch, bad_matrix, bad_order);
}

Status trsm_batched_on(Device device, DataType dtype, bool lower, bool transpose, bool unit_diag, int64_t n,
                       int64_t k, const void* a, int64_t lda, int64_t stride_a, void* b, int64_t ldb, int64_t stride_b,
                       int64_t batch) {
  if (device.is_cpu())
    return trsm_batched_cpu(dtype, lower, transpose, unit_diag, n, k, a, lda, stride_a, b, ldb, stride_b, batch);
  RETURN_IF_ERROR(check_device(device));
  const DeviceLinalg* fns = device_linalg(device.type);
  if (fns == nullptr || fns->trsm_batched == nullptr) return no_device_linalg("trsm", device);
  return fns->trsm_batched(device.index, dtype, lower, transpose, unit_diag, n, k, a, lda, stride_a, b, ldb, stride_b,
                           batch);
}

}  // namespace libops::blas
