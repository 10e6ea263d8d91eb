// non_max_suppression's kernel interface (non_max_suppression.cpp, .cu).
//
// Note [Greedy suppression]
// One slice of boxes [n, 4] with scores [n], taken in order of falling score
// (stable: the lower index first on ties; NaN scores last): a box is kept
// when its score is above the threshold (when one is given) and its IoU
// with every box kept so far is at most iou_threshold, until max_out boxes
// are kept. Boxes are corners (y1, x1, y2, x2, in either order along each
// axis: TF's and ONNX's default) or centres (x, y, width, height: ONNX's
// center_point_box 1). A box of zero area overlaps nothing.
#pragma once

#include <cstdint>

#include "libops/array/ndarray.h"
#include "libops/core/device.h"
#include "libops/core/host_device.h"
#include "libops/ops/device_kernel.h"

namespace libops::ops {

struct NmsDesc {
  int64_t n = 0;          // boxes in the slice
  int64_t max_out = -1;   // < 0: no limit
  double iou_threshold = 0.5;
  bool filter = false;    // scores must be > score_threshold
  double score_threshold = 0;
  bool center = false;    // boxes as (x, y, width, height)
};

// The intersection over union of boxes i and j (rows of boxes [n, 4]).
template <typename C>
LIBOPS_HOST_DEVICE inline C box_iou(const C* boxes, int64_t i, int64_t j, bool center) {
  C lo[2][2], hi[2][2];  // [box][axis]: axis 0 = y, 1 = x
  const int64_t id[2] = {i, j};
  for (int k = 0; k < 2; ++k) {
    const C* b = boxes + 4 * id[k];
    if (center) {  // (x, y, w, h)
      lo[k][0] = b[1] - b[3] / 2, hi[k][0] = b[1] + b[3] / 2;
      lo[k][1] = b[0] - b[2] / 2, hi[k][1] = b[0] + b[2] / 2;
    } else {  // (y1, x1, y2, x2), corners in either order
      lo[k][0] = b[0] < b[2] ? b[0] : b[2], hi[k][0] = b[0] < b[2] ? b[2] : b[0];
      lo[k][1] = b[1] < b[3] ? b[1] : b[3], hi[k][1] = b[1] < b[3] ? b[3] : b[1];
    }
  }
  const C area_i = (hi[0][0] - lo[0][0]) * (hi[0][1] - lo[0][1]);
  const C area_j = (hi[1][0] - lo[1][0]) * (hi[1][1] - lo[1][1]);
  if (!(area_i > 0) || !(area_j > 0)) return C(0);
  C inter = 1;
  for (int a = 0; a < 2; ++a) {
    const C top = lo[0][a] > lo[1][a] ? lo[0][a] : lo[1][a];
    const C bottom = hi[0][a] < hi[1][a] ? hi[0][a] : hi[1][a];
    inter *= bottom > top ? bottom - top : C(0);
  }
  return inter / (area_i + area_j - inter);
}

// boxes dense [n, 4] and scores dense [n] in the compute dtype (float32 or
// float64); order dense int64 [n], the boxes by falling score; selected
// dense int64 [n] receives the kept boxes' indices, *count how many.
using NmsDeviceFn = Status (*)(Device device, const NmsDesc& desc, const NDArray& boxes, const NDArray& scores,
                               const NDArray& order, NDArray& selected, int64_t* count);
extern DeviceKernel<NmsDeviceFn> nms_device_kernel;

}  // namespace libops::ops
