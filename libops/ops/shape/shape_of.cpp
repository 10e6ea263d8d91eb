// shape_of: x's extents as an int64 vector (ONNX Shape, TF shape,
// libnd4j shape_of), for graphs that compute shapes at run time.
//
//   input   x: any dtype and shape
//   i args  0 start, 1 end (optional; ONNX Shape's attributes): the dims
//           [start, end) of x, negative counting from the end, both
//           clamped to [0, rank]; end = INT64_MAX by default
//   output  int64 [end - start] (empty when end <= start)
//
// The extents are metadata the host always has: the op writes the host
// copy and marks it written, whatever device the call names, and the
// buffer moves to the device when a kernel there reads it (Note [Host and
// device copies] in array/data_buffer.h). No data of x is read.
#include <algorithm>
#include <limits>

#include "libops/ops/declarable_op.h"

namespace {

void dims_range(const libops::Context& block, int rank, int64_t& start, int64_t& end) {
  start = block.i_arg(0);
  end = block.i_arg(1);
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, start, rank);
}

}  // namespace

CUSTOM_OP_IMPL(shape_of, 1, 1, false, 0, 0) {
  using namespace libops;
  const NDArray* x = INPUT_VARIABLE(0);
  NDArray* z = OUTPUT_VARIABLE(0);
  int64_t start = 0, end = 0;
  dims_range(block, x->rank(), start, end);
  RETURN_IF_ERROR(z->buffer()->sync_to_host());
  for (int64_t d = start; d < end; ++d) z->set_double(d - start, static_cast<double>(x->dim(static_cast<int>(d))));
  return Status::ok();
}

DECLARE_SHAPE_FN(shape_of) {
  using namespace libops;
  int64_t start = 0, end = 0;
  dims_range(block, INPUT_VARIABLE(0)->rank(), start, end);
  shapes.push_back(TensorShape{DataType::kInt64, Dims{end - start}, 'c'});
  return Status::ok();
}

DECLARE_TYPES(shape_of) {
  // x's data is never read, so x may be anywhere (see the top of the file).
  descriptor.allow_inputs(libops::types::kAny).runs_on_any_device();
  descriptor.allow_outputs({libops::DataType::kInt64});
}

DECLARE_ARGS(shape_of) {
  args.describe("x's extents as an int64 vector (ONNX Shape).");
  args.input("x", "any array; only its shape is read");
  args.output("z", "int64 [end - start]: x's extents from start to end");
  args.i_arg("start", 0, "first dim; negative counts from the end");
  args.i_arg("end", std::numeric_limits<int64_t>::max(), "one past the last dim; negative counts from the end");
}

DECLARE_SYN(shape, shape_of)
