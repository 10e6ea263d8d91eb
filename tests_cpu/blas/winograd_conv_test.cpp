// WinogradConv3x3 (Note [Own Winograd convolution]), with output tiles of
// 4x4 and of 2x2, against the direct sum in double, on channel-blocked x and z: interior and edge tiles, partial
// tiles at the right and bottom, pads of 0 to 2 on either side, channel
// counts that leave a partial block, batches, the bias, the residual and
// both activations, one and two threads, and enough tiles for several
// chunks. Winograd rounds otherwise than the direct sum; the bound is
// relative to the largest sum of the terms' magnitudes, which rounding
// errors scale with (the sine waves' sums cancel: outputs are small).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "blas/winograd_conv.h"
#include "libops/core/parallel.h"
#include "blas_test_util.h"

using namespace libops;
using libops::test::wave;

namespace {

constexpr int64_t kB = blas::WinogradConv3x3::kLanes;

struct Case {
  int64_t n, cin, cout, h, w, pad_top, pad_left, pad_bottom, pad_right;
  bool bias, residual;
  int activation;
};

int64_t padded(int64_t c) { return (c + kB - 1) / kB * kB; }

// x [n, cin, h, w] (dense NCHW values) into the blocked layout, zeros past cin.
std::vector<float> block(const std::vector<float>& v, int64_t n, int64_t c, int64_t hw) {
  const int64_t cp = padded(c);
  std::vector<float> out(static_cast<size_t>(n * cp * hw), 0.0f);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t p = 0; p < hw; ++p)
        out[static_cast<size_t>(((i * (cp / kB) + ch / kB) * hw + p) * kB + ch % kB)] =
            v[static_cast<size_t>((i * c + ch) * hw + p)];
  return out;
}

void expect_matches_direct(const Case& c, int threads, int tile) {
  SCOPED_TRACE(testing::Message() << "n" << c.n << " " << c.cin << "->" << c.cout << " " << c.h << "x" << c.w
                                  << " pads " << c.pad_top << "," << c.pad_left << "," << c.pad_bottom << ","
                                  << c.pad_right << (c.bias ? " bias" : "") << (c.residual ? " residual" : "")
                                  << " act " << c.activation << " threads " << threads << " tile " << tile);
  const int64_t oh = c.h + c.pad_top + c.pad_bottom - 2, ow = c.w + c.pad_left + c.pad_right - 2;
  const int64_t cp = padded(c.cin), op = padded(c.cout);
  const std::vector<float> x = wave(static_cast<size_t>(c.n * c.cin * c.h * c.w), 0.37f, 0.2f);
  const std::vector<float> w = wave(static_cast<size_t>(c.cout * c.cin * 9), 0.53f, 1.1f);
  std::vector<float> bias = wave(static_cast<size_t>(op), 0.71f, 0.4f), r;
  std::fill(bias.begin() + c.cout, bias.end(), 0.0f);
  if (c.residual) r = block(wave(static_cast<size_t>(c.n * c.cout * oh * ow), 0.29f, 2.0f), c.n, c.cout, oh * ow);
  const std::vector<float> xb = block(x, c.n, c.cin, c.h * c.w);

  blas::WinogradConv3x3 conv;
  ASSERT_TRUE(conv.prepare(tile, c.cin, c.cout, w.data(), cp, op));
  ASSERT_TRUE(conv.prepared_for(tile, cp, op));
  blas::WinogradGeometry g;
  g.n = c.n, g.c = cp, g.cout = op, g.h = c.h, g.w = c.w, g.oh = oh, g.ow = ow, g.pad_top = c.pad_top,
  g.pad_left = c.pad_left;
  std::vector<float> z(static_cast<size_t>(c.n * op * oh * ow), NAN);
  conv.run(g, xb.data(), c.bias ? bias.data() : nullptr, c.residual ? r.data() : nullptr, c.activation, z.data(),
           threads);  // a team of up to `threads`, whatever set_num_threads says

  std::vector<double> want(z.size(), 0.0);
  double scale = 0;  // the largest sum of the terms' magnitudes: what rounding errors scale with
  for (int64_t i = 0; i < c.n; ++i)
    for (int64_t co = 0; co < op; ++co)
      for (int64_t y = 0; y < oh; ++y)
        for (int64_t xo = 0; xo < ow; ++xo) {
          double s = 0, magnitude = 0;
          if (co < c.cout) {
            for (int64_t ci = 0; ci < c.cin; ++ci)
              for (int64_t ky = 0; ky < 3; ++ky)
                for (int64_t kx = 0; kx < 3; ++kx) {
                  const int64_t yy = y + ky - c.pad_top, xx = xo + kx - c.pad_left;
                  if (yy < 0 || yy >= c.h || xx < 0 || xx >= c.w) continue;
                  const double t =
                      static_cast<double>(x[static_cast<size_t>(((i * c.cin + ci) * c.h + yy) * c.w + xx)]) *
                      w[static_cast<size_t>(((co * c.cin + ci) * 3 + ky) * 3 + kx)];
                  s += t;
                  magnitude += std::fabs(t);
                }
          }
          const size_t at = static_cast<size_t>((((i * (op / kB) + co / kB) * oh + y) * ow + xo) * kB + co % kB);
          if (c.bias) s += bias[static_cast<size_t>(co)], magnitude += std::fabs(bias[static_cast<size_t>(co)]);
          if (c.residual) s += r[at], magnitude += std::fabs(r[at]);
          if (c.activation >= 1) s = std::max(s, 0.0);
          if (c.activation == 2) s = std::min(s, 6.0);
          want[at] = s;
          scale = std::max(scale, magnitude);
        }
  double worst = 0;
  for (size_t i = 0; i < z.size(); ++i) {
    ASSERT_TRUE(std::isfinite(z[i])) << "output " << i << " was not written";
    worst = std::max(worst, std::fabs(z[i] - want[i]));
    // The lanes past cout are exactly bias + residual there: zeros.
    const int64_t channel = static_cast<int64_t>(i / kB) / (oh * ow) % (op / kB) * kB + static_cast<int64_t>(i % kB);
    if (channel >= c.cout) {
      ASSERT_EQ(z[i], 0.0f) << "padded lane at " << i;
    }
  }
  // 8e-8 to 8e-7 of the scale on these cases (float's epsilon: 6e-8).
  EXPECT_LE(worst, 2e-6 * scale) << "scale " << scale;
}

