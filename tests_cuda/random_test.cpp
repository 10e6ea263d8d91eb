// The legacy RANDOM table on cuda:0 against the same call on the CPU (whose
// distributions tests_cpu checks): a seed must give the same numbers on
// both, for every op, dtype and layout of z.
//
// Note [Random numbers on CUDA] (libops/random/distributions.h) says what
// to expect: ops that call no math-library function (uniform, bernoulli,
// binomial, poisson, the dropouts, linspace, choice) match bit for bit;
// gaussian, exponential, log_normal, truncated_normal and gamma within a few
// ulp of their compute type, and truncated_normal and gamma may, very
// rarely, accept a different candidate for an element when a rejection test
// lands within an ulp of its bound (allowed here for 1 element in 1000).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "cuda_test_util.h"
#include "libops/legacy/legacy.h"
#include "libops/legacy/ops/random_ops.h"

namespace libops {
namespace {

using legacy::RandomOp;
using test::make;
using test::values;

constexpr uint64_t kSeed = 0x9e3779b97f4a7c15ULL;  // both 32-bit key words non-zero

enum class Match {
  kExact,       // bit for bit
  kClose,       // within tolerance(dtype)
  kRejections,  // kClose, except for at most 1 element in 1000
};

struct Case {
  RandomOp op;
  std::vector<double> extra;
  Match match;
  // Magnitude below which differences are measured absolutely: ops whose
  // values cancel near 0 (mean + stddev * z) carry the error of the terms.
  double scale = 0;
};

const char* op_name(RandomOp op) { return legacy::op_name(OPS_RANDOM, static_cast<int>(op)); }

std::string describe(const Case& c, DataType t) {
  std::string s = std::string(op_name(c.op)) + " " + dtype_name(t) + " extra [";
  for (size_t i = 0; i < c.extra.size(); ++i) s += (i ? ", " : "") + std::to_string(c.extra[i]);
  return s + "]";
}

// Relative tolerance of a draw stored in `t`: a few ulp of the compute type
// (float for float16/bfloat16/float32), or one ulp of a 16-bit z, where a
// few-ulp float difference can round to the neighbouring value.
double tolerance(DataType t) {
  switch (t) {
    case DataType::kFloat64: return 1e-12;
    case DataType::kFloat32: return 2e-5;
    case DataType::kFloat16:
    case DataType::kBFloat16: return 1e-2;
    default: return 0.0;
  }
}

// Values spread over (-2.5, 2.5) without exact zeros: inputs that are not one value.
NDArray input(DataType t, const Dims& shape, double phase) {
  int64_t n = 1;
  for (int d = 0; d < shape.size(); ++d) n *= shape[d];
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = 2.5 * std::sin(0.7 * static_cast<double>(i) + phase) + 0.01;
  return make(t, shape, v);
}

NDArray filled(DataType t, const Dims& shape, double value) {
  NDArray a = test::zeros(t, shape);
  EXPECT_OK(a.assign_scalar(value));
  return a;
}

Status run(Device d, RandomOp op, uint64_t seed, NDArray& z, const std::vector<double>& extra,
           const NDArray* x = nullptr, const NDArray* y = nullptr) {
  legacy::LegacyCall call;
  call.group = OPS_RANDOM;
  call.num = static_cast<int>(op);
  call.x = x;
  call.y = y;
  call.z = &z;
  call.seed = seed;
  call.extra = ExtraParams::from(extra.data(), static_cast<int>(extra.size()));
  call.device = d;
  return legacy::exec(call);
}

// z's values in C order, read on the host: after a run on cuda:0 the host
// copy is stale until synced.
std::vector<double> host_values(const NDArray& z) {
  EXPECT_OK(z.buffer()->sync_to_host());
  return values(z);
}

bool same_bits(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b));
}

