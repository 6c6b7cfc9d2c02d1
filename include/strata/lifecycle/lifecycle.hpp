// The lifecycle module, above train and hub: training that keeps its record in the hub. Logging
// metrics into hub runs, checkpoints into hub models and resuming from them, static models saved
// and loaded whole, and a run's metrics as TensorBoard event files.
#pragma once
#include "strata/lifecycle/hub_logger.hpp"
#include "strata/lifecycle/hub_models.hpp"
#include "strata/lifecycle/model_checkpoint.hpp"
#include "strata/lifecycle/resume.hpp"
#include "strata/lifecycle/tensorboard_export.hpp"
