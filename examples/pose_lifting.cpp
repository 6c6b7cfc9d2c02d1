// 3-D human pose lifting (docs/pose_lifting.md): 2-D key points -> 3-D joints. TensorLayer's LCN
// (Ci et al., ICCV 2019: locally connected layers over the skeleton graph, nn::LocallyConnectedGraph)
// and Martinez et al.'s simple baseline (an MLP of about as many free weights) are trained on the
// same poses of a kinematic skeleton with joint limits, seen by random cameras
// (examples/pose/pose_data.hpp); each one's MPJPE and PA-MPJPE on held-out poses is reported, its
// run and model saved whole in the hub (servable by `strata serve`), and test skeletons drawn,
// truth and predictions, from the camera and from the side.
#include <cstdio>
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <strata/data/image_codec.hpp>
#include <strata/points/render.hpp>
#include <strata/strata.hpp>

#include "flag_checks.hpp"
#include "pose/pose_data.hpp"
#include "pose/procrustes.hpp"

using namespace strata;

namespace {

struct Flags {
  std::vector<std::string> models{"lcn", "mlp"};
  int64_t train = 40000, test = 4000, epochs = 12, batch = 256, units = 64, hops = 2, blocks = 2, width = 600;
  double noise = 2, dropout = 0.1, lr = 1e-3, max_mpjpe = 0;
  uint64_t seed = 1;
  std::string hub = "pose.db", out = "pose_lifting_out";
};

// LCN: a locally connected layer to `units` per joint, then `blocks` residual blocks of two
// (each followed by batch norm over every joint's features, relu and dropout), then one to the
// 3-D joints. The paper's network, narrower and shallower for a 2-core CPU.
nn::Model lcn(const Flags& f) {
  const std::vector<int64_t> parents(pose::kParents.begin(), pose::kParents.end());
  const int64_t joints = pose::kJoints;
  auto connected = [&](int64_t units, bool bias) {
    return nn::LocallyConnectedGraph({.units = units, .parents = parents, .hops = f.hops, .use_bias = bias});
  };
  auto norm_relu_drop = [&](const nn::Symbol& h) {
    auto flat = nn::BatchNorm({.act = "relu"})(nn::Reshape({joints * f.units})(h));
    return nn::Reshape({joints, f.units})(nn::Dropout(f.dropout)(flat));
  };
  auto x = nn::Input({-1, joints, 2}, "keypoints");
  auto h = norm_relu_drop(connected(f.units, false)(x));
  for (int64_t b = 0; b < f.blocks; ++b) {
    auto r = norm_relu_drop(connected(f.units, false)(norm_relu_drop(connected(f.units, false)(h))));
    h = nn::Elementwise("add")({h, r});
  }
  return nn::Model(x, connected(3, true)(h), "pose_lcn");
}

// Martinez et al.'s baseline: the flattened key points through dense layers of `width` in the
// same residual blocks, then to the 51 coordinates.
nn::Model mlp(const Flags& f) {
  const int64_t joints = pose::kJoints;
  auto dense = [&](const nn::Symbol& h) {
    auto d = nn::BatchNorm({.act = "relu"})(nn::Dense({.units = f.width, .use_bias = false})(h));
    return nn::Dropout(f.dropout)(d);
  };
  auto x = nn::Input({-1, joints, 2}, "keypoints");
  auto h = dense(nn::Flatten()(x));
  for (int64_t b = 0; b < f.blocks; ++b) h = nn::Elementwise("add")({h, dense(dense(h))});
  return nn::Model(x, nn::Reshape({joints, 3})(nn::Dense(joints * 3)(h)), "pose_mlp");
}

// count_params less the entries of the LCN layers' W outside their masks, which stay zero.
int64_t free_weights(nn::Model& net) {
  int64_t masked_out = 0;
  for (nn::Layer* layer : net.children())
    if (auto* lcn = dynamic_cast<nn::LocallyConnectedGraph*>(layer))
      masked_out += lcn->W.numel() - static_cast<int64_t>(sum(lcn->mask()).item<double>());
  return net.count_params() - masked_out;
}

pose::Joints joints_of(const Tensor& all, int64_t i) {
  const std::vector<float> v = narrow(all, 0, i, 1).contiguous().to_vector<float>();
  pose::Joints j;
  for (int k = 0; k < pose::kJoints; ++k) j[k] = {v[3 * k], v[3 * k + 1], v[3 * k + 2]};
  return j;
}

struct Errors {
  double mpjpe = 0, pa_mpjpe = 0;
  std::vector<double> per_family = std::vector<double>(pose::kFamilies, 0.0);
  std::vector<int64_t> counts = std::vector<int64_t>(pose::kFamilies, 0);  // test poses of each family
};

Errors errors(const Tensor& predicted, const pose::LiftingSet& test) {
  Errors e;
  const int64_t n = test.joints.size(0);
  for (int64_t i = 0; i < n; ++i) {
    const pose::Joints p = joints_of(predicted, i), t = joints_of(test.joints, i);
    const double m = pose::mpjpe_mm(p, t);
    e.mpjpe += m / n;
    e.pa_mpjpe += pose::pa_mpjpe_mm(p, t) / n;
    const int family = static_cast<int>(test.families[i]);
    e.per_family[family] += m, ++e.counts[family];
  }
  for (int k = 0; k < pose::kFamilies; ++k) e.per_family[k] /= std::max<int64_t>(1, e.counts[k]);
  return e;
}

// One cloud per pose: points along each bone of the truth (label 0, blue) and of each model's
// prediction (label m + 1: orange, green), hip-relative.
void add_skeleton(const pose::Joints& j, int64_t label, std::vector<float>& xyz, std::vector<int64_t>& labels) {
  constexpr int kSteps = 24;
  for (int c = 1; c < pose::kJoints; ++c) {
    const int p = static_cast<int>(pose::kParents[c]);
    for (int s = 0; s <= kSteps; ++s)
      for (int k = 0; k < 3; ++k) {
        const double t = static_cast<double>(s) / kSteps;
        xyz.push_back(static_cast<float>((j[p][k] - j[0][k]) * (1 - t) + (j[c][k] - j[0][k]) * t));
        if (k == 2) labels.push_back(label);
      }
  }
}

// The first test pose of each family and two more, seen as the camera saw them (top row) and
// from the camera's right (bottom row), captioned with each model's error on it.
void write_skeletons(const pose::LiftingSet& test, const std::vector<std::string>& names,
                     const std::vector<Tensor>& predictions, const std::string& path) {
  std::vector<int64_t> shown;
  std::vector<bool> family_shown(pose::kFamilies, false);
  for (int64_t i = 0; i < test.joints.size(0) && shown.size() < pose::kFamilies; ++i)
    if (!family_shown[static_cast<int>(test.families[i])]) family_shown[static_cast<int>(test.families[i])] = true, shown.push_back(i);
  for (int64_t i = 0; i < test.joints.size(0) && shown.size() < 6; ++i)
    if (std::find(shown.begin(), shown.end(), i) == shown.end()) shown.push_back(i);
  std::vector<Tensor> clouds, colours;
  std::vector<std::string> captions;
  for (int64_t i : shown) {
    std::vector<float> xyz;
    std::vector<int64_t> labels;
    add_skeleton(joints_of(test.joints, i), 0, xyz, labels);
    std::string caption = pose::family_name(test.families[i]);
    for (size_t m = 0; m < predictions.size(); ++m) {
      const pose::Joints p = joints_of(predictions[m], i);
      add_skeleton(p, static_cast<int64_t>(m) + 1, xyz, labels);
      char error[48];
      std::snprintf(error, sizeof error, " %s %.0f", names[m].c_str(), pose::mpjpe_mm(p, joints_of(test.joints, i)));
      caption += error;
    }
    clouds.push_back(from_vector(xyz, {static_cast<int64_t>(labels.size()), 3}));
    colours.push_back(from_vector(labels, {static_cast<int64_t>(labels.size())}));
    captions.push_back(caption);
  }
  // render_cloud's azimuth 0 looks along -z; the camera looked along +z.
  points::RenderOptions view{.width = 200, .height = 220, .azimuth = 180, .elevation = 0, .point_radius = 1.5};
  const int64_t cols = static_cast<int64_t>(clouds.size());  // one row per view
  const Tensor front = points::render_grid(clouds, colours, captions, cols, view);
  view.azimuth = 90;
  const Tensor side = points::render_grid(clouds, colours, captions, cols, view);
  data::write_image(path, concat({front, side}, 0));
  std::printf("test skeletons, truth blue, %s: %s\n", names.size() > 1 ? "lcn orange, mlp green" : "prediction orange",
              path.c_str());
}

// Trains, measures and saves each model of --models; 1 when one misses --max-mpjpe.
int run(const Flags& f) {
  manual_seed(1);
  std::filesystem::create_directories(f.out);

  // Training poses are samples 0 .. train - 1 of the seed, test poses the next ones.
  const pose::LiftingSet train_set = pose::lifting_set(f.seed, 0, f.train, f.noise);
  const pose::LiftingSet test_set = pose::lifting_set(f.seed, f.train, f.test, f.noise);
  std::printf("%lld training and %lld test poses, 2-D noise %.1f px\n", static_cast<long long>(f.train),
              static_cast<long long>(f.test), f.noise);

  hub::Hub store = hub::Hub::open(f.hub);
  std::vector<Tensor> predictions;
  bool all_passed = true;
  for (const std::string& kind : f.models) {
    nn::Model net = kind == "lcn" ? lcn(f) : mlp(f);
    std::printf("\n%s: %lld weights, %lld of them free\n", kind.c_str(), static_cast<long long>(net.count_params()),
                static_cast<long long>(free_weights(net)));
    const nlohmann::json config = {{"model", kind}, {"train", f.train}, {"epochs", f.epochs}, {"batch", f.batch},
                                   {"units", f.units}, {"hops", f.hops}, {"blocks", f.blocks}, {"width", f.width},
                                   {"noise", f.noise}, {"dropout", f.dropout}, {"lr", f.lr}, {"seed", f.seed}};
    optim::Adam adam(net.trainable_weights(), {.lr = f.lr});
    auto logger = std::make_shared<lifecycle::HubLogger>(store, "pose_" + kind, config.dump(), 50);
    auto cosine = std::make_shared<train::LearningRateScheduler>(std::make_shared<optim::CosineAnnealingLR>(adam, f.epochs));
    train::LossFn loss = [](const Tensor& p, const Tensor& t) { return mse_loss(p, t); };
    train::fit(net, adam, loss, train::Data(train_set.points, train_set.joints),
               {.epochs = f.epochs, .batch_size = f.batch, .seed = 5, .metrics = {}, .callbacks = {logger, cosine}});
    const Tensor predicted = train::predict(net, test_set.points, 500);
    const Errors e = errors(predicted, test_set);
    std::printf("%s MPJPE %.1f mm, PA-MPJPE %.1f mm on %lld held-out poses (by family:", kind.c_str(), e.mpjpe,
                e.pa_mpjpe, static_cast<long long>(f.test));
    for (int k = 0; k < pose::kFamilies; ++k)
      if (e.counts[k] > 0) std::printf(" %s %.1f", pose::family_name(static_cast<pose::Family>(k)), e.per_family[k]);
    std::printf(")\n");
    const int64_t version = lifecycle::save_model(
        store, "pose_" + kind, net,
        {.metrics = {{"mpjpe_mm", e.mpjpe}, {"pa_mpjpe_mm", e.pa_mpjpe}}, .run_id = logger->run_id()});
    std::printf("saved pose_%s version %lld in %s (run %lld)\n", kind.c_str(), static_cast<long long>(version), f.hub.c_str(),
                static_cast<long long>(logger->run_id()));
    predictions.push_back(predicted);
    all_passed = all_passed && (f.max_mpjpe == 0 || e.mpjpe <= f.max_mpjpe);
  }
  write_skeletons(test_set, f.models, predictions, f.out + "/skeletons.png");
  return all_passed ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Flags f;
  CLI::App app("strata_pose_lifting: 3-D human pose from 2-D key points, LCN against an MLP baseline, into the hub");
  app.add_option("--models", f.models, "which to train: lcn, mlp")->check(CLI::IsMember({"lcn", "mlp"}))->capture_default_str();
  // Poses are held in memory (85 floats each) and W grows as the square of --units and --width.
  app.add_option("--train", f.train, "training poses")->type_name("N")->check(CLI::Range(8, 1000000))->capture_default_str();
  app.add_option("--test", f.test, "held-out poses (drawn after the training ones)")
      ->type_name("N")->check(CLI::Range(6, 1000000))->capture_default_str();
  app.add_option("--epochs", f.epochs, "passes over the training poses")->type_name("N")->check(flag_checks::at_least(1))->capture_default_str();
  app.add_option("--batch", f.batch, "poses per step")->type_name("N")->check(flag_checks::at_least(2))->capture_default_str();
  app.add_option("--units", f.units, "LCN: features per joint")->type_name("N")->check(CLI::Range(1, 256))->capture_default_str();
  app.add_option("--hops", f.hops, "LCN: K, the joints each joint sees are those within K edges")
      ->type_name("N")->check(flag_checks::at_least(0))->capture_default_str();
  app.add_option("--blocks", f.blocks, "residual blocks of both models")->type_name("N")->check(CLI::Range(0, 64))->capture_default_str();
  app.add_option("--width", f.width, "MLP: units of its dense layers")->type_name("N")->check(CLI::Range(1, 4096))->capture_default_str();
  app.add_option("--noise", f.noise, "Gaussian noise on the 2-D key points, pixels")
      ->type_name("PIXELS")->check(flag_checks::not_below(0))->capture_default_str();
  app.add_option("--dropout", f.dropout, "dropout probability")->type_name("P")->check(CLI::Range(0.0, 0.9))->capture_default_str();
  app.add_option("--lr", f.lr, "Adam's learning rate (cosine to 0 over the epochs)")
      ->type_name("NUMBER")->check(flag_checks::above(0))->capture_default_str();
  app.add_option("--seed", f.seed, "seed of the poses and cameras")->type_name("N")->capture_default_str();
  app.add_option("--hub", f.hub, "SQLite path or postgresql:// URL of the hub")->type_name("URL")->capture_default_str();
  app.add_option("--out", f.out, "folder for the picture")->type_name("DIR")->capture_default_str();
  app.add_option("--max-mpjpe", f.max_mpjpe, "exit status 1 when a model's MPJPE (mm) is above this; 0: never")
      ->type_name("MM")->check(flag_checks::not_below(0))->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  try {
    return run(f);
  } catch (const std::exception& e) {  // a hub or a folder that cannot be opened, ...
    std::fprintf(stderr, "strata_pose_lifting: %s\n", e.what());
    return 1;
  }
}