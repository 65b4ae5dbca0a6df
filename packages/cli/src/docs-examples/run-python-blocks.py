"""Runs the python blocks of one documentation page in order, in one namespace, as a reader who pastes them one
after the other into one Python session. Used by docs-examples.docker.test.ts.

    /usr/bin/python3 run-python-blocks.py SPEC.json

SPEC.json: {"file": "docs/client-python.md", "blocks": [{"line": 69, "code": "..."}], "answers": {prompt: text}}.
`answers` are what the reader types at each `getpass.getpass(prompt)`. After each block the script prints
`@@block <line> done` and waits for a line on standard input, so that the test can do what the reader does between
blocks (start the node an example registered). A traceback names the page and its line.
"""

import getpass
import json
import sys

with open(sys.argv[1], encoding="utf-8") as spec_file:
    spec = json.load(spec_file)
answers = spec["answers"]


def typed(prompt="Password: ", stream=None):  # noqa: ARG001 - getpass's signature
    if prompt not in answers:
        raise SystemExit(f"the example asks {prompt!r}, which the test has no answer for")
    return answers[prompt]


getpass.getpass = typed
namespace = {"__name__": "__main__"}
for block in spec["blocks"]:
    # Blank lines first, so that a traceback's line numbers are those of the page.
    code = compile("\n" * block["line"] + block["code"], spec["file"], "exec")
    exec(code, namespace)  # noqa: S102 - the repository's own documentation
    sys.stderr.flush()
    print(f"@@block {block['line']} done", flush=True)
    if sys.stdin.readline() == "":
        break
