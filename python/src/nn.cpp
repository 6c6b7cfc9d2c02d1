// strata.nn from C++: the Layer type every registered layer class builds (from its declared
// options, nn/option_table.hpp: the Python classes in strata/nn.py take their keyword arguments
// from layer_classes()), Module for layers written in Python, symbols and static models, weights
// and whole-model files.
#include <array>
#include <atomic>
#include <cstdint>
#include <optional>

#include "bindings.hpp"
#include "strata/autograd/grad_mode.hpp"
#include "strata/core/limits.hpp"
#include "strata/interop/keras_model.hpp"
#include "strata/interop/weight_files.hpp"
#include "strata/io/npz.hpp"
#include "strata/nn/functions.hpp"
#include "strata/nn/layer.hpp"
#include "strata/nn/layer_config.hpp"
#include "strata/nn/layers/recurrent.hpp"
#include "strata/nn/load_weights.hpp"
#include "strata/nn/model.hpp"
#include "strata/nn/option_table.hpp"
#include "strata/onnx/onnx.hpp"
#include "strata/onnx/shape_polymorphic.hpp"
#include "strata/ops/elementwise.hpp"

namespace strata::python {

namespace {
thread_local int layer_call_depth = 0;
}  // namespace

LayerCallGuard::LayerCallGuard(const void* layer) {
  if (layer_call_depth++ > 0) return;
  static std::array<std::mutex, 256> locks;
  held_ = &locks[(reinterpret_cast<uintptr_t>(layer) >> 4) % locks.size()];
  held_->lock();
}

LayerCallGuard::~LayerCallGuard() {
  --layer_call_depth;
  if (held_ != nullptr) held_->unlock();
}

namespace {

using LayerPtr = std::shared_ptr<nn::Layer>;

// A symbol of a static model and the layers that made it: a layer called on a symbol is held by
// reference in the graph, so the Model built from the symbols keeps them (below).
struct PySymbol {
  nn::Symbol symbol;
  std::vector<LayerPtr> layers;
};

// A model and the layers its graph refers to, freed together.
struct ModelWithLayers {
  std::vector<LayerPtr> layers;
  std::optional<nn::Model> model;
};

// A layer whose forward is written in Python (strata.nn.Module's subclasses).
class PyModule : public nn::Module {
 public:
  using nn::Module::Module;
  Tensor forward(const Tensor& x) override { PYBIND11_OVERRIDE_PURE(Tensor, nn::Module, forward, x); }
  Tensor forward_many(const std::vector<Tensor>& xs) override {
    py::gil_scoped_acquire gil;
    py::function f = py::get_override(static_cast<const nn::Module*>(this), "forward");
    STRATA_CHECK(static_cast<bool>(f), name(), ": a Module needs a forward method");
    py::tuple args(xs.size());
    for (size_t i = 0; i < xs.size(); ++i) args[i] = py::cast(xs[i]);
    return f(*args).cast<Tensor>();
  }
  void build_many(const std::vector<Shape>&) override {}
};

// Registered functions live as long as the process (the registry is never emptied): the Python
// object is kept for ever rather than released after the interpreter has gone at exit.
void register_python_function(const std::string& name, py::object fn) {
  auto* kept = new py::object(std::move(fn));  // deliberately never freed, see above
  nn::register_function(name, [kept](const Tensor& x) {
    py::gil_scoped_acquire gil;
    return as_tensor((*kept)(x));
  });
}

// A Python callable (tensor -> tensor) registered under a name of its own, so that a Lambda (or
// an activation) can refer to it. A model holding one is saved with that name, which only this
// process knows: register the function by the same name (strata.nn.register_function) to load it.
std::string python_function_name(py::handle value) {
  STRATA_CHECK(PyCallable_Check(value.ptr()), "expected a function name or a callable");
  static std::atomic<int> counter{0};
  const std::string name = "python_fn_" + std::to_string(++counter);
  register_python_function(name, py::reinterpret_borrow<py::object>(value));
  return name;
}

// An activation given from Python: a name, a strata function (which has one) or any callable,
// registered under a name of its own so the layer can refer to it.
nlohmann::json activation_json(py::handle value) {
  if (value.is_none()) return "";
  if (py::isinstance<py::str>(value)) return value.cast<std::string>();
  // strata.relu and the like: their names are activation names.
  if (py::hasattr(value, "__name__") && py::hasattr(value, "__module__") &&
      py::str(value.attr("__module__")).cast<std::string>().rfind("strata", 0) == 0)
    return value.attr("__name__").cast<std::string>();
  STRATA_CHECK(PyCallable_Check(value.ptr()), "an activation must be a name, a strata function or a callable");
  return python_function_name(value);
}

py::object option_error() { return py::module_::import("strata._strata").attr("OptionError"); }

LayerPtr make_layer(const std::string& kind, const std::string& name, const py::dict& options) {
  const nn::OptionTable* table = nn::layer_options(kind);
  if (table == nullptr) throw py::value_error("no layer class '" + kind + "' with declared options");
  nlohmann::json config = nlohmann::json::object();
  const std::string owner = nn::layer_class_name(kind) + (name.empty() ? "" : " '" + name + "'");
  try {
    for (auto [key, value] : options) {
      const std::string field = key.cast<std::string>();
      const nn::OptionField* f = table->find(field);
      try {
        if (kind == "lambda" && field == "function" && !py::isinstance<py::str>(value)) {
          config[field] = python_function_name(value);
          continue;
        }
        config[field] = f != nullptr && f->type == "activation" ? activation_json(value) : to_json(value, "a value");
      } catch (const Error& e) {
        throw Error("\"" + field + "\": " + e.what());
      }
    }
    return nn::layer_from_code_options(kind, name, config);
  } catch (const LimitError&) {
    throw;
  } catch (const Error& e) {
    PyErr_SetString(option_error().ptr(), (owner + ": " + e.what()).c_str());
    throw py::error_already_set();
  }
}

// A layer held by Python: from its shared_ptr where Python owns one, else (a layer returned by
// reference, as get_layer's) an owner-less pointer whose owner keeps it alive.
LayerPtr layer_of(const py::object& self) {
  try {
    return self.cast<LayerPtr>();
  } catch (const py::cast_error&) {
    return LayerPtr(LayerPtr{}, &self.cast<nn::Layer&>());
  }
}

py::object call_layer(const py::object& self, py::args args) {
  const LayerPtr layer = layer_of(self);
  if (args.size() == 1 && py::isinstance<PySymbol>(args[0])) {
    PySymbol in = args[0].cast<PySymbol>();
    PySymbol out{nn::Symbol(nullptr), in.layers};
    {
      py::gil_scoped_release release;  // it builds the layer under the layer's lock (nn::Layer)
      out.symbol = (*layer)(in.symbol);
    }
    out.layers.push_back(layer);
    return py::cast(out);
  }
  if (args.size() == 1 && py::isinstance<py::list>(args[0]) && py::len(args[0]) > 0 &&
      py::isinstance<PySymbol>(args[0].cast<py::list>()[0])) {
    std::vector<nn::Symbol> symbols;
    PySymbol out{nn::Symbol(nullptr), {layer}};
    for (auto s : args[0]) {
      PySymbol in = s.cast<PySymbol>();
      symbols.push_back(in.symbol);
      out.layers.insert(out.layers.end(), in.layers.begin(), in.layers.end());
    }
    {
      py::gil_scoped_release release;
      out.symbol = (*layer)(symbols);
    }
    return py::cast(out);
  }
  std::vector<Tensor> xs;
  if (args.size() == 1 && (py::isinstance<py::list>(args[0]) || py::isinstance<py::tuple>(args[0]))) {
    for (auto x : args[0]) xs.push_back(as_tensor(x));
  } else {
    for (auto x : args) xs.push_back(as_tensor(x));
  }
  STRATA_CHECK(!xs.empty(), layer->name(), ": called with no inputs");
  // A static model of several outputs gives them all, as a list (Keras's model(x) does).
  if (auto* model = dynamic_cast<nn::Model*>(layer.get()); model != nullptr && model->num_outputs() > 1) {
    std::vector<Tensor> ys;
    {
      py::gil_scoped_release release;
      LayerCallGuard guard(layer.get());
      ys = model->run(xs);
    }
    return py::cast(ys);
  }
  if (auto* any_size = dynamic_cast<onnx::ShapePolymorphicModel*>(layer.get());
      any_size != nullptr && any_size->num_outputs() > 1) {
    std::vector<Tensor> ys;
    {
      py::gil_scoped_release release;
      LayerCallGuard guard(layer.get());
      ys = any_size->run(xs);
    }
    return py::cast(ys);
  }
  Tensor y;
  {
    py::gil_scoped_release release;
    LayerCallGuard guard(layer.get());
    y = xs.size() == 1 ? (*layer)(xs[0]) : (*layer)(xs);
  }
  return py::cast(y);
}

std::shared_ptr<nn::Model> make_model(py::object inputs, py::object outputs, const std::string& name) {
  auto symbols = [](py::object o, std::vector<LayerPtr>& layers) {
    std::vector<nn::Symbol> out;
    auto add = [&](py::handle h) {
      PySymbol s = h.cast<PySymbol>();
      out.push_back(s.symbol);
      layers.insert(layers.end(), s.layers.begin(), s.layers.end());
    };
    if (py::isinstance<PySymbol>(o)) add(o);
    else for (auto h : o) add(h);
    return out;
  };
  auto owner = std::make_shared<ModelWithLayers>();
  const auto ins = symbols(inputs, owner->layers), outs = symbols(outputs, owner->layers);
  owner->model.emplace(ins, outs, name);
  return std::shared_ptr<nn::Model>(owner, &*owner->model);
}

py::dict named_weights(const nn::Layer& layer) {
  py::dict out;
  for (const auto& [name, t] : layer.named_weights()) out[py::str(name)] = t;
  return out;
}

// Field descriptions for strata/nn.py's classes:
// [(name, type, default, bounds, doc, saved, default as declared in C++, settable from Python)].
py::list option_fields(const nn::OptionTable& table) {
  py::list out;
  for (const nn::OptionField& f : table.fields) {
    const bool saved = static_cast<bool>(f.read);
    py::object def = saved && table.defaults.contains(f.name) ? from_json(table.defaults[f.name]) : py::none();
    const bool settable = saved || static_cast<bool>(f.read_in_code);  // initializers by name
    out.append(py::make_tuple(f.name, f.type, def, f.rule_text(), f.doc, saved, f.default_text, settable));
  }
  return out;
}

// TensorLayer's Lambda with fn_weights: a Python function that reads tensors of its own (it
// closes over them). Those very tensors are the layer's trainable weights, not copies (nn::Lambda
// copies its weights' initial values), so training changes what the function reads.
class SharedWeightsLambda : public nn::Layer {
 public:
  SharedWeightsLambda(py::function fn, std::vector<std::pair<std::string, Tensor>> weights, std::string name)
      : nn::Layer("lambda", std::move(name)), fn_(held(std::move(fn))), weights_(std::move(weights)) {}

