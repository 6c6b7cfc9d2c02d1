// Faults from below, injected (issue 43.2): this program's calls to write, writev, pwrite64,
// fsync, fdatasync, open, fopen, rename and mmap on files under one folder are counted, and the
// n-th can be made to fail with ENOSPC, EIO or EDQUOT, or (a write) to write half its bytes, the
// way SQLite's I/O-error tests walk every call; or its sends to a database server are counted
// and the connection dropped at the n-th. The calls are interposed by definitions of the
// same names linked into the test program (syscall_faults.cpp), which libstrata, libsqlite3 and
// libstdc++ call through their PLT; only files under the folder are touched, so the test's own
// output is not. Linked into test_faults only.
#pragma once
#include <cstdint>
#include <string>

namespace strata::testing::faults {

enum class Fault { no_space, io_error, quota, short_write, dropped_connection };
const char* fault_name(Fault f);

// Counts the calls on files under `folder` from now on, and makes the n-th (1-based) fail
// with `fault`, once. n = 0: count only.
void arm(const std::string& folder, int64_t n, Fault fault);
// Counts the `send` calls on TCP connections to 127.0.0.1:`port` (a PostgreSQL server's: about
// one per statement), and drops the connection at the n-th (shutdown, then ECONNRESET), once.
void arm_connections(int port, int64_t n);
// Stops counting and failing.
void disarm();
// Calls counted since arm.
int64_t calls();
// The call that was failed ("fsync hub.db-wal"), empty while none was.
std::string fired();

}  // namespace strata::testing::faults
