// fft, ifft, rfft, irfft: discrete Fourier transforms over chosen axes,
// numpy.fft's fftn / ifftn / rfftn / irfftn with the default normalisation
// (Note [DFT conventions] in blas/fft.h).
//
// libops has no complex dtype. A complex array here is a float32 or float64
// array whose last dim is 2, holding (real, imaginary): the convention of
// ONNX's DFT op and of torch.view_as_real, and in memory exactly numpy's
// complex64 / complex128. Its *signal dims* are all dims but that last one.
//
//   fft    x complex [..., 2] -> same shape: the forward DFT along each axis
//   ifft   x complex [..., 2] -> same shape: the inverse, 1/n along each axis
//   rfft   x real [...] -> complex: the forward DFT of a real signal; along
//          the last of the axes (length n) only bins 0 .. n/2 are kept
//          (h = n/2 + 1); the other axes are transformed in full
//   irfft  x complex [..., 2] -> real: rfft's inverse; i arg 0 is the output
//          length n along the last of the axes, 0 meaning 2 * (m - 1) for m
//          input bins there; the first min(m, n/2 + 1) bins are used, missing
//          ones are zeros (numpy's irfftn with s for that axis)
//   i args the axes, counted over the signal dims, negative from the end,
//          each at most once; none: the last signal dim. irfft's follow its
//          length.
//   dtype  float32 or float64; the output has x's
//
// Each transformed axis needs length >= 1; other dims may be 0 (an empty
// output). Each axis is one batched call of blas/fft.h over dense arrays
// seen as [outer, n, inner]; the first reads x (or a dense copy of a strided
// x) and writes the output, the others work in place. On a device the
// copies are legacy kernels there and the transforms the backend's (cuFFT):
// nothing passes through the host.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "blas/fft.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"

