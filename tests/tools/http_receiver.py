#!/usr/bin/env python3
"""A minimal HTTP log receiver for tests: appends each POSTed body to a file, then answers 200.

usage: http_receiver.py PORT OUTFILE

Each body is written with one write(2) on an O_APPEND descriptor before the answer, so what was
acknowledged survives a SIGKILL (the kernel keeps written data). A kill inside the write can leave
a torn last body (never acknowledged, so sent again); readers of the file skip torn lines.
"""
import http.server
import os
import sys


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        n = int(self.headers.get("content-length", 0))
        body = self.rfile.read(n)
        if len(body) < n:
            return
        fd = os.open(sys.argv[2], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            written = os.write(fd, body)
            assert written == len(body), "a short write to a regular file"
        finally:
            os.close(fd)
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


http.server.HTTPServer.allow_reuse_address = True
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
