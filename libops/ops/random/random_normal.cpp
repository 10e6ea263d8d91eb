// random_normal: normal random numbers from an explicit seed, the same on
// every device and thread count (Note [Threefry random numbers]): JAX's
// construction, sqrt(2) erfinv(u) for u uniform in (-1, 1), then
// mean + stddev * z. The shape comes as i args after the seed or as an
// integer vector input, mean and stddev as t args (libnd4j's random_normal).
#include "libops/ops/declarable_op.h"
#include "libops/ops/random/draw.h"

CUSTOM_OP_IMPL(random_normal, -2, 1, false, 0, 1) {
  using namespace libops;
  ops::DrawDesc d;
  d.kind = ops::DrawKind::kNormal;
  d.key = ops::rng::threefry_key(INT_ARG(0));
  NDArray* z = OUTPUT_VARIABLE(0);
  d.n = z->length();
  ops::normal_bounds(z->dtype(), T_ARG(0), T_ARG(1), d);
  return ops::draw_into(block, d, *z);
}

DECLARE_SHAPE_FN(random_normal) {
  using namespace libops;
  const DataType t = D_ARG(0);
  REQUIRE_TRUE(types::kFloat.contains(t), OPS_ERR_DTYPE, "dtype %s: must be one of %s", dtype_name(t),
               types::kFloat.str().c_str());
  Dims shape;
  RETURN_IF_ERROR(ops::draw_shape(block, shape));
  shapes.push_back(TensorShape{t, shape, 'c'});
  return Status::ok();
}

DECLARE_TYPES(random_normal) {
  // On a device through the draw kernel (draw.cu).
  descriptor.allow_inputs(libops::types::kInt).allow_outputs(libops::types::kFloat).runs_on_any_device();
}

DECLARE_ARGS(random_normal) {
  args.describe("Normal random numbers from an explicit seed, mean + stddev * sqrt(2) erfinv(u), as "
                "jax.random.normal.");
  args.optional_input("shape", "the shape as an integer vector, instead of i args");
  args.output("z", "the draws, in dtype; element i depends only on the seed and i");
  args.i_arg("seed", "any 64-bit value; the key is (seed >> 32, seed & 0xffffffff), JAX's PRNGKey(seed)");
  args.i_list("shape", "the shape of z").or_input(0);
  args.t_arg("mean", 0.0, "the mean").finite();
  args.t_arg("stddev", 1.0, "the standard deviation").at_least(0).finite();
  args.d_arg("dtype", libops::DataType::kFloat32, "the dtype of z: float16, bfloat16, float32 or float64");
}

DECLARE_SYN(randomnormal, random_normal)
