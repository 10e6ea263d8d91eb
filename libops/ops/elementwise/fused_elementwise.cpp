// fused_elementwise: z computed from the inputs by a program of legacy table
// rows, in one pass over memory (Note [Fused element-wise programs] in
// fused_program.h). The graph optimizer writes these nodes in place of
// chains of element-wise nodes; it is an op like any other, so a program may
// also be run by name.
//
//   inputs  1 to 8 arrays of one dtype (float32, float16 or bfloat16),
//           broadcast together (Note [Broadcasting])
//   i args  the steps: their count, then group, num, x, y, extra-param count
//           per step
//   t args  per step its literal (used where y is -2), then its extra params
//   output  the inputs' dtype and broadcast shape
//
// CPU: the loop engine's iterator over z (loops/elementwise.h) hands out
// runs; each run is computed in blocks of kBlock values that stay in the L1
// cache, one block kernel per step (legacy/block_kernels.h), the last step
// writing into z. A value that is one element (a constant, a broadcast
// scalar) stays one element through the steps that read only such values.
// Other devices: one kernel for the node where the device has one (Note
// [One kernel per fused node] in fused_element.h: the same functors, in
// float, rounded as on the CPU), else one legacy kernel per step into a
// temporary the size of z.
#include <algorithm>
#include <string>
#include <vector>

#include "libops/loops/elementwise.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/elementwise/fused_program.h"
#include "libops/ops/legacy_steps.h"
#include "libops/ops/op_pattern.h"

namespace libops::ops {

DeviceKernel<FusedDeviceFn> fused_elementwise_device_kernel;

namespace {

// One run of the iterator: operand 0 is z, 1 + k input k; byte strides s.
void run_blocks(const BlockProgram& program, bool stream, char* const* p, const int64_t* s, int64_t n) {
  FusedBlocks b;
  const bool f32 = program.dtype() == DataType::kFloat32;
  const bool z_dense = f32 && s[0] == static_cast<int64_t>(sizeof(float));
  for (int64_t off = 0; off < n; off += kFusedBlock) {
    const int64_t m = std::min(kFusedBlock, n - off);
    char* zp = p[0] + off * s[0];
    bool one_value = false;
    const float* z = program.evaluate(p + 1, s + 1, off, m, b, z_dense && !stream ? reinterpret_cast<float*>(zp)
                                                                                    : nullptr, one_value);
    if (one_value) {  // every input one value here: z repeats it
      const float value = z[0];
      for (int64_t j = 0; j < m; ++j) program.store(&value, zp + j * s[0], 0, 1);
    } else if (z_dense && stream) {  // Note [Streaming stores]
      stream_copy(reinterpret_cast<float*>(zp), z, m);  // fenced by the loop engine, once per thread's part
    } else if (!z_dense) {  // strided, or 16-bit
      program.store(z, zp, s[0], m);
    }
  }
}

Status run_on_cpu(const FusedProgram& program, const std::vector<NDArray>& inputs, NDArray& z) {
  const BlockProgram bp(program, z.dtype());
  const bool stream = z.dtype() == DataType::kFloat32 && detail::stream_output(z);
  // The iterator takes a fixed operand count: unused operands repeat input
  // 0, which lays out as input 0 does and is never read.
  const NDArray* in[kMaxFusedInputs];
  for (int k = 0; k < kMaxFusedInputs; ++k) in[k] = &inputs[static_cast<size_t>(k < program.n_inputs ? k : 0)];
  detail::run_elementwise<kMaxFusedInputs + 1>(z, in, [&](char* const* p, const int64_t* s, int64_t n) {
    run_blocks(bp, stream, p, s, n);
  });
  return Status::ok();
}

}  // namespace

Status run_epilogue(const Context& block, const FusedProgram& program, NDArray& z) {
  if (program.n_inputs != 1)
    return block.error(StatusCode::kInternal, "an epilogue program reads z alone, not %d inputs", program.n_inputs);
  if (z.length() == 0) return Status::ok();
  // Only the last step writes z, element by element after reading it (as
  // fused_elementwise reads an input that is z's own view).
  const std::vector<NDArray> inputs{z};
  if (block.device().is_cpu()) return run_on_cpu(program, inputs, z);
  const FusedDeviceFn one_kernel = fused_elementwise_device_kernel.get(block.device().type);
  if (one_kernel != nullptr && z.rank() <= kFusedKernelMaxRank) return one_kernel(block, program, inputs, z);
  return run_program_by_steps(block, program, inputs, z);
}

}  // namespace libops::ops

CUSTOM_OP_IMPL(fused_elementwise, -1, 1, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  NDArray* z = OUTPUT_VARIABLE(0);
  FusedProgram program;
  RETURN_IF_ERROR(with_op_name(block, FusedProgram::decode(block.num_inputs(), block.i_args(), block.t_args(), program)));
  if (z->length() == 0) return Status::ok();
  std::vector<NDArray> inputs;
  // Only the last step writes z, element by element, so an input that is
  // z's own view may be read as it is.
  RETURN_IF_ERROR(fused_inputs(block, *z, true, inputs));
  if (block.device().is_cpu()) return run_on_cpu(program, inputs, *z);
  const FusedDeviceFn one_kernel = fused_elementwise_device_kernel.get(block.device().type);
  if (one_kernel != nullptr && z->rank() <= kFusedKernelMaxRank) return one_kernel(block, program, inputs, *z);
  return run_program_by_steps(block, program, inputs, *z);
}

DECLARE_SHAPE_FN(fused_elementwise) {
  using namespace libops;
  libops::ops::FusedProgram program;
  RETURN_IF_ERROR(libops::ops::FusedProgram::decode(block.num_inputs(), block.i_args(), block.t_args(), program));
  Dims out;
  DataType dtype;
  RETURN_IF_ERROR(libops::ops::fused_inputs_shape(block, libops::ops::kFusedDtypes, out, dtype));
  shapes.push_back(TensorShape{dtype, out, 'c'});
  return Status::ok();
}

DECLARE_TYPES(fused_elementwise) {
  descriptor.allow_inputs(libops::ops::kFusedDtypes).runs_on_any_device();
  descriptor.allow_outputs(libops::ops::kFusedDtypes);
}

DECLARE_PATTERN(fused_elementwise, kBroadcast)

DECLARE_ARGS(fused_elementwise) {
  args.describe("A chain of element-wise legacy rows in one pass (Note [Fused element-wise programs]); written by "
                "the graph optimizer.");
  args.inputs_variadic("xs", "1 to 8 arrays of one dtype (float32, float16 or bfloat16), broadcast together");
  args.output("z", "the last step's value, in the inputs' dtype and broadcast shape");
  args.i_list("program", "the number of steps, then per step: group, num, x, y (-1 none, -2 the literal), extra count");
  args.t_list("values", "per step: its literal, then its extra params").nan_allowed();
}
