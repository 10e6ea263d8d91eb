// batchnorm: batch normalization in inference mode, with given statistics,
// along one channel axis.
//
//   inputs  x         float16, bfloat16, float32 or float64, rank >= 1
//           mean      [C], C = x's extent along the axis
//           variance  [C]
//           gamma     [C], optional (scale)
//           beta      [C], optional (offset)
//           The parameters may be any float dtype; each may also have x's
//           rank with every extent 1 except C at the axis ([1, C, 1, 1]).
//   i args  0 apply_scale, 1 apply_offset (0 or 1, libnd4j's order): which
//           of gamma and beta follow variance. Optional; -1 (the default)
//           takes gamma to be present when there are 4 or more inputs and
//           beta when there are 5. The input count must match the flags.
//           2 axis, optional: the channel axis, default 1 (NCHW, and the
//           feature axis of [N, F]); negative counts from the end (NHWC: -1)
//   t arg   0 epsilon, optional, default 1e-5, >= 0
//   output  x's dtype and shape; may run in place
//
//   z = (x - mean[c]) * gamma[c] / sqrt(variance[c] + epsilon) + beta[c]
//
// The per-channel factor gamma / sqrt(variance + epsilon) is formed in
// double, then the element loop runs in the compute type (float, or double
// for float64). A negative variance gives NaN, as in numpy.
//
// On another device the backend normalizes x in its own dtype, viewed as
// [outer, C, inner] around the channel axis, with the parameters converted
// there to float (double for float64 x) and gamma = 1, beta = 0 when absent
// (Note [nn ops on devices] in nn_device.h). In place, the result goes
// through a scratch array on the device.
#include <cmath>
#include <vector>

#include "libops/core/cpu_isa.h"
#include "libops/ops/nn/conv_utils.h"
#include "libops/ops/nn/nn_device.h"

