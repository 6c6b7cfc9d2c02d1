// quantize_int8 (nn/int8.hpp): post-training quantisation of a static model. The model's graph
// (its JSON architecture) is rewritten twice: once with the Dense and Conv2d inputs as outputs,
// to calibrate on data, and once with those layers as their int8 twins.
#include <algorithm>
#include <cmath>
#include <map>

#include <nlohmann/json.hpp>

#include "strata/autograd/grad_mode.hpp"
#include "strata/core/factory.hpp"
#include "strata/nn/int8.hpp"
#include "strata/nn/layers/conv.hpp"
#include "strata/nn/layers/dense.hpp"
#include "strata/ops/elementwise.hpp"

namespace strata::nn {
namespace {

using nlohmann::json;

// One Dense or Conv2d being calibrated: where it sits in the graph and what its input held.
struct Candidate {
  size_t report;  // index in QuantizedModel::layers
  size_t layer;   // index in the graph's "layers"
  int64_t slot;   // the value slot of its input
  double lo = 0, hi = 0;
  std::vector<float> values;  // percentile: a sample of the input's values
  int64_t stride = 1;
};

// The graph's layers that quantize_int8 may replace, with the reason when one cannot be.
std::vector<Candidate> find_candidates(const json& graph, std::vector<LayerQuantization>& report) {
  std::vector<Candidate> out;
  const json& layers = graph.at("layers");
  for (size_t i = 0; i < layers.size(); ++i) {
    const std::string kind = layers[i].value("class", std::string());
    if (kind != "dense" && kind != "conv2d") continue;
    LayerQuantization r{.name = layers[i].value("name", std::string()), .kind = kind};
    std::vector<const json*> calls;
    for (const json& node : graph.at("nodes"))
      if (node.at("layer").get<size_t>() == i) calls.push_back(&node);
    if (calls.size() != 1)
      r.reason = "called " + std::to_string(calls.size()) + " times; an int8 layer has one calibrated input";
    else if (kind == "conv2d" && layers[i]["config"]["options"].value("groups", int64_t{1}) != 1)
      r.reason = "a grouped convolution (groups " + layers[i]["config"]["options"]["groups"].dump() +
                 "); Int8Conv2d has groups 1";
    if (r.reason.empty()) out.push_back({report.size(), i, calls[0]->at("args").at(0).get<int64_t>()});
    report.push_back(std::move(r));
  }
  return out;
}

std::shared_ptr<Model> rebuilt(const json& doc, Model& weights_from) {
  auto model = Model::from_json(doc.dump());
  std::map<std::string, Tensor> source;
  for (auto& [name, t] : weights_from.named_weights()) source.emplace(name, t);
  NoGradGuard no_grad;
  for (auto& [name, t] : model->named_weights()) {
    auto it = source.find(name);
    if (it != source.end() && it->second.shape() == t.shape()) copy_(t, it->second);
  }
  model->eval();
  return model;
}

void record(Candidate& c, const Tensor& x, const QuantizeOptions& options, int64_t batches) {
  const std::vector<float> v = x.contiguous().to_vector<float>();
  for (float f : v) {
    STRATA_CHECK(std::isfinite(f), "quantize_int8: a calibration input of a layer holds ", f);
    c.lo = std::min<double>(c.lo, f);
    c.hi = std::max<double>(c.hi, f);
  }
  if (options.method != Calibration::percentile) return;
  if (c.values.empty())  // an even stride that keeps about max_values_per_layer over all batches
    c.stride = std::max<int64_t>(1, static_cast<int64_t>(v.size()) * batches / options.max_values_per_layer);
  for (size_t i = 0; i < v.size(); i += c.stride) c.values.push_back(v[i]);
}

// The range a candidate's input is quantised to: always holding 0, so that 0.0 (padding, relu's
// zeros) is exact.
std::pair<double, double> calibrated_range(Candidate& c, const QuantizeOptions& options) {
  double lo = c.lo, hi = c.hi;
  if (options.method == Calibration::percentile && !c.values.empty()) {
    auto at = [&](double p) {
      const auto k = static_cast<size_t>(std::llround(p / 100.0 * static_cast<double>(c.values.size() - 1)));
      std::nth_element(c.values.begin(), c.values.begin() + k, c.values.end());
      return static_cast<double>(c.values[k]);
    };
    hi = at(options.percentile);
    lo = at(100.0 - options.percentile);
  }
  return {std::min(lo, 0.0), std::max(hi, 0.0)};
}

// Per-output-channel s8 weights of W [..., out]: w_scale[o] = max |W[:, o]| / 127.
void quantize_weights(const Tensor& W, Tensor& Wq, Tensor& w_scale) {
  const int64_t out = W.shape().back(), rows = W.numel() / out;
  std::vector<float> w = W.contiguous().to_vector<float>(), scale(out, 0.0f);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t o = 0; o < out; ++o) scale[o] = std::max(scale[o], std::abs(w[i * out + o]));
  for (float& s : scale) s = s > 0 ? s / 127.0f : 1.0f;
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t o = 0; o < out; ++o)
      w[i * out + o] = std::clamp(std::nearbyint(w[i * out + o] / scale[o]), -127.0f, 127.0f);
  copy_(Wq, from_vector(w, W.shape()));
  copy_(w_scale, from_vector(scale));
}

}  // namespace

