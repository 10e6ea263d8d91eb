// The registry holds every op declared in libops/ops/** (so no op file was
// dropped by the linker or forgotten), refuses nothing at load, and finds
// ops by name, alias and hash.
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "libops/legacy/legacy.h"
#include "libops/ops/declarable_op.h"
#include "libops/ops/elementwise/elementwise.h"
#include "libops/ops/index/indexed_rows.h"
#include "libops/ops/reduce/reduce_common.h"
#include "test_util.h"

using namespace libops;

namespace {

// Op names declared by *_OP_IMPL(name, ...) in the op sources.
std::set<std::string> declared_ops() {
  std::set<std::string> names;
  const std::regex impl(R"((?:^|\n)\s*(?:CUSTOM_|CONFIGURABLE_|REDUCTION_|BOOLEAN_)?OP_IMPL\(\s*(\w+))");
  for (const auto& entry : std::filesystem::recursive_directory_iterator(std::string(LIBOPS_SOURCE_DIR) + "/libops/ops")) {
    if (entry.path().extension() != ".cpp") continue;
    std::ifstream in(entry.path());
    std::stringstream ss;
    ss << in.rdbuf();
    std::string text = ss.str();
    for (std::sregex_iterator it(text.begin(), text.end(), impl), end; it != end; ++it) names.insert((*it)[1]);
  }
  // Table-declared families: a row each.
  for (auto table : {ops::unary_elementwise_defs, ops::binary_elementwise_defs, ops::activation_elementwise_defs}) {
    int n = 0;
    const ops::ElementwiseDef* defs = table(n);
    for (int k = 0; k < n; ++k) names.insert(defs[k].name);
  }
  for (const std::string& n : ops::reduction_op_names()) names.insert(n);
  for (const std::string& n : ops::scatter_op_names()) names.insert(n);
  for (const std::string& n : ops::segment_op_names()) names.insert(n);
  return names;
}

}  // namespace

TEST(Registry, HoldsEveryDeclaredOp) {
  std::set<std::string> declared = declared_ops();
  ASSERT_GE(declared.size(), 4u);  // at least add, subtract, multiply, divide
  for (const std::string& name : declared) {
    const DeclarableOp* op = OpRegistry::instance().find(name);
    ASSERT_NE(op, nullptr) << "op '" << name << "' is declared in libops/ops but not registered";
    EXPECT_EQ(op->name(), name);
  }
  EXPECT_EQ(static_cast<size_t>(OpRegistry::instance().size()), declared.size())
      << "registered ops that no file under libops/ops declares";
}

TEST(Registry, NoLoadErrors) {
  for (const auto& e : OpRegistry::instance().load_errors()) ADD_FAILURE() << e;
  EXPECT_TRUE(OpRegistry::instance().load_errors().empty());
}

TEST(Registry, FindsByNameAndHash) {
  const DeclarableOp* add = OpRegistry::instance().find("add");
  ASSERT_NE(add, nullptr);
  // FNV-1a 64 of "add", computed by hand from the offset basis and prime.
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : std::string("add")) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  EXPECT_EQ(add->descriptor().hash, h);
  EXPECT_EQ(OpRegistry::instance().find_hash(h), add);
  EXPECT_EQ(OpRegistry::instance().find("no_such_op"), nullptr);
  EXPECT_EQ(OpRegistry::instance().find_hash(12345), nullptr);
}

TEST(Registry, ListIsSortedAndDescribed) {
  auto ops = OpRegistry::instance().list();
  ASSERT_EQ(static_cast<int>(ops.size()), OpRegistry::instance().size());
  for (size_t i = 1; i < ops.size(); ++i) EXPECT_LT(std::string(ops[i - 1]->name()), std::string(ops[i]->name()));
  for (const DeclarableOp* op : ops) {
    EXPECT_FALSE(op->descriptor().input_type(0).empty()) << op->name() << " declares no input types";
  }
}

TEST(Registry, RefusesDuplicate) {
  // A second op with a taken name is refused and recorded, the first one kept.
  struct Dup final : DeclarableOp {
    Dup() : DeclarableOp("add", OpKind::kOp, 1, 1, false, 0, 0) {}
    Status validate_and_execute(Context&) override { return Status::ok(); }
  };
  OpRegistry& r = OpRegistry::instance();
  const DeclarableOp* before = r.find("add");
  size_t errors = r.load_errors().size();
  EXPECT_FALSE(r.register_op(std::make_unique<Dup>()));
  EXPECT_EQ(r.find("add"), before);
  ASSERT_EQ(r.load_errors().size(), errors + 1);
  EXPECT_NE(r.load_errors().back().find("'add' is registered twice"), std::string::npos);
  // Leave the registry's error list as the other tests expect it.
  const_cast<std::vector<std::string>&>(r.load_errors()).pop_back();
}

TEST(LegacyTables, NamesAreUniqueWithinEachGroup) {
  for (int g = 0; g < OPS_LEGACY_GROUP_COUNT; ++g) {
    const legacy::LegacyOpInfo* ops = nullptr;
    int n = legacy::list_ops(static_cast<ops_legacy_group_t>(g), &ops);
    EXPECT_GE(n, 1) << legacy::group_name(static_cast<ops_legacy_group_t>(g));
    std::set<std::string> names;
    for (int i = 0; i < n; ++i) {
      EXPECT_TRUE(names.insert(ops[i].name).second) << "duplicate name " << ops[i].name;
      EXPECT_EQ(legacy::find_op(static_cast<ops_legacy_group_t>(g), ops[i].name), ops[i].num);
      EXPECT_STREQ(legacy::op_name(static_cast<ops_legacy_group_t>(g), ops[i].num), ops[i].name);
    }
  }
}
