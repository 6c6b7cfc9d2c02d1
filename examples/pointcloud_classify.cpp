// Point-cloud classification (docs/pointclouds.md, docs/examples.md): PointNet, PointNet++,
// DGCNN and PointCNN trained on the synthetic ModelNet-like set (12 parametric shape classes with
// random proportions, poses, occlusion and noise; strata/points/synthetic_shapes.hpp) with PointNet's
// augmentation, each one's test accuracy reported and its run and model saved whole in the hub
// (servable by `strata serve`), and a picture of test clouds coloured by each one's predictions.
// With --modelnet DIR it trains on a real ModelNet10/40 folder instead (meshes sampled to clouds).
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <strata/data/image_codec.hpp>
#include <strata/points/augment.hpp>
#include <strata/points/datasets.hpp>
#include <strata/points/pointnet.hpp>
#include <strata/points/pointnet2.hpp>
#include <strata/points/render.hpp>
#include <strata/points/synthetic_shapes.hpp>
#include <strata/points/xconv.hpp>
#include <strata/strata.hpp>

#include "flag_checks.hpp"
#include "pointcloud_training.hpp"

using namespace strata;

namespace {

struct Flags {
  std::vector<std::string> models{"pointnet", "pointnet2", "dgcnn", "pointcnn"};
  int64_t train = 2400, test = 600, points = 512, epochs = 12, batch = 32;
  std::string hub = "pointclouds.db", out = "pointcloud_classify_out", modelnet;
  double min_accuracy = 0;
};

// The classifiers, as static models so that the hub stores them whole. The structure is the
// papers'; widths are cut where a 2-core CPU would take hours (PointNet's last level 512 of 1024,
// PointNet++'s first set abstraction half the paper's, DGCNN's EdgeConvs a half to a quarter,
// PointCNN's X-Convs a third), on clouds of 512 points rather than 1,024.
nn::Model classifier_head(const nn::Symbol& input, nn::Symbol global, int64_t classes, const std::string& name) {
  global = nn::Dropout(0.4)(nn::BatchNorm({.act = nn::relu})(nn::Dense(256, {}, "", -1, false)(global)));
  global = nn::Dropout(0.4)(nn::BatchNorm({.act = nn::relu})(nn::Dense(128, {}, "", -1, false)(global)));
  return nn::Model(input, nn::Dense(classes)(global), name);
}

nn::Model pointnet(int64_t points, int64_t classes) {
  auto x = nn::Input({-1, points, 3});
  auto global = points::PointNet({.mlp1 = {64, 64}, .mlp2 = {64, 128, 512}}, "pointnet_encoder")(x);
  return classifier_head(x, global, classes, "pointnet");
}

// PointNet++ SSG: two set abstractions (local regions at two scales), then one over everything.
nn::Model pointnet2(int64_t points, int64_t classes) {
  auto x = nn::Input({-1, points, 3});
  auto h = points::SetAbstraction(points / 2, 0.2, 32, {32, 32, 64})(x);
  h = points::SetAbstraction(points / 8, 0.4, 32, {128, 128, 256})(h);
  h = points::SetAbstraction({.mlp = {{256, 512, 1024}}, .group_all = true})(h);
  return classifier_head(x, nn::Flatten()(h), classes, "pointnet2");
}

// DGCNN: EdgeConvs on graphs recomputed from each level's features, their outputs joined, a
// shared MLP and a max over the points.
nn::Model dgcnn(int64_t points, int64_t classes) {
  auto x = nn::Input({-1, points, 3});
  auto e1 = points::EdgeConv({.k = 16, .mlp = {32}})(x);
  auto e2 = points::EdgeConv({.k = 16, .mlp = {32}})(e1);
  auto e3 = points::EdgeConv({.k = 16, .mlp = {64}})(e2);
  auto joined = points::PointMlp({.units = {256}, .act = "lrelu0.2"})(nn::Concat(-1)({e1, e2, e3}));
  auto global = nn::GlobalMaxPool1d()(joined);
  return classifier_head(x, global, classes, "dgcnn");
}

// PointCNN: X-Convs from every point to points / 4 and points / 8 representatives (the paper's
// ModelNet network at a third of its widths and depth multipliers ceil(C / C_prev)), a mean over
// the last representatives.
nn::Model pointcnn(int64_t points, int64_t classes) {
  auto x = nn::Input({-1, points, 3});
  auto h = points::XConv({.K = 8, .D = 1, .P = -1, .C = 48, .depth_multiplier = 4})(x);
  h = points::XConv({.K = 12, .D = 2, .P = points / 4, .C = 96, .depth_multiplier = 2})(h);
  // K * D = 32 nearest of the points / 4 representatives: dilation 2 from 128 points up.
  h = points::XConv({.K = 16, .D = points >= 128 ? 2 : 1, .P = points / 8, .C = 192, .depth_multiplier = 2})(h);
  return classifier_head(x, nn::GlobalMeanPool1d()(h), classes, "pointcnn");
}

nn::Model make_model(const std::string& kind, int64_t points, int64_t classes) {
  if (kind == "pointnet") return pointnet(points, classes);
  if (kind == "pointnet2") return pointnet2(points, classes);
  if (kind == "pointcnn") return pointcnn(points, classes);
  return dgcnn(points, classes);
}

// The clouds to learn from and their class names.
struct CloudSets {
  data::Dataset train, test;
  std::vector<std::string> names;
};

// The synthetic set (test clouds from another seed), or ModelNet's folder: its meshes sampled to
// clouds and scaled to the unit sphere, as PointNet's data is. Made once, then kept.
CloudSets cloud_sets(const Flags& f) {
  if (f.modelnet.empty()) {
    const points::SyntheticShapeOptions shapes{.points = f.points};
    return {points::synthetic_shapes(f.train, 1, shapes).cache(), points::synthetic_shapes(f.test, 2, shapes).cache(),
            points::synthetic_shape_classes()};
  }
  const points::ModelNetFolder train = points::modelnet_folder(f.modelnet, "train", f.points, 1);
  const points::ModelNetFolder test = points::modelnet_folder(f.modelnet, "test", f.points, 2);
  const points::Augmentation unit_sphere = points::Augmentation(0).normalize();
  return {train.dataset().map(unit_sphere, 2).cache(), test.dataset().map(unit_sphere, 2).cache(), train.classes};
}

// The first test cloud of each class (up to 12), coloured by the class the model gives it
// (tab10's colours, cycling), captioned "truth -> prediction" where it is wrong.
void write_predictions_picture(nn::Model& net, const CloudSets& sets, const std::string& path) {
  std::vector<Tensor> clouds, colours;
  std::vector<std::string> captions;
  std::vector<bool> shown(sets.names.size(), false);
  for (int64_t i = 0; i < sets.test.size() && clouds.size() < 12; ++i) {
    const data::Example e = sets.test.get(i);
    const int64_t truth = e[1].item<int64_t>();
    if (shown[truth]) continue;
    shown[truth] = true;
    clouds.push_back(e[0]);
    const int64_t predicted = argmax(train::predict(net, unsqueeze(e[0], 0), 1), 1).item<int64_t>();
    colours.push_back(full({e[0].size(0)}, static_cast<double>(predicted), kInt64));
    captions.push_back(sets.names[truth] + (predicted == truth ? "" : " -> " + sets.names[predicted]));
  }
  data::write_image(path, points::render_grid(clouds, colours, captions, 6, {.width = 160, .height = 160}));
  std::printf("test clouds coloured by prediction: %s\n", path.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  Flags f;
  CLI::App app("strata_pointcloud_classify: PointNet, PointNet++, DGCNN and PointCNN on synthetic 3-D shapes, into the hub");
  app.add_option("--models", f.models, "which to train: pointnet, pointnet2, dgcnn, pointcnn")
      ->check(CLI::IsMember({"pointnet", "pointnet2", "dgcnn", "pointcnn"}))->capture_default_str();
  app.add_option("--train", f.train, "training clouds (balanced over the 12 classes)")
      ->type_name("N")->check(flag_checks::at_least(12))->capture_default_str();
  app.add_option("--test", f.test, "test clouds (another seed)")->type_name("N")->check(flag_checks::at_least(12))->capture_default_str();
  app.add_option("--points", f.points, "points per cloud")->type_name("P")->check(flag_checks::at_least(64))->capture_default_str();
  app.add_option("--epochs", f.epochs, "passes over the training clouds")->type_name("N")->check(flag_checks::at_least(1))->capture_default_str();
  app.add_option("--batch", f.batch, "clouds per step")->type_name("N")->check(flag_checks::at_least(2))->capture_default_str();
  app.add_option("--hub", f.hub, "SQLite path or postgresql:// URL of the hub")->type_name("URL")->capture_default_str();
  app.add_option("--out", f.out, "folder for the pictures")->type_name("DIR")->capture_default_str();
  app.add_option("--modelnet", f.modelnet, "a ModelNet10/40 folder (<class>/{train,test}/*.off) instead of the synthetic set")
      ->type_name("DIR");
  app.add_option("--min-accuracy", f.min_accuracy, "exit status 1 when a model's test accuracy is below this")
      ->type_name("FRACTION")->check(CLI::Range(0.0, 1.0))->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  manual_seed(1);
  std::filesystem::create_directories(f.out);

  std::printf("reading %s...\n", f.modelnet.empty() ? "the synthetic shapes" : f.modelnet.c_str());
  const CloudSets sets = cloud_sets(f);
  const int64_t classes = static_cast<int64_t>(sets.names.size());
  std::printf("%lld training and %lld test clouds of %lld points, %lld classes\n", static_cast<long long>(sets.train.size()),
              static_cast<long long>(sets.test.size()), static_cast<long long>(f.points), static_cast<long long>(classes));
  // Augmentation runs on each read, so every epoch sees new variants.
  const data::Dataset train_data =
      sets.train.map(points::Augmentation(3).rotate_about_axis().scale(0.8, 1.25).jitter(0.01, 0.05).shuffle());

  hub::Hub store = hub::Hub::open(f.hub);
  bool all_passed = true;
  for (const std::string& kind : f.models) {
    nn::Model net = make_model(kind, f.points, classes);
    std::printf("\n%s: %lld weights\n", kind.c_str(), static_cast<long long>(net.count_params()));
    const nlohmann::json config = {{"points", f.points}, {"train", f.train}, {"epochs", f.epochs}, {"batch", f.batch}};
    const int64_t run_id = train_pointcloud_model(net, train_data, store, "pointcloud_" + kind, config, f.epochs, f.batch);
    const double accuracy = train::evaluate(net, {}, sets.test, 100).at("accuracy");
    std::printf("%s test accuracy: %.4f\n", kind.c_str(), accuracy);
    const int64_t version = lifecycle::save_model(store, "pointcloud_" + kind, net,
                                                  {.metrics = {{"accuracy", accuracy}}, .run_id = run_id});
    std::printf("saved pointcloud_%s version %lld in %s (run %lld)\n", kind.c_str(), static_cast<long long>(version),
                f.hub.c_str(), static_cast<long long>(run_id));
    write_predictions_picture(net, sets, f.out + "/" + kind + "_predictions.png");
    all_passed = all_passed && accuracy >= f.min_accuracy;
  }
  return all_passed ? 0 : 1;
}
