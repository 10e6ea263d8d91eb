// The MANIFEST of an ONNX golden folder (tools/gen_goldens_onnx.py,
// gen_goldens_onnx_exported.py): one model a line,
//   <name> in=<n> out=<n> [sets=<n>] [rtol=<r>] [atol=<a>]
// with <name>.onnx and its input and output .npy files beside it.
#pragma once

#include <fstream>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

namespace libops::test {

struct OnnxGoldenCase {
  std::string name;
  int n_in = 0, n_out = 0, sets = 1;
  double rtol = 1e-5, atol = 1e-6;
};

inline void PrintTo(const OnnxGoldenCase& c, std::ostream* os) { *os << c.name; }

inline std::vector<OnnxGoldenCase> load_onnx_manifest(const std::string& dir) {
  std::vector<OnnxGoldenCase> v;
  std::ifstream in(dir + "MANIFEST");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ss(line);
    OnnxGoldenCase c;
    ss >> c.name;
    for (std::string tok; ss >> tok;) {
      const size_t eq = tok.find('=');
      const std::string key = tok.substr(0, eq), val = tok.substr(eq + 1);
      if (key == "in") c.n_in = std::stoi(val);
      else if (key == "out") c.n_out = std::stoi(val);
      else if (key == "sets") c.sets = std::stoi(val);
      else if (key == "rtol") c.rtol = std::stod(val);
      else if (key == "atol") c.atol = std::stod(val);
    }
    v.push_back(c);
  }
  return v;
}

}  // namespace libops::test
