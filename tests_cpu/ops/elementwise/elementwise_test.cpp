// The element-wise ops (libops/ops/elementwise/) against the numpy and
// scipy goldens of tools/gen_goldens_elementwise.py: every case of its
// MANIFEST through the op, every op of the tables covered, each op once as
// a one-node graph, and the dtype rules (Note [Element-wise result dtypes]).
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "golden_util.h"
#include "graph/executor.h"
#include "graph/graph_builder.h"
#include "libops/ops/elementwise/elementwise.h"
#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

namespace {

struct GoldenCase {
  std::string op, name;
  double rtol = 0, atol = 0;
};
void PrintTo(const GoldenCase& c, std::ostream* os) { *os << c.op << "_" << c.name; }

std::vector<GoldenCase> manifest() {
  std::vector<GoldenCase> v;
  std::ifstream in(std::string(LIBOPS_GOLDEN_DIR) + "/elementwise/MANIFEST");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    GoldenCase c;
    ss >> c.op >> c.name >> c.rtol >> c.atol;
    v.push_back(c);
  }
  return v;
}

NDArray golden(const GoldenCase& c, const char* role) {
  return load_golden("elementwise/" + c.op + "_" + c.name + "_" + role + ".npy");
}

bool has_y(const GoldenCase& c) {
  std::ifstream f(std::string(LIBOPS_GOLDEN_DIR) + "/elementwise/" + c.op + "_" + c.name + "_y.npy");
  return f.good();
}

// Exact for integers and bool; for floats NaN where NaN, infinities equal,
// and |got - want| <= atol + rtol * |want| elsewhere.
::testing::AssertionResult matches(const NDArray& got, const NDArray& want, double rtol, double atol) {
  if (got.dtype() != want.dtype())
    return ::testing::AssertionFailure() << "dtype " << dtype_name(got.dtype()) << ", want "
                                         << dtype_name(want.dtype());
  if (got.shape() != want.shape())
    return ::testing::AssertionFailure() << "shape " << got.shape().str() << ", want " << want.shape().str();
  for (int64_t i = 0; i < want.length(); ++i) {
    const double g = got.get_double(i), w = want.get_double(i);
    const bool ok = std::isnan(w) ? std::isnan(g)
                    : std::isinf(w) ? g == w
                                    : std::fabs(g - w) <= atol + rtol * std::fabs(w);
    if (!ok) return ::testing::AssertionFailure() << "element " << i << ": got " << g << ", want " << w;
  }
  return ::testing::AssertionSuccess();
}

class ElementwiseGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(ElementwiseGolden, MatchesNumpy) {
  const GoldenCase& c = GetParam();
  NDArray x = golden(c, "x"), want = golden(c, "z");
  NDArray y = has_y(c) ? golden(c, "y") : NDArray();
  std::vector<NDArray*> in = {&x};
  if (!y.is_null()) in.push_back(&y);
  Context ctx;
  ASSERT_OK(run_op(c.op.c_str(), {.in = in}, ctx));
  EXPECT_TRUE(matches(*ctx.output(0), want, c.rtol, c.atol));
}

INSTANTIATE_TEST_SUITE_P(Cases, ElementwiseGolden, ::testing::ValuesIn(manifest()),
                         [](const ::testing::TestParamInfo<GoldenCase>& info) {
                           return info.param.op + "_" + info.param.name;
                         });

std::vector<const ops::ElementwiseDef*> all_defs() {
  std::vector<const ops::ElementwiseDef*> v;
  for (auto table : {ops::unary_elementwise_defs, ops::binary_elementwise_defs}) {
    int n = 0;
    const ops::ElementwiseDef* defs = table(n);
    for (int k = 0; k < n; ++k) v.push_back(&defs[k]);
  }
  return v;
}

TEST(Elementwise, EveryOpHasGoldenCasesAndItsAliases) {
  std::map<std::string, int> cases;
  for (const GoldenCase& c : manifest()) ++cases[c.op];
  for (const ops::ElementwiseDef* d : all_defs()) {
    EXPECT_GT(cases[d->name], 0) << d->name << " has no golden case (tools/gen_goldens_elementwise.py)";
    const DeclarableOp* op = OpRegistry::instance().find(d->name);
    ASSERT_NE(op, nullptr) << d->name;
    std::istringstream aliases(d->aliases);
    for (std::string a; aliases >> a;) EXPECT_EQ(OpRegistry::instance().find(a), op) << a << " -> " << d->name;
  }
  EXPECT_EQ(OpRegistry::instance().find("negative")->name(), std::string("neg"));
  EXPECT_EQ(OpRegistry::instance().find("floormod")->name(), std::string("floor_mod"));
}

