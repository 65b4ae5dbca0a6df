"""Federated average of one column: each organization returns its sum and count, the master combines them."""

import time


def _check_column(data, column):
    # A misspelt column must fail the run, not "complete" with a count of 0 (algorithms/README.md).
    if not isinstance(column, str) or column == "":
        raise ValueError(f"column must be the name of a column, got {column!r}")
    if data and not any(column in row for row in data):
        raise ValueError(f"no column {column!r} in the data; its columns are: {', '.join(map(str, data[0].keys()))}")


def RPC_partial_average(data, column):
    _check_column(data, column)
    values = [row[column] for row in data if row.get(column) is not None]
    return {"sum": float(sum(values)), "count": len(values)}


def central_average(client, data, column):
    if not isinstance(column, str) or column == "":
        raise ValueError(f"column must be the name of a column, got {column!r}")
    organizations = client.organization_ids()
    task = client.create_new_task(
        {"method": "partial_average", "args": [column], "kwargs": {}},
        organization_ids=organizations,
        name="partial average",
    )
    partials = client.wait_for_results(task["id"])
    total = sum(p["sum"] for p in partials)
    count = sum(p["count"] for p in partials)
    return {"average": total / count if count else None, "count": count, "organizations": len(partials)}


def chain(client, data, organizations, seconds=600):
    """A chain of sub-tasks, one level per organization: each level creates ``chain`` with the rest of
    ``organizations`` at the first of them and waits for it; the last level sleeps ``seconds``. A task tree as deep
    as the list, every level running at once (how the kill of a whole tree is tested, docs/run-statuses.md)."""
    ids = isinstance(organizations, list) and all(type(o) is int for o in organizations)
    if not ids:
        raise ValueError(f"organizations must be a list of organization ids, got {organizations!r}")
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 <= seconds <= 3600:
        raise ValueError(f"seconds must be a number from 0 to 3600, got {seconds!r}")
    if not organizations:
        time.sleep(seconds)
        return {"levels": 1}
    task = client.create_new_task(
        {"method": "chain", "kwargs": {"organizations": organizations[1:], "seconds": seconds}, "master": True},
        organization_ids=organizations[:1],
        name=f"chain, {len(organizations)} levels below",
    )
    below = client.wait_for_results(task["id"], timeout=seconds + 600)
    return {"levels": 1 + (below[0]["levels"] if below else 0)}
