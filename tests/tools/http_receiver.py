#!/usr/bin/env python3
"""A minimal HTTP log receiver for tests: appends each POSTed body to a file, then answers 200.

usage: http_receiver.py PORT OUTFILE

Each body is written with one write(2) on an O_APPEND descriptor before the answer, so what was
acknowledged survives a SIGKILL (the kernel keeps written data). A kill inside the write can leave
a torn last body (never acknowledged, so sent again); readers of the file skip torn lines. A
receiver started on a file whose last line is torn ends that line first: the next body appended
to it would otherwise continue the torn line, and its first event, acknowledged, would be read as
part of it and skipped.
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


def end_torn_line(path):
    try:
        with open(path, "rb") as f:
            f.seek(-1, os.SEEK_END)
            last = f.read(1)
    except OSError:  # no file yet, or an empty one
        return
    if last != b"\n":
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        try:
            os.write(fd, b"\n")
        finally:
            os.close(fd)


end_torn_line(sys.argv[2])
http.server.HTTPServer.allow_reuse_address = True
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
