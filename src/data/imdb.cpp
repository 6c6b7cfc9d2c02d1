#include "strata/data/imdb.hpp"

#include <charconv>
#include <filesystem>
#include <random>

#include "file_bytes.hpp"
#include "strata/core/error.hpp"

namespace strata::data {
namespace {

// A list or tuple being built: ints, or other lists (never both).
struct ReviewsNode {
  std::vector<int64_t> ints;
  std::vector<size_t> lists;
};

struct ReviewsItem {
  enum Kind { integer, mark, node } kind;
  int64_t value = 0;  // integer: the value; node: its index
};

class ReviewsUnpickler {
 public:
  ReviewsUnpickler(std::string_view b, const std::string& source) : b_(b), source_(source) {}

  PickledReviews run() {
    for (;;) {
      const unsigned char op = take(1)[0];
      switch (op) {
        case 0x80:
          take(1);
          break;  // PROTO
        case 0x95:
          take(8);
          break;  // FRAME: a size hint
        case '(':
          push({ReviewsItem::mark});
          break;  // MARK
        case ']':
          push(new_node());
          break;  // EMPTY_LIST
        case ')':
          push(new_node());
          break;  // EMPTY_TUPLE
        case 'l':
        case 't':
          push(from_mark());
          break;  // LIST, TUPLE
        case 0x85:
        case 0x86:
        case 0x87: {  // TUPLE1..3
          const size_t n = op - 0x84;
          STRATA_CHECK(stack_.size() >= n, source_, ": pickle TUPLE", n, " on a stack of ", stack_.size());
          const ReviewsItem tuple = new_node();
          for (size_t i = stack_.size() - n; i < stack_.size(); ++i) add(tuple, stack_[i]);
          stack_.resize(stack_.size() - n);
          push(tuple);
          break;
        }
        case 'a': {  // APPEND
          const ReviewsItem v = pop();
          add(top(), v);
          break;
        }
        case 'e': {  // APPENDS
          const size_t m = last_mark();
          STRATA_CHECK(m > 0, source_, ": pickle APPENDS with no list under its mark");
          for (size_t i = m + 1; i < stack_.size(); ++i) add(stack_[m - 1], stack_[i]);
          stack_.resize(m);
          break;
        }
        case 'K':
          push({ReviewsItem::integer, take(1)[0]});
          break;
        case 'M':
          push({ReviewsItem::integer, int64_t(le(2))});
          break;
        case 'J':
          push({ReviewsItem::integer, int64_t(int32_t(le(4)))});
          break;
        case 0x8a: {  // LONG1: n little-endian two's-complement bytes
          const size_t n = take(1)[0];
          STRATA_CHECK(n <= 8, source_, ": pickled integer of ", n, " bytes does not fit int64");
          uint64_t v = n ? le(n) : 0;
          if (n && n < 8 && (v >> (8 * n - 1)) & 1) v |= ~uint64_t{0} << (8 * n);  // sign-extend
          push({ReviewsItem::integer, int64_t(v)});
          break;
        }
        case 'I':
        case 'L':
          push({ReviewsItem::integer, text_int(op)});
          break;  // INT, LONG (protocol 0)
        case 'p':
          line();
          break;  // PUT (text): no GET is accepted,
        case 'q':
          take(1);
          break;  // BINPUT      so the memo is not kept
        case 'r':
          take(4);
          break;  // LONG_BINPUT
        case 0x94:
          break;  // MEMOIZE
        case '0':
          pop();
          break;  // POP
        case '1':
          stack_.resize(last_mark());
          break;  // POP_MARK
        case '.':
          return result(pop());  // STOP
        default:
          STRATA_CHECK(false, source_, ": pickle opcode 0x", hex(op), " at byte ", pos_ - 1,
                       " is not one of lists of integers (only token-id data is read)");
      }
    }
  }

