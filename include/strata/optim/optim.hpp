// The optim module: optimizers, learning-rate schedules and gradient clipping.
#pragma once
#include "strata/optim/adadelta.hpp"
#include "strata/optim/adagrad.hpp"
#include "strata/optim/adam.hpp"
#include "strata/optim/adamax.hpp"
#include "strata/optim/clip.hpp"
#include "strata/optim/optimizer.hpp"
#include "strata/optim/rmsprop.hpp"
#include "strata/optim/schedule.hpp"
#include "strata/optim/sgd.hpp"
