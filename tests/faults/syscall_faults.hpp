// Faults from below, injected (issue 43.2): this program's calls to write, writev, pwrite64,
// fsync, fdatasync, open, fopen, rename and mmap on files under one folder are counted, and the
// n-th can be made to fail with ENOSPC, EIO or EDQUOT, or (a write) to write half its bytes, the
// way SQLite's I/O-error tests walk every call. The calls are interposed by definitions of the
// same names linked into the test program (syscall_faults.cpp), which libstrata, libsqlite3 and
// libstdc++ call through their PLT; only files under the folder are touched, so the test's own
// output is not. Linked into test_faults only.
#pragma once
#include <cstdint>
#include <string>

namespace strata::testing::faults {

enum class Fault { no_space, io_error, quota, short_write };
const char* fault_name(Fault f);

// Counts the calls on files under `folder` from now on, and makes the n-th (1-based) fail
// with `fault`, once. n = 0: count only.
void arm(const std::string& folder, int64_t n, Fault fault);
// Stops counting and failing.
void disarm();
// Calls counted since arm.
int64_t calls();
// The call that was failed ("fsync hub.db-wal"), empty while none was.
std::string fired();

}  // namespace strata::testing::faults