// Every element of a z of dtype `t` (any dtype converts to double exactly).
::testing::AssertionResult matches(const std::vector<double>& cpu, const std::vector<double>& gpu, DataType t,
                                   Match match, double scale, const std::string& what) {
  if (cpu.size() != gpu.size())
    return ::testing::AssertionFailure() << what << ": " << cpu.size() << " elements on the cpu, " << gpu.size()
                                         << " on cuda";
  const double rtol = match == Match::kExact ? 0.0 : tolerance(t);
  const size_t allowed = match == Match::kRejections ? cpu.size() / 1000 : 0;
  size_t outside = 0;
  size_t first = 0;
  for (size_t i = 0; i < cpu.size(); ++i) {
    const double a = cpu[i], b = gpu[i];
    if (same_bits(a, b)) continue;
    const double mag = std::max({std::fabs(a), std::fabs(b), scale});
    if (rtol > 0 && std::isfinite(a) && std::isfinite(b) && std::fabs(a - b) <= rtol * mag) continue;
    if (outside++ == 0) first = i;
  }
  if (outside <= allowed) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << what << ": " << outside << " of " << cpu.size()
                                       << " elements differ (allowed " << allowed << "); first at " << first
                                       << ": cpu " << cpu[first] << ", cuda " << gpu[first];
}

// Runs the op with one seed into zc on the CPU and into zg on cuda:0 (same
// dtype, shape and layout) and compares them; both runs must succeed.
void expect_same_draws(const Case& c, NDArray& zc, NDArray& zg, const NDArray* x = nullptr,
                       const NDArray* y = nullptr, const std::string& extra_what = "") {
  const std::string what = describe(c, zc.dtype()) + extra_what;
  ASSERT_OK(run(Device::cpu(), c.op, kSeed, zc, c.extra, x, y));
  const Status s = run(Device::cuda(0), c.op, kSeed, zg, c.extra, x, y);
  ASSERT_TRUE(s.is_ok()) << what << ": " << s.message();
  EXPECT_TRUE(matches(host_values(zc), host_values(zg), zc.dtype(), c.match, c.scale, what));
}

// The same call fails alike on both devices: same code, same message.
void expect_same_error(RandomOp op, DataType t, const Dims& shape, const std::vector<double>& extra,
                       const NDArray* x, const NDArray* y, StatusCode code, const std::string& what) {
  NDArray zc = test::zeros(t, shape), zg = test::zeros(t, shape);
  const Status cpu = run(Device::cpu(), op, kSeed, zc, extra, x, y);
  const Status gpu = run(Device::cuda(0), op, kSeed, zg, extra, x, y);
  EXPECT_EQ(cpu.code(), code) << what << ": " << cpu.message();
  EXPECT_EQ(gpu.code(), code) << what << ": " << gpu.message();
  EXPECT_EQ(gpu.message(), cpu.message()) << what;
}

// Every row of the table, except choice (its own tests below), with the
// params that reach each of its sampling paths.
std::vector<Case> per_element_cases() {
  return {
      {RandomOp::uniform, {}, Match::kExact},
      {RandomOp::uniform, {-2, 3.5}, Match::kExact},
      {RandomOp::gaussian, {1.5, 2}, Match::kClose, 3.5},
      {RandomOp::bernoulli, {0.3}, Match::kExact},
      {RandomOp::binomial, {10, 0.3}, Match::kExact},     // trials <= 64: summed Bernoulli draws
      {RandomOp::binomial, {1000, 0.003}, Match::kExact}, // n p < 10: inversion
      {RandomOp::binomial, {1000, 0.4}, Match::kExact},   // BTRS
      {RandomOp::binomial, {1000, 0.8}, Match::kExact},   // BTRS on 1 - p
      {RandomOp::exponential, {2.5}, Match::kClose},
      {RandomOp::log_normal, {0.2, 0.7}, Match::kClose},
      {RandomOp::truncated_normal, {1, 3}, Match::kRejections, 4},
      {RandomOp::poisson, {4.5}, Match::kExact},   // product of uniforms
      {RandomOp::poisson, {100}, Match::kExact},   // PTRS
      {RandomOp::gamma, {0.5, 2}, Match::kRejections},  // alpha < 1: boosted
      {RandomOp::gamma, {3.3, 1.5}, Match::kRejections},
      {RandomOp::dropout, {0.7}, Match::kExact},
      {RandomOp::dropout_inverted, {0.7}, Match::kExact},
      {RandomOp::alpha_dropout, {0.8}, Match::kExact},
      {RandomOp::linspace, {-1, 2.3}, Match::kExact},
  };
}

bool takes_x(RandomOp op) {
  return op == RandomOp::dropout || op == RandomOp::dropout_inverted || op == RandomOp::alpha_dropout;
}

// Ops that also write integer z (they sample in double and store counts).
bool writes_integers(RandomOp op) {
  return op == RandomOp::bernoulli || op == RandomOp::binomial || op == RandomOp::poisson;
}

