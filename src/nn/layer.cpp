#include "strata/nn/layer.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <sstream>
#include <utility>

#include "call_mutex.hpp"
#include "weight_budget.hpp"

#include "strata/autograd/node.hpp"
#include "strata/nn/shared_weights.hpp"
#include "strata/ops/elementwise.hpp"

namespace strata::nn {
namespace {

// Layers being called on this thread, innermost last: the parent of a call is the layer
// whose forward is running.
thread_local std::vector<Layer*> call_stack;

// Guards every layer's links (children_, parents_), for layers shared by models that threads
// run at once. Held only briefly, never while taking another lock.
std::mutex& links_mutex() {
  static std::mutex mu;
  return mu;
}

// Per kind, as TensorLayer's (and Keras's) layer-name counters. Function-local statics: a layer
// may be constructed during another file's static initialisation.
struct NameCounters {
  std::mutex mu;
  std::map<std::string, int> next;
};
NameCounters& name_counters() {
  static NameCounters counters;
  return counters;
}

std::string unique_name(const std::string& kind) {
  NameCounters& c = name_counters();
  std::lock_guard<std::mutex> lock(c.mu);
  return kind + "_" + std::to_string(++c.next[kind]);
}

// Moves a weight's data to `device` in place (its TensorImpl stays), so that optimizers and other
// holders of the same tensor see it moved.
void move_in_place(const Tensor& w, Device device) {
  if (w.device() == device) return;
  const Tensor grad = w.grad();
  const Tensor moved = w.detach().to(device);  // detached: the move records no history
  TensorImpl& impl = *w.impl();
  impl.storage = moved.impl()->storage;
  impl.strides = moved.strides();
  impl.offset = 0;
  if (grad.defined()) move_in_place(grad, device);
}

}  // namespace

std::recursive_mutex& call_mutex(const Layer& layer) { return layer.call_mutex_; }

void reset_default_names() {
  NameCounters& c = name_counters();
  std::lock_guard<std::mutex> lock(c.mu);
  c.next.clear();
}

Layer::Layer(std::string kind, std::string name)
    : kind_(std::move(kind)), name_(name.empty() ? unique_name(kind_) : std::move(name)) {}

Layer::Layer(Layer&& other) noexcept
    : kind_(std::move(other.kind_)),
      name_(std::move(other.name_)),
      built_(other.built_),
      training_(other.training_),
      weights_(std::exchange(other.weights_, {})),
      children_(std::exchange(other.children_, {})),
      parents_(std::exchange(other.parents_, {})),
      last_output_shape_(other.last_output_shape_) {
  std::lock_guard<std::mutex> lock(links_mutex());
  for (Layer* p : parents_) std::replace(p->children_.begin(), p->children_.end(), &other, this);
  for (Layer* c : children_) std::replace(c->parents_.begin(), c->parents_.end(), &other, this);
}

Layer::~Layer() {
  std::lock_guard<std::mutex> lock(links_mutex());
  for (Layer* p : parents_) std::erase(p->children_, this);
  for (Layer* c : children_) std::erase(c->parents_, this);
}

UnparentedCalls::UnparentedCalls() : saved_(std::exchange(call_stack, {})) {}
UnparentedCalls::~UnparentedCalls() { call_stack = std::move(saved_); }

std::shared_ptr<void> alias_weight(const Tensor& alias, const Tensor& master) {
  STRATA_CHECK(alias.defined() && master.defined() && alias.shape() == master.shape() &&
                   alias.dtype() == master.dtype() && master.is_leaf() && alias.is_leaf(),
               "alias_weight: the alias (", alias.defined() ? alias.shape().str() : "undefined", ") and the master (",
               master.defined() ? master.shape().str() : "undefined", ") must be leaves of one shape and dtype");
  TensorImpl& impl = *alias.impl();
  impl.storage = master.impl()->storage;
  impl.strides = master.strides();
  impl.offset = master.offset();
  autograd::AutogradMeta& meta = autograd::ensure_autograd_meta(alias);
  meta.requires_grad = master.requires_grad();
  meta.grad = Tensor();
  if (!master.requires_grad()) {
    meta.grad_accumulator.reset();
    return nullptr;
  }
  // The gradient edge of a leaf is its accumulator (made on first use, then reused while alive):
  // the alias's is master's, so what reaches the alias is added into master's .grad().
  std::shared_ptr<autograd::Node> accumulator = autograd::gradient_edge(master).node;
  meta.grad_accumulator = accumulator;
  return accumulator;
}

void Layer::adopt(Layer* child) {
  std::lock_guard<std::mutex> lock(links_mutex());
  if (std::find(children_.begin(), children_.end(), child) != children_.end()) return;
  children_.push_back(child);
  child->parents_.push_back(this);
}

template <class Body>
Tensor Layer::call(Body&& body) {
  // Held through the lazy build, the bookkeeping and forward: a layer in several models that
  // threads run at once builds once and runs one call at a time, whatever the nesting. A thread
  // holds the locks of the layers on its call stack, taken parent first; they are recursive, as
  // a call may reach its own layer again through a function (a Lambda's).
  std::lock_guard<std::recursive_mutex> lock(call_mutex(*this));
  if (!call_stack.empty()) {
    Layer* parent = call_stack.back();
    STRATA_CHECK(parent != this, name_, ": a layer cannot call itself");
    const bool new_child = [&] {
      std::lock_guard<std::mutex> links_lock(links_mutex());
      const auto& siblings = parent->children_;
      return std::find(siblings.begin(), siblings.end(), this) == siblings.end();
    }();
    if (new_child) {  // a child found by calling it lives where its parent does
      parent->adopt(this);
      to(parent->device_);
    }
    training_ = parent->training_;  // train()/eval() on a model reaches the layers it calls
  }
  call_stack.push_back(this);
  struct Pop {
    ~Pop() { call_stack.pop_back(); }
  } pop;
  Tensor y = body();
  last_output_shape_ = y.shape();
  return y;
}

Tensor Layer::operator()(const Tensor& x) {
  STRATA_CHECK(x.defined(), name_, ": called with an undefined tensor");
  return call([&] {
    if (!built_) {
      build(x.shape());
      built_ = true;
    }
    return forward(x);
  });
}

Tensor Layer::operator()(const std::vector<Tensor>& xs) {
  for (const Tensor& x : xs) STRATA_CHECK(x.defined(), name_, ": called with an undefined tensor");
  return call([&] {
    if (!built_) {
      std::vector<Shape> shapes;
      for (const Tensor& x : xs) shapes.push_back(x.shape());
      build_many(shapes);
      built_ = true;
    }
    return forward_many(xs);
  });
}

void Layer::build_many(const std::vector<Shape>& shapes) {
  expect(shapes.size() == 1, "takes one input, got " + std::to_string(shapes.size()));
  build(shapes[0]);
}

Tensor Layer::forward_many(const std::vector<Tensor>& xs) {
  expect(xs.size() == 1, "takes one input, got " + std::to_string(xs.size()));
  return forward(xs[0]);
}

Layer& Layer::to(Device device) {
  device_ = device;
  for (Weight& w : weights_) move_in_place(w.tensor, device);
  for (Layer* c : children_) c->to(device);
  return *this;
}

Layer& Layer::train(bool on) {
  training_ = on;
  for (Layer* c : children_) c->train(on);
  return *this;
}

Tensor Layer::add_weight(const std::string& name, const Shape& shape, const Initializer& init, bool trainable) {
  // Charged before anything is allocated, as the dtype the weight is announced to have (float32,
  // or a Lambda constant's own); an initializer that makes another is charged the difference.
  const DType announced = detail::WeightDType::current();
  detail::charge_weight(shape, announced, name_ + "/" + name);
  Tensor w = init(shape, nullptr);
  detail::recharge_weight(shape, announced, w.dtype(), name_ + "/" + name);
  move_in_place(w, device_);
  STRATA_CHECK(w.shape() == shape, name_, ": initializer for ", name, " made shape ", w.shape().str(), " not ",
               shape.str());
  if (trainable) w.requires_grad_();
  weights_.push_back({name, w, trainable});
  return w;
}

void Layer::expect(bool condition, const std::string& what) const {
  if (!condition) throw Error(name_ + " (" + kind_ + "): " + what);
}

void Layer::collect(std::vector<std::pair<std::string, Tensor>>& out, int trainable) const {
  for (const Weight& w : weights_)
    if (trainable < 0 || w.trainable == (trainable == 1)) {
      bool seen = std::any_of(out.begin(), out.end(), [&](auto& p) { return p.second.is_same(w.tensor); });
      if (!seen) out.emplace_back(name_ + "/" + w.name, w.tensor);
    }
  for (const Layer* c : children_) c->collect(out, trainable);
}

std::vector<std::pair<std::string, Tensor>> Layer::named_weights() const {
  std::vector<std::pair<std::string, Tensor>> out;
  collect(out, -1);
  return out;
}

static std::vector<Tensor> tensors_of(const std::vector<std::pair<std::string, Tensor>>& named) {
  std::vector<Tensor> out;
  for (auto& [n, t] : named) out.push_back(t);
  return out;
}

std::vector<Tensor> Layer::all_weights() const { return tensors_of(named_weights()); }
std::vector<Tensor> Layer::trainable_weights() const {
  std::vector<std::pair<std::string, Tensor>> out;
  collect(out, 1);
  return tensors_of(out);
}
std::vector<Tensor> Layer::nontrainable_weights() const {
  std::vector<std::pair<std::string, Tensor>> out;
  collect(out, 0);
  return tensors_of(out);
}

Layer* Layer::find(const std::string& name) {
  if (name_ == name) return this;
  for (Layer* c : children_)
    if (Layer* hit = c->find(name)) return hit;
  return nullptr;
}

Layer& Layer::get_layer(const std::string& name) {
  Layer* hit = find(name);
  expect(hit != nullptr, "get_layer: no layer named '" + name + "'");
  return *hit;
}

Layer& Layer::get_layer(size_t index) {
  expect(index < children_.size(), "get_layer: index " + std::to_string(index) + " is out of range (" +
                                       std::to_string(children_.size()) + " layers)");
  return *children_[index];
}

int64_t Layer::count_params() const {
  int64_t n = 0;
  for (const Tensor& t : all_weights()) n += t.numel();
  return n;
}

void Layer::summary_rows(std::string& out, int depth) const {
  int64_t own = 0;
  for (const Weight& w : weights_) own += w.tensor.numel();
  char line[160];
  std::string label = std::string(2 * depth, ' ') + name_ + " (" + kind_ + ")";
  std::snprintf(line, sizeof line, "%-36s %-22s %12lld\n", label.c_str(),
                built_ ? last_output_shape_.str().c_str() : "(not built)", static_cast<long long>(own));
  out += line;
  for (const Layer* c : children_) c->summary_rows(out, depth + 1);
}

std::string Layer::summary() const {
  std::string out = "Layer (type)                         Output shape              Params\n";
  out += std::string(72, '=') + "\n";
  summary_rows(out, 0);
  out += std::string(72, '=') + "\n";
  out += "Total params: " + std::to_string(count_params()) + " (trainable " +
         std::to_string([&] {
           int64_t n = 0;
           for (auto& t : trainable_weights()) n += t.numel();
           return n;
         }()) +
         ")\n";
  return out;
}

}  // namespace strata::nn
