#!/usr/bin/env python3
"""graphormer-cli serve end to end: a real server process on loopback and real HTTP clients
(http.client and raw sockets). Every status code for its cause, per-molecule statuses in order,
batching across requests, deadlines, 429, hostile and slow clients, out-of-memory molecules,
sd_notify, SIGHUP reload
under load (the SHA-256 switches, a corrupt checkpoint keeps the old model) and SIGTERM under
load (no admitted request lost, exit 0).

usage: test_serve.py CLI MODEL_DIR
"""
import gzip
import http.client
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

CLI, MODEL = sys.argv[1], sys.argv[2]
KEY, ADMIN = "test-api-key-0123456789", "test-admin-key-0123456789"
NCI = "/usr/share/RDKit/Data/NCI/first_200.props.sdf"
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def nci_smiles(n):
    out = []
    with open("/usr/share/RDKit/Data/NCI/first_5K.smi") as f:
        for line in f:
            if line.strip():
                out.append(line.split()[0])
            if len(out) == n:
                break
    return out


class Server:
    def __init__(self, tmp, name, *extra, env=None):
        self.tmp = tmp
        self.port_file = os.path.join(tmp, name + ".port")
        self.log_path = os.path.join(tmp, name + ".log")
        self.log = open(self.log_path, "w")
        args = [CLI, "serve", "--listen", "127.0.0.1:0", "--port-file", self.port_file, "--threads", "1",
                "--api-keys", os.path.join(tmp, "keys"), "--admin-keys", os.path.join(tmp, "admin")] + list(extra)
        self.proc = subprocess.Popen(args, stderr=self.log, env=dict(os.environ, **(env or {})))
        deadline = time.monotonic() + 120
        while not os.path.exists(self.port_file):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("server did not start: " + open(self.log_path).read()[-2000:])
            time.sleep(0.05)
        self.port = int(open(self.port_file).read())
        while self.get("/v2/health/ready")[0] != 200:  # live at once, ready after load + warm-up
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("server never became ready: " + open(self.log_path).read()[-2000:])
            time.sleep(0.05)

    def conn(self, timeout=60):
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def request(self, method, path, body=None, headers=None, key=KEY, timeout=60):
        h = {"Content-Type": "application/json"}
        if key:
            h["Authorization"] = "Bearer " + key
        h.update(headers or {})
        c = self.conn(timeout)
        try:
            c.request(method, path, body=body, headers=h)
            r = c.getresponse()
            return r.status, r.read(), dict(r.getheaders())
        finally:
            c.close()

    def get(self, path, key=KEY):
        try:
            return self.request("GET", path, key=key, timeout=5)
        except OSError:
            return 0, b"", {}

    def predict(self, molecules, key=KEY, **fields):
        body = json.dumps(dict(molecules=molecules, **fields))
        status, data, headers = self.request("POST", "/v1/predict", body, key=key)
        return status, (json.loads(data) if data else None), headers

    def status(self):
        return json.loads(self.get("/v1/status")[1])

    def metric(self, name):
        for line in self.get("/metrics")[1].decode().splitlines():
            if line.startswith(name + " "):
                return float(line.split()[1])
        return None

    def raw(self, data, timeout=10):
        """Sends raw bytes and returns what the server answers before closing (b'' = closed)."""
        s = socket.create_connection(("127.0.0.1", self.port), timeout=timeout)
        try:
            s.sendall(data)
            return s.recv(65536)
        except (ConnectionResetError, BrokenPipeError):
            return b""
        finally:
            s.close()

    def stop(self, sig=signal.SIGTERM):
        self.proc.send_signal(sig)
        rc = self.proc.wait(timeout=120)
        self.log.close()
        return rc


def status_line(data):
    return int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/1.1 ") else 0


