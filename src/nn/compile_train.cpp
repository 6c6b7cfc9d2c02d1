// nn::compile_training and CompiledTrainStep (strata/nn/compiled_training.hpp): a training plan
// per set of input shapes. Forward values of the planned steps live in one arena, all kept to
// the backward (the convolutions and Dense layers read their input and output there, the pools
// their winners); gradients live in a second arena reused by liveness over the backward's order
// (a value's gradient lives from the backward of its last reader to that of its producer; a
// Flatten's or Reshape's input and output share one). Eager steps keep their own autograd graph
// from forward to backward.
#include <deque>
#include <functional>
#include <mutex>

#include "compile_plan.hpp"
#include "ops/op_geometry.hpp"
#include "strata/autograd/grad_mode.hpp"
#include "strata/dispatch/prepared_train.hpp"
#include "strata/nn/compiled_training.hpp"
#include "strata/nn/layers/pool.hpp"
#include "strata/nn/layers/shape.hpp"
#include "strata/ops/elementwise.hpp"

namespace strata::nn {
namespace detail {
namespace {

const char* const kWho = "compiled training step";

std::optional<dispatch::FusedActivation> train_activation(const Activation& act) {
  const std::string& name = act.name();
  if (name.empty() != !act) return std::nullopt;  // a function without a name the kernels know
  if (name.empty()) return dispatch::FusedActivation::none;
  if (name == "relu") return dispatch::FusedActivation::relu;
  if (name == "tanh") return dispatch::FusedActivation::tanh;
  if (name == "sigmoid") return dispatch::FusedActivation::sigmoid;
  return std::nullopt;
}

struct TrainStep {
  enum class Kind { prepared, view, eager } kind = Kind::eager;
  std::unique_ptr<dispatch::PreparedTrainKernel> kernel;  // prepared
  // A Conv2d's or Dense's kernel, made once the plan knows whether its reader does the
  // activation's backward (a 2x2 max pool after a relu): make(act_backward).
  std::function<std::unique_ptr<dispatch::PreparedTrainKernel>(bool)> make;
  dispatch::FusedActivation act = dispatch::FusedActivation::none;
  bool act_backward = true;
  Layer* layer = nullptr;
  Tensor* w = nullptr;  // the layer's own weights, read at every step (null: a pool)
  Tensor* b = nullptr;
  Tensor dw_buf, db_buf;  // the weights' gradients where their .grad is undefined
  std::vector<int> args;
  int out = 0;
  std::vector<Tensor> leaves;  // eager: the last forward's inputs (leaves) and output
  Tensor output;
};

}  // namespace

struct TrainPlan {
  std::vector<Shape> input_shapes;
  std::vector<Shape> shapes;  // per slot
  Tensor values_arena, grads_arena;
  std::vector<Tensor> values, grads;  // per slot: arena views where planned
  std::vector<bool> planned, needs_grad, has_grad;
  std::vector<int> grad_root;
  std::vector<TrainStep> steps;
  std::vector<std::string> lines;
  bool forward_done = false;
};

namespace {

// A Conv2d or Dense as a prepared training kernel, if it can be one.
bool plan_weighted(TrainStep& step, Layer& layer, const Tensor& x, const Tensor& y) {
  std::optional<Fusable> f = fusable(layer);
  if (!f || x.dtype() != kFloat32 || y.dtype() != kFloat32 || !f->w.defined() || f->w.dtype() != kFloat32 ||
      f->w.device() != kCPU || (f->b.defined() && f->b.dtype() != kFloat32))
    return false;
  const std::optional<dispatch::FusedActivation> act = train_activation(f->act);
  if (!act) return false;
  if (f->conv) {
    auto& conv = static_cast<Conv2d&>(layer);
    const dispatch::ConvGeometry g =
        ops::conv_geometry(Tensor::empty(x.shape(), kFloat32, kMeta), f->w, f->b, *f->conv, 2, "compile_training");
    if (g.win.activation_shape(g.win.out, g.out_channels) != y.shape()) return false;
    const bool bias = f->b.defined();
    step.make = [g, bias, act = *act](bool act_backward) {
      return dispatch::prepare_conv_train.on(kCPU, g, bias, act, act_backward);
    };
    step.w = &conv.W;
    step.b = &conv.b;
  } else {
    auto& dense = static_cast<Dense&>(layer);
    const int64_t in = f->w.size(0), out = f->w.size(1);
    if (x.dim() < 1 || x.size(-1) != in || x.numel() == 0 || y.numel() != x.numel() / in * out) return false;
    const int64_t rows = x.numel() / in;
    const bool bias = f->b.defined();
    step.make = [rows, in, out, bias, act = *act](bool act_backward) {
      return dispatch::prepare_linear_train.on(kCPU, rows, in, out, bias, act, act_backward);
    };
    step.w = &dense.W;
    step.b = &dense.b;
  }
  step.act = *act;
  step.dw_buf = Tensor::empty(f->w.shape(), kFloat32);
  if (f->b.defined()) step.db_buf = Tensor::empty(f->b.shape(), kFloat32);
  step.kind = TrainStep::Kind::prepared;
  return true;
}

// `relu_before`: its input is a relu's output that only it reads; its backward does the relu's.
bool plan_pool(TrainStep& step, Layer& layer, const Tensor& x, bool relu_before) {
  auto* pool = dynamic_cast<Pool2d*>(&layer);
  const bool max = layer.kind() == "maxpool2d";
  if (!pool || (!max && layer.kind() != "meanpool2d") || x.dtype() != kFloat32 || x.device() != kCPU) return false;
  const dispatch::PoolGeometry g =
      ops::pool_geometry(Tensor::empty(x.shape(), kFloat32, kMeta), pool->options().filter_size,
                         pool->options().options, 2, max, "compile_training");
  step.kernel = dispatch::prepare_pool_train.on(kCPU, g, relu_before);
  if (!step.kernel) return false;
  step.kind = TrainStep::Kind::prepared;
  return true;
}

bool is_train_view_layer(const Layer& l) {
  return (dynamic_cast<const Flatten*>(&l) && l.kind() == "flatten") ||
         (dynamic_cast<const Reshape*>(&l) && l.kind() == "reshape");
}

bool step_has_trainable(const TrainStep& st) {
  if (st.kind == TrainStep::Kind::prepared)
    return st.w && ((st.w->defined() && st.w->requires_grad()) || (st.b->defined() && st.b->requires_grad()));
  if (st.kind == TrainStep::Kind::eager) return !st.layer->trainable_weights().empty();
  return false;
}

}  // namespace

TrainPlan make_train_plan(const ModelGraph& graph, const std::vector<Tensor>& inputs, const CompileOptions& options) {
  const int n = graph.num_slots();
  const int n_in = static_cast<int>(inputs.size());
  const std::vector<Tensor> traced = trace_values(graph, inputs);
  TrainPlan plan;
  for (const Tensor& x : inputs) plan.input_shapes.push_back(x.shape());
  for (const Tensor& v : traced) plan.shapes.push_back(v.shape());
  plan.values.resize(n);
  plan.grads.resize(n);
  plan.planned.assign(n, false);
  plan.needs_grad.assign(n, false);
  plan.has_grad.assign(n, false);
  std::vector<int> readers(n, 0), producer(n, -1);
  std::vector<bool> is_output(n, false);
  for (const GraphStep& gs : graph.steps)
    for (int a : gs.args) ++readers[a];
  for (int o : graph.outputs) is_output[o] = true;
  for (size_t k = 0; k < graph.steps.size(); ++k) {
    const GraphStep& gs = graph.steps[k];
    TrainStep step;
    step.layer = gs.layer;
    step.args = gs.args;
    step.out = graph.out_slot(k);
    producer[step.out] = static_cast<int>(k);
    // A pool reading a relu's output, and nothing else reading it: the pool's backward does the relu's.
    const int a0 = gs.args[0];
    TrainStep* before = producer[a0] >= 0 ? &plan.steps[producer[a0]] : nullptr;
    const bool relu_before =
        before && before->make && before->act == dispatch::FusedActivation::relu && readers[a0] == 1 && !is_output[a0];
    const bool one_arg = gs.args.size() == 1 && options.fuse;
    const Tensor& x = traced[gs.args[0]];
    const Tensor& y = traced[step.out];
    std::string line;
    if (one_arg && (plan_weighted(step, *gs.layer, x, y) || plan_pool(step, *gs.layer, x, relu_before))) {
      plan.planned[step.out] = true;
      if (relu_before && step.kernel) before->act_backward = false;
      std::optional<Fusable> f = fusable(*gs.layer);
      line = "fused " + gs.layer->name() + (f && f->act ? " (" + f->act.name() + ")" : "");
      if (relu_before && step.kernel) line += " + the relu backward of " + before->layer->name();
    } else if (one_arg && plan.planned[gs.args[0]] && is_train_view_layer(*gs.layer)) {
      step.kind = TrainStep::Kind::view;
      plan.planned[step.out] = true;
      line = "view " + gs.layer->name();
    } else {
      line = "eager " + gs.layer->name();
    }
    bool needs = step_has_trainable(step);
    for (int a : gs.args) needs = needs || plan.needs_grad[a];
    plan.needs_grad[step.out] = needs;
    plan.lines.push_back(std::move(line));
    plan.steps.push_back(std::move(step));
  }
  for (TrainStep& st : plan.steps)
    if (st.make) st.kernel = st.make(st.act_backward);

  // Forward values: every planned step's output has its own buffer (the backward reads them).
  int64_t values_size = 0;
  std::vector<int64_t> value_offset(n, -1);
  for (const TrainStep& st : plan.steps)
    if (st.kind == TrainStep::Kind::prepared) {
      value_offset[st.out] = values_size;
      values_size += (traced[st.out].numel() + 15) / 16 * 16;
    }
  plan.values_arena = Tensor::empty({std::max<int64_t>(values_size, 1)}, kFloat32);
  for (const TrainStep& st : plan.steps) {
    if (st.kind == TrainStep::Kind::prepared)
      plan.values[st.out] =
          plan.values_arena.narrow(0, value_offset[st.out], traced[st.out].numel()).view(traced[st.out].shape());
    else if (st.kind == TrainStep::Kind::view)
      plan.values[st.out] = plan.values[st.args[0]].view(traced[st.out].shape());
  }

  // Gradients. A view that alone reads its input shares its gradient's buffer.
  plan.grad_root.resize(n);
  for (int s = 0; s < n; ++s) plan.grad_root[s] = s;
  for (size_t p = plan.steps.size(); p-- > 0;) {
    const TrainStep& st = plan.steps[p];
    if (st.kind == TrainStep::Kind::view && readers[st.args[0]] == 1 && !is_output[st.args[0]])
      plan.grad_root[st.args[0]] = plan.grad_root[st.out];
  }
  // Backward time: step p's backward runs at P - 1 - p; the outputs' gradients come at -1.
  const int P = static_cast<int>(plan.steps.size());
  std::vector<int> start(n, P), end(n, -2);
  for (int s = n_in; s < n; ++s) {
    if (!plan.needs_grad[s] || (readers[s] == 0 && !is_output[s])) continue;
    int birth = is_output[s] ? -1 : P;
    for (int p = 0; p < P; ++p)
      for (int a : plan.steps[p].args)
        if (a == s) birth = std::min(birth, P - 1 - p);
    const int death = P - 1 - producer[s];
    const int r = plan.grad_root[s];
    start[r] = std::min(start[r], birth);
    end[r] = std::max(end[r], death);
  }
  ArenaPlanner arena;
  std::vector<int64_t> grad_offset(n, -1);
  std::vector<int> live;
  for (int t = -1; t < P; ++t) {
    for (auto it = live.begin(); it != live.end();) {
      if (end[*it] < t) {
        arena.give_back(grad_offset[*it], traced[*it].numel());
        it = live.erase(it);
      } else {
        ++it;
      }
    }
    for (int r = n_in; r < n; ++r)
      if (plan.grad_root[r] == r && end[r] >= -1 && start[r] == t) {
        grad_offset[r] = arena.take(traced[r].numel());
        live.push_back(r);
      }
  }
  plan.grads_arena = Tensor::empty({std::max<int64_t>(arena.size(), 1)}, kFloat32);
  for (int s = n_in; s < n; ++s) {
    const int r = plan.grad_root[s];
    if (grad_offset[r] >= 0)
      plan.grads[s] = plan.grads_arena.narrow(0, grad_offset[r], traced[s].numel()).view(traced[s].shape());
  }
  return plan;
}

namespace {

// A weight's gradient to write: its .grad where it has one of its own shape (added to), else
// the plan's buffer (written, then made its .grad). Undefined when it is not trained.
struct WeightGradTarget {
  Tensor t;
  bool add = false;
  bool adopt = false;
};
WeightGradTarget weight_grad_target(const Tensor* w, const Tensor& buf) {
  if (!w || !w->defined() || !w->requires_grad()) return {};
  const Tensor g = w->grad();
  if (g.defined() && g.dtype() == kFloat32 && g.is_contiguous() && g.shape() == w->shape() && g.device() == kCPU)
    return {g, true, false};
  return {buf, false, true};
}
void adopt_weight_grad(Tensor* w, const WeightGradTarget& t) {
  if (!t.t.defined() || !t.adopt) return;
  const Tensor g = w->grad();
  NoGradGuard no_grad;
  w->set_grad(g.defined() ? g + t.t : t.t);
}

// grads[s] = g (the first gradient to reach s) or grads[s] += g.
void give_slot_grad(TrainPlan& plan, int s, const Tensor& g) {
  NoGradGuard no_grad;
  Tensor& to = plan.grads[s];
  if (plan.has_grad[s])
    add_(to, g.reshape(to.shape()));
  else
    copy_(to, g.reshape(to.shape()));
  plan.has_grad[s] = true;
}

void check_train_weights(const TrainStep& st, const std::string& model) {
  if (!st.w) return;
  STRATA_CHECK(st.w->defined() && st.w->dtype() == kFloat32 && st.w->is_contiguous() && st.w->device() == kCPU &&
                   st.dw_buf.shape() == st.w->shape() && st.b->defined() == st.db_buf.defined() &&
                   (!st.b->defined() ||
                    (st.b->dtype() == kFloat32 && st.b->is_contiguous() && st.b->shape() == st.db_buf.shape())),
               kWho, " '", model, "': the weights of '", st.layer->name(),
               "' changed shape, dtype, device or layout since the plan was made: compile the model again");
}

}  // namespace

std::vector<Tensor> run_train_forward(TrainPlan& plan, const ModelGraph& graph, const std::vector<Tensor>& inputs) {
  for (size_t i = 0; i < inputs.size(); ++i)
    plan.values[i] = inputs[i].is_contiguous() ? inputs[i] : inputs[i].contiguous();
  for (TrainStep& st : plan.steps) {
    if (st.kind == TrainStep::Kind::prepared) {
      check_train_weights(st, graph.name);
      Tensor& x = plan.values[st.args[0]];
      if (!x.is_contiguous()) x = x.contiguous();
      st.kernel->forward(x, st.w ? *st.w : Tensor(), st.b ? *st.b : Tensor(), plan.values[st.out]);
    } else if (st.kind == TrainStep::Kind::eager) {
      GradModeGuard grad_on(true);
      st.leaves.clear();
      for (int a : st.args) {
        Tensor leaf = plan.values[a].detach();
        if (plan.needs_grad[a]) leaf.requires_grad_(true);
        st.leaves.push_back(std::move(leaf));
      }
      st.output = st.leaves.size() == 1 ? (*st.layer)(st.leaves[0]) : (*st.layer)(st.leaves);
      plan.values[st.out] = st.output;
    }
  }
  plan.forward_done = true;
  std::vector<Tensor> outs;
  for (int o : graph.outputs) outs.push_back(plan.values[o].detach());
  return outs;
}

void run_train_backward(TrainPlan& plan, const ModelGraph& graph, const std::vector<Tensor>& output_grads) {
  STRATA_CHECK(plan.forward_done, kWho, " '", graph.name,
               "': backward needs a forward first (one backward per forward)");
  STRATA_CHECK(output_grads.size() == graph.outputs.size(), kWho, " '", graph.name, "': expects ", graph.outputs.size(),
               " output gradients, got ", output_grads.size());
  plan.forward_done = false;
  std::fill(plan.has_grad.begin(), plan.has_grad.end(), false);
  for (size_t i = 0; i < output_grads.size(); ++i) {
    const int o = graph.outputs[i];
    const Tensor& g = output_grads[i];
    if (!g.defined() || !plan.needs_grad[o]) continue;
    STRATA_CHECK(g.shape() == plan.shapes[o], kWho, " '", graph.name, "': the gradient of output ", i,
                 " should have shape ", plan.shapes[o].str(), ", got ", g.shape().str());
    give_slot_grad(plan, o, g.dtype() == kFloat32 ? g : g.to(kFloat32));
  }
  std::vector<Tensor> scratch;
  for (size_t p = plan.steps.size(); p-- > 0;) {
    TrainStep& st = plan.steps[p];
    const int out = st.out;
    if (!plan.has_grad[out]) {
      st.leaves.clear();
      st.output = Tensor();
      continue;
    }
    if (st.kind == TrainStep::Kind::prepared) {
      const int a = st.args[0];
      Tensor dx;
      bool add_dx = false;
      if (plan.needs_grad[a]) {
        add_dx = plan.has_grad[a];
        dx = add_dx ? Tensor::empty(plan.shapes[a], kFloat32) : plan.grads[a];
      }
      const WeightGradTarget dw = weight_grad_target(st.w, st.dw_buf), db = weight_grad_target(st.b, st.db_buf);
      st.kernel->backward(plan.values[a], plan.values[out], plan.grads[out], st.w ? *st.w : Tensor(), dx, dw.t, db.t,
                          dw.add, db.add);
      adopt_weight_grad(st.w, dw);
      adopt_weight_grad(st.b, db);
      if (add_dx)
        give_slot_grad(plan, a, dx);
      else if (dx.defined())
        plan.has_grad[a] = true;
    } else if (st.kind == TrainStep::Kind::view) {
      const int a = st.args[0];
      if (!plan.needs_grad[a]) continue;
      if (plan.grad_root[a] == plan.grad_root[out])
        plan.has_grad[a] = true;
      else
        give_slot_grad(plan, a, plan.grads[out]);
    } else {
      if (st.output.defined() && st.output.requires_grad()) {
        st.output.backward(plan.grads[out].dtype() == st.output.dtype() ? plan.grads[out]
                                                                        : plan.grads[out].to(st.output.dtype()));
        for (size_t i = 0; i < st.args.size(); ++i) {
          const Tensor g = st.leaves[i].grad();
          if (plan.needs_grad[st.args[i]] && g.defined()) give_slot_grad(plan, st.args[i], g);
        }
      }
      st.leaves.clear();
      st.output = Tensor();
    }
  }
  for (size_t s = 0; s < plan.values.size(); ++s)
    if (!plan.planned[s]) plan.values[s] = Tensor();
}

}  // namespace detail

struct CompiledTrainStep::Impl {
  detail::ModelGraph graph;
  CompileOptions options;
  std::deque<detail::TrainPlan> plans;  // newest last
  detail::TrainPlan* last = nullptr;    // the plan of the last forward
  mutable std::mutex mu;

