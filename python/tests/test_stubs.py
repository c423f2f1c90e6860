"""The type stubs (.pyi) against the package itself: every public name of portacl, portacl.fft,
portacl.drainage, portacl.kwave and portacl.reference is declared, with the parameters (names, order,
keyword-only or not) the function takes, and has a docstring."""

import ast
import inspect
import os
import types

import pytest

import portacl

PKG = os.path.dirname(portacl.__file__)


def stub(name):
    path = os.path.join(PKG, name + ".pyi")
    with open(path) as f:
        return ast.parse(f.read(), path)


def defs(body):
    """The functions and classes a stub's body (module or class) declares, and its annotated names."""
    out = {}
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            out[node.name] = node
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            out[node.target.id] = node
    return out


def class_named(node, module):
    """The class statement a stub's declaration stands for: a class, or an annotation Type[C] of a class
    C declared in the same stub module; None for anything else."""
    if isinstance(node, ast.ClassDef):
        return node
    ann = getattr(node, "annotation", None)
    if isinstance(ann, ast.Subscript) and isinstance(ann.value, ast.Name) and ann.value.id == "Type" \
            and isinstance(ann.slice, ast.Name):
        return module.get(ann.slice.id)
    return None


def stub_params(fn):
    a = fn.args
    return [(p.arg, False) for p in a.posonlyargs + a.args] + [(p.arg, True) for p in a.kwonlyargs]


def split_top(text):
    """Splits a parameter list at the commas outside brackets and quotes."""
    parts, depth, quote, cur = [], 0, None, ""
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
            continue
        cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def runtime_params(fn):
    """The parameters of a Python function, or of a pybind11 function from its docstring's signature."""
    if isinstance(fn, (types.FunctionType, types.MethodType)):
        return [(p.name, p.kind == p.KEYWORD_ONLY) for p in inspect.signature(fn).parameters.values()]
    first = fn.__doc__.splitlines()[0]
    inner = first[first.index("(") + 1:first.rindex(") ->")]
    out, kwonly = [], False
    for part in split_top(inner):
        if part == "*":
            kwonly = True
            continue
        out.append((part.split(":")[0].strip(), kwonly))
    return out


def check_function(obj, node, where):
    assert isinstance(node, ast.FunctionDef), f"{where} is a function but its stub is not"
    assert runtime_params(obj) == stub_params(node), f"{where}: the stub's parameters differ from the function's"
    doc = (obj.__doc__ or "").strip()
    assert len(doc.splitlines()) >= (2 if not isinstance(obj, types.FunctionType) else 1), f"{where} has no docstring"


def public(obj):
    return {n for n in dir(obj) if not n.startswith("_")}


def init_exports():
    """The names __init__.pyi re-exports: name -> (stub module, name there), or (module, None)."""
    out = {}
    for node in stub("__init__").body:
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                out[alias.asname or alias.name] = (node.module, None if node.module is None else alias.name)
        elif isinstance(node, ast.AnnAssign):
            out[node.target.id] = (None, None)
    return out


def test_package_names():
    exports = init_exports()
    assert public(portacl) == {n for n in exports if not n.startswith("_")}
    for name, (module, original) in exports.items():
        obj = getattr(portacl, name)
        if module is None or isinstance(obj, types.ModuleType) or inspect.isclass(obj):
            continue
        node = defs(stub(module).body)[original]
        check_function(obj, node, f"portacl.{name}")


@pytest.mark.parametrize("module", ["fft", "drainage", "kwave"])
def test_submodules(module):
    mod = getattr(portacl, module)
    declared = {n: d for n, d in defs(stub(module).body).items() if not n.startswith("_")}
    assert public(mod) - {"np"} == set(declared) or public(mod) == set(declared)
    for name, node in declared.items():
        obj = getattr(mod, name)
        if isinstance(node, ast.FunctionDef):
            check_function(obj, node, f"portacl.{module}.{name}")


def test_reference():
    module = defs(stub("_portacl").body)
    declared = {n: d for n, d in defs(module["reference"].body).items() if not n.startswith("_")}
    assert public(portacl.reference) == set(declared)
    for name, node in declared.items():
        obj = getattr(portacl.reference, name)
        if isinstance(node, ast.FunctionDef):
            check_function(obj, node, f"portacl.reference.{name}")
        elif (cls := class_named(node, module)) is not None:
            inner = defs(cls.body)
            assert public(obj) == set(inner)
            for fname, fnode in inner.items():
                check_function(getattr(obj, fname), fnode, f"portacl.reference.{name}.{fname}")
    for name, node in defs(defs(stub("fft").body)["_Reference"].body).items():
        check_function(getattr(portacl.fft.reference, name), node, f"portacl.fft.reference.{name}")
