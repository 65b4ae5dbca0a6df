"""An algorithm written for vantage6 3.x's Python wrapper and ContainerClient: a federated mean. The only change
made for Federa is the import below (vantage6: ``from vantage6.tools.util import info, warn``)."""
import time

from federa_algorithm_tools.util import info, warn


def master(client, data, column):
    info("Collecting the organizations of the collaboration")
    organizations = client.get_organizations_in_my_collaboration()
    ids = [organization.get("id") for organization in organizations]

    info("Creating the sub-tasks")
    task = client.create_new_task(input_={"method": "partial_sum", "kwargs": {"column": column}},
                                  organization_ids=ids)
    task_id = task.get("id")
    task = client.get_task(task_id)
    while not task.get("complete"):
        task = client.get_task(task_id)
        info("Waiting for the results")
        time.sleep(0.05)

    results = client.get_results(task_id=task_id)
    if not results:
        warn("no results")
    total = sum(result["sum"] for result in results)
    count = sum(result["count"] for result in results)
    return {"average": total / count, "organizations": len(results)}


def RPC_partial_sum(data, column):
    info(f"Summing column {column} of {len(data)} rows")
    return {"sum": float(data[column].sum()), "count": int(data[column].count())}


def RPC_summary(data):
    return data.describe().loc[["count", "mean"]]
