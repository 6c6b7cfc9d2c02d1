// A word-level language model (Zaremba et al.'s PTB "small" configuration; TensorLayer's
// tutorial_ptb_lstm.py): a 2x200 LSTM over 200-wide embeddings, trained with truncated
// backpropagation through time (the state carried from batch to batch, the gradient cut),
// plain SGD at learning rate 1 halved each epoch after the 4th (--full-rate), gradients clipped
// to norm 5.
// Data: the PTB files when you have them (--ptb DIR), else the World English Bible (Debian's
// sword-text-web, public domain) split 90/5/5 with PTB's 10,000-word vocabulary. The quality
// figure: validation and test perplexity against an interpolated Kneser-Ney trigram counted
// here on the same training words; then text sampled with a temperature and top-k.
//   strata_language_model --help
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <strata/data/sword_text.hpp>
#include <strata/strata.hpp>
#include <strata/viz/visualize.hpp>

#include "flag_checks.hpp"
#include "kneser_ney.hpp"

using namespace strata;

namespace {

struct LanguageModel : nn::Module {
  LanguageModel(int64_t vocabulary, int64_t hidden, double dropout)
      : embed(vocabulary, hidden, nn::random_uniform(-0.1, 0.1)),
        lstm(hidden, {.num_layers = 2, .dropout = dropout,
                      .init = {nn::random_uniform(-0.1, 0.1), nn::random_uniform(-0.1, 0.1), nn::zeros_init(), false}}),
        drop(dropout),
        out(vocabulary, {}, "", -1, true, nn::random_uniform(-0.1, 0.1)) {}
  nn::Embedding embed;
  nn::LSTM lstm;
  nn::Dropout drop;
  nn::Dense out;
  // ids [B, T] and the LSTM state -> logits [B, T, V]; `state` becomes the final state.
  Tensor step(const Tensor& ids, std::vector<Tensor>& state) {
    nn::RNNResult r = lstm.run(drop(embed(ids)), state);
    state = r.state;
    return out(drop(r.output));
  }
  Tensor forward(const Tensor& ids) override {
    std::vector<Tensor> state;
    return step(ids, state);
  }
};

struct Flags {
  int64_t epochs = 13, full_rate_epochs = 4, batch = 20, steps = 20, hidden = 200, max_steps = 0, vocabulary = 10000, sample = 60, top_k = 40;
  double lr = 1.0, dropout = 0.0, temperature = 0.8;
  uint64_t seed = 1;
  std::string ptb, hub = "strata.db", out = "language_model_out", prompt = "in the beginning";
};

// The flags, parsed by CLI11 (--help lists them with their defaults).
Flags parse(int argc, char** argv) {
  Flags f;
  CLI::App app("strata_language_model: 2x200 LSTM language model (PTB small) with truncated BPTT.");
  app.add_option("--ptb", f.ptb,
                 "train on ptb.train.txt / ptb.valid.txt / ptb.test.txt in DIR (default: the World English Bible, "
                 "sword-text-web, split 90/5/5)")
      ->type_name("DIR");
  app.add_option("--epochs", f.epochs, "passes over the training words (13: PTB small's)")
      ->type_name("N")->check(flag_checks::at_least(1))->capture_default_str();
  app.add_option("--full-rate", f.full_rate_epochs, "epochs at the initial learning rate, then halved each epoch")
      ->type_name("N")->capture_default_str();
  app.add_option("--max-steps", f.max_steps, "at most N batches per epoch, 0 = all")
      ->type_name("N")->check(flag_checks::at_least(0))->capture_default_str();
  app.add_option("--batch", f.batch, "sequences per batch")
      ->type_name("N")->check(flag_checks::at_least(1))->capture_default_str();
  app.add_option("--steps", f.steps, "BPTT length (20: PTB small's num_steps)")
      ->type_name("N")->check(flag_checks::at_least(1))->capture_default_str();
  app.add_option("--hidden", f.hidden, "embedding and LSTM width")
      ->type_name("N")->check(flag_checks::at_least(1))->capture_default_str();
  app.add_option("--vocabulary", f.vocabulary, "Bible vocabulary size, <unk> included")
      ->type_name("N")->capture_default_str();
  app.add_option("--lr", f.lr, "SGD learning rate")->type_name("X")->capture_default_str();
  app.add_option("--dropout", f.dropout, "dropout on embeddings and LSTM outputs (0: PTB small's keep_prob 1)")
      ->type_name("X")->capture_default_str();
  app.add_option("--sample", f.sample, "words of text to sample after training")
      ->type_name("N")->check(flag_checks::at_least(0))->capture_default_str();
  app.add_option("--temperature", f.temperature, "sampling temperature")
      ->type_name("X")->check(flag_checks::above(0))->capture_default_str();
  app.add_option("--top-k", f.top_k, "sample among the N likeliest words")
      ->type_name("N")->check(flag_checks::at_least(1))->capture_default_str();
  app.add_option("--prompt", f.prompt, "the sampled text's start")->type_name("TEXT")->capture_default_str();
  app.add_option("--seed", f.seed, "random seed")->type_name("N")->capture_default_str();
  app.add_option("--hub", f.hub, "the hub (SQLite file) for the run's log and the model")
      ->type_name("PATH")->capture_default_str();
  app.add_option("--out", f.out, "where perplexity.png goes")->type_name("DIR")->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::exit(app.exit(e));
  }
  STRATA_CHECK(f.vocabulary >= 2 && f.dropout >= 0 && f.dropout < 1,
               "strata_language_model: --vocabulary must be >= 2 and --dropout in [0, 1)");
  return f;
}