TEST(CudaRandom, EveryOpMatchesTheCpuForOneSeed) {
  REQUIRE_CUDA_DEVICE();
  const Dims shape{37, 111};  // 4107 elements: not a multiple of a block
  const NDArray x = input(DataType::kFloat32, shape, 0.3);
  for (const Case& c : per_element_cases()) {
    std::vector<DataType> types = {DataType::kFloat32, DataType::kFloat64};
    if (writes_integers(c.op)) types.insert(types.end(), {DataType::kInt32, DataType::kInt64});
    for (DataType t : types) {
      NDArray zc = test::zeros(t, shape), zg = test::zeros(t, shape);
      expect_same_draws(c, zc, zg, takes_x(c.op) ? &x : nullptr);
    }
  }
}

TEST(CudaRandom, SeedsAndIndicesGiveDifferentDraws) {
  REQUIRE_CUDA_DEVICE();
  NDArray a = test::zeros(DataType::kFloat64, {1000}), b = test::zeros(DataType::kFloat64, {1000});
  ASSERT_OK(run(Device::cuda(0), RandomOp::uniform, kSeed, a, {}));
  ASSERT_OK(run(Device::cuda(0), RandomOp::uniform, kSeed + 1, b, {}));
  const std::vector<double> va = host_values(a), vb = host_values(b);
  size_t same = 0;
  for (size_t i = 0; i < va.size(); ++i) same += va[i] == vb[i];
  EXPECT_EQ(same, 0u);
  // No two elements of one draw repeat a 53-bit uniform.
  std::vector<double> sorted = va;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end());
}

TEST(CudaRandom, OddShapesAndEmptyZ) {
  REQUIRE_CUDA_DEVICE();
  const Case uniform{RandomOp::uniform, {-2, 3.5}, Match::kExact};
  const Case poisson{RandomOp::poisson, {100}, Match::kExact};
  for (const Dims& shape : {Dims{}, Dims{1}, Dims{3, 1, 5, 7}, Dims{2, 3, 5}, Dims{1, 1, 257}}) {
    for (const Case* c : {&uniform, &poisson}) {
      NDArray zc = test::zeros(DataType::kFloat32, shape), zg = test::zeros(DataType::kFloat32, shape);
      expect_same_draws(*c, zc, zg, nullptr, nullptr, " shape " + shape.str());
    }
  }
  // An empty z: checked like any other, then nothing to draw.
  NDArray empty = test::zeros(DataType::kFloat32, {0, 4});
  EXPECT_OK(run(Device::cuda(0), RandomOp::gaussian, kSeed, empty, {0, 1}));
  NDArray empty_int = test::zeros(DataType::kInt32, {4, 0});
  EXPECT_EQ(run(Device::cuda(0), RandomOp::gaussian, kSeed, empty_int, {0, 1}).code(), StatusCode::kDtype);
}

// More elements than one launch has threads (65536 blocks of 256): the
// grid-stride loop must hand every index to exactly one thread.
TEST(CudaRandom, LongerThanOneGridMatchesTheCpu) {
  REQUIRE_CUDA_DEVICE();
  const int64_t n = int64_t{65536} * 256 + 1001;
  NDArray zc = test::zeros(DataType::kFloat32, {n}), zg = test::zeros(DataType::kFloat32, {n});
  ASSERT_OK(run(Device::cpu(), RandomOp::uniform, kSeed, zc, {-1, 1}));
  ASSERT_OK(run(Device::cuda(0), RandomOp::uniform, kSeed, zg, {-1, 1}));
  ASSERT_OK(zg.buffer()->sync_to_host());
  EXPECT_EQ(std::memcmp(zc.data(), zg.data(), static_cast<size_t>(n) * sizeof(float)), 0);
  EXPECT_NE(zg.data_as<float>()[n - 1], 0.0f);  // the last element was written
}

