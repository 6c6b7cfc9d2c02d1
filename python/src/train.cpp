// strata.optim and Keras's fit / evaluate / predict from Python: the training loop runs in C++
// with the GIL released; Python callbacks, losses and activations take it back when they run.
// Ctrl-C stops fit after the current batch and raises KeyboardInterrupt.
#include <ostream>
#include <streambuf>
#include <string>

#include "bindings.hpp"
#include "strata/data/dataset.hpp"
#include "strata/data/stream.hpp"
#include "strata/hub/hub.hpp"
#include "strata/lifecycle/hub_logger.hpp"
#include "strata/lifecycle/model_checkpoint.hpp"
#include "strata/nn/layer.hpp"
#include "strata/ops/loss.hpp"
#include "strata/optim/adam.hpp"
#include "strata/optim/rmsprop.hpp"
#include "strata/optim/schedule.hpp"
#include "strata/optim/sgd.hpp"
#include "strata/train/csv_logger.hpp"
#include "strata/train/early_stopping.hpp"
#include "strata/train/fit.hpp"
#include "strata/train/lr_scheduler.hpp"
#include "strata/train/tensorboard_logger.hpp"

namespace strata::python {
namespace {

py::dict logs_dict(const train::Logs& logs) {
  py::dict d;
  for (const auto& [k, v] : logs) d[py::str(k)] = v;
  return d;
}

// A Python object with any of Keras's callback methods (on_train_begin, on_epoch_end(epoch,
// logs), on_batch_end(batch, logs), ...); logs it sets in on_epoch_end are kept.
class PyCallback : public train::Callback {
 public:
  explicit PyCallback(py::object target) : target_(held(std::move(target))) {}
  void on_train_begin() override {
    py::gil_scoped_acquire gil;
    call("on_train_begin");
  }
  void on_train_end(const train::Logs& logs) override {
    py::gil_scoped_acquire gil;
    call("on_train_end", logs_dict(logs));
  }
  void on_epoch_begin(int64_t epoch) override {
    py::gil_scoped_acquire gil;
    call("on_epoch_begin", epoch);
  }
  void on_epoch_end(int64_t epoch, train::Logs& logs) override {
    py::gil_scoped_acquire gil;
    if (!py::hasattr(*target_, "on_epoch_end")) return;
    py::dict d = logs_dict(logs);
    target_->attr("on_epoch_end")(epoch, d);
    for (auto [k, v] : d) logs[k.cast<std::string>()] = v.cast<double>();
    if (target_->attr("__dict__").contains("stop_training") && target_->attr("stop_training").cast<bool>()) stop_training();
  }
  void on_batch_end(int64_t step, const train::Logs& logs) override {
    py::gil_scoped_acquire gil;
    if (py::hasattr(*target_, "on_batch_end")) target_->attr("on_batch_end")(step, logs_dict(logs));
  }

