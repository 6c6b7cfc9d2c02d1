// Exact t-SNE, step for step as scikit-learn 1.5's TSNE(method="exact"): the perplexity search of
// sklearn/manifold/_utils.pyx, the joint probabilities and the Student-t gradient of _t_sne.py,
// and its gradient descent with momentum and per-parameter gains. In float64 throughout.
#include "strata/viz/tsne.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "bitmap_font.hpp"
#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/data/image_codec.hpp"
#include "strata/viz/visualize.hpp"

namespace strata::viz {
namespace {

constexpr double kEpsilon = std::numeric_limits<double>::epsilon();  // scikit-learn's MACHINE_EPSILON
constexpr int64_t kExplorationIterations = 250;
constexpr int64_t kParallelPoints = 512;  // below, a thread team costs more than the N² loop it shares

struct Points {
  int64_t n = 0, d = 0;
  std::vector<double> x;  // row-major [n, d]
};

Points read_points(const Tensor& t, const char* what, int64_t max_points) {
  STRATA_CHECK(t.defined() && t.dim() == 2 && is_floating(t.dtype()), what, ": expected float points [N, D], got ",
               t.defined() ? t.shape().str() : "an undefined tensor");
  Points p{t.shape()[0], t.shape()[1], t.contiguous().to_vector<double>()};
  STRATA_CHECK(p.n >= 2 && p.d >= 1, what, ": needs at least 2 points of at least 1 value, got ", t.shape().str());
  STRATA_CHECK(p.n <= max_points, what, ": ", p.n, " points is more than max_points = ", max_points,
               " (exact t-SNE keeps N² affinities)");
  for (double v : p.x) STRATA_CHECK(std::isfinite(v), what, ": the points hold a NaN or an infinity");
  return p;
}

std::vector<double> squared_distances(const Points& p) {
  std::vector<double> dist(static_cast<size_t>(p.n * p.n), 0.0);
#pragma omp parallel for schedule(dynamic, 16) if (p.n >= kParallelPoints)
  for (int64_t i = 0; i < p.n; ++i)
    for (int64_t j = i + 1; j < p.n; ++j) {
      double s = 0;
      for (int64_t k = 0; k < p.d; ++k) {
        const double diff = p.x[i * p.d + k] - p.x[j * p.d + k];
        s += diff * diff;
      }
      // scikit-learn searches the perplexity on float32 distances: rounded alike, the same P
      dist[i * p.n + j] = dist[j * p.n + i] = static_cast<float>(s);
    }
  return dist;
}

// Row i of the conditional P_{j|i}: exp(-beta d_ij) normalised, beta bisected (100 steps at most)
// until the row's entropy is log(perplexity) within 1e-5 (_binary_search_perplexity).
void conditional_row(const double* d, int64_t n, int64_t i, double desired_entropy, double* p) {
  double beta = 1, beta_min = -std::numeric_limits<double>::infinity(),
         beta_max = std::numeric_limits<double>::infinity();
  for (int step = 0; step < 100; ++step) {
    double sum = 0;
    for (int64_t j = 0; j < n; ++j) {
      p[j] = j == i ? 0.0 : std::exp(-d[j] * beta);
      sum += p[j];
    }
    if (sum == 0) sum = 1e-8;  // scikit-learn's EPSILON_DBL
    double weighted = 0;
    for (int64_t j = 0; j < n; ++j) {
      p[j] /= sum;
      weighted += d[j] * p[j];
    }
    const double diff = std::log(sum) + beta * weighted - desired_entropy;
    if (std::abs(diff) <= 1e-5) break;
    if (diff > 0) {
      beta_min = beta;
      beta = std::isinf(beta_max) ? beta * 2 : (beta + beta_max) / 2;
    } else {
      beta_max = beta;
      beta = std::isinf(beta_min) ? beta / 2 : (beta + beta_min) / 2;
    }
  }
}

std::vector<double> joint_probabilities(const Points& pts, double perplexity) {
  STRATA_CHECK(perplexity > 0 && perplexity < static_cast<double>(pts.n - 1), "tsne: perplexity ", perplexity,
               " must lie in (0, N - 1) = (0, ", pts.n - 1, ")");
  const int64_t n = pts.n;
  const std::vector<double> dist = squared_distances(pts);
  std::vector<double> cond(static_cast<size_t>(n * n));
#pragma omp parallel for schedule(dynamic, 8) if (n >= kParallelPoints)
  for (int64_t i = 0; i < n; ++i) conditional_row(&dist[i * n], n, i, std::log(perplexity), &cond[i * n]);
  std::vector<double> p(static_cast<size_t>(n * n), 0.0);
  double sum = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) sum += 2 * (cond[i * n + j] + cond[j * n + i]);
  sum = std::max(sum, kEpsilon);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j)
      p[i * n + j] = p[j * n + i] = std::max((cond[i * n + j] + cond[j * n + i]) / sum, kEpsilon);
  return p;
}