namespace libops::ops::nn {
namespace {

struct BatchnormPlan {
  bool scale = false, offset = false;
  int axis = 1;
  int64_t channels = 0;
  double epsilon = 1e-5;
};

Status batchnorm_plan(Context& block, BatchnormPlan& plan) {
  const int n_in = block.num_inputs();
  // -1: as the inputs say (gamma when there are 4 or more, beta when 5).
  plan.scale = INT_ARG(0) == -1 ? n_in >= 4 : INT_ARG(0) == 1;
  plan.offset = INT_ARG(1) == -1 ? n_in == 5 : INT_ARG(1) == 1;
  REQUIRE_TRUE(n_in == 3 + int(plan.scale) + int(plan.offset), 0,
               "got %d inputs but apply_scale=%d and apply_offset=%d call for %d (x, mean, variance%s%s)", n_in,
               int(plan.scale), int(plan.offset), 3 + int(plan.scale) + int(plan.offset), plan.scale ? ", gamma" : "",
               plan.offset ? ", beta" : "");

  const NDArray& x = *block.input(0);
  const int64_t axis = INT_ARG(2);  // an axis of x (the signature checked it)
  plan.axis = static_cast<int>(axis < 0 ? axis + x.rank() : axis);
  plan.channels = x.dim(plan.axis);
  plan.epsilon = T_ARG(0);

  static const char* const kNames[5] = {"x", "mean", "variance", "gamma", "beta"};
  for (int i = 1; i < n_in; ++i) {
    const NDArray& p = *block.input(i);
    const char* name = kNames[i == 3 && !plan.scale ? 4 : i];
    bool ok = p.rank() == 1 && p.dim(0) == plan.channels;
    if (!ok && p.rank() == x.rank()) {
      ok = true;
      for (int d = 0; d < p.rank(); ++d) ok = ok && p.dim(d) == (d == plan.axis ? plan.channels : 1);
    }
    REQUIRE_TRUE(ok, OPS_ERR_SHAPE,
                 "%s%s does not match x%s at axis %d: it must be [%lld] (or x's rank with %lld at axis %d and 1 "
                 "elsewhere)",
                 name, p.shape().str().c_str(), x.shape().str().c_str(), plan.axis,
                 static_cast<long long>(plan.channels), static_cast<long long>(plan.channels), plan.axis);
  }
  return Status::ok();
}

// z = (x - mean[c]) * scale[c] + shift[c] over dense x viewed as
// [outer, channels, inner].
template <typename C>
void batchnorm_run(const C* x, int64_t outer, int64_t channels, int64_t inner, const std::vector<C>& mean,
                   const std::vector<C>& scale, const std::vector<C>& shift, C* z) {
  // The loop is compiled per instruction set (Note [Runtime ISA
  // dispatch]): the baseline copy's 4-lane SSE ran [1, 64, 112, 112] at
  // 55 GB/s (one thread, in L3), the AVX-512 copy at 80 (ORT: 79).
  parallel_for(outer * channels, std::max<int64_t>(1, 32768 / std::max<int64_t>(1, inner)),
               [&](int64_t begin, int64_t end) {
                 isa_dispatch([&] {
                   for (int64_t r = begin; r < end; ++r) {
                     const int64_t c = r % channels;
                     const C m = mean[c], s = scale[c], b = shift[c];
                     const C* xr = x + r * inner;
                     C* zr = z + r * inner;
                     for (int64_t i = 0; i < inner; ++i) zr[i] = (xr[i] - m) * s + b;
                   }
                 });
               });
}

// Parameter p ([C], or x's rank with C at the axis) as a dense [C] array of
// dtype `dt` on block.device().
Status batchnorm_param_on_device(const Context& block, const NDArray& p, int64_t channels, DataType dt,
                                 NDArray& out) {
  NDArray flat;
  if (!p.reshape(Dims{channels}, flat).is_ok()) {
    NDArray dense;  // strides that no [C] view can express
    RETURN_IF_ERROR(dense_on_device(block, p, p.dtype(), dense));
    RETURN_IF_ERROR(dense.reshape(Dims{channels}, flat));
  }
  return dense_on_device(block, flat, dt, out);
}

// batchnorm on block.device(), not the CPU (Note [nn ops on devices]).
Status batchnorm_device(Context& block, const BatchnormPlan& plan) {
  const NnDeviceOps* ops = nn_device_ops(block.device().type);
  if (ops == nullptr || ops->batchnorm_usable == nullptr || ops->batchnorm == nullptr)
    return no_device_implementation(block);
  const NDArray& x = *block.input(0);
  NDArray& z = *block.output(0);
  if (z.length() == 0) return Status::ok();
  BatchnormDesc desc;
  for (int d = 0; d < plan.axis; ++d) desc.outer *= x.dim(d);
  for (int d = plan.axis + 1; d < x.rank(); ++d) desc.inner *= x.dim(d);
  desc.channels = plan.channels;
  desc.epsilon = plan.epsilon;
  desc.dtype = x.dtype();
  RETURN_IF_ERROR(with_op_name(block, ops->batchnorm_usable(block.device(), desc)));

  const Dims shape3{desc.outer, desc.channels, desc.inner};
  const DataType pt = float_compute_dtype(desc.dtype);
  NDArray xd, x3, mean, variance, gamma, beta;
  RETURN_IF_ERROR(dense_on_device(block, x, desc.dtype, xd));
  RETURN_IF_ERROR(xd.reshape(shape3, x3));
  RETURN_IF_ERROR(batchnorm_param_on_device(block, *block.input(1), desc.channels, pt, mean));
  RETURN_IF_ERROR(batchnorm_param_on_device(block, *block.input(2), desc.channels, pt, variance));
  int next = 3;
  if (plan.scale) {
    RETURN_IF_ERROR(batchnorm_param_on_device(block, *block.input(next++), desc.channels, pt, gamma));
  } else {
    // Made on the host (the backend copies them over): the caller's data
    // never goes the other way.
    RETURN_IF_ERROR(NDArray::create(pt, Dims{desc.channels}, 'c', gamma));
    RETURN_IF_ERROR(gamma.assign_scalar(1.0));
  }
  if (plan.offset) RETURN_IF_ERROR(batchnorm_param_on_device(block, *block.input(next++), desc.channels, pt, beta));
  else RETURN_IF_ERROR(NDArray::zeros(pt, Dims{desc.channels}, 'c', beta));

  DeviceOutputStage out;
  RETURN_IF_ERROR(out.begin(block, z, desc.dtype));
  NDArray z3;
  RETURN_IF_ERROR(out.target().reshape(shape3, z3));
  RETURN_IF_ERROR(
      with_op_name(block, ops->batchnorm(block.device(), desc, x3, mean, variance, gamma, beta, z3)));
  return out.finish(block, z);
}

}  // namespace
}  // namespace libops::ops::nn

