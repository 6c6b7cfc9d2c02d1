// Text in the HTML pages the train module writes (training curves, confusion matrices): names
// escaped, coordinates and labels formatted the same way on every page.
#pragma once
#include <cstdio>
#include <string>

namespace strata::train::detail {

// Safe inside element text and double-quoted attributes.
inline std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// A coordinate with `decimals` digits after the point.
inline std::string fixed(double v, int decimals = 1) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// A value shown to people: 4 significant digits, no trailing noise.
inline std::string label(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// The pages' shared head: charset, title, and a plain style for text, tables and SVG labels.
inline std::string page_head(const std::string& title) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" + html_escape(title) +
         "</title>\n<style>\nbody { font-family: sans-serif; margin: 2em; color: #222; }\n"
         "svg text { font-size: 12px; fill: #444; }\n"
         "table { border-collapse: collapse; margin-top: 2em; }\n"
         "td, th { border: 1px solid #ddd; padding: 4px 10px; text-align: right; }\n</style>\n</head>\n<body>\n"
         "<h1>" + html_escape(title) + "</h1>\n";
}

}  // namespace strata::train::detail
