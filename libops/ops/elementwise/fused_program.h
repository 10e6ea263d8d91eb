// The program a fused_elementwise node runs (fused_elementwise.cpp): a chain
// of legacy table rows evaluated element by element in one pass.
//
// Note [Fused element-wise programs]
// The graph optimizer replaces a chain of element-wise nodes (Note [Graph
// rewrites], graph/fuse_elementwise.cpp) by one fused_elementwise node
// whose inputs are the values the chain reads from outside and whose args
// hold this program. Values are numbered: 0 .. n_inputs - 1 are the inputs,
// n_inputs + k is the result of step k; the last step's result is z. A step
// is one row of a legacy table:
//   unary   a transform row (OPS_TRANSFORM_SAME, _FLOAT, _STRICT) of value x
//   binary  a row of the binary table (OPS_PAIRWISE) of values x and y, or
//           of x and the step's literal (y == kFusedLiteral): a bound or a
//           parameter written in the graph as an attribute
// with up to 8 extra params, as the legacy call's. Every value has one
// dtype, float32, float16 or bfloat16: the inputs, every step's result and
// z. The steps compute in float (the legacy kernels' compute type for all
// three) and a 16-bit program rounds each step's result to its dtype, so
// the program rounds where the nodes it replaces rounded and gives their
// values bit for bit (but for the FMA contraction a clang build may do in
// one copy only: block_kernels.h).
//
// In the op's args: i = [number of steps, then per step: group, num, x, y,
// number of extra params]; t = per step: its literal, then its extra
// params. decode() checks all of it, so a program written by hand gets an
// error naming what is wrong, never a crash.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "libops/array/ndarray.h"
#include "libops/c_types.h"
#include "libops/core/status.h"
#include "libops/legacy/block_kernels.h"
#include "libops/loops/convert.h"
#include "libops/loops/extra_params.h"
#include "libops/ops/context.h"
#include "libops/ops/device_kernel.h"
#include "libops/ops/op_signature.h"
#include "libops/ops/type_set.h"

namespace libops::ops {

inline constexpr int kMaxFusedInputs = 8;
inline constexpr int kMaxFusedSteps = 32;
inline constexpr int kFusedNone = -1;     // y of a unary step
inline constexpr int kFusedLiteral = -2;  // y is the step's literal
// The dtypes of fused_elementwise's and fused_reduce's values.
inline constexpr TypeSet kFusedDtypes{DataType::kFloat16, DataType::kBFloat16, DataType::kFloat32};

struct FusedStep {
  int group = OPS_TRANSFORM_SAME;
  int num = 0;
  int x = 0;
  int y = kFusedNone;
  double literal = 0;  // y when y == kFusedLiteral (rounded to float32 when run)
  ExtraParams extra;

  bool binary() const { return y != kFusedNone; }
  // Whether the step's row has a float32 block kernel (unary: a transform
  // row; binary: a row of the binary table).
  bool has_kernel() const {
    return binary() ? group == OPS_PAIRWISE && legacy::block_binary_f32(num) != nullptr
                    : legacy::block_unary_f32(group, num) != nullptr;
  }

  // Row `num` of transform group `group` of value x.
  static FusedStep unary(int group, int num, int x, const ExtraParams& extra = {}) {
    FusedStep s;
    s.group = group;
    s.num = num;
    s.x = x;
    s.extra = extra;
    return s;
  }
  // Row `num` of the binary table of values x and y (y == kFusedLiteral:
  // x and `literal`).
  static FusedStep binary(int num, int x, int y, double literal = 0) {
    FusedStep s;
    s.group = OPS_PAIRWISE;
    s.num = num;
    s.x = x;
    s.y = y;
    s.literal = literal;
    return s;
  }
};

struct FusedProgram {
  int n_inputs = 0;
  std::vector<FusedStep> steps;

  void encode(std::vector<int64_t>& i_args, std::vector<double>& t_args) const;
  // The program in a node's args, checked: groups and numbers with float32
  // block kernels, values defined before use, counts within the limits.
  static Status decode(int n_inputs, const std::vector<int64_t>& i_args, const std::vector<double>& t_args,
                       FusedProgram& out);
  // One line, the steps in order: "t0 = add(x0, 3); t1 = tanh(t0); ...".
  std::string str() const;
};

// A program resolved to its block kernels (legacy/block_kernels.h) for
// evaluation on the CPU, block by block (fused_elementwise, fused_reduce).
inline constexpr int64_t kFusedBlock = 256;  // values per block: every value's block stays in L1

// One thread's working space: a block per value.
struct FusedBlocks {
  static constexpr int kMaxValues = kMaxFusedInputs + kMaxFusedSteps;
  alignas(64) float buf[kMaxValues][kFusedBlock];
  uint16_t narrow[kFusedBlock];  // a 16-bit program's values as stored, on their way to float
  const float* v[kMaxValues];
  int64_t unit[kMaxValues];  // 1: a block of values; 0: one value for the whole block
};

class BlockProgram {
 public:
  // dtype: the values' (float32, float16 or bfloat16).
  explicit BlockProgram(const FusedProgram& program, DataType dtype = DataType::kFloat32);
  int n_inputs() const { return n_inputs_; }
  DataType dtype() const { return dtype_; }
  // m float values into storage of the program's dtype (byte stride s).
  void store(const float* v, char* to, int64_t s, int64_t m) const {
    if (to_narrow_ != nullptr && s == 2) return to_narrow_(v, reinterpret_cast<uint16_t*>(to), m);
    store_(v, to, s, m);
  }

