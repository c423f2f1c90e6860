// Functions called through CPython's vectorcall protocol (METH_FASTCALL | METH_KEYWORDS) instead of
// pybind11's dispatcher, for the calls whose device work takes microseconds: pybind11 2.10 builds an
// argument tuple and copies the keyword dictionary on every call, and on a CPU device the time the
// caller spends between two small calls lengthens PoCL's hand-offs in the next one
// (docs/python.md, "The cost of calling from Python"). Arguments, errors and docstrings are those
// of a pybind11 function; the exceptions go through pybind11's registered translators.
#pragma once

#include <initializer_list>
#include <string>

#include "common.hpp"

namespace portacl::python {

// One parameter: its name, whether it is keyword-only, and its default (nullptr: required).
struct FastParam {
    const char* name;
    bool keywordOnly;
    PyObject* fallback;
};

// Fills `values` (one per parameter, borrowed) from a vectorcall's arguments; false with a
// TypeError set when they do not fit the parameters.
bool parseFastArgs(const char* function, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames,
                   std::initializer_list<FastParam> params, PyObject** values);

// Runs `body` (returning a py::object) with C++ exceptions turned into Python ones as pybind11 does.
template <typename F>
PyObject* fastBody(F&& body) {
    try {
        return body().release().ptr();
    } catch (py::error_already_set& e) {
        e.restore();
    } catch (py::builtin_exception& e) {
        e.set_error();
    } catch (...) {
        if (!py::detail::apply_exception_translators(py::detail::get_local_internals().registered_exception_translators) &&
            !py::detail::apply_exception_translators(py::detail::get_internals().registered_exception_translators))
            PyErr_SetString(PyExc_SystemError, "an unknown C++ exception");
    }
    return nullptr;
}

// Adds the vectorcall function `f` to module `m` as `name`; `doc` begins with the signature line
// pybind11 would write ("name(a: object, ...) -> numpy.ndarray").
void addFastFunction(py::module_& m, const char* name, PyObject* (*f)(PyObject*, PyObject* const*, Py_ssize_t, PyObject*),
                     const char* doc);

}  // namespace portacl::python
