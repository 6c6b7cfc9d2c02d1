// How the point-cloud examples train each model (pointcloud_classify.cpp, pointcloud_segment.cpp):
// Adam at 1e-3 on a cosine to 0 over the epochs, cross-entropy (over every point for
// segmentation), plus PointNet's orthogonality regulariser (weight 0.001, the paper's) when the
// model has a PointNet layer named "pointnet_encoder"; the run's metrics go into a new hub run.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include <strata/points/pointnet.hpp>
#include <strata/strata.hpp>

// Trains `net` on `data` ({cloud, target} examples) into a new run `run_name` of `store`, whose
// config is `config`; returns the run's id.
inline int64_t train_pointcloud_model(strata::nn::Model& net, const strata::data::Dataset& data, strata::hub::Hub& store,
                                      const std::string& run_name, const nlohmann::json& config, int64_t epochs,
                                      int64_t batch) {
  using namespace strata;
  optim::Adam adam(net.trainable_weights(), {.lr = 1e-3});
  auto* encoder = dynamic_cast<points::PointNet*>(net.find("pointnet_encoder"));
  train::LossFn loss = [encoder](const Tensor& logits, const Tensor& labels) {
    Tensor l = cross_entropy(logits, labels);
    if (encoder != nullptr && encoder->feature_transform().defined())
      l = l + 0.001 * points::orthogonality_loss(encoder->feature_transform());
    return l;
  };
  auto logger = std::make_shared<lifecycle::HubLogger>(store, run_name, config.dump(), 20);
  auto cosine = std::make_shared<train::LearningRateScheduler>(std::make_shared<optim::CosineAnnealingLR>(adam, epochs));
  train::fit(net, adam, loss, data, {.epochs = epochs, .batch_size = batch, .seed = 5, .callbacks = {logger, cosine}});
  return logger->run_id();
}
