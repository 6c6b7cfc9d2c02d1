// A model quantised to int8 (nn::quantize_int8, docs/quantization.md) saved whole in the hub is
// served by `strata serve` like any static model: its answers are the int8 model's own, computed
// in this process from the same hub version.
#include <gtest/gtest.h>

#include "serve/serve_fixture.hpp"
#include "strata/nn/int8.hpp"

namespace strata::testing {
namespace {

using Int8ServeTest = ServeTest;

TEST_F(Int8ServeTest, QuantisedCnnIsServedFromTheHub) {
  cnn_->eval();
  const auto q = nn::quantize_int8(*cnn_, {uniform({16, 8, 8, 1}, 0, 1), uniform({16, 8, 8, 1}, 0, 1)});
  ASSERT_EQ(q.model->get_layer(0).kind(), "int8_conv2d") << q.report();
  {
    auto hub = hub::Hub::open(hub_path_);
    EXPECT_EQ(lifecycle::save_model(hub, "cnn_int8", *q.model), 1);
  }
  auto client = start({"--model", "cnn_int8"}).client();
  const Tensor images = uniform({3, 8, 8, 1}, 0, 1);
  auto res = post_infer(client, "cnn_int8", json_request("image", images));
  ASSERT_EQ(res->status, 200) << res->body;
  const Tensor served = infer_output(res);
  EXPECT_TRUE(allclose(served, predict("cnn_int8", 1, images), 1e-5, 1e-6));
  // And it is the quantised model, not a float copy: the same as the int8 model here.
  NoGradGuard no_grad;
  EXPECT_TRUE(allclose(served, q.model->run({images})[0], 1e-5, 1e-6));
}

}  // namespace
}  // namespace strata::testing
