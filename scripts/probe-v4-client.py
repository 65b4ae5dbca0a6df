#!/usr/bin/env python3
"""A vantage6 4.14 user's script, run unchanged against Federa's 4.x surface (/v4/api).

Needs the vantage6 4.14 client importable (``from vantage6.client import Client``): it is not run in CI, because
neither the client nor all its dependencies can be installed from Debian. Run it against the federation that
scripts/probe-v4-federation.mjs starts (it writes the JSON file this script reads):

    node scripts/probe-v4-federation.mjs --port 5070 &
    python3 scripts/probe-v4-client.py .data/probe-v4/federation.json

Two workflows (scripts/probe_v4/), each a list of steps calling only the client's public API: an administrator's (organizations,
collaborations, nodes, users, roles, rules, studies, algorithm stores) and a researcher's (a user the administrator
made, running the 4.x average algorithm with ``databases`` in a plain and an encrypted collaboration, reading runs
and results). A step passes when the call answers what a 4.x user's script would read from it. The last lines give
the steps passed per workflow; the exit code is 0 only when every step passed.
"""

import json
import logging
import sys

from probe_v4 import common

if __name__ == "__main__":
    paths = [a for a in sys.argv[1:] if not a.startswith("-")]
    common.CONFIG.update(json.load(open(paths[0] if paths else ".data/probe-v4/federation.json")))
    common.VERBOSE = "-v" in sys.argv
    from probe_v4.admin import admin
    from probe_v4.researcher import research

    logging.disable(logging.CRITICAL)
    totals = [admin.run(), research.run()]
    print()
    for wf, (passed, total) in zip([admin, research], totals):
        print(f"{wf.name}: {passed}/{total}")
    sys.exit(0 if all(p == t for p, t in totals) else 1)
