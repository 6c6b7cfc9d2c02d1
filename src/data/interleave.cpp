// Stream::interleave, in tf.data's deterministic order.
#include <optional>

#include "strata/data/stream.hpp"

namespace strata::data {

Stream Stream::interleave(std::function<Stream(const Example&)> fn, int64_t cycle_length, int64_t block_length) const {
  STRATA_CHECK(cycle_length >= 1 && block_length >= 1,
               "Stream::interleave: cycle_length and block_length must be >= 1, got ", cycle_length, " and ",
               block_length);
  Stream src = *this;
  return Stream([src, fn, cycle_length, block_length] {
    struct Pass {
      Reader input;
      std::vector<std::optional<Reader>> slots;
      bool input_ended = false;
      int64_t open = 0, slot = 0, in_block = 0;
      void advance() {
        in_block = 0;
        slot = (slot + 1) % static_cast<int64_t>(slots.size());
      }
    };
    auto pass = std::make_shared<Pass>(Pass{src.open(), std::vector<std::optional<Reader>>(cycle_length)});
    return Reader([pass, fn, block_length]() -> std::optional<Example> {
      while (!pass->input_ended || pass->open > 0) {
        std::optional<Reader>& current = pass->slots[pass->slot];
        if (current) {
          if (auto ex = current->next()) {
            if (++pass->in_block == block_length) pass->advance();
            return ex;
          }
          current.reset();
          --pass->open;
          pass->advance();
        } else if (!pass->input_ended) {
          if (auto ex = pass->input.next()) {
            current = fn(*ex).open();
            ++pass->open;
          } else {
            pass->input_ended = true;
          }
        } else {
          pass->advance();
        }
      }
      return std::nullopt;
    });
  });
}

}  // namespace strata::data
