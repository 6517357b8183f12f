"""A small D-Bus client over a Unix socket, enough to read the accessibility tree (AT-SPI)
as a screen reader does: method calls with string and integer arguments, replies and
signals of any signature decoded into Python values. PySide6's QtDBus cannot read a
structure (its QDBusArgument binds only the writing beginStructure), and AT-SPI's object
references are structures (so); python3-gi is not installed. Little-endian only, as the
buses on this machine are. Used by tests/_atspi_app.py."""

from __future__ import annotations

import os
import socket
import struct
from collections import deque

ALIGN = {"y": 1, "b": 4, "n": 2, "q": 2, "i": 4, "u": 4, "x": 8, "t": 8, "d": 8, "h": 4,
         "s": 4, "o": 4, "g": 1, "a": 4, "(": 8, "{": 8, "v": 1}
FIXED = {"y": "B", "b": "I", "n": "h", "q": "H", "i": "i", "u": "I", "x": "q", "t": "Q",
         "d": "d", "h": "I"}
CALL, RETURN, ERROR, SIGNAL = 1, 2, 3, 4


class DBusError(RuntimeError):
    pass


def one_type(sig: str, at: int = 0) -> int:
    """The end of the single complete type starting at sig[at]."""
    c = sig[at]
    if c == "a":
        return one_type(sig, at + 1)
    if c in "({":
        close = ")" if c == "(" else "}"
        at += 1
        while sig[at] != close:
            at = one_type(sig, at)
        return at + 1
    return at + 1


def types(sig: str) -> list[str]:
    out, at = [], 0
    while at < len(sig):
        end = one_type(sig, at)
        out.append(sig[at:end])
        at = end
    return out


class Writer:
    def __init__(self):
        self.buf = bytearray()

    def pad(self, n: int) -> None:
        self.buf += b"\0" * (-len(self.buf) % n)

    def put(self, sig: str, value) -> None:
        c = sig[0]
        self.pad(ALIGN[c])
        if c in FIXED:
            self.buf += struct.pack("<" + FIXED[c], value)
        elif c in "so":
            raw = value.encode()
            self.buf += struct.pack("<I", len(raw)) + raw + b"\0"
        elif c == "g":
            raw = value.encode()
            self.buf += bytes([len(raw)]) + raw + b"\0"
        elif c == "v":
            inner, value = value
            self.put("g", inner)
            self.put(inner, value)
        elif c == "a":
            self.buf += b"\0\0\0\0"
            at = len(self.buf)
            self.pad(ALIGN[sig[1]])
            start = len(self.buf)
            for item in value:
                self.put(sig[1:], item)
            struct.pack_into("<I", self.buf, at - 4, len(self.buf) - start)
        elif c == "(":
            for part, item in zip(types(sig[1:-1]), value, strict=True):
                self.put(part, item)
        else:
            raise ValueError(f"cannot write {sig!r}")


class Reader:
    def __init__(self, data: bytes, at: int = 0):
        self.data, self.at = data, at

    def pad(self, n: int) -> None:
        self.at += -self.at % n

    def get(self, sig: str):
        c = sig[0]
        self.pad(ALIGN[c])
        if c in FIXED:
            fmt = "<" + FIXED[c]
            (value,) = struct.unpack_from(fmt, self.data, self.at)
            self.at += struct.calcsize(fmt)
            return bool(value) if c == "b" else value
        if c in "so":
            (n,) = struct.unpack_from("<I", self.data, self.at)
            self.at += 4 + n + 1
            return self.data[self.at - n - 1:self.at - 1].decode()
        if c == "g":
            n = self.data[self.at]
            self.at += 1 + n + 1
            return self.data[self.at - n - 1:self.at - 1].decode()
        if c == "v":
            inner = self.get("g")
            return self.get(inner)
        if c == "a":
            (n,) = struct.unpack_from("<I", self.data, self.at)
            self.at += 4
            self.pad(ALIGN[sig[1]])
            end, out = self.at + n, []
            while self.at < end:
                out.append(self.get(sig[1:]))
            return dict(out) if sig[1] == "{" else out
        if c in "({":
            self.pad(8)
            return tuple(self.get(part) for part in types(sig[1:-1]))
        raise ValueError(f"cannot read {sig!r}")


