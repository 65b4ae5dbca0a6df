"""The group-means example algorithm (algorithms/group-means): each organization's means and sizes by group, and
the collaboration's means combined from them, weighted by the groups' sizes."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "algorithms", "group-means"))

import group_means  # noqa: E402

DATA = [
    {"age": 30, "sex": "F"},
    {"age": 40, "sex": "F"},
    {"age": 50, "sex": "M"},
    {"age": None, "sex": "M"},
    {"age": 20, "sex": None},
]


class FakeClient:
    """Answers the central function's sub-task with the given partial results."""

    def __init__(self, partials):
        self.partials = partials
        self.created = []

    def organization_ids(self):
        return [1, 2]

    def create_new_task(self, input_, organization_ids, name):
        self.created.append((input_, organization_ids))
        return {"id": 7}

    def wait_for_results(self, task_id):
        return self.partials


class GroupMeansTest(unittest.TestCase):
    def test_partial_means_and_sizes_by_group(self):
        self.assertEqual(group_means.RPC_partial_group_means(DATA, "age", "sex"),
                         {"means": {"F": 35.0, "M": 50.0}, "counts": {"F": 2, "M": 1}})

    def test_central_weights_each_organization_by_group_size(self):
        client = FakeClient([
            {"means": {"F": 35.0, "M": 50.0}, "counts": {"F": 2, "M": 1}},
            {"means": {"F": 20.0, "X": None}, "counts": {"F": 1, "X": 1}},
        ])
        result = group_means.central_group_means(client, [], "age", "sex")
        self.assertEqual(result, {"means": {"F": 30.0, "M": 50.0}, "counts": {"F": 3, "M": 1}, "organizations": 2})
        self.assertEqual(client.created[0], (
            {"method": "partial_group_means", "kwargs": {"column": "age", "group_by": "sex"}}, [1, 2]))

    def test_a_misspelt_column_fails_the_run(self):
        with self.assertRaisesRegex(ValueError, "no column 'sexe' in the data; its columns are: age, sex"):
            group_means.RPC_partial_group_means(DATA, "age", "sexe")
        with self.assertRaisesRegex(ValueError, "group_by must be the name of a column"):
            group_means.central_group_means(FakeClient([]), [], "age", "")


if __name__ == "__main__":
    unittest.main()
