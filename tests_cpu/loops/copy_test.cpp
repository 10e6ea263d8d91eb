// copy_into's layouts (loops/copy.cpp): permuted views copied to dense
// arrays, through the tiled path (Note [Tiled transposes]: sizes that are
// not multiples of the tile, leading dims, several element sizes) and the
// run-by-run one, against element-by-element reads of the view.
#include <gtest/gtest.h>

#include <string>
#include <vector>

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

}  // namespace
}  // namespace libops
