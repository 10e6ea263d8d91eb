// The split of column reductions on CUDA (loops/reduce_split.h) is plain
// host arithmetic: hand-computed plans for typical shapes, and for a sweep of
// sizes the rule's promises (chunks tile the reduced positions in order, none
// empty or shorter than kSplitMinRows except the last, the item count and
// chunk count bounded).
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>

#include "libops/loops/reduce_split.h"

using namespace libops::cuda;

namespace {

TEST(ReduceSplit, TypicalColumnReductions) {
  // sum over axis 0 of [1e7, 4]: kSplitMaxChunks bounds the chunk count.
  ReduceSplit s = reduce_split_plan(4, 10000000);
  EXPECT_EQ(s.rows_per_chunk, 153);  // ceil(1e7 / 65535)
  EXPECT_EQ(s.chunks, 65360);        // ceil(1e7 / 153)
  EXPECT_TRUE(s.merge_by_block);
  // [200000, 4]: the chunk length bounds it (200000 / 64 = 3125 chunks of 64).
  s = reduce_split_plan(4, 200000);
  EXPECT_EQ(s.rows_per_chunk, 64);
  EXPECT_EQ(s.chunks, 3125);
  // [1000, 37]: 15 chunks of 67 rows (the last of 62), merged by a thread.
  s = reduce_split_plan(37, 1000);
  EXPECT_EQ(s.rows_per_chunk, 67);
  EXPECT_EQ(s.chunks, 15);
  EXPECT_FALSE(s.merge_by_block);
  EXPECT_EQ(reduce_chunk_range(s, 1000, 14).begin, 938);
  EXPECT_EQ(reduce_chunk_range(s, 1000, 14).end, 1000);
  // [1e6, 256] (batch-norm statistics): the item target bounds it.
  s = reduce_split_plan(256, 1000000);
  EXPECT_EQ(s.rows_per_chunk, 489);  // ceil(1e6 / 2048)
  EXPECT_EQ(s.chunks, 2045);
  EXPECT_LE(256 * s.chunks, kSplitTargetThreads);
}

TEST(ReduceSplit, NoSplitWhenShortOrWide) {
  for (const auto& [n_out, n_red] : {std::pair<int64_t, int64_t>{4, 127}, {4, 50}, {1000, 1}, {4, 0},
                                     {kSplitTargetThreads / 2 + 1, 100000}, {kSplitTargetThreads * 4, 1 << 20}}) {
    const ReduceSplit s = reduce_split_plan(n_out, n_red);
    EXPECT_EQ(s.chunks, 1) << n_out << " x " << n_red;
    EXPECT_EQ(s.rows_per_chunk, n_red);
    EXPECT_FALSE(s.merge_by_block);
  }
  // The smallest split: two chunks of 64.
  const ReduceSplit s = reduce_split_plan(3, 128);
  EXPECT_EQ(s.chunks, 2);
  EXPECT_EQ(s.rows_per_chunk, 64);
}

TEST(ReduceSplit, ChunksTileThePositionsInOrder) {
  for (int64_t n_out : {2, 3, 5, 37, 1000, 65536, 200000}) {
    for (int64_t n_red : {128, 129, 191, 1000, 4097, 99991, 1000000, 12345678}) {
      const ReduceSplit s = reduce_split_plan(n_out, n_red);
      if (s.chunks == 1) continue;
      SCOPED_TRACE(testing::Message() << n_out << " x " << n_red);
      EXPECT_GE(s.chunks, 2);
      EXPECT_LE(s.chunks, kSplitMaxChunks);
      EXPECT_LE(n_out * s.chunks, kSplitTargetThreads);
      EXPECT_GE(s.rows_per_chunk, kSplitMinRows);
      EXPECT_EQ(s.merge_by_block, s.chunks > kSplitThreadMergeMax);
      int64_t next = 0;
      for (int64_t c = 0; c < s.chunks; ++c) {
        const ReduceChunkRange r = reduce_chunk_range(s, n_red, c);
        ASSERT_EQ(r.begin, next) << "chunk " << c;
        ASSERT_LT(r.begin, r.end) << "chunk " << c;
        if (c + 1 < s.chunks) {
          ASSERT_EQ(r.end - r.begin, s.rows_per_chunk) << "chunk " << c;
        }
        next = r.end;
      }
      EXPECT_EQ(next, n_red);
    }
  }
}

}  // namespace
