// A plan for one set of input shapes (strata/nn/compiled_model.hpp): which steps fuse into
// prepared kernels, which are views or dropped, which run eagerly, and where each planned value
// lives in the arena.
#include <algorithm>
#include <limits>

#include "compile_plan.hpp"
#include "strata/autograd/grad_mode.hpp"
#include "strata/nn/eval_scope.hpp"
#include "strata/nn/layers/conv.hpp"
#include "strata/nn/layers/dense.hpp"
#include "strata/nn/layers/noise.hpp"
#include "strata/nn/layers/norm.hpp"
#include "strata/nn/layers/pool.hpp"
#include "strata/nn/layers/shape.hpp"
#include "strata/ops/elementwise.hpp"

namespace strata::nn::detail {
namespace {

constexpr int kForever = std::numeric_limits<int>::max();

bool is_batch_norm(const Layer& l) {
  return dynamic_cast<const BatchNorm*>(&l) && (l.kind() == "batchnorm" || l.kind() == "batchnorm1d" ||
                                                l.kind() == "batchnorm2d" || l.kind() == "batchnorm3d");
}

// W and b with a following eval-mode BatchNorm folded in: y = (x W + b - mean) * s + beta with
// s = gamma / sqrt(var + eps) per output channel (W's last axis).
void fold_batch_norm(Fusable& f, const BatchNorm& bn) {
  NoGradGuard no_grad;
  const Tensor s = bn.gamma * rsqrt(bn.moving_var + bn.options().epsilon);
  const Tensor shift = f.b.defined() ? f.b - bn.moving_mean : -bn.moving_mean;
  f.w = f.w * s;
  f.b = shift * s + bn.beta;
}

Tensor call_eagerly(Layer& layer, const std::vector<Tensor>& args) {
  NoGradGuard no_grad;
  EvalScope eval(layer);
  return args.size() == 1 ? layer(args[0]) : layer(args);
}

}  // namespace

std::optional<Fusable> fusable(Layer& l) {
  if (auto* c = dynamic_cast<Conv2d*>(&l); c && l.kind() == "conv2d")
    return Fusable{c->W, c->b, c->options().act, &c->options().options};
  if (auto* d = dynamic_cast<Dense*>(&l); d && l.kind() == "dense") return Fusable{d->W, d->b, d->options().act};
  return std::nullopt;
}

int64_t ArenaPlanner::take(int64_t floats) {
  floats = (floats + kAlign - 1) / kAlign * kAlign;
  auto best = free_.end();
  for (auto it = free_.begin(); it != free_.end(); ++it)
    if (it->second >= floats && (best == free_.end() || it->second < best->second)) best = it;
  if (best == free_.end()) {
    size_ += floats;
    return size_ - floats;
  }
  const auto [offset, size] = *best;
  free_.erase(best);
  if (size > floats) free_.push_back({offset + floats, size - floats});
  return offset;
}

void ArenaPlanner::give_back(int64_t offset, int64_t floats) {
  free_.push_back({offset, (floats + kAlign - 1) / kAlign * kAlign});
}

std::vector<Tensor> trace_values(const ModelGraph& graph, const std::vector<Tensor>& inputs) {
  std::vector<Tensor> traced(inputs);
  traced.resize(graph.num_slots());
  for (size_t k = 0; k < graph.steps.size(); ++k) {
    std::vector<Tensor> args;
    for (int a : graph.steps[k].args) args.push_back(traced[a]);
    traced[graph.out_slot(k)] = call_eagerly(*graph.steps[k].layer, args);
  }
  return traced;
}

Plan make_plan(const ModelGraph& graph, const std::vector<Tensor>& inputs, const CompileOptions& options) {
  const int n = graph.num_slots();
  const std::vector<Tensor> traced = trace_values(graph, inputs);  // every slot's shape and dtype
  Plan plan;
  for (const Tensor& x : inputs) plan.input_shapes.push_back(x.shape());
  plan.values.resize(n);
  plan.planned.assign(n, false);
  plan.source.resize(n);
  for (int s = 0; s < n; ++s) plan.source[s] = s;

  // Dropout is the identity in eval mode: its output is its input.
  std::vector<bool> dropped(graph.steps.size(), false);
  for (size_t k = 0; options.fuse && k < graph.steps.size(); ++k) {
    const GraphStep& st = graph.steps[k];
    if (dynamic_cast<Dropout*>(st.layer) && st.layer->kind() == "dropout" && st.args.size() == 1) {
      dropped[k] = true;
      plan.source[graph.out_slot(k)] = plan.source[st.args[0]];
      plan.lines.push_back("dropped " + st.layer->name());
    }
  }
  std::vector<int> uses(n, 0);
  std::vector<bool> is_output(n, false);
  for (size_t k = 0; k < graph.steps.size(); ++k)
    if (!dropped[k])
      for (int a : graph.steps[k].args) ++uses[plan.source[a]];
  for (int o : graph.outputs) is_output[plan.source[o]] = true;

  // A step made a prepared op: its output gets a planned buffer.
  auto use_prepared = [&](PlanStep& step, std::string line) {
    STRATA_CHECK(step.op->output_shape() == traced[step.out].shape(), "compile: model '", graph.name, "', ", line,
                 ": the prepared op makes ", step.op->output_shape().str(), ", the layers made ",
                 traced[step.out].shape().str());
    step.kind = PlanStep::Kind::fused;
    plan.planned[step.out] = true;
    plan.lines.push_back(std::move(line));
  };
  std::vector<bool> absorbed(graph.steps.size(), false);
  for (size_t k = 0; k < graph.steps.size(); ++k) {
    if (dropped[k] || absorbed[k]) continue;
    const GraphStep& st = graph.steps[k];
    PlanStep step{PlanStep::Kind::eager, std::nullopt, st.layer, {}, graph.out_slot(k)};
    for (int a : st.args) step.args.push_back(plan.source[a]);
    std::optional<Fusable> f = options.fuse && st.args.size() == 1 ? fusable(*st.layer) : std::nullopt;
    if (f && traced[step.args[0]].dtype() == kFloat32 && ops::fusable_activation(f->act.name()) &&
        (f->act.name().empty() == !f->act)) {
      std::string line = "fused " + st.layer->name();
      // A BatchNorm that alone reads this output, with no activation between, folds in.
      for (size_t j = k + 1;
           options.fold_batch_norm && !f->act && uses[step.out] == 1 && !is_output[step.out] && j < graph.steps.size();
           ++j) {
        const GraphStep& next = graph.steps[j];
        if (dropped[j] || next.args.size() != 1 || plan.source[next.args[0]] != step.out) continue;
        if (is_batch_norm(*next.layer)) {
          const auto& bn = static_cast<const BatchNorm&>(*next.layer);
          if (ops::fusable_activation(bn.options().act.name()) &&
              (bn.options().act.name().empty() == !bn.options().act)) {
            fold_batch_norm(*f, bn);
            f->act = bn.options().act;
            absorbed[j] = true;
            step.out = graph.out_slot(j);
            line += " + " + next.layer->name();
          }
        }
        break;
      }
      const Shape& in = traced[step.args[0]].shape();
      // A snapshot of the weights: the plan keeps its own.
      step.op =
          f->conv
              ? ops::prepare_conv2d(in, f->w.clone(), f->b.defined() ? f->b.clone() : Tensor(), *f->conv, f->act.name())
              : ops::prepare_linear(in, f->w.clone(), f->b.defined() ? f->b.clone() : Tensor(), f->act.name());
      use_prepared(step, line + (f->act ? " (" + f->act.name() + ")" : ""));
    } else if (auto* pool = dynamic_cast<Pool2d*>(st.layer);
               pool && options.fuse && st.args.size() == 1 && traced[step.args[0]].dtype() == kFloat32 &&
               (st.layer->kind() == "maxpool2d" || st.layer->kind() == "meanpool2d")) {
      step.op = ops::prepare_pool2d(traced[step.args[0]].shape(), pool->options().filter_size, pool->options().options,
                                    st.layer->kind() == "maxpool2d");
      use_prepared(step, "fused " + st.layer->name());
    } else if (options.fuse && st.args.size() == 1 && plan.planned[step.args[0]] &&
               ((dynamic_cast<Flatten*>(st.layer) && st.layer->kind() == "flatten") ||
                (dynamic_cast<Reshape*>(st.layer) && st.layer->kind() == "reshape"))) {
      step.kind = PlanStep::Kind::view;  // of its argument's buffer, made below
      plan.planned[step.out] = true;
      plan.lines.push_back("view " + st.layer->name());
    } else {
      plan.lines.push_back("eager " + st.layer->name());
    }
    plan.steps.push_back(std::move(step));
  }

  // Liveness: the last step reading each value. A value an eager step or a view reads lives as
  // long as that step's output (which may be a view of it); the outputs live on.
  std::vector<int> last_use(n, -1);
  for (size_t p = 0; p < plan.steps.size(); ++p)
    for (int a : plan.steps[p].args) last_use[a] = std::max(last_use[a], static_cast<int>(p));
  for (int o : graph.outputs) last_use[plan.source[o]] = kForever;
  for (size_t p = plan.steps.size(); p-- > 0;) {
    const PlanStep& st = plan.steps[p];
    if (st.kind == PlanStep::Kind::fused) continue;
    for (int a : st.args) last_use[a] = std::max(last_use[a], std::max(last_use[st.out], static_cast<int>(p)));
  }
  // Buffers: each fused step's output gets one, freed after its last reader.
  ArenaPlanner arena;
  std::vector<int64_t> offset(n, -1);
  std::vector<std::pair<int, int>> live;  // (last use, slot)
  for (size_t p = 0; p < plan.steps.size(); ++p) {
    for (auto it = live.begin(); it != live.end();) {
      if (it->first < static_cast<int>(p)) {
        arena.give_back(offset[it->second], traced[it->second].numel());
        it = live.erase(it);
      } else {
        ++it;
      }
    }
    const PlanStep& st = plan.steps[p];
    if (st.kind != PlanStep::Kind::fused) continue;
    offset[st.out] = arena.take(traced[st.out].numel());
    live.push_back({std::max(last_use[st.out], static_cast<int>(p)), st.out});
  }
  plan.arena = Tensor::empty({std::max<int64_t>(arena.size(), 1)}, kFloat32);
  for (const PlanStep& st : plan.steps) {
    if (st.kind == PlanStep::Kind::fused)
      plan.values[st.out] = plan.arena.narrow(0, offset[st.out], traced[st.out].numel()).view(traced[st.out].shape());
    else if (st.kind == PlanStep::Kind::view)
      plan.values[st.out] = plan.values[st.args[0]].view(traced[st.out].shape());
  }
  return plan;
}

std::vector<Tensor> run_plan(Plan& plan, const ModelGraph& graph, const std::vector<Tensor>& inputs) {
  for (size_t i = 0; i < inputs.size(); ++i) plan.values[i] = inputs[i];
  std::vector<Tensor> args;
  for (const PlanStep& st : plan.steps) {
    if (st.kind == PlanStep::Kind::fused) {
      const Tensor& x = plan.values[st.args[0]];
      st.op->run(x.is_contiguous() ? x : x.contiguous(), plan.values[st.out]);
    } else if (st.kind == PlanStep::Kind::eager) {
      args.clear();
      for (int a : st.args) args.push_back(plan.values[a]);
      plan.values[st.out] = call_eagerly(*st.layer, args);
    }
  }
  std::vector<Tensor> outs;
  for (int o : graph.outputs) outs.push_back(plan.values[plan.source[o]]);
  for (size_t s = 0; s < plan.values.size(); ++s)
    if (!plan.planned[s]) plan.values[s] = Tensor();  // eager values and inputs are not kept
  return outs;
}

}  // namespace strata::nn::detail
