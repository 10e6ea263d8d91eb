// fused_elementwise: z computed from the inputs by a program of legacy table
// rows, in one pass over memory (Note [Fused element-wise programs] in
// fused_program.h). The graph optimizer writes these nodes in place of
// chains of element-wise nodes; it is an op like any other, so a program may
// also be run by name.
//
//   inputs  1 to 8 float32 arrays, broadcast together (Note [Broadcasting])
//   i args  the steps: their count, then group, num, x, y, extra-param count
//           per step
//   t args  per step its literal (used where y is -2), then its extra params
//   output  float32, the inputs' broadcast shape
//
// CPU: the loop engine's iterator over z (loops/elementwise.h) hands out
// runs; each run is computed in blocks of kBlock values that stay in the L1
// cache, one block kernel per step (legacy/block_kernels.h), the last step
// writing into z. A value that is one element (a constant, a broadcast
// scalar) stays one element through the steps that read only such values.
// Other devices: one legacy kernel per step on the device, into a temporary
// the size of z: the same functors, so the same values, without the single
// pass (one kernel built for the program is not written yet).
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "libops/legacy/block_kernels.h"
#include "libops/loops/elementwise.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/elementwise/fused_program.h"
#include "libops/ops/legacy_steps.h"

namespace libops::ops {
namespace {

constexpr int64_t kBlock = 256;
constexpr int kMaxValues = kMaxFusedInputs + kMaxFusedSteps;

struct ResolvedStep {
  legacy::BlockUnaryFn unary = nullptr;
  legacy::BlockBinaryFn binary = nullptr;
  int x = 0, y = kFusedNone;
  float literal = 0;
  ExtraParams extra;
};

struct BlockProgram {
  int n_inputs = 0;
  std::vector<ResolvedStep> steps;
  bool stream = false;  // z larger than the cache: its blocks go out as streaming stores

