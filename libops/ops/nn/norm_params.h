// Shape checks of the scale and bias inputs of the normalization ops
// (layer_norm, rms_norm, group_norm, instance_norm).
#pragma once

#include "libops/ops/declarable_op.h"
#include "libops/ops/nn/row_norm.h"

namespace libops::ops::nn {

// group_norm's rows (group_norm.cpp); groups 0 means one per channel
// (instance_norm). Checks x's rank, the groups and the parameters.
Status group_norm_desc(Context& block, int64_t groups, RowNormDesc& d);

// `p` (named `name`) must have the shape `want` once leading 1s are
// dropped from both; x's shape and `axis` appear in the error.
inline Status check_param_shape(Context& block, const char* name, const NDArray& p, const Dims& want, int axis) {
  auto strip = [](const Dims& d) {
    Dims out;
    int k = 0;
    while (k < static_cast<int>(d.size()) && d[k] == 1) ++k;
    for (; k < static_cast<int>(d.size()); ++k) out.push_back(d[k]);
    return out;
  };
  const NDArray& x = *block.input(0);
  REQUIRE_TRUE(strip(p.shape()) == strip(want), OPS_ERR_SHAPE,
               "%s%s does not match x%s normalized from axis %d: it must be %s (leading 1s aside)", name,
               p.shape().str().c_str(), x.shape().str().c_str(), axis, want.str().c_str());
  REQUIRE_TRUE(dtype_is_float(p.dtype()), OPS_ERR_DTYPE, "%s has dtype %s: it must be a float dtype", name,
               dtype_name(p.dtype()));
  return Status::ok();
}

// layer_norm's and rms_norm's rows: x normalized over the axes from i arg 0
// (an axis of x, checked by the signature) to the end, epsilon t arg 0, and
// the optional inputs after x (scale, then bias) of the normalized shape.
inline Status trailing_norm_desc(Context& block, RowNormKind kind, RowNormDesc& d) {
  const NDArray& x = *block.input(0);
  const int64_t a = block.i_arg(0);
  const int axis = static_cast<int>(a < 0 ? a + x.rank() : a);
  d.kind = kind;
  d.epsilon = block.t_arg(0);
  d.rows = 1;
  d.n = 1;
  for (int k = 0; k < axis; ++k) d.rows *= x.dim(k);
  Dims normalized;
  for (int k = axis; k < x.rank(); ++k) {
    d.n *= x.dim(k);
    normalized.push_back(x.dim(k));
  }
  static const char* const kNames[] = {"x", "scale", "bias"};
  for (int i = 1; i < block.num_inputs(); ++i)
    RETURN_IF_ERROR(check_param_shape(block, kNames[i], *block.input(i), normalized, axis));
  return Status::ok();
}

}  // namespace libops::ops::nn