// z as strided views (every other row, transposed; a flipped one): each
// element i of the view in C order gets draw i, wherever it lies in memory,
// and the elements outside the view keep their values.
TEST(CudaRandom, StridedOutputViewsMatchTheCpu) {
  REQUIRE_CUDA_DEVICE();
  for (const Case& c : {Case{RandomOp::uniform, {-2, 3.5}, Match::kExact},
                        Case{RandomOp::gaussian, {1.5, 2}, Match::kClose, 3.5},
                        Case{RandomOp::binomial, {1000, 0.4}, Match::kExact}}) {
    for (DataType t : {DataType::kFloat32, DataType::kFloat64}) {
      NDArray base_c = filled(t, {20, 30}, -7), base_g = filled(t, {20, 30}, -7);
      NDArray rows_c, rows_g, zc, zg;
      ASSERT_OK(base_c.slice(0, 1, 20, 2, rows_c));  // rows 1, 3, ..., 19
      ASSERT_OK(base_g.slice(0, 1, 20, 2, rows_g));
      ASSERT_OK(rows_c.permute({1, 0}, zc));  // 30 x 10, strides (1, 60): no dim merges
      ASSERT_OK(rows_g.permute({1, 0}, zg));
      expect_same_draws(c, zc, zg, nullptr, nullptr, " transposed rows");
      // The whole buffer: rows 0, 2, ... untouched (-7) on both.
      EXPECT_TRUE(matches(host_values(base_c), host_values(base_g), t, c.match, c.scale,
                          describe(c, t) + " whole buffer"));
      EXPECT_EQ(host_values(base_g)[0], -7.0);

      // Element i of the view is draw i: the same values as a dense z.
      NDArray dense = test::zeros(t, {30, 10});
      ASSERT_OK(run(Device::cuda(0), c.op, kSeed, dense, c.extra));
      EXPECT_TRUE(matches(host_values(dense), host_values(zg), t, Match::kExact, 0, describe(c, t) + " dense"));

      // Negative strides.
      NDArray fc_base = filled(t, {6, 9}, 0), fg_base = filled(t, {6, 9}, 0), fc, fg;
      ASSERT_OK(fc_base.flip(1, fc));
      ASSERT_OK(fg_base.flip(1, fg));
      expect_same_draws(c, fc, fg, nullptr, nullptr, " flipped");
    }
  }
}

TEST(CudaRandom, Float16BFloat16AndFloat64Outputs) {
  REQUIRE_CUDA_DEVICE();
  const std::vector<Case> cases = {
      {RandomOp::uniform, {-2, 3.5}, Match::kExact},
      {RandomOp::gaussian, {1.5, 2}, Match::kClose, 3.5},
      {RandomOp::exponential, {2.5}, Match::kClose},
      {RandomOp::bernoulli, {0.3}, Match::kExact},
      {RandomOp::poisson, {100}, Match::kExact},
      {RandomOp::linspace, {-1, 2.3}, Match::kExact},
  };
  for (const Case& c : cases) {
    for (DataType t : {DataType::kFloat16, DataType::kBFloat16, DataType::kFloat64}) {
      NDArray zc = test::zeros(t, {13, 77}), zg = test::zeros(t, {13, 77});
      expect_same_draws(c, zc, zg);
    }
  }
  // Narrow integer and bool z: counts stored exactly, 0/1 as bool.
  for (DataType t : {DataType::kUInt8, DataType::kInt8, DataType::kBool}) {
    const Case bernoulli{RandomOp::bernoulli, {0.3}, Match::kExact};
    NDArray zc = test::zeros(t, {13, 77}), zg = test::zeros(t, {13, 77});
    expect_same_draws(bernoulli, zc, zg);
  }
  const Case poisson{RandomOp::poisson, {100}, Match::kExact};
  NDArray zc = test::zeros(DataType::kUInt8, {13, 77}), zg = test::zeros(DataType::kUInt8, {13, 77});
  expect_same_draws(poisson, zc, zg);
}

