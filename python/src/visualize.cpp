// strata._strata.visualize: pictures of embeddings and weights (strata/viz/tsne.hpp,
// weight_images.hpp) and image grids (visualize.hpp), which strata.tl.visualize wraps under
// TensorLayer's names.
#include "strata/viz/visualize.hpp"
#include "bindings.hpp"
#include "strata/data/image_codec.hpp"
#include "strata/viz/tsne.hpp"
#include "strata/viz/weight_images.hpp"

namespace strata::python {

void bind_visualize(py::module_& m) {
  py::module_ v = m.def_submodule("visualize", "t-SNE, embedding plots, weights and image grids as pictures");
  v.def(
      "tsne",
      [](py::handle x, double perplexity, int64_t iterations, bool pca_init, uint64_t seed) {
        const Tensor t = as_tensor(x);
        py::gil_scoped_release release;
        return viz::tsne(t, {.perplexity = perplexity, .iterations = iterations, .pca_init = pca_init, .seed = seed});
      },
      py::arg("embeddings"), py::arg("perplexity") = 30.0, py::arg("iterations") = 1000, py::arg("pca_init") = true,
      py::arg("seed") = 0, "Exact t-SNE of embeddings [N, D] -> [N, 2] (scikit-learn's method=\"exact\").");
  v.def(
      "plot_embedding",
      [](py::handle points, const std::vector<int64_t>& labels, const std::vector<std::string>& texts, int64_t width,
         int64_t height) {
        return viz::plot_embedding(as_tensor(points), labels, texts, {.width = width, .height = height});
      },
      py::arg("points"), py::arg("labels") = std::vector<int64_t>{}, py::arg("texts") = std::vector<std::string>{},
      py::arg("width") = 800, py::arg("height") = 800, "Points [N, 2] as dots (and texts) -> uint8 [H, W, 3].");
  v.def(
      "filter_grid", [](py::handle w, int64_t padding) { return viz::filter_grid(as_tensor(w), padding); },
      py::arg("weight"), py::arg("padding") = 1, "Convolution filters [kh, kw, in, out] (in 1 or 3) as one image.");
  v.def(
      "weight_images",
      [](py::handle w, const std::vector<int64_t>& shape, int64_t max_units, int64_t padding) {
        return viz::weight_images(as_tensor(w), shape, max_units, padding);
      },
      py::arg("weight"), py::arg("shape"), py::arg("max_units") = 400, py::arg("padding") = 1,
      "Each unit's incoming weights [n_in, units] as an image of `shape`, in one grid.");
  v.def(
      "write_image", [](const std::string& path, py::handle image) { data::write_image(path, as_tensor(image)); },
      py::arg("path"), py::arg("image"), "A uint8 image [H, W(, C)] as PNG (or JPEG, by the extension).");
  v.def(
      "image_grid",
      [](py::handle images, int64_t rows, int64_t cols, int64_t padding) {
        return viz::image_grid(as_tensor(images), rows, cols, padding);
      },
      py::arg("images"), py::arg("rows") = 0, py::arg("cols") = 0, py::arg("padding") = 0,
      "Images [N, H, W(, C)] in a grid, valued as TensorLayer's save_images values them.");
}

}  // namespace strata::python
