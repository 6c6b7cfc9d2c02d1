#include "strata/serve/served_version.hpp"

#include <nlohmann/json.hpp>

#include "strata/autograd/grad_mode.hpp"
#include "strata/core/factory.hpp"
#include "strata/core/intra_op_threads.hpp"
#include "strata/lifecycle/hub_models.hpp"
#include "strata/nn/layer_config.hpp"

namespace strata::serve {
namespace {

// The inputs as the model declared them (nn::Input's name, shape and dtype), from its config:
// the model keeps them private and the config is their public, stable form.
std::vector<TensorSignature> input_signatures(const nn::Model& model, const std::string& what) {
  nlohmann::json config;
  model.graph_config(config);
  std::vector<TensorSignature> inputs;
  for (const auto& in : config.at("inputs")) {
    TensorSignature s{in.value("name", std::string("input")),
                      in.contains("dtype") ? nn::dtype_from(in["dtype"]) : kFloat32,
                      Shape(in.at("shape").get<std::vector<int64_t>>())};
    STRATA_CHECK(s.shape.size() >= 1 && s.shape[0] == -1, what, ": input '", s.name, "' has shape ", s.shape.str(),
                 "; a served model's inputs need a batch axis (-1 first)");
    inputs.push_back(std::move(s));
  }
  return inputs;
}

std::vector<Tensor> batch_one(const std::vector<TensorSignature>& inputs, Device device) {
  std::vector<Tensor> probe;
  for (const auto& in : inputs) {
    Shape shape = in.shape;
    shape[0] = 1;
    probe.push_back(device == kMeta ? Tensor::empty(shape, in.dtype, kMeta) : zeros(shape, in.dtype));
  }
  return probe;
}

// The outputs' dtypes and shapes, from a shape-only (meta) batch-1 run: no arithmetic, no data;
// a real batch of zeros for models with a layer that has no shape-only path.
std::vector<TensorSignature> output_signatures(nn::Model& model, const std::vector<TensorSignature>& inputs) {
  NoGradGuard no_grad;
  std::vector<Tensor> results;
  try {
    results = model.run(batch_one(inputs, kMeta));
  } catch (const NoDataError&) {
    results = model.run(batch_one(inputs, kCPU));
  }
  std::vector<TensorSignature> outputs;
  for (const Tensor& out : results) {
    Shape shape = out.shape();
    if (shape.size() > 0) shape[0] = -1;
    outputs.push_back({"output_" + std::to_string(outputs.size()), out.dtype(), shape});
  }
  return outputs;
}

}  // namespace

std::shared_ptr<const ServedVersion> load_served_version(hub::Hub& hub, const std::string& name, int64_t version,
                                                         int replicas) {
  // On one thread: an OpenMP team made here (the main thread, the poller) would outlive the load
  // and push the batch workers' teams past the cores (strata/serve/dynamic_batcher.hpp).
  const IntraOpThreadLimit one_thread(1);
  const hub::LoadedModel loaded = hub.load_model(name, version);
  auto served = std::make_shared<ServedVersion>();
  served->name = name;
  served->version = loaded.info.version;
  const std::string what = "model '" + name + "' version " + std::to_string(loaded.info.version);
  for (int i = 0; i < replicas; ++i) {
    auto model = lifecycle::static_model(loaded);
    model->eval();
    served->replicas.push_back(std::move(model));
  }
  served->inputs = input_signatures(*served->replicas.front(), what);
  served->outputs = output_signatures(*served->replicas.front(), served->inputs);
  return served;
}

}  // namespace strata::serve
