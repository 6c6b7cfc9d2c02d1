// onnx::ShapePolymorphicModel: a static model imported per set of input sizes, every one on the
// first one's weights (strata/onnx/shape_polymorphic.hpp, docs/interop.md).
#include "strata/onnx/shape_polymorphic.hpp"

#include <set>
#include <utility>

#include "onnx_parsed.hpp"
#include "strata/core/error.hpp"
#include "strata/nn/shared_weights.hpp"

namespace strata::onnx {

namespace {

// "height=7, width=5" for errors.
std::string polymorphic_sizes_str(const std::map<std::string, int64_t>& sizes) {
  if (sizes.empty()) return "the file's sizes";
  std::string out;
  for (const auto& [name, size] : sizes) out += (out.empty() ? "" : ", ") + name + "=" + std::to_string(size);
  return out;
}

// The outputs of the call that ShapePolymorphicModel::run makes on this thread, all of them.
thread_local std::vector<Tensor>* polymorphic_outputs = nullptr;

}  // namespace

ShapePolymorphicModel::ShapePolymorphicModel(const std::string& bytes, const std::string& what, AnySizeOptions options)
    : nn::Layer("onnx_any_size"), what_(what), options_(options), parsed_(detail::parse_onnx(bytes, what)) {
  STRATA_CHECK(options_.max_cached_shapes >= 2, what_, ": max_cached_shapes is ", options_.max_cached_shapes,
               " (at least 2: the first model, whose weights the others use, and the one running)");
  ::onnx::GraphProto& graph = parsed_->graph();
  std::set<std::string> initializers;
  for (const auto& init : graph.initializer()) initializers.insert(init.name());
  for (auto& in : *graph.mutable_input()) {
    if (initializers.count(in.name())) continue;  // older files list initializers as inputs too
    InputInfo info{in.name(), {}, false};
    if (in.type().has_tensor_type() && in.type().tensor_type().has_shape()) {
      info.has_shape = true;
      auto& dims = *in.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim();
      for (int i = 0; i < dims.size(); ++i) {
        auto& d = dims[i];
        AxisInfo axis;
        if (d.has_dim_value() && d.dim_value() > 0) {
          axis.size = d.dim_value();
        } else if (d.has_dim_param() && !d.dim_param().empty()) {
          axis.name = d.dim_param();
        } else if (i > 0 && !d.has_dim_value()) {  // an unnamed symbolic axis: named, so that it gets a size
          axis.name = in.name() + ":" + std::to_string(i);
          d.set_dim_param(axis.name);
        }  // else the batch, or a size the import refuses
        info.axes.push_back(axis);
      }
    }
    inputs_.push_back(std::move(info));
  }
  eval();  // an ONNX graph is an inference, as load_onnx's models are; train() for training
}

ShapePolymorphicModel::~ShapePolymorphicModel() = default;

size_t ShapePolymorphicModel::num_outputs() const { return static_cast<size_t>(parsed_->graph().output_size()); }

std::map<std::string, int64_t> ShapePolymorphicModel::sizes_of(const std::vector<Shape>& shapes) const {
  std::string names;
  for (const InputInfo& in : inputs_) names += (names.empty() ? "'" : ", '") + in.name + "'";
  STRATA_CHECK(shapes.size() == inputs_.size(), what_, ": expects ", inputs_.size(), " inputs (", names, "), got ",
               shapes.size());
  std::map<std::string, std::pair<int64_t, std::string>> seen;  // name -> its size, where it was first seen
  std::set<std::string> past_batch;
  for (size_t i = 0; i < inputs_.size(); ++i) {
    const InputInfo& in = inputs_[i];
    const Shape& shape = shapes[i];
    if (!in.has_shape) continue;  // the import refuses it
    STRATA_CHECK(shape.size() == static_cast<int>(in.axes.size()), what_, ": input '", in.name, "' has rank ",
                 in.axes.size(), " in the file, got shape ", shape.str());
    for (size_t a = 0; a < in.axes.size(); ++a) {
      const AxisInfo& axis = in.axes[a];
      const std::string where = "input '" + in.name + "' axis " + std::to_string(a);
      const int64_t got = shape[static_cast<int>(a)];
      if (axis.size > 0) {
        STRATA_CHECK(got == axis.size, what_, ": ", where, " has size ", axis.size, " in the file, got ", got,
                     " (shape ", shape.str(), ")");
      } else if (!axis.name.empty()) {
        const auto [it, fresh] = seen.emplace(axis.name, std::make_pair(got, where));
        STRATA_CHECK(fresh || it->second.first == got, what_, ": ", it->second.second, " and ", where, " are both '",
                     axis.name, "' but have sizes ", it->second.first, " and ", got);
        if (a > 0) past_batch.insert(axis.name);
      }
    }
  }
  std::map<std::string, int64_t> sizes;
  for (const std::string& name : past_batch) sizes[name] = seen.at(name).first;
  return sizes;
}

std::shared_ptr<nn::Model> ShapePolymorphicModel::import_at(const std::map<std::string, int64_t>& sizes) const {
  // Declaring a model calls its layers on probes: they must not become children of this layer.
  nn::UnparentedCalls unparented;
  try {
    return detail::import_parsed(*parsed_, what_, sizes);
  } catch (const Error& e) {
    throw Error(what_ + ": importing at " + polymorphic_sizes_str(sizes) + ": " + e.what());
  }
}

void ShapePolymorphicModel::build_many(const std::vector<Shape>& input_shapes) {
  Instance first{sizes_of(input_shapes), nullptr, {}, {}};
  first.model = import_at(first.sizes);
  adopt(first.model.get());  // its weights are this layer's
  first.model->to(device());
  instances_.push_back(std::move(first));
}

ShapePolymorphicModel::Instance& ShapePolymorphicModel::instance_for(const std::map<std::string, int64_t>& sizes) {
  STRATA_CHECK(!instances_.empty(), what_, ": run before it was built");
  if (instances_.front().sizes == sizes) return instances_.front();
  const auto after_first = std::next(instances_.begin());
  for (auto it = after_first; it != instances_.end(); ++it)
    if (it->sizes == sizes) {
      instances_.splice(after_first, instances_, it);  // the most recently used first
      return *it;
    }
  Instance inst{sizes, import_at(sizes), {}, {}};
  std::map<std::string, Tensor> first_weights;
  for (auto& [name, w] : instances_.front().model->named_weights()) first_weights.emplace(name, w);
  for (auto& [name, w] : inst.model->named_weights()) {
    // A weight of another shape is a constant the import computed from the sizes: its own.
    const auto m = first_weights.find(name);
    if (m != first_weights.end() && m->second.shape() == w.shape() && m->second.dtype() == w.dtype())
      inst.shared.emplace_back(w, m->second);
  }
  while (instances_.size() >= options_.max_cached_shapes) instances_.pop_back();
  return *instances_.insert(std::next(instances_.begin()), std::move(inst));
}

std::shared_ptr<nn::Model> ShapePolymorphicModel::instance(const std::map<std::string, int64_t>& sizes) const {
  for (const Instance& inst : instances_)
    if (inst.sizes == sizes) return inst.model;
  return nullptr;
}

std::vector<Tensor> ShapePolymorphicModel::run_instance(const std::vector<Tensor>& xs) {
  std::vector<Shape> shapes;
  for (const Tensor& x : xs) shapes.push_back(x.shape());
  Instance& inst = instance_for(sizes_of(shapes));
  // Again before every run: the first model's storage may have moved (to()) or been replaced.
  inst.links.clear();
  for (const auto& [w, first] : inst.shared) inst.links.push_back(nn::alias_weight(w, first));
  nn::Model& model = *inst.model;
  if (model.device() != device()) model.to(device());
  if (model.training() != training()) model.train(training());
  nn::UnparentedCalls unparented;  // the first model is this layer's child already; the others never are
  return model.run(xs);
}

Tensor ShapePolymorphicModel::forward_many(const std::vector<Tensor>& xs) {
  std::vector<Tensor>* all = std::exchange(polymorphic_outputs, nullptr);
  std::vector<Tensor> outputs = run_instance(xs);
  if (all != nullptr) *all = outputs;
  return outputs.at(0);
}

std::vector<Tensor> ShapePolymorphicModel::run(const std::vector<Tensor>& inputs) {
  std::vector<Tensor> all;
  std::vector<Tensor>* const saved = std::exchange(polymorphic_outputs, &all);
  struct Restore {
    std::vector<Tensor>* saved;
    ~Restore() { polymorphic_outputs = saved; }
  } restore{saved};
  (*this)(inputs);  // builds on the first call, as any layer
  return all;
}

std::shared_ptr<ShapePolymorphicModel> from_onnx_any_size(const std::string& bytes, const std::string& what,
                                                          AnySizeOptions options) {
  return std::make_shared<ShapePolymorphicModel>(bytes, what, options);
}

std::shared_ptr<ShapePolymorphicModel> load_onnx_any_size(const std::string& path, AnySizeOptions options) {
  return from_onnx_any_size(detail::read_onnx_file(path), path, options);
}

}  // namespace strata::onnx