def test_codes(s):
    check(s.get("/v2/health/live", key=None)[0] == 200, "live without a key: 200")
    check(s.predict(["CCO"], key=None)[0] == 401, "no key: 401")
    check(s.predict(["CCO"], key="wrong-key-0123456789")[0] == 401, "unknown key: 401")
    check(s.request("POST", "/v1/admin/reload", "")[0] == 403, "an API key on the admin endpoint: 403")
    check(s.get("/v1/nothing")[0] == 404, "unknown path: 404")
    check(s.predict(["CCO"], model="other")[0] == 404, "unknown model in the body: 404")
    check(s.request("POST", "/v2/models/other/infer", "{}")[0] == 404, "unknown model in a v2 path: 404")
    check(s.request("GET", "/v1/predict")[0] == 405, "GET on /v1/predict: 405")
    check(s.request("POST", "/v1/predict", "x", {"Content-Type": "text/plain"})[0] == 415, "text/plain: 415")
    gz = gzip.compress(json.dumps({"molecules": ["CCO"]}).encode())
    check(s.request("POST", "/v1/predict", gz, {"Content-Encoding": "gzip"})[0] == 415, "a gzip body: 415")
    check(s.request("POST", "/v1/predict", "{\"molecules\": [")[0] == 400, "malformed JSON: 400")
    deep = "{\"molecules\":" + "[" * 10000 + "]" * 10000 + "}"
    check(s.request("POST", "/v1/predict", deep)[0] == 400, "10,000-deep JSON: 400")
    check(s.request("POST", "/v1/predict", b"{\"molecules\": [\"C\xff\"]}")[0] == 400, "invalid UTF-8: 400")
    head = (f"POST /v1/predict HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {KEY}\r\n"
            "Content-Type: application/json\r\nContent-Length: 1073741824\r\n\r\n").encode()
    check(status_line(s.raw(head)) == 413, "a declared 1 GiB body: 413 before the body is read")
    chunk = b"4000\r\n" + b" " * 0x4000 + b"\r\n"
    chunked = (f"POST /v1/predict HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {KEY}\r\n"
               "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n").encode() + chunk * 80
    check(status_line(s.raw(chunked)) == 413, "an over-limit chunked body: 413")
    big_header = b"GET /v2/health/live HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 65536 + b"\r\n\r\n"
    check(status_line(s.raw(big_header)) == 431, "a 64 KiB header: 431")
    check(status_line(s.raw(b"BLAH\r\n\r\n")) == 400, "garbage request line: 400")


def test_molecules(s):
    too_big = "C" * 150
    mols = ["CCO", "not_a_smiles", {"smiles": too_big, "id": "big"}, "[Na+].[Cl-]", "CCO", "c1ccccc1", "CC[Pt]"]
    status, body, headers = s.predict(mols)
    check(status == 200, "a mixed request: 200")
    r = body["results"]
    check(len(r) == len(mols), "one result per molecule")
    check([x["id"] for x in r] == ["0", "1", "big", "3", "4", "5", "6"], "ids in input order")
    statuses = [x["status"] for x in r]
    check(statuses[0] == "ok" and statuses[5] == "ok", "valid molecules: ok")
    check(statuses[1] == "syntax_error", "invalid SMILES: syntax_error")
    check(statuses[2] == "too_many_atoms", "150 atoms over --max-atoms 100: too_many_atoms")
    check(r[4].get("duplicate_of") == 0 and r[4]["values"] == r[0]["values"], "a duplicate points to its first")
    check("trust" in r[0] and "domain" in r[0]["trust"], "ok rows carry trust")
    metal = r[6]
    check(metal["status"] != "ok" or metal.get("trust", {}).get("domain") in ("borderline", "out"),
          "a metal is refused or flagged out of domain (" + metal["status"] + ")")
    check(body["model"]["sha256"] and body["model"]["device"] == "cpu", "the response names model and device")
    check(headers.get("X-Request-Id") == body["request_id"], "X-Request-Id matches the body")


