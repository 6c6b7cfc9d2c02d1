// Issue 13.5: pickles inside .npz. Nesting is bounded by limits().max_pickle_depth, nothing deep
// is destroyed recursively (the reader's objects live in one arena), and an opcode that takes
// values from below the last MARK is a strata::Error, not a std::length_error.
#include <gtest/gtest.h>

#include <string>

#include "support/expect_error.hpp"
#include "readers_fixture.hpp"
#include "strata/io/pickle.hpp"

namespace strata::testing {
namespace {

using ReadersPickle = ReadersTest;

// PROTO 2, an empty tuple wrapped `depth` times in TUPLE1, STOP.
std::string nested_tuples(size_t depth) { return std::string("\x80\x02)") + std::string(depth, '\x85') + "."; }

TEST_F(ReadersPickle, DeepNestingIsRefusedAtTheDepthLimit) {
  limits().max_pickle_depth = 50;
  expect_error([] { io::unpickle_arrays(nested_tuples(49), "w.npz"); }, {"w.npz", "is a tuple, expected"});
  expect_limit_error([] { io::unpickle_arrays(nested_tuples(50), "w.npz"); }, "max_pickle_depth", "w.npz");
}

TEST_F(ReadersPickle, DeepNestingUnderTheDefaultLimitIsRefusedWithoutCrashing) {
  expect_limit_error([] { io::unpickle_arrays(nested_tuples(1'000'000), "w.npz"); }, "max_pickle_depth", "w.npz");
}

// With the limit raised out of the way, a million nested tuples are built and freed: freeing
// them one inside the other used to overflow the stack.
TEST_F(ReadersPickle, AMillionNestedTuplesAreFreedWithoutRecursion) {
  limits().max_pickle_depth = 2'000'000;
  expect_error([] { io::unpickle_arrays(nested_tuples(1'000'000), "w.npz"); }, {"w.npz", "is a tuple, expected"});
}

// PROTO 2, EMPTY_LIST, BINPUT 0, BINGET 0, APPEND, STOP: a list holding itself. Shared pointers
// leaked such a cycle; the arena frees it with the reader (a leak fails the sanitizer build).
TEST_F(ReadersPickle, AListHoldingItselfIsAnError) {
  expect_error([] { io::unpickle_arrays(std::string("\x80\x02]q\x00h\x00" "a.", 9), "w.npz"); },
               {"w.npz: element 0", "is a list, expected"});
}

// One-byte opcodes that each make an object multiply a pickle's size a hundredfold in memory:
// the objects are bounded by limits().max_tensor_bytes.
TEST_F(ReadersPickle, ObjectsAreBoundedByTheTensorByteLimit) {
  limits().max_tensor_bytes = 1 << 20;
  const std::string empty_tuples = std::string("\x80\x02") + std::string(100'000, ')') + ".";
  expect_limit_error([&] { io::unpickle_arrays(empty_tuples, "w.npz"); }, "max_tensor_bytes", "w.npz");
}

TEST_F(ReadersPickle, TupleOpcodesTakeNoValuesFromBelowTheLastMark) {
  // PROTO 2, None, None, MARK, TUPLE2, TUPLE, STOP: TUPLE2 took the Nones from under the MARK,
  // and TUPLE then found its MARK above the stack's top.
  const std::string eight_bytes("\x80\x02NN(\x86t.", 8);
  expect_error([&] { io::unpickle_arrays(eight_bytes, "w.npz"); }, {"w.npz", "TUPLE2", "MARK"});
  for (const char op : {'\x85', '\x86', '\x87'})
    expect_error([&] { io::unpickle_arrays(std::string("\x80\x02NNN(") + op + ".", "w.npz"); }, {"above its last MARK"});
}

}  // namespace
}  // namespace strata::testing
