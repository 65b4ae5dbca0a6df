"""VPN example (docs/vpn.md): a master starts a sub-task at another organization that listens on two labelled
ports (declared in the Dockerfile: EXPOSE 8001 8002, LABEL p8001=alpha p8002=beta); the master finds the sub-task's
address of each label and exchanges data with it over TCP through the VPN."""
import socket
import threading
import time

PORTS = {"alpha": 8001, "beta": 8002}


def _serve_one(port, label, served, timeout):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("0.0.0.0", port))
        server.listen(1)
        server.settimeout(timeout)
        conn, peer = server.accept()
        with conn:
            conn.settimeout(10)
            message = conn.recv(4096).decode("utf-8")
            conn.sendall(f"{label}:{message.upper()}".encode("utf-8"))
            served.append({"label": label, "port": port, "received": message})


def RPC_serve(data, timeout=60):
    """Answer one connection on each labelled port with the message upper-cased, prefixed by the port's label."""
    served = []
    threads = [threading.Thread(target=_serve_one, args=(p, label, served, timeout)) for label, p in PORTS.items()]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if len(served) != len(PORTS):
        raise RuntimeError(f"only {len(served)} of {len(PORTS)} connections arrived")
    return {"served": sorted(served, key=lambda s: s["label"])}


def _exchange(ip, port, message, deadline):
    last = None
    while time.time() < deadline:
        try:
            with socket.create_connection((ip, port), timeout=3) as conn:
                conn.sendall(message.encode("utf-8"))
                return conn.recv(4096).decode("utf-8")
        except OSError as err:  # the sub-task may not listen yet
            last = err
            time.sleep(0.3)
    raise RuntimeError(f"could not exchange with {ip}:{port}: {last}")


def _reachable(host, port):
    try:
        with socket.create_connection((host, int(port)), timeout=3):
            return True
    except OSError:
        return False


def exchange(client, data, organization, message="hello over the vpn", outside=None, timeout=90):
    """Master: start `serve` at `organization`, find its ports by label, talk to each; try `outside` (host:port)."""
    task = client.create_new_task({"method": "serve", "args": [], "kwargs": {}}, organization_ids=[organization],
                                  name="vpn echo server")
    deadline = time.time() + timeout
    addresses = {}
    while time.time() < deadline and len(addresses) < len(PORTS):
        for label in PORTS:
            found = client.get_child_addresses(label=label)
            if found:
                addresses[label] = found[0]
        time.sleep(0.3)
    if len(addresses) < len(PORTS):
        raise RuntimeError(f"the sub-task's ports were not registered in time: {addresses}")
    replies = {label: _exchange(a["ip"], a["port"], f"{message} ({label})", deadline) for label, a in addresses.items()}
    outside_reachable = None
    if outside:
        host, port = outside.rsplit(":", 1)
        outside_reachable = _reachable(host, port)
    results = client.wait_for_results(task["id"])
    return {
        "replies": replies,
        "addresses": {label: {"ip": a["ip"], "port": a["port"]} for label, a in addresses.items()},
        "outside_reachable": outside_reachable,
        "served": results[0]["served"] if results and results[0] else None,
    }


def RPC_probe(data, target):
    """Whether a sub-task can open a TCP connection to `target` (host:port): no internet, no host services."""
    host, port = target.rsplit(":", 1)
    return {"reachable": _reachable(host, port)}
