#!/usr/bin/env python3
"""Hostile and slow clients against a running `graphormer-cli serve` (bench/serve_bench.sh).

usage: serve_attacks.py PORT KEY SECONDS
Sends each bad request and prints what the server answered, then holds slow-header and slow-body
connections (a little every second, 100 of each, at once) for SECONDS and prints how they ended. Loopback only.
"""
import gzip
import json
import socket
import sys
import threading
import time

PORT, KEY, SECONDS = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])


def raw(data, timeout=30):
    s = socket.create_connection(("127.0.0.1", PORT), timeout=timeout)
    try:
        s.sendall(data)
        reply = s.recv(200)
        return reply.split(b"\r\n", 1)[0].decode(errors="replace") or "closed"
    except (ConnectionResetError, BrokenPipeError):
        return "reset"
    finally:
        s.close()


def post(body, extra=b""):
    if isinstance(body, str):
        body = body.encode()
    head = (f"POST /v1/predict HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {KEY}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n").encode()
    return raw(head + extra + b"\r\n" + body)


def cases():
    chunk = b"4000\r\n" + b" " * 0x4000 + b"\r\n"
    yield "malformed JSON", post("{\"molecules\": [")
    yield "10,000-deep JSON", post("{\"molecules\":" + "[" * 10000 + "]" * 10000 + "}")
    yield "invalid UTF-8", post(b"{\"molecules\": [\"C\xff\"]}")
    yield "gzip body", post(gzip.compress(json.dumps({"molecules": ["CCO"]}).encode()), b"Content-Encoding: gzip\r\n")
    yield "declared 1 GiB body", raw((f"POST /v1/predict HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {KEY}\r\n"
                                       "Content-Type: application/json\r\nContent-Length: 1073741824\r\n\r\n").encode())
    yield "over-limit chunked body (9 MiB)", raw((f"POST /v1/predict HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {KEY}\r\n"
                                                   "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n").encode()
                                                  + chunk * 600)
    yield "64 KiB header", raw(b"GET /v2/health/live HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 65536 + b"\r\n\r\n")


def slow(kind, results):
    s = socket.create_connection(("127.0.0.1", PORT), timeout=SECONDS + 60)
    start = time.monotonic()
    if kind == "body":
        s.sendall((f"POST /v1/predict HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {KEY}\r\n"
                   "Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n").encode())
    else:
        s.sendall(b"POST /v1/predict HTTP/1.1\r\n")
    try:
        while time.monotonic() - start < SECONDS:
            s.sendall(b"X" if kind == "body" else b"X-a: b\r\n")
            time.sleep(1)
        results.append(("held", time.monotonic() - start))
    except OSError:
        results.append(("closed", time.monotonic() - start))
    finally:
        s.close()


def main():
    for name, answer in cases():
        print(f"attack: {name}: {answer}", flush=True)
    results = {"header": [], "body": []}
    threads = [threading.Thread(target=slow, args=(kind, results[kind])) for kind in results for _ in range(100)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for kind, got in results.items():
        closed = [t for r, t in got if r == "closed"]
        print(f"attack: 100 slow-{kind} clients: {len(closed)} closed by the server "
              f"(after {min(closed, default=0):.1f}-{max(closed, default=0):.1f} s), {len(got) - len(closed)} still open "
              f"after {SECONDS:.0f} s", flush=True)

if __name__ == "__main__":
    main()