 private:
  std::string_view take(size_t n) {
    STRATA_CHECK(n <= b_.size() - pos_, source_, ": pickle ends at byte ", b_.size(), " inside an opcode");
    const std::string_view s = b_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  uint64_t le(size_t n) {
    const std::string_view s = take(n);
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= uint64_t(static_cast<unsigned char>(s[i])) << (8 * i);
    return v;
  }
  std::string_view line() {
    const size_t end = b_.find('\n', pos_);
    STRATA_CHECK(end != std::string_view::npos, source_, ": pickle text argument at byte ", pos_,
                 " has no end of line");
    const std::string_view s = b_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return s;
  }
  int64_t text_int(char op) {
    std::string_view s = line();
    if (op == 'L' && !s.empty() && s.back() == 'L') s.remove_suffix(1);
    int64_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    STRATA_CHECK(ec == std::errc() && end == s.data() + s.size(), source_, ": pickled integer '", std::string(s),
                 "' is not an int64");
    return v;
  }
  static std::string hex(unsigned v) {
    const char* digits = "0123456789abcdef";
    return {digits[v >> 4], digits[v & 15]};
  }
  void push(ReviewsItem item) { stack_.push_back(item); }
  ReviewsItem pop() {
    STRATA_CHECK(!stack_.empty() && stack_.back().kind != ReviewsItem::mark, source_, ": pickle pops an empty stack");
    const ReviewsItem v = stack_.back();
    stack_.pop_back();
    return v;
  }
  ReviewsItem& top() {
    STRATA_CHECK(!stack_.empty(), source_, ": pickle appends to an empty stack");
    return stack_.back();
  }
  size_t last_mark() const {
    for (size_t i = stack_.size(); i-- > 0;)
      if (stack_[i].kind == ReviewsItem::mark) return i;
    STRATA_CHECK(false, source_, ": pickle has no MARK where one is needed");
    return 0;
  }
  ReviewsItem new_node() {
    nodes_.emplace_back();
    return {ReviewsItem::node, int64_t(nodes_.size() - 1)};
  }
  ReviewsItem from_mark() {
    const size_t m = last_mark();
    const ReviewsItem list = new_node();
    for (size_t i = m + 1; i < stack_.size(); ++i) add(list, stack_[i]);
    stack_.resize(m);
    return list;
  }
  // Puts `v` into the list `into`; a node is owned by one parent (no GET, so no sharing or cycles).
  void add(const ReviewsItem& into, const ReviewsItem& v) {
    STRATA_CHECK(into.kind == ReviewsItem::node && v.kind != ReviewsItem::mark, source_,
                 ": pickle appends to something other than a list");
    ReviewsNode& n = nodes_[into.value];
    if (v.kind == ReviewsItem::integer)
      n.ints.push_back(v.value);
    else
      n.lists.push_back(size_t(v.value));
    STRATA_CHECK(n.ints.empty() || n.lists.empty(), source_, ": a pickled list mixes integers and lists");
  }
  PickledReviews result(const ReviewsItem& root) {
    STRATA_CHECK(root.kind == ReviewsItem::node && nodes_[root.value].lists.size() == 2, source_,
                 ": the pickle must hold (sequences, labels), a pair of lists");
    const ReviewsNode& x = nodes_[nodes_[root.value].lists[0]];
    const ReviewsNode& y = nodes_[nodes_[root.value].lists[1]];
    STRATA_CHECK(x.ints.empty() && y.lists.empty(), source_,
                 ": the pickle's first list must hold lists of integers, its second integers");
    PickledReviews out;
    for (size_t child : x.lists) {
      STRATA_CHECK(nodes_[child].lists.empty(), source_, ": a sequence holds lists, expected integers");
      out.sequences.push_back(std::move(nodes_[child].ints));
    }
    out.labels = y.ints;
    STRATA_CHECK(out.sequences.size() == out.labels.size(), source_, ": ", out.sequences.size(), " sequences and ",
                 out.labels.size(), " labels");
    return out;
  }

  std::string_view b_;
  const std::string& source_;
  size_t pos_ = 0;
  std::vector<ReviewsItem> stack_;
  std::vector<ReviewsNode> nodes_;
};

}  // namespace

PickledReviews parse_reviews_pickle(std::string_view bytes, const std::string& source) {
  return ReviewsUnpickler(bytes, source).run();
}

std::vector<int64_t> numpy_legacy_shuffle_order(int64_t n, uint32_t seed) {
  // numpy draws 64-bit values past 2^32 items; IMDB has 50,000.
  STRATA_CHECK(n >= 0 && n <= (int64_t{1} << 32), "numpy_legacy_shuffle_order: n = ", n, " is outside [0, 2^32]");
  std::mt19937 mt(seed);  // numpy's legacy integer seeding is MT19937's init_genrand
  std::vector<int64_t> order(n);
  for (int64_t i = 0; i < n; ++i) order[i] = i;
  for (int64_t i = n - 1; i >= 1; --i) {
    uint64_t mask = uint64_t(i);  // numpy's random_interval: the smallest 2^k - 1 >= i, then rejection
    for (int s = 1; s <= 32; s *= 2) mask |= mask >> s;
    uint64_t j;
    do j = mt() & mask;
    while (j > uint64_t(i));
    std::swap(order[i], order[j]);
  }
  return order;
}

Imdb load_imdb(const std::string& dir, const ImdbOptions& o) {
  const std::string path = (std::filesystem::path(dir) / "imdb.pkl").string();
  STRATA_CHECK(std::filesystem::is_regular_file(path), "IMDB: expected the file ", path,
               " (s3.amazonaws.com/text-datasets/imdb.pkl; nothing is downloaded)");
  STRATA_CHECK(o.test_split >= 0 && o.test_split <= 1, "IMDB: test_split must be in [0, 1], came ", o.test_split);
  const std::vector<unsigned char> bytes = detail::read_file_bytes(path, "IMDB");
  PickledReviews file = parse_reviews_pickle({reinterpret_cast<const char*>(bytes.data()), bytes.size()}, path);
  const std::vector<int64_t> order = numpy_legacy_shuffle_order(int64_t(file.labels.size()), o.seed);
  std::vector<std::vector<int64_t>> x;
  std::vector<int64_t> y;
  for (int64_t k : order) {
    std::vector<int64_t> seq;
    if (o.start_char) seq.push_back(*o.start_char);
    for (int64_t w : file.sequences[k]) seq.push_back(w + o.index_from);
    if (o.maxlen && int64_t(seq.size()) >= o.maxlen) continue;  // TensorLayer keeps len < maxlen
    x.push_back(std::move(seq));
    y.push_back(file.labels[k]);
  }
  STRATA_CHECK(!x.empty(), "IMDB ", path, ": no sequence is shorter than maxlen = ", o.maxlen);
  int64_t nb_words = o.nb_words;
  if (!nb_words)
    for (const auto& s : x)
      for (int64_t w : s) nb_words = std::max(nb_words, w);
  for (auto& s : x) {
    std::vector<int64_t> kept;
    for (int64_t w : s) {
      const bool out = w >= nb_words || w < o.skip_top;
      if (!out)
        kept.push_back(w);
      else if (o.oov_char)
        kept.push_back(*o.oov_char);
    }
    s = std::move(kept);
  }
  const size_t n_train = size_t(double(x.size()) * (1 - o.test_split));  // int() as TensorLayer
  Imdb imdb;
  imdb.x_train.assign(x.begin(), x.begin() + n_train);
  imdb.x_test.assign(x.begin() + n_train, x.end());
  imdb.y_train.assign(y.begin(), y.begin() + n_train);
  imdb.y_test.assign(y.begin() + n_train, y.end());
  return imdb;
}

}  // namespace strata::data
