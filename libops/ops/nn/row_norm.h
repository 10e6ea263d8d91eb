// The row-normalization engine of layer_norm, rms_norm, group_norm and
// instance_norm: x seen as [rows, n], each row normalized by its own
// statistics, then scaled and shifted by per-position parameters.
//
// Note [Row normalization]
// Every op reduces to dense rows of n elements:
//   layer_norm, rms_norm  x [..., axis.., end]: rows = prod(dims before
//                         axis), n = prod(dims from axis on); the scale and
//                         bias have n entries, one per position in a row.
//   group_norm            x [N, C, S...] with G groups: rows = N * G,
//                         n = (C / G) * S; the parameters have C entries,
//                         one per channel, each spanning S positions.
//   instance_norm         group_norm with G = C.
// One indexing rule covers them: position i of row r uses parameter
// ((r % groups) * n + i) / spatial (groups = 1 and spatial = 1 for the
// first two). The statistics:
//   kStandardize  mean = sum(x) / n, var = sum((x - mean)^2) / n,
//                 z = (x - mean) / sqrt(var + epsilon)
//   kRms          z = x / sqrt(sum(x^2) / n + epsilon)
// Both sums run over the row twice (the mean, then the squared deviations:
// no cancellation when the mean is large against the spread), accumulated
// in double on the CPU (float on a GPU for float rows, in a tree that loses
// about log2(n) bits less than a running sum). The row stays in cache
// between the passes, so memory sees one read of x and one write of z.
// A NaN or inf in a row makes the whole row NaN (inf - inf); an empty row
// (n = 0) writes nothing.
//
// The engine stages its arrays (ops/device_copy.h): x, scale and bias dense
// in the compute dtype (float for float16, bfloat16 and float32, double
// for float64), the output dense in that dtype and copied into z after.
// On a device the kernel registered in row_norm_device_kernel runs (CUDA:
// row_norm.cu, a thread block per row); a device without one is an error
// naming the op.
#pragma once

#include <cstdint>

#include "libops/array/ndarray.h"
#include "libops/core/device.h"
#include "libops/ops/context.h"
#include "libops/ops/device_kernel.h"

namespace libops::ops::nn {

enum class RowNormKind : int { kStandardize, kRms };

struct RowNormDesc {
  RowNormKind kind = RowNormKind::kStandardize;
  int64_t rows = 0, n = 0;
  int64_t groups = 1, spatial = 1;  // the parameter index rule above
  double epsilon = 1e-5;
  bool has_scale = false, has_bias = false;
  // groups * n / spatial: the length of scale and bias.
  int64_t param_count() const { return groups * n / spatial; }
};

// x and z dense [rows, n] in the compute dtype; scale and bias dense
// [param_count()] in the same dtype, null when absent.
using RowNormDeviceFn = Status (*)(Device device, const RowNormDesc& desc, const NDArray& x, const NDArray* scale,
                                   const NDArray* bias, NDArray& z);
extern DeviceKernel<RowNormDeviceFn> row_norm_device_kernel;

// The CPU rows: x and z (dense [rows, n]), scale and bias (null when
// absent) in `ct`, float32 or float64. Also what a test's fake device runs.
void row_norm_cpu(const RowNormDesc& desc, DataType ct, const void* x, const void* scale, const void* bias, void* z);

// The op side: stages x (any layout, x's dtype), scale and bias (any float
// dtype, param_count() elements in C order; null when absent) and runs the
// rows on block.device() into z (x's dtype and shape).
Status row_norm_exec(Context& block, const RowNormDesc& desc, const NDArray& x, const NDArray* scale,
                     const NDArray* bias, NDArray& z);

}  // namespace libops::ops::nn
