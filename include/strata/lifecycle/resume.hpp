// Resumable training: what a checkpoint stores beside the weights so that a stopped fit can go
// on exactly as if it had not stopped, and the call that restores it.
//   train::FitOptions options{.epochs = 10, .callbacks = {checkpoint}};
//   lifecycle::resume_from(hub, "mlp", net, adam, options);  // weights, optimizer, RNG, epoch, seed
//   train::fit(net, adam, {}, data, options);             // epochs options.initial_epoch .. 9
//
// A checkpoint version of model NAME carries, in its values: "epoch" (the epoch just finished),
// "shuffle_seed" (FitOptions::seed), "rng_state" (the default generator, which dropout draws
// from) and "optimizer_version": the version of the hub model "NAME/optimizer" holding the
// optimizer's named_state(). That version is saved first, so a version naming it is complete.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "strata/hub/hub.hpp"
#include "strata/train/callback.hpp"
#include "strata/train/fit.hpp"

namespace strata::lifecycle {

// The epoch a checkpoint version was saved after; nothing when it has no valid "epoch".
std::optional<int64_t> checkpoint_epoch(const hub::ModelInfo& info);

// The hub model holding the optimizer states of checkpoints of `model_name`.
std::string optimizer_model_name(const std::string& model_name);

// Adds the training state of `state` (after epoch `epoch`) to `meta`, saving the optimizer's
// state first when `include_optimizer`. ModelCheckpoint calls it.
void add_training_state(hub::Hub& hub, const std::string& model_name, const train::TrainingState& state, int64_t epoch,
                        bool include_optimizer, hub::ModelMeta& meta);

// Restores checkpoint `ref` ("NAME" for the latest version or "NAME:VERSION") into `model` and
// `optimizer` (made as for the run that saved it), restores the default generator, and sets
// options.initial_epoch (the epoch after the checkpoint's) and options.seed. Throws
// strata::Error naming the version when it lacks a training state (a version saved without
// the optimizer, or by hand), or when the weights or optimizer state do not fit; on every
// process of a data-parallel job alike. Returns the restored version's info.
hub::ModelInfo resume_from(hub::Hub& hub, const std::string& ref, nn::Layer& model, optim::Optimizer& optimizer,
                           train::FitOptions& options);

}  // namespace strata::lifecycle
