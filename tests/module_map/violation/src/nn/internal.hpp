// A fixture for the module-map check: a private header of nn, which only nn and its tests may include.
#pragma once
