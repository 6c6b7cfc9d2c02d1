// strata::Error and its kinds reach Python as exceptions with the same message:
//   strata.Error (RuntimeError)  every strata::Error
//   strata.LimitError            a documented size or allocation limit was exceeded
//   strata.NoDataError           a store or stream had no such data (also a LookupError)
//   strata.OptionError           a layer option of the wrong name, type or bound (also a ValueError)
#include "bindings.hpp"

#include "strata/core/error.hpp"
#include "strata/core/limits.hpp"

namespace strata::python {

void bind_errors(py::module_& m) {
  static py::exception<Error> error(m, "Error", PyExc_RuntimeError);
  static py::handle limit_error =
      py::object(py::module_::import("builtins").attr("type")("LimitError", py::make_tuple(error), py::dict()))
          .release();
  static py::handle no_data_error =
      py::object(py::module_::import("builtins")
                     .attr("type")("NoDataError", py::make_tuple(error, py::handle(PyExc_LookupError)), py::dict()))
          .release();
  static py::handle option_error =
      py::object(py::module_::import("builtins")
                     .attr("type")("OptionError", py::make_tuple(error, py::handle(PyExc_ValueError)), py::dict()))
          .release();
  limit_error.attr("__module__") = "strata";
  no_data_error.attr("__module__") = "strata";
  option_error.attr("__module__") = "strata";
  m.attr("LimitError") = limit_error;
  m.attr("NoDataError") = no_data_error;
  m.attr("OptionError") = option_error;
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const LimitError& e) {
      PyErr_SetString(limit_error.ptr(), e.what());
    } catch (const NoDataError& e) {
      PyErr_SetString(no_data_error.ptr(), e.what());
    } catch (const Error& e) {
      PyErr_SetString(error.ptr(), e.what());
    }
  });
}

}  // namespace strata::python
