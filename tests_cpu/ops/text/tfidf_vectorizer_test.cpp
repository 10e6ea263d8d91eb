// tfidf_vectorizer by name: ONNX's specification example worked by hand,
// rows, unigrams under skips, the weights' owner, and the errors a caller
// meets. The importer's cases against ONNX Runtime are goldens
// (tfidf_* in tests_cpu/golden/onnx, tools/gen_goldens_onnx.py).
#include <gtest/gtest.h>

#include "op_test_util.h"

using namespace libops;
using namespace libops::test;

// The specification's example: in [94, 17, 36, 12, 28], skipping two
// tokens pairs 94 with 12 and 17 with 28; without skips 94 pairs with 17.
TEST(TfIdfVectorizerOp, CountsTheSpecificationsBigrams) {
  NDArray x = make(DataType::kInt64, {5}, {94, 17, 36, 12, 28});
  NDArray pool = make(DataType::kInt64, {6}, {94, 12, 17, 28, 94, 17});
  NDArray counts = make(DataType::kInt64, {2}, {0, 0});  // no 1-grams; the 2-grams start at 0
  NDArray indexes = make(DataType::kInt64, {3}, {0, 1, 2});
  Context c1;
  ASSERT_TRUE(run_op("tfidf_vectorizer", {.in = {&x, &pool, &counts, &indexes}, .i = {2, 2, 2, 0}}, c1).is_ok());
  EXPECT_EQ(c1.output(0)->shape(), (Dims{3}));
  EXPECT_EQ(values(*c1.output(0)), (std::vector<double>{1, 1, 1}));
  Context c2;
  ASSERT_TRUE(run_op("tfidf_vectorizer", {.in = {&x, &pool, &counts, &indexes}, .i = {2, 2, 1, 0}}, c2).is_ok());
  EXPECT_EQ(values(*c2.output(0)), (std::vector<double>{0, 0, 1}));  // one skip: 94 and 12 are three apart
}

// A 1-gram is counted once whatever the skip; rows give rows; weights
// belong to the pool's n-grams (gram 0, token 1, fills column 1).
TEST(TfIdfVectorizerOp, WeighsRowsByThePoolsNgrams) {
  NDArray x = make(DataType::kInt32, {2, 3}, {1, 1, 2, 2, 0, 0});
  NDArray pool = make(DataType::kInt64, {2}, {1, 2});
  NDArray counts = make(DataType::kInt64, {1}, {0});
  NDArray indexes = make(DataType::kInt64, {2}, {1, 0});
  NDArray w = make(DataType::kFloat32, {2}, {5, 7});
  const std::pair<int64_t, std::vector<double>> modes[] = {
      {0, {1, 2, 1, 0}}, {1, {7, 5, 7, 0}}, {2, {7, 10, 7, 0}}};
  for (const auto& [mode, want] : modes) {
    Context c;
    ASSERT_TRUE(run_op("tfidf_vectorizer", {.in = {&x, &pool, &counts, &indexes, &w}, .i = {1, 1, 2, mode}}, c).is_ok());
    EXPECT_EQ(c.output(0)->shape(), (Dims{2, 2}));
    EXPECT_EQ(values(*c.output(0)), want) << "mode " << mode;
  }
  Context c;  // IDF without weights: 1 where counted
  ASSERT_TRUE(run_op("tfidf_vectorizer", {.in = {&x, &pool, &counts, &indexes}, .i = {1, 1, 0, 1}}, c).is_ok());
  EXPECT_EQ(values(*c.output(0)), (std::vector<double>{1, 1, 1, 0}));
}

TEST(TfIdfVectorizerOp, RejectsBadPoolsAndInputs) {
  NDArray x = make(DataType::kInt64, {4}, {1, 2, 3, 4});
  NDArray counts = make(DataType::kInt64, {2}, {0, 2});
  NDArray idx4 = make(DataType::kInt64, {4}, {0, 1, 2, 3});
  auto message = [&](NDArray& xx, NDArray& pool, NDArray& cnt, NDArray& idx, std::vector<int64_t> i,
                     NDArray* w = nullptr) {
    Context c;
    std::vector<NDArray*> in = {&xx, &pool, &cnt, &idx};
    if (w != nullptr) in.push_back(w);
    return run_op("tfidf_vectorizer", {.in = in, .i = std::move(i)}, c).message();
  };
  NDArray dup = make(DataType::kInt64, {6}, {1, 2, 3, 4, 3, 4});
  NDArray idx3 = make(DataType::kInt64, {3}, {0, 1, 2});
  EXPECT_EQ(message(x, dup, counts, idx4, {1, 2, 0}),
            "tfidf_vectorizer: the pool holds one 2-gram twice (n-grams 2 and 3)");
  NDArray ragged = make(DataType::kInt64, {5}, {1, 2, 3, 4, 5});
  EXPECT_EQ(message(x, ragged, counts, idx3, {1, 2, 0}),
            "tfidf_vectorizer: the pool's 2-grams (entries 2 to 5) are not whole");
  NDArray pool = make(DataType::kInt64, {6}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(message(x, pool, counts, idx3, {1, 2, 0}),
            "tfidf_vectorizer: the pool holds more n-grams than ngram_indexes' 3 columns");
  NDArray idx5 = make(DataType::kInt64, {5}, {0, 1, 2, 3, 4});
  EXPECT_EQ(message(x, pool, counts, idx5, {1, 2, 0}),
            "tfidf_vectorizer: ngram_indexes has 5 columns for the pool's 4 n-grams");
  NDArray back = make(DataType::kInt64, {2}, {3, 2});
  EXPECT_EQ(message(x, pool, back, idx4, {1, 2, 0}),
            "tfidf_vectorizer: ngram_counts[0] = 3: the starts must be non-decreasing and within the pool's 6 entries");
  NDArray neg = make(DataType::kInt64, {4}, {0, -1, 2, 3});
  EXPECT_EQ(message(x, pool, counts, neg, {1, 2, 0}), "tfidf_vectorizer: ngram_indexes[1] = -1: columns are >= 0");
  NDArray w3 = make(DataType::kFloat32, {3}, {1, 1, 1});
  EXPECT_EQ(message(x, pool, counts, idx4, {1, 2, 0, 2}, &w3),
            "tfidf_vectorizer: weights[3] must hold one weight per n-gram (4)");
  EXPECT_EQ(message(x, pool, counts, idx4, {2, 1, 0}), "tfidf_vectorizer: max_gram_length 1 is below min_gram_length 2");
  NDArray x3 = make(DataType::kInt64, {1, 2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(message(x3, pool, counts, idx4, {1, 2, 0}),
            "tfidf_vectorizer: x must be [C] or [B, C] token ids, got int64[1,2,2]");
  NDArray xf = make(DataType::kFloat32, {4}, {1, 2, 3, 4});
  EXPECT_FALSE(message(xf, pool, counts, idx4, {1, 2, 0}).empty());  // tokens are integers
  EXPECT_FALSE(message(x, pool, counts, idx4, {0, 2, 0}).empty());   // min_gram_length >= 1
  EXPECT_FALSE(message(x, pool, counts, idx4, {1, 2, 0, 3}).empty());  // mode is 0, 1 or 2
}