// exp of the mean cross-entropy per word over the batches, the state carried across them.
double perplexity(LanguageModel& model, const std::vector<data::InputTargetBatch>& batches) {
  NoGradGuard no_grad;
  model.eval();
  std::vector<Tensor> state;
  double nll = 0;
  for (const auto& b : batches) {
    const Tensor logits = model.step(b.inputs, state);
    nll += cross_entropy(logits.reshape({-1, logits.shape()[2]}), b.targets.reshape({-1})).item<double>();
  }
  model.train();
  return std::exp(nll / static_cast<double>(batches.size()));
}

// --sample words after the prompt, each drawn by sample_top_k from the last step's logits.
std::string sample_text(LanguageModel& model, const data::Vocabulary& vocab, const Flags& f) {
  NoGradGuard no_grad;
  model.eval();
  std::vector<Tensor> state;
  std::vector<int64_t> ids = vocab.words_to_word_ids(data::tokenize_words(f.prompt));
  if (ids.empty()) ids.push_back(vocab.id("<eos>"));
  std::string text = f.prompt;
  Tensor logits = model.step(from_vector(ids, {1, static_cast<int64_t>(ids.size())}), state);
  for (int64_t k = 0; k < f.sample; ++k) {
    const Tensor last = select(select(logits, 0, 0), 0, logits.shape()[1] - 1);
    const int64_t id = sample_top_k(last, f.top_k, f.temperature).item<int64_t>();
    const std::string& word = vocab.word(id);
    text += word == "<eos>" ? "\n" : " " + word;
    logits = model.step(from_vector(std::vector<int64_t>{id}, {1, 1}), state);
  }
  return text;
}

}  // namespace

