// Golden manifests: a directory under tests_cpu/golden/ written by a
// generator through tools/golden_manifest.py, one op call per MANIFEST
// line,
//   <op> <case> in=<n> out=<n> [i=a,b] [t=a,b] [b=0,1] [d=dtype] [rtol=r] [atol=a]
// with inputs <op>_<case>_in<k>.npy and expected outputs _out<k>.npy.
// Shared by tests_cpu and tests_cuda.
#pragma once

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "golden_util.h"
#include "op_test_util.h"

namespace libops::test {

struct ManifestCase {
  std::string dir, op, name;
  double rtol = 0, atol = 0;  // 0, 0: exact
  int n_in = 0, n_out = 0;
  std::vector<int64_t> i;
  std::vector<double> t;
  std::vector<bool> b;
  std::vector<DataType> d;

  std::string file(const std::string& role) const { return dir + "/" + op + "_" + name + "_" + role + ".npy"; }
  std::vector<NDArray> load_inputs() const {
    std::vector<NDArray> v;
    for (int k = 0; k < n_in; ++k) v.push_back(load_golden(file("in" + std::to_string(k))));
    return v;
  }
  NDArray load_output(int k) const { return load_golden(file("out" + std::to_string(k))); }
  OpCall call(const std::vector<NDArray*>& in) const { return OpCall{.in = in, .t = t, .i = i, .b = b, .d = d}; }
};

inline void PrintTo(const ManifestCase& c, std::ostream* os) { *os << c.op << "_" << c.name; }

inline std::vector<ManifestCase> load_manifest(const std::string& dir) {
  std::vector<ManifestCase> v;
  std::ifstream in(std::string(LIBOPS_GOLDEN_DIR) + "/" + dir + "/MANIFEST");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    ManifestCase c;
    c.dir = dir;
    ss >> c.op >> c.name;
    for (std::string tok; ss >> tok;) {
      const size_t eq = tok.find('=');
      const std::string key = tok.substr(0, eq), val = tok.substr(eq + 1);
      std::vector<std::string> parts;
      std::istringstream vs(val);
      for (std::string p; std::getline(vs, p, ',');) parts.push_back(p);
      if (key == "in") c.n_in = std::stoi(val);
      else if (key == "out") c.n_out = std::stoi(val);
      else if (key == "i") for (auto& p : parts) c.i.push_back(std::stoll(p));
      else if (key == "t") for (auto& p : parts) c.t.push_back(std::stod(p));
      else if (key == "b") for (auto& p : parts) c.b.push_back(std::stoi(p) != 0);
      else if (key == "d") c.d.push_back(dtype_from_name(val));
      else if (key == "rtol") c.rtol = std::stod(val);
      else if (key == "atol") c.atol = std::stod(val);
    }
    v.push_back(c);
  }
  return v;
}

// Same dtype, shape and values: NaN where NaN, infinities equal, others
// within atol + rtol * |want| (exact by default; -0.0 equals 0.0).
inline ::testing::AssertionResult same_array(const NDArray& got, const NDArray& want, double rtol = 0,
                                             double atol = 0) {
  if (got.dtype() != want.dtype())
    return ::testing::AssertionFailure() << "dtype " << dtype_name(got.dtype()) << ", want " << dtype_name(want.dtype());
  if (got.shape() != want.shape())
    return ::testing::AssertionFailure() << "shape " << got.shape().str() << ", want " << want.shape().str();
  for (int64_t k = 0; k < want.length(); ++k) {
    const double g = got.get_double(k), w = want.get_double(k);
    const bool ok = std::isnan(w) ? std::isnan(g) : std::isinf(w) ? g == w : std::fabs(g - w) <= atol + rtol * std::fabs(w);
    if (!ok)
      return ::testing::AssertionFailure() << "element " << k << ": got " << g << ", want " << w;
  }
  return ::testing::AssertionSuccess();
}

}  // namespace libops::test