  detail::TrainPlan& plan_for(const std::vector<Tensor>& inputs) {
    for (detail::TrainPlan& p : plans) {
      bool same = true;
      for (size_t i = 0; same && i < inputs.size(); ++i) same = p.input_shapes[i] == inputs[i].shape();
      if (same) return p;
    }
    detail::check_inputs(graph, inputs, detail::kWho);
    detail::TrainPlan made = detail::make_train_plan(graph, inputs, options);
    if (plans.size() >= std::max<size_t>(options.max_cached_shapes, 1)) {
      if (last == &plans.front()) last = nullptr;
      plans.pop_front();
    }
    plans.push_back(std::move(made));
    return plans.back();
  }
  detail::TrainPlan& plan_for(const std::vector<Shape>& shapes) {
    std::vector<Tensor> zeros_in;
    for (const Shape& s : shapes) zeros_in.push_back(zeros(s));
    detail::check_inputs(graph, zeros_in, detail::kWho);
    return plan_for(zeros_in);
  }
};

CompiledTrainStep::CompiledTrainStep(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CompiledTrainStep::CompiledTrainStep(CompiledTrainStep&&) noexcept = default;
CompiledTrainStep& CompiledTrainStep::operator=(CompiledTrainStep&&) noexcept = default;
CompiledTrainStep::~CompiledTrainStep() = default;

std::vector<Tensor> CompiledTrainStep::forward(const std::vector<Tensor>& inputs) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  STRATA_CHECK(inputs.size() == impl_->graph.input_shapes.size(), detail::kWho, " '", impl_->graph.name, "': expects ",
               impl_->graph.input_shapes.size(), " inputs, got ", inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i)
    STRATA_CHECK(inputs[i].defined(), detail::kWho, " '", impl_->graph.name, "': input ", i, " is an undefined tensor");
  detail::TrainPlan& plan = impl_->plan_for(inputs);
  if (impl_->last && impl_->last != &plan) impl_->last->forward_done = false;
  impl_->last = &plan;
  return detail::run_train_forward(plan, impl_->graph, inputs);
}

Tensor CompiledTrainStep::forward(const Tensor& x) { return forward(std::vector<Tensor>{x})[0]; }

void CompiledTrainStep::backward(const std::vector<Tensor>& output_grads) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  STRATA_CHECK(impl_->last, detail::kWho, " '", impl_->graph.name, "': backward needs a forward first");
  detail::run_train_backward(*impl_->last, impl_->graph, output_grads);
}

void CompiledTrainStep::backward(const Tensor& output_grad) {
  std::vector<Tensor> grads(impl_->graph.outputs.size());
  grads[0] = output_grad;
  backward(grads);
}

std::string CompiledTrainStep::describe(const std::vector<Shape>& input_shapes) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  std::string out;
  for (const std::string& line : impl_->plan_for(input_shapes).lines) out += line + "\n";
  return out;
}

size_t CompiledTrainStep::arena_bytes(const std::vector<Shape>& input_shapes) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  const detail::TrainPlan& p = impl_->plan_for(input_shapes);
  return p.values_arena.nbytes() + p.grads_arena.nbytes();
}

size_t CompiledTrainStep::cached_plans() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->plans.size();
}

CompiledTrainStep compile_training(const Model& model, CompileOptions options) {
  auto impl = std::make_unique<CompiledTrainStep::Impl>();
  impl->graph = detail::read_graph(model);
  impl->options = options;
  return CompiledTrainStep(std::move(impl));
}

}  // namespace strata::nn