TEST(WinogradConv3x3, MatchesTheDirectSum) {
  if (!blas::WinogradConv3x3::supported()) GTEST_SKIP() << "needs AVX2 and FMA";
  const Case cases[] = {
      {1, 8, 8, 8, 8, 1, 1, 1, 1, false, false, 0},     // one block, 2x2 tiles, every tile at an edge
      {1, 16, 32, 14, 14, 1, 1, 1, 1, true, false, 1},  // a partial tile row and column (14 = 3 x 4 + 2)
      {2, 20, 12, 13, 11, 1, 1, 1, 1, true, true, 2},   // partial blocks of both channel counts
      {1, 24, 16, 16, 19, 0, 0, 0, 0, true, false, 0},  // no padding: interior tiles read unchecked
      {1, 8, 16, 9, 10, 2, 0, 1, 2, true, true, 1},     // asymmetric pads
      {3, 16, 8, 5, 6, 1, 2, 0, 1, false, true, 0},     // a batch of small images
      {1, 64, 64, 24, 24, 1, 1, 1, 1, true, false, 2},  // ResNet-like
  };
  for (const Case& c : cases)
    for (int threads : {1, 2})
      for (int tile : {4, 2}) {
        set_num_threads(threads);
        expect_matches_direct(c, threads, tile);
      }
  set_num_threads(0);
}

// 512 input channels keep a chunk (2 MB of transformed input) to 36 tiles
// of 4x4 and 64 of 2x2: a 28x28 image (49 and 196 tiles) takes two and four
// chunks, the last partial.
TEST(WinogradConv3x3, SpansSeveralChunks) {
  if (!blas::WinogradConv3x3::supported()) GTEST_SKIP() << "needs AVX2 and FMA";
  for (int tile : {4, 2}) expect_matches_direct({1, 512, 8, 28, 28, 1, 1, 1, 1, true, true, 1}, 2, tile);
}

// Where whole positions do not spread evenly over the team, each
// position's GEMM splits by rows (3 threads: 16 positions in 2 ranges
// each; 36 stay whole); the values do not depend on the split.
TEST(WinogradConv3x3, UnevenTeamsSplitTheGemmsByRows) {
  if (!blas::WinogradConv3x3::supported()) GTEST_SKIP() << "needs AVX2 and FMA";
  for (int tile : {4, 2}) expect_matches_direct({2, 16, 24, 22, 22, 1, 1, 1, 1, true, false, 1}, 3, tile);
}

TEST(WinogradConv3x3, TilesOfFourWhereTheImagesGiveEnough) {
  EXPECT_EQ(blas::WinogradConv3x3::tile_for(1, 56, 56), 4);
  EXPECT_EQ(blas::WinogradConv3x3::tile_for(1, 7, 7), 2);  // 4 tiles of 4x4, 16 of 2x2
  EXPECT_EQ(blas::WinogradConv3x3::tile_for(8, 7, 7), 4);
}

TEST(WinogradConv3x3, RefusesChannelCountsOffTheBlocks) {
  if (!blas::WinogradConv3x3::supported()) GTEST_SKIP() << "needs AVX2 and FMA";
  const std::vector<float> w(8 * 8 * 9, 1.0f);
  blas::WinogradConv3x3 conv;
  EXPECT_FALSE(conv.prepare(4, 8, 8, w.data(), 12, 8));  // 12 is not a multiple of 8
  EXPECT_FALSE(conv.prepare(4, 16, 8, w.data(), 8, 8));  // more channels than the padded count
  EXPECT_FALSE(conv.prepare(3, 8, 8, w.data(), 8, 8));   // tiles of 2 or 4
  EXPECT_FALSE(conv.prepared_for(4, 8, 8));
  EXPECT_TRUE(conv.prepare(4, 8, 8, w.data(), 8, 8));
  EXPECT_TRUE(conv.prepared_for(4, 8, 8));
  EXPECT_FALSE(conv.prepared_for(2, 8, 8));
  EXPECT_FALSE(conv.prepared_for(4, 16, 8));
}

}  // namespace
