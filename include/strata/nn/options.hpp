// Layer options declared once. Each layer class has an options struct whose fields are listed
// once, in its header, with name, type, default, rule (bounds) and a one-line doc:
//
//   #define STRATA_DENSE_OPTIONS(X)
//     X(int64_t, units, 0, at_least(1), "output features")
//     X(Activation, act, {}, any(), "applied to x·W + b; empty: none")
//     X(Initializer, w_init, glorot_uniform(), not_saved(), "initializer of W")
//   STRATA_OPTIONS(DenseOptions, STRATA_DENSE_OPTIONS);
// (each line of the #define continued with a backslash).
//
// The header expands only the members (a plain aggregate, so `nn::Dense({.units = 800})` reads
// as Keras's keyword arguments); the layer's .cpp expands the same list again into the field
// table (nn/option_table.hpp) from which come the model file's config writer and reader (unknown
// keys refused, every rule enforced with an error naming layer, field and bound), the checks of
// constructed options, docs/layers.md's table and the Python keyword arguments. A default that
// holds a comma goes in parentheses: `(SpatialSizes{3, 3})`.
#pragma once

#define STRATA_OPTION_MEMBER(type, name, default_value, rule, doc) type name = default_value;
#define STRATA_OPTIONS(Struct, LIST) \
  struct Struct {                    \
    LIST(STRATA_OPTION_MEMBER)       \
  }
