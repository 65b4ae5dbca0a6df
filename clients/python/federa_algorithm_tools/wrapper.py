"""The container's main program: input file → method call with the data loaded → output file."""
import os
import sys
import traceback

from .client import AlgorithmClient
from .data import load_data
from .payload import decode_payload, encode_payload


def run(module, env=None, with_data=True):
    """Run the requested method of ``module`` and exit (0 on success, 1 with the error on stderr)."""
    env = os.environ if env is None else env
    try:
        with open(env["INPUT_FILE"], "rb") as handle:
            payload = decode_payload(handle.read())
        method = payload["method"]
        master = bool(payload.get("master"))
        name = method if master else f"RPC_{method}"
        func = getattr(module, name, None)
        if func is None:
            raise AttributeError(f"the algorithm has no function '{name}'")
        data = load_data(env) if with_data else None
        args = payload.get("args") or []
        kwargs = payload.get("kwargs") or {}
        print(f"federa algorithm: calling {name}", flush=True)
        if master:
            result = func(AlgorithmClient.from_env(env), data, *args, **kwargs)
        else:
            result = func(data, *args, **kwargs)
        with open(env["OUTPUT_FILE"], "wb") as handle:
            handle.write(encode_payload(result, payload.get("output_format")))
        print(f"federa algorithm: {name} done", flush=True)
    except Exception:  # the run's log must say what happened
        traceback.print_exc()
        sys.exit(1)
    sys.exit(0)