// Note [Element-wise result dtypes], by hand.
TEST(Elementwise, ResultDtypes) {
  NDArray i8 = make(DataType::kInt8, {2}, {4, 9});
  NDArray f16 = make(DataType::kFloat16, {2}, {4, 9});
  NDArray u8 = make(DataType::kUInt8, {2}, {1, 2});
  const struct {
    const char* op;
    std::vector<NDArray*> in;
    DataType want;
  } cases[] = {
      {"abs", {&i8}, DataType::kInt8},        {"sqrt", {&i8}, DataType::kFloat32},
      {"exp", {&i8}, DataType::kFloat32},     {"sqrt", {&f16}, DataType::kFloat16},
      {"is_nan", {&f16}, DataType::kBool},    {"pow", {&i8, &u8}, DataType::kInt16},
      {"atan2", {&i8, &u8}, DataType::kFloat32}, {"atan2", {&f16, &i8}, DataType::kFloat16},
      {"less", {&i8, &f16}, DataType::kBool}, {"bitwise_and", {&i8, &u8}, DataType::kInt16},
  };
  for (const auto& c : cases) {
    Context ctx;
    ASSERT_OK(run_op(c.op, {.in = c.in}, ctx));
    EXPECT_EQ(ctx.output(0)->dtype(), c.want) << c.op;
  }
  Context ctx;
  ASSERT_OK(run_op("sqrt", {.in = {&i8}}, ctx));
  EXPECT_TRUE(all_close(*ctx.output(0), {2, 3}));
  // Floats into integer-only ops are refused with the list of dtypes.
  Context bad;
  Status s = run_op("bitwise_and", {.in = {&f16, &i8}}, bad);
  EXPECT_EQ(s.code(), StatusCode::kDtype);
  EXPECT_EQ(s.message(),
            "bitwise_and: unsupported dtype float16 for input 0 [2]; supported: bool, int8, int16, int32, int64, uint8, "
            "uint16, uint32, uint64");
  NDArray a = make(DataType::kFloat32, {2, 3}, iota(6)), b = make(DataType::kFloat32, {4}, iota(4));
  Context bc;
  s = run_op("maximum", {.in = {&a, &b}}, bc);
  EXPECT_EQ(s.message(), "maximum: cannot broadcast shapes [2,3] and [4]: dim 1 must be equal or 1");
}

TEST(Elementwise, InPlaceAndStridedInputs) {
  NDArray x = make(DataType::kFloat32, {2, 3}, {1, 4, 9, 16, 25, 36});
  Context ctx;
  ASSERT_OK(run_op("sqrt", {.in = {&x}, .inplace = true}, ctx));
  EXPECT_TRUE(all_close(x, {1, 2, 3, 4, 5, 6}));
  NDArray t = x.transpose();  // [3, 2], strides [1, 3]
  NDArray y = make(DataType::kFloat32, {2}, {10, 20});
  Context c2;
  ASSERT_OK(run_op("minimum", {.in = {&t, &y}}, c2));
  EXPECT_TRUE(all_close(*c2.output(0), {1, 4, 2, 5, 3, 6}));
}

// Each op once through the graph path: loaded, planned and run by the executor.
TEST(Elementwise, EveryOpRunsAsAGraphNode) {
  std::map<std::string, GoldenCase> first;
  for (const GoldenCase& c : manifest()) first.emplace(c.op, c);
  for (const auto& [op, c] : first) {
    SCOPED_TRACE(op);
    NDArray x = golden(c, "x"), want = golden(c, "z");
    graph::test::GraphBuilder g;
    graph::test::BodyBuilder& m = g.main();
    std::vector<graph::test::Ref> inputs = {
        m.placeholder("x", x.dtype(), std::vector<int64_t>(x.shape().begin(), x.shape().end()))};
    if (has_y(c)) inputs.push_back(m.constant("y", golden(c, "y")));
    m.output("z", m.op(op.c_str(), inputs, {}, "node"));
    std::shared_ptr<const graph::Graph> loaded;
    ASSERT_OK(graph::test::load(g.finish(), loaded));
    EXPECT_TRUE(loaded->main().static_plan);
    graph::Session s(loaded);
    const NDArray* feeds[] = {&x};
    ASSERT_OK(s.run(feeds, 1));
    EXPECT_TRUE(matches(s.output(0), want, c.rtol, c.atol));
  }
}

}  // namespace
