"""listen.py CMD...: runs CMD with a TCP listener on a free local port (its
number in $PROBE_PORT) and prints on stdout, after CMD ends, how many
connections it accepted ("listener: 0 connection(s)"). Exits with CMD's
status."""
import os
import socket
import subprocess
import sys
import threading

server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
server.bind(("127.0.0.1", 0))
server.listen(8)
server.settimeout(0.2)
accepted = []
done = threading.Event()


def accept():
    while not done.is_set():
        try:
            conn, _ = server.accept()
            accepted.append(conn)
        except socket.timeout:
            pass


thread = threading.Thread(target=accept)
thread.start()
env = dict(os.environ, PROBE_PORT=str(server.getsockname()[1]))
rc = subprocess.call(sys.argv[1:], env=env)
done.set()
thread.join()
print("listener: %d connection(s)" % len(accepted), flush=True)
sys.exit(rc)
