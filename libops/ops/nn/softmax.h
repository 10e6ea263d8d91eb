// softmax and log_softmax along one axis share their row loops and device
// path (softmax.cpp); log_softmax.cpp declares the second op.
#pragma once

#include "libops/ops/declarable_op.h"

namespace libops::ops {

// The op's body: softmax of input 0 into output 0 along i arg 0 (an axis of
// x that the signature checked), or log_softmax when `log`.
Status softmax_exec(Context& block, bool log);
// Output 0: x's dtype and shape.
Status softmax_shape(Context& block, ShapeList& shapes);

}  // namespace libops::ops
