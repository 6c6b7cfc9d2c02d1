// HDF5 files are read in a process of their own (io::run_in_child_process, src/io/child_process.hpp):
// libhdf5 overflowed heap buffers and asked for gigabytes on files the fuzzer made
// (docs/reliability.md). A crash there is an error here, and this process goes on.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <string>
#include <thread>
#include <unistd.h>

#include "support/address_sanitizer.hpp"
#include "support/expect_error.hpp"
#include "io/child_process.hpp"
#include "strata/core/error.hpp"
#include "strata/core/factory.hpp"
#include "strata/core/limits.hpp"
#include "strata/io/keras.hpp"

namespace strata {
namespace {

std::string corpus(const std::string& name) { return std::string(STRATA_TESTS_DIR) + "/../fuzz/corpus/hdf5/" + name; }

// What the child sends, collected.
std::string run_child(const std::function<void(const io::ByteSink&)>& produce, uint64_t budget = uint64_t{1} << 30) {
  std::string got;
  io::run_in_child_process("test input", budget, produce, [&](const char* data, size_t n) { got.append(data, n); });
  return got;
}

bool has_no_children() { return ::waitpid(-1, nullptr, WNOHANG) == -1 && errno == ECHILD; }

// The files of docs/reliability.md's table: under the sanitizers libhdf5 read 38 bytes past a
// heap block (H5Aexists), read a wild address, or asked for more than 2 GB; each is an error now.
TEST(Hdf5ReaderProcess, FilesThatBrokeLibhdf5AreRefusedAndThisProcessGoesOn) {
  for (const char* name : {"crash-021bb7cbfaafa869685d9deda51bff0c0bbfbd58", "crash-3feb848557354477f01e3ada1f4083b7685c0f59",
                           "oom-f767b471cee3f8af8c75ca14dd041c8fe4ca9293", "oom-7d7b5dd1a4ae61b674e89e6580e1b1516b9363ae"}) {
    SCOPED_TRACE(name);
    testing::expect_error([&] { io::load_keras_weights(corpus(name)); }, {corpus(name)});
  }
  EXPECT_EQ(io::load_keras_weights(corpus("layers.h5")).size(), 6u);  // a good file still reads
  EXPECT_TRUE(has_no_children());
}

TEST(Hdf5ReaderProcess, ACrashInTheReaderIsAnErrorSayingHowItEnded) {
  testing::expect_error([] { run_child([](const io::ByteSink&) { std::raise(SIGSEGV); }); },
                        {"test input: the reader's process crashed (killed by signal 11", "the file is malformed"});
  testing::expect_error([] {
    run_child([](const io::ByteSink& sink) {
      sink("half", 4);
      _exit(3);
    });
  }, {"crashed (exit status 3"});
  EXPECT_TRUE(has_no_children());
}

TEST(Hdf5ReaderProcess, ErrorsKeepTheirMessageAndLimitErrorsTheirType) {
  testing::expect_error([] { run_child([](const io::ByteSink&) { throw Error("layer 'x' is odd"); }); },
                        {"layer 'x' is odd"});
  EXPECT_THROW(run_child([](const io::ByteSink&) { throw LimitError("over max_tensor_bytes"); }), LimitError);
  // The limits this process set apply in the child, which starts as its copy.
  const uint64_t saved = limits().max_tensor_bytes;
  limits().max_tensor_bytes = 100;
  EXPECT_THROW(run_child([](const io::ByteSink&) {
                 check_limit("t", "bytes", 4000, "max_tensor_bytes", limits().max_tensor_bytes);
               }),
               LimitError);
  limits().max_tensor_bytes = saved;
}

TEST(Hdf5ReaderProcess, OutputArrivesWholeAndInOrder) {
  std::string sent;
  for (int i = 0; i < 300'000; ++i) sent += static_cast<char>(i * 7 % 251);
  EXPECT_EQ(run_child([&](const io::ByteSink& sink) {
              for (size_t at = 0; at < sent.size(); at += 1000) sink(sent.data() + at, std::min<size_t>(1000, sent.size() - at));
              sink(nullptr, 0);
            }),
            sent);
}

// A program that ignores SIGCHLD has its children reaped by the kernel: the child's status is
// then unknown, and its complete output is taken as it is.
TEST(Hdf5ReaderProcess, AProgramThatIgnoresSigchldStillReads) {
  const auto previous = std::signal(SIGCHLD, SIG_IGN);
  EXPECT_EQ(run_child([](const io::ByteSink& sink) { sink("ok", 2); }), "ok");
  EXPECT_EQ(io::load_keras_weights(corpus("layers.h5")).size(), 6u);
  std::signal(SIGCHLD, previous);
}

// A reader past its memory budget fails to allocate and says so, rather than taking the machine.
TEST(Hdf5ReaderProcess, TheReaderStaysWithinItsMemoryBudget) {
  try {
    run_child([](const io::ByteSink&) { std::string big(size_t{512} << 20, 'x'); }, uint64_t{64} << 20);
    ADD_FAILURE() << "512 MB were allocated within a budget of 64 MB";
  } catch (const Error& e) {
    // AddressSanitizer reports a failed allocation and ends the child instead of throwing.
    const std::string message = e.what();
    EXPECT_TRUE(message.find("ran out of the memory it may use") != std::string::npos ||
                (kAddressSanitizer && message.find("the reader's process crashed") != std::string::npos))
        << message;
  }
  EXPECT_EQ(run_child([](const io::ByteSink& sink) {
              std::string small(size_t{16} << 20, 'x');
              sink(small.data(), 1);
            }, uint64_t{64} << 20),
            "x");
}

// The parent stops reading (its consumer throws) while the child would write for ever: the child
// is killed and reaped, and the consumer's error comes through.
TEST(Hdf5ReaderProcess, AParentThatStopsReadingLeavesNoChildBehind) {
  const auto endless = [](const io::ByteSink& sink) {
    const std::string chunk(4096, 'z');
    for (;;) sink(chunk.data(), chunk.size());
  };
  EXPECT_THROW(io::run_in_child_process("endless", uint64_t{1} << 30, endless,
                                        [](const char*, size_t) { throw Error("enough"); }),
               Error);
  EXPECT_TRUE(has_no_children());
}

// Forking while another thread holds Strata's allocator lock, or is making the allocator, would
// leave the child's allocator locked: the lock is held across the fork instead, and the
// allocator is made when the library loads (src/core/allocator.cpp).
TEST(Hdf5ReaderProcess, ForkingWhileAnotherThreadAllocatesDoesNotHang) {
  ::alarm(120);  // a hung child hangs this test: end it (without the fix it hangs within seconds)
  // The lazily made statics on zeros' path (the dispatch tables) are made before any fork: a
  // fork during their very first use on the other thread would hang the child on their guard.
  // The allocator's own static is made at load for that reason; this test is about its lock.
  const Tensor warm = zeros({64});
  std::atomic<bool> stop{false};
  std::thread allocating([&] {
    while (!stop) {
      Tensor t = zeros({64});
      Tensor u = zeros({4096});
    }
  });
  for (int i = 0; i < 300; ++i)
    EXPECT_EQ(run_child([](const io::ByteSink& sink) {
                ::alarm(60);  // the parent's alarm is not inherited: a hung child must end too
                const Tensor t = zeros({16});
                sink("ok", 2);
              }),
              "ok");
  stop = true;
  allocating.join();
  ::alarm(0);
}

}  // namespace
}  // namespace strata