// KL(P || Q) and its gradient for the embedding y [n, 2] (_kl_divergence: one degree of freedom).
double kl_and_gradient(const std::vector<double>& p, const std::vector<double>& y, int64_t n,
                       std::vector<double>* grad) {
  std::vector<double> w(static_cast<size_t>(n * n), 0.0);  // (1 + |y_i - y_j|²)^-1
  double wsum = 0;
#pragma omp parallel for reduction(+ : wsum) schedule(dynamic, 16) if (n >= kParallelPoints)
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j) {
      const double dx = y[2 * i] - y[2 * j], dy = y[2 * i + 1] - y[2 * j + 1];
      w[i * n + j] = w[j * n + i] = 1 / (1 + dx * dx + dy * dy);
      wsum += 2 * w[i * n + j];
    }
  double kl = 0;
#pragma omp parallel for reduction(+ : kl) schedule(dynamic, 16) if (n >= kParallelPoints)
  for (int64_t i = 0; i < n; ++i) {
    double gx = 0, gy = 0;
    for (int64_t j = 0; j < n; ++j) {
      if (j == i) continue;
      const double q = std::max(w[i * n + j] / wsum, kEpsilon), pij = p[i * n + j];
      if (j > i) kl += 2 * pij * std::log(std::max(pij, kEpsilon) / q);
      const double f = (pij - q) * w[i * n + j];
      gx += f * (y[2 * i] - y[2 * j]);
      gy += f * (y[2 * i + 1] - y[2 * j + 1]);
    }
    if (grad != nullptr) (*grad)[2 * i] = 4 * gx, (*grad)[2 * i + 1] = 4 * gy;
  }
  return kl;
}

// The first two principal components' scores, scaled so the first has standard deviation 1e-4
// (scikit-learn's init="pca"); by power iteration on the covariance, then deflation.
std::vector<double> pca_start(const Points& pts) {
  const int64_t n = pts.n, d = pts.d;
  std::vector<double> centred = pts.x, mean(static_cast<size_t>(d), 0.0);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < d; ++k) mean[k] += pts.x[i * d + k] / static_cast<double>(n);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t k = 0; k < d; ++k) centred[i * d + k] -= mean[k];
  std::vector<double> y(static_cast<size_t>(2 * n), 0.0);
  for (int component = 0; component < 2 && component < d; ++component) {
    std::vector<double> v(static_cast<size_t>(d));
    for (int64_t k = 0; k < d; ++k) v[k] = 1.0 / (1.0 + static_cast<double>(k + component));
    for (int iteration = 0; iteration < 200; ++iteration) {  // v <- Xᵀ X v, normalised
      std::vector<double> xv(static_cast<size_t>(n), 0.0), next(static_cast<size_t>(d), 0.0);
      for (int64_t i = 0; i < n; ++i)
        for (int64_t k = 0; k < d; ++k) xv[i] += centred[i * d + k] * v[k];
      for (int64_t i = 0; i < n; ++i)
        for (int64_t k = 0; k < d; ++k) next[k] += centred[i * d + k] * xv[i];
      double norm = 0;
      for (double e : next) norm += e * e;
      norm = std::sqrt(norm);
      if (norm == 0) break;
      for (int64_t k = 0; k < d; ++k) v[k] = next[k] / norm;
    }
    for (int64_t i = 0; i < n; ++i) {
      double score = 0;
      for (int64_t k = 0; k < d; ++k) score += centred[i * d + k] * v[k];
      y[2 * i + component] = score;
      for (int64_t k = 0; k < d; ++k) centred[i * d + k] -= score * v[k];  // deflate
    }
  }
  double mean0 = 0, var0 = 0;
  for (int64_t i = 0; i < n; ++i) mean0 += y[2 * i] / static_cast<double>(n);
  for (int64_t i = 0; i < n; ++i) var0 += (y[2 * i] - mean0) * (y[2 * i] - mean0) / static_cast<double>(n);
  const double scale = var0 > 0 ? 1e-4 / std::sqrt(var0) : 1.0;
  for (double& e : y) e *= scale;
  return y;
}

