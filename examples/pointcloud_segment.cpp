// Point-cloud part segmentation (docs/pointclouds.md, docs/examples.md): PointNet and PointNet++
// label every point of the synthetic part-labelled shapes (chairs, tables, lamps, mugs,
// airplanes: 13 parts; strata/points/synthetic_shapes.hpp), scored by ShapeNet-Part's instance
// and class mean IoU; runs and models go into the hub, and a picture shows test shapes coloured by
// their true parts beside each model's prediction.
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <strata/data/image_codec.hpp>
#include <strata/points/augment.hpp>
#include <strata/points/part_iou.hpp>
#include <strata/points/point_mlp.hpp>
#include <strata/points/pointnet.hpp>
#include <strata/points/pointnet2.hpp>
#include <strata/points/render.hpp>
#include <strata/points/synthetic_shapes.hpp>
#include <strata/strata.hpp>

#include "flag_checks.hpp"
#include "pointcloud_training.hpp"

using namespace strata;

namespace {

struct Flags {
  std::vector<std::string> models{"pointnet", "pointnet2"};
  int64_t train = 1500, test = 250, points = 512, epochs = 10, batch = 16;
  std::string hub = "pointclouds.db", out = "pointcloud_segment_out";
  double min_miou = 0;
};

// PointNet's segmentation network: each point's local features with the global one, then a
// per-point MLP to part scores.
nn::Model pointnet_segmenter(int64_t points, int64_t parts) {
  auto x = nn::Input({-1, points, 3});
  auto h = points::PointNet({.mlp1 = {64, 64}, .mlp2 = {64, 128, 512}, .global_only = false}, "pointnet_encoder")(x);
  h = points::PointMlp(points::PointMlpOptions{.units = {256, 128}})(h);
  return nn::Model(x, nn::Dense(parts)(h), "pointnet_seg");
}

// PointNet++'s: set abstractions down to one global feature, then feature propagation back up
// to every input point.
nn::Model pointnet2_segmenter(int64_t points, int64_t parts) {
  auto x = nn::Input({-1, points, 3});
  auto l1 = points::SetAbstraction(points / 4, 0.2, 32, {32, 32, 64})(x);
  auto l2 = points::SetAbstraction(points / 16, 0.4, 32, {64, 64, 128})(l1);
  auto l3 = points::SetAbstraction({.mlp = {{128, 256}}, .group_all = true})(l2);
  auto up2 = points::FeaturePropagation({256})({l2, l3});
  auto up1 = points::FeaturePropagation({128})({l1, up2});
  auto up0 = points::FeaturePropagation({128, 128})({x, up1});
  return nn::Model(x, nn::Dense(parts)(points::PointMlp(points::PointMlpOptions{.units = {128}})(up0)), "pointnet2_seg");
}

// All examples of a data set stacked: {points [N, P, 3], part [N, P], label [N]}.
data::Example stacked(const data::Dataset& set) {
  std::vector<data::Example> all;
  for (const data::Example& e : set) all.push_back(e);
  return data::collate(all);
}

}  // namespace

