#include "libops/ops/registry.h"

#include <algorithm>
#include <cstring>

#include "libops/core/log.h"
#include "libops/ops/declarable_op.h"

namespace libops {

OpRegistry& OpRegistry::instance() {
  static OpRegistry registry;
  return registry;
}

bool OpRegistry::register_op(std::unique_ptr<DeclarableOp> op) {
  const OpDescriptor& d = op->descriptor();
  auto it = by_hash_.find(d.hash);
  if (it != by_hash_.end()) {
    std::string why = std::strcmp(it->second->name(), d.name) == 0
                          ? str_format("op '%s' is registered twice; the second registration was refused", d.name)
                          : str_format("ops '%s' and '%s' have the same name hash; '%s' was refused",
                                       it->second->name(), d.name, d.name);
    load_errors_.push_back(why);
    log_error("%s", why.c_str());
    return false;
  }
  by_hash_.emplace(d.hash, op.get());
  ops_.push_back(std::move(op));
  return true;
}

void OpRegistry::add(std::unique_ptr<DeclarableOp> op, const char* aliases) {
  std::string problem = op->finish_declaration();
  if (!problem.empty()) {
    refuse(std::move(problem));
    return;
  }
  const std::string name = op->name();
  if (!register_op(std::move(op))) return;
  for (const char* p = aliases; p != nullptr && *p != '\0';) {
    const char* end = std::strchr(p, ' ');
    const size_t n = end ? static_cast<size_t>(end - p) : std::strlen(p);
    if (n > 0) register_alias(std::string(p, n).c_str(), name.c_str());
    p += n + (end ? 1 : 0);
  }
}

void OpRegistry::refuse(std::string why) {
  log_error("%s", why.c_str());
  load_errors_.push_back(std::move(why));
}

void OpRegistry::register_alias(const char* alias, const char* target) {
  if (!aliases_.emplace(alias, target).second) {
    load_errors_.push_back(str_format("alias '%s' is declared twice", alias));
    log_error("alias '%s' is declared twice", alias);
  }
}

DeclarableOp* OpRegistry::find_hash(uint64_t hash) const {
  auto it = by_hash_.find(hash);
  return it == by_hash_.end() ? nullptr : it->second;
}

DeclarableOp* OpRegistry::find(std::string_view name) const {
  DeclarableOp* op = find_hash(op_name_hash(name));
  if (op && name == op->name()) return op;
  if (aliases_.empty()) return nullptr;
  auto a = aliases_.find(std::string(name));
  if (a == aliases_.end()) return nullptr;
  op = find_hash(op_name_hash(a->second.c_str()));
  return (op && a->second == op->name()) ? op : nullptr;
}

std::vector<const DeclarableOp*> OpRegistry::list() const {
  std::vector<const DeclarableOp*> v;
  v.reserve(ops_.size());
  for (const auto& op : ops_) v.push_back(op.get());
  std::sort(v.begin(), v.end(),
            [](const DeclarableOp* a, const DeclarableOp* b) { return std::strcmp(a->name(), b->name()) < 0; });
  return v;
}

std::vector<std::string> OpRegistry::aliases_of(std::string_view name) const {
  std::vector<std::string> v;
  for (const auto& [alias, target] : aliases_)
    if (target == name) v.push_back(alias);
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace libops
