// random_multinomial (alias multinomial): num_samples class indices per row
// of logits [..., classes], drawn from an explicit seed: JAX's categorical
// with the Gumbel trick (Note [Threefry random numbers]), laid out as TF's
// multinomial, [..., num_samples]. With probs the rows hold probabilities
// (not necessarily summing to 1) and their logs are the logits. libnd4j's
// random_multinomial, with the seed given rather than taken from a graph
// RNG, num_samples as i arg 1 or as input 1, and the classes always along
// the last dim.
#include "libops/ops/random/random_multinomial.h"

#include <vector>

#include "libops/core/parallel.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/device_copy.h"

namespace libops::ops {

DeviceKernel<MultinomialDeviceFn> multinomial_device_kernel;

namespace {

template <typename C>
void multinomial_cpu(const MultinomialDesc& d, const C* logits, int64_t* z) {
  parallel_for(d.rows * d.samples, 256, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end; ++t) {
      const int64_t b = t / d.samples, s = t % d.samples;
      z[t] = categorical_sample(d, logits + b * d.classes, b, s);
    }
  });
}

Status plan(const Context& block, MultinomialDesc& d) {
  const NDArray& x = *block.input(0);
  REQUIRE_TRUE(x.rank() >= 1 && x.dim(x.rank() - 1) >= 1, OPS_ERR_SHAPE,
               "logits%s: needs rank >= 1 and at least one class along the last dim", x.shape().str().c_str());
  thread_local std::vector<int64_t> samples;
  RETURN_IF_ERROR(block.int_list("num_samples", samples));
  REQUIRE_TRUE(samples.size() == 1, 0, "num_samples with %zu values: give one, as i arg 1 or as input 1",
               samples.size());
  REQUIRE_TRUE(samples[0] >= 0, 0, "num_samples %lld: must be >= 0", static_cast<long long>(samples[0]));
  d.classes = x.dim(x.rank() - 1);
  d.rows = x.length() / d.classes;
  d.samples = samples[0];
  d.probs = block.b_arg(0);
  return Status::ok();
}

}  // namespace
}  // namespace libops::ops

CUSTOM_OP_IMPL(random_multinomial, -1, 1, false, 0, 1) {
  using namespace libops;
  using namespace libops::ops;
  MultinomialDesc d;
  RETURN_IF_ERROR(plan(block, d));
  d.key = rng::threefry_key(INT_ARG(0));
  NDArray* z = OUTPUT_VARIABLE(0);
  if (z->length() == 0) return Status::ok();
  const NDArray& x = *INPUT_VARIABLE(0);
  const DataType ct = x.dtype() == DataType::kFloat64 ? DataType::kFloat64 : DataType::kFloat32;
  NDArray logits;
  RETURN_IF_ERROR(dense_on_device(block, x, ct, logits));
  DeviceOutputStage out;
  RETURN_IF_ERROR(out.begin(block, *z, DataType::kInt64));
  if (block.device().is_cpu()) {
    int64_t* o = out.target().data_as<int64_t>();
    if (ct == DataType::kFloat64) multinomial_cpu(d, logits.data_as<double>(), o);
    else multinomial_cpu(d, logits.data_as<float>(), o);
    out.target().buffer()->mark_host_written();
  } else {
    const MultinomialDeviceFn fn = multinomial_device_kernel.get(block.device().type);
    if (fn == nullptr) return no_device_implementation(block);
    RETURN_IF_ERROR(with_op_name(block, fn(block.device(), d, logits, out.target())));
  }
  return out.finish(block, *z);
}

DECLARE_SHAPE_FN(random_multinomial) {
  using namespace libops;
  ops::MultinomialDesc d;
  RETURN_IF_ERROR(ops::plan(block, d));
  const DataType t = D_ARG(0);
  REQUIRE_TRUE(t == DataType::kInt32 || t == DataType::kInt64, OPS_ERR_DTYPE, "dtype %s: must be int32 or int64",
               dtype_name(t));
  Dims out = INPUT_VARIABLE(0)->shape();
  out[out.size() - 1] = d.samples;
  shapes.push_back(TensorShape{t, out, 'c'});
  return Status::ok();
}

DECLARE_TYPES(random_multinomial) {
  // On a device through the backend's kernel (random_multinomial.cu).
  descriptor.allow_input(0, libops::types::kFloat).allow_input(1, libops::types::kInt).runs_on_any_device();
  descriptor.allow_outputs(libops::types::kIndex);
}

DECLARE_ARGS(random_multinomial) {
  args.describe("Class indices drawn from each row of logits (or probabilities) from an explicit seed, as "
                "jax.random.categorical.");
  args.input("logits", "[..., classes] float: unnormalized log probabilities (probabilities with probs)");
  args.optional_input("num_samples", "the number of samples as an integer scalar, instead of i arg 1");
  args.output("z", "[..., num_samples] class indices in [0, classes)");
  args.i_arg("seed", "any 64-bit value; the key is (seed >> 32, seed & 0xffffffff), JAX's PRNGKey(seed)");
  args.i_list("num_samples", "samples per row (one value)").count(0, 1).at_least(0).or_input(1);
  args.b_arg("probs", false, "the rows hold probabilities (>= 0, any sum) rather than logits");
  args.d_arg("dtype", libops::DataType::kInt64, "the dtype of z: int32 or int64");
}

DECLARE_SYN(multinomial, random_multinomial)