def test_batches_and_reference(s, tmp):
    mols = nci_smiles(200)
    status, body, _ = s.predict([{"smiles": m, "id": f"n{i}"} for i, m in enumerate(mols)])
    check(status == 200 and len(body["results"]) == 200, "200 molecules (> one batch of 16): all answered")
    smi = os.path.join(tmp, "ref.smi")
    with open(smi, "w") as f:
        f.writelines(f"{m} n{i}\n" for i, m in enumerate(mols))
    subprocess.run([CLI, "predict", "--input", smi, "--output", os.path.join(tmp, "ref.csv"), "--threads", "1",
                    "--max-atoms", "100", "--quiet"], check=True, stderr=subprocess.DEVNULL)
    import csv
    ref = list(csv.DictReader(open(os.path.join(tmp, "ref.csv"))))
    out = body["results"][0]["values"]
    name = next(iter(out))
    worst = 0.0
    for row, res in zip(ref, body["results"]):
        check_ok = row["status"] == res["status"]
        if not check_ok:
            check(False, f"status of {row['id']}: predict {row['status']}, server {res['status']}")
        if res["status"] == "ok":
            worst = max(worst, abs(float(row[name]) - res["values"][name]))
    check(worst < 1e-3, f"server values match graphormer-cli predict (max |diff| {worst:.2e})")


