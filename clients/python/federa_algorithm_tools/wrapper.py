"""The container's main program: input file → method call with the data loaded → output file.

``run(module)`` is Federa's form (the data as a list of dicts). ``docker_wrapper(module_name)`` and
``auto_wrapper(module_name)`` take the arguments of vantage6 3.x's wrappers and hand the algorithm a pandas
``DataFrame``, so an algorithm written for vantage6 runs by changing only its import. Input must be
``json.`` + JSON and the output is always written as ``json.`` + JSON: no pickle is read or written
(docs/security.md).
"""
import importlib
import os
import sys
import traceback

from .client import AlgorithmClient
from .data import database_uri, load_data, load_data_frame
from .payload import decode_payload, encode_payload


def _output_format(payload):
    fmt = payload.get("output_format")
    if isinstance(fmt, str) and fmt.lower() == "pickle":
        print("federa algorithm: output_format 'pickle' was asked for; the output is written as JSON "
              "(these tools never write a pickle)", flush=True)
        return "json"
    return fmt


def _execute(module, env, loader, log_traceback=True):
    """Read the input, call the method, write the output; exit 0 on success, 1 with the error on stderr."""
    try:
        with open(env["INPUT_FILE"], "rb") as handle:
            payload = decode_payload(handle.read(), "the task input")
        if not isinstance(payload, dict) or not isinstance(payload.get("method"), str):
            raise ValueError("the task input must be a JSON object with a string 'method'")
        method = payload["method"]
        # The name is printed in the run's log: a newline in it would start a line of its own there.
        if not method.isidentifier():
            raise ValueError(f"the method {method!r} is not the name of a Python function")
        master = bool(payload.get("master"))
        name = method if master else f"RPC_{method}"
        func = getattr(module, name, None)
        if func is None:
            raise AttributeError(f"the algorithm has no function '{name}'")
        data = loader(env) if loader else None
        args = payload.get("args") or []
        kwargs = payload.get("kwargs") or {}
        print(f"federa algorithm: calling {name}", flush=True)
        if master:
            result = func(AlgorithmClient.from_env(env), data, *args, **kwargs)
        else:
            result = func(data, *args, **kwargs)
        output = encode_payload(result, _output_format(payload))
        with open(env["OUTPUT_FILE"], "wb") as handle:
            handle.write(output)
        print(f"federa algorithm: {name} done", flush=True)
    except Exception as exc:  # the run's log must say what happened
        if log_traceback:
            traceback.print_exc()
        else:
            print(f"federa algorithm: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
        sys.exit(1)
    sys.exit(0)


def run(module, env=None, with_data=True):
    """Run the requested method of ``module`` (a module object) with the data as a list of dicts, and exit."""
    env = os.environ if env is None else env
    _execute(module, env, load_data if with_data else None)


def _module(module):
    return importlib.import_module(module) if isinstance(module, str) else module


def docker_wrapper(module, load_data=True, use_new_client=False, log_traceback=True, env=None):
    """vantage6 3.x's ``docker_wrapper``: ``module`` is the algorithm's module name (or the module); the data
    source (CSV) is handed to the algorithm as a pandas ``DataFrame``. ``use_new_client`` is accepted and has no
    effect: master functions get :class:`AlgorithmClient`, which has the ``ContainerClient`` methods."""
    env = os.environ if env is None else env
    _execute(_module(module), env, load_data_frame if load_data else None, log_traceback)


def auto_wrapper(module, load_data=True, use_new_client=False, log_traceback=True, env=None):
    """vantage6 3.x's ``auto_wrapper``: picks the loader from ``<LABEL>_DATABASE_TYPE`` (``csv`` only here; other
    types stop the run with a clear error)."""
    env = os.environ if env is None else env
    label = env.get("USER_REQUESTED_DATABASE_LABEL")
    kind = ((env.get(f"{label.upper()}_DATABASE_TYPE") if label else None) or "csv").lower()
    if kind != "csv" and load_data:
        print(f"federa algorithm: the data source type '{kind}' of {database_uri(env)!r} is not supported by these "
              "tools (csv only)", file=sys.stderr, flush=True)
        sys.exit(1)
    docker_wrapper(module, load_data, use_new_client, log_traceback, env)
