// DataParallel against single-process training: every rank also trains, on its own, a copy of
// the model on the whole global batch (the reference); the data-parallel model, which saw only
// this rank's slice of each batch, must end with the same weights.
#include <gtest/gtest.h>

#include <cstring>

#include "strata/dist/dist.hpp"
#include "strata/strata.hpp"

namespace strata {
namespace {

struct MLP : nn::Module {
  nn::Dense a{16, nn::tanh}, b{12, nn::relu}, out{3};
  Tensor forward(const Tensor& x) override { return out(b(a(x))); }
};

// The same data on every rank: 47 rows (batches of 10 leave a last one of 7).
std::pair<Tensor, Tensor> dataset() {
  Generator gen(7);
  Tensor x = randn({47, 5}, kFloat32, &gen);
  Tensor y = randint(0, 3, {47}, kInt64, &gen);
  return {x, y};
}

void copy_weights(const nn::Layer& from, nn::Layer& to) {
  auto src = from.all_weights(), dst = to.all_weights();
  ASSERT_EQ(src.size(), dst.size());
  for (size_t i = 0; i < src.size(); ++i) std::memcpy(dst[i].raw_data(), src[i].raw_data(), src[i].nbytes());
}

void expect_same_weights(const nn::Layer& got, const nn::Layer& want, double tolerance) {
  auto g = got.named_weights();
  auto w = want.all_weights();
  ASSERT_EQ(g.size(), w.size());
  for (size_t i = 0; i < g.size(); ++i) {
    auto gv = g[i].second.to_vector<double>(), wv = w[i].to_vector<double>();
    for (size_t k = 0; k < gv.size(); ++k)
      ASSERT_NEAR(gv[k], wv[k], tolerance) << g[i].first << "[" << k << "] on rank " << dist::world().rank;
  }
}

// A rank-dependent initialisation, so that the test sees DataParallel broadcast rank 0's.
void build(MLP& net, const Tensor& x) {
  manual_seed(100 + dist::world().rank);
  net(x.narrow(0, 0, 2));
}

TEST(DistDataParallel, StartsFromRankZerosWeights) {
  auto [x, y] = dataset();
  MLP net;
  build(net, x);
  dist::DataParallel model(net);
  for (const Tensor& w : net.all_weights()) {
    Tensor gathered = dist::all_gather(w);
    for (int r = 1; r < dist::world().size; ++r)
      EXPECT_EQ(gathered.select(0, r).to_vector<double>(), gathered.select(0, 0).to_vector<double>());
  }
}

// A hand-written loop: the global batch of 12 rows split evenly, SGD with momentum, 6 steps,
// with one bucket (the default 25 MB), with a bucket per few weights (b's and a's weight matrices
// alone), and with 1-byte buckets: every weight alone, reduced in its own gradient with no copy.
TEST(DistDataParallel, SameWeightsAsOneProcessOnTheGlobalBatch) {
  auto [x, y] = dataset();
  const int rank = dist::world().rank, size = dist::world().size;
  for (double bucket_mb : {25.0, 0.0003, 1.0 / (1 << 20)}) {
    MLP net, reference;
    build(net, x);
    dist::DataParallel model(net, {.bucket_megabytes = bucket_mb});
    reference(x.narrow(0, 0, 2));
    copy_weights(net, reference);
    if (bucket_mb < 1) EXPECT_GE(model.stats().buckets, 3);
    if (bucket_mb < 1e-4) EXPECT_EQ(model.stats().buckets, 6);
    optim::SGD sgd(model.trainable_weights(), {.lr = 0.1, .momentum = 0.9});
    optim::SGD ref_sgd(reference.trainable_weights(), {.lr = 0.1, .momentum = 0.9});
    const int64_t batch = 12;  // divisible by 2 and 3
    for (int64_t step = 0; step < 6; ++step) {
      const int64_t start = (step * batch) % 36;
      const Tensor bx = x.narrow(0, start, batch), by = y.narrow(0, start, batch);
      const int64_t per_rank = batch / size;
      sgd.zero_grad();
      cross_entropy(model(bx.narrow(0, rank * per_rank, per_rank)), by.narrow(0, rank * per_rank, per_rank)).backward();
      sgd.step();
      ref_sgd.zero_grad();
      cross_entropy(reference(bx), by).backward();
      ref_sgd.step();
    }
    EXPECT_EQ(model.stats().passes, 6);
    expect_same_weights(net, reference, 1e-5);
  }
}

// train::fit on a DataParallel model with `parallel`, and on a one-process copy starting from the
// same weights with `single`; both must end with the same weights. Returns the data-parallel run's
// History and how many backward passes it reduced.
std::pair<train::History, int64_t> fit_against_one_process(const train::FitOptions& parallel,
                                                           const train::FitOptions& single) {
  auto [x, y] = dataset();
  MLP net, reference;
  build(net, x);
  dist::DataParallel model(net, {.bucket_megabytes = 0.0005});
  reference(x.narrow(0, 0, 2));
  copy_weights(net, reference);
  optim::SGD sgd(model.trainable_weights(), {.lr = 0.05, .momentum = 0.5});
  optim::SGD ref_sgd(reference.trainable_weights(), {.lr = 0.05, .momentum = 0.5});
  train::History h = train::fit(model, sgd, {}, {x, y}, parallel);
  train::fit(reference, ref_sgd, {}, {x, y}, single);
  expect_same_weights(net, reference, 1e-5);
  return {h, model.stats().passes};
}

// train::fit unchanged: batches of 10 split 5/5 or 3/3/4, the last one of 7 too, shuffled.
TEST(DistDataParallel, FitTrainsLikeOneProcess) {
  const train::FitOptions options{.epochs = 3, .batch_size = 10, .seed = 3, .verbose = 0};
  const train::History h = fit_against_one_process(options, options).first;
  // Logs are averaged over the ranks: every rank reports the same numbers.
  Tensor loss = dist::all_gather(from_vector(std::vector<double>{h.at(2).at("loss")}));
  for (int r = 0; r < dist::world().size; ++r) EXPECT_EQ(loss.to_vector<double>()[r], loss.to_vector<double>()[0]);
}

// fit's gradient accumulation: batches of 6 in groups of 2, the first pass of each step under
// no_sync, train like one process with batches of 12 (47 rows: the last step is a batch of 6 and
// one of 5, split 2/3 or 1/2/2). One reduction a step: 4 an epoch, not 8.
TEST(DistDataParallel, FitAccumulatesGradientsLikeOneProcessWithBiggerBatches) {
  const int64_t passes =
      fit_against_one_process({.epochs = 3, .batch_size = 6, .gradient_accumulation_steps = 2, .seed = 3, .verbose = 0},
                              {.epochs = 3, .batch_size = 12, .seed = 3, .verbose = 0})
          .second;
  EXPECT_EQ(passes, 12);
}

// A model whose second head can be left out of a pass (its weights then get no gradient).
struct TwoHeads : nn::Module {
  nn::Dense used{3}, unused{3, {}, "unused_head"};
  bool both = true;
  Tensor forward(const Tensor& x) override { return both ? used(x) + unused(x) : used(x); }
};

// Gradient accumulation: each step is two micro-batches of 6 rows, the first backward under
// no_sync. That pass must leave every rank its own gradient (no communication: the ranks' differ);
// the second averages the sums, so the weights follow one process accumulating both micro-batches
// of the whole data.
TEST(DistDataParallel, NoSyncAccumulatesLocallyAndTheNextBackwardAverages) {
  auto [x, y] = dataset();
  const int rank = dist::world().rank, size = dist::world().size;
  MLP net, reference;
  build(net, x);
  dist::DataParallel model(net, {.bucket_megabytes = 0.0003});  // several buckets
  reference(x.narrow(0, 0, 2));
  copy_weights(net, reference);
  optim::SGD sgd(model.trainable_weights(), {.lr = 0.1, .momentum = 0.9});
  optim::SGD ref_sgd(reference.trainable_weights(), {.lr = 0.1, .momentum = 0.9});
  const int64_t micro = 6, per_rank = micro / size;  // 6: divisible by 2 and 3
  const auto local_slice = [&](const Tensor& t, int64_t start) { return t.narrow(0, start + rank * per_rank, per_rank); };
  for (int64_t step = 0; step < 4; ++step) {
    const int64_t first = (step * 2 * micro) % 36, second = first + micro;
    sgd.zero_grad();
    {
      auto local = model.no_sync();
      cross_entropy(model(local_slice(x, first)), local_slice(y, first)).backward();
    }
    EXPECT_EQ(model.stats().passes, step);
    if (size > 1) {
      const Tensor grads = dist::all_gather(net.a.trainable_weights()[0].grad());
      EXPECT_FALSE(allclose(grads.select(0, 0), grads.select(0, 1))) << "the no_sync pass was averaged";
    }
    cross_entropy(model(local_slice(x, second)), local_slice(y, second)).backward();
    EXPECT_EQ(model.stats().passes, step + 1);
    sgd.step();
    ref_sgd.zero_grad();
    cross_entropy(reference(x.narrow(0, first, micro)), y.narrow(0, first, micro)).backward();
    cross_entropy(reference(x.narrow(0, second, micro)), y.narrow(0, second, micro)).backward();
    ref_sgd.step();
  }
  expect_same_weights(net, reference, 1e-5);
}

// A pass that left weights without a gradient is refused by the next forward, which names them,
// and by no_sync.
TEST(DistDataParallel, AWeightWithoutGradientIsNamedAtTheNextForward) {
  TwoHeads net;
  auto [x, y] = dataset();
  net(x);
  dist::DataParallel model(net);
  net.both = false;
  sum(model(x)).backward();
  EXPECT_THROW(auto local = model.no_sync(), Error);
  try {
    model(x);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("unused_head/W"), std::string::npos) << e.what();
  }
}

TEST(DistDataParallel, RefusesAModelWithoutWeightsAndABadBucketSize) {
  MLP net;
  EXPECT_THROW(dist::DataParallel{net}, Error);
  auto [x, y] = dataset();
  net(x);
  EXPECT_THROW(dist::DataParallel(net, {.bucket_megabytes = 0}), Error);
  EXPECT_THROW(dist::DataParallel(net, {.first_bucket_megabytes = -1}), Error);
}

// The last weight, out's bias (3 floats), fills a first bucket of 100 bytes; the rest (under 1 KB)
// shares the second; with the defaults everything is one bucket of 1 MB at most.
TEST(DistDataParallel, TheFirstBucketHasItsOwnSize) {
  auto [x, y] = dataset();
  MLP net;
  net(x);
  EXPECT_EQ(dist::DataParallel(net, {.first_bucket_megabytes = 100.0 / (1 << 20)}).stats().buckets, 2);
  EXPECT_EQ(dist::DataParallel(net).stats().buckets, 1);
}

// Two weight matrices of 1 MiB or more (450x600 and 600x500 floats) among small weights: each is
// a bucket of its own, reduced in place, and the small ones around them are not merged across
// it. Backward from the last weight: [out's bias and matrix, b's bias], [b's matrix], [a's bias],
// [a's matrix]. (Before, b's bias, and a's matrix shared a 5 MB bucket with b's: 2 buckets.)
// The averaged gradients are those of the whole batch on one process.
TEST(DistDataParallel, AGradientOfAMebibyteOrMoreIsABucketOfItsOwn) {
  struct Wide : nn::Module {
    nn::Dense a{600, nn::tanh}, b{500, nn::relu}, out{3};
    Tensor forward(const Tensor& x) override { return out(b(a(x))); }
  };
  const int rank = dist::world().rank, size = dist::world().size;
  Generator gen(11);
  const int64_t batch = 6;  // divisible by 2 and 3
  const Tensor x = randn({batch, 450}, kFloat32, &gen), y = randint(0, 3, {batch}, kInt64, &gen);
  Wide net, reference;
  net(x);
  reference(x);
  dist::DataParallel model(net);
  copy_weights(net, reference);  // after the broadcast of rank 0's
  EXPECT_EQ(model.stats().buckets, 4);
  const int64_t per_rank = batch / size;
  cross_entropy(model(x.narrow(0, rank * per_rank, per_rank)), y.narrow(0, rank * per_rank, per_rank)).backward();
  cross_entropy(reference(x), y).backward();
  const auto got = net.named_weights();
  const auto want = reference.all_weights();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_TRUE(allclose(got[i].second.grad(), want[i].grad(), 1e-4, 1e-6)) << got[i].first << " on rank " << rank;
}

}  // namespace
}  // namespace strata
