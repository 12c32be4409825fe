#!/usr/bin/env python3
"""A local stand-in for a language-model endpoint, for tests.

Serves OpenAI-compatible /v1/chat/completions and Anthropic /v1/messages and
answers each request with a recorded reply. The request's model name picks the
scenario: <replies>/<model>.txt holds the reply text and the optional
<replies>/<model>.json its behaviour (status codes, delays, dropped
connections, huge or garbage bodies, a sequence of replies over successive
calls). docs/model-endpoints.md describes the format.

The first line on stdout is "listening on http://127.0.0.1:PORT". With --log,
every request is appended to that file as one JSON line: the path, the model,
the scenario and call number, whether an auth header was present (never its
value) and the request body. SIGTERM (or --exit-after) stops the server.
With a command after '--', the server runs only while that command runs, with
FORGE_LLM_URL pointing at it (for lit tests).

Python standard library only.
"""

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

BEHAVIOUR_KEYS = {
    "status", "retry_after", "delay_s", "drop", "huge", "garbage",
    "error_body", "usage", "finish_reason",
}


class ScenarioError(Exception):
    pass


class Scenarios:
    """Reads scenario files on each request, so tests may add them live."""

    def __init__(self, directory):
        self.directory = directory
        self.calls = {}
        self.lock = threading.Lock()

    def next_call(self, name):
        with self.lock:
            self.calls[name] = self.calls.get(name, 0) + 1
            return self.calls[name]

    def reset(self):
        with self.lock:
            self.calls.clear()

    def _read(self, file_name):
        path = os.path.join(self.directory, file_name)
        if os.path.dirname(os.path.normpath(path)) != os.path.normpath(self.directory):
            raise ScenarioError(f"reply file '{file_name}' is outside {self.directory}")
        try:
            with open(path, encoding="utf-8") as f:
                return f.read()
        except OSError as e:
            raise ScenarioError(f"cannot read reply file '{file_name}': {e.strerror}")

    def lookup(self, name, call):
        """The reply text and behaviour for call number `call` (1-based)."""
        if not name or "/" in name or name.startswith("."):
            raise ScenarioError(f"no scenario for model '{name}'")
        spec_path = os.path.join(self.directory, name + ".json")
        text_path = os.path.join(self.directory, name + ".txt")
        spec = {}
        if os.path.exists(spec_path):
            try:
                with open(spec_path, encoding="utf-8") as f:
                    spec = json.load(f)
            except (OSError, ValueError) as e:
                raise ScenarioError(f"bad scenario file {name}.json: {e}")
            if not isinstance(spec, dict):
                raise ScenarioError(f"bad scenario file {name}.json: not an object")
        elif not os.path.exists(text_path):
            raise ScenarioError(
                f"no scenario for model '{name}' in {self.directory}")

        replies = spec.get("replies")
        if replies:
            text = self._read(replies[min(call, len(replies)) - 1])
        elif os.path.exists(text_path):
            text = self._read(name + ".txt")
        else:
            text = spec.get("text", "")

        behaviour = {k: v for k, v in spec.items() if k in BEHAVIOUR_KEYS}
        calls = spec.get("calls")
        if calls:
            behaviour.update(calls[min(call, len(calls)) - 1])
        return text, behaviour


def estimate_tokens(text):
    return (len(text.encode("utf-8")) + 3) // 4


def prompt_text(body):
    parts = []
    system = body.get("system")
    if isinstance(system, str):
        parts.append(system)
    for m in body.get("messages") or []:
        if isinstance(m, dict) and isinstance(m.get("content"), str):
            parts.append(m["content"])
    return "\n".join(parts)


