// word2vec (Mikolov et al.; TensorLayer's tutorial_word2vec_basic.py): skip-gram with negative
// sampling on the World English Bible (Debian's sword-text-web, public domain) or any text file,
// trained by nn::train_skip_gram, the fused Hogwild update of word2vec.c and gensim (or, with
// --loss nce, by the layer's NCE loss through autograd, as TensorLayer's tutorial). Prints the
// nearest neighbours of probe words and the quality figure (how highly each word of related
// pairs ranks the other), logs the run and stores the trained Word2vecEmbedding in the hub.
// --write-corpus writes the tokenised corpus that scripts/bench-word2vec-gensim.py trains on.
//   strata_word2vec --help
#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <strata/data/skip_gram.hpp>
#include <strata/data/sword_text.hpp>
#include <strata/nn/layers/embedding.hpp>
#include <strata/strata.hpp>
#include <strata/viz/tsne.hpp>
#include <strata/viz/visualize.hpp>

#include "flag_checks.hpp"

using namespace strata;

namespace {

struct Flags {
  int64_t dim = 100, window = 5, negative = 5, epochs = 5, threads = 2, min_count = 5, max_lines = 0, tsne = 300;
  double alpha = 0.025, sample = 1e-3;
  uint64_t seed = 1;
  std::string text, hub = "strata.db", out = "word2vec_out", write_corpus, loss = "sgns";
  std::string probes = "god,jerusalem,king,gold,sheep,water,father,sword";
};

// The flags, parsed by CLI11 (--help lists them with their defaults).
Flags parse(int argc, char** argv) {
  Flags f;
  CLI::App app("strata_word2vec: skip-gram with negative sampling on the World English Bible (sword-text-web) or a "
               "text file.");
  app.add_option("--text", f.text, "train on FILE, one sentence per line (default: the World English Bible)")
      ->type_name("FILE");
  app.add_option("--max-lines", f.max_lines, "use only the first N lines / verses, 0 = all")
      ->type_name("N")->check(flag_checks::at_least(0))->capture_default_str();
  app.add_option("--dim", f.dim, "embedding size")->type_name("N")->check(flag_checks::at_least(1))->capture_default_str();
  app.add_option("--window", f.window, "context words either side")
      ->type_name("N")->check(flag_checks::at_least(1))->capture_default_str();
  app.add_option("--negative", f.negative, "negative samples per pair")
      ->type_name("N")->check(flag_checks::at_least(1))->capture_default_str();
  app.add_option("--epochs", f.epochs, "passes over the corpus")
      ->type_name("N")->check(flag_checks::at_least(1))->capture_default_str();
  app.add_option("--threads", f.threads, "Hogwild training threads")
      ->type_name("N")->check(flag_checks::at_least(1))->capture_default_str();
  app.add_option("--min-count", f.min_count, "rarer words are dropped")
      ->type_name("N")->check(flag_checks::at_least(1))->capture_default_str();
  app.add_option("--alpha", f.alpha, "initial learning rate, falling linearly to 1e-4")
      ->type_name("X")->check(flag_checks::above(0))->capture_default_str();
  app.add_option("--sample", f.sample, "subsampling threshold of frequent words (0: keep all)")
      ->type_name("X")->check(flag_checks::not_below(0))->capture_default_str();
  app.add_option("--probes", f.probes, "words whose nearest neighbours are printed")
      ->type_name("W,W")->capture_default_str();
  app.add_option("--seed", f.seed, "random seed")->type_name("N")->capture_default_str();
  app.add_option("--tsne", f.tsne, "draw the N most frequent words by t-SNE into OUT/tsne.png (0: none)")
      ->type_name("N")
      ->check(CLI::Range(int64_t{0}, int64_t{5000}))
      ->capture_default_str();
  app.add_option("--hub", f.hub, "the hub (SQLite file) for the run's log and the model")
      ->type_name("PATH")->capture_default_str();
  app.add_option("--out", f.out, "where losses.png, tsne.png and vocabulary.txt go")
      ->type_name("DIR")
      ->capture_default_str();
  app.add_option("--write-corpus", f.write_corpus,
                 "also write the tokenised corpus (in-vocabulary words, a line per sentence)")
      ->type_name("FILE");
  app.add_option("--loss", f.loss,
                 "sgns: the fused negative-sampling trainer; nce: TensorLayer's way, the layer's NCE loss "
                 "through autograd on skip-gram batches of 128, Adagrad (lr 1)")
      ->type_name("sgns|nce")->check(CLI::IsMember({"sgns", "nce"}))->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    std::exit(app.exit(e));
  }
  return f;
}

