// Strata's version, written here and nowhere else: CMakeLists.txt reads these lines for
// project(), and so for libstrata's SOVERSION, StrataConfigVersion.cmake, strata.pc and the .deb.
#pragma once

#define STRATA_VERSION_MAJOR 0
#define STRATA_VERSION_MINOR 1
#define STRATA_VERSION_PATCH 0

#define STRATA_VERSION_STR_(x) #x
#define STRATA_VERSION_STR(x) STRATA_VERSION_STR_(x)

namespace strata {

// "major.minor.patch" of the headers being compiled against.
inline constexpr const char* kVersion = STRATA_VERSION_STR(STRATA_VERSION_MAJOR) "." STRATA_VERSION_STR(
    STRATA_VERSION_MINOR) "." STRATA_VERSION_STR(STRATA_VERSION_PATCH);

}  // namespace strata