  // Elements [off, off + m) (m <= kFusedBlock) of a run whose input k
  // starts at in[k] with byte stride s[k] (0: one value for the run). The
  // last step writes into `last_into` when given (m dense floats; float32
  // programs only), else into `b`. Returns the last value; `one_value` says it is one value for
  // all m elements (every input it depends on is one value).
  const float* evaluate(const char* const* in, const int64_t* s, int64_t off, int64_t m, FusedBlocks& b,
                        float* last_into, bool& one_value) const;

 private:
  // v[0, n) rounded to the program's 16-bit dtype and back to float.
  void round_to_dtype(float* v, int64_t n, FusedBlocks& b) const;

  struct Step {
    legacy::BlockUnaryFn unary = nullptr;
    legacy::BlockBinaryFn binary = nullptr;
    int x = 0, y = kFusedNone;
    float literal = 0;
    ExtraParams extra;
  };
  int n_inputs_ = 0;
  std::vector<Step> steps_;
  DataType dtype_ = DataType::kFloat32;
  LoadFn<float> load_ = nullptr;  // storage -> float, float -> storage
  StoreFn<float> store_ = nullptr;
  // 16-bit programs' dense runs: the bulk converters (F16C where the CPU has it).
  void (*from_narrow_)(const uint16_t*, float*, int64_t) = nullptr;
  void (*to_narrow_)(const float*, uint16_t*, int64_t) = nullptr;
};

// What the fused ops share (fused_elementwise.cpp, fused_reduce.cpp):
// the inputs' broadcast shape and their one dtype, one of `allowed` (errors
// name the op);
Status fused_inputs_shape(Context& block, const TypeSet& allowed, Dims& out, DataType& dtype);
// the inputs, those sharing memory with z read from a copy (but z's own
// view where `same_view_ok`);
Status fused_inputs(Context& block, const NDArray& z, bool same_view_ok, std::vector<NDArray>& inputs);
// z (the inputs' broadcast shape) computed in one kernel on block.device()
// (Note [One kernel per fused node] in fused_element.h), where the device
// registers one (fused_elementwise.cu for CUDA) and z's rank is at most 8.
inline constexpr int kFusedKernelMaxRank = 8;
using FusedDeviceFn = Status (*)(const Context& block, const FusedProgram& program, const std::vector<NDArray>& inputs,
                                 NDArray& z);
extern DeviceKernel<FusedDeviceFn> fused_elementwise_device_kernel;
// z computed one legacy kernel per step on block.device(), into a
// temporary the size of z per step: the device path elsewhere.
Status run_program_by_steps(const Context& block, const FusedProgram& program, const std::vector<NDArray>& inputs,
                            NDArray& z);

// Note [Epilogue programs]
// conv2d, depthwise_conv2d and matmul end with an optional element-wise
// program of their own output z: the i list `epilogue` and the t list
// `epilogue_values` hold a FusedProgram of one input, z, in the encoding
// above (an empty i list: none). The op runs it in place on z after its
// bias, residual and activation, on the call's device: on the CPU block by
// block as fused_elementwise runs (z was just written, so it is still in
// the caches where it fits in them), elsewhere as fused_elementwise's one
// kernel. The graph's element-wise fusion folds a fused_elementwise node,
// or a lone element-wise node, whose only array input is such an op's
// output into the op (graph/fuse_elementwise.cpp), so that any element-wise
// chain after a convolution or a matmul (tanh(2x + 1) x, Mish, a GELU
// written out) costs no node, no buffer and no pass of its own; the values
// are the fused node's, bit for bit.
// Where `sig` keeps an epilogue program (the positions of its i list
// `epilogue` and t list `epilogue_values`); false for an op without one.
bool epilogue_positions(const OpSignature& sig, int& i_first, int& t_first);
// The call's epilogue program, checked (its steps, and z's dtype one a
// program runs on); `present` is false where the call gives none.
Status read_epilogue(const Context& block, DataType z_dtype, FusedProgram& out, bool& present);
// z = program(z) in place on block.device() (a program of one input).
Status run_epilogue(const Context& block, const FusedProgram& program, NDArray& z);
// The two list args in DECLARE_ARGS, after the op's other i and t args.
void declare_epilogue_args(OpSignature& args);

}  // namespace libops::ops
