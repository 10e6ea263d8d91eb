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

}  // namespace libops::ops::nn
