// The train module: fit / evaluate / predict, metrics, callbacks (early stopping, learning-rate
// schedules, CSV and hub logging, checkpoints into the hub), the progress bar and training curves.
#pragma once
#include "strata/train/callback.hpp"
#include "strata/train/confusion_matrix.hpp"
#include "strata/train/csv_logger.hpp"
#include "strata/train/early_stopping.hpp"
#include "strata/train/fit.hpp"
#include "strata/train/history.hpp"
#include "strata/train/history_html.hpp"
#include "strata/train/hub_models.hpp"
#include "strata/train/hub_logger.hpp"
#include "strata/train/lr_scheduler.hpp"
#include "strata/train/metrics.hpp"
#include "strata/train/model_checkpoint.hpp"
#include "strata/train/monitor.hpp"
#include "strata/train/progress_bar.hpp"
