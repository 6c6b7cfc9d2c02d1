// What the dist sources share about MPI (internal: mpi.h is included only under src/dist).
#pragma once
#include <mpi.h>

#include "strata/core/tensor.hpp"

namespace strata::dist::detail {

// The MPI datatype of a float tensor's elements; throws strata::Error naming `who` otherwise.
MPI_Datatype mpi_type(const Tensor& t, const char* who);

// Checks that t can be handed to MPI as one buffer: defined, with data, contiguous, float32/64,
// at most INT_MAX elements.
void check_buffer(const Tensor& t, const char* who);

// dst[i] = src[i] * factor over `count` floats of `type` (the mean of a sum); dst may be src.
void scale(const void* src, void* dst, int64_t count, MPI_Datatype type, double factor);

}  // namespace strata::dist::detail
