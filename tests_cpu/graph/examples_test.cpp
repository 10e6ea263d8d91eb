// The shipped example graphs (MLP 784-512-512-10 and a small CNN), written
// with their numpy reference outputs by tools/build_examples.py into
// <build>/examples, run through the loader and executor.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "graph/executor.h"
#include "graph/npy.h"
#include "test_util.h"

namespace libops::graph {
namespace {

std::string examples_dir() { return std::string(LIBOPS_BUILD_DIR) + "/examples/"; }

bool exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

NDArray read_npy(const std::string& path) {
  npy::NpyArray a;
  std::string error;
  EXPECT_TRUE(npy::npy_read_file(path, a, error)) << path << ": " << error;
  NDArray out;
  Dims shape(a.shape.data(), static_cast<int>(a.shape.size()));
  EXPECT_TRUE(NDArray::create(static_cast<DataType>(a.dtype), shape, 'c', out).is_ok());
  EXPECT_EQ(a.data.size(), static_cast<size_t>(out.length()) * out.element_size());
  if (a.data.size() == static_cast<size_t>(out.length()) * out.element_size())
    std::memcpy(out.data(), a.data.data(), a.data.size());
  return out;
}

// ops-run's example input (tools/ops_run.cpp): ((7i + 3) mod 17 - 8) / 8.
NDArray example_input(const Dims& shape) {
  std::vector<double> v(static_cast<size_t>(shape.product()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(static_cast<int64_t>((i * 7 + 3) % 17) - 8) / 8.0;
  return libops::test::make(DataType::kFloat32, shape, v);
}

void check_example(const std::string& name, const Dims& example_shape) {
  const std::string base = examples_dir() + name;
  if (!exists(base + ".lops"))
    GTEST_SKIP() << base << ".lops is missing: build the examples (tools/build_examples.py --out " << examples_dir()
                 << ")";
  std::shared_ptr<const Graph> g;
  ASSERT_OK(Graph::load_file(base + ".lops", g));
  EXPECT_GT(g->constants_in_place(), 0);
  EXPECT_EQ(g->constants_copied(), 0);  // every weight is used from the file, without a copy
  Session s(g);
  for (int pass = 0; pass < 2; ++pass) {
    const bool example = pass == 1;
    NDArray x = example ? example_input(example_shape) : read_npy(base + ".x.npy");
    const NDArray* in[] = {&x};
    ASSERT_OK(s.run(in, 1));
    for (const char* out : {"logits", "probs"}) {
      NDArray want = read_npy(base + (example ? ".example." : ".") + out + ".npy");
      const NDArray* got = s.output(out);
      ASSERT_NE(got, nullptr) << out;
      EXPECT_EQ(got->shape(), want.shape()) << out;
      EXPECT_TRUE(libops::test::all_close(*got, libops::test::values(want), 1e-4, 2e-5))
          << name << " " << out << (example ? " (example input)" : "");
    }
  }
}

TEST(GraphExamples, MlpMatchesNumpy) { check_example("mlp", Dims{1, 784}); }

TEST(GraphExamples, CnnMatchesNumpy) { check_example("cnn", Dims{1, 1, 28, 28}); }

}  // namespace
}  // namespace libops::graph