int main(int argc, char** argv) {
  Flags f;
  CLI::App app("strata_pointcloud_segment: PointNet and PointNet++ part segmentation of synthetic shapes, into the hub");
  app.add_option("--models", f.models, "which to train: pointnet, pointnet2")
      ->check(CLI::IsMember({"pointnet", "pointnet2"}))->capture_default_str();
  app.add_option("--train", f.train, "training shapes (balanced over the 5 categories)")
      ->type_name("N")->check(flag_checks::at_least(5))->capture_default_str();
  app.add_option("--test", f.test, "test shapes (another seed)")->type_name("N")->check(flag_checks::at_least(5))->capture_default_str();
  app.add_option("--points", f.points, "points per shape")->type_name("P")->check(flag_checks::at_least(64))->capture_default_str();
  app.add_option("--epochs", f.epochs, "passes over the training shapes")->type_name("N")->check(flag_checks::at_least(1))->capture_default_str();
  app.add_option("--batch", f.batch, "shapes per step")->type_name("N")->check(flag_checks::at_least(2))->capture_default_str();
  app.add_option("--hub", f.hub, "SQLite path or postgresql:// URL of the hub")->type_name("URL")->capture_default_str();
  app.add_option("--out", f.out, "folder for the picture")->type_name("DIR")->capture_default_str();
  app.add_option("--min-miou", f.min_miou, "exit status 1 when a model's instance mIoU is below this")
      ->type_name("FRACTION")->check(CLI::Range(0.0, 1.0))->capture_default_str();
  CLI11_PARSE(app, argc, argv);
  manual_seed(1);
  std::filesystem::create_directories(f.out);

  const points::SyntheticShapeOptions shapes{.points = f.points};
  std::vector<points::PartRange> ranges;
  for (const points::PartCategory& c : points::synthetic_part_categories())
    ranges.push_back({c.name, c.first_part, static_cast<int64_t>(c.parts.size())});
  const int64_t parts = points::synthetic_part_count();
  std::printf("generating %lld training and %lld test shapes of %lld points...\n", static_cast<long long>(f.train),
              static_cast<long long>(f.test), static_cast<long long>(f.points));
  // fit reads {points, part}; the category is only for scoring. Augmentation runs on each read.
  const data::Dataset train_data = points::synthetic_part_shapes(f.train, 1, shapes)
                                       .cache()
                                       .map(points::Augmentation(3).rotate_about_axis().scale(0.8, 1.25).jitter().shuffle())
                                       .map([](data::Example e) { return data::Example{e[0], e[1]}; });
  const data::Example test = stacked(points::synthetic_part_shapes(f.test, 2, shapes));

  // The picture: one test shape per category, its true parts, then each model's.
  const int64_t shown = std::min<int64_t>(5, f.test);
  std::vector<Tensor> clouds, colours;
  std::vector<std::string> captions;
  for (int64_t i = 0; i < shown; ++i) {
    clouds.push_back(test[0].select(0, i));
    colours.push_back(test[1].select(0, i));
    captions.push_back(ranges[test[2].select(0, i).item<int64_t>()].name + ": truth");
  }

  hub::Hub store = hub::Hub::open(f.hub);
  bool all_passed = true;
  for (const std::string& kind : f.models) {
    nn::Model net = kind == "pointnet" ? pointnet_segmenter(f.points, parts) : pointnet2_segmenter(f.points, parts);
    std::printf("\n%s: %lld weights\n", kind.c_str(), static_cast<long long>(net.count_params()));
    const nlohmann::json config = {{"points", f.points}, {"train", f.train}, {"epochs", f.epochs}, {"batch", f.batch}};
    const int64_t run_id = train_pointcloud_model(net, train_data, store, "pointcloud_seg_" + kind, config, f.epochs, f.batch);

    const Tensor logits = train::predict(net, test[0], 50);
    const points::PartIou iou = points::part_mean_iou(logits, test[1], test[2], ranges);
    std::printf("%s instance mIoU %.4f, class mIoU %.4f (", kind.c_str(), iou.instance_miou, iou.class_miou);
    for (size_t c = 0; c < ranges.size(); ++c) std::printf("%s%s %.3f", c ? ", " : "", ranges[c].name.c_str(), iou.per_category[c]);
    std::printf(")\n");
    const int64_t version = lifecycle::save_model(
        store, "pointcloud_seg_" + kind, net,
        {.metrics = {{"instance_miou", iou.instance_miou}, {"class_miou", iou.class_miou}}, .run_id = run_id});
    std::printf("saved pointcloud_seg_%s version %lld in %s (run %lld)\n", kind.c_str(), static_cast<long long>(version),
                f.hub.c_str(), static_cast<long long>(run_id));
    for (int64_t i = 0; i < shown; ++i) {
      clouds.push_back(test[0].select(0, i));
      colours.push_back(iou.predictions.select(0, i));
      captions.push_back(ranges[test[2].select(0, i).item<int64_t>()].name + ": " + kind);
    }
    all_passed = all_passed && iou.instance_miou >= f.min_miou;
  }
  const std::string picture = f.out + "/parts_truth_and_predictions.png";
  data::write_image(picture, points::render_grid(clouds, colours, captions, shown, {.width = 200, .height = 200}));
  std::printf("\nthe test shapes by part, truth then each model (rows): %s\n", picture.c_str());
  return all_passed ? 0 : 1;
}
