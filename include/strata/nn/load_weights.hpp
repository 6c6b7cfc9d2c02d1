// Assigning loaded weights (io::load_npz, load_npz_list, load_keras_weights, ...) to a
// layer or model, by order or by name as TensorLayer's assign_weights and
// load_and_assign_npz_dict do. The layer must be built (called once) so its weights exist.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "strata/nn/layer.hpp"

namespace strata::nn {

// weights[i] -> layer.all_weights()[i] (values copied in place, converted to the weight's
// dtype). Throws strata::Error naming the layer and the weight when the counts or a shape differ.
void assign_weights(Layer& layer, const std::vector<Tensor>& weights);
// The same, ignoring the names (io::NamedTensors in file order).
void assign_weights(Layer& layer, const std::vector<std::pair<std::string, Tensor>>& weights);

// Each named tensor to the weight of the same name in layer.named_weights() ("dense_1/W"); a
// trailing TensorFlow ":0" is ignored. A name the layer lacks is an error unless `skip_unknown`
// (TensorLayer's skip). Returns how many weights were assigned; weights the file lacks keep
// their values.
size_t assign_weights_by_name(Layer& layer, const std::vector<std::pair<std::string, Tensor>>& weights,
                              bool skip_unknown = false);

// Weights-only files, for dynamic Modules (whose architecture is their C++ class) or any
// layer: a safetensors file of named_weights(), loaded back by name into a built layer.
// load_weights returns how many weights it assigned; a weight the file has and the layer lacks
// is an error unless skip_unknown.
void save_weights(const Layer& layer, const std::string& path);
size_t load_weights(Layer& layer, const std::string& path, bool skip_unknown = false);

}  // namespace strata::nn
