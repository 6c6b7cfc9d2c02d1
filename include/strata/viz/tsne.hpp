// t-SNE (van der Maaten & Hinton, 2008), exact, as scikit-learn's TSNE(method="exact") computes
// it: what TensorLayer's tl.visualize.tsne_embedding runs on word embeddings before drawing them.
// And the picture: points in their class colours, optionally each with its text.
//
//   Tensor xy = viz::tsne(embeddings);                       // [N, D] -> [N, 2]
//   viz::save_embedding_plot(xy, "words.png", {}, words);    // TensorLayer's tsne_embedding picture
//
// Exact means O(N²) time and memory per iteration (scikit-learn's default is Barnes-Hut's
// approximation): up to max_points points (5,000: the affinities take N² doubles, 200 MB).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "strata/core/tensor.hpp"

namespace strata::viz {

struct TsneOptions {
  double perplexity = 30;          // effective neighbours; must be < N
  double early_exaggeration = 12;  // P multiplied by it for the first 250 iterations
  double learning_rate = 0;        // 0: scikit-learn's "auto", max(N / early_exaggeration / 4, 50)
  int64_t iterations = 1000;       // in all, the 250 exaggerated ones included (at least 250)
  bool pca_init = true;            // start from the first two principal components (else random)
  uint64_t seed = 0;               // the random start's
  int64_t max_points = 5000;
};

// embeddings [N, D] (float) -> [N, 2] float32. Throws strata::Error for N < 2, a perplexity not
// in (0, N - 1), more than max_points points, or a non-finite value.
Tensor tsne(const Tensor& embeddings, const TsneOptions& options = {});

// The symmetric affinities P [N, N] t-SNE fits (the diagonal 0, the rest at least float64's
// epsilon, summing to 1 off the diagonal), from each point's Gaussian over the squared distances
// with its width found by bisection so that its entropy is log(perplexity) within 1e-5.
Tensor tsne_affinities(const Tensor& embeddings, double perplexity);

// KL(P || Q) of an embedding Y [N, 2] for affinities P [N, N], Q the Student-t similarities of Y.
double tsne_kl_divergence(const Tensor& affinities, const Tensor& embedding);

// points [N, 2] drawn into a white uint8 [height, width, 3] image, scaled to fill it within the
// margin: a filled dot (radius 3) per point in the palette colour of labels[i] (curve_color;
// all the first colour when labels is empty), and texts[i], when given, written beside it in the
// 7 x 14 pixel font.
struct EmbeddingPlotOptions {
  int64_t width = 800, height = 800, margin = 30;
};
Tensor plot_embedding(const Tensor& points, const std::vector<int64_t>& labels = {},
                      const std::vector<std::string>& texts = {}, const EmbeddingPlotOptions& options = {});
void save_embedding_plot(const Tensor& points, const std::string& path, const std::vector<int64_t>& labels = {},
                         const std::vector<std::string>& texts = {}, const EmbeddingPlotOptions& options = {});

}  // namespace strata::viz
