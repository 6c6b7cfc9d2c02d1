// nn::compile and CompiledModel (strata/nn/compiled_model.hpp): the graph read once, a plan per
// set of input shapes (compile_plan.cpp), kept up to max_cached_shapes.
#include "strata/nn/compiled_model.hpp"

#include <deque>
#include <mutex>

#include "compile_plan.hpp"

namespace strata::nn {

struct CompiledModel::Impl {
  detail::ModelGraph graph;
  CompileOptions options;
  std::deque<detail::Plan> plans;  // newest last
  mutable std::mutex mu;

  detail::Plan* find(const std::vector<Tensor>& inputs) {
    for (detail::Plan& p : plans) {
      bool same = true;
      for (size_t i = 0; same && i < inputs.size(); ++i) same = p.input_shapes[i] == inputs[i].shape();
      if (same) return &p;
    }
    return nullptr;
  }
  // The plan for these inputs' shapes, made (from these inputs) when there is none.
  detail::Plan& plan_for(const std::vector<Tensor>& inputs) {
    if (detail::Plan* p = find(inputs)) return *p;
    detail::Plan made = detail::make_plan(graph, inputs, options);
    if (plans.size() >= std::max<size_t>(options.max_cached_shapes, 1)) plans.pop_front();
    plans.push_back(std::move(made));
    return plans.back();
  }
  // Zeros of these shapes stand for inputs when a plan is asked for by shapes alone.
  detail::Plan& plan_for(const std::vector<Shape>& shapes) {
    std::vector<Tensor> zeros_in;
    for (const Shape& s : shapes) zeros_in.push_back(zeros(s));
    detail::check_inputs(graph, zeros_in, "compiled model");
    return plan_for(zeros_in);
  }
};

CompiledModel::CompiledModel(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CompiledModel::CompiledModel(CompiledModel&&) noexcept = default;
CompiledModel& CompiledModel::operator=(CompiledModel&&) noexcept = default;
CompiledModel::~CompiledModel() = default;

std::vector<Tensor> CompiledModel::run(const std::vector<Tensor>& inputs) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  STRATA_CHECK(inputs.size() == impl_->graph.input_shapes.size(), "compiled model '", impl_->graph.name, "': expects ",
               impl_->graph.input_shapes.size(), " inputs, got ", inputs.size());
  detail::Plan* plan = impl_->find(inputs);
  if (!plan) {
    detail::check_inputs(impl_->graph, inputs, "compiled model");
    plan = &impl_->plan_for(inputs);
  }
  return detail::run_plan(*plan, impl_->graph, inputs);
}

Tensor CompiledModel::run(const Tensor& x) { return run(std::vector<Tensor>{x})[0]; }

std::string CompiledModel::describe(const std::vector<Shape>& input_shapes) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  std::string out;
  for (const std::string& line : impl_->plan_for(input_shapes).lines) out += line + "\n";
  return out;
}

size_t CompiledModel::arena_bytes(const std::vector<Shape>& input_shapes) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->plan_for(input_shapes).arena.nbytes();
}

size_t CompiledModel::cached_plans() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->plans.size();
}

CompiledModel compile(const Model& model, CompileOptions options) {
  auto impl = std::make_unique<CompiledModel::Impl>();
  impl->graph = detail::read_graph(model);
  impl->options = options;
  return CompiledModel(std::move(impl));
}

}  // namespace strata::nn
