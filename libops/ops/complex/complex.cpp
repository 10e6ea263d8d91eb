// Complex numbers as float32/float64 arrays whose last dim is 2 (real,
// imaginary): the layout of the fft ops (libops has no complex dtype; see
// the README). These ops read and make such arrays, each a view or a few
// legacy steps on the call's device:
//   complex(re, im)  [..., 2] from two real arrays of one shape
//   real(z), imag(z) the parts, [...]
//   conj(z)          [..., 2] with the imaginary part negated
//   complex_abs(z)   |z| = hypot(re, im), [...]
//   angle(z)         atan2(im, re) in (-pi, pi], [...]
#include "libops/legacy/ops/binary_ops.h"
#include "libops/legacy/ops/transform_float_ops.h"
#include "libops/legacy/ops/transform_same_ops.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"
#include "libops/ops/legacy_steps.h"

namespace libops::ops {
namespace {

// Part k (0 real, 1 imaginary) of a complex array, a view [...].
Status part(const NDArray& z, int k, NDArray& out) {
  NDArray s;
  RETURN_IF_ERROR(z.slice(z.rank() - 1, k, k + 1, 1, s));
  Dims shape;
  for (int d = 0; d + 1 < z.rank(); ++d) shape.push_back(z.dim(d));
  return s.reshape_copy(shape, out);  // drops the extent-1 axis: a view
}

Status complex_input(Context& block, const NDArray& z) {
  REQUIRE_TRUE(z.rank() >= 1 && z.dim(z.rank() - 1) == 2, OPS_ERR_SHAPE,
               "%s%s is not a complex array: its last dim must be 2 (real, imaginary)", block.signature()->input_name(0),
               z.shape().str().c_str());
  return Status::ok();
}

Status parts_shape(Context& block, ShapeList& shapes) {
  const NDArray& z = *block.input(0);
  RETURN_IF_ERROR(complex_input(block, z));
  Dims shape;
  for (int d = 0; d + 1 < z.rank(); ++d) shape.push_back(z.dim(d));
  shapes.push_back(TensorShape{z.dtype(), shape, 'c'});
  return Status::ok();
}

void complex_types(OpDescriptor& d) {
  d.allow_inputs({DataType::kFloat32, DataType::kFloat64}).runs_on_any_device();
}

void part_signature(OpSignature& args, const char* summary, const char* result) {
  args.describe(summary);
  args.input("z", "complex values: float32 or float64 [..., 2] (real, imaginary)");
  args.output("x", result);
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(complex, 2, 1, false, 0, 0) {
  using namespace libops;
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  for (int k = 0; k < 2; ++k) {
    NDArray p;
    RETURN_IF_ERROR(ops::part(*z, k, p));
    RETURN_IF_ERROR(ops::assign_on_device(block, p, *INPUT_VARIABLE(k)));
  }
  return Status::ok();
}
DECLARE_SHAPE_FN(complex) {
  using namespace libops;
  const NDArray *re = INPUT_VARIABLE(0), *im = INPUT_VARIABLE(1);
  REQUIRE_TRUE(re->shape() == im->shape(), OPS_ERR_SHAPE, "re%s and im%s must have one shape", re->shape().str().c_str(),
               im->shape().str().c_str());
  REQUIRE_TRUE(re->rank() < kMaxRank, OPS_ERR_SHAPE, "re%s: the result would exceed rank %d", re->shape().str().c_str(),
               kMaxRank);
  Dims s = re->shape();
  s.push_back(2);
  shapes.push_back(TensorShape{re->dtype(), s, 'c'});
  return Status::ok();
}
DECLARE_TYPES(complex) { libops::ops::complex_types(descriptor); descriptor.require_same_type(); }
DECLARE_ARGS(complex) {
  args.describe("A complex array [..., 2] from its real and imaginary parts.");
  args.input("re", "the real parts, float32 or float64");
  args.input("im", "the imaginary parts, re's shape and dtype");
  args.output("z", "[..., 2]");
}

CUSTOM_OP_IMPL(real, 1, 1, false, 0, 0) {
  libops::NDArray p;
  RETURN_IF_ERROR(libops::ops::part(*INPUT_VARIABLE(0), 0, p));
  return libops::ops::assign_on_device(block, *OUTPUT_VARIABLE(0), p);
}
DECLARE_SHAPE_FN(real) { return libops::ops::parts_shape(block, shapes); }
DECLARE_TYPES(real) { libops::ops::complex_types(descriptor); }
DECLARE_ARGS(real) { libops::ops::part_signature(args, "The real parts of a complex array.", "[...], z's dtype"); }

CUSTOM_OP_IMPL(imag, 1, 1, false, 0, 0) {
  libops::NDArray p;
  RETURN_IF_ERROR(libops::ops::part(*INPUT_VARIABLE(0), 1, p));
  return libops::ops::assign_on_device(block, *OUTPUT_VARIABLE(0), p);
}
DECLARE_SHAPE_FN(imag) { return libops::ops::parts_shape(block, shapes); }
DECLARE_TYPES(imag) { libops::ops::complex_types(descriptor); }
DECLARE_ARGS(imag) { libops::ops::part_signature(args, "The imaginary parts of a complex array.", "[...], z's dtype"); }

CUSTOM_OP_IMPL(conj, 1, 1, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  NDArray* out = OUTPUT_VARIABLE(0);
  if (out->length() == 0) return Status::ok();
  const NDArray& z = *INPUT_VARIABLE(0);
  NDArray re_in, im_in, re_out, im_out;
  RETURN_IF_ERROR(part(z, 0, re_in));
  RETURN_IF_ERROR(part(z, 1, im_in));
  RETURN_IF_ERROR(part(*out, 0, re_out));
  RETURN_IF_ERROR(part(*out, 1, im_out));
  RETURN_IF_ERROR(assign_on_device(block, re_out, re_in));
  return legacy_step(block, OPS_TRANSFORM_SAME, static_cast<int>(legacy::TransformSameOp::neg), im_in, nullptr, im_out);
}
DECLARE_SHAPE_FN(conj) {
  using namespace libops;
  RETURN_IF_ERROR(ops::complex_input(block, *INPUT_VARIABLE(0)));
  shapes.push_back(TensorShape{INPUT_VARIABLE(0)->dtype(), INPUT_VARIABLE(0)->shape(), 'c'});
  return Status::ok();
}
DECLARE_TYPES(conj) { libops::ops::complex_types(descriptor); }
DECLARE_ARGS(conj) { libops::ops::part_signature(args, "The complex conjugate.", "[..., 2], the imaginary part negated"); }

CUSTOM_OP_IMPL(complex_abs, 1, 1, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  NDArray* x = OUTPUT_VARIABLE(0);
  if (x->length() == 0) return Status::ok();
  NDArray re, im, sq;
  RETURN_IF_ERROR(part(*INPUT_VARIABLE(0), 0, re));
  RETURN_IF_ERROR(part(*INPUT_VARIABLE(0), 1, im));
  // sqrt(re^2 + im^2) in the compute type: squares past the type's range
  // overflow to inf (|z| above ~1.8e19 in float32), where a hypot would not.
  RETURN_IF_ERROR(step_array(block, x->dtype(), x->shape(), sq));
  RETURN_IF_ERROR(legacy_step(block, OPS_PAIRWISE, static_cast<int>(legacy::BinaryOp::multiply), re, &re, sq));
  RETURN_IF_ERROR(legacy_step(block, OPS_PAIRWISE, static_cast<int>(legacy::BinaryOp::multiply), im, &im, *x));
  RETURN_IF_ERROR(legacy_step(block, OPS_PAIRWISE, static_cast<int>(legacy::BinaryOp::add), sq, x, sq));
  return legacy_step(block, OPS_TRANSFORM_FLOAT, static_cast<int>(legacy::TransformFloatOp::sqrt), sq, nullptr, *x);
}
DECLARE_SHAPE_FN(complex_abs) { return libops::ops::parts_shape(block, shapes); }
DECLARE_TYPES(complex_abs) { libops::ops::complex_types(descriptor); }
DECLARE_ARGS(complex_abs) { libops::ops::part_signature(args, "The magnitude of complex numbers.", "sqrt(re^2 + im^2)"); }

CUSTOM_OP_IMPL(angle, 1, 1, false, 0, 0) {
  using namespace libops;
  using namespace libops::ops;
  NDArray* x = OUTPUT_VARIABLE(0);
  if (x->length() == 0) return Status::ok();
  NDArray re, im;
  RETURN_IF_ERROR(part(*INPUT_VARIABLE(0), 0, re));
  RETURN_IF_ERROR(part(*INPUT_VARIABLE(0), 1, im));
  return legacy_step(block, OPS_PAIRWISE, static_cast<int>(legacy::BinaryOp::atan2), im, &re, *x);
}
DECLARE_SHAPE_FN(angle) { return libops::ops::parts_shape(block, shapes); }
DECLARE_TYPES(angle) { libops::ops::complex_types(descriptor); }
DECLARE_ARGS(angle) { libops::ops::part_signature(args, "The argument of complex numbers.", "atan2(im, re) in (-pi, pi]"); }