std::vector<std::string> read_lines(const Flags& f) {
  std::vector<std::string> lines;
  if (f.text.empty()) {
    lines = data::read_sword_ztext(data::kWorldEnglishBible);
  } else {
    std::ifstream in(f.text);
    STRATA_CHECK(in.good(), "strata_word2vec: cannot open ", f.text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
  }
  if (f.max_lines > 0 && static_cast<int64_t>(lines.size()) > f.max_lines) lines.resize(f.max_lines);
  return lines;
}

// Pairs of related words; the quality figure is the mean reciprocal rank of each word among the
// other's neighbours (1 = nearest), over the pairs both of whose words are in the vocabulary.
const std::vector<std::pair<std::string, std::string>> kPairs = {
    {"gold", "silver"},   {"sheep", "goats"},   {"bread", "wine"},     {"father", "mother"},
    {"brother", "sister"}, {"sons", "daughters"}, {"moses", "aaron"},    {"david", "solomon"},
    {"heaven", "earth"},  {"sword", "spear"},   {"jerusalem", "zion"}, {"egypt", "pharaoh"},
    {"day", "night"},     {"men", "women"},     {"oxen", "donkeys"},   {"priests", "levites"}};

// Unit-length rows, so that a dot product is a cosine.
std::vector<float> normalised(const Tensor& embeddings) {
  std::vector<float> e = embeddings.to_vector<float>();
  const int64_t dim = embeddings.shape()[1];
  for (size_t r = 0; r < e.size(); r += dim) {
    double n = 0;
    for (int64_t k = 0; k < dim; ++k) n += e[r + k] * e[r + k];
    for (int64_t k = 0; k < dim; ++k) e[r + k] /= static_cast<float>(std::sqrt(n) + 1e-12);
  }
  return e;
}

// Word ids by falling cosine to `id`, the word itself and <eos>/<unk> left out.
std::vector<int64_t> neighbours(const std::vector<float>& e, int64_t dim, int64_t id, const data::Vocabulary& vocab) {
  const int64_t n = static_cast<int64_t>(e.size()) / dim;
  std::vector<std::pair<float, int64_t>> scored;
  for (int64_t j = 0; j < n; ++j) {
    if (j == id || vocab.word(j) == "<eos>" || j == vocab.unknown_id()) continue;
    float dot = 0;
    for (int64_t k = 0; k < dim; ++k) dot += e[id * dim + k] * e[j * dim + k];
    scored.emplace_back(-dot, j);
  }
  std::sort(scored.begin(), scored.end());
  std::vector<int64_t> ids;
  for (const auto& [score, j] : scored) ids.push_back(j);
  return ids;
}

double pair_mrr(const std::vector<float>& e, int64_t dim, const data::Vocabulary& vocab) {
  double sum = 0;
  int count = 0;
  for (const auto& [a, b] : kPairs) {
    if (!vocab.contains(a) || !vocab.contains(b)) continue;
    for (const auto& [x, y] : {std::pair{a, b}, std::pair{b, a}}) {
      const auto near = neighbours(e, dim, vocab.id(x), vocab);
      const auto rank = std::find(near.begin(), near.end(), vocab.id(y)) - near.begin() + 1;
      sum += 1.0 / static_cast<double>(rank);
      ++count;
    }
  }
  return count > 0 ? sum / count : 0.0;
}

// One epoch of TensorLayer's tutorial: batches of 128 (centre, context) pairs, two contexts per
// centre from a window of 1, the layer's NCE loss (f.negative sampled classes) by autograd.
// Returns the mean loss.
double nce_epoch(nn::Word2vecEmbedding& model, optim::Adagrad& adagrad, const std::vector<int64_t>& ids) {
  const int64_t batch = 128, steps = static_cast<int64_t>(ids.size()) * 2 / batch;
  int64_t index = 0;
  double sum = 0;
  for (int64_t s = 0; s < steps; ++s) {
    const data::SkipGramBatch b = data::generate_skip_gram_batch(ids, batch, 2, 1, index);
    index = b.data_index;
    Tensor loss = model.with_loss(b.inputs, b.labels).second;
    adagrad.zero_grad();
    loss.backward();
    adagrad.step();
    sum += loss.item<double>();
  }
  return sum / static_cast<double>(steps);
}

}  // namespace