 private:
  // With the GIL held (the arguments are Python objects already).
  template <class... Args>
  void call(const char* method, Args&&... args) {
    if (py::hasattr(*target_, method)) target_->attr(method)(std::forward<Args>(args)...);
  }
  std::shared_ptr<py::object> target_;
};

// Checks for Ctrl-C after every batch: fit stops and the interrupt is raised when it returns.
class InterruptCheck : public train::Callback {
 public:
  void on_batch_end(int64_t, const train::Logs&) override {
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) {
      interrupted = true;
      PyErr_Clear();
      stop_training();
    }
  }
  bool interrupted = false;
};

// None: softmax cross-entropy (fit's default); a name; or a Python function (outputs, targets).
train::LossFn loss_of(py::object loss) {
  if (loss.is_none()) return {};
  if (py::isinstance<py::str>(loss)) {
    const std::string name = loss.cast<std::string>();
    if (name == "cross_entropy" || name == "sparse_categorical_crossentropy") return {};
    if (name == "mse" || name == "mean_squared_error")
      return [](const Tensor& o, const Tensor& t) { return mse_loss(o, t); };
    if (name == "mae" || name == "mean_absolute_error") return [](const Tensor& o, const Tensor& t) { return l1_loss(o, t); };
    if (name == "binary_crossentropy")
      return [](const Tensor& o, const Tensor& t) { return binary_cross_entropy_with_logits(o, t); };
    throw Error("unknown loss '" + name + "': cross_entropy, mse, mae, binary_crossentropy or a function");
  }
  auto fn = held(std::move(loss));
  return [fn](const Tensor& outputs, const Tensor& targets) {
    py::gil_scoped_acquire gil;
    return (*fn)(outputs, targets).cast<Tensor>();
  };
}

// (x, y) or (x, y, sample_weight) from NumPy arrays or tensors, or a strata.data Dataset or
// Stream of examples (x, y) as x; None for no data.
train::Data data_of(py::object x, py::object y, py::object w) {
  if (x.is_none()) return {};
  if (py::isinstance<data::Dataset>(x) || py::isinstance<data::Stream>(x)) {
    STRATA_CHECK(y.is_none() && w.is_none(), "a Dataset or Stream holds its targets: pass y=None");
    if (py::isinstance<data::Dataset>(x)) return train::Data(x.cast<data::Dataset>());
    return train::Data(x.cast<data::Stream>());
  }
  if (w.is_none()) return train::Data(as_tensor(x), as_tensor(y));
  return train::Data(as_tensor(x), as_tensor(y), as_tensor(w));
}

// fit's progress into Python's sys.stdout (a notebook shows it; C++'s stderr it would not),
// written a line at a time with the GIL taken back.
class PythonStdout : public std::streambuf {
 protected:
  int_type overflow(int_type c) override {
    if (c != traits_type::eof()) {
      pending_ += static_cast<char>(c);
      if (c == '\n' || c == '\r') sync();
    }
    return c;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    for (std::streamsize i = 0; i < n; ++i) overflow(traits_type::to_int_type(s[i]));
    return n;
  }
  int sync() override {
    if (pending_.empty()) return 0;
    py::gil_scoped_acquire gil;
    py::object out = py::module_::import("sys").attr("stdout");
    out.attr("write")(py::str(pending_));
    out.attr("flush")();
    pending_.clear();
    return 0;
  }

 private:
  std::string pending_;
};

// A terminal on stderr keeps the redrawn bar; anything else (Jupyter, a pipe) gets lines on
// sys.stdout.
bool stderr_is_terminal() {
  py::object err = py::module_::import("sys").attr("stderr");
  return py::hasattr(err, "isatty") && err.attr("isatty")().cast<bool>() && py::hasattr(err, "fileno") &&
         err.attr("fileno")().cast<int>() == 2;
}

py::dict history_dict(const train::History& h) {
  py::dict d;
  for (const auto& [k, v] : h.values()) d[py::str(k)] = v;
  return d;
}

}  // namespace

