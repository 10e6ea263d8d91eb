// Op signatures (libops/ops/op_signature.h): resolution of a call's args
// against a declaration, the declaration checks, libnd4j's alternative
// spellings through real ops, and the generated reference files.
#include <fstream>
#include <sstream>

#include "graph/fuse_elementwise.h"
#include "libops/c_api.h"
#include "libops/ops/op_pattern.h"
#include "libops/ops/op_reference.h"
#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

namespace {

// A signature like a pooling op's: required ints, an optional enumerated
// int, a float with a range, a bool with libnd4j's t spelling, a dtype.
OpSignature example_signature() {
  OpSignature s;
  s.describe("an example");
  s.input("x", "the array").output("z", "the result");
  s.i_arg("k", "kernel").positive();
  s.i_arg("layout", 0, "layout").one_of({{0, "NCHW"}, {1, "NHWC"}});
  s.t_arg("alpha", 0.5, "a rate").range(0.0, 1.0);
  s.b_arg("keep", false, "keep dims").or_t_arg(0);
  s.d_arg("dtype", DataType::kFloat32, "the output dtype");
  return s;
}

Status resolve(const OpSignature& s, OpArgs& a) { return resolve_args(s, "ex", a); }

TEST(OpSignature, FillsDefaultsAndIsIdempotent) {
  OpSignature s = example_signature();
  ASSERT_EQ(s.problems(), "");
  OpArgs a;
  a.i = {3};
  ASSERT_OK(resolve(s, a));
  EXPECT_EQ(a.i, (std::vector<int64_t>{3, 0}));
  EXPECT_EQ(a.t, (std::vector<double>{0.5}));
  EXPECT_EQ(a.b, (std::vector<bool>{false}));
  EXPECT_EQ(a.d, (std::vector<DataType>{DataType::kFloat32}));
  OpArgs again = a;
  ASSERT_OK(resolve(s, again));
  EXPECT_EQ(again.i, a.i);
  EXPECT_EQ(again.t, a.t);
  EXPECT_EQ(again.b, a.b);
  EXPECT_EQ(again.d, a.d);
}

TEST(OpSignature, NamesTheArgInEveryError) {
  OpSignature s = example_signature();
  struct Case {
    OpArgs args;
    const char* message;
  };
  const Case cases[] = {
      {OpArgs{}, "ex: missing i arg 0 (k: kernel); ex needs 1 integer (i) args (k, layout), got 0"},
      {OpArgs{{}, {0}, {}, {}}, "ex: i arg 0 (k) is 0: it must be >= 1"},
      {OpArgs{{}, {2, 2}, {}, {}}, "ex: i arg 1 (layout) is 2: it must be 0 (NCHW) or 1 (NHWC)"},
      {OpArgs{{}, {2, 1, 7}, {}, {}},
       "ex: takes at most 2 integer (i) args (k, layout); got 3: i arg 2 = 7 is not declared"},
      {OpArgs{{1.5}, {2}, {}, {}}, "ex: t arg 0 (alpha) is 1.5: it must be in [0, 1]"},
      {OpArgs{{std::nan("")}, {2}, {}, {}}, "ex: t arg 0 (alpha) is nan: it must not be NaN"},
      {OpArgs{{}, {2}, {true, false}, {}}, "ex: takes at most 1 bool (b) args (keep); got 2: b arg 1 = false is not declared"},
      {OpArgs{{}, {2}, {}, {static_cast<DataType>(99)}}, "ex: d arg 0 (dtype) is 99, which is not a dtype"},
  };
  for (const Case& c : cases) {
    OpArgs a = c.args;
    Status st = resolve(s, a);
    EXPECT_FALSE(st.is_ok()) << c.message;
    EXPECT_EQ(st.message(), c.message);
  }
}

TEST(OpSignature, TakesABoolAsLibnd4jsTArg) {
  OpSignature s;
  s.describe("a reduction").input("x", "x").output("z", "z");
  s.i_list("axes", "axes").axis(0);
  s.b_arg("keep_dims", false, "keep").or_t_arg(0);
  OpArgs a;
  a.t = {1.0};
  a.i = {0};
  ASSERT_OK(resolve(s, a));
  EXPECT_TRUE(a.t.empty());
  EXPECT_EQ(a.b, (std::vector<bool>{true}));
  a = OpArgs{{0.0}, {}, {}, {}};
  ASSERT_OK(resolve(s, a));
  EXPECT_EQ(a.b, (std::vector<bool>{false}));
  a = OpArgs{{0.5}, {}, {}, {}};
  EXPECT_EQ(resolve(s, a).message(), "ex: t arg 0 = 0.5 stands for b arg 0 (keep_dims) and must be 0 or 1");
  // Given as a b arg, a t arg is still undeclared.
  a = OpArgs{{1.0}, {}, {true}, {}};
  EXPECT_EQ(resolve(s, a).message(), "ex: takes no float (t) args; got 1 (t arg 0 = 1)");
}

TEST(OpSignature, ChecksAxesAgainstTheInput) {
  OpSignature s;
  s.describe("axes").input("x", "x").optional_input("axes", "as an array").output("z", "z");
  s.i_list("axes", "axes").axis(0).unique_values().or_input(1);
  NDArray x = zeros(DataType::kFloat32, {2, 3, 4});
  const NDArray* in[1] = {&x};
  OpArgs a;
  a.i = {0, -1};
  EXPECT_OK(check_args_against_inputs(s, "ex", a, in, 1));
  a.i = {3};
  EXPECT_EQ(check_args_against_inputs(s, "ex", a, in, 1).message(),
            "ex: axes (i arg 0) is 3: it must be an axis of input 0 (x) [2,3,4], in [-3, 2]");
  a.i = {2, -1};
  EXPECT_EQ(check_args_against_inputs(s, "ex", a, in, 1).message(),
            "ex: axes names axis 2 twice (i args 0 and 1)");
  a.i = {};
  EXPECT_EQ(check_args_against_inputs(s, "ex", a, in, 0).message(), "ex: takes 1 to 2 inputs (x, axes?), got 0");
  NDArray axes = make(DataType::kInt64, {1}, {0});
  const NDArray* two[2] = {&x, &axes};
  a.i = {1};
  EXPECT_EQ(check_args_against_inputs(s, "ex", a, two, 2).message(),
            "ex: axes is given twice, as i args and as input 1; give one of them");
}

TEST(OpSignature, ChecksAxesGivenAsAnArray) {
  // Found by the op-call fuzzer: axes from an input array were not checked
  // against x's rank (cummin read dim 16 of a rank-2 shape).
  NDArray x = make(DataType::kFloat32, {2, 3}, iota(6));
  NDArray far = make(DataType::kInt64, {1}, {16});
  Context c1;
  EXPECT_EQ(run_op("cummin", {.in = {&x, &far}}, c1).message(),
            "cummin: axes (input 1, value 0) is 16: it must be an axis of input 0 [2,3], in [-2, 1]");
  NDArray last = make(DataType::kInt64, {1}, {-1});
  Context c3;
  ASSERT_OK(run_op("cumsum", {.in = {&x, &last}}, c3));
  EXPECT_TRUE(all_close(*c3.output(0), {0, 1, 3, 3, 7, 12}));
}

TEST(OpSignature, RefusesMalformedDeclarations) {
  OpSignature s;
  s.input("x", "x").optional_input("y", "y").input("w", "w").output("z", "z");
  s.i_list("axes", "axes");
  s.i_arg("late", 0, "after a list");
  s.i_arg("required", "after an optional one");
  s.t_arg("bad_default", 2.0, "outside its range").range(0.0, 1.0);
  s.i_arg("", "");
  EXPECT_EQ(s.problems(),
            "no summary (args.describe); required input 'w' follows an optional one; list arg 'axes' is not the last "
            "of its kind; required arg 'required' follows optional arg 'late'; the default of arg 'bad_default' must "
            "be in [0, 1]; required arg '' follows optional arg 'late'; arg '' has no doc");
}

// Through real ops: axes as an input array, keep_dims as a t arg, and the
// values the reductions give with them.
TEST(OpSignature, ReductionsTakeLibnd4jsSpellings) {
  NDArray x = make(DataType::kFloat32, {2, 3}, {1, 2, 3, 4, 5, 6});
  for (DataType at : {DataType::kInt32, DataType::kInt64}) {
    NDArray axes = make(at, {1}, {-1});
    Context ctx;
    ASSERT_OK(run_op("reduce_sum", {.in = {&x, &axes}, .t = {1.0}}, ctx));
    EXPECT_EQ(ctx.output(0)->shape(), (Dims{2, 1}));
    EXPECT_TRUE(all_close(*ctx.output(0), {6, 15}));
  }
  NDArray both = make(DataType::kInt64, {2}, {0, 1});
  Context ctx;
  ASSERT_OK(run_op("reduce_mean", {.in = {&x, &both}}, ctx));
  EXPECT_EQ(ctx.output(0)->shape(), Dims{});
  EXPECT_TRUE(all_close(*ctx.output(0), {3.5}));
  NDArray scalar_axis = make(DataType::kInt32, {}, {0});
  Context c2;
  ASSERT_OK(run_op("reduce_max", {.in = {&x, &scalar_axis}, .b = {true}}, c2));
  EXPECT_EQ(c2.output(0)->shape(), (Dims{1, 3}));
  EXPECT_TRUE(all_close(*c2.output(0), {4, 5, 6}));
  // Bad axes arrays: a float array, a repeated axis, one out of range.
  NDArray f = make(DataType::kFloat32, {1}, {0});
  Context c3;
  EXPECT_EQ(run_op("reduce_sum", {.in = {&x, &f}}, c3).message(),
            "reduce_sum: unsupported dtype float32 for input 1 [1]; supported: int8, int16, int32, int64, uint8, uint16, "
            "uint32, uint64");
  NDArray rep = make(DataType::kInt64, {2}, {1, -1});
  Context c4;
  EXPECT_EQ(run_op("reduce_sum", {.in = {&x, &rep}}, c4).message(),
            "reduce_sum: axes (input 1) names axis 1 twice (values 0 and 1)");
  NDArray out = make(DataType::kInt64, {1}, {2});
  Context c5;
  EXPECT_EQ(run_op("reduce_sum", {.in = {&x, &out}}, c5).message(),
            "reduce_sum: axes (input 1, value 0) is 2: it must be an axis of input 0 [2,3], in [-2, 1]");
}

TEST(OpSignature, ReshapeAndPermuteTakeTheirListAsAnInput) {
  NDArray x = make(DataType::kFloat32, {2, 3}, {1, 2, 3, 4, 5, 6});
  NDArray shape = make(DataType::kInt64, {2}, {3, -1});
  Context ctx;
  ASSERT_OK(run_op("reshape", {.in = {&x, &shape}}, ctx));
  EXPECT_EQ(ctx.output(0)->shape(), (Dims{3, 2}));
  EXPECT_TRUE(all_close(*ctx.output(0), {1, 2, 3, 4, 5, 6}));
  NDArray perm = make(DataType::kInt32, {2}, {1, 0});
  Context c2;
  ASSERT_OK(run_op("permute", {.in = {&x, &perm}}, c2));
  EXPECT_EQ(c2.output(0)->shape(), (Dims{3, 2}));
  EXPECT_TRUE(all_close(*c2.output(0), {1, 4, 2, 5, 3, 6}));
}

// Every registered op declares a sound signature whose texts the C API
// hands out.
TEST(OpSignature, EveryOpDeclaresItsSignature) {
  for (const DeclarableOp* op : OpRegistry::instance().list()) {
    const OpSignature& sig = op->descriptor().signature;
    EXPECT_TRUE(sig.declared) << op->name();
    EXPECT_EQ(sig.problems(), "") << op->name();
    EXPECT_FALSE(sig.outputs.empty()) << op->name();
    for (const InputSpec& in : sig.inputs) EXPECT_FALSE(in.doc.empty()) << op->name() << " input " << in.name;
    for (const ArgSpec& a : sig.args) EXPECT_EQ(a.allowed_shown, a.allowed_text(sig)) << op->name();
  }
  ops_op_t* conv = nullptr;
  ASSERT_EQ(ops_op_find("conv2d", &conv), OPS_OK);
  ops_op_info_t info;
  ASSERT_EQ(ops_op_info(conv, &info), OPS_OK);
  EXPECT_EQ(info.num_declared_inputs, 4);
  EXPECT_EQ(info.num_args, 16);  // 14 i args, the epilogue's i list and t list
  ops_arg_info_t a;
  ASSERT_EQ(ops_op_arg_info(conv, 9, &a), OPS_OK);
  EXPECT_STREQ(a.name, "data_format");
  EXPECT_EQ(a.kind, 'i');
  EXPECT_EQ(a.position, 9);
  EXPECT_FALSE(a.required);
  EXPECT_STREQ(a.default_value, "0 (NCHW)");  // a choice of more than two is shown by name
  EXPECT_STREQ(a.allowed, "0 (NCHW), 1 (NHWC) or 2 (NCHWc)");
  ops_io_info_t io;
  ASSERT_EQ(ops_op_input_info(conv, 2, &io), OPS_OK);
  EXPECT_STREQ(io.name, "bias");
  EXPECT_TRUE(io.optional);
  EXPECT_STREQ(io.dtypes, "float16, bfloat16, float32, float64");
  ASSERT_EQ(ops_op_arg_info(conv, 15, &a), OPS_OK);
  EXPECT_STREQ(a.name, "epilogue_values");
  EXPECT_EQ(a.kind, 't');
  EXPECT_EQ(ops_op_arg_info(conv, 16, &a), OPS_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(ops_last_error(), "ops_op_arg_info: conv2d declares 16 args; index 16 is out of range");
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// docs/ops.md and the Python builder's signatures are generated from the
// registry; a change to an op's declaration must regenerate them.
// Note [Op patterns]: the element-wise tables' rows say what they are, and
// so do the ops of files of their own that the rewrites read; every op the
// element-wise fusion can lower into a program step declares itself
// element-wise or broadcast, so the declaration and the lowering agree.
TEST(OpSignature, OpsDeclareTheirPatterns) {
  auto pattern = [](const char* op) {
    const DeclarableOp* d = OpRegistry::instance().find(op);
    EXPECT_NE(d, nullptr) << op;
    return d == nullptr ? OpPattern::kOpaque : op_pattern(d->name());
  };
  for (const char* op : {"exp", "tanh", "sigmoid", "hard_swish", "gelu", "relu", "relu6", "cast", "sin"})
    EXPECT_EQ(pattern(op), OpPattern::kElementwise) << op;
  for (const char* op : {"add", "multiply", "maximum", "pow", "clip", "where", "bias_add", "prelu", "fused_elementwise"})
    EXPECT_EQ(pattern(op), OpPattern::kBroadcast) << op;
  for (const char* op : {"reshape", "permute", "concat", "slice", "gather", "block_channels", "pad"})
    EXPECT_EQ(pattern(op), OpPattern::kInjective) << op;
  for (const char* op : {"reduce_sum", "reduce_mean", "reduce_norm2", "argmax", "reduce_logsumexp", "fused_reduce"})
    EXPECT_EQ(pattern(op), OpPattern::kReduction) << op;
  for (const char* op : {"conv2d", "matmul", "softmax", "layer_norm"}) EXPECT_EQ(pattern(op), OpPattern::kOpaque) << op;
  for (const DeclarableOp* op : OpRegistry::instance().list()) {
    graph::Node n;
    n.kind = graph::NodeKind::kCustom;
    n.op = const_cast<DeclarableOp*>(op);
    n.num_outputs = 1;
    const int arity = op->descriptor().signature.min_inputs();
    if (arity < 1 || arity > 2) continue;
    n.inputs.assign(static_cast<size_t>(arity), 0);
    if (!resolve_args(op->descriptor().signature, op->name(), n.args).is_ok()) continue;  // required args
    if (!graph::is_elementwise(n)) continue;
    const OpPattern p = op_pattern(op->name());
    EXPECT_TRUE(p == OpPattern::kElementwise || p == OpPattern::kBroadcast)
        << op->name() << " is lowered to steps but declares " << op_pattern_name(p);
  }
}

TEST(OpReference, CommittedFilesMatchTheRegistry) {
  const std::string root = LIBOPS_SOURCE_DIR;
  const struct {
    const char* path;
    ReferenceFormat format;
    const char* command;
  } files[] = {
      {"/docs/ops.md", ReferenceFormat::kMarkdown, "ops-run --list-ops --format markdown > docs/ops.md"},
      {"/python/libops/op_signatures.json", ReferenceFormat::kJson,
       "ops-run --list-ops --format json > python/libops/op_signatures.json"},
  };
  for (const auto& f : files)
    EXPECT_TRUE(read_file(root + f.path) == op_reference(f.format))
        << f.path << " is out of date; regenerate it: " << LIBOPS_BUILD_DIR << "/" << f.command;
  const char* text = nullptr;
  ASSERT_EQ(ops_registry_reference("markdown", &text), OPS_OK);
  EXPECT_EQ(std::string(text), op_reference(ReferenceFormat::kMarkdown));
  EXPECT_EQ(ops_registry_reference("yaml", &text), OPS_ERR_INVALID_ARGUMENT);
  EXPECT_STREQ(ops_last_error(), "ops_registry_reference: unknown format 'yaml' (text, markdown or json)");
}

}  // namespace
