// JSON answers of the two HTTP servers (inference and dashboard): a body, an {"error": ...}
// refusal, and exceptions turned into refusals (RequestError keeps its status; others are 500).
// Included only by the files compiled with httplib's flags.
#pragma once
#include <httplib.h>

#include <string>

#include <nlohmann/json.hpp>

#include "strata/serve/request_error.hpp"

namespace strata::serve::detail {

// Invalid UTF-8 (names are bytes from the hub or the request) becomes U+FFFD rather than a
// failed response.
inline void send_json(httplib::Response& res, int status, const nlohmann::json& body) {
  res.status = status;
  res.set_content(body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), "application/json");
}

inline void send_error(httplib::Response& res, int status, const std::string& message) {
  send_json(res, status, {{"error", message}});
}

inline void answer_exceptions_as_json(httplib::Server& http) {
  http.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr error) {
    try {
      std::rethrow_exception(error);
    } catch (const RequestError& e) {
      send_error(res, e.status(), e.what());
    } catch (const std::exception& e) {
      send_error(res, 500, e.what());
    }
  });
}

}  // namespace strata::serve::detail
