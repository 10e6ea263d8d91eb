// fused_reduce: a reduction (sum, mean, max, min over axes) of the values a
// fused program computes from its inputs, in one pass with no temporary for
// them (Note [Fused element-wise programs] in fused_program.h). The graph
// optimizer writes these nodes where a reduction reads an element-wise
// chain that nothing else reads (Note [Element-wise fusion]): mean(x * x)
// of an RMS norm, sum((x - m)^2) of a variance, pooled activations.
//
//   inputs  1 to 8 arrays of one dtype (float32, float16 or bfloat16),
//           broadcast together to the shape S
//   i args  the program (as fused_elementwise's), then: the reduction (0
//           sum, 1 mean, 2 max, 3 min), keep_dims (0 or 1), the axes of S
//           (none: all; negative counts from the end)
//   t args  the program's
//   output  the inputs' dtype: S reduced over the axes, each kept as 1 or
//           dropped
//
// CPU: the loop engine's iterator over S with the kept dims outer and the
// reduced ones inner, so each output element is one contiguous range of
// the enumeration, reduced whole by one thread, or, for a few long ones
// (a mean of everything), in pieces the threads share (Note [Split
// reductions]); results do not depend on the thread count. Values are
// computed in blocks (BlockProgram: a 16-bit program rounds each step to
// its dtype, as the nodes it replaces stored their values) and summed in
// double in eight partial sums, the result rounded to float, then to the
// dtype; max and min keep NaN. No elements to reduce: a sum is 0, a mean NaN, a max
// or min an error.
// Other devices: the program one legacy kernel per step into a temporary of
// S, then the legacy reduction.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "libops/core/parallel.h"
#include "libops/legacy/ops/reduce_ops.h"
#include "libops/loops/elementwise.h"
#include "libops/loops/reduction_order.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/elementwise/fused_program.h"
#include "libops/ops/legacy_steps.h"
#include "libops/ops/reduce/reduce_common.h"
#include "libops/ops/op_pattern.h"

namespace libops::ops {
namespace {

enum class FusedReduction : int { kSum = 0, kMean = 1, kMax = 2, kMin = 3 };

struct ReductionArgs {
  FusedProgram program;
  FusedReduction kind = FusedReduction::kSum;
  bool keep_dims = false;
  Dims shape;  // S
  Dims axes;   // normalised, sorted
  DataType dtype = DataType::kFloat32;  // the inputs' and z's
};

// The call's program, reduction and shapes (the shape function's checks).
Status read_args(Context& block, ReductionArgs& a) {
  const std::vector<int64_t>& i = block.i_args();
  if (i.empty() || i[0] < 1 || i[0] > kMaxFusedSteps)
    return block.error(StatusCode::kInvalidArgument, "i arg 0 is the number of steps, 1 to %d", kMaxFusedSteps);
  const size_t program_ints = 1 + 5 * static_cast<size_t>(i[0]);
  if (i.size() < program_ints + 2)
    return block.error(StatusCode::kInvalidArgument,
                       "%zu i args: the program's %zu, then the reduction and keep_dims (and the axes) are needed",
                       i.size(), program_ints);
  const std::vector<int64_t> program(i.begin(), i.begin() + static_cast<ptrdiff_t>(program_ints));
  RETURN_IF_ERROR(with_op_name(block, FusedProgram::decode(block.num_inputs(), program, block.t_args(), a.program)));
  const int64_t kind = i[program_ints], keep = i[program_ints + 1];
  if (kind < 0 || kind > 3 || (keep != 0 && keep != 1))
    return block.error(StatusCode::kInvalidArgument,
                       "the reduction (i arg %zu) is 0 sum, 1 mean, 2 max or 3 min, and keep_dims (i arg %zu) 0 or 1; "
                       "got %lld and %lld",
                       program_ints, program_ints + 1, static_cast<long long>(kind), static_cast<long long>(keep));
  a.kind = static_cast<FusedReduction>(kind);
  a.keep_dims = keep == 1;
  RETURN_IF_ERROR(fused_inputs_shape(block, kFusedDtypes, a.shape, a.dtype));
  const std::vector<int64_t> axes(i.begin() + static_cast<ptrdiff_t>(program_ints + 2), i.end());
  return normalize_axes(block.op_name(), axes.data(), static_cast<int>(axes.size()), a.shape.size(), true, a.axes);
}

// A run of one output element's values, folded into its accumulator.
struct Accumulator {
  FusedReduction kind;
  double part[8] = {};
  float extreme = 0;
  bool started = false;

