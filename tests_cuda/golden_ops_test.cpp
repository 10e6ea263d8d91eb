// The manifest goldens (golden_manifest.h) on cuda:0: every case (numpy's
// values) runs on the GPU, held to the CPU's tolerance (4x for float
// cases: device kernels add in another order), with the outputs' newest
// copy on the device.
#include <map>

#include "cuda_test_util.h"
#include "golden_manifest.h"

namespace libops {
namespace {

const char* const kManifests[] = {"shape_ops", "scans", "sorting", "indexing", "linalg_ops", "random", "selection", "windows",
                                   "nn_act", "rnn", "image", "conv", "attention", "metrics", "layers", "conv3d",
                                   "low_precision", "loss", "libnd4j"};

std::vector<test::ManifestCase> all_cases() {
  std::vector<test::ManifestCase> v;
  for (const char* dir : kManifests)
    for (test::ManifestCase& c : test::load_manifest(dir)) v.push_back(std::move(c));
  return v;
}

TEST(CudaGoldenOps, EveryCaseMatchesNumpyOnTheGpu) {
  REQUIRE_CUDA_DEVICE();
  const std::vector<test::ManifestCase> cases = all_cases();
  ASSERT_GT(cases.size(), 50u);
  for (const test::ManifestCase& c : cases) {
    SCOPED_TRACE(c.op + " " + c.name);
    std::vector<NDArray> in = c.load_inputs();
    std::vector<NDArray*> ptrs;
    for (NDArray& a : in) ptrs.push_back(&a);
    Context gpu;
    gpu.set_device(Device::cuda(0));
    CASE_OK(test::run_op(c.op.c_str(), c.call(ptrs), gpu));
    for (int k = 0; k < c.n_out; ++k) {
      if (gpu.output(k)->length() > 0) {
        EXPECT_EQ(gpu.output(k)->buffer()->sync(), DataBuffer::Sync::kDeviceNewer) << "output " << k;
      }
      CASE_OK(gpu.output(k)->buffer()->sync_to_host());
      EXPECT_TRUE(test::same_array(*gpu.output(k), c.load_output(k), 4 * c.rtol, c.atol)) << "output " << k;
    }
  }
}

// The ops added with their CUDA kernels in the ONNX work (cast_low_precision,
// linear_attention) and those whose device path is a copy (bitcast, fold with
// its list as an input) are in the manifests the GPU test above compares, so
// none of them goes untested on a GPU.
TEST(CudaGoldenOps, TheNewOpsAreComparedOnTheGpu) {
  std::map<std::string, int> n;
  for (const test::ManifestCase& c : all_cases()) ++n[c.op];
  for (const char* op : {"cast_low_precision", "linear_attention", "bitcast", "fold", "topk", "top_k",
                         "resize_nearest_neighbor", "resize_bilinear", "resize_bicubic", "clip_by_norm",
                         "clip_by_avg_norm", "absolute_difference_loss", "mean_sqerr_loss", "huber_loss", "log_loss",
                         "hinge_loss", "l2_loss", "log_poisson_loss", "cosine_distance_loss", "sigm_cross_entropy_loss",
                         "softmax_cross_entropy_loss", "softmax_cross_entropy_loss_with_logits",
                         "sparse_softmax_cross_entropy_loss_with_logits", "mean_pairwssqerr_loss",
                         "rgb_to_yuv", "yuv_to_rgb", "rgb_to_yiq", "yiq_to_rgb", "rgb_to_grs",
                         "rgb_to_hsv", "hsv_to_rgb", "to_double", "to_float16", "to_float32", "to_int32", "to_int64",
                         "to_uint32", "to_uint64", "size_at", "invert_permutation", "meshgrid", "tri", "axpy",
                         "standardize", "mergeadd", "mergeavg", "mergemax", "mergemaxindex"})
    EXPECT_GE(n[op], 5) << op << " has too few cases in the manifests";
}

// Runs without a GPU: each op of the manifest declares a device path.
TEST(CudaGoldenOps, EveryOpRunsOnDevices) {
  std::map<std::string, int> n;
  for (const test::ManifestCase& c : all_cases()) ++n[c.op];
  ASSERT_GT(n.size(), 30u);
  for (const auto& [op, count] : n) EXPECT_TRUE(OpRegistry::instance().find(op)->descriptor().any_device) << op;
}

}  // namespace
}  // namespace libops
