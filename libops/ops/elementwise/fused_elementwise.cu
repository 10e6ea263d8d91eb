// fused_elementwise on CUDA devices: one kernel per node (Note [One kernel
// per fused node] in fused_element.h). A thread per output element (grid
// stride) reads its inputs by broadcast strides, walks the program's steps
// in registers and writes z once.
#include <cuda_runtime.h>

#include <cstring>
#include <vector>

#include "libops/backends/cuda/cuda_check.h"
#include "libops/backends/cuda/launch_context.h"
#include "libops/loops/elementwise.cuh"
#include "libops/ops/device_copy.h"
#include "libops/ops/elementwise/fused_element.h"
#include "libops/ops/elementwise/fused_program.h"
#include "libops/ops/legacy_steps.h"

namespace libops::ops {
namespace {

// z's shape and, per input, its element strides along z's dims (0 where the
// input broadcasts); inputs are dense in the program's dtype.
struct FusedOperands {
  int rank = 0;
  int n_inputs = 0;
  int64_t shape[kFusedKernelMaxRank] = {};
  int64_t strides[kFusedKernelInputs][kFusedKernelMaxRank] = {};
  const void* in[kFusedKernelInputs] = {};
};

template <typename T>
__global__ void fused_kernel(const FusedKernelProgram* __restrict__ program, FusedOperands o, int64_t n,
                             T* __restrict__ z) {
  const int64_t step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  float v[kFusedKernelInputs + kFusedKernelSteps];
  for (int64_t e = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; e < n; e += step) {
    int64_t off[kFusedKernelInputs] = {};
    int64_t rest = e;
    for (int d = o.rank - 1; d >= 0; --d) {
      const int64_t c = rest % o.shape[d];
      rest /= o.shape[d];
      for (int k = 0; k < o.n_inputs; ++k) off[k] += c * o.strides[k][d];
    }
    for (int k = 0; k < o.n_inputs; ++k) v[k] = static_cast<float>(static_cast<const T*>(o.in[k])[off[k]]);
    z[e] = T(fused_evaluate(*program, v));
  }
}

Status fused_cuda(const Context& block, const FusedProgram& program, const std::vector<NDArray>& inputs,
                  NDArray& z) {
  const DataType dt = z.dtype();
  const int64_t n = z.length();
  if (n == 0) return Status::ok();
  // The program as data, uploaded with the inputs (a few KB, read by every
  // thread through the cache).
  const FusedKernelProgram kp = kernel_program_of(program, dt);
  NDArray kernel_program;
  RETURN_IF_ERROR(step_array(block, DataType::kUInt8, Dims{static_cast<int64_t>(sizeof(kp))}, kernel_program));
  std::memcpy(kernel_program.data(), &kp, sizeof(kp));

  FusedOperands o;
  o.rank = static_cast<int>(z.rank());
  o.n_inputs = program.n_inputs;
  for (int d = 0; d < o.rank; ++d) o.shape[d] = z.dim(d);
  std::vector<NDArray> dense(inputs.size());
  DeviceOutputStage out;
  RETURN_IF_ERROR(out.begin(block, z, dt));
  NDArray& target = out.target();
  RETURN_IF_ERROR(sync_for_kernel(block.device(), {&kernel_program}, target));
  for (size_t k = 0; k < inputs.size(); ++k) {
    RETURN_IF_ERROR(dense_on_device(block, inputs[k], dt, dense[k]));
    RETURN_IF_ERROR(sync_for_kernel(block.device(), {&dense[k]}, target));
    // Aligned to z's last dims; a dim of extent 1 (or missing) broadcasts.
    const NDArray& a = dense[k];
    int64_t stride = 1;
    for (int d = o.rank - 1, ad = static_cast<int>(a.rank()) - 1; d >= 0; --d, --ad) {
      const int64_t extent = ad >= 0 ? a.dim(ad) : 1;
      o.strides[k][d] = extent == 1 ? 0 : stride;
      stride *= extent;
    }
    o.in[k] = a.device_data();
  }
  cuda::LaunchContext* ctx = nullptr;
  RETURN_IF_ERROR(cuda::LaunchContext::get(block.device().index, &ctx));
  const auto* p = static_cast<const FusedKernelProgram*>(kernel_program.device_data());
  if (dt == DataType::kFloat16)
    fused_kernel<float16><<<cuda::blocks_for(n), cuda::kThreads, 0, ctx->stream()>>>(
        p, o, n, static_cast<float16*>(target.device_data()));
  else if (dt == DataType::kBFloat16)
    fused_kernel<bfloat16><<<cuda::blocks_for(n), cuda::kThreads, 0, ctx->stream()>>>(
        p, o, n, static_cast<bfloat16*>(target.device_data()));
  else
    fused_kernel<float><<<cuda::blocks_for(n), cuda::kThreads, 0, ctx->stream()>>>(
        p, o, n, static_cast<float*>(target.device_data()));
  LIBOPS_CUDA_CHECK_LAUNCH("fused_elementwise kernel launch");
  target.buffer()->mark_device_written();
  return out.finish(block, z);
}

[[maybe_unused]] const bool fused_cuda_registered =
    (fused_elementwise_device_kernel.set(DeviceType::kCuda, fused_cuda), true);

}  // namespace
}  // namespace libops::ops
