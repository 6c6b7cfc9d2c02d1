// RequestError: a request the inference server refuses, with the HTTP status it answers
// (400 bad request, 404 unknown model, 503 queue full or draining...). The message names what was
// wrong in the words of the request (the input's name, the datatype it sent, the shape it gave).
#pragma once
#include <string>

#include "strata/core/error.hpp"

namespace strata::serve {

class RequestError : public Error {
 public:
  RequestError(int status, const std::string& what) : Error(what), status_(status) {}
  int status() const { return status_; }

 private:
  int status_;
};

}  // namespace strata::serve
