"""Exit 0 when the node's TLS listener at HOST:PORT presents the certificate that CERT starts with, else 1.

Usage: serves_certificate.py HOST PORT CA CERT KEY. The connection checks the node against CA and presents CERT/KEY
(the node's own files: a node principal), as a node would, and asks for /health; TLS the node refuses is exit 1 with
the reason.
A node re-reads changed files at a handshake at most every 5 s, so the caller retries."""

import base64
import re
import socket
import ssl
import sys


def main(host, port, ca, cert, key):
    with open(cert) as f:
        first = re.search(r"-----BEGIN CERTIFICATE-----(.+?)-----END CERTIFICATE-----", f.read(), re.S)
    if not first:
        print("%s holds no certificate" % cert)
        return 1
    want = base64.b64decode("".join(first.group(1).split()))
    context = ssl.create_default_context(cafile=ca)
    context.load_cert_chain(cert, key)
    try:
        with socket.create_connection((host, int(port)), timeout=5) as raw:
            with context.wrap_socket(raw, server_hostname=host) as tls:
                served = tls.getpeercert(binary_form=True)
                # Under TLS 1.3 the node judges the client's certificate after the client's handshake ends: an
                # answer proves it took this one.
                tls.sendall(b"GET /health HTTP/1.0\r\nHost: " + host.encode() + b"\r\n\r\n")
                answer = tls.recv(64)
    except (OSError, ssl.SSLError) as e:
        print("TLS with %s:%s failed: %s" % (host, port, e))
        return 1
    if not answer.startswith(b"HTTP/"):
        print("%s:%s gave no HTTP answer over TLS" % (host, port))
        return 1
    if served != want:
        print("%s:%s still presents another certificate than %s" % (host, port, cert))
        return 1
    print("%s:%s presents %s" % (host, port, cert))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:6]))
