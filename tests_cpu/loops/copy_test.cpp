// copy_into's layouts (loops/copy.cpp): permuted views copied to dense
// arrays, through the tiled path (Note [Tiled transposes]: sizes that are
// not multiples of the tile, leading dims, several element sizes) and the
// run-by-run one, against element-by-element reads of the view; and
// float32 <-> float16/bfloat16 casts, bulk (dense) and element-wise.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "libops/core/half.h"
#include "test_util.h"

namespace libops {
namespace {

using test::make;

struct PermuteCase {
  Dims shape;
  Dims perm;
};

TEST(CopyEngine, PermutedCopiesMatchElementReads) {
  const PermuteCase cases[] = {
      {{130, 19}, {1, 0}},         // tiled for 4- and 8-byte elements (a source row step of 76+ bytes)
      {{19, 300}, {1, 0}},         // tiled for every element size; 300 = 2 full row tiles + 44
      {{3, 37, 70}, {2, 0, 1}},    // a leading dim between the two tiled ones
      {{4, 33, 9, 6}, {0, 2, 3, 1}},
      {{5, 200, 3}, {2, 1, 0}},    // innermost source dim of 3: run by run
      {{64, 64}, {0, 1}},          // no permutation: one flat run
  };
  for (DataType t : {DataType::kInt8, DataType::kFloat16, DataType::kFloat32, DataType::kFloat64})
    for (const PermuteCase& c : cases) {
      int64_t n = 1;
      for (int d = 0; d < c.shape.size(); ++d) n *= c.shape[d];
      std::vector<double> v(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<double>(i % 199 - 99);
      NDArray x = make(t, c.shape, v), view, dense;
      ASSERT_OK(x.permute(c.perm, view));
      ASSERT_OK(view.dup('c', dense));
      ASSERT_EQ(dense.shape(), view.shape());
      const std::string what = std::string(dtype_name(t)) + " " + c.shape.str() + " permuted " + c.perm.str();
      for (int64_t i = 0; i < n; ++i)
        ASSERT_EQ(dense.get_double(i), view.get_double(i)) << what << ", element " << i;
    }
}

TEST(CopyEngine, DenseSixteenBitFloatCastsMatchTheScalarConversions) {
  // Long enough for several threads' chunks and an 8-wide tail; values
  // across the half range with ties, NaN, infinities and overflow. Dense
  // C and F arrays take the bulk converters, a strided view the engine:
  // every element must be the scalar conversion of half.h.
  const int64_t n = 3 * 32768 + 11;
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = std::ldexp(1.0 + (i % 2048) / 2048.0, int(i % 40) - 26);
  v[5] = std::nan("");
  v[6] = -std::numeric_limits<double>::infinity();
  v[7] = 70000.0;    // above float16's max: inf; fine in bfloat16
  v[8] = 1.0009765625 + 0.00048828125;  // a float16 tie (1 + 1.5 ulp): to even
  NDArray x = make(DataType::kFloat32, {n}, v);
  for (DataType t : {DataType::kFloat16, DataType::kBFloat16})
    for (char order : {'c', 'f'}) {
      NDArray x2 = make(DataType::kFloat32, {n / 11, 11}, std::vector<double>(v.begin(), v.end() - n % 11)), xo, h, back;
      ASSERT_OK(x2.dup(order, xo));
      ASSERT_OK(NDArray::create(t, xo.shape(), order, h));
      ASSERT_OK(h.assign(xo));
      ASSERT_OK(NDArray::create(DataType::kFloat32, xo.shape(), order, back));
      ASSERT_OK(back.assign(h));
      const float* xf = xo.data_as<float>();
      const uint16_t* hb = static_cast<const uint16_t*>(h.data());
      const float* bf = back.data_as<float>();
      for (int64_t i = 0; i < xo.length(); ++i) {
        const uint16_t want = t == DataType::kFloat16 ? float_to_half_bits(xf[i]) : float_to_bf16_bits(xf[i]);
        ASSERT_EQ(hb[i], want) << dtype_name(t) << " " << order << ", element " << i;
        const float want_back = t == DataType::kFloat16 ? half_bits_to_float(want) : bf16_bits_to_float(want);
        ASSERT_EQ(std::memcmp(&bf[i], &want_back, 4), 0) << dtype_name(t) << " " << order << ", element " << i;
      }
    }
  // A strided (non-dense) source: the element-wise engine, same values.
  NDArray every_other, h2;
  ASSERT_OK(x.slice(0, 0, n, 2, every_other));
  ASSERT_OK(NDArray::create(DataType::kFloat16, every_other.shape(), 'c', h2));
  ASSERT_OK(h2.assign(every_other));
  for (int64_t i = 0; i < h2.length(); ++i)
    ASSERT_EQ(static_cast<const uint16_t*>(h2.data())[i], float_to_half_bits(static_cast<float>(v[size_t(2 * i)])))
        << "strided, element " << i;
}

}  // namespace
}  // namespace libops
