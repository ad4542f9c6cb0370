#!/usr/bin/env python3
"""A minimal HTTP log receiver for tests: appends each POSTed body to a file, then answers 200.

usage: http_receiver.py PORT OUTFILE

Bodies are written and flushed before the answer, so what was acknowledged survives a SIGKILL of
this process (the kernel keeps written data); what was not acknowledged must be sent again.
"""
import http.server
import sys


class Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        n = int(self.headers.get("content-length", 0))
        body = self.rfile.read(n)
        if len(body) < n:
            return
        with open(sys.argv[2], "ab") as f:
            f.write(body)
            f.flush()
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


http.server.HTTPServer.allow_reuse_address = True
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
