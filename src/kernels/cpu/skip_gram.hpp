// The skip-gram update on the CPU (strata/dispatch/skip_gram.hpp documents it).
#pragma once
#include "strata/dispatch/skip_gram.hpp"

namespace strata::kernels::cpu {

double skip_gram_update(float* v, float* out, int64_t dim, const int64_t* targets, int64_t count, float alpha, float* g,
                        float* grad, bool with_loss);

}  // namespace strata::kernels::cpu
