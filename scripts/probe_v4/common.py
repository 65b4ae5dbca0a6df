"""What both workflows of scripts/probe-v4-client.py share: the federation's description, the step runner and the
checks of what a 4.x user's script reads."""

import time
import traceback

from vantage6.client import Client

# Filled by scripts/probe-v4-client.py (from the JSON file scripts/probe-v4-federation.mjs writes) before the
# workflows are imported.
CONFIG = {}
VERBOSE = False
SUFFIX = str(int(time.time()))[-6:]
# What the administrator's workflow makes for the researcher's: its username, password and a study.
RESEARCHER = {}


class Failed(Exception):
    pass


def check(condition, what):
    if not condition:
        raise Failed(what)


def items(listing, what):
    """The items of a 4.x listing ({data: [...], links: {...}}); a step fails on anything else."""
    check(isinstance(listing, dict) and isinstance(listing.get("data"), list), f"{what}: not a listing: {listing}")
    return listing["data"]


def item(answer, what, *fields):
    check(isinstance(answer, dict) and "id" in answer, f"{what}: not an item: {answer}")
    for field in fields:
        check(field in answer, f"{what}: no field '{field}' in {sorted(answer)}")
    return answer


class Workflow:
    def __init__(self, name):
        self.name = name
        self.steps = []
        self.state = {}

    def step(self, title):
        def register(fn):
            self.steps.append((title, fn))
            return fn

        return register

    def run(self):
        passed = 0
        print(f"\n== {self.name}")
        for title, fn in self.steps:
            try:
                fn(self.state)
                passed += 1
                print(f"  PASS  {title}")
            except Exception as error:  # a step's failure is reported, and the next step runs
                reason = str(error) if isinstance(error, Failed) else f"{type(error).__name__}: {error}"
                print(f"  FAIL  {title}: {reason[:400]}")
                if VERBOSE and not isinstance(error, Failed):
                    traceback.print_exc()
        print(f"== {self.name}: {passed}/{len(self.steps)} steps passed")
        return passed, len(self.steps)


def new_client():
    return Client(CONFIG["host"], CONFIG["port"], CONFIG["api_path"], log_level="critical")


ALGORITHM_INPUT = {"method": "central_average", "kwargs": {"column": "age"}}
