"""Federated average of one column, in the form of vantage6 4.x's average template: a central function that sends
the partial function to every organization of the collaboration and combines their sums and counts, and a partial
function that reads the organization's data."""

from v4_tools import algorithm_client, data


@data(1)
def partial_average(df, column):
    if not isinstance(column, str) or column == "":
        raise ValueError(f"column must be the name of a column, got {column!r}")
    if df and column not in df[0]:
        raise ValueError(f"no column {column!r} in the data; its columns are: {', '.join(df[0].keys())}")
    values = [float(row[column]) for row in df if row.get(column) not in (None, "")]
    return {"sum": sum(values), "count": len(values)}


@algorithm_client
def central_average(client, column):
    organizations = [org["id"] for org in client.organization.list()]
    task = client.task.create(
        input_={"method": "partial_average", "kwargs": {"column": column}},
        organizations=organizations,
        name="partial average",
        description="sum and count of one column",
    )
    partials = client.wait_for_results(task_id=task["id"])
    total = sum(p["sum"] for p in partials)
    count = sum(p["count"] for p in partials)
    return {"average": total / count if count else None, "count": count, "organizations": len(partials)}
