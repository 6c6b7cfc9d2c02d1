// A fixture for the module-map check: core including nn breaks the map, and the check must say so.
#include "strata/nn/layer.hpp"