CUSTOM_OP_IMPL(batchnorm, -1, 1, true, 0, 0) {
  using namespace libops;
  using namespace libops::ops::nn;
  BatchnormPlan plan;
  RETURN_IF_ERROR(batchnorm_plan(block, plan));
  if (!block.device().is_cpu()) return batchnorm_device(block, plan);
  const NDArray& x = *INPUT_VARIABLE(0);
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();

  // Per-channel parameters, formed in double. Every accepted parameter
  // shape holds its C values in logical (C-order) index order, whatever its
  // rank and strides.
  const int64_t ch = plan.channels;
  std::vector<double> mean(ch), scale(ch, 1.0), shift(ch, 0.0);
  int next = 3;
  const NDArray* gamma = plan.scale ? INPUT_VARIABLE(next++) : nullptr;
  const NDArray* beta = plan.offset ? INPUT_VARIABLE(next++) : nullptr;
  for (int64_t c = 0; c < ch; ++c) {
    mean[c] = INPUT_VARIABLE(1)->get_double(c);
    const double g = gamma ? gamma->get_double(c) : 1.0;
    scale[c] = g / std::sqrt(INPUT_VARIABLE(2)->get_double(c) + plan.epsilon);
    if (beta) shift[c] = beta->get_double(c);
  }

  int64_t outer = 1, inner = 1;
  for (int d = 0; d < plan.axis; ++d) outer *= x.dim(d);
  for (int d = plan.axis + 1; d < x.rank(); ++d) inner *= x.dim(d);
  const DataType dt = float_compute_dtype(x.dtype());
  NDArray xd;
  RETURN_IF_ERROR(dense_as(x, dt, xd));
  OutputStage out;
  RETURN_IF_ERROR(out.begin(block, *z, dt, true));
  auto run = [&](auto c) {
    using C = decltype(c);
    std::vector<C> m(mean.begin(), mean.end()), s(scale.begin(), scale.end()), b(shift.begin(), shift.end());
    batchnorm_run<C>(xd.data_as<C>(), outer, ch, inner, m, s, b, out.target().data_as<C>());
  };
  if (dt == DataType::kFloat64) run(double{});
  else run(float{});
  return out.finish(*z);
}

DECLARE_SHAPE_FN(batchnorm) {
  using namespace libops;
  libops::ops::nn::BatchnormPlan plan;
  RETURN_IF_ERROR(libops::ops::nn::batchnorm_plan(block, plan));
  shapes.push_back(TensorShape{INPUT_VARIABLE(0)->dtype(), INPUT_VARIABLE(0)->shape(), 'c'});
  return Status::ok();
}

DECLARE_TYPES(batchnorm) {
  // On a device: through the backend's batchnorm (Note [nn ops on devices]).
  descriptor.allow_inputs(libops::types::kFloat).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kFloat);
}

DECLARE_ARGS(batchnorm) {
  args.describe("Batch normalization with given statistics (inference).");
  args.input("x", "the array, rank >= 1");
  args.input("mean", "[C], C = x's extent along axis (or x's rank, 1 except at axis)");
  args.input("variance", "[C]");
  args.optional_input("gamma", "[C], the scale (beta instead when apply_scale is 0)");
  args.optional_input("beta", "[C], the offset");
  args.output("z", "(x - mean) * gamma / sqrt(variance + epsilon) + beta, x's dtype");
  args.i_arg("apply_scale", -1, "whether gamma follows variance")
      .one_of({{-1, "when there are 4 or more inputs"}, {0, "no"}, {1, "yes"}});
  args.i_arg("apply_offset", -1, "whether beta is given")
      .one_of({{-1, "when there are 5 inputs"}, {0, "no"}, {1, "yes"}});
  args.i_arg("axis", 1, "the channel axis: 1 for NCHW and [N, F], -1 for NHWC").axis(0);
  args.t_arg("epsilon", 1e-5, "added to the variance").at_least(0.0).finite();
}
