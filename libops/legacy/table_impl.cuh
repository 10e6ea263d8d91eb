// Internal: the CUDA counterpart of table_impl.h. One .cu file per table
// turns the same X-macro table into a CUDA run function and registers it
// (legacy/device_tables.h):
//   #include "libops/legacy/ops/binary_ops.h"
//   LIBOPS_CUDA_TABLE(BINARY, binary, kBinary, LIBOPS_BINARY_OPS)
// Kernels are instantiated per op and compute type only, as on the CPU.
#pragma once

#include "libops/backends/cuda/launch_context.h"
#include "libops/legacy/device_tables.h"
#include "libops/legacy/dispatch.h"
#include "libops/loops/elementwise.cuh"
#include "libops/loops/reduce.cuh"

namespace libops::legacy::cuda_tables {

// The calling thread's launch context on the device that holds z.
inline Status context_for(const NDArray& z, cuda::LaunchContext** ctx) {
  return cuda::LaunchContext::get(z.buffer()->device().index, ctx);
}

template <template <typename> class F, unsigned kSet>
Status unary(const char* name, ComputeType ct, const NDArray& x, NDArray& z, const ExtraParams& e,
             cuda::LaunchContext& ctx) {
  Status launched;
  RETURN_IF_ERROR(with_compute_type<kSet>(name, ct, x.dtype(), [&](auto tag) {
    using C = decltype(tag);
    static_cast<void>(launched = cuda::cuda_elementwise_unary<F<C>, C>(x, z, e, ctx.stream()));
  }));
  return launched;
}

template <template <typename> class F, unsigned kSet>
Status binary(const char* name, ComputeType ct, const NDArray& x, const NDArray& y, NDArray& z,
              const ExtraParams& e, cuda::LaunchContext& ctx) {
  Status launched;
  RETURN_IF_ERROR(with_compute_type<kSet>(name, ct, promote_types(x.dtype(), y.dtype()), [&](auto tag) {
    using C = decltype(tag);
    static_cast<void>(launched = cuda::cuda_elementwise_binary<F<C>, C>(x, y, z, e, ctx.stream()));
  }));
  return launched;
}

template <template <typename> class F, unsigned kSet>
Status reduce(const char* name, ComputeType ct, const NDArray& x, const NDArray* y, NDArray& z, const Dims& axes,
              const ExtraParams& e, cuda::LaunchContext& ctx) {
  Status result;
  RETURN_IF_ERROR(with_compute_type<kSet>(name, ct, y ? promote_types(x.dtype(), y->dtype()) : x.dtype(), [&](auto tag) {
    using C = decltype(tag);
    static_cast<void>(result = reduce_check<F<C>>(name, e));
    if (result.is_ok()) static_cast<void>(result = cuda::cuda_reduce_run<F<C>, C>(x, y, z, axes, e, ctx));
  }));
  return result;
}

}  // namespace libops::legacy::cuda_tables

#define LIBOPS_CUDA_CASE_UNARY(NUM, NAME, F, SET) \
  case NUM: return cuda_tables::unary<F, SET>(#NAME, ct, x, z, e, *ctx);
#define LIBOPS_CUDA_CASE_BINARY(NUM, NAME, F, SET) \
  case NUM: return cuda_tables::binary<F, SET>(#NAME, ct, x, *y, z, e, *ctx);
#define LIBOPS_CUDA_CASE_REDUCE(NUM, NAME, F, SET) \
  case NUM: return cuda_tables::reduce<F, SET>(#NAME, ct, x, y, z, axes, e, *ctx);

#define LIBOPS_CUDA_TABLE(KIND, NAME, TABLE_ENUM, TABLE)                                          \
  namespace libops::legacy {                                                                      \
  namespace {                                                                                     \
  Status NAME##_run_cuda(int num, ComputeType ct, const NDArray& x, const NDArray* y, NDArray& z,  \
                         [[maybe_unused]] const Dims& axes, const ExtraParams& e) {               \
    cuda::LaunchContext* ctx = nullptr;                                                           \
    RETURN_IF_ERROR(cuda_tables::context_for(z, &ctx));                                           \
    switch (num) { TABLE(LIBOPS_CUDA_CASE_##KIND) }                                               \
    return Status::error(StatusCode::kUnknownOp, #NAME ": no op number %d", num);                 \
  }                                                                                               \
  [[maybe_unused]] const bool NAME##_cuda_registered =                                            \
      (register_device_table(DeviceType::kCuda, Table::TABLE_ENUM, NAME##_run_cuda), true);      \
  }                                                                                               \
  }
