// non_max_suppression: the boxes kept by greedy suppression (Note [Greedy
// suppression] in non_max_suppression.h), in two forms chosen by the ranks:
//
//   TF / libnd4j  boxes [n, 4], scores [n] -> int32 [kept], the indices of
//                 the kept boxes in the order they were kept
//   ONNX          boxes [batch, n, 4], scores [batch, classes, n] -> int64
//                 [kept, 3] rows (batch, class, box), each (batch, class)
//                 suppressed on its own, rows by batch, then class, then
//                 the order kept
//
//   inputs  boxes, scores (float), then optional scalars overriding the args:
//           max_output_size (integer), iou_threshold, score_threshold
//   i args  max_output_size (default -1: no limit; per (batch, class) in the
//           ONNX form), center_point_box (0: corners y1, x1, y2, x2;
//           1: x, y, width, height)
//   t args  iou_threshold (default 0.5: a box overlapping a kept one by more
//           is dropped), score_threshold (default NaN: no threshold; else
//           only scores above it are candidates)
//
// Each slice: the scores' argsort (descending, stable) on the call's
// device, then the greedy walk (here on the CPU, non_max_suppression.cu on
// CUDA), which reports how many boxes it kept. The output's size is that
// count, so the shape function runs the walk too and the body again (as
// unique does): the kept boxes never pass through the host.
#include "libops/ops/image/non_max_suppression.h"

#include <cmath>
#include <vector>

#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/nested_call.h"
#include "libops/ops/host_reads.h"