class Bus:
    """One connection; call() waits for its reply, keeping the signals that come first
    (signals())."""

    def __init__(self, address: str):
        kind, _, rest = address.partition(":")
        params = dict(p.split("=", 1) for p in rest.split(",") if "=" in p)
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        if "path" in params:
            self.sock.connect(params["path"])
        elif "abstract" in params:
            self.sock.connect("\0" + params["abstract"])
        else:
            raise DBusError(f"cannot reach {address!r}")
        uid = str(os.getuid()).encode().hex().encode()
        self.sock.sendall(b"\0AUTH EXTERNAL " + uid + b"\r\n")
        if not self._line().startswith(b"OK"):
            raise DBusError("authentication refused")
        self.sock.sendall(b"BEGIN\r\n")
        self.serial = 0
        self.pending: deque = deque()
        self._buf = b""
        self.name = self.call("org.freedesktop.DBus", "/org/freedesktop/DBus",
                              "org.freedesktop.DBus", "Hello")[0]

    def _line(self) -> bytes:
        out = b""
        while not out.endswith(b"\r\n"):
            out += self.sock.recv(1)
        return out

    def send(self, kind: int, dest: str, path: str, iface: str, member: str,
             sig: str = "", args=()) -> int:
        self.serial += 1
        body = Writer()
        for part, value in zip(types(sig), args, strict=True):
            body.put(part, value)
        fields = [(1, ("o", path)), (2, ("s", iface)), (3, ("s", member))]
        if dest:
            fields.append((6, ("s", dest)))
        if sig:
            fields.append((8, ("g", sig)))
        head = Writer()
        head.buf += struct.pack("<cBBBII", b"l", kind, 0, 1, len(body.buf), self.serial)
        head.put("a(yv)", fields)
        head.pad(8)
        self.sock.sendall(bytes(head.buf) + bytes(body.buf))
        return self.serial

    def _message(self) -> tuple[int, dict, tuple]:
        while True:
            if len(self._buf) >= 16:
                body_len, _serial, fields_len = struct.unpack_from("<III", self._buf, 4)
                head_end = 16 + fields_len + (-(16 + fields_len) % 8)
                if len(self._buf) >= head_end + body_len:
                    break
            chunk = self.sock.recv(65536)
            if not chunk:
                raise DBusError("the bus closed the connection")
            self._buf += chunk
        data, self._buf = self._buf[:head_end + body_len], self._buf[head_end + body_len:]
        kind = data[1]
        fields = dict(Reader(data, 12).get("a(yv)"))
        sig = fields.get(8, "")
        r = Reader(data, head_end)
        body = tuple(r.get(t) for t in types(sig))
        return kind, fields, body

    def call(self, dest: str, path: str, iface: str, member: str, sig: str = "", *args):
        serial = self.send(CALL, dest, path, iface, member, sig, args)
        while True:
            kind, fields, body = self._message()
            if kind == SIGNAL:
                self.pending.append((fields.get(2, ""), fields.get(3, ""), body,
                                     fields.get(7, ""), fields.get(1, "")))
            elif fields.get(5) == serial:
                if kind == ERROR:
                    raise DBusError(f"{fields.get(4)}: {body[0] if body else ''}")
                return body

    def call_many(self, calls: list[tuple]) -> list:
        """Many calls sent at once, their replies (or DBusError) in the same order: a tree
        read one call at a time waits on the window's event loop thousands of times."""
        serials = [self.send(CALL, dest, path, iface, member, sig, args)
                   for dest, path, iface, member, sig, *args in calls]
        replies: dict[int, object] = {}
        while len(replies) < len(serials):
            kind, fields, body = self._message()
            if kind == SIGNAL:
                self.pending.append((fields.get(2, ""), fields.get(3, ""), body,
                                     fields.get(7, ""), fields.get(1, "")))
            elif fields.get(5) in serials:
                replies[fields[5]] = (DBusError(f"{fields.get(4)}: {body[0] if body else ''}")
                                      if kind == ERROR else body)
        return [replies[s] for s in serials]

    def signals(self, timeout_s: float = 0.0) -> list:
        """The signals received so far, and any that come within timeout_s, as (interface,
        member, body, sender, path)."""
        self.sock.settimeout(timeout_s or 0.001)
        try:
            while True:
                kind, fields, body = self._message()
                if kind == SIGNAL:
                    self.pending.append((fields.get(2, ""), fields.get(3, ""), body,
                                         fields.get(7, ""), fields.get(1, "")))
        except (TimeoutError, BlockingIOError):
            pass
        finally:
            self.sock.settimeout(None)
        out = list(self.pending)
        self.pending.clear()
        return out