namespace libops::ops {
namespace {

enum class FftKind { kForward, kInverse, kRealForward, kRealInverse };

bool takes_complex(FftKind kind) { return kind != FftKind::kRealForward; }
bool gives_complex(FftKind kind) { return kind != FftKind::kRealInverse; }

struct FftArgs {
  std::vector<int> axes;  // signal dims, in the order given
  int64_t length = 0;     // irfft: the output length along axes.back()
};

Status fft_args(Context& block, FftKind kind, const NDArray& x, FftArgs& args) {
  const std::string xs = x.shape().str();
  if (takes_complex(kind)) {
    REQUIRE_TRUE(x.rank() >= 2 && x.dim(x.rank() - 1) == 2, OPS_ERR_SHAPE,
                 "x%s is not a complex array: it needs a last dim of 2 (real, imaginary) after at least one "
                 "signal dim",
                 xs.c_str());
  } else {
    REQUIRE_TRUE(x.rank() >= 1, OPS_ERR_SHAPE, "x%s is a scalar; it needs at least one signal dim", xs.c_str());
  }
  const int signal_rank = takes_complex(kind) ? x.rank() - 1 : x.rank();
  int first_axis_arg = 0;
  if (kind == FftKind::kRealInverse) {
    args.length = block.i_arg(0);  // >= 0 (the signature checked it)
    first_axis_arg = 1;
  }
  for (int i = first_axis_arg; i < block.num_i_args(); ++i) {
    int64_t axis = block.i_arg(i);
    REQUIRE_TRUE(axis >= -signal_rank && axis < signal_rank, OPS_ERR_INVALID_ARGUMENT,
                 "axis %lld (i arg %d) is out of range for x%s, which has %d signal dims",
                 static_cast<long long>(axis), i, xs.c_str(), signal_rank);
    if (axis < 0) axis += signal_rank;
    REQUIRE_TRUE(std::find(args.axes.begin(), args.axes.end(), axis) == args.axes.end(), OPS_ERR_INVALID_ARGUMENT,
                 "axis %lld is given twice", static_cast<long long>(axis));
    args.axes.push_back(static_cast<int>(axis));
  }
  if (args.axes.empty()) args.axes.push_back(signal_rank - 1);
  for (int axis : args.axes)
    REQUIRE_TRUE(x.dim(axis) >= 1, OPS_ERR_SHAPE,
                 "x%s has length 0 along axis %d; a transform needs at least one point", xs.c_str(), axis);
  if (kind == FftKind::kRealInverse && args.length == 0) {
    const int64_t bins = x.dim(args.axes.back());
    args.length = 2 * (bins - 1);
    REQUIRE_TRUE(args.length >= 1, OPS_ERR_SHAPE,
                 "x%s has 1 bin along axis %d, which gives an output length of 0; pass the length as i arg 0",
                 xs.c_str(), args.axes.back());
  }
  return Status::ok();
}

// The signal dims of an array of `kind`'s input (complex) or output.
std::vector<int64_t> signal_dims(const NDArray& a, bool is_complex) {
  std::vector<int64_t> dims(static_cast<size_t>(is_complex ? a.rank() - 1 : a.rank()));
  for (size_t d = 0; d < dims.size(); ++d) dims[d] = a.dim(static_cast<int>(d));
  return dims;
}

// A dense array of these signal dims seen as [outer, n, inner] along `axis`.
struct AxisSplit {
  int64_t outer = 1, n = 1, inner = 1;
};
AxisSplit split_at(const std::vector<int64_t>& dims, int axis) {
  AxisSplit s;
  for (int d = 0; d < static_cast<int>(dims.size()); ++d) {
    if (d < axis) s.outer *= dims[static_cast<size_t>(d)];
    else if (d == axis) s.n = dims[static_cast<size_t>(d)];
    else s.inner *= dims[static_cast<size_t>(d)];
  }
  return s;
}

void* data_on(Device dev, const NDArray& a) { return dev.is_cpu() ? a.data() : a.device_data(); }

// Complex-to-complex transforms along each of `axes` (inverse ones scaled
// by 1/n): the first from the dense complex `from` into the dense `to` of
// the same shape, the others in place in `to`. `from` may be `to`.
Status c2c_along(const Context& block, bool inverse, const std::vector<int>& axes, const NDArray& from, NDArray& to) {
  const Device dev = block.device();
  const std::vector<int64_t> dims = signal_dims(to, true);
  const NDArray* src = &from;
  for (int axis : axes) {
    const AxisSplit s = split_at(dims, axis);
    RETURN_IF_ERROR(with_op_name(block, blas::fft_c2c_on(dev, to.dtype(), inverse, s.outer, s.n, s.inner,
                                                         data_on(dev, *src), data_on(dev, to),
                                                         inverse ? 1.0 / static_cast<double>(s.n) : 1.0)));
    src = &to;
  }
  if (!dev.is_cpu()) to.buffer()->mark_device_written();
  return Status::ok();
}

Status fft_compute(Context& block, FftKind kind) {
  const NDArray* x = INPUT_VARIABLE(0);
  FftArgs args;
  RETURN_IF_ERROR(fft_args(block, kind, *x, args));
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  const Device dev = block.device();
  const DataType dt = x->dtype();
  DeviceOutputStage out;
  RETURN_IF_ERROR(out.begin(block, *z, dt));
  NDArray& work = out.target();
  const int last = args.axes.back();
  const std::vector<int> others(args.axes.begin(), args.axes.end() - 1);

  switch (kind) {
    case FftKind::kForward:
    case FftKind::kInverse: {
      // The first transform reads x (made dense if it is not) and writes
      // the output: no separate copy.
      NDArray xd;
      RETURN_IF_ERROR(dense_on_device(block, *x, dt, xd));
      RETURN_IF_ERROR(sync_for_kernel(dev, {&xd}, work));
      RETURN_IF_ERROR(c2c_along(block, kind == FftKind::kInverse, args.axes, xd, work));
      break;
    }
    case FftKind::kRealForward: {
      // The real axis first (it halves the data), then the others in full.
      NDArray xd;
      RETURN_IF_ERROR(dense_on_device(block, *x, dt, xd));
      RETURN_IF_ERROR(sync_for_kernel(dev, {&xd}, work));
      const AxisSplit s = split_at(signal_dims(xd, false), last);
      RETURN_IF_ERROR(
          with_op_name(block, blas::fft_r2c_on(dev, dt, s.outer, s.n, s.inner, data_on(dev, xd), data_on(dev, work))));
      if (!dev.is_cpu()) work.buffer()->mark_device_written();
      RETURN_IF_ERROR(c2c_along(block, false, others, work, work));
      break;
    }
    case FftKind::kRealInverse: {
      // rfft's steps undone in reverse: the other axes first, from x into
      // a scratch array, then the real axis from there into the output.
      NDArray xd;
      RETURN_IF_ERROR(dense_on_device(block, *x, dt, xd));
      if (!others.empty()) {
        NDArray spectrum;
        RETURN_IF_ERROR(NDArray::create(dt, x->shape(), 'c', spectrum));
        RETURN_IF_ERROR(sync_for_kernel(dev, {&xd}, spectrum));
        RETURN_IF_ERROR(c2c_along(block, true, others, xd, spectrum));
        xd = spectrum;
      }
      RETURN_IF_ERROR(sync_for_kernel(dev, {&xd}, work));
      const AxisSplit s = split_at(signal_dims(xd, true), last);
      RETURN_IF_ERROR(with_op_name(block, blas::fft_c2r_on(dev, dt, s.outer, s.n, args.length, s.inner,
                                                           data_on(dev, xd), data_on(dev, work),
                                                           1.0 / static_cast<double>(args.length))));
      if (!dev.is_cpu()) work.buffer()->mark_device_written();
      break;
    }
  }
  return out.finish(block, *z);
}

Status fft_shape(Context& block, FftKind kind, ShapeList& shapes) {
  const NDArray* x = INPUT_VARIABLE(0);
  FftArgs args;
  RETURN_IF_ERROR(fft_args(block, kind, *x, args));
  std::vector<int64_t> dims = signal_dims(*x, takes_complex(kind));
  const size_t last = static_cast<size_t>(args.axes.back());
  if (kind == FftKind::kRealForward) dims[last] = blas::real_fft_bins(dims[last]);
  if (kind == FftKind::kRealInverse) dims[last] = args.length;
  if (gives_complex(kind)) dims.push_back(2);
  shapes.push_back(TensorShape{x->dtype(), Dims(dims.data(), static_cast<int>(dims.size())), 'c'});
  return Status::ok();
}

// The signature of fft, ifft, rfft and irfft; `result` says what z is.
void fft_signature(OpSignature& args, FftKind kind, const char* result) {
  args.input("x", takes_complex(kind) ? "complex values: float32 or float64 [..., 2] (real, imaginary)"
                                      : "real values: float32 or float64, rank >= 1");
  args.output("z", result);
  if (kind == FftKind::kRealInverse)
    args.i_arg("length", 0, "output length along the last axis; 0 = 2 * (bins - 1)").at_least(0);
  args.i_list("axes", "the axes to transform, over the signal dims (all but a complex array's last); none = the last")
      .unique_values();
}

void fft_types(OpDescriptor& descriptor) {
  // On a device: copies through legacy kernels there, transforms through the
  // backend's (blas/fft.h).
  descriptor.allow_inputs({DataType::kFloat32, DataType::kFloat64}).runs_on_any_device();
  descriptor.allow_outputs({DataType::kFloat32, DataType::kFloat64});
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(fft, 1, 1, false, 0, -2) { return libops::ops::fft_compute(block, libops::ops::FftKind::kForward); }
DECLARE_SHAPE_FN(fft) { return libops::ops::fft_shape(block, libops::ops::FftKind::kForward, shapes); }
DECLARE_TYPES(fft) { libops::ops::fft_types(descriptor); }

CUSTOM_OP_IMPL(ifft, 1, 1, false, 0, -2) { return libops::ops::fft_compute(block, libops::ops::FftKind::kInverse); }
DECLARE_SHAPE_FN(ifft) { return libops::ops::fft_shape(block, libops::ops::FftKind::kInverse, shapes); }
DECLARE_TYPES(ifft) { libops::ops::fft_types(descriptor); }

CUSTOM_OP_IMPL(rfft, 1, 1, false, 0, -2) {
  return libops::ops::fft_compute(block, libops::ops::FftKind::kRealForward);
}
DECLARE_SHAPE_FN(rfft) { return libops::ops::fft_shape(block, libops::ops::FftKind::kRealForward, shapes); }
DECLARE_TYPES(rfft) { libops::ops::fft_types(descriptor); }

CUSTOM_OP_IMPL(irfft, 1, 1, false, 0, -2) {
  return libops::ops::fft_compute(block, libops::ops::FftKind::kRealInverse);
}
DECLARE_SHAPE_FN(irfft) { return libops::ops::fft_shape(block, libops::ops::FftKind::kRealInverse, shapes); }
DECLARE_TYPES(irfft) { libops::ops::fft_types(descriptor); }

DECLARE_ARGS(fft) {
  args.describe("Forward discrete Fourier transform of complex values.");
  libops::ops::fft_signature(args, libops::ops::FftKind::kForward, "the forward DFT along the axes, x's shape");
}
DECLARE_ARGS(ifft) {
  args.describe("Inverse discrete Fourier transform of complex values.");
  libops::ops::fft_signature(args, libops::ops::FftKind::kInverse, "the inverse DFT (1/n per axis), x's shape");
}
DECLARE_ARGS(rfft) {
  args.describe("Forward discrete Fourier transform of real values.");
  libops::ops::fft_signature(args, libops::ops::FftKind::kRealForward,
                             "complex [..., 2]: bins 0 .. n/2 along the last axis, all bins along the others");
}
DECLARE_ARGS(irfft) {
  args.describe("Inverse of rfft: real values from half a spectrum.");
  libops::ops::fft_signature(args, libops::ops::FftKind::kRealInverse, "real values, rfft's inverse");
}
