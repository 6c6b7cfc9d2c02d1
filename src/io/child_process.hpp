// Runs a reader of hostile files in a child process, for libraries that are not safe on them:
// libhdf5 1.10.8 overflows heap buffers and asks for gigabytes on malformed files
// (docs/reliability.md). What the child produces streams back through a pipe; a crash, a
// sanitizer report or an allocation failure there ends the child, and the caller gets a
// strata::Error instead of a corrupted or killed process.
#pragma once
#include <cstdint>
#include <functional>
#include <string>

#include "strata/io/safetensors.hpp"  // ByteSink

namespace strata::io {

// Forks; the child calls produce(sink) and leaves with _exit, the parent gets every byte
// written to the sink through consume, in order, as they come. An exception thrown in the child
// is rethrown in the parent with its message, as a LimitError if it was one, else a strata::Error;
// a child that ends any other way (a signal, an exit status, output cut short) gives
// "WHAT: the reader's process crashed (...)". `what` names the input for that message.
// The child runs only the calling thread: produce must not wait for other threads. It may map
// `memory_budget` bytes more than the parent had mapped (RLIMIT_DATA): past that its allocations
// fail, and it ends.
// Writes all n bytes to fd (again after a partial write or EINTR); false on an error.
bool write_all(int fd, const char* data, size_t n);

void run_in_child_process(const std::string& what, uint64_t memory_budget,
                          const std::function<void(const ByteSink&)>& produce,
                          const std::function<void(const char* data, size_t n)>& consume);

}  // namespace strata::io