std::vector<double> random_start(int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1e-4);
  std::vector<double> y(static_cast<size_t>(2 * n));
  for (double& e : y) e = normal(rng);
  return y;
}

Tensor square_tensor(const std::vector<double>& v, int64_t n) { return from_vector(v, Shape{n, n}); }

}  // namespace

Tensor tsne_affinities(const Tensor& embeddings, double perplexity) {
  const Points pts = read_points(embeddings, "tsne_affinities", TsneOptions{}.max_points);
  return square_tensor(joint_probabilities(pts, perplexity), pts.n);
}

double tsne_kl_divergence(const Tensor& affinities, const Tensor& embedding) {
  STRATA_CHECK(embedding.defined() && embedding.dim() == 2 && embedding.shape()[1] == 2,
               "tsne_kl_divergence: ", "expected an embedding [N, 2]");
  const int64_t n = embedding.shape()[0];
  STRATA_CHECK(affinities.defined() && affinities.shape() == Shape({n, n}), "tsne_kl_divergence: expected affinities [",
               n, ", ", n, "]");
  return kl_and_gradient(affinities.contiguous().to_vector<double>(), embedding.contiguous().to_vector<double>(), n,
                         nullptr);
}

Tensor tsne(const Tensor& embeddings, const TsneOptions& o) {
  const Points pts = read_points(embeddings, "tsne", o.max_points);
  STRATA_CHECK(o.iterations >= kExplorationIterations && o.iterations <= 1000000, "tsne: iterations ", o.iterations,
               " must lie in [", kExplorationIterations, ", 1000000]");
  STRATA_CHECK(o.early_exaggeration >= 1 && o.learning_rate >= 0 && std::isfinite(o.learning_rate),
               "tsne: ", "early_exaggeration must be >= 1 and learning_rate >= 0 (0: auto)");
  const int64_t n = pts.n;
  std::vector<double> p = joint_probabilities(pts, o.perplexity);
  std::vector<double> y = o.pca_init ? pca_start(pts) : random_start(n, o.seed);
  const double lr = o.learning_rate > 0 ? o.learning_rate : std::max(n / o.early_exaggeration / 4, 50.0);
  std::vector<double> grad(y.size());
  // scikit-learn's _gradient_descent from iteration `from` to `to` (fresh momentum and gains at
  // each call); every 50 iterations it stops when the gradient is below 1e-7 or the KL has not
  // improved for `patience` iterations. Returns the last iteration run.
  auto descend = [&](int64_t from, int64_t to, double momentum, int64_t patience) {
    std::vector<double> update(y.size(), 0.0), gains(y.size(), 1.0);
    double best = std::numeric_limits<double>::infinity();
    int64_t best_it = from;
    for (int64_t it = from; it < to; ++it) {
      const double kl = kl_and_gradient(p, y, n, &grad);
      double norm = 0;
      for (size_t k = 0; k < y.size(); ++k) {
        gains[k] = update[k] * grad[k] < 0 ? gains[k] + 0.2 : std::max(gains[k] * 0.8, 0.01);
        norm += gains[k] * grad[k] * gains[k] * grad[k];  // of the gained gradient, as scikit-learn's
        update[k] = momentum * update[k] - lr * gains[k] * grad[k];
        y[k] += update[k];
      }
      if ((it + 1) % 50 != 0) continue;
      if (kl < best) {
        best = kl, best_it = it;
      } else if (it - best_it > patience) {
        return it;
      }
      if (std::sqrt(norm) <= 1e-7) return it;
    }
    return to - 1;
  };
  // Early exaggeration: a stage that may stop early (its gradient vanishes when the start is
  // tiny and P pulls everything together), then the rest, which undoes that.
  for (double& e : p) e *= o.early_exaggeration;
  const int64_t explored = descend(0, kExplorationIterations, 0.5, kExplorationIterations);
  for (double& e : p) e /= o.early_exaggeration;
  descend(explored + 1, o.iterations, 0.8, 300);
  return from_vector(y, Shape{n, 2}).to(kFloat32);
}

