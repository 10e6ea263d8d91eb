// libnd4j's loss ops (libops/ops/loss): what the goldens (tests_cpu/golden/
// loss, tools/gen_goldens_loss.py) cannot say. The errors, naming the op and
// the shapes; and a few of libnd4j's own test values (DeclarableOpsTests2's
// sigm_cross_entropy_loss and softmax_cross_entropy_loss tests: logits
// 0.1, 0.2, ..., these labels, weights 0.5), which pin its conventions.
#include "libops/ops/loss/loss_formula.h"
#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

namespace {

const std::vector<double> kLibnd4jLabels = {0, 1, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 1, 1, 0, 1, 0};

TEST(LossOps, LabelsOfAnotherShapeNameTheOp) {
  NDArray p = make(DataType::kFloat32, {2, 3}, iota(6));
  NDArray y = make(DataType::kFloat32, {3, 2}, iota(6));
  NDArray w = make(DataType::kFloat32, {}, {1});
  Context c1;
  Status s = run_op("absolute_difference_loss", {.in = {&p, &w, &y}, .i = {0}}, c1);
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(), "absolute_difference_loss: labels[3,2] must have predictions[2,3]'s shape");
  Context c2;
  s = run_op("hinge_loss", {.in = {&p, &w, &y}, .i = {1}}, c2);
  EXPECT_EQ(s.message(), "hinge_loss: labels[3,2] must have logits[2,3]'s shape");
  NDArray z = make(DataType::kFloat32, {3}, iota(3));
  Context c3;
  s = run_op("softmax_cross_entropy_loss_with_logits", {.in = {&p, &z}}, c3);
  EXPECT_EQ(s.message(), "softmax_cross_entropy_loss_with_logits: labels[3] must have logits[2,3]'s shape");
}

TEST(LossOps, WeightsThatDoNotBroadcastNameTheOpAndShapes) {
  NDArray p = make(DataType::kFloat32, {2, 3}, iota(6));
  NDArray y = make(DataType::kFloat32, {2, 3}, iota(6, 0.5));
  NDArray w = make(DataType::kFloat32, {2, 2}, {1, 1, 1, 1});
  Context c1;
  Status s = run_op("mean_sqerr_loss", {.in = {&p, &w, &y}, .i = {2}}, c1);
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(),
            "mean_sqerr_loss: weights[2,2] do not broadcast against the losses[2,3]: weights must be one value or "
            "have rank 2 with each extent the losses' or 1");
  // A vector for [2, 3] losses: libnd4j wants the rank of the losses too.
  NDArray v = make(DataType::kFloat32, {3}, {1, 2, 3});
  Context c2;
  s = run_op("huber_loss", {.in = {&p, &v, &y}, .t = {1.0}, .i = {0}}, c2);
  EXPECT_EQ(s.message(),
            "huber_loss: weights[3] do not broadcast against the losses[2,3]: weights must be one value or have "
            "rank 2 with each extent the losses' or 1");
  // Losses that drop the classes axis also take weights that keep it.
  NDArray w3 = make(DataType::kFloat32, {3}, {1, 2, 3});
  Context c3;
  s = run_op("softmax_cross_entropy_loss", {.in = {&p, &w3, &y}, .i = {0}}, c3);
  EXPECT_EQ(s.message(),
            "softmax_cross_entropy_loss: weights[3] do not broadcast against the losses[2]: weights must be one "
            "value or have rank 1 with each extent the losses' or 1 (or rank 2 against [2,1])");
  // cosine_distance_loss's losses keep dim as extent 1.
  Context c4;
  s = run_op("cosine_distance_loss", {.in = {&p, &y, &y}, .i = {0, 1}}, c4);
  EXPECT_EQ(s.message(),
            "cosine_distance_loss: weights[2,3] do not broadcast against the losses[2,1]: weights must be one value "
            "or have rank 2 with each extent the losses' or 1");
}

