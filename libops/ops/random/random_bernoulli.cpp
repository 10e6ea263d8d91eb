// random_bernoulli: 1 with probability p, else 0, from an explicit seed, the
// same on every device and thread count: the float32 uniform below float(p),
// as jax.random.bernoulli (Note [Threefry random numbers]). The shape comes
// as i args after the seed or as an integer vector input, p as t arg 0
// (libnd4j's random_bernoulli), the dtype of the 0s and 1s as d arg 0.
#include "libops/ops/declarable_op.h"
#include "libops/ops/random/draw.h"

CUSTOM_OP_IMPL(random_bernoulli, -2, 1, false, 1, 1) {
  using namespace libops;
  ops::DrawDesc d;
  d.kind = ops::DrawKind::kBernoulli;
  d.key = ops::rng::threefry_key(INT_ARG(0));
  NDArray* z = OUTPUT_VARIABLE(0);
  d.n = z->length();
  d.p = static_cast<float>(T_ARG(0));
  return ops::draw_into(block, d, *z);
}

DECLARE_SHAPE_FN(random_bernoulli) {
  using namespace libops;
  const DataType t = D_ARG(0);
  REQUIRE_TRUE(types::kAny.contains(t), OPS_ERR_DTYPE, "dtype %s: must be one of %s", dtype_name(t),
               types::kAny.str().c_str());
  Dims shape;
  RETURN_IF_ERROR(ops::draw_shape(block, shape));
  shapes.push_back(TensorShape{t, shape, 'c'});
  return Status::ok();
}

DECLARE_TYPES(random_bernoulli) {
  // On a device through the draw kernel (draw.cu).
  descriptor.allow_inputs(libops::types::kInt).allow_outputs(libops::types::kAny).runs_on_any_device();
}

DECLARE_ARGS(random_bernoulli) {
  args.describe("0s and 1s, 1 with probability p, from an explicit seed, as jax.random.bernoulli.");
  args.optional_input("shape", "the shape as an integer vector, instead of i args");
  args.output("z", "the draws, in dtype; element i depends only on the seed and i");
  args.i_arg("seed", "any 64-bit value; the key is (seed >> 32, seed & 0xffffffff), JAX's PRNGKey(seed)");
  args.i_list("shape", "the shape of z").or_input(0);
  args.t_arg("p", "the probability of a 1 (compared in float32)").range(0, 1);
  args.d_arg("dtype", libops::DataType::kFloat32, "the dtype of z");
}
