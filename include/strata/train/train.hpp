// The train module: fit / evaluate / predict, metrics, callbacks (early stopping, learning-rate
// schedules, CSV and TensorBoard logging), the progress bar and training curves. Logging and
// checkpoints into the hub are lifecycle's (strata/lifecycle/lifecycle.hpp).
#pragma once
#include "strata/train/callback.hpp"
#include "strata/train/confusion_matrix.hpp"
#include "strata/train/confusion_matrix_html.hpp"
#include "strata/train/csv_logger.hpp"
#include "strata/train/early_stopping.hpp"
#include "strata/train/elementwise_metrics.hpp"
#include "strata/train/event_file_writer.hpp"
#include "strata/train/fit.hpp"
#include "strata/train/history.hpp"
#include "strata/train/history_html.hpp"
#include "strata/train/lr_scheduler.hpp"
#include "strata/train/metrics.hpp"
#include "strata/train/monitor.hpp"
#include "strata/train/progress_bar.hpp"
#include "strata/train/tensorboard_logger.hpp"
