"""Federated average of one column: each organization returns its sum and count, the master combines them."""


def RPC_partial_average(data, column):
    values = [row[column] for row in data if row.get(column) is not None]
    return {"sum": float(sum(values)), "count": len(values)}


def central_average(client, data, column):
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
