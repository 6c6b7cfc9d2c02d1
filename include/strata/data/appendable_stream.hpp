// AppendableStream: online data that arrives at any time. Producers append() examples; each
// reader of stream() starts at the first example and, having read everything, waits for more
// until close(). Listeners (a ChangeTrigger) hear of every append.
#pragma once
#include <functional>
#include <memory>

#include "strata/data/dataset.hpp"

namespace strata::data {

class AppendableStream {
 public:
  AppendableStream();

  // Thread-safe. Throws strata::Error after close().
  void append(Example example);
  // Readers end once they have read everything; appending is no longer allowed.
  void close();
  bool closed() const;
  int64_t size() const;

  // wait = true: next() blocks for new examples until close(). wait = false: a pass ends at
  // the examples there when it reaches them.
  Stream stream(bool wait = true) const;
  // Random access over the examples appended so far (later appends are not in it).
  Dataset snapshot() const;

  // fn(example, size after the append) runs on the appending thread after each append.
  void on_append(std::function<void(const Example&, int64_t)> fn);

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace strata::data
