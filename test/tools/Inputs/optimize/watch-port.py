#!/usr/bin/env python3
"""Listens on a free local TCP port while a command runs, and says how many
connections it saw: the witness of the optimize-malicious test's network
case. Usage: watch-port.py -- COMMAND...; the command gets the port in
$WATCH_PORT. Prints "connections: N" after the command ends and exits with
the command's status."""

import os
import socket
import subprocess
import sys
import threading


def main():
    args = sys.argv[1:]
    if args[:1] == ["--"]:
        args = args[1:]
    if not args:
        sys.exit("usage: watch-port.py -- COMMAND...")
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    seen = []

    def accept():
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            seen.append(1)
            conn.close()

    threading.Thread(target=accept, daemon=True).start()
    env = dict(os.environ, WATCH_PORT=str(server.getsockname()[1]))
    status = subprocess.call(args, env=env)
    # A connection made just before the command ended is still counted.
    threading.Event().wait(0.2)
    print("connections: %d" % len(seen), flush=True)
    server.close()
    sys.exit(status)


if __name__ == "__main__":
    main()
