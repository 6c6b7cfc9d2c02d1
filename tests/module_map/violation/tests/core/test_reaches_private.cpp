// A fixture for the module-map check: a core test including a private header of nn breaks the
// map (a test sees what its module sees, and only its own module's private headers).
#include "../../src/nn/internal.hpp"