  void reset() {
    std::fill(part, part + 8, 0.0);
    started = false;
  }
  void add(const float* v, int64_t m, bool one_value) {
    if (kind == FusedReduction::kSum || kind == FusedReduction::kMean) {
      if (one_value) {
        part[0] += static_cast<double>(v[0]) * static_cast<double>(m);
        return;
      }
      int64_t j = 0;
      for (; j + 8 <= m; j += 8)
        for (int k = 0; k < 8; ++k) part[k] += static_cast<double>(v[j + k]);
      for (; j < m; ++j) part[0] += static_cast<double>(v[j]);
      return;
    }
    const bool is_max = kind == FusedReduction::kMax;
    const int64_t n = one_value ? 1 : m;
    for (int64_t j = 0; j < n; ++j) {
      const float x = v[j];
      if (!started) {
        extreme = x;
        started = true;
      } else if (!std::isnan(extreme) && (std::isnan(x) || (is_max ? x > extreme : x < extreme))) {
        extreme = x;
      }
    }
  }
  // Folds in the accumulator of the values that follow this one's.
  void merge(const Accumulator& next) {
    if (kind == FusedReduction::kSum || kind == FusedReduction::kMean) {
      for (int k = 0; k < 8; ++k) part[k] += next.part[k];
      return;
    }
    if (next.started) add(&next.extreme, 1, true);
  }
  float result(int64_t per_output) const {
    if (kind == FusedReduction::kMax || kind == FusedReduction::kMin) return extreme;
    double s = 0;
    for (double p : part) s += p;
    return static_cast<float>(kind == FusedReduction::kMean ? s / static_cast<double>(per_output) : s);
  }
};

Status reduce_on_cpu(const ReductionArgs& a, const std::vector<NDArray>& inputs, NDArray& z) {
  const BlockProgram program(a.program, a.dtype);
  auto store = [&](char* to, float value) { program.store(&value, to, 0, 1); };
  // Kept dims outer, reduced inner (loops/reduction_order.h).
  const ReductionOrder ro = reduction_order(a.shape, a.axes, z);
  NdLoop<kMaxFusedInputs + 1> loop = ro.loop<kMaxFusedInputs + 1>(z);
  for (int k = 0; k < kMaxFusedInputs; ++k)  // unused operands repeat input 0, never read
    ro.set_input(loop, k + 1, inputs[static_cast<size_t>(k < program.n_inputs() ? k : 0)], a.shape);
  loop.coalesce();
  const int64_t per_output = ro.per_output;
  if (const int64_t pieces = split_pieces(z.length(), per_output); pieces > 0) {  // Note [Split reductions]
    std::vector<Accumulator> partial(static_cast<size_t>(z.length() * pieces), Accumulator{a.kind});
    std::vector<char*> dst(static_cast<size_t>(z.length()));
    parallel_for(z.length() * pieces, 1, [&](int64_t begin, int64_t end) {
      FusedBlocks blocks;
      for (int64_t t = begin; t < end; ++t) {
        const int64_t j = t / pieces, from = j * per_output + (t % pieces) * kSplitPiece;
        const int64_t to = std::min(from + kSplitPiece, (j + 1) * per_output);
        Accumulator& acc = partial[static_cast<size_t>(t)];
        loop.run(from, to, [&](char* const* p, const int64_t* s, int64_t n) {  // s[0] is 0: one output
          if (t % pieces == 0) dst[static_cast<size_t>(j)] = p[0];
          for (int64_t off = 0; off < n; off += kFusedBlock) {
            const int64_t m = std::min(kFusedBlock, n - off);
            bool one_value = false;
            const float* v = program.evaluate(p + 1, s + 1, off, m, blocks, nullptr, one_value);
            acc.add(v, m, one_value);
          }
        });
      }
    });
    for (int64_t j = 0; j < z.length(); ++j) {
      Accumulator acc = partial[static_cast<size_t>(j * pieces)];
      for (int64_t c = 1; c < pieces; ++c) acc.merge(partial[static_cast<size_t>(j * pieces + c)]);
      store(dst[static_cast<size_t>(j)], acc.result(per_output));
    }
    return Status::ok();
  }
  const int64_t grain = std::max<int64_t>(1, kElementwiseGrain / std::max<int64_t>(per_output, 1));
  parallel_for(z.length(), grain, [&](int64_t begin, int64_t end) {
    FusedBlocks blocks;
    Accumulator acc{a.kind};
    char* current = nullptr;
    auto flush = [&] {
      if (current != nullptr) store(current, acc.result(per_output));
      acc.reset();
    };
    loop.run(begin * per_output, end * per_output, [&](char* const* p, const int64_t* s, int64_t n) {
      for (int64_t off = 0; off < n; off += kFusedBlock) {
        const int64_t m = std::min(kFusedBlock, n - off);
        bool one_value = false;
        const float* v = program.evaluate(p + 1, s + 1, off, m, blocks, nullptr, one_value);
        if (s[0] == 0) {  // the run reduces into one output element
          if (p[0] != current) {
            flush();
            current = p[0];
          }
          acc.add(v, m, one_value);
        } else {  // the innermost dim is kept: one element per output
          for (int64_t j = 0; j < m; ++j) {
            flush();
            current = p[0] + (off + j) * s[0];
            acc.add(one_value ? v : v + j, 1, true);
          }
        }
      }
    });
    flush();
  });
  return Status::ok();
}

// The legacy reduction of each kind (on a device, after the program).
void legacy_reduction(FusedReduction kind, ops_legacy_group_t& group, int& num) {
  switch (kind) {
    case FusedReduction::kSum: group = OPS_REDUCE_SAME, num = static_cast<int>(legacy::ReduceSameOp::sum); return;
    case FusedReduction::kMean: group = OPS_REDUCE_FLOAT, num = static_cast<int>(legacy::ReduceFloatOp::mean); return;
    case FusedReduction::kMax: group = OPS_REDUCE_SAME, num = static_cast<int>(legacy::ReduceSameOp::max); return;
    case FusedReduction::kMin: group = OPS_REDUCE_SAME, num = static_cast<int>(legacy::ReduceSameOp::min); return;
  }
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(fused_reduce, -1, 1, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  NDArray* z = OUTPUT_VARIABLE(0);
  ReductionArgs a;
  RETURN_IF_ERROR(read_args(block, a));
  int64_t per_output = 1;
  for (int d : a.axes) per_output *= a.shape[d];
  if (z->length() == 0) return Status::ok();
  if (per_output == 0) {
    REQUIRE_TRUE(a.kind == FusedReduction::kSum || a.kind == FusedReduction::kMean, OPS_ERR_SHAPE,
                 "the %s of no elements (axes %s of %s are empty)", a.kind == FusedReduction::kMax ? "maximum" : "minimum",
                 a.axes.str().c_str(), a.shape.str().c_str());
    NDArray fill;
    RETURN_IF_ERROR(NDArray::scalar(a.dtype,
                                    a.kind == FusedReduction::kSum ? 0.0 : std::numeric_limits<double>::quiet_NaN(), fill));
    return with_op_name(block, assign_on_device(block, *z, fill));
  }
  std::vector<NDArray> inputs;
  RETURN_IF_ERROR(fused_inputs(block, *z, false, inputs));  // z is written while its inputs are read
  if (block.device().is_cpu()) return reduce_on_cpu(a, inputs, *z);
  NDArray values;
  RETURN_IF_ERROR(step_array(block, a.dtype, a.shape, values));
  RETURN_IF_ERROR(run_program_by_steps(block, a.program, inputs, values));
  ops_legacy_group_t group = OPS_REDUCE_SAME;
  int num = 0;
  legacy_reduction(a.kind, group, num);
  return reduce_into(block, group, num, values, a.axes, *z);
}

DECLARE_SHAPE_FN(fused_reduce) {
  using namespace libops;
  libops::ops::ReductionArgs a;
  RETURN_IF_ERROR(libops::ops::read_args(block, a));
  shapes.push_back(TensorShape{a.dtype, reduced_shape(a.shape, a.axes, a.keep_dims), 'c'});
  return Status::ok();
}

DECLARE_TYPES(fused_reduce) {
  descriptor.allow_inputs(libops::ops::kFusedDtypes).runs_on_any_device();
  descriptor.allow_outputs(libops::ops::kFusedDtypes);
}

DECLARE_PATTERN(fused_reduce, kReduction)

DECLARE_ARGS(fused_reduce) {
  args.describe("A reduction of the values a fused element-wise program computes, in one pass (Note [Fused "
                "element-wise programs]); written by the graph optimizer.");
  args.inputs_variadic("xs", "1 to 8 arrays of one dtype (float32, float16 or bfloat16), broadcast together");
  args.output("z", "the reduction in the inputs' dtype, with the reduced axes kept as 1 or dropped");
  args.i_list("program", "the program's (as fused_elementwise's), then: 0 sum, 1 mean, 2 max, 3 min; keep_dims; "
                         "the axes (none: all)");
  args.t_list("values", "the program's literals and extra params").nan_allowed();
}
