// coco_evaluate (strata/vision/coco_eval.hpp) against pycocotools' COCOeval on the same random
// detections, installed into the tests' cached venv (skipped, saying why, when PyPI is out of
// reach).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "serve/command_output.hpp"
#include "serve/test_venv.hpp"
#include "strata/vision/coco_eval.hpp"
#include "support/expect_error.hpp"
#include "support/temp_dir.hpp"

namespace strata::vision {
namespace coco_eval_test {

using nlohmann::json;

struct CocoEvalTestSet {
  std::vector<std::vector<Detection>> detections;
  std::vector<std::vector<LabeledBox>> truths;
};

// Images of a detector that finds most objects roughly, duplicates some, adds false alarms; some
// images have no objects, some no detections, and the last class never has a ground truth.
CocoEvalTestSet coco_eval_random_set(uint64_t seed, int64_t images, int64_t classes) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> pos(0, 200), size(4, 60), jitter(-0.15, 0.15), unit(0, 1);
  CocoEvalTestSet set;
  for (int64_t i = 0; i < images; ++i) {
    std::vector<LabeledBox> gts;
    std::vector<Detection> dts;
    const int64_t objects = unit(rng) < 0.15 ? 0 : static_cast<int64_t>(rng() % 8);
    for (int64_t k = 0; k < objects; ++k) {
      const double x = pos(rng), y = pos(rng), w = size(rng), h = size(rng);
      const int64_t label = static_cast<int64_t>(rng() % static_cast<uint64_t>(classes - 1));
      gts.push_back({{x, y, x + w, y + h}, label});
      for (int copy = 0; copy < 3 && unit(rng) < (copy == 0 ? 0.8 : 0.3); ++copy) {
        const double dx = jitter(rng) * w, dy = jitter(rng) * h, sw = 1 + jitter(rng), sh = 1 + jitter(rng);
        const int64_t l = unit(rng) < 0.9 ? label : static_cast<int64_t>(rng() % static_cast<uint64_t>(classes));
        dts.push_back({{x + dx, y + dy, x + dx + w * sw, y + dy + h * sh}, unit(rng), l});
      }
    }
    if (unit(rng) < 0.2) dts.clear();
    for (int64_t k = static_cast<int64_t>(rng() % 4); k > 0; --k) {
      const double x = pos(rng), y = pos(rng);
      dts.push_back({{x, y, x + size(rng), y + size(rng)}, unit(rng) * 0.6, static_cast<int64_t>(rng() % static_cast<uint64_t>(classes))});
    }
    set.truths.push_back(std::move(gts));
    set.detections.push_back(std::move(dts));
  }
  return set;
}

json coco_eval_bbox(const vision::Box& b) { return {b.x1, b.y1, b.x2 - b.x1, b.y2 - b.y1}; }

class CocoEval : public testing::TempDirTest {
 protected:
  // pycocotools' stats for the set: AP, AP50, AP75, ..., AR@100 at [8]; empty when it did not run.
  std::vector<double> pycocotools_stats(const CocoEvalTestSet& set, int64_t classes, const std::string& python) {
    json truth{{"images", json::array()}, {"annotations", json::array()}, {"categories", json::array()}};
    json found = json::array();
    for (int64_t c = 0; c < classes; ++c) truth["categories"].push_back({{"id", c + 1}, {"name", "c" + std::to_string(c)}});
    int64_t id = 0;
    for (size_t i = 0; i < set.truths.size(); ++i) {
      truth["images"].push_back({{"id", i + 1}, {"width", 256}, {"height", 256}});
      for (const LabeledBox& g : set.truths[i]) {
        const json bbox = coco_eval_bbox(g.box);
        truth["annotations"].push_back({{"id", ++id}, {"image_id", i + 1}, {"category_id", g.label + 1}, {"bbox", bbox},
                                        {"area", bbox[2].get<double>() * bbox[3].get<double>()}, {"iscrowd", 0}});
      }
      for (const Detection& d : set.detections[i])
        found.push_back({{"image_id", i + 1}, {"category_id", d.label + 1}, {"bbox", coco_eval_bbox(d.box)}, {"score", d.score}});
    }
    std::ofstream(path("truth.json")) << truth.dump();
    std::ofstream(path("found.json")) << found.dump();
    const std::string out = testing::command_output("'" + python + "' '" + STRATA_TESTS_DIR + "/vision/coco_eval_check.py' '" +
                                                    path("truth.json") + "' '" + path("found.json") + "'");
    return out.empty() ? std::vector<double>{} : json::parse(out).get<std::vector<double>>();
  }
};

TEST_F(CocoEval, MatchesPycocotoolsOnRandomSets) {
  const std::string python = testing::test_venv_python("pycocotools.cocoeval, numpy", "pycocotools==2.0.8 numpy");
  if (python.empty()) GTEST_SKIP() << "pycocotools==2.0.8 could not be installed from PyPI (offline?)";
  const int64_t classes = 5;
  for (uint64_t seed : {1u, 2u, 3u, 4u}) {
    const CocoEvalTestSet set = coco_eval_random_set(seed, seed == 4 ? 3 : 40, classes);
    const std::vector<double> want = pycocotools_stats(set, classes, python);
    ASSERT_EQ(want.size(), 12u) << "coco_eval_check.py failed";
    EXPECT_GT(want[1], 0.1);  // a set where matching decides something
    EXPECT_LT(want[1], 0.95);
    for (int64_t max_dets : {100, 2}) {
      const CocoMetrics got = coco_evaluate(set.detections, set.truths, classes, max_dets);
      if (max_dets == 2) {  // pycocotools' AR@1 and AR@10 bracket it; checks the truncation acts
        EXPECT_LE(got.ar, want[8] + 1e-12);
        continue;
      }
      EXPECT_NEAR(got.ap, want[0], 1e-4) << "seed " << seed;
      EXPECT_NEAR(got.ap50, want[1], 1e-4) << "seed " << seed;
      EXPECT_NEAR(got.ap75, want[2], 1e-4) << "seed " << seed;
      EXPECT_NEAR(got.ar, want[8], 1e-4) << "seed " << seed;
    }
  }
}

TEST(CocoEvalBasics, PerfectAndEmptyDetections) {
  std::vector<std::vector<LabeledBox>> truths{{{{0, 0, 10, 10}, 0}, {{20, 20, 40, 30}, 1}}, {}};
  std::vector<std::vector<Detection>> exact{{{{0, 0, 10, 10}, 0.9, 0}, {{20, 20, 40, 30}, 0.8, 1}}, {}};
  const CocoMetrics perfect = coco_evaluate(exact, truths, 3);
  EXPECT_DOUBLE_EQ(perfect.ap, 1.0);
  EXPECT_DOUBLE_EQ(perfect.ap50, 1.0);
  const CocoMetrics none = coco_evaluate({{}, {}}, truths, 3);
  EXPECT_DOUBLE_EQ(none.ap, 0.0);
  EXPECT_DOUBLE_EQ(coco_evaluate({{}}, {{}}, 3).ap, -1.0);  // no class has a ground truth
  // A box shifted by half its width: IoU 1/3, a match at no threshold.
  const CocoMetrics shifted = coco_evaluate({{{{5, 0, 15, 10}, 0.9, 0}}, {}}, {{{{0, 0, 10, 10}, 0}}, {}}, 1);
  EXPECT_DOUBLE_EQ(shifted.ap50, 0.0);
}

TEST(CocoEvalBasics, RefusesBadInput) {
  testing::expect_error([] { coco_evaluate({{}}, {}, 2); }, {"coco_evaluate", "1 images", "0"});
  testing::expect_error([] { coco_evaluate({{}}, {{{{0, 0, 1, 1}, 3}}}, 2); }, {"coco_evaluate", "class 3"});
  testing::expect_error([] { coco_evaluate({{{{0, 0, 1, 1}, 0.5, -1}}}, {{}}, 2); }, {"coco_evaluate", "class -1"});
}

}  // namespace coco_eval_test
}  // namespace strata::vision
