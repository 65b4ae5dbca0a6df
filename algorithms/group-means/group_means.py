"""Federated means of a numeric column by group: each organization returns the mean and size of each group, the
central function combines them into the collaboration's means, weighted by the groups' sizes."""


def _check_columns(data, **columns):
    # A misspelt column must fail the run, not "complete" with empty groups (algorithms/README.md).
    for role, column in columns.items():
        if not isinstance(column, str) or column == "":
            raise ValueError(f"{role} must be the name of a column, got {column!r}")
        if data and not any(column in row for row in data):
            raise ValueError(
                f"no column {column!r} in the data; its columns are: {', '.join(map(str, data[0].keys()))}")


def RPC_partial_group_means(data, column, group_by):
    _check_columns(data, column=column, group_by=group_by)
    sums, counts = {}, {}
    for row in data:
        group, value = row.get(group_by), row.get(column)
        if group is None or value is None:
            continue
        key = str(group)
        sums[key] = sums.get(key, 0.0) + float(value)
        counts[key] = counts.get(key, 0) + 1
    groups = sorted(counts)
    return {"means": {g: sums[g] / counts[g] for g in groups}, "counts": {g: counts[g] for g in groups}}


def combine(partials):
    """The collaboration's mean and size of each group, from each organization's means and sizes."""
    sums, counts = {}, {}
    for partial in partials:
        for group, n in partial["counts"].items():
            mean = partial["means"].get(group)
            if mean is None or not n:
                continue  # suppressed by the node's disclosure check, or empty
            sums[group] = sums.get(group, 0.0) + mean * n
            counts[group] = counts.get(group, 0) + n
    groups = sorted(counts)
    return {"means": {g: sums[g] / counts[g] for g in groups}, "counts": {g: counts[g] for g in groups},
            "organizations": len(partials)}


def central_group_means(client, data, column, group_by):
    for role, value in (("column", column), ("group_by", group_by)):
        if not isinstance(value, str) or value == "":
            raise ValueError(f"{role} must be the name of a column, got {value!r}")
    task = client.create_new_task(
        {"method": "partial_group_means", "kwargs": {"column": column, "group_by": group_by}},
        organization_ids=client.organization_ids(),
        name="partial group means",
    )
    return combine(client.wait_for_results(task["id"]))
