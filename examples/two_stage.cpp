// A two-stage plan (TensorLayer's paper: a CNN trained first, an RNN on its features after it):
// task 1 trains the Fashion-MNIST CNN and saves it in the hub; task 2, which runs only once
// task 1 has succeeded, loads that CNN, turns images into its 256 hidden features, and trains an
// LSTM on sequences of them. The sequence task needs memory, not just the features: at each step
// of a sequence of --length images, say whether this image's class was already seen earlier in
// the sequence. Its test accuracy is printed beside two references: the best guess without
// looking (each position's majority answer) and an exact memory of the CNN's own predicted
// classes (what a perfect sequence model could reach from this CNN).
//   strata_two_stage --help

#include <strata/workflow/plan.hpp>

#include "fashion_mnist_plans.hpp"

using namespace strata;
using namespace fashion_mnist_plans;
using nlohmann::json;

namespace {

struct Flags {
  PlanFlags common{.hub = "two_stage.db", .workers = 1};
  int64_t train = 12000, test = 2000, cnn_epochs = 2, sequences = 4000, length = 8, rnn_epochs = 10;
};

const char* kAbout =
    "strata_two_stage: a plan of two tasks: train the Fashion-MNIST CNN, then an LSTM on its features.\n"
    "  strata_two_stage [flags]             submit the plan and run it on --workers local processes\n"
    "                                       (one by default: the stages run one after the other)\n"
    "  strata_two_stage worker --hub URL    only run tasks (one per machine on a shared hub)";

Flags parse(int argc, char** argv) {
  using flag_checks::at_least;
  Flags f;
  CLI::App app(kAbout);
  app.add_option("--train", f.train, "training images")->type_name("N")->check(at_least(1))->capture_default_str();
  app.add_option("--test", f.test, "test images")->type_name("N")->check(at_least(1))->capture_default_str();
  app.add_option("--cnn-epochs", f.cnn_epochs, "the CNN's epochs")->type_name("N")->check(at_least(1))->capture_default_str();
  app.add_option("--sequences", f.sequences, "training sequences (test sequences: a quarter of it)")
      ->type_name("N")->check(at_least(4))->capture_default_str();
  app.add_option("--length", f.length, "images per sequence")->type_name("T")->check(at_least(1))->capture_default_str();
  app.add_option("--rnn-epochs", f.rnn_epochs, "the LSTM's epochs")->type_name("N")->check(at_least(1))->capture_default_str();
  parse_flags(app, f.common, argc, argv);
  return f;
}

// The CNN's hidden features [N, 256] of images [N, 28, 28, 1] (eval mode, no autograd), and
// its predicted classes.
struct Features {
  Tensor hidden, predicted;
};
Features cnn_features(FashionMnistCnn& net, const Tensor& images) {
  autograd::NoGradGuard no_grad;
  net.eval();
  std::vector<Tensor> hidden, predicted;
  for (int64_t at = 0; at < images.shape()[0]; at += 1000) {
    const Tensor x = images.narrow(0, at, std::min<int64_t>(1000, images.shape()[0] - at));
    const Tensor h = net.features(x);
    hidden.push_back(h);
    predicted.push_back(argmax(net.out(h), -1));
  }
  return {concat(hidden, 0), concat(predicted, 0)};
}

// `count` sequences of `length` random rows of `labels` [N]: the rows [count, length] and the
// answers [count, length] (1 where the row's class came earlier in its sequence).
struct Sequences {
  Tensor rows, seen_before;
};
Sequences make_sequences(const Tensor& labels, int64_t count, int64_t length, uint64_t seed) {
  Generator g(seed);
  const Tensor rows = randint(0, labels.shape()[0], {count, length}, kInt64, &g);
  const std::vector<int64_t> flat_rows = rows.to_vector<int64_t>(), label = labels.to_vector<int64_t>();
  std::vector<int64_t> answer(flat_rows.size());
  for (int64_t s = 0; s < count; ++s) {
    std::vector<bool> seen(10, false);
    for (int64_t t = 0; t < length; ++t) {
      const int64_t c = label[flat_rows[s * length + t]];
      answer[s * length + t] = seen[c];
      seen[c] = true;
    }
  }
  return {rows, from_vector(answer, {count, length})};
}

// Outputs [batch, time, 2]: the two answers' logits at every step.
struct SeenBeforeNet : nn::Module {
  nn::LSTM lstm{64};
  nn::Dense out{2};
  Tensor forward(const Tensor& x) override { return out(lstm(x)); }
};

json train_cnn_task(workflow::TaskContext& ctx) {
  const Split split = load_split(ctx.params.at("train_rows"), ctx.params.at("test_rows"));
  const TrainedCnn cnn = train_cnn({}, ctx.params.at("epochs").get<double>(), split.train, split.test, 7);
  ctx.outputs.save_model("two_stage_cnn", cnn.net->named_weights(), {.metrics = {{"accuracy", cnn.accuracy}}});
  ctx.log("CNN test accuracy " + std::to_string(cnn.accuracy));
  return {{"cnn_accuracy", cnn.accuracy}};
}

json train_sequence_task(workflow::TaskContext& ctx) {
  const int64_t count = ctx.params.at("sequences"), length = ctx.params.at("length");
  const Split split = load_split(ctx.params.at("train_rows"), ctx.params.at("test_rows"));
  const hub::LoadedModel stored = ctx.hub.load_model("two_stage_cnn");  // what stage 1 committed
  FashionMnistCnn cnn;
  cnn(split.train.x.narrow(0, 0, 1));
  nn::assign_weights(cnn, stored.weights);
  const Features train_features = cnn_features(cnn, split.train.x), test_features = cnn_features(cnn, split.test.x);

  const Sequences train_seq = make_sequences(split.train.y, count, length, 11);
  const Sequences test_seq = make_sequences(split.test.y, count / 4, length, 12);
  auto inputs = [](const Features& f, const Sequences& s) {
    return index_select(f.hidden, 0, s.rows.reshape({-1})).reshape({s.rows.shape()[0], s.rows.shape()[1], -1});
  };
  manual_seed(13);
  SeenBeforeNet rnn;
  const Tensor x_train = inputs(train_features, train_seq), x_test = inputs(test_features, test_seq);
  rnn(x_train.narrow(0, 0, 1));
  optim::Adam adam(rnn.trainable_weights(), {.lr = 3e-3});
  train::fit(rnn, adam, {}, {x_train, train_seq.seen_before},
             {.epochs = ctx.params.at("epochs").get<int64_t>(), .batch_size = 50, .seed = 13, .verbose = 0});
  const double accuracy = train::evaluate(rnn, {}, x_test, test_seq.seen_before, 500).at("accuracy");

  // References on the same test sequences: each position's majority answer in training, and an
  // exact memory of the CNN's predicted classes.
  const std::vector<int64_t> train_answer = train_seq.seen_before.to_vector<int64_t>();
  std::vector<int64_t> yes(length, 0);
  for (size_t i = 0; i < train_answer.size(); ++i) yes[i % length] += train_answer[i];
  const Sequences with_cnn_classes = make_sequences(test_features.predicted, count / 4, length, 12);
  const std::vector<int64_t> truth = test_seq.seen_before.to_vector<int64_t>(),
                             memory = with_cnn_classes.seen_before.to_vector<int64_t>();
  int64_t majority_right = 0, memory_right = 0;
  for (size_t i = 0; i < truth.size(); ++i) {
    majority_right += truth[i] == (2 * yes[i % length] > count);
    memory_right += truth[i] == memory[i];
  }
  const double majority = double(majority_right) / truth.size(), exact_memory = double(memory_right) / truth.size();
  ctx.outputs.save_model("two_stage_sequence", rnn.named_weights(),
                         {.metrics = {{"accuracy", accuracy}, {"majority", majority}, {"cnn_exact_memory", exact_memory}}});
  return {{"accuracy", accuracy}, {"majority", majority}, {"cnn_exact_memory", exact_memory}};
}

workflow::TaskRegistry kinds() {
  using workflow::ParamType;
  auto integer = [](std::string name) { return workflow::ParamSpec{.name = std::move(name), .type = ParamType::integer, .required = true}; };
  workflow::TaskRegistry registry;
  registry.add({.name = "train_cnn", .params = {integer("train_rows"), integer("test_rows"), integer("epochs")}, .fn = train_cnn_task});
  registry.add({.name = "train_sequence_model",
                .params = {integer("train_rows"), integer("test_rows"), integer("sequences"), integer("length"), integer("epochs")},
                .fn = train_sequence_task});
  return registry;
}

}  // namespace

