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
// with up to 8 extra params, as the legacy call's. Everything is float32:
// the inputs, every step's result and z, so the program rounds where the
// nodes it replaces rounded and gives their values bit for bit.
//
// In the op's args: i = [number of steps, then per step: group, num, x, y,
// number of extra params]; t = per step: its literal, then its extra
// params. decode() checks all of it, so a program written by hand gets an
// error naming what is wrong, never a crash.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "libops/c_types.h"
#include "libops/core/status.h"
#include "libops/loops/extra_params.h"

namespace libops::ops {

inline constexpr int kMaxFusedInputs = 8;
inline constexpr int kMaxFusedSteps = 32;
inline constexpr int kFusedNone = -1;     // y of a unary step
inline constexpr int kFusedLiteral = -2;  // y is the step's literal

struct FusedStep {
  int group = OPS_TRANSFORM_SAME;
  int num = 0;
  int x = 0;
  int y = kFusedNone;
  double literal = 0;  // y when y == kFusedLiteral (rounded to float32 when run)
  ExtraParams extra;

  bool binary() const { return y != kFusedNone; }
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

}  // namespace libops::ops