TEST(LossOps, ArgumentsOutOfRangeNameTheOp) {
  NDArray p = make(DataType::kFloat32, {2, 3}, iota(6));
  NDArray w = make(DataType::kFloat32, {}, {1});
  Context c1;
  Status s = run_op("log_loss", {.in = {&p, &w, &p}, .i = {4}}, c1);
  EXPECT_EQ(s.message(),
            "log_loss: i arg 0 (reduction) is 4: it must be 0 (none), 1 (sum), 2 (mean_by_weight) or 3 "
            "(mean_by_nonzero_weight)");
  Context c2;
  s = run_op("cosine_distance_loss", {.in = {&p, &w, &p}, .i = {0, 2}}, c2);
  EXPECT_EQ(s.message(),
            "cosine_distance_loss: dim (i arg 1) is 2: it must be an axis of input 0 (predictions) [2,3], in [-2, 1]");
  Context c3;
  s = run_op("huber_loss", {.in = {&p, &w, &p}, .t = {-1.0}, .i = {0}}, c3);
  EXPECT_EQ(s.message(), "huber_loss: t arg 0 (delta) is -1: it must be >= 0 and finite");
}

TEST(LossOps, SparseLabelsMustBeClassesOfTheLogits) {
  NDArray logits = make(DataType::kFloat32, {2, 3}, iota(6));
  NDArray labels = make(DataType::kInt32, {2}, {0, 3});
  Context c1;
  Status s = run_op("sparse_softmax_cross_entropy_loss_with_logits", {.in = {&labels, &logits}}, c1);
  EXPECT_EQ(s.message(), "sparse_softmax_cross_entropy_loss_with_logits: labels[1] = 3 is not a class in [0, 3)");
  NDArray negative = make(DataType::kInt64, {2}, {-1, 0});
  Context c2;
  s = run_op("sparse_softmax_cross_entropy_loss_with_logits", {.in = {&negative, &logits}}, c2);
  EXPECT_EQ(s.message(), "sparse_softmax_cross_entropy_loss_with_logits: labels[0] = -1 is not a class in [0, 3)");
  NDArray wrong = make(DataType::kInt32, {3}, {0, 1, 2});
  Context c3;
  s = run_op("sparse_softmax_cross_entropy_loss_with_logits", {.in = {&wrong, &logits}}, c3);
  EXPECT_EQ(s.code(), StatusCode::kShape);
  EXPECT_EQ(s.message(),
            "sparse_softmax_cross_entropy_loss_with_logits: labels[3] must have logits[2,3]'s shape less the last "
            "axis (the classes)");
}

TEST(LossOps, AnEmptyBatchGivesNoLossesOrZero) {
  NDArray p = make(DataType::kFloat32, {0, 3}, {});
  NDArray w = make(DataType::kFloat32, {1, 3}, {1, 2, 3});
  for (int64_t mode : {0, 1, 2, 3}) {
    Context ctx;
    ASSERT_OK(run_op("log_loss", {.in = {&p, &w, &p}, .i = {mode}}, ctx));
    if (mode == 0) {
      EXPECT_EQ(ctx.output(0)->shape(), (Dims{0, 3}));
    } else {
      EXPECT_TRUE(all_close(*ctx.output(0), {0})) << "reduction " << mode;
    }
  }
  NDArray labels = make(DataType::kInt32, {0}, {});
  Context sparse;
  ASSERT_OK(run_op("sparse_softmax_cross_entropy_loss_with_logits", {.in = {&labels, &p}}, sparse));
  EXPECT_EQ(sparse.output(0)->shape(), (Dims{0}));
}