QuantizedModel quantize_int8(Model& float_model, const std::vector<Tensor>& batches, const QuantizeOptions& options) {
  STRATA_CHECK(!batches.empty(), "quantize_int8: no calibration batches were given");
  STRATA_CHECK(options.percentile > 50 && options.percentile <= 100,
               "quantize_int8: percentile must be in (50, 100], got ", options.percentile);
  STRATA_CHECK(options.num_batches >= 0, "quantize_int8: num_batches must be >= 0 (0: all), got ", options.num_batches);
  STRATA_CHECK(options.max_values_per_layer >= 1, "quantize_int8: max_values_per_layer must be >= 1, got ",
               options.max_values_per_layer);
  STRATA_CHECK(float_model.num_inputs() == 1, "quantize_int8: ", float_model.name(), " has ", float_model.num_inputs(),
               " inputs; calibration batches feed a model of one input");
  json doc = json::parse(float_model.to_json());
  json& graph = doc["model"]["config"];
  QuantizedModel result;
  std::vector<Candidate> candidates = find_candidates(graph, result.layers);

  // Calibration: the same graph whose outputs are the candidates' inputs.
  const int64_t used = options.num_batches == 0 ? static_cast<int64_t>(batches.size())
                                                : std::min<int64_t>(options.num_batches, batches.size());
  if (!candidates.empty()) {
    json probe_doc = doc;
    json& outputs = probe_doc["model"]["config"]["outputs"];
    outputs = json::array();
    for (const Candidate& c : candidates) outputs.push_back(c.slot);
    auto probe = rebuilt(probe_doc, float_model);
    NoGradGuard no_grad;
    for (int64_t i = 0; i < used; ++i) {
      const std::vector<Tensor> inputs = probe->run({batches[i]});
      for (size_t k = 0; k < candidates.size(); ++k) {
        LayerQuantization& r = result.layers[candidates[k].report];
        if (inputs[k].dtype() != kFloat32) r.reason = std::string("its input is ") + dtype_name(inputs[k].dtype());
        if (r.reason.empty()) record(candidates[k], inputs[k], options, used);
      }
    }
  }

  // The int8 graph: each calibrated layer becomes its int8 twin, same name and saved fields.
  json& layers = graph["layers"];
  for (Candidate& c : candidates) {
    LayerQuantization& r = result.layers[c.report];
    if (!r.reason.empty()) continue;
    std::tie(r.input_min, r.input_max) = calibrated_range(c, options);
    r.input_scale = r.input_max > r.input_min ? (r.input_max - r.input_min) / 255.0 : 1.0;
    r.input_zero_point = std::clamp<int64_t>(std::llround(-r.input_min / r.input_scale), 0, 255);
    r.quantized = true;
    json& layer = layers[c.layer];
    layer["class"] = "int8_" + r.kind;
    layer["config"]["input_scale"] = r.input_scale;
    layer["config"]["input_zero_point"] = r.input_zero_point;
  }
  result.model = rebuilt(doc, float_model);
  NoGradGuard no_grad;
  for (const LayerQuantization& r : result.layers) {
    if (!r.quantized) continue;
    Layer& from = float_model.get_layer(r.name);
    Layer& to = result.model->get_layer(r.name);
    if (auto* dense = dynamic_cast<Dense*>(&from)) {
      auto& q = dynamic_cast<Int8Dense&>(to);
      quantize_weights(dense->W, q.W, q.w_scale);
      if (q.b.defined()) copy_(q.b, dense->b);
    } else {
      auto& conv = dynamic_cast<Conv2d&>(from);
      auto& q = dynamic_cast<Int8Conv2d&>(to);
      quantize_weights(conv.W, q.W, q.w_scale);
      if (q.b.defined()) copy_(q.b, conv.b);
    }
  }
  return result;
}

std::string QuantizedModel::report() const {
  std::string out;
  for (const LayerQuantization& r : layers) {
    out += r.name + " (" + r.kind + "): ";
    if (r.quantized)
      out += "int8, input range [" + std::to_string(r.input_min) + ", " + std::to_string(r.input_max) + "], step " +
             std::to_string(r.input_scale) + ", zero point " + std::to_string(r.input_zero_point);
    else
      out += "kept float32: " + r.reason;
    out += "\n";
  }
  return out;
}

}  // namespace strata::nn