def make_handler(scenarios, log):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "forge-mock-model/1"

        def log_message(self, fmt, *args):  # quiet: the --log file has it all
            pass

        def send_json(self, status, obj, headers=()):
            data = json.dumps(obj).encode("utf-8")
            self.send_raw(status, data, "application/json", headers)

        def send_raw(self, status, data, content_type, headers=()):
            try:
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.send_header("Connection", "close")
                for k, v in headers:
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client stopped reading (a size limit, a timeout)
            self.close_connection = True

        def error_object(self, anthropic, status, message):
            if anthropic:
                kind = {401: "authentication_error", 403: "permission_error",
                        404: "not_found_error", 429: "rate_limit_error",
                        529: "overloaded_error"}.get(
                            status, "api_error" if status >= 500 else "invalid_request_error")
                return {"type": "error", "error": {"type": kind, "message": message}}
            return {"error": {"message": message, "type": "mock_error",
                              "code": status}}

        def do_GET(self):
            self.send_json(404, {"error": {"message": "POST to /v1/chat/completions or /v1/messages"}})

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            if self.path == "/mock/reset":
                scenarios.reset()
                self.send_json(200, {"reset": True})
                return
            path = self.path.split("?")[0]
            anthropic = path.endswith("/messages")
            if not (anthropic or path.endswith("/chat/completions")):
                self.send_json(404, {"error": {"message": f"no endpoint {path}"}})
                return
            try:
                body = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, ValueError):
                body = None
            model = body.get("model") if isinstance(body, dict) else None

            has_bearer = (self.headers.get("Authorization") or "").startswith("Bearer ")
            has_x_key = self.headers.get("x-api-key") is not None
            entry = {
                "path": path,
                "model": model,
                "auth": has_bearer or has_x_key,
                "auth_header": ("authorization" if has_bearer else
                                "x-api-key" if has_x_key else None),
                "anthropic_version": self.headers.get("anthropic-version"),
                "body": body if body is not None else raw.decode("utf-8", "replace"),
            }

            problem = self.check_request(body, anthropic)
            text, behaviour, call = "", {}, 0
            if problem is None:
                call = scenarios.next_call(model)
                try:
                    text, behaviour = scenarios.lookup(model, call)
                except ScenarioError as e:
                    problem = (404, str(e))
            entry.update({"scenario": model, "call": call,
                          "behaviour": behaviour, "problem": problem and problem[1]})
            log(entry)

            if problem is not None:
                self.send_json(problem[0], self.error_object(anthropic, *problem))
                return
            self.answer(anthropic, model, body, text, behaviour, call)

        def check_request(self, body, anthropic):
            """A 400 for what the real APIs would reject."""
            if not isinstance(body, dict):
                return (400, "the request body is not a JSON object")
            if not isinstance(body.get("model"), str) or not body["model"]:
                return (400, "'model' is required")
            messages = body.get("messages")
            if not isinstance(messages, list) or not messages:
                return (400, "'messages' must be a non-empty list")
            roles = {"user", "assistant"} if anthropic else {"system", "user", "assistant"}
            for m in messages:
                if not isinstance(m, dict) or m.get("role") not in roles:
                    return (400, f"bad message role {m.get('role') if isinstance(m, dict) else m!r}")
            if anthropic and not isinstance(body.get("max_tokens"), int):
                return (400, "'max_tokens' is required")
            return None

        def answer(self, anthropic, model, body, text, behaviour, call):
            delay = float(behaviour.get("delay_s", 0))
            if delay > 0:
                time.sleep(delay)
            if behaviour.get("drop"):
                try:
                    self.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                self.close_connection = True
                return
            status = int(behaviour.get("status", 200))
            headers = []
            if "retry_after" in behaviour:
                headers.append(("Retry-After", str(behaviour["retry_after"])))
            if behaviour.get("garbage"):
                self.send_raw(status, b"<html><body>502 Bad Gateway? no: this is not JSON at all</body></html>\n",
                              "application/json", headers)
                return
            if "error_body" in behaviour or status >= 300:
                message = behaviour.get("error_body", f"mock: status {status} (call {call})")
                self.send_json(status, self.error_object(anthropic, status, message), headers)
                return

            huge = behaviour.get("huge")
            if huge:
                mib = 4 if huge is True else float(huge)
                unit = text if text else "x"
                text = unit * (int(mib * (1 << 20)) // len(unit) + 1)

            usage = behaviour.get("usage") or {}
            prompt_tokens = int(usage.get("prompt_tokens", estimate_tokens(prompt_text(body))))
            completion_tokens = int(usage.get("completion_tokens", estimate_tokens(text)))
            if anthropic:
                reply = {
                    "id": f"msg_mock_{call}", "type": "message", "role": "assistant",
                    "model": model,
                    "content": [{"type": "text", "text": text}],
                    "stop_reason": behaviour.get("finish_reason", "end_turn"),
                    "usage": {"input_tokens": prompt_tokens,
                              "output_tokens": completion_tokens},
                }
            else:
                reply = {
                    "id": f"chatcmpl-mock-{call}", "object": "chat.completion",
                    "created": int(time.time()), "model": model,
                    "choices": [{"index": 0,
                                 "message": {"role": "assistant", "content": text},
                                 "finish_reason": behaviour.get("finish_reason", "stop")}],
                    "usage": {"prompt_tokens": prompt_tokens,
                              "completion_tokens": completion_tokens,
                              "total_tokens": prompt_tokens + completion_tokens},
                }
            self.send_json(status, reply, headers)

    return Handler


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--replies", default=os.path.join(here, "..", "test", "Inputs", "model-replies"),
                   help="directory of scenario files (default: test/Inputs/model-replies)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0, help="0 (default): a free port")
    p.add_argument("--log", help="append one JSON line per request to this file")
    p.add_argument("--port-file", help="also write the port to this file once listening")
    p.add_argument("--exit-after", type=float, default=0,
                   help="stop after this many seconds (a guard for scripts)")
    p.add_argument("command", nargs=argparse.REMAINDER,
                   help="after '--': run this command with FORGE_LLM_URL set to the "
                        "server, then stop and exit with its status")
    args = p.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command

    log_lock = threading.Lock()

    def log(entry):
        if not args.log:
            return
        line = json.dumps(entry, ensure_ascii=False)
        with log_lock, open(args.log, "a", encoding="utf-8") as f:
            f.write(line + "\n")

    server = ThreadingHTTPServer((args.host, args.port),
                                 make_handler(Scenarios(os.path.abspath(args.replies)), log))
    server.daemon_threads = True  # a delayed reply must not hold up exit

    def stop(signum, frame):
        raise SystemExit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    if args.exit_after > 0:
        signal.signal(signal.SIGALRM, stop)
        signal.setitimer(signal.ITIMER_REAL, args.exit_after)

    port = server.server_address[1]
    url = f"http://{args.host}:{port}"
    if args.port_file:
        tmp = args.port_file + ".tmp"
        with open(tmp, "w") as f:
            f.write(f"{port}\n")
        os.replace(tmp, args.port_file)

    if command:
        # For lit's internal shell, which has no '&': the server lives as long
        # as the command, and stdout stays the command's.
        threading.Thread(target=server.serve_forever, daemon=True).start()
        env = dict(os.environ, FORGE_LLM_URL=url)
        env.setdefault("no_proxy", "127.0.0.1,localhost")
        try:
            status = subprocess.run(command, env=env).returncode
        except OSError as e:
            print(f"mock-model-server: cannot run {command[0]}: {e.strerror}", file=sys.stderr)
            status = 127
        server.shutdown()
        server.server_close()
        sys.exit(status if status >= 0 else 128 - status)

    print(f"listening on {url}", flush=True)
    try:
        server.serve_forever()
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