int main(int argc, char** argv) try {
  const Flags f = parse(argc, argv);
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // progress lines show as they come, also in a log file
  manual_seed(f.seed);
  std::filesystem::create_directories(f.out);
  // All lines train (no held-out split); words below --min-count are dropped, as gensim does.
  const data::PtbCorpus corpus =
      data::split_corpus(read_lines(f), {.valid = 0, .test = 0, .vocabulary = {.min_count = f.min_count}});
  const data::Vocabulary& vocab = corpus.vocabulary;
  const int64_t eos = vocab.id("<eos>");
  std::vector<int64_t> ids, counts;
  for (int64_t id : corpus.train)
    if (id != vocab.unknown_id()) ids.push_back(id);
  for (int64_t i = 0; i < vocab.size(); ++i) counts.push_back(i == eos || i == vocab.unknown_id() ? 0 : vocab.count(i));
  const int64_t words = static_cast<int64_t>(ids.size()) - std::count(ids.begin(), ids.end(), eos);
  std::printf("%lld words, vocabulary %lld (min count %lld)\n", static_cast<long long>(words),
              static_cast<long long>(vocab.size()), static_cast<long long>(f.min_count));
  vocab.save((std::filesystem::path(f.out) / "vocabulary.txt").string());
  if (!f.write_corpus.empty()) {
    std::ofstream out(f.write_corpus);
    for (int64_t id : ids) out << (id == eos ? "\n" : vocab.word(id) + " ");
  }

  // TensorLayer's layer holds the two tables; word2vec's initialisation: small input vectors,
  // zero output vectors.
  nn::Word2vecEmbedding model(vocab.size(), f.dim, f.negative, nn::SampledLossKind::nce, static_cast<int64_t>(f.seed),
                              "word2vec", nn::random_uniform(-0.5 / f.dim, 0.5 / f.dim), nn::zeros_init());
  model(tensor({int64_t{0}}));
  std::ostringstream config;
  config << R"({"dim": )" << f.dim << R"(, "window": )" << f.window << R"(, "negative": )" << f.negative
         << R"(, "epochs": )" << f.epochs << R"(, "threads": )" << f.threads << R"(, "min_count": )" << f.min_count
         << "}";
  hub::Hub store = hub::Hub::open(f.hub);
  hub::Run run = store.create_run("word2vec", config.str());

  // One call per epoch, the learning rate falling linearly across them as in one long call.
  std::map<std::string, std::vector<double>> curves;
  double seconds = 0, cpu_seconds = 0;
  auto alpha_at = [&](double progress) { return f.alpha - (f.alpha - 1e-4) * progress; };
  optim::Adagrad adagrad(model.trainable_weights(), {.lr = 1.0, .initial_accumulator_value = 0.1});
  for (int64_t epoch = 0; epoch < f.epochs; ++epoch) {
    if (f.loss == "nce") {
      const auto start = std::chrono::steady_clock::now();
      const std::clock_t cpu_start = std::clock();  // the process's CPU time, OpenMP threads included
      const double loss = nce_epoch(model, adagrad, ids);
      const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      seconds += took;
      cpu_seconds += static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
      const double mrr = pair_mrr(normalised(model.embeddings), f.dim, vocab);
      curves["loss"].push_back(loss);
      curves["pair_mrr"].push_back(mrr);
      run.log(epoch + 1, hub::Split::train, {{"loss", loss}, {"pair_mrr", mrr}});
      std::printf("epoch %lld (nce): loss %.4f, pair MRR %.4f, %.0f words/s\n", static_cast<long long>(epoch + 1), loss,
                  mrr, static_cast<double>(words) / took);
      continue;
    }
    const nn::SkipGramStats stats = nn::train_skip_gram(
        model.embeddings, model.nce_weights, ids, counts,
        {.window = f.window, .negative = f.negative, .alpha = alpha_at(static_cast<double>(epoch) / f.epochs),
         .min_alpha = alpha_at(static_cast<double>(epoch + 1) / f.epochs), .sample = f.sample, .epochs = 1,
         .threads = f.threads, .seed = f.seed + static_cast<uint64_t>(epoch), .boundary = eos});
    seconds += stats.seconds;
    cpu_seconds += stats.cpu_seconds;
    const double mrr = pair_mrr(normalised(model.embeddings), f.dim, vocab);
    curves["loss"].push_back(stats.mean_loss);
    curves["pair_mrr"].push_back(mrr);
    run.log(epoch + 1, hub::Split::train, {{"loss", stats.mean_loss}, {"pair_mrr", mrr}});
    std::printf("epoch %lld: loss %.4f, pair MRR %.4f, %.0f words/s\n", static_cast<long long>(epoch + 1),
                stats.mean_loss, mrr, static_cast<double>(words) / stats.seconds);
  }
  // Words per second of wall time, and per CPU second (the machine may be shared).
  const double all_words = static_cast<double>(words) * static_cast<double>(f.epochs);
  const double words_per_second = all_words / seconds, words_per_cpu_second = all_words / cpu_seconds;
  viz::save_curves(curves, (std::filesystem::path(f.out) / "losses.png").string());

  const std::vector<float> e = normalised(model.embeddings);
  std::stringstream probes(f.probes);
  for (std::string word; std::getline(probes, word, ',');) {
    if (!vocab.contains(word)) continue;
    const auto near = neighbours(e, f.dim, vocab.id(word), vocab);
    std::printf("%-10s", word.c_str());
    for (size_t k = 0; k < 8 && k < near.size(); ++k) std::printf(" %s", vocab.word(near[k]).c_str());
    std::printf("\n");
  }
  if (f.tsne > 0) {  // TensorLayer's tutorial ends with tl.visualize.tsne_embedding of its 500 first words
    const int64_t n = std::min(f.tsne, vocab.size());
    if (n >= 5) {
      std::vector<std::string> words;
      for (int64_t i = 0; i < n; ++i) words.push_back(vocab.word(i));
      const Tensor xy =
          viz::tsne(model.embeddings.narrow(0, 0, n), {.perplexity = std::min(30.0, static_cast<double>(n - 1) / 3)});
      viz::save_embedding_plot(xy, (std::filesystem::path(f.out) / "tsne.png").string(), {}, words);
    }
  }
  const double mrr = curves["pair_mrr"].back();
  std::printf("training: %.1f s, %.0f words/s, %.1f CPU s, %.0f words per CPU second (%lld threads); pair MRR %.4f\n",
              seconds, words_per_second, cpu_seconds, words_per_cpu_second, static_cast<long long>(f.threads), mrr);
  run.finish();
  const int64_t version = lifecycle::save_model(
      store, "word2vec", model,
      {.metrics = {{"pair_mrr", mrr}, {"words_per_second", words_per_second}}, .run_id = run.id()});
  std::printf("saved word2vec version %lld in %s (run %lld)\n", static_cast<long long>(version), f.hub.c_str(),
              static_cast<long long>(run.id()));
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "%s\n", e.what());
  return 2;
}
