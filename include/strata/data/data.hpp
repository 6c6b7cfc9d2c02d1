// The data module's umbrella header: datasets and streams, loaders, image preprocessing and
// online data.
#pragma once
#include "strata/data/appendable_stream.hpp"
#include "strata/data/batch.hpp"
#include "strata/data/change_trigger.hpp"
#include "strata/data/cifar.hpp"
#include "strata/data/csv.hpp"
#include "strata/data/dataset.hpp"
#include "strata/data/example.hpp"
#include "strata/data/idx.hpp"
#include "strata/data/image.hpp"
#include "strata/data/npy.hpp"
#include "strata/data/stream.hpp"
