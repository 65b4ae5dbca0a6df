"""Loading the task's data source (the node's DATABASE_URI variables)."""
import csv
import os


def database_uri(env=None, label=None):
    env = os.environ if env is None else env
    wanted = label or env.get("USER_REQUESTED_DATABASE_LABEL")
    if wanted:
        uri = env.get(f"{wanted.upper()}_DATABASE_URI")
        if uri:
            return uri
    return env.get("DATABASE_URI")


def _cell(value: str):
    value = value.strip()
    if value == "":
        return None
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return value


def load_data(env=None):
    """The CSV data source as a list of dicts (numbers converted). pandas is used when it is installed."""
    env = os.environ if env is None else env
    uri = database_uri(env)
    if not uri:
        raise RuntimeError("no data source: neither <LABEL>_DATABASE_URI of USER_REQUESTED_DATABASE_LABEL nor DATABASE_URI is set")
    label = env.get("USER_REQUESTED_DATABASE_LABEL")
    kind = (env.get(f"{label.upper()}_DATABASE_TYPE") if label else None) or "csv"
    if kind != "csv":
        raise RuntimeError(f"only csv data sources are supported by these tools; this one is '{kind}'")
    with open(uri, newline="", encoding="utf-8") as handle:
        return [{k.strip(): _cell(v or "") for k, v in row.items()} for row in csv.DictReader(handle)]


def load_data_frame(env=None):
    """The CSV data source as a pandas ``DataFrame`` (what vantage6 3.x's wrappers hand an algorithm)."""
    env = os.environ if env is None else env
    uri = database_uri(env)
    if not uri:
        raise RuntimeError("no data source: neither <LABEL>_DATABASE_URI of USER_REQUESTED_DATABASE_LABEL nor DATABASE_URI is set")
    try:
        import pandas  # noqa: PLC0415 (optional: only algorithms that want a DataFrame need it)
    except ImportError:
        raise RuntimeError("this algorithm wants its data as a pandas DataFrame, but pandas is not installed in the "
                           "image (Debian: apt-get install python3-pandas)") from None
    return pandas.read_csv(uri)
