// The vectorcall functions' argument parsing and registration (fast_call.hpp).
#include "fast_call.hpp"

#include <algorithm>
#include <cstring>
#include <deque>

namespace portacl::python {

bool parseFastArgs(const char* function, PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames,
                   std::initializer_list<FastParam> params, PyObject** values) {
    Py_ssize_t positional = 0;
    for (const FastParam& p : params) positional += p.keywordOnly ? 0 : 1;
    if (nargs > positional) {
        PyErr_Format(PyExc_TypeError, "%s() takes %zd positional arguments but %zd were given", function, positional, nargs);
        return false;
    }
    std::fill(values, values + params.size(), nullptr);
    for (Py_ssize_t k = 0; k < nargs; ++k) values[k] = args[k];
    const Py_ssize_t keywords = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; k < keywords; ++k) {
        PyObject* key = PyTuple_GET_ITEM(kwnames, k);
        const char* name = PyUnicode_AsUTF8(key);
        if (!name) return false;
        std::size_t j = 0;
        for (const FastParam& p : params) {
            if (std::strcmp(p.name, name) == 0) break;
            ++j;
        }
        if (j == params.size()) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%s'", function, name);
            return false;
        }
        if (values[j]) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", function, name);
            return false;
        }
        values[j] = args[nargs + k];
    }
    std::size_t i = 0;
    for (const FastParam& p : params) {
        if (!values[i]) {
            if (!p.fallback) {
                PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'", function, p.name);
                return false;
            }
            values[i] = p.fallback;
        }
        ++i;
    }
    return true;
}

void addFastFunction(py::module_& m, const char* name, PyObject* (*f)(PyObject*, PyObject* const*, Py_ssize_t, PyObject*),
                     const char* doc) {
    // CPython keeps a pointer to the method definition for the function's life: one per function,
    // kept for the process (a deque does not move its elements).
    static std::deque<PyMethodDef> defs;
    defs.push_back(PyMethodDef{name, reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(f)),
                               METH_FASTCALL | METH_KEYWORDS, doc});
    py::object fn = py::reinterpret_steal<py::object>(PyCFunction_NewEx(&defs.back(), nullptr, m.attr("__name__").ptr()));
    if (!fn) throw py::error_already_set();
    m.add_object(name, fn);
}

}  // namespace portacl::python
