#include "strata/train/process_group.hpp"

#include "strata/nn/layer.hpp"

namespace strata::train {

const ProcessGroup* process_group_of(const nn::Layer& model) { return dynamic_cast<const ProcessGroup*>(&model); }
ProcessGroup* process_group_of(nn::Layer& model) { return dynamic_cast<ProcessGroup*>(&model); }

}  // namespace strata::train
