#include "strata/nn/functions.hpp"

#include <map>
#include <mutex>

#include "strata/core/error.hpp"

namespace strata::nn {
namespace {

struct Registry {
  std::mutex mu;
  std::map<std::string, NamedFn> fns;
};
Registry& registry() {
  static Registry r;
  return r;
}

}  // namespace

void register_function(const std::string& name, NamedFn fn) {
  STRATA_CHECK(!name.empty() && fn, "register_function: needs a name and a function, got '", name, "'");
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  r.fns[name] = std::move(fn);
}

void register_function(const std::string& name, std::function<Tensor(const Tensor&)> fn) {
  STRATA_CHECK(static_cast<bool>(fn), "register_function: '", name, "' has no function");
  register_function(name, NamedFn([f = std::move(fn), name](const std::vector<Tensor>& xs, const std::vector<Tensor>&) {
                      STRATA_CHECK(xs.size() == 1, "function '", name, "' takes one input, got ", xs.size());
                      return f(xs[0]);
                    }));
}

void register_function(const std::string& name, std::function<Tensor(const Tensor&, const std::vector<Tensor>&)> fn) {
  STRATA_CHECK(static_cast<bool>(fn), "register_function: '", name, "' has no function");
  register_function(name, NamedFn([f = std::move(fn), name](const std::vector<Tensor>& xs, const std::vector<Tensor>& w) {
                      STRATA_CHECK(xs.size() == 1, "function '", name, "' takes one input, got ", xs.size());
                      return f(xs[0], w);
                    }));
}

bool has_function(const std::string& name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  return r.fns.count(name) > 0;
}

NamedFn find_function(const std::string& name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.fns.find(name);
  if (it != r.fns.end()) return it->second;
  std::string known;
  for (auto& [k, v] : r.fns) known += (known.empty() ? "" : ", ") + k;
  throw Error("no function named '" + name + "' is registered (registered: " + (known.empty() ? "none" : known) +
              "); call nn::register_function(\"" + name + "\", fn) before loading");
}

}  // namespace strata::nn
