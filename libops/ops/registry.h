// OpRegistry: every declarable op, found by name, alias or 64-bit name hash.
// Ops register themselves from their own file at load time (OpRegistrar);
// there is no central list. A second op with a taken name is refused and
// recorded in load_errors().
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "libops/core/api.h"

LIBOPS_API_BEGIN

namespace libops {

class DeclarableOp;

class OpRegistry {
 public:
  static OpRegistry& instance();

  // Takes ownership. Returns false (and records why) for a duplicate name or hash.
  bool register_op(std::unique_ptr<DeclarableOp> op);
  // Finishes the op's declaration, then registers it and its aliases
  // ("a b c": space-separated), or refuses it for a bad declaration. How
  // every op registers: OpRegistrar for macro-declared ops, the tables of
  // op families (elementwise, reductions) for theirs.
  void add(std::unique_ptr<DeclarableOp> op, const char* aliases = "");
  void register_alias(const char* alias, const char* target);
  // Records why an op was not registered (a bad declaration).
  void refuse(std::string why);

  // nullptr when unknown. Aliases resolve to their op.
  DeclarableOp* find(std::string_view name) const;
  DeclarableOp* find_hash(uint64_t hash) const;

  // All ops sorted by name.
  std::vector<const DeclarableOp*> list() const;
  // Aliases pointing at `name`.
  std::vector<std::string> aliases_of(std::string_view name) const;
  const std::vector<std::string>& load_errors() const { return load_errors_; }
  int size() const { return static_cast<int>(by_hash_.size()); }

 private:
  OpRegistry() = default;
  std::vector<std::unique_ptr<DeclarableOp>> ops_;
  std::unordered_map<uint64_t, DeclarableOp*> by_hash_;
  std::unordered_map<std::string, std::string> aliases_;  // alias -> op name
  std::vector<std::string> load_errors_;
};

template <typename Op>
struct OpRegistrar {
  OpRegistrar() { OpRegistry::instance().add(std::make_unique<Op>()); }
};

struct OpAliasRegistrar {
  OpAliasRegistrar(const char* alias, const char* target) { OpRegistry::instance().register_alias(alias, target); }
};

}  // namespace libops

LIBOPS_API_END