Tensor plot_embedding(const Tensor& points, const std::vector<int64_t>& labels, const std::vector<std::string>& texts,
                      const EmbeddingPlotOptions& o) {
  STRATA_CHECK(points.defined() && points.dim() == 2 && points.shape()[1] == 2 && is_floating(points.dtype()),
               "plot_embedding: expected float points [N, 2]");
  const int64_t n = points.shape()[0];
  STRATA_CHECK(labels.empty() || static_cast<int64_t>(labels.size()) == n, "plot_embedding: ", labels.size(),
               " labels for ", n, " points");
  STRATA_CHECK(texts.empty() || static_cast<int64_t>(texts.size()) == n, "plot_embedding: ", texts.size(),
               " texts for ", n, " points");
  STRATA_CHECK(o.width >= 16 && o.height >= 16 && o.width <= 8192 && o.height <= 8192 && o.margin >= 0 &&
                   2 * o.margin < std::min(o.width, o.height),
               "plot_embedding: the image must be 16 to 8192 pixels a side, with a margin under half of it");
  const std::vector<double> v = points.contiguous().to_vector<double>();
  double lo[2] = {0, 0}, hi[2] = {0, 0};
  for (int a = 0; a < 2; ++a) {
    lo[a] = std::numeric_limits<double>::infinity(), hi[a] = -lo[a];
    for (int64_t i = 0; i < n; ++i) {
      STRATA_CHECK(std::isfinite(v[2 * i + a]), "plot_embedding: point ", i, " is not finite");
      lo[a] = std::min(lo[a], v[2 * i + a]), hi[a] = std::max(hi[a], v[2 * i + a]);
    }
  }
  std::vector<uint8_t> rgb(static_cast<size_t>(o.width * o.height * 3), 255);
  const uint8_t black[3] = {0, 0, 0};
  auto pixel = [&](int a, double value, int64_t size) {  // y grows downwards in the image
    const double span = hi[a] > lo[a] ? hi[a] - lo[a] : 1;
    const double f = (value - lo[a]) / span;
    return o.margin +
           static_cast<int64_t>(std::lround((a == 1 ? 1 - f : f) * static_cast<double>(size - 1 - 2 * o.margin)));
  };
  for (int64_t i = 0; i < n; ++i) {
    const int64_t x = pixel(0, v[2 * i], o.width), y = pixel(1, v[2 * i + 1], o.height);
    const std::vector<uint8_t> color =
        curve_color(labels.empty() ? 0 : static_cast<size_t>(std::max<int64_t>(labels[i], 0)));
    for (int64_t dy = -3; dy <= 3; ++dy)
      for (int64_t dx = -3; dx <= 3; ++dx)
        if (dx * dx + dy * dy <= 9)
          detail::fill_rect(rgb, o.height, o.width, 3, y + dy, x + dx, y + dy, x + dx, color.data());
    if (!texts.empty())
      detail::draw_text(rgb, o.height, o.width, 3, x + 5, y - detail::kGlyphHeight / 2, texts[i], black);
  }
  return from_vector(rgb, Shape{o.height, o.width, 3});
}

void save_embedding_plot(const Tensor& points, const std::string& path, const std::vector<int64_t>& labels,
                         const std::vector<std::string>& texts, const EmbeddingPlotOptions& options) {
  data::write_image(path, plot_embedding(points, labels, texts, options));
}

}  // namespace strata::viz
