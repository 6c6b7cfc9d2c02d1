// The dist module (libstrata_dist): data-parallel training across processes on MPI
// (docs/distributed.md). Link strata_dist; mpi.h is not included by any of these headers.
#pragma once
#include "strata/dist/collectives.hpp"
#include "strata/dist/data_parallel.hpp"
#include "strata/dist/sampler.hpp"
#include "strata/dist/sync_batch_norm.hpp"
#include "strata/dist/world.hpp"