// Dropout's x broadcast to z, of another dtype, and in place (z is x).
TEST(CudaRandom, DropoutInputsBroadcastAndInPlace) {
  REQUIRE_CUDA_DEVICE();
  const NDArray row = input(DataType::kFloat64, {1, 111}, 0.9);
  const NDArray x16 = input(DataType::kFloat16, {37, 111}, 1.3);
  for (RandomOp op : {RandomOp::dropout, RandomOp::dropout_inverted, RandomOp::alpha_dropout}) {
    const Case c{op, {0.6}, Match::kExact};
    NDArray zc = test::zeros(DataType::kFloat32, {37, 111}), zg = test::zeros(DataType::kFloat32, {37, 111});
    expect_same_draws(c, zc, zg, &row, nullptr, " x broadcast from [1, 111]");
    NDArray hc = test::zeros(DataType::kFloat32, {37, 111}), hg = test::zeros(DataType::kFloat32, {37, 111});
    expect_same_draws(c, hc, hg, &x16, nullptr, " float16 x");

    NDArray ic = input(DataType::kFloat32, {37, 111}, 0.5), ig = input(DataType::kFloat32, {37, 111}, 0.5);
    ASSERT_OK(run(Device::cpu(), op, kSeed, ic, c.extra, &ic));
    ASSERT_OK(run(Device::cuda(0), op, kSeed, ig, c.extra, &ig));
    EXPECT_TRUE(matches(host_values(ic), host_values(ig), DataType::kFloat32, Match::kExact, 0,
                        describe(c, DataType::kFloat32) + " in place"));
  }
  // An input the op does not take is accepted and never read.
  NDArray with_x = test::zeros(DataType::kFloat32, {37, 111}), without = test::zeros(DataType::kFloat32, {37, 111});
  const NDArray x = input(DataType::kFloat32, {37, 111}, 0.1);
  ASSERT_OK(run(Device::cuda(0), RandomOp::gaussian, kSeed, with_x, {0, 1}, &x));
  ASSERT_OK(run(Device::cuda(0), RandomOp::gaussian, kSeed, without, {0, 1}));
  EXPECT_TRUE(matches(host_values(without), host_values(with_x), DataType::kFloat32, Match::kExact, 0,
                      "gaussian with an unread x"));
}

TEST(CudaRandom, ChoiceMatchesTheCpu) {
  REQUIRE_CUDA_DEVICE();
  // Exact int64 values (one above 2^53), weights with zeros (never drawn).
  const NDArray xs = make(DataType::kInt64, {6}, {-5, 7, 9007199254740993.0, 3, 42, 11});
  const NDArray ws = make(DataType::kFloat32, {6}, {0.5, 0, 2, 1, 0.25, 0});
  const Case choice{RandomOp::choice, {}, Match::kExact};
  for (DataType t : {DataType::kInt64, DataType::kInt32, DataType::kFloat32, DataType::kFloat64}) {
    NDArray zc = test::zeros(t, {41, 53}), zg = test::zeros(t, {41, 53});
    expect_same_draws(choice, zc, zg, &xs, &ws);
  }
  {
    NDArray zg = test::zeros(DataType::kInt64, {41, 53});
    ASSERT_OK(run(Device::cuda(0), RandomOp::choice, kSeed, zg, {}, &xs, &ws));
    for (double v : host_values(zg)) {
      EXPECT_NE(v, 7.0);   // weight 0
      EXPECT_NE(v, 11.0);  // weight 0, and the last one
    }
  }
  // Strided x and y (every other element of longer arrays).
  const NDArray xl = input(DataType::kFloat64, {12}, 0.2);
  const NDArray wl = make(DataType::kFloat64, {12}, {1, 9, 0, 9, 3, 9, 0.5, 9, 0, 9, 2, 9});
  NDArray xv, wv;
  ASSERT_OK(xl.slice(0, 0, 12, 2, xv));
  ASSERT_OK(wl.slice(0, 0, 12, 2, wv));
  NDArray zc = test::zeros(DataType::kFloat32, {500}), zg = test::zeros(DataType::kFloat32, {500});
  expect_same_draws(choice, zc, zg, &xv, &wv, " strided x and y");
  // z is x: the values are copied out before z is written.
  NDArray ic = input(DataType::kFloat32, {64}, 0.7), ig = input(DataType::kFloat32, {64}, 0.7);
  const NDArray w64 = input(DataType::kFloat32, {64}, 0.0);  // some weights < 0: use their squares
  NDArray w2 = test::zeros(DataType::kFloat32, {64});
  for (int64_t i = 0; i < 64; ++i) w2.set_double(i, w64.get_double(i) * w64.get_double(i));
  ASSERT_OK(run(Device::cpu(), RandomOp::choice, kSeed, ic, {}, &ic, &w2));
  ASSERT_OK(run(Device::cuda(0), RandomOp::choice, kSeed, ig, {}, &ig, &w2));
  EXPECT_TRUE(matches(host_values(ic), host_values(ig), DataType::kFloat32, Match::kExact, 0, "choice into x"));
}

