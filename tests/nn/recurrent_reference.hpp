// Plain-double LSTM and GRU loops (Keras's formulas), independent of the library's ops, for
// checking the recurrent layers' values.
#pragma once
#include <cmath>
#include <vector>

namespace strata::testing_nn {

struct RefRun {
  std::vector<double> out;  // [batch, time, units]
  std::vector<double> h, c;  // [batch, units]
};

inline double ref_sigmoid(double v) { return 1 / (1 + std::exp(-v)); }

// x [B, T, F]; W [F, G·H]; U [H, G·H]; bias [G·H] (LSTM) or [2, 3H] (GRU: input, recurrent).
inline RefRun reference_rnn(bool lstm, const std::vector<double>& x, int B, int T, int F, int H,
                            const std::vector<double>& W, const std::vector<double>& U, const std::vector<double>& bias) {
  const int G = (lstm ? 4 : 3) * H;
  RefRun r{std::vector<double>(B * T * H), std::vector<double>(B * H), std::vector<double>(B * H)};
  for (int b = 0; b < B; ++b) {
    std::vector<double> h(H, 0), c(H, 0);
    for (int t = 0; t < T; ++t) {
      std::vector<double> xg(G, 0), hg(G, 0);
      for (int g = 0; g < G; ++g) {
        xg[g] = bias[g];
        hg[g] = lstm ? 0 : bias[G + g];
        for (int f = 0; f < F; ++f) xg[g] += x[(b * T + t) * F + f] * W[f * G + g];
        for (int k = 0; k < H; ++k) hg[g] += h[k] * U[k * G + g];
      }
      std::vector<double> hn(H);
      for (int j = 0; j < H; ++j) {
        if (lstm) {
          double i = ref_sigmoid(xg[j] + hg[j]), f = ref_sigmoid(xg[H + j] + hg[H + j]);
          double g = std::tanh(xg[2 * H + j] + hg[2 * H + j]), o = ref_sigmoid(xg[3 * H + j] + hg[3 * H + j]);
          c[j] = f * c[j] + i * g;
          hn[j] = o * std::tanh(c[j]);
        } else {
          double z = ref_sigmoid(xg[j] + hg[j]), rr = ref_sigmoid(xg[H + j] + hg[H + j]);
          double n = std::tanh(xg[2 * H + j] + rr * hg[2 * H + j]);
          hn[j] = z * h[j] + (1 - z) * n;
        }
      }
      h = hn;
      for (int j = 0; j < H; ++j) r.out[(b * T + t) * H + j] = h[j];
    }
    for (int j = 0; j < H; ++j) r.h[b * H + j] = h[j], r.c[b * H + j] = c[j];
  }
  return r;
}

}  // namespace strata::testing_nn