def test_concurrency(s):
    before_passes, before_mols = s.metric("graphormer_forward_passes_total"), s.metric("graphormer_batched_molecules_total")
    mols = nci_smiles(64)
    results = []

    def client(k):
        for j in range(4):
            st, body, _ = s.predict([mols[(k * 4 + j) % 64]])
            results.append(st == 200 and body["results"][0]["status"] == "ok")

    threads = [threading.Thread(target=client, args=(k,)) for k in range(32)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    check(len(results) == 128 and all(results), "128 concurrent one-molecule requests: all 200")
    passes = s.metric("graphormer_forward_passes_total") - before_passes
    molecules = s.metric("graphormer_batched_molecules_total") - before_mols
    check(molecules / max(passes, 1) > 1, f"requests are batched together: {molecules:.0f} molecules in {passes:.0f} passes")


def test_deadline_and_queue(s):
    mols = nci_smiles(300)
    status, body, _ = s.predict(mols, timeout_ms=1)
    check(status == 504, "a 300-molecule request with timeout_ms=1: 504")
    first = {}
    t = threading.Thread(target=lambda: first.update(r=s.predict(mols)))
    t.start()
    deadline = time.monotonic() + 30
    while s.status()["queue"]["molecules"] == 0 and t.is_alive() and time.monotonic() < deadline:
        pass
    st, _, headers = s.predict(mols)  # 300 more never fit while any of the first 300 wait
    check(st == 429 and int(headers.get("Retry-After", "0")) >= 1, "a full queue: 429 with Retry-After")
    t.join()
    check(first["r"][0] == 200, "the request that filled the queue: 200")
    check((s.metric("graphormer_rejections_total{reason=\"queue_full\"}") or 0) >= 1, "metrics count the 429")


def test_v2(s):
    check(s.get("/v2/models/graphormer/ready", key=None)[0] == 200, "v2 model ready")
    meta = json.loads(s.get("/v2/models/graphormer")[1])
    check(meta["inputs"][0]["name"] == "smiles" and meta["inputs"][0]["datatype"] == "BYTES", "v2 metadata")
    req = {"id": "t1", "inputs": [{"name": "smiles", "datatype": "BYTES", "shape": [3], "data": ["CCO", "x(", "c1ccccc1"]}]}
    st, data, _ = s.request("POST", "/v2/models/graphormer/infer", json.dumps(req))
    out = {o["name"]: o for o in json.loads(data)["outputs"]}
    check(st == 200 and out["status"]["data"] == ["ok", "syntax_error", "ok"], "v2 infer: statuses in order")
    values = [o for o in out.values() if o["datatype"] == "FP32"][0]["data"]
    check(values[1] is None and isinstance(values[0], float), "v2 infer: FP32 values, null where not ok")


def test_status_and_metrics(s):
    st = s.status()
    check(st["ready"] and st["memory"]["rss_bytes"] > 0 and st["memory"]["tensor_bytes"] >= 0, "/v1/status memory")
    page = s.get("/metrics")[1].decode()
    check("graphormer_request_duration_seconds_bucket{le=\"+Inf\"}" in page, "/metrics histograms")
    check("# TYPE graphormer_molecules_total counter" in page, "/metrics counters")


def test_slow_clients(s):
    t0 = time.monotonic()
    c = socket.create_connection(("127.0.0.1", s.port), timeout=10)
    c.sendall(b"POST /v1/predict HTTP/1.1\r\nHost: x\r\n")  # and never the rest
    ok = s.predict(["CCO"])[0] == 200  # a well-behaved client meanwhile
    closed = c.recv(100) == b""
    c.close()
    check(ok and closed and time.monotonic() - t0 < 8, "a slow header is closed at the header timeout")
    c = socket.create_connection(("127.0.0.1", s.port), timeout=10)
    c.sendall((f"POST /v1/predict HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {KEY}\r\n"
               "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"mol").encode())
    closed = c.recv(100) == b""
    c.close()
    check(closed and s.get("/v2/health/live", key=None)[0] == 200, "a slow body is closed; the server stays live")


def test_client_leaves(s):
    c = socket.create_connection(("127.0.0.1", s.port), timeout=10)
    body = json.dumps({"molecules": nci_smiles(300)}).encode()
    c.sendall((f"POST /v1/predict HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {KEY}\r\n"
               f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode() + body)
    c.close()
    deadline = time.monotonic() + 30
    while "client_left" not in open(s.log_path).read() and time.monotonic() < deadline:
        time.sleep(0.05)
    check("client_left" in open(s.log_path).read(), "a client that hangs up has its job dropped")
    check(s.predict(["CCO"])[0] == 200, "the server answers after a client left")


class Notify:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(path)
        self.messages = []
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        while True:
            self.messages.append(self.sock.recv(4096).decode())

    def seen(self, text):
        return any(text in m for m in self.messages)


def pad_model(src, dst):
    """A copy of a safetensors file with 8 more header bytes: the same model, another SHA-256."""
    data = open(src, "rb").read()
    n = struct.unpack("<Q", data[:8])[0]
    with open(dst + ".tmp", "wb") as f:
        f.write(struct.pack("<Q", n + 8) + data[8:8 + n] + b" " * 8 + data[8 + n:])
    os.replace(dst + ".tmp", dst)


def load_until(s, stop, results):
    while not stop.is_set():
        try:
            st, body, _ = s.predict(["CCO", "c1ccccc1O"])
            results.append((st, body["model"]["sha256"] if st == 200 else None))
        except OSError as e:
            results.append((0, str(e)))


def test_reload_and_drain(tmp):
    model_dir = os.path.join(tmp, "model")
    os.makedirs(model_dir)
    weights = os.path.join(model_dir, "model.safetensors")
    shutil.copy(os.path.join(MODEL, "model.safetensors"), weights)
    notify = Notify(os.path.join(tmp, "notify.sock"))
    s = Server(tmp, "reload", "--model", model_dir, "--no-trust", "--drain-timeout", "60",
               env={"NOTIFY_SOCKET": os.path.join(tmp, "notify.sock"), "WATCHDOG_USEC": "200000"})
    check(notify.seen("READY=1"), "sd_notify READY=1 once ready")
    old = s.status()["model"]["sha256"]
    stop, results = threading.Event(), []
    clients = [threading.Thread(target=load_until, args=(s, stop, results)) for _ in range(4)]
    for t in clients:
        t.start()
    pad_model(os.path.join(MODEL, "model.safetensors"), weights)
    s.proc.send_signal(signal.SIGHUP)
    deadline = time.monotonic() + 60
    while s.status()["model"]["sha256"] == old and time.monotonic() < deadline:
        time.sleep(0.05)
    new = s.status()["model"]["sha256"]
    n = len(results)
    while len(results) < n + 8 and time.monotonic() < deadline:
        time.sleep(0.02)
    stop.set()
    for t in clients:
        t.join()
    check(new != old, "SIGHUP reload switches the SHA-256")
    check(all(r[0] == 200 for r in results), f"no errors during the reload ({len(results)} requests)")
    check({r[1] for r in results} == {old, new}, "responses name the old model, then the new one")
    check(notify.seen("RELOADING=1") and notify.seen("WATCHDOG=1"), "sd_notify RELOADING=1 and WATCHDOG=1")
    with open(weights, "r+b") as f:
        f.truncate(1000)
    st, data, _ = s.request("POST", "/v1/admin/reload", "", key=ADMIN)
    check(st == 500 and b"previous model" in data, "a corrupt checkpoint on reload: refused, says why")
    check(s.status()["model"]["sha256"] == new and s.predict(["CCO"])[0] == 200, "the old model keeps serving")
    drain(s, notify)


def drain(s, notify):
    results, started = [], threading.Barrier(9)
    mols = nci_smiles(40)

    def client():
        started.wait()
        try:
            st, body, _ = s.predict(mols)
            results.append(st if st != 200 else (200 if len(body["results"]) == 40 else -1))
        except OSError:
            results.append(0)  # refused after the listener closed: never admitted

    threads = [threading.Thread(target=client) for _ in range(8)]
    for t in threads:
        t.start()
    started.wait()
    deadline = time.monotonic() + 30
    while s.status()["queue"]["requests_in_flight"] == 0 and time.monotonic() < deadline:
        pass
    rc = s.stop(signal.SIGTERM)
    for t in threads:
        t.join()
    check(rc == 0, "SIGTERM: exit 0 after draining")
    check(results.count(200) >= 1 and all(r in (200, 503, 0) for r in results),
          f"SIGTERM under load: admitted requests complete ({results})")
    check(notify.seen("STOPPING=1"), "sd_notify STOPPING=1")


def test_out_of_memory(tmp):
    s = Server(tmp, "oom", "--memory-budget-mib", "2", "--no-trust", "--max-connections", "4")
    try:
        held = [socket.create_connection(("127.0.0.1", s.port), timeout=10) for _ in range(4)]
        over = s.raw(b"GET /v2/health/live HTTP/1.1\r\nHost: x\r\n\r\n")
        for c in held:
            c.close()
        check(status_line(over) == 503, "a connection over --max-connections: 503")
        deadline = time.monotonic() + 10
        while s.get("/v2/health/live", key=None)[0] != 200 and time.monotonic() < deadline:
            time.sleep(0.05)
        check(s.get("/v2/health/live", key=None)[0] == 200, "served again once the held connections close")
        status, body, _ = s.predict(["CCO", "C" * 300, "c1ccccc1O"])
        statuses = [r["status"] for r in body["results"]] if body else []
        check(status == 200 and statuses == ["ok", "out_of_memory", "ok"],
              f"a molecule over --memory-budget-mib: out_of_memory, the others ok ({statuses})")
        check(s.predict(["CCN"])[0] == 200, "the server keeps serving after an out-of-memory molecule")
        idle = s.conn()  # a kept-alive connection still open when the server stops
        idle.request("GET", "/v2/health/live")
        idle.getresponse().read()
    finally:
        check(s.stop() == 0, "exit 0 on SIGTERM with an idle kept-alive connection open")


def main():
    tmp = tempfile.mkdtemp(prefix="gs-serve-test.")
    try:
        open(os.path.join(tmp, "keys"), "w").write("# predict\n" + KEY + "\n")
        open(os.path.join(tmp, "admin"), "w").write(ADMIN + "\n")
        s = Server(tmp, "main", "--batch-size", "16", "--max-atoms", "100", "--queue-molecules", "300",
                   "--max-molecules", "300", "--max-body-mib", "1", "--header-timeout-ms", "1500",
                   "--body-timeout-ms", "1500", "--max-queue-delay-ms", "5")
        try:
            for test in (test_codes, test_molecules, test_concurrency, test_deadline_and_queue, test_v2,
                         test_status_and_metrics, test_slow_clients, test_client_leaves):
                test(s)
            test_batches_and_reference(s, tmp)
            check(s.proc.poll() is None, "the server survived every bad input")
        finally:
            check(s.stop() == 0, "exit 0 on SIGTERM")
        test_out_of_memory(tmp)
        test_reload_and_drain(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