int main(int argc, char** argv) {
  const Flags f = parse(argc, argv);
  if (f.common.worker) return run_worker(f.common.hub, kinds(), f.common.exit_when_idle);

  workflow::Plan plan("two-stage");
  const json rows = {{"train_rows", f.train}, {"test_rows", f.test}};
  json cnn_params = rows, rnn_params = rows;
  cnn_params["epochs"] = f.cnn_epochs;
  rnn_params.update({{"epochs", f.rnn_epochs}, {"sequences", f.sequences}, {"length", f.length}});
  const int64_t cnn = plan.add({.kind = "train_cnn", .params = cnn_params.dump(), .name = "cnn", .model = "two_stage_cnn"});
  plan.add({.kind = "train_sequence_model", .params = rnn_params.dump(), .name = "sequence", .model = "two_stage_sequence",
            .after = {cnn}});

  hub::Hub hub = hub::Hub::open(f.common.hub);
  workflow::Queue queue(hub);
  const workflow::PlanProgress submitted = queue.submit(plan);
  std::printf("submitted plan %lld (cnn, then sequence); running it on %d worker processes\n",
              static_cast<long long>(submitted.plan_id), f.common.workers);
  std::fflush(stdout);  // before the workers write to the same stdout
  run_local_workers(f.common.workers, f.common.hub);
  expect_plan_succeeded(hub, submitted.plan_id);

  const json first = json::parse(*queue.get(submitted.task_ids[0])->result);
  const json second = json::parse(*queue.get(submitted.task_ids[1])->result);
  std::printf("stage 1, CNN: test accuracy %.4f\n", first.at("cnn_accuracy").get<double>());
  std::printf("stage 2, LSTM on the CNN's features, \"class seen before?\" per step: test accuracy %.4f "
              "(each position's majority answer: %.4f; exact memory of the CNN's classes: %.4f)\n",
              second.at("accuracy").get<double>(), second.at("majority").get<double>(),
              second.at("cnn_exact_memory").get<double>());
  return 0;
}
