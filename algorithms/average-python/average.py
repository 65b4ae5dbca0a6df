"""Federated average of one column: each organization returns its sum and count, the master combines them."""


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
