// Whether this test program was built with AddressSanitizer (the sanitizer build, docs/reliability.md):
// some behaviour differs there (a failed allocation ends the process instead of throwing).
#pragma once

// GCC says __SANITIZE_ADDRESS__; clang (the sanitizer build's) says it through __has_feature.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
constexpr bool kAddressSanitizer = __has_feature(address_sanitizer);
#else
constexpr bool kAddressSanitizer = false;
#endif
