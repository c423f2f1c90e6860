"""The engine: devices, selection, contexts, the profiler's table, errors."""

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import portacl

HERE = os.path.dirname(os.path.abspath(__file__))


def _cli():
    """The `portacl` command of the build the package came from (PORTACL_CLI, else build/portacl)."""
    path = os.environ.get("PORTACL_CLI") or os.path.join(HERE, "..", "..", os.environ.get("PORTACL_BUILD_DIR", "build"), "portacl")
    return path if os.path.isfile(path) else shutil.which("portacl")


def test_devices_match_the_command_line():
    cli = _cli()
    if not cli:
        pytest.skip("no `portacl` command to compare with (set PORTACL_CLI)")
    listed = json.loads(subprocess.run([cli, "devices", "--json"], check=True, capture_output=True, text=True).stdout)
    # In a fresh interpreter: a library loaded before the listing can hide an OpenCL platform (OpenCV's
    # TBB hides Intel's CPU runtime, which needs its own; docs/python.md).
    script = "import json, portacl; print(json.dumps([d.as_dict() for d in portacl.devices()]))"
    ours = json.loads(subprocess.run([sys.executable, "-c", script], check=True, capture_output=True, text=True).stdout)
    assert ours == listed


def test_selection_grammar(ctx):
    every = portacl.devices()
    assert every and [d.index for d in portacl.devices("all")] == [d.index for d in every]
    first = every[0]
    by_index = portacl.devices(first.index)
    assert [d.index for d in by_index] == [first.index]
    both = portacl.devices(f"{first.index},{first.index}")
    assert first.index in [d.index for d in both]
    assert portacl.devices("cpu") or portacl.devices("gpu")
    with pytest.raises(ValueError, match="no OpenCL device matches"):
        portacl.devices("no-such-device-anywhere")


def test_portacl_device_variable(monkeypatch):
    first = portacl.devices()[-1]
    monkeypatch.setenv("PORTACL_DEVICE", first.index)
    with portacl.Context() as c:
        assert c.device.index == first.index


def test_context_manager_is_the_current_context(ctx):
    with portacl.Context(ctx.device, precision="double" if ctx.device.fp64 else "float") as inner:
        assert portacl.current_context() is inner
        assert inner.precision in ("double", "float")
    assert inner.closed
    assert portacl.current_context() is ctx
    with pytest.raises(ValueError, match="closed"):
        portacl.gemm(np.ones((2, 2), np.float32), np.ones((2, 2), np.float32), ctx=inner)


def test_profiler_table(ctx):
    a = np.ones((16, 8), np.float32)
    with portacl.Context(ctx.device, profile=True) as c:
        portacl.gemm(a, a.T.copy(), kernel="tiled", ctx=c)
        table = c.profile()
        assert table["gemm_tiled"]["kind"] == "kernel" and table["gemm_tiled"]["count"] == 1
        assert table["gemm_tiled"]["seconds"] >= 0
        assert any(row["kind"] == "transfer" for row in table.values())
        c.clear_profile()
        assert c.profile() == {}
    with pytest.raises(ValueError, match="profile=True"):
        ctx.profile()


def test_bad_arguments_are_value_errors(ctx):
    with pytest.raises(ValueError, match="precision"):
        portacl.Context(ctx.device, precision="quad")
    with pytest.raises(TypeError, match="ctx must be"):
        portacl.vector_sum(np.ones(3, np.float32), np.ones(3, np.float32), ctx="pocl")


def test_errors_are_exception_classes():
    assert issubclass(portacl.BuildError, portacl.DeviceError)
    assert issubclass(portacl.DeviceError, RuntimeError)


def test_vector_sum(ctx, rng):
    a = rng.standard_normal(1000).astype(np.float32)
    b = rng.standard_normal(1000).astype(np.float32)
    c = portacl.vector_sum(a, b, ctx=ctx)
    assert c.dtype == np.float32
    np.testing.assert_array_equal(c, a + b)  # one rounding: exact
    np.testing.assert_array_equal(portacl.reference.vector_sum(a, b), a + b)
    with pytest.raises(ValueError, match="one length"):
        portacl.vector_sum(a, b[:10], ctx=ctx)
    with pytest.raises(TypeError, match="one dtype"):
        portacl.vector_sum(a.astype(np.int32), b.astype(np.int32), ctx=ctx)


def test_call_arguments_are_checked_as_python_does(ctx):
    """vector_sum and gemm parse their arguments themselves (docs/python.md): Python's rules, Python's errors."""
    a = np.ones(3, np.float32)
    m = np.ones((2, 2), np.float32)
    np.testing.assert_array_equal(portacl.vector_sum(a=a, b=a, ctx=ctx), a + a)
    np.testing.assert_array_equal(portacl.gemm(m, b=m, ctx=ctx, kernel="direct"), m @ m)
    for call, message in ((lambda: portacl.vector_sum(a), "missing required argument 'b'"),
                          (lambda: portacl.vector_sum(a, a, ctx), "takes 2 positional arguments"),
                          (lambda: portacl.vector_sum(a, a, context=ctx), "unexpected keyword argument 'context'"),
                          (lambda: portacl.vector_sum(a, a=a, ctx=ctx), "multiple values for argument 'a'"),
                          (lambda: portacl.gemm(m, m, kernel=3, ctx=ctx), "kernel must be a str")):
        with pytest.raises(TypeError, match=message):
            call()


def test_vector_sum_double(ctx, fp64, rng):
    a, b = rng.standard_normal(257), rng.standard_normal(257)
    np.testing.assert_array_equal(portacl.vector_sum(a, b, ctx=ctx), a + b)


def test_build_error_carries_the_compiler_log(ctx, tmp_path):
    """A kernel that does not compile (read from PORTACL_KERNEL_DIR) raises BuildError with the log."""
    kernels = tmp_path / "cl"
    shutil.copytree(os.path.join(HERE, "..", "..", "cl"), kernels)
    source = kernels / "vector_ops.cl"
    source.write_text(source.read_text() + "\nthis is not OpenCL C;\n")
    script = (
        "import numpy as np, portacl\n"
        f"ctx = portacl.Context({ctx.device.index!r})\n"
        "try:\n"
        "    portacl.vector_sum(np.ones(8, np.float32), np.ones(8, np.float32), ctx=ctx)\n"
        "except portacl.BuildError as e:\n"
        "    assert isinstance(e, portacl.DeviceError) and e.log and 'vector_ops' in str(e), (str(e), e.log)\n"
        "    print('BuildError', e.status)\n"
    )
    env = dict(os.environ, PORTACL_KERNEL_DIR=str(kernels), PORTACL_NO_CACHE="1")
    out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("BuildError"), out.stdout + out.stderr