void bind_train(py::module_& parent) {
  py::module_ optim = parent.def_submodule("optim", "Optimizers");
  py::class_<optim::Optimizer, std::shared_ptr<optim::Optimizer>>(optim, "Optimizer")
      .def("step", [](optim::Optimizer& o) {
        py::gil_scoped_release release;
        o.step();
      })
      .def("zero_grad", &optim::Optimizer::zero_grad)
      .def_property("lr", &optim::Optimizer::learning_rate, &optim::Optimizer::set_learning_rate);
  auto params = [](py::object p) {
    std::vector<Tensor> out;
    if (py::hasattr(p, "trainable_weights")) p = p.attr("trainable_weights");
    for (auto t : p) out.push_back(as_tensor(t));
    return out;
  };
  py::class_<optim::SGD, optim::Optimizer, std::shared_ptr<optim::SGD>>(optim, "SGD")
      .def(py::init([params](py::object p, double lr, double momentum, double dampening, double weight_decay, bool nesterov) {
             return std::make_shared<optim::SGD>(params(p), optim::SGDOptions{lr, momentum, dampening, weight_decay, nesterov});
           }), py::arg("params"), py::arg("lr") = 1e-3, py::arg("momentum") = 0.0, py::arg("dampening") = 0.0,
           py::arg("weight_decay") = 0.0, py::arg("nesterov") = false);
  py::class_<optim::Adam, optim::Optimizer, std::shared_ptr<optim::Adam>>(optim, "Adam")
      .def(py::init([params](py::object p, double lr, double beta1, double beta2, double eps, double weight_decay, bool amsgrad) {
             return std::make_shared<optim::Adam>(params(p), optim::AdamOptions{lr, beta1, beta2, eps, weight_decay, amsgrad});
           }), py::arg("params"), py::arg("lr") = 1e-3, py::arg("beta1") = 0.9, py::arg("beta2") = 0.999,
           py::arg("eps") = 1e-8, py::arg("weight_decay") = 0.0, py::arg("amsgrad") = false);
  py::class_<optim::RMSprop, optim::Optimizer, std::shared_ptr<optim::RMSprop>>(optim, "RMSprop")
      .def(py::init([params](py::object p, double lr, double alpha, double eps, double weight_decay, double momentum, bool centered) {
             return std::make_shared<optim::RMSprop>(params(p),
                                                     optim::RMSpropOptions{lr, alpha, eps, weight_decay, momentum, centered});
           }), py::arg("params"), py::arg("lr") = 1e-2, py::arg("alpha") = 0.99, py::arg("eps") = 1e-8,
           py::arg("weight_decay") = 0.0, py::arg("momentum") = 0.0, py::arg("centered") = false);

  // Learning-rate schedules (optim/schedule.hpp): step() once per epoch in a custom loop, or
  // pass one in fit's callbacks.
  py::class_<optim::LRSchedule, std::shared_ptr<optim::LRSchedule>>(optim, "LRSchedule")
      .def("step", &optim::LRSchedule::step)
      .def_property_readonly("epoch", &optim::LRSchedule::epoch)
      .def("lr_at", &optim::LRSchedule::lr_at, py::arg("epoch"));
  py::class_<optim::StepLR, optim::LRSchedule, std::shared_ptr<optim::StepLR>>(optim, "StepLR")
      .def(py::init<optim::Optimizer&, int64_t, double>(), py::arg("optimizer"), py::arg("step_size"),
           py::arg("gamma") = 0.1, py::keep_alive<1, 2>());
  py::class_<optim::MultiStepLR, optim::LRSchedule, std::shared_ptr<optim::MultiStepLR>>(optim, "MultiStepLR")
      .def(py::init<optim::Optimizer&, std::vector<int64_t>, double>(), py::arg("optimizer"), py::arg("milestones"),
           py::arg("gamma") = 0.1, py::keep_alive<1, 2>());
  py::class_<optim::ExponentialLR, optim::LRSchedule, std::shared_ptr<optim::ExponentialLR>>(optim, "ExponentialLR")
      .def(py::init<optim::Optimizer&, double>(), py::arg("optimizer"), py::arg("gamma"), py::keep_alive<1, 2>());
  py::class_<optim::CosineAnnealingLR, optim::LRSchedule, std::shared_ptr<optim::CosineAnnealingLR>>(
      optim, "CosineAnnealingLR")
      .def(py::init<optim::Optimizer&, int64_t, double>(), py::arg("optimizer"), py::arg("t_max"),
           py::arg("eta_min") = 0.0, py::keep_alive<1, 2>());
  py::class_<optim::LinearWarmup, optim::LRSchedule, std::shared_ptr<optim::LinearWarmup>>(optim, "LinearWarmup")
      .def(py::init<optim::Optimizer&, int64_t, double>(), py::arg("optimizer"), py::arg("warmup_steps"),
           py::arg("start_factor") = 1.0 / 3, py::keep_alive<1, 2>());

  py::module_ train = parent.def_submodule("train", "Keras's fit / evaluate / predict");

  // The C++ library's callbacks, for fit's callbacks list beside Python objects.
  auto mode_of = [](const std::string& mode) {
    if (mode == "min") return train::MonitorMode::min;
    if (mode == "max") return train::MonitorMode::max;
    STRATA_CHECK(mode == "auto", "mode: expected \"auto\", \"min\" or \"max\", got \"", mode, "\"");
    return train::MonitorMode::automatic;
  };
  py::class_<train::Callback, std::shared_ptr<train::Callback>>(train, "Callback",
                                                                "A callback of the C++ library (for fit's callbacks).");
  py::class_<train::EarlyStopping, train::Callback, std::shared_ptr<train::EarlyStopping>>(train, "EarlyStopping")
      .def(py::init([mode_of](const std::string& monitor, int64_t patience, double min_delta, const std::string& mode,
                              bool restore_best_weights) {
             return std::make_shared<train::EarlyStopping>(train::EarlyStoppingOptions{
                 monitor, patience, min_delta, mode_of(mode), restore_best_weights});
           }), py::arg("monitor") = "val_loss", py::arg("patience") = 0, py::arg("min_delta") = 0.0,
           py::arg("mode") = "auto", py::arg("restore_best_weights") = false);
  py::class_<lifecycle::HubLogger, train::Callback, std::shared_ptr<lifecycle::HubLogger>>(train, "HubLogger")
      .def(py::init([](hub::Hub& hub, const std::string& run_name, py::object config, int64_t every_n_steps) {
             const std::string json = config.is_none() ? "{}" : to_json(config, "run config").dump();
             return std::make_shared<lifecycle::HubLogger>(hub, run_name, json, every_n_steps);
           }),
           py::arg("hub"), py::arg("run_name"), py::arg("config") = py::none(), py::arg("every_n_steps") = 1,
           py::keep_alive<1, 2>(), "A new run of the hub, its metrics logged as fit goes, finished when it ends.")
      .def_property_readonly("run_id", &lifecycle::HubLogger::run_id);
  py::class_<lifecycle::ModelCheckpoint, train::Callback, std::shared_ptr<lifecycle::ModelCheckpoint>>(
      train, "ModelCheckpoint")
      .def(py::init([mode_of](hub::Hub& hub, const std::string& model_name, const std::string& monitor,
                              const std::string& mode, bool save_best_only, std::vector<std::string> tags,
                              bool include_optimizer) {
             lifecycle::ModelCheckpointOptions o;
             o.monitor = monitor;
             o.mode = mode_of(mode);
             o.save_best_only = save_best_only;
             o.tags = std::move(tags);
             o.include_optimizer = include_optimizer;
             return std::make_shared<lifecycle::ModelCheckpoint>(hub, model_name, o);
           }),
           py::arg("hub"), py::arg("model_name"), py::arg("monitor") = "val_loss", py::arg("mode") = "auto",
           py::arg("save_best_only") = true, py::arg("tags") = std::vector<std::string>{},
           py::arg("include_optimizer") = true, py::keep_alive<1, 2>(),
           "Saves the model as a new hub version when `monitor` improves (every epoch without save_best_only).");
  py::class_<train::CSVLogger, train::Callback, std::shared_ptr<train::CSVLogger>>(train, "CSVLogger")
      .def(py::init<std::string, char, bool>(), py::arg("path"), py::arg("separator") = ',', py::arg("append") = false);
  py::class_<train::TensorBoardLogger, train::Callback, std::shared_ptr<train::TensorBoardLogger>>(train,
                                                                                                   "TensorBoardLogger")
      .def(py::init([](const std::string& log_dir, int64_t every_n_steps, bool histograms) {
             train::TensorBoardOptions o;
             o.every_n_steps = every_n_steps;
             o.histograms = histograms;
             return std::make_shared<train::TensorBoardLogger>(log_dir, o);
           }), py::arg("log_dir"), py::arg("every_n_steps") = 1, py::arg("histograms") = true);
  train.def(
      "fit",
      [](nn::Layer& model, optim::Optimizer& optimizer, py::object x, py::object y, int64_t epochs, int64_t batch_size,
         py::object loss, py::object validation_data, double validation_split, bool shuffle, uint64_t seed, int verbose,
         py::list callbacks, std::vector<double> class_weight, py::object sample_weight, bool bf16_mixed_precision) {
        train::FitOptions options;
        options.epochs = epochs;
        options.batch_size = batch_size;
        options.validation_split = validation_split;
        options.shuffle = shuffle;
        options.seed = seed;
        options.verbose = verbose;
        options.class_weight = std::move(class_weight);
        options.bf16_mixed_precision = bf16_mixed_precision;
        if (!validation_data.is_none()) {
          py::tuple v = validation_data.cast<py::tuple>();
          options.validation_data = data_of(v[0], v[1], v.size() > 2 ? py::object(v[2]) : py::none());
        }
        for (auto c : callbacks) {
          if (py::isinstance<optim::LRSchedule>(c))  // a schedule steps at each epoch's start
            options.callbacks.push_back(
                std::make_shared<train::LearningRateScheduler>(c.cast<std::shared_ptr<optim::LRSchedule>>()));
          else if (py::isinstance<train::Callback>(c))  // one of the library's own
            options.callbacks.push_back(c.cast<std::shared_ptr<train::Callback>>());
          else
            options.callbacks.push_back(std::make_shared<PyCallback>(py::reinterpret_borrow<py::object>(c)));
        }
        auto interrupt = std::make_shared<InterruptCheck>();
        options.callbacks.push_back(interrupt);
        const train::Data data = data_of(x, y, sample_weight);
        const train::LossFn loss_fn = loss_of(loss);
        PythonStdout stdout_buffer;
        std::ostream python_stdout(&stdout_buffer);
        if (verbose > 0 && !stderr_is_terminal()) options.out = &python_stdout;
        train::History history;
        {
          py::gil_scoped_release release;
          LayerCallGuard guard(&model);
          history = train::fit(model, optimizer, loss_fn, data, std::move(options));
          python_stdout.flush();
        }
        if (interrupt->interrupted) {
          PyErr_SetNone(PyExc_KeyboardInterrupt);
          throw py::error_already_set();
        }
        return history_dict(history);
      },
      py::arg("model"), py::arg("optimizer"), py::arg("x"), py::arg("y") = py::none(), py::arg("epochs") = 1,
      py::arg("batch_size") = 32, py::arg("loss") = py::none(), py::arg("validation_data") = py::none(),
      py::arg("validation_split") = 0.0, py::arg("shuffle") = true, py::arg("seed") = 0, py::arg("verbose") = 1,
      py::arg("callbacks") = py::list(), py::arg("class_weight") = std::vector<double>{},
      py::arg("sample_weight") = py::none(), py::arg("bf16_mixed_precision") = false,
      "Trains model on (x, y) (NumPy arrays or tensors); returns the history {key: [value per epoch]}.\n"
      "bf16_mixed_precision: each training step in a strata.autocast_bf16() scope (float32 master weights);\n"
      "float32 with one warning where the CPU has no native bf16; history[\"bf16\"] says which ran.");
  train.def("evaluate", [](nn::Layer& model, py::object x, py::object y, int64_t batch_size, py::object loss) {
    const train::Data data = data_of(x, y, py::none());
    const train::LossFn loss_fn = loss_of(loss);
    train::Logs logs;
    {
      py::gil_scoped_release release;
      LayerCallGuard guard(&model);
      logs = train::evaluate(model, loss_fn, data, batch_size);
    }
    return logs_dict(logs);
  }, py::arg("model"), py::arg("x"), py::arg("y") = py::none(), py::arg("batch_size") = 32, py::arg("loss") = py::none());
  train.def("predict", [](nn::Layer& model, py::object x, int64_t batch_size) {
    if (py::isinstance<data::Dataset>(x) || py::isinstance<data::Stream>(x)) {
      const train::Data data = data_of(x, py::none(), py::none());
      py::gil_scoped_release release;
      LayerCallGuard guard(&model);
      return train::predict(model, data, batch_size);
    }
    const Tensor t = as_tensor(x);
    py::gil_scoped_release release;
    LayerCallGuard guard(&model);
    return train::predict(model, t, batch_size);
  }, py::arg("model"), py::arg("x"), py::arg("batch_size") = 32);
}

}  // namespace strata::python