// Integers compute in float32, float16 in float32 rounded once (Note [Loss
// formulas]): the output is x's float dtype.
TEST(LossOps, TheOutputIsInputZerosFloatDtype) {
  NDArray pi = make(DataType::kInt32, {2, 2}, {1, 2, 3, 4});
  NDArray yd = make(DataType::kFloat64, {2, 2}, {1.5, 2, 2, 4});
  NDArray wi = make(DataType::kInt64, {2, 1}, {1, 2});
  Context c1;
  ASSERT_OK(run_op("mean_sqerr_loss", {.in = {&pi, &wi, &yd}, .i = {1}}, c1));
  EXPECT_EQ(c1.output(0)->dtype(), DataType::kFloat32);
  EXPECT_TRUE(all_close(*c1.output(0), {0.25 + 2 * 1}));
  NDArray ph = make(DataType::kFloat16, {2, 2}, {0.5, -1, 2, 0});
  NDArray yh = make(DataType::kFloat16, {2, 2}, {0, -1, 1, 0});
  NDArray wh = make(DataType::kFloat16, {}, {2});
  Context c2;
  ASSERT_OK(run_op("absolute_difference_loss", {.in = {&ph, &wh, &yh}, .i = {0}}, c2));
  EXPECT_EQ(c2.output(0)->dtype(), DataType::kFloat16);
  EXPECT_TRUE(all_close(*c2.output(0), {1, 0, 2, 0}));
}

TEST(LossOps, SigmCrossEntropyMatchesLibnd4jsTests) {
  NDArray logits = make(DataType::kFloat64, {2, 3, 4}, iota(24, 0.1, 0.1));
  NDArray labels = make(DataType::kFloat64, {2, 3, 4}, kLibnd4jLabels);
  NDArray w = make(DataType::kFloat64, {2, 3, 1}, std::vector<double>(6, 0.5));
  Context sum;  // sigm_cross_entropy_loss_test6
  ASSERT_OK(run_op("sigm_cross_entropy_loss", {.in = {&logits, &w, &labels}, .t = {0.0}, .i = {1}}, sum));
  EXPECT_NEAR(sum.output(0)->get_double(0), 11.2187976837, 1e-5);
  NDArray w11 = make(DataType::kFloat64, {1, 1}, {0.5});
  Context smoothed;  // sigm_cross_entropy_loss_test16
  ASSERT_OK(run_op("sigm_cross_entropy_loss", {.in = {&logits, &w11, &labels}, .t = {5.0}, .i = {3}}, smoothed));
  EXPECT_NEAR(smoothed.output(0)->get_double(0), 0.425783246756, 1e-5);
}

TEST(LossOps, SoftmaxCrossEntropyMatchesLibnd4jsTests) {
  NDArray logits = make(DataType::kFloat64, {2, 3, 4}, iota(24, 0.1, 0.1));
  NDArray labels = make(DataType::kInt32, {2, 3, 4}, kLibnd4jLabels);
  NDArray w = make(DataType::kFloat64, {2, 3}, std::vector<double>(6, 0.5));
  Context none;  // softmax_cross_entropy_loss_test1
  ASSERT_OK(run_op("softmax_cross_entropy_loss", {.in = {&logits, &w, &labels}, .t = {0.0}, .i = {0}}, none));
  EXPECT_EQ(none.output(0)->shape(), (Dims{2, 3}));
  EXPECT_TRUE(all_close(*none.output(0), {1.39253557, 1.44253552, 1.44253552, 1.44253552, 1.39253557, 1.44253552},
                        1e-7));
  Context sum;  // softmax_cross_entropy_loss_test6
  ASSERT_OK(run_op("softmax_cross_entropy_loss", {.in = {&logits, &w, &labels}, .t = {0.0}, .i = {1}}, sum));
  EXPECT_NEAR(sum.output(0)->get_double(0), 8.55521392822, 1e-5);
  // softmax_cross_entropy_loss_test14: [2, 4] logits, [2, 1] weights, smoothing 5 toward 1/4. libnd4j gives
  // [2, 1] (its rank-2 reduce); the losses are [2] here.
  NDArray logits2 = make(DataType::kFloat64, {2, 4}, iota(8, 0.1, 0.1));
  NDArray labels2 = make(DataType::kInt32, {2, 4}, {0, 1, 1, 0, 1, 0, 1, 0});
  NDArray w21 = make(DataType::kFloat64, {2, 1}, {0.5, 0.5});
  Context smoothed;
  ASSERT_OK(run_op("softmax_cross_entropy_loss", {.in = {&logits2, &w21, &labels2}, .t = {5.0}, .i = {0}}, smoothed));
  EXPECT_EQ(smoothed.output(0)->shape(), (Dims{2}));
  EXPECT_TRUE(all_close(*smoothed.output(0), {-2.08880329, -2.28880334}, 1e-7));
}