int main(int argc, char** argv) try {
  const Flags f = parse(argc, argv);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress lines show as they come, also in a log file
  manual_seed(f.seed);
  std::filesystem::create_directories(f.out);
  const data::PtbCorpus corpus =
      f.ptb.empty() ? data::split_corpus(data::read_sword_ztext(data::kWorldEnglishBible),
                                         {.valid = 0.05, .test = 0.05, .vocabulary = {.max_size = f.vocabulary}})
                    : data::load_ptb(f.ptb);
  const int64_t v = corpus.vocabulary.size();
  std::printf("%zu / %zu / %zu words (train / valid / test), vocabulary %lld\n", corpus.train.size(),
              corpus.valid.size(), corpus.test.size(), static_cast<long long>(v));

  // The baseline on the same words.
  const KneserNeyTrigram ngram(corpus.train, v);
  const double ngram_valid = ngram.perplexity(corpus.valid), ngram_test = ngram.perplexity(corpus.test);
  std::printf("Kneser-Ney trigram perplexity: valid %.2f, test %.2f\n", ngram_valid, ngram_test);

  LanguageModel model(v, f.hidden, f.dropout);
  model(zeros({1, 1}, kInt64));
  optim::SGD sgd(model.trainable_weights(), {.lr = f.lr});
  const auto train_batches = data::ptb_iterator(corpus.train, f.batch, f.steps);
  const auto valid_batches = data::ptb_iterator(corpus.valid, f.batch, f.steps);
  const auto test_batches = data::ptb_iterator(corpus.test, f.batch, f.steps);

  hub::Hub store = hub::Hub::open(f.hub);
  std::ostringstream config;
  config << R"({"hidden": )" << f.hidden << R"(, "layers": 2, "batch": )" << f.batch << R"(, "steps": )" << f.steps
         << R"(, "lr": )" << f.lr << R"(, "dropout": )" << f.dropout << R"(, "data": ")"
         << (f.ptb.empty() ? "world english bible" : "ptb") << R"("})";
  hub::Run run = store.create_run("language_model", config.str());
  std::map<std::string, std::vector<double>> curves;
  const auto per_epoch = static_cast<int64_t>(train_batches.size());
  const int64_t steps = f.max_steps > 0 ? std::min(f.max_steps, per_epoch) : per_epoch;
  for (int64_t epoch = 1; epoch <= f.epochs; ++epoch) {
    sgd.set_learning_rate(f.lr * std::pow(0.5, static_cast<double>(std::max<int64_t>(epoch - f.full_rate_epochs, 0))));
    std::vector<Tensor> state;
    double nll = 0;
    for (int64_t s = 0; s < steps; ++s) {
      for (Tensor& t : state) t = t.detach();  // truncated BPTT: the state goes on, its gradient stops
      const Tensor logits = model.step(train_batches[s].inputs, state);
      Tensor loss = cross_entropy(logits.reshape({-1, v}), train_batches[s].targets.reshape({-1}));
      sgd.zero_grad();
      // TensorFlow's PTB model sums the loss over the time steps (mean over the batch); its
      // learning rate of 1 is meant for that scale, 20 times the per-word mean's.
      (loss * static_cast<double>(f.steps)).backward();
      optim::clip_grad_norm(model.trainable_weights(), 5.0);
      sgd.step();
      nll += loss.item<double>();
      if ((s + 1) % 200 == 0) std::printf("  step %lld/%lld: perplexity %.2f\n", static_cast<long long>(s + 1),
                                          static_cast<long long>(steps), std::exp(nll / static_cast<double>(s + 1)));
    }
    const double train_ppl = std::exp(nll / static_cast<double>(steps)), valid_ppl = perplexity(model, valid_batches);
    curves["train"].push_back(train_ppl);
    curves["valid"].push_back(valid_ppl);
    curves["valid_kneser_ney"].push_back(ngram_valid);
    run.log(epoch, hub::Split::train, "perplexity", train_ppl);
    run.log(epoch, hub::Split::validation, "perplexity", valid_ppl);
    viz::save_curves(curves, (std::filesystem::path(f.out) / "perplexity.png").string());
    std::printf("epoch %lld (lr %.3f): train perplexity %.2f, valid %.2f\n", static_cast<long long>(epoch),
                sgd.learning_rate(), train_ppl, valid_ppl);
  }
  const double test_ppl = perplexity(model, test_batches);
  run.log(f.epochs, hub::Split::test, "perplexity", test_ppl);
  std::printf("LSTM perplexity: valid %.2f, test %.2f; Kneser-Ney trigram: valid %.2f, test %.2f\n",
              curves["valid"].back(), test_ppl, ngram_valid, ngram_test);
  std::printf("sampled (temperature %.2f, top-%lld):\n%s\n", f.temperature, static_cast<long long>(f.top_k),
              sample_text(model, corpus.vocabulary, f).c_str());
  run.finish();
  const int64_t version = lifecycle::save_model(
      store, "language_model", model,
      {.metrics = {{"test_perplexity", test_ppl}, {"ngram_test_perplexity", ngram_test}}, .run_id = run.id()});
  std::printf("saved language_model version %lld in %s (run %lld)\n", static_cast<long long>(version), f.hub.c_str(),
              static_cast<long long>(run.id()));
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 2;
}