  // One run of the iterator: operand 0 is z, 1 + k input k; byte strides s.
  void run(char* const* p, const int64_t* s, int64_t n) const {
    alignas(64) float buf[kMaxValues][kBlock];
    const float* v[kMaxValues];
    int64_t unit[kMaxValues];  // 1: a block of values; 0: one value for the whole block
    const int last = n_inputs + static_cast<int>(steps.size()) - 1;
    const bool z_dense = s[0] == static_cast<int64_t>(sizeof(float));
    for (int64_t off = 0; off < n; off += kBlock) {
      const int64_t m = std::min(kBlock, n - off);
      for (int k = 0; k < n_inputs; ++k) {
        const int64_t st = s[k + 1];
        const char* base = p[k + 1];
        unit[k] = st == 0 ? 0 : 1;
        if (st == 0 || st == static_cast<int64_t>(sizeof(float))) {
          v[k] = reinterpret_cast<const float*>(base + off * st);
        } else {
          for (int64_t j = 0; j < m; ++j) buf[k][j] = *reinterpret_cast<const float*>(base + (off + j) * st);
          v[k] = buf[k];
        }
      }
      float* zp = reinterpret_cast<float*>(p[0] + off * s[0]);
      for (size_t t = 0; t < steps.size(); ++t) {
        const ResolvedStep& r = steps[t];
        const int out = n_inputs + static_cast<int>(t);
        float* dst = out == last && z_dense && !stream ? zp : buf[out];
        if (r.unary != nullptr) {
          unit[out] = unit[r.x];
          r.unary(v[r.x], dst, unit[out] ? m : 1, r.extra);
        } else {
          const bool literal = r.y == kFusedLiteral;
          const float* y = literal ? &r.literal : v[r.y];
          const int64_t sy = literal ? 0 : unit[r.y];
          unit[out] = unit[r.x] | sy;
          r.binary(v[r.x], unit[r.x], y, sy, dst, unit[out] ? m : 1, r.extra);
        }
        v[out] = dst;
      }
      if (unit[last] == 0) {  // every input one value here: z repeats it
        const float value = v[last][0];
        for (int64_t j = 0; j < m; ++j) *reinterpret_cast<float*>(p[0] + (off + j) * s[0]) = value;
      } else if (z_dense && stream) {  // Note [Streaming stores]
        const float* result = v[last];
        stream_out_tiles(zp, m, [&](int64_t i, int64_t k, float* to) { std::memcpy(to, result + i, 4 * size_t(k)); });
      } else if (!z_dense) {
        for (int64_t j = 0; j < m; ++j) *reinterpret_cast<float*>(p[0] + (off + j) * s[0]) = v[last][j];
      }
    }
  }
};

Status run_on_cpu(const FusedProgram& program, const std::vector<NDArray>& inputs, NDArray& z) {
  BlockProgram bp;
  bp.n_inputs = program.n_inputs;
  bp.stream = detail::stream_output(z);
  for (const FusedStep& s : program.steps) {
    ResolvedStep r;
    if (s.binary()) r.binary = legacy::block_binary_f32(s.num);
    else r.unary = legacy::block_unary_f32(s.group, s.num);
    r.x = s.x;
    r.y = s.y;
    r.literal = static_cast<float>(s.literal);
    r.extra = s.extra;
    bp.steps.push_back(r);
  }
  // The iterator takes a fixed operand count: unused operands repeat input
  // 0, which lays out as input 0 does and is never read.
  const NDArray* in[kMaxFusedInputs];
  for (int k = 0; k < kMaxFusedInputs; ++k) in[k] = &inputs[static_cast<size_t>(k < program.n_inputs ? k : 0)];
  detail::run_elementwise<kMaxFusedInputs + 1>(z, in, [&](char* const* p, const int64_t* s, int64_t n) {
    bp.run(p, s, n);
  });
  return Status::ok();
}

// Step by step on the call's device (see the file's comment).
Status run_by_steps(const Context& block, const FusedProgram& program, const std::vector<NDArray>& inputs,
                    NDArray& z) {
  std::vector<NDArray> values(inputs);
  for (size_t t = 0; t < program.steps.size(); ++t) {
    const FusedStep& s = program.steps[t];
    NDArray result;
    if (t + 1 == program.steps.size()) result = z;
    else RETURN_IF_ERROR(step_array(block, DataType::kFloat32, z.shape(), result));
    NDArray y;
    if (s.y == kFusedLiteral) RETURN_IF_ERROR(NDArray::scalar(DataType::kFloat32, s.literal, y));
    else if (s.binary()) y = values[static_cast<size_t>(s.y)];
    const auto group = static_cast<ops_legacy_group_t>(s.binary() ? OPS_PAIRWISE : s.group);
    RETURN_IF_ERROR(legacy_step(block, group, s.num, values[static_cast<size_t>(s.x)], s.binary() ? &y : nullptr,
                                result, s.extra));
    values.push_back(result);
  }
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(fused_elementwise, -1, 1, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  NDArray* z = OUTPUT_VARIABLE(0);
  FusedProgram program;
  RETURN_IF_ERROR(with_op_name(block, FusedProgram::decode(block.num_inputs(), block.i_args(), block.t_args(), program)));
  if (z->length() == 0) return Status::ok();
  std::vector<NDArray> inputs;
  for (int k = 0; k < block.num_inputs(); ++k) {
    NDArray x = *INPUT_VARIABLE(k);
    // Only the last step writes z, element by element, so an input that is
    // z's own view may be read as it is; another view of its memory is read
    // from a copy.
    if (z->may_overlap(x) && !z->same_view(x)) RETURN_IF_ERROR(dense_on_device(block, x, x.dtype(), x));
    inputs.push_back(std::move(x));
  }
  if (block.device().is_cpu()) return run_on_cpu(program, inputs, *z);
  return run_by_steps(block, program, inputs, *z);
}

DECLARE_SHAPE_FN(fused_elementwise) {
  using namespace libops;
  using namespace libops::ops;
  FusedProgram program;
  RETURN_IF_ERROR(FusedProgram::decode(block.num_inputs(), block.i_args(), block.t_args(), program));
  Dims out = INPUT_VARIABLE(0)->shape();
  for (int k = 0; k < block.num_inputs(); ++k) {
    const NDArray* x = INPUT_VARIABLE(k);
    REQUIRE_TRUE(x->dtype() == DataType::kFloat32, OPS_ERR_DTYPE,
                 "input %d is %s; a fused program computes in float32 and takes float32 inputs only", k,
                 dtype_name(x->dtype()));
    Dims joined;
    RETURN_IF_ERROR(broadcast_shapes(block.op_name(), out, x->shape(), joined));
    out = joined;
  }
  shapes.push_back(TensorShape{DataType::kFloat32, out, 'c'});
  return Status::ok();
}

DECLARE_TYPES(fused_elementwise) {
  descriptor.allow_inputs(libops::TypeSet{libops::DataType::kFloat32}).runs_on_any_device();
  descriptor.allow_outputs(libops::TypeSet{libops::DataType::kFloat32});
}

DECLARE_ARGS(fused_elementwise) {
  args.describe("A chain of element-wise legacy rows in one pass (Note [Fused element-wise programs]); written by "
                "the graph optimizer.");
  args.inputs_variadic("xs", "1 to 8 float32 arrays, broadcast together");
  args.output("z", "the last step's value, float32, in the inputs' broadcast shape");
  args.i_list("program", "the number of steps, then per step: group, num, x, y (-1 none, -2 the literal), extra count");
  args.t_list("values", "per step: its literal, then its extra params").nan_allowed();
}