// Note [Loss formulas]: each element-wise loss is one formula, run on the
// CPU as one expression and elsewhere as nested ops. Here both run on the
// CPU (formulas_as_nested_ops) for every op, reduction and float dtype, with
// weights broadcast over a row, and must agree: float64 to rounding, float32
// to a few ulps (the nested ops round each step to float32 too), float16
// within its precision (the nested ops round each step to float16).
TEST(LossOps, TheExpressionAndTheNestedOpsAgree) {
  struct Case {
    const char* op;
    std::vector<double> t;
    std::vector<int64_t> extra_i;
    bool positive_x;
  };
  const Case cases[] = {{"absolute_difference_loss", {}, {}, false}, {"mean_sqerr_loss", {}, {}, false},
                        {"huber_loss", {0.7}, {}, false},            {"log_loss", {1e-7}, {}, true},
                        {"hinge_loss", {}, {}, false},               {"log_poisson_loss", {}, {0}, false},
                        {"log_poisson_loss", {}, {1}, true},         {"sigm_cross_entropy_loss", {0.0}, {}, false},
                        {"sigm_cross_entropy_loss", {0.3}, {}, false}};
  const int64_t rows = 7, cols = 9, n = rows * cols;
  std::vector<double> xs(n), ys(n), ws(rows);
  for (int64_t i = 0; i < n; ++i) {
    xs[i] = std::sin(0.37 * static_cast<double>(i)) * 2.5;
    ys[i] = (i % 3 == 0) ? 1.0 : 0.25 * static_cast<double>(i % 5);
  }
  for (int64_t r = 0; r < rows; ++r) ws[r] = (r % 4 == 0) ? 0.0 : 0.5 * static_cast<double>(r);
  for (const Case& c : cases) {
    std::vector<double> x = xs;
    if (c.positive_x)
      for (double& v : x) v = 0.05 + 0.9 * (0.5 + 0.5 * std::sin(3.0 * v));  // in (0, 1)
    std::vector<double> y = ys;
    if (c.positive_x && std::string(c.op) == "log_poisson_loss")
      for (double& v : y) v += 0.5;  // full: log(labels) needs labels > 0
    for (DataType dt : {DataType::kFloat64, DataType::kFloat32, DataType::kFloat16}) {
      for (int64_t mode : {0, 1, 2, 3}) {
        SCOPED_TRACE(testing::Message() << c.op << " " << dtype_name(dt) << " reduction " << mode);
        NDArray xa = make(dt, {rows, cols}, x), ya = make(dt, {rows, cols}, y), wa = make(dt, {rows, 1}, ws);
        std::vector<int64_t> i_args = {mode};
        i_args.insert(i_args.end(), c.extra_i.begin(), c.extra_i.end());
        Context by_expression, by_nested;
        ASSERT_OK(run_op(c.op, {.in = {&xa, &wa, &ya}, .t = c.t, .i = i_args}, by_expression));
        ops::formulas_as_nested_ops = true;
        const Status nested = run_op(c.op, {.in = {&xa, &wa, &ya}, .t = c.t, .i = i_args}, by_nested);
        ops::formulas_as_nested_ops = false;
        ASSERT_OK(nested);
        const double tol = dt == DataType::kFloat64 ? 1e-12 : dt == DataType::kFloat32 ? 2e-6 : 1e-2;
        EXPECT_TRUE(all_close(*by_expression.output(0), values(*by_nested.output(0)), tol, tol));
      }
    }
  }
}

}  // namespace
