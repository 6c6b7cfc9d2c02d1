// Internal: the small, hostile-input-safe XML reader of VOC annotation files (vision/voc.hpp):
// elements with their text and children, DOCTYPE refused, the five predefined entities and ASCII
// character references decoded, nesting bounded. Shared by voc.cpp and voc_dataset.cpp.
#pragma once
#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "strata/core/error.hpp"

namespace strata::vision::detail {

inline constexpr int kMaxXmlDepth = 64;

// One element of the XML: its tag and text, with its children; only what VOC files use
// (attributes are skipped, comments and processing instructions ignored).
struct Element {
  std::string tag, text;
  std::vector<Element> children;
  const Element* child(const std::string& t) const {
    for (const Element& c : children)
      if (c.tag == t) return &c;
    return nullptr;
  }
};

class XmlReader {
 public:
  XmlReader(const std::string& xml, const std::string& name) : s_(xml), name_(name) {}

  Element document() {
    skip_misc();
    STRATA_CHECK(at("<") && !at("</"), name_, ": expected an XML element at byte ", pos_);
    Element root = element(0);
    skip_misc();
    STRATA_CHECK(pos_ == s_.size(), name_, ": text after the root element at byte ", pos_);
    return root;
  }

 private:
  bool at(const char* p) const { return s_.compare(pos_, std::char_traits<char>::length(p), p) == 0; }
  [[noreturn]] void fail(const std::string& what) const {
    throw Error(name_ + ": " + what + " at byte " + std::to_string(pos_));
  }

  void skip_to(const char* end) {
    const size_t e = s_.find(end, pos_);
    if (e == std::string::npos) fail(std::string("no closing ") + end);
    pos_ = e + std::char_traits<char>::length(end);
  }

  // Whitespace, comments, processing instructions; DOCTYPE (and with it entity declarations) is refused.
  void skip_misc() {
    for (;;) {
      while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
      if (at("<!--"))
        skip_to("-->");
      else if (at("<?"))
        skip_to("?>");
      else if (at("<!"))
        fail("a DOCTYPE or declaration (refused: no entities are expanded)");
      else
        return;
    }
  }

  std::string tag_name() {
    const size_t start = pos_;
    while (pos_ < s_.size() && !std::isspace(static_cast<unsigned char>(s_[pos_])) && s_[pos_] != '>' &&
           s_[pos_] != '/')
      ++pos_;
    if (pos_ == start) fail("an empty tag name");
    return s_.substr(start, pos_ - start);
  }

  // Text with the predefined entities and character references (ASCII only) decoded.
  void append_text(std::string& out, size_t from, size_t to) const {
    for (size_t i = from; i < to; ++i) {
      if (s_[i] != '&') {
        out += s_[i];
        continue;
      }
      const size_t semi = s_.find(';', i);
      if (semi == std::string::npos || semi > to || semi - i > 10)
        throw Error(name_ + ": a bad entity at byte " + std::to_string(i));
      const std::string ent = s_.substr(i + 1, semi - i - 1);
      static const std::map<std::string, char> named{
          {"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'}, {"apos", '\''}};
      if (const auto it = named.find(ent); it != named.end()) {
        out += it->second;
      } else if (ent.size() >= 2 && ent[0] == '#') {
        const bool hex = ent[1] == 'x';
        const std::string digits = ent.substr(hex ? 2 : 1);
        STRATA_CHECK(!digits.empty() && digits.size() <= 6 &&
                         std::all_of(digits.begin(), digits.end(),
                                     [hex](char c) {
                                       return hex ? std::isxdigit(static_cast<unsigned char>(c)) != 0
                                                  : std::isdigit(static_cast<unsigned char>(c)) != 0;
                                     }),
                     name_, ": a bad character reference &", ent, ";");
        const long code = std::stol(digits, nullptr, hex ? 16 : 10);
        STRATA_CHECK(code > 0 && code < 128, name_, ": character reference &", ent, "; is not ASCII");
        out += static_cast<char>(code);
      } else {
        throw Error(name_ + ": unknown entity &" + ent + "; (only XML's five predefined ones are read)");
      }
      i = semi;
    }
  }

  // pos_ at '<' of a start tag.
  Element element(int depth) {
    if (depth >= kMaxXmlDepth) fail("elements nested deeper than " + std::to_string(kMaxXmlDepth));
    ++pos_;
    Element e;
    e.tag = tag_name();
    const size_t close = s_.find('>', pos_);
    if (close == std::string::npos) fail("an unclosed tag <" + e.tag);
    const bool empty = s_[close - 1] == '/';
    pos_ = close + 1;
    if (empty) return e;
    for (;;) {
      const size_t lt = s_.find('<', pos_);
      if (lt == std::string::npos) fail("no closing </" + e.tag + ">");
      append_text(e.text, pos_, lt);
      pos_ = lt;
      if (at("</")) {
        pos_ += 2;
        const std::string end = tag_name();
        if (end != e.tag) fail("</" + end + "> closes <" + e.tag + ">");
        skip_to(">");
        return e;
      }
      if (at("<!--"))
        skip_to("-->");
      else if (at("<?"))
        skip_to("?>");
      else if (at("<![CDATA[")) {
        const size_t start = pos_ + 9;
        skip_to("]]>");
        e.text += s_.substr(start, pos_ - 3 - start);
      } else if (at("<!"))
        fail("a declaration inside an element");
      else
        e.children.push_back(element(depth + 1));
    }
  }

  const std::string& s_;
  const std::string& name_;
  size_t pos_ = 0;
};

inline std::string trimmed(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r\n"), b = s.find_last_not_of(" \t\r\n");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

inline double coordinate(const Element& box, const char* tag, const std::string& name) {
  const Element* e = box.child(tag);
  STRATA_CHECK(e != nullptr, name, ": an object's <bndbox> has no <", tag, ">");
  const std::string t = trimmed(e->text);
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(t, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  STRATA_CHECK(used == t.size() && !t.empty() && std::isfinite(v), name, ": <", tag, "> is '", t.substr(0, 40),
               "'; expected a number");
  return v;
}

}  // namespace strata::vision::detail