 protected:
  void build(const Shape&) override {
    // [t = t]: clang before 16 cannot capture a structured binding by name.
    for (const auto& [n, t] : weights_) add_weight(n, t.shape(), [t = t](const Shape&, Generator*) { return t; });
  }
  Tensor forward(const Tensor& x) override {
    py::gil_scoped_acquire gil;
    return as_tensor((*fn_)(x));
  }

 private:
  std::shared_ptr<py::object> fn_;
  std::vector<std::pair<std::string, Tensor>> weights_;
};

// A recurrent layer's (or Bidirectional's) output and final state, per layer {h} or {h, c}.
py::tuple run_recurrent(nn::Layer& layer, py::handle x, const py::object& initial_state, const py::object& lengths) {
  std::vector<Tensor> initial;
  if (!initial_state.is_none())
    for (auto s : initial_state) initial.push_back(as_tensor(s));
  const Tensor xs = as_tensor(x), ls = lengths.is_none() ? Tensor() : as_tensor(lengths);
  nn::RNNResult r;
  {
    py::gil_scoped_release release;
    if (auto* rnn = dynamic_cast<nn::Recurrent*>(&layer)) r = rnn->run(xs, initial, ls);
    else if (auto* bi = dynamic_cast<nn::Bidirectional*>(&layer)) r = bi->run(xs, initial, ls);
    else throw Error(layer.name() + " (" + layer.kind() + "): expected a simple_rnn, lstm, gru or bidirectional layer");
  }
  return py::make_tuple(r.output, r.state);
}

}  // namespace

void bind_nn(py::module_& parent) {
  py::module_ m = parent.def_submodule("nn", "Layers, models and whole-model files");

  py::class_<PySymbol>(m, "Symbol", "A value of a static model being declared (strata.nn.Input and layers called on it).")
      .def_property_readonly("shape", [](const PySymbol& s) {
        return std::vector<int64_t>(s.symbol.shape().begin(), s.symbol.shape().end());
      })
      .def("__repr__", [](const PySymbol& s) { return "Symbol(shape=" + s.symbol.shape().str() + ")"; });
  m.def("Input", [](const py::list& sizes, const std::string& name, const py::object& dtype) {
        std::vector<int64_t> shape;
        for (auto s : sizes) shape.push_back(s.is_none() ? -1 : std::max<int64_t>(s.cast<int64_t>(), -1));
        return PySymbol{nn::Input(Shape(shape), name, parse_dtype(dtype)), {}};
      }, py::arg("shape"), py::arg("name") = "", py::arg("dtype") = "float32",
      "A model input; None or -1 in the first axis is a batch of any size.");

  py::class_<nn::Layer, LayerPtr>(m, "Layer", "A layer: weights built from the first input's shape, then forward.")
      .def("__call__", &call_layer)
      .def_property_readonly("name", &nn::Layer::name)
      .def_property_readonly("kind", &nn::Layer::kind)
      .def_property_readonly("built", &nn::Layer::built)
      .def_property_readonly("training", &nn::Layer::training)
      .def("train", [](nn::Layer& l, bool on) -> nn::Layer& { return l.train(on); }, py::arg("mode") = true,
           py::return_value_policy::reference)
      .def("eval", [](nn::Layer& l) -> nn::Layer& { return l.eval(); }, py::return_value_policy::reference)
      .def("to", [](nn::Layer& l, const std::string& device) -> nn::Layer& { return l.to(Device::parse(device)); },
           py::return_value_policy::reference)
      .def_property_readonly("weights", &nn::Layer::all_weights)
      .def_property_readonly("trainable_weights", &nn::Layer::trainable_weights)
      .def("named_weights", &named_weights, "{'dense_1/W': tensor, ...}: the names TensorLayer's files use")
      .def("get_weights", [](const nn::Layer& l) {
        py::list out;
        for (const Tensor& t : l.all_weights()) out.append(py::module_::import("numpy").attr("array")(py::cast(t)));
        return out;
      }, "Copies of the weights as NumPy arrays (Keras's get_weights).")
      .def("set_weights", [](nn::Layer& l, py::list values) {
        auto weights = l.all_weights();
        STRATA_CHECK(weights.size() == py::len(values), l.name(), ": set_weights got ", py::len(values), " arrays for ",
                     weights.size(), " weights");
        NoGradGuard no_grad;
        for (size_t i = 0; i < weights.size(); ++i) {
          const Tensor v = as_tensor(values[i]);
          STRATA_CHECK(v.shape() == weights[i].shape(), l.name(), ": weight ", i, " has shape ", weights[i].shape().str(),
                       ", got ", v.shape().str());
          copy_(weights[i], v);
        }
      })
      .def("count_params", &nn::Layer::count_params)
      .def("summary", &nn::Layer::summary)
      .def("get_layer", [](nn::Layer& l, const std::string& name) -> nn::Layer& { return l.get_layer(name); },
           py::return_value_policy::reference_internal)
      .def("get_config", [](const nn::Layer& l) { return from_json(nn::layer_config(l)); })
      .def("save_weights", [](const nn::Layer& l, const std::string& path) {
        py::gil_scoped_release release;
        nn::save_weights(l, path);
      }, py::arg("path"), "The weights by name in a safetensors file.")
      .def("load_weights", [](nn::Layer& l, const std::string& path, bool skip_unknown) {
        py::gil_scoped_release release;
        return nn::load_weights(l, path, skip_unknown);
      }, py::arg("path"), py::arg("skip_unknown") = false)
      .def("__repr__", [](const nn::Layer& l) { return "<strata.nn layer '" + l.name() + "' (" + l.kind() + ")>"; });

  py::class_<nn::Module, nn::Layer, PyModule, std::shared_ptr<nn::Module>>(
      m, "Module", "Subclass it and write forward(self, x): layers it calls become its children (PyTorch style).")
      .def(py::init<std::string>(), py::arg("name") = "");

  py::class_<nn::Model, nn::Layer, std::shared_ptr<nn::Model>>(m, "Model", "A static model: Model(inputs, outputs).")
      .def(py::init(&make_model), py::arg("inputs"), py::arg("outputs"), py::arg("name") = "")
      .def("save", [](const nn::Model& model, const std::string& path) {
        py::gil_scoped_release release;
        model.save(path);
      }, py::arg("path"), "Architecture and weights in one safetensors file.")
      .def_static("load", [](const std::string& path) {
        py::gil_scoped_release release;
        return nn::Model::load(path);
      }, py::arg("path"))
      .def("to_json", &nn::Model::to_json)
      .def_static("from_json", &nn::Model::from_json, py::arg("text"))
      .def("export_onnx", &nn::Model::export_onnx, py::arg("path"));

  py::class_<onnx::ShapePolymorphicModel, nn::Layer, std::shared_ptr<onnx::ShapePolymorphicModel>>(
      m, "ShapePolymorphicModel",
      "An ONNX model run at any sizes of its symbolic axes: a static model imported per set of input sizes, "
      "every one on the first one's weights (strata.nn.load_onnx_any_size).")
      .def(
          "sizes_of",
          [](const onnx::ShapePolymorphicModel& net, const std::vector<std::vector<int64_t>>& shapes) {
            std::vector<Shape> s;
            for (const auto& shape : shapes) s.emplace_back(shape);
            return net.sizes_of(s);
          },
          py::arg("shapes"), "{name: size} of the symbolic axes past the batch for inputs of these shapes.")
      .def_property_readonly("cached_shapes", &onnx::ShapePolymorphicModel::cached_shapes)
      .def_property_readonly("num_inputs", &onnx::ShapePolymorphicModel::num_inputs)
      .def_property_readonly("num_outputs", &onnx::ShapePolymorphicModel::num_outputs);

  m.def("make_layer", &make_layer, py::arg("kind"), py::arg("name"), py::arg("options"),
        "A registered layer class's layer from its options (strata/nn.py's classes call it).");
  m.def("layer_classes", [] {
    py::list out;
    for (const std::string& kind : nn::registered_layer_classes())
      if (const nn::OptionTable* table = nn::layer_options(kind))
        out.append(py::make_tuple(kind, nn::layer_class_name(kind), table->name, option_fields(*table)));
    return out;
  }, "(kind, class name, options struct, fields) of every registered layer class with declared options.");
  m.def("save_weights", [](const nn::Layer& l, const std::string& path) { nn::save_weights(l, path); },
        py::arg("model"), py::arg("path"), "The weights by name in a safetensors file.");
  // Keras's and TensorLayer 2's weight files (docs/interop.md), both ways.
  using Writer = void (*)(const nn::Layer&, const std::string&);
  for (auto [name, writer] : {std::pair<const char*, Writer>{"save_keras_hdf5", &interop::save_keras_hdf5},
                              {"save_keras3_weights", &interop::save_keras3_weights},
                              {"save_tl2_hdf5", &interop::save_tl2_hdf5},
                              {"save_tl2_npz_dict", &interop::save_tl2_npz_dict},
                              {"save_tl2_npz", &interop::save_tl2_npz}})
    m.def(
        name,
        [writer = writer](const nn::Layer& l, const std::string& path) {
          py::gil_scoped_release release;
          writer(l, path);
        },
        py::arg("model"), py::arg("path"));
  m.def("run_recurrent", &run_recurrent, py::arg("layer"), py::arg("x"), py::arg("initial_state") = py::none(),
        py::arg("lengths") = py::none(),
        "(output, final state) of a SimpleRNN, LSTM, GRU or Bidirectional layer: the state per layer {h} or {h, c}; "
        "lengths [batch] for zero-padded sequences.");
  m.def("lambda_sharing_weights", [](py::function fn, std::vector<std::pair<std::string, Tensor>> weights,
                                     std::string name) -> LayerPtr {
    return std::make_shared<SharedWeightsLambda>(std::move(fn), std::move(weights), std::move(name));
  }, py::arg("fn"), py::arg("weights"), py::arg("name") = "",
     "A Lambda whose weights are these (name, tensor) pairs themselves, which fn reads (TensorLayer's fn_weights).");
  m.def("register_function", [](const std::string& name, py::function fn) { register_python_function(name, fn); },
        py::arg("name"), py::arg("fn"), "A Python function (tensor -> tensor) by name, for Lambda layers and activations "
                                     "in models saved whole and loaded again.");
  m.def("load_onnx", [](const std::string& path) {
    py::gil_scoped_release release;
    return onnx::load_onnx(path);
  }, py::arg("path"), "A static model from an ONNX file (the operators Strata imports; others refused by name).");
  m.def(
      "load_onnx_any_size",
      [](const std::string& path, size_t max_cached_shapes) {
        py::gil_scoped_release release;
        return onnx::load_onnx_any_size(path, {.max_cached_shapes = max_cached_shapes});
      },
      py::arg("path"), py::arg("max_cached_shapes") = 8,
      "An ONNX file whose inputs have symbolic sizes past the batch, as a layer run at whatever sizes its inputs come "
      "with (imported per set of sizes, the same weights at every size).");
  m.def("load_tl2_npz", [](nn::Layer& l, const std::string& path) {
    py::gil_scoped_release release;
    const std::vector<Tensor> weights = io::load_npz_list(path);
    nn::assign_weights(l, weights);
    return weights.size();
  }, py::arg("model"), py::arg("path"), "TensorLayer's save_npz list into a built model, in order.");
  m.def(
      "load_keras_model",
      [](const std::string& path) {
        py::gil_scoped_release release;
        return interop::load_keras_model(path);
      },
      py::arg("path"),
      "A whole Keras model (Keras 3's .keras, Keras 2's model.save .h5) as a static model with its weights, eval "
      "mode.");
  m.def(
      "load_library_weights",
      [](nn::Layer& l, const std::string& path, const std::string& library, bool by_name) {
        STRATA_CHECK(library == "keras" || library == "tensorlayer",
                     "library: expected \"keras\" or \"tensorlayer\", got \"", library, "\"");
        py::gil_scoped_release release;
        return interop::load_library_weights(
            l, path, library == "keras" ? interop::Library::keras : interop::Library::tensorlayer2, by_name);
      },
      py::arg("model"), py::arg("path"), py::arg("library"), py::arg("by_name") = true,
      "Loads a Keras 2 (.h5), Keras 3 (.weights.h5, .keras; by name) or TensorLayer 2 (.h5, .npz) weight file into a "
      "built model; returns the weights set.");
}

}  // namespace strata::python