// Bad calls fail on cuda:0 exactly as on the CPU, before anything is written.
TEST(CudaRandom, ErrorsMatchTheCpu) {
  REQUIRE_CUDA_DEVICE();
  const NDArray x = input(DataType::kFloat32, {4, 5}, 0.2);
  const NDArray x5 = input(DataType::kFloat32, {5}, 0.2);
  expect_same_error(RandomOp::uniform, DataType::kFloat32, {4, 5}, {3, 1}, nullptr, nullptr,
                    StatusCode::kInvalidArgument, "uniform hi < lo");
  expect_same_error(RandomOp::gaussian, DataType::kFloat32, {4, 5}, {0, -1}, nullptr, nullptr,
                    StatusCode::kInvalidArgument, "gaussian stddev < 0");
  expect_same_error(RandomOp::gaussian, DataType::kInt32, {4, 5}, {0, 1}, nullptr, nullptr, StatusCode::kDtype,
                    "gaussian into int32");
  expect_same_error(RandomOp::binomial, DataType::kUInt8, {4, 5}, {1000, 0.5}, nullptr, nullptr,
                    StatusCode::kInvalidArgument, "binomial trials > uint8 max");
  expect_same_error(RandomOp::dropout, DataType::kFloat32, {4, 5}, {0.5}, nullptr, nullptr,
                    StatusCode::kInvalidArgument, "dropout without x");
  expect_same_error(RandomOp::dropout, DataType::kFloat32, {4, 6}, {0.5}, &x5, nullptr, StatusCode::kShape,
                    "dropout x does not broadcast");
  expect_same_error(RandomOp::uniform, DataType::kFloat32, {4, 5}, {0, 1, 2}, &x, nullptr,
                    StatusCode::kInvalidArgument, "uniform with 3 extra params");

  const NDArray vals = make(DataType::kFloat32, {3}, {1, 2, 3});
  const NDArray negative = make(DataType::kFloat64, {3}, {1, -0.5, 2});
  const NDArray zeros = make(DataType::kFloat64, {3}, {0, 0, 0});
  const NDArray huge = make(DataType::kFloat64, {3}, {1e308, 1e308, 1});
  const NDArray nan = make(DataType::kFloat64, {3}, {1, 2, std::nan("")});
  const NDArray two_d = make(DataType::kFloat64, {1, 3}, {1, 1, 1});
  const NDArray none = test::zeros(DataType::kFloat64, {0});
  expect_same_error(RandomOp::choice, DataType::kFloat32, {10}, {}, &vals, &negative, StatusCode::kInvalidArgument,
                    "choice negative weight");
  expect_same_error(RandomOp::choice, DataType::kFloat32, {10}, {}, &vals, &zeros, StatusCode::kInvalidArgument,
                    "choice all weights 0");
  expect_same_error(RandomOp::choice, DataType::kFloat32, {10}, {}, &vals, &huge, StatusCode::kInvalidArgument,
                    "choice weights sum to inf");
  expect_same_error(RandomOp::choice, DataType::kFloat32, {10}, {}, &vals, &nan, StatusCode::kInvalidArgument,
                    "choice NaN weight");
  expect_same_error(RandomOp::choice, DataType::kFloat32, {10}, {}, &vals, &two_d, StatusCode::kShape,
                    "choice 2-D weights");
  expect_same_error(RandomOp::choice, DataType::kFloat32, {10}, {}, &vals, nullptr, StatusCode::kInvalidArgument,
                    "choice without weights");
  expect_same_error(RandomOp::choice, DataType::kFloat32, {10}, {}, &none, &none, StatusCode::kInvalidArgument,
                    "choice with no values");
  // The weights are checked even when z is empty, and z is left as it was.
  expect_same_error(RandomOp::choice, DataType::kFloat32, {0}, {}, &vals, &negative, StatusCode::kInvalidArgument,
                    "choice empty z, negative weight");
  NDArray untouched = filled(DataType::kFloat32, {10}, 5);
  EXPECT_FALSE(run(Device::cuda(0), RandomOp::choice, kSeed, untouched, {}, &vals, &zeros).is_ok());
  EXPECT_EQ(host_values(untouched), std::vector<double>(10, 5.0));
  NDArray empty = test::zeros(DataType::kFloat32, {0});
  EXPECT_OK(run(Device::cuda(0), RandomOp::choice, kSeed, empty, {}, &vals, &vals));
}

}  // namespace
}  // namespace libops