namespace libops::ops {

DeviceKernel<NmsDeviceFn> nms_device_kernel;

namespace {

struct NmsCall {
  bool batched = false;  // the ONNX form
  int64_t batch = 1, classes = 1, n = 0;
  NmsDesc desc;
};

// A scalar input, read on the host.
Status scalar_input(const Context& block, int k, const char* name, double& out) {
  const NDArray& a = *block.input(k);
  if (!a.has_data()) return block.error(StatusCode::kInvalidArgument, "%s: its value is not known yet", name);
  if (a.length() != 1)
    return block.error(StatusCode::kInvalidArgument, "%s%s must hold one value", name, a.shape().str().c_str());
  RETURN_IF_ERROR(with_op_name(block, const_cast<NDArray&>(a).buffer()->sync_to_host()));
  out = a.get_double(0);
  return Status::ok();
}

Status read_call(const Context& block, NmsCall& c) {
  const NDArray& boxes = *block.input(0);
  const NDArray& scores = *block.input(1);
  c.batched = boxes.rank() == 3;
  const bool plain = boxes.rank() == 2 && boxes.dim(1) == 4 && scores.shape() == Dims{boxes.dim(0)};
  const bool batched = c.batched && boxes.dim(2) == 4 && scores.rank() == 3 && scores.dim(0) == boxes.dim(0) &&
                       scores.dim(2) == boxes.dim(1);
  if (!plain && !batched)
    return block.error(StatusCode::kInvalidArgument,
                       "boxes%s and scores%s must be [n, 4] and [n], or [batch, n, 4] and [batch, classes, n]",
                       boxes.shape().str().c_str(), scores.shape().str().c_str());
  c.batch = c.batched ? boxes.dim(0) : 1;
  c.classes = c.batched ? scores.dim(1) : 1;
  c.n = c.batched ? boxes.dim(1) : boxes.dim(0);
  NmsDesc& d = c.desc;
  d.n = c.n;
  double max_out = static_cast<double>(block.i_arg(0));
  d.iou_threshold = block.t_arg(0);
  double score = block.t_arg(1);
  if (block.num_inputs() > 2) RETURN_IF_ERROR(scalar_input(block, 2, "max_output_size", max_out));
  if (block.num_inputs() > 3) RETURN_IF_ERROR(scalar_input(block, 3, "iou_threshold", d.iou_threshold));
  if (block.num_inputs() > 4) RETURN_IF_ERROR(scalar_input(block, 4, "score_threshold", score));
  d.max_out = max_out < 0 ? -1 : static_cast<int64_t>(max_out);
  d.filter = !std::isnan(score);
  d.score_threshold = d.filter ? score : 0;
  d.center = block.i_arg(1) == 1;
  if (!(d.iou_threshold >= 0 && d.iou_threshold <= 1))
    return block.error(StatusCode::kInvalidArgument, "iou_threshold %g must be in [0, 1]", d.iou_threshold);
  return Status::ok();
}

DataType compute_dtype(const NDArray& boxes) {
  return boxes.dtype() == DataType::kFloat64 ? DataType::kFloat64 : DataType::kFloat32;
}

template <typename C>
int64_t nms_cpu(const NmsDesc& d, const C* boxes, const C* scores, const int64_t* order, int64_t* selected) {
  int64_t kept = 0;
  for (int64_t r = 0; r < d.n; ++r) {
    if (d.max_out >= 0 && kept >= d.max_out) break;
    const int64_t i = order[r];
    if (d.filter && !(scores[i] > static_cast<C>(d.score_threshold))) break;  // the rest score no more
    bool overlapped = false;
    for (int64_t k = 0; k < kept && !overlapped; ++k)
      overlapped = box_iou(boxes, i, selected[k], d.center) > static_cast<C>(d.iou_threshold);
    if (!overlapped) selected[kept++] = i;
  }
  return kept;
}

// One slice: boxes [n, 4] and scores [n] (views), the kept indices into
// `selected` (dense int64 [n] on the call's device) and their count.
Status suppress_slice(const Context& block, const NmsDesc& d, const NDArray& boxes_view, const NDArray& scores_view,
                      NDArray& selected, int64_t& count) {
  count = 0;
  if (d.n == 0 || d.max_out == 0) return Status::ok();
  const DataType ct = compute_dtype(boxes_view);
  NDArray boxes, scores, order;
  RETURN_IF_ERROR(dense_on_device(block, boxes_view, ct, boxes));
  RETURN_IF_ERROR(dense_on_device(block, scores_view, ct, scores));
  RETURN_IF_ERROR(run_nested(block, "argsort", {&scores}, {.i = {0}, .b = {true}}, order));  // falling, stable
  if (!block.device().is_cpu()) {
    const NmsDeviceFn fn = nms_device_kernel.get(block.device().type);
    if (fn == nullptr) return no_device_implementation(block);
    return with_op_name(block, fn(block.device(), d, boxes, scores, order, selected, &count));
  }
  RETURN_IF_ERROR(with_op_name(block, sync_for_kernel(block.device(), {&boxes, &scores, &order}, selected)));
  int64_t* sel = selected.data_as<int64_t>();
  if (ct == DataType::kFloat64)
    count = nms_cpu(d, boxes.data_as<double>(), scores.data_as<double>(), order.data_as<int64_t>(), sel);
  else
    count = nms_cpu(d, boxes.data_as<float>(), scores.data_as<float>(), order.data_as<int64_t>(), sel);
  selected.buffer()->mark_host_written();
  return Status::ok();
}

// The slice of (batch b, class c): boxes [n, 4] and scores [n] views.
Status slice_views(const NmsCall& c, const NDArray& boxes, const NDArray& scores, int64_t b, int64_t k,
                   NDArray& bv, NDArray& sv) {
  if (!c.batched) {
    bv = boxes, sv = scores;
    return Status::ok();
  }
  NDArray b1, s1, s2;
  RETURN_IF_ERROR(boxes.slice(0, b, b + 1, 1, b1));
  RETURN_IF_ERROR(b1.reshape(Dims{c.n, 4}, bv));
  RETURN_IF_ERROR(scores.slice(0, b, b + 1, 1, s1));
  RETURN_IF_ERROR(s1.slice(1, k, k + 1, 1, s2));
  return s2.reshape(Dims{c.n}, sv);
}

// Runs every slice; with `z`, writes the kept boxes into it.
Status suppress_all(const Context& block, const NmsCall& c, int64_t& total, NDArray* z) {
  const NDArray& boxes = *block.input(0);
  const NDArray& scores = *block.input(1);
  NDArray selected;
  RETURN_IF_ERROR(with_op_name(block, NDArray::create(DataType::kInt64, Dims{std::max<int64_t>(c.n, 1)}, 'c', selected)));
  total = 0;
  for (int64_t b = 0; b < c.batch; ++b)
    for (int64_t k = 0; k < c.classes; ++k) {
      NDArray bv, sv, kept, rows;
      RETURN_IF_ERROR(with_op_name(block, slice_views(c, boxes, scores, b, k, bv, sv)));
      int64_t count = 0;
      RETURN_IF_ERROR(suppress_slice(block, c.desc, bv, sv, selected, count));
      if (z != nullptr && count > 0) {
        RETURN_IF_ERROR(with_op_name(block, selected.slice(0, 0, count, 1, kept)));
        if (!c.batched) {
          RETURN_IF_ERROR(with_op_name(block, z->slice(0, total, total + count, 1, rows)));
          RETURN_IF_ERROR(assign_on_device(block, rows, kept));
        } else {  // rows (b, k, index)
          NDArray block_rows, col, v;
          RETURN_IF_ERROR(with_op_name(block, z->slice(0, total, total + count, 1, block_rows)));
          const double fill[2] = {static_cast<double>(b), static_cast<double>(k)};
          for (int j = 0; j < 2; ++j) {
            RETURN_IF_ERROR(with_op_name(block, block_rows.slice(1, j, j + 1, 1, col)));
            RETURN_IF_ERROR(with_op_name(block, NDArray::scalar(DataType::kInt64, fill[j], v)));
            RETURN_IF_ERROR(assign_on_device(block, col, v));
          }
          NDArray last, kept2;
          RETURN_IF_ERROR(with_op_name(block, block_rows.slice(1, 2, 3, 1, last)));
          RETURN_IF_ERROR(with_op_name(block, kept.reshape(Dims{count, 1}, kept2)));
          RETURN_IF_ERROR(assign_on_device(block, last, kept2));
        }
      }
      total += count;
    }
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(non_max_suppression, -1, 1, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  NmsCall c;
  RETURN_IF_ERROR(read_call(block, c));
  int64_t total = 0;
  NDArray* z = OUTPUT_VARIABLE(0);
  RETURN_IF_ERROR(suppress_all(block, c, total, z));
  if (total != (c.batched ? z->dim(0) : z->length()))
    return block.error(StatusCode::kInternal, "kept %lld boxes, but the shape function counted %lld",
                       static_cast<long long>(total), static_cast<long long>(z->dim(0)));
  return Status::ok();
}

DECLARE_SHAPE_FN(non_max_suppression) {
  using namespace libops;
  ops::NmsCall c;
  RETURN_IF_ERROR(ops::read_call(block, c));
  REQUIRE_TRUE(INPUT_VARIABLE(0)->has_data() && INPUT_VARIABLE(1)->has_data(), 0,
               "boxes and scores: their values are not known yet (the output size depends on them)");
  int64_t total = 0;
  RETURN_IF_ERROR(ops::suppress_all(block, c, total, nullptr));
  if (c.batched) shapes.push_back(TensorShape{DataType::kInt64, Dims{total, 3}, 'c'});
  else shapes.push_back(TensorShape{DataType::kInt32, Dims{total}, 'c'});
  return Status::ok();
}

DECLARE_TYPES(non_max_suppression) {
  // Runs argsort on the call's device, then the backend's kernel (non_max_suppression.cu).
  descriptor.allow_input(0, libops::types::kFloat).allow_input(1, libops::types::kFloat)
      .allow_input(2, libops::types::kNumeric).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kInt);
}

DECLARE_ARGS(non_max_suppression) {
  args.describe("The boxes kept by greedy non-maximum suppression, per slice (TF's and ONNX's forms by rank).");
  reads_on_host(args, "the inputs max_output_size, iou_threshold and score_threshold when given; the boxes and scores (the greedy walk runs on the host)");
  args.input("boxes", "[n, 4], or [batch, n, 4] (ONNX form)");
  args.input("scores", "[n], or [batch, classes, n]");
  args.optional_input("max_output_size", "scalar integer, overrides the i arg");
  args.optional_input("iou_threshold", "scalar, overrides the t arg");
  args.optional_input("score_threshold", "scalar, overrides the t arg");
  args.output("z", "int32 [kept] indices (TF form), or int64 [kept, 3] rows (batch, class, box) (ONNX form)");
  args.i_arg("max_output_size", -1, "boxes kept at most (per batch and class); -1: no limit").at_least(-1);
  args.i_arg("center_point_box", 0, "the box format")
      .one_of({{0, "corners y1, x1, y2, x2"}, {1, "centres x, y, width, height"}});
  args.t_arg("iou_threshold", 0.5, "a box overlapping a kept one by more than this is dropped").range(0, 1);
  args.t_arg("score_threshold", NAN, "only scores above it are candidates; NaN: no threshold").nan_allowed();
}
