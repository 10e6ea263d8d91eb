// The ops-run tool (tools/ops_run.cpp), run as a process: every failure is a
// message on stderr and a non-zero exit, never a crash; a good run prints
// the outputs. Skipped when the tool or the examples are not built.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "libops/c_api.h"
#include "libops/core/device.h"

namespace {

const std::string kBuild = LIBOPS_BUILD_DIR;

bool exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

struct Result {
  int code = -1;
  std::string out, err;
};

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

// A file in the temp folder of this process alone: two test suites run at
// once on one machine (a release and a sanitizer build) must not read each
// other's ops-run output.
std::string temp_file(const char* name) { return ::testing::TempDir() + std::to_string(getpid()) + "_" + name; }

Result run(const std::string& args) {
  const std::string out = temp_file("ops_run_test.out");
  const std::string err = temp_file("ops_run_test.err");
  const std::string cmd = kBuild + "/ops-run " + args + " >" + out + " 2>" + err;
  Result r;
  const int status = std::system(cmd.c_str());
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  r.out = slurp(out);
  r.err = slurp(err);
  std::remove(out.c_str());
  std::remove(err.c_str());
  return r;
}

class OpsRun : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!exists(kBuild + "/ops-run")) GTEST_SKIP() << "ops-run is not built";
  }
};

TEST_F(OpsRun, FailuresExitNonZeroWithAMessage) {
  const std::string junk = temp_file("ops_run_junk.lops");
  {
    std::ofstream f(junk, std::ios::binary);
    for (int i = 0; i < 300; ++i) f.put(static_cast<char>((i * 37 + 11) & 0xff));
  }
  struct Case {
    std::string args;
    int code;
    std::string message;
  };
  const Case cases[] = {
      {"/nonexistent/model.lops", 1, "cannot open '/nonexistent/model.lops'"},
      {junk, 1, "wrong file identifier"},
      {"", 2, "no model given"},
      {junk + " --repeat 0", 2, "--repeat expects 1..1000000"},
      {junk + " --frobnicate", 2, "unknown option '--frobnicate'"},
      {junk + " --device tpu", 2, "--device expects cpu, cuda or cuda:N, got 'tpu'"},
  };
  for (const Case& c : cases) {
    Result r = run(c.args);
    EXPECT_EQ(r.code, c.code) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << "\n" << r.err;
  }
  std::remove(junk.c_str());
}

TEST_F(OpsRun, RunsAnExampleAndListsOps) {
  const std::string mlp = kBuild + "/examples/mlp.lops";
  if (!exists(mlp)) GTEST_SKIP() << "the examples are not built";
  // Inputs not given are an error unless --example-inputs asks for values.
  Result r = run(mlp);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("needs input x: give each with --input NAME=FILE.npy, or --example-inputs"), std::string::npos)
      << r.err;
  r = run(mlp + " --example-inputs --profile");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("probs: float32[1,10]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fc1/matmul"), std::string::npos) << r.out;  // the profile table
  EXPECT_NE(r.err.find("input 'x': example values, float32[1,784]"), std::string::npos) << r.err;

  // Without a usable GPU (a CPU build, or no device), --device cuda says why.
  if (libops::check_device(libops::Device::cuda()).code() == libops::StatusCode::kDevice) {
    r = run(mlp + " --example-inputs --device cuda");
    EXPECT_EQ(r.code, 1) << r.err;
    EXPECT_NE(r.err.find("cuda:0"), std::string::npos) << r.err;
    EXPECT_TRUE(r.err.find("built without the cuda backend") != std::string::npos ||
                r.err.find("no CUDA device") != std::string::npos)
        << r.err;
  }

  // The loader's rewrites, before the run: the MLP's bias adds and relus
  // fused into its matmuls.
  r = run(mlp + " --example-inputs --rewrites");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("5 rewrites:\n  node 4 'fc1/bias_add' (bias_add) fused into node 3 'fc1/matmul' (matmul) "
                       "as its bias"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("'fc2/relu' (relu) fused into node 8 'fc2/matmul' (matmul)"), std::string::npos) << r.out;

  r = run(mlp + " --input x=/nonexistent.npy");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("--input x=/nonexistent.npy: npy: cannot read"), std::string::npos) << r.err;

  r = run("--list-ops");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("matmul"), std::string::npos);
  EXPECT_NE(r.out.find("pairwise"), std::string::npos);

  r = run("--version");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, std::string("ops-run (libops ") + ops_version() + ")\n");
  r = run("--list-ops --op-library /nonexistent/libmyops.so");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("ops_load_op_library: cannot load '/nonexistent/libmyops.so'"), std::string::npos) << r.err;
}

}  // namespace

namespace {

// --info prints what an ONNX model declares (symbolic dims by name, the
// opsets) and what libops loads of it, without running it.
TEST_F(OpsRun, InfoListsSymbolicDimsAndOpsets) {
  const std::string model = std::string(LIBOPS_GOLDEN_DIR) + "/onnx_exported/cnn_dynamic_hw_batch_N.onnx";
  Result r = run(model + " --info");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("opset 13 (default domain"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("as a libops graph:\ninput x: float32[N,3,H,W]\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("output y: float32[?,8,?,?]"), std::string::npos) << r.out;
  r = run(kBuild + "/no_such_model.onnx --info");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("cannot open"), std::string::npos) << r.err;
}

}  // namespace
