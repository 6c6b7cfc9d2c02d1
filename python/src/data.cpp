// strata.data: Datasets (random access) and Streams from NumPy arrays, Python functions and
// generators, with the C++ pipeline (map, filter, shuffle, batch, prefetch, cache, ...). Python
// functions run with the GIL taken back, from whichever thread the pipeline calls them on;
// reading from Python releases the GIL, so a prefetch thread's Python map can run meanwhile.
#include "bindings.hpp"
#include "strata/data/cifar.hpp"
#include "strata/data/dataset.hpp"
#include "strata/data/idx.hpp"
#include "strata/data/image_folder.hpp"
#include "strata/data/npy.hpp"
#include "strata/data/stream.hpp"
#include "strata/vision/image.hpp"

namespace strata::python {

void bind_tl_data(py::module_& data);  // TensorLayer's data sets and nlp tools (tl_data.cpp)

namespace {

data::Example example_of(py::handle value) {
  data::Example out;
  if (py::isinstance<py::tuple>(value) || py::isinstance<py::list>(value)) {
    for (auto item : value) out.push_back(as_tensor(item));
  } else {
    out.push_back(as_tensor(value));
  }
  return out;
}

py::tuple example_tuple(const data::Example& ex) {
  py::tuple out(ex.size());
  for (size_t i = 0; i < ex.size(); ++i) out[i] = py::cast(ex[i]);
  return out;
}

data::MapFn map_fn(py::function fn) {
  auto f = held(std::move(fn));
  return [f](data::Example ex) {
    py::gil_scoped_acquire gil;
    return example_of((*f)(*example_tuple(ex)));
  };
}

data::Predicate predicate(py::function fn) {
  auto f = held(std::move(fn));
  return [f](const data::Example& ex) {
    py::gil_scoped_acquire gil;
    return (*f)(*example_tuple(ex)).cast<bool>();
  };
}

// A Python iterator over a reader; next() waits without the GIL.
struct ReaderIterator {
  data::Reader reader;
  py::tuple next() {
    std::optional<data::Example> ex;
    {
      py::gil_scoped_release release;
      ex = reader.next();
    }
    if (!ex) throw py::stop_iteration();
    return example_tuple(*ex);
  }
};

}  // namespace

void bind_data(py::module_& parent) {
  py::module_ m = parent.def_submodule("data", "Datasets and streams with the C++ pipeline");
  py::class_<ReaderIterator>(m, "Iterator")
      .def("__iter__", [](ReaderIterator& it) -> ReaderIterator& { return it; }, py::return_value_policy::reference)
      .def("__next__", &ReaderIterator::next);

  py::class_<data::Stream>(m, "Stream", "Examples read in order, possibly without end.")
      .def_static("from_generator", [](py::function make) {
        auto f = held(std::move(make));
        return data::Stream([f] {
          py::gil_scoped_acquire gil;
          auto it = held(py::iter((*f)()));
          return data::Reader([it]() -> std::optional<data::Example> {
            py::gil_scoped_acquire gil;
            PyObject* item = PyIter_Next(it->ptr());
            if (item == nullptr) {
              if (PyErr_Occurred()) throw py::error_already_set();
              return std::nullopt;
            }
            return example_of(py::reinterpret_steal<py::object>(item));
          });
        });
      }, py::arg("generator_function"),
         "A stream reading generator_function() anew at every pass; each item is a tuple of arrays (one example).")
      .def("__iter__", [](const data::Stream& s) { return ReaderIterator{s.open()}; })
      .def("map", [](const data::Stream& s, py::function fn, int threads) { return s.map(map_fn(std::move(fn)), threads); },
           py::arg("fn"), py::arg("threads") = 1)
      .def("filter", [](const data::Stream& s, py::function fn) { return s.filter(predicate(std::move(fn))); })
      .def("shuffle", &data::Stream::shuffle, py::arg("buffer_size"), py::arg("seed") = 0)
      .def("batch", [](const data::Stream& s, int64_t n, bool drop_last) { return s.batch(n, {.drop_last = drop_last}); },
           py::arg("batch_size"), py::arg("drop_last") = false)
      .def("prefetch", &data::Stream::prefetch, py::arg("capacity") = 2)
      .def("cache", py::overload_cast<>(&data::Stream::cache, py::const_))
      .def("repeat", &data::Stream::repeat, py::arg("times") = -1)
      .def("take", &data::Stream::take, py::arg("n"))
      .def("skip", &data::Stream::skip, py::arg("n"));

  // Loaders (each reads local files; every size is checked against the bytes present).
  m.def("load_fashion_mnist", [](const std::string& dir) {
    data::FashionMnist ds;
    {
      py::gil_scoped_release release;
      ds = data::load_fashion_mnist(dir);
    }
    return py::make_tuple(ds.train_images, ds.train_labels, ds.test_images, ds.test_labels);
  }, py::arg("dir") = "", "(train_images, train_labels, test_images, test_labels) as uint8 tensors; "
                          "dir \"\": Debian's dataset-fashion-mnist");
  m.def("load_cifar10", [](const std::string& dir) {
    data::Cifar10 ds;
    {
      py::gil_scoped_release release;
      ds = data::load_cifar10(dir);
    }
    return py::make_tuple(ds.train.images, ds.train.labels, ds.test.images, ds.test.labels);
  }, py::arg("dir"), "CIFAR-10's binary batches: (train_images [N, 32, 32, 3] uint8, train_labels, test_images, "
                     "test_labels)");
  m.def("image_folder", [](const std::string& root, int channels) {
    const data::ImageFolder folder = data::image_folder(root, {.channels = channels});
    return py::make_tuple(folder.dataset(), folder.classes);
  }, py::arg("root"), py::arg("channels") = 0,
     "root/<class>/<image>: (a Dataset of (uint8 [H, W, C] image, int64 label), the class names)");
  m.def("read_npy", [](const std::string& path) {
    py::gil_scoped_release release;
    return data::read_npy(path);
  }, py::arg("path"));

  // Image preprocessing (data/image.hpp, TensorLayer's prepro) on one HWC image or an NHWC batch.
  auto interpolation = [](const std::string& mode) {
    if (mode == "nearest") return vision::Interpolation::nearest;
    STRATA_CHECK(mode == "bilinear", "interpolation: expected \"nearest\" or \"bilinear\", got \"", mode, "\"");
    return vision::Interpolation::bilinear;
  };
  py::module_ image = m.def_submodule("image", "Image preprocessing on HWC images or NHWC batches");
  image.def(
      "flip_left_right", [](py::handle x) { return vision::flip_left_right(as_tensor(x)); }, py::arg("image"));
  image.def(
      "flip_up_down", [](py::handle x) { return vision::flip_up_down(as_tensor(x)); }, py::arg("image"));
  image.def(
      "central_crop", [](py::handle x, int64_t h, int64_t w) { return vision::central_crop(as_tensor(x), h, w); },
      py::arg("image"), py::arg("height"), py::arg("width"));
  image.def(
      "random_crop", [](py::handle x, int64_t h, int64_t w) { return vision::random_crop(as_tensor(x), h, w); },
      py::arg("image"), py::arg("height"), py::arg("width"));
  image.def(
      "resize",
      [interpolation](py::handle x, int64_t h, int64_t w, const std::string& mode) {
        if (mode == "bicubic") return vision::resize_bicubic(as_tensor(x), h, w);
        return vision::resize(as_tensor(x), h, w, interpolation(mode));
      },
      py::arg("image"), py::arg("height"), py::arg("width"), py::arg("interpolation") = "bilinear",
      "bilinear and nearest as tf.image.resize (half-pixel centres); bicubic as Pillow's");
  image.def(
      "adjust_brightness", [](py::handle x, double d) { return vision::adjust_brightness(as_tensor(x), d); },
      py::arg("image"), py::arg("delta"));
  image.def(
      "adjust_contrast", [](py::handle x, double f) { return vision::adjust_contrast(as_tensor(x), f); },
      py::arg("image"), py::arg("factor"));
  image.def(
      "samplewise_normalize", [](py::handle x) { return vision::samplewise_normalize(as_tensor(x)); },
      py::arg("image"));
  image.def(
      "affine",
      [interpolation](py::handle x, double rotation, double shift_x, double shift_y, double zoom, double shear,
                      const std::string& mode, double fill) {
        const vision::Affine t = vision::Affine::rotation(rotation) * vision::Affine::shift(shift_x, shift_y) *
                                 vision::Affine::zoom(zoom, zoom) * vision::Affine::shear(shear);
        return vision::affine_transform(as_tensor(x), t, interpolation(mode), fill);
      },
      py::arg("image"), py::arg("rotation") = 0.0, py::arg("shift_x") = 0.0, py::arg("shift_y") = 0.0,
      py::arg("zoom") = 1.0, py::arg("shear") = 0.0, py::arg("interpolation") = "bilinear", py::arg("fill") = 0.0,
      "Rotation (degrees, counter-clockwise), shift (pixels), zoom and shear about the centre, resampled once.");
  image.def(
      "random_affine",
      [interpolation](py::handle x, double rotation, double shift_x, double shift_y, double zoom, double shear,
                      const std::string& mode, double fill) {
        return vision::random_affine_transform(as_tensor(x), {rotation, shift_x, shift_y, zoom, shear},
                                               default_generator(), interpolation(mode), fill);
      },
      py::arg("images"), py::arg("rotation") = 0.0, py::arg("shift_x") = 0.0, py::arg("shift_y") = 0.0,
      py::arg("zoom") = 0.0, py::arg("shear") = 0.0, py::arg("interpolation") = "bilinear", py::arg("fill") = 0.0,
      "Each image moved by a rotation, shift, zoom and shear drawn from [-range, range] (zoom: 1 +- range).");

  py::class_<data::Dataset>(m, "Dataset", "Examples by index: a size and a way to get each.")
      .def_static("from_tensors", [](py::args arrays) {
        std::vector<Tensor> tensors;
        for (auto a : arrays) tensors.push_back(as_tensor(a));
        return data::Dataset(data::TensorDataset(std::move(tensors)));
      }, "Example i is row i of every array (NumPy arrays are viewed, not copied).")
      .def_static("from_function", [](int64_t size, py::function get) {
        auto f = held(std::move(get));
        return data::Dataset(size, [f](int64_t i) {
          py::gil_scoped_acquire gil;
          return example_of((*f)(i));
        });
      }, py::arg("size"), py::arg("get"), "Example i is get(i), a tuple of arrays.")
      .def("__len__", &data::Dataset::size)
      .def("__getitem__", [](const data::Dataset& d, int64_t i) {
        if (i < 0) i += d.size();
        if (i < 0 || i >= d.size()) throw py::index_error("example index out of range");
        data::Example ex;
        {
          py::gil_scoped_release release;
          ex = d.get(i);
        }
        return example_tuple(ex);
      })
      .def("__iter__", [](const data::Dataset& d) { return ReaderIterator{d.open()}; })
      .def("map", [](const data::Dataset& d, py::function fn, int threads) { return d.map(map_fn(std::move(fn)), threads); },
           py::arg("fn"), py::arg("threads") = 1)
      .def("filter", [](const data::Dataset& d, py::function fn) { return d.filter(predicate(std::move(fn))); })
      .def("shuffle", &data::Dataset::shuffle, py::arg("seed") = 0)
      .def("batch", [](const data::Dataset& d, int64_t n, bool drop_last) { return d.batch(n, {.drop_last = drop_last}); },
           py::arg("batch_size"), py::arg("drop_last") = false)
      .def("prefetch", &data::Dataset::prefetch, py::arg("capacity") = 2)
      .def("cache", py::overload_cast<>(&data::Dataset::cache, py::const_))
      .def("repeat", &data::Dataset::repeat, py::arg("times"))
      .def("take", &data::Dataset::take, py::arg("n"))
      .def("skip", &data::Dataset::skip, py::arg("n"))
      .def("stream", &data::Dataset::stream);
  bind_text(m);
  bind_tl_data(m);
}

}  // namespace strata::python
