// reverse_sequence: in each batch row, the first seq_lengths[b] steps along
// the time axis reversed and the rest left as they are (TF's and libnd4j's
// reverse_sequence, ONNX ReverseSequence with its two axes given as i args).
//
//   inputs  x (any dtype, rank >= 2), seq_lengths [x.dim(batch_axis)]
//           integers, each in [0, x.dim(seq_axis)]
//   i args  seq_axis (required), batch_axis (default 0), distinct axes of x
//
// The lengths are read on the host (one small array) and checked before
// anything is written, so a bad length is an error naming its row, on every
// device; the copy itself runs on the call's device (reverse_sequence.cu).
#include "libops/ops/shape/reverse_sequence.h"

#include <cstring>

#include "libops/core/parallel.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"

namespace libops::ops {

DeviceKernel<ReverseSequenceDeviceFn> reverse_sequence_device_kernel;

namespace {

struct Axes {
  int time = 0, batch = 0;
};

Status read_axes(const Context& block, Axes& ax) {
  const NDArray& x = *block.input(0);
  const NDArray& len = *block.input(1);
  const int r = x.rank();
  const int64_t s = block.i_arg(0), b = block.i_arg(1);
  // The signature checks each axis against x's rank.
  ax.time = static_cast<int>(s < 0 ? s + r : s);
  ax.batch = static_cast<int>(b < 0 ? b + r : b);
  if (ax.time == ax.batch)
    return block.error(StatusCode::kInvalidArgument, "seq_axis %lld and batch_axis %lld name one axis of x%s",
                       static_cast<long long>(s), static_cast<long long>(b), x.shape().str().c_str());
  if (len.rank() != 1 || len.dim(0) != x.dim(ax.batch))
    return block.error(StatusCode::kInvalidArgument,
                       "seq_lengths%s must hold one length per batch row: [%lld] for x%s with batch_axis %d",
                       len.shape().str().c_str(), static_cast<long long>(x.dim(ax.batch)), x.shape().str().c_str(),
                       ax.batch);
  return Status::ok();
}

ReverseSequenceDesc describe(const NDArray& x, const Axes& ax) {
  ReverseSequenceDesc d;
  const int first = std::min(ax.time, ax.batch), second = std::max(ax.time, ax.batch);
  d.time_first = ax.time == first;
  for (int k = 0; k < first; ++k) d.pre *= x.dim(k);
  d.a = x.dim(first);
  for (int k = first + 1; k < second; ++k) d.mid *= x.dim(k);
  d.b = x.dim(second);
  for (int k = second + 1; k < x.rank(); ++k) d.post *= x.dim(k);
  d.elem_size = static_cast<int64_t>(x.element_size());
  return d;
}

// Rows of `post` elements move as one memcpy; the unit (p, i, m, j) names
// one such row of z.
void reverse_sequence_cpu(const ReverseSequenceDesc& d, const char* x, const int64_t* len, char* z) {
  const int64_t row = d.post * d.elem_size, units = d.pre * d.a * d.mid * d.b;
  parallel_for(units, std::max<int64_t>(1, 16384 / std::max<int64_t>(row, 1)), [&](int64_t begin, int64_t end) {
    for (int64_t u = begin; u < end; ++u)
      std::memcpy(z + u * row, x + reverse_sequence_source(d, len, u) * row, static_cast<size_t>(row));
  });
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(reverse_sequence, 2, 1, true, 0, 1) {
  using namespace libops;
  using namespace libops::ops;
  Axes ax;
  RETURN_IF_ERROR(read_axes(block, ax));
  const NDArray& x_in = *INPUT_VARIABLE(0);
  NDArray* z = OUTPUT_VARIABLE(0);
  NDArray lengths, x;
  // Checked even for an empty x: a bad length is an error whatever the data.
  RETURN_IF_ERROR(checked_int64_on_host(block, *INPUT_VARIABLE(1), "seq_lengths", "a length", 0, x_in.dim(ax.time) + 1,
                                        lengths));
  if (z->length() == 0) return Status::ok();
  RETURN_IF_ERROR(dense_on_device(block, x_in, x_in.dtype(), x));
  const ReverseSequenceDesc d = describe(x, ax);
  DeviceOutputStage out;
  RETURN_IF_ERROR(out.begin(block, *z, x.dtype()));
  if (!block.device().is_cpu()) {
    const ReverseSequenceDeviceFn fn = reverse_sequence_device_kernel.get(block.device().type);
    if (fn == nullptr) return no_device_implementation(block);
    RETURN_IF_ERROR(with_op_name(block, fn(block.device(), d, x, lengths, out.target())));
    return out.finish(block, *z);
  }
  RETURN_IF_ERROR(with_op_name(block, sync_for_kernel(block.device(), {&x}, out.target())));
  reverse_sequence_cpu(d, static_cast<const char*>(x.data()), lengths.data_as<int64_t>(),
                       static_cast<char*>(out.target().data()));
  out.target().buffer()->mark_host_written();
  return out.finish(block, *z);
}

DECLARE_SHAPE_FN(reverse_sequence) {
  using namespace libops;
  ops::Axes ax;
  RETURN_IF_ERROR(ops::read_axes(block, ax));
  shapes.push_back(TensorShape{INPUT_VARIABLE(0)->dtype(), INPUT_VARIABLE(0)->shape(), 'c'});
  return Status::ok();
}

DECLARE_TYPES(reverse_sequence) {
  // On a device through the backend's kernel (reverse_sequence.cu).
  descriptor.allow_input(0, libops::types::kAny).allow_input(1, libops::types::kInt).runs_on_any_device();
}

DECLARE_ARGS(reverse_sequence) {
  args.describe("Reverses the first seq_lengths[b] steps of each batch row along the time axis.");
  args.input("x", "any dtype, rank >= 2");
  args.input("seq_lengths", "[x.dim(batch_axis)] integers, each in [0, x.dim(seq_axis)]");
  args.output("z", "x's shape and dtype");
  args.i_arg("seq_axis", "the time axis").axis(0);
  args.i_arg("batch_axis", 0, "the batch axis").axis(0);
}
