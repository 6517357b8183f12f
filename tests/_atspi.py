"""The accessibility tree as a screen reader reads it over AT-SPI (the desktop's
accessibility bus), and the announcements it hears: tests/_dbus.py underneath, run in a
process of its own (the application answers on its own event loop)."""

from __future__ import annotations

import os

from _dbus import Bus, DBusError

ACCESSIBLE = "org.a11y.atspi.Accessible"
ROOT = "/org/a11y/atspi/accessible/root"
REGISTRY = "org.a11y.atspi.Registry"


def a11y_address() -> str:
    """The accessibility bus's address, from the session bus (which starts the bus
    launcher when it is not running yet)."""
    session = Bus(os.environ["DBUS_SESSION_BUS_ADDRESS"])
    return session.call("org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus", "GetAddress")[0]


class Tree:
    """One connection to the accessibility bus."""

    def __init__(self, address: str | None = None):
        self.bus = Bus(address or a11y_address())

    def apps(self) -> list[tuple[str, str]]:
        return list(self.bus.call(REGISTRY, ROOT, ACCESSIBLE, "GetChildren")[0])

    def prop(self, dest: str, path: str, name: str, iface: str = ACCESSIBLE):
        return self.bus.call(dest, path, "org.freedesktop.DBus.Properties", "Get", "ss",
                             iface, name)[0]

    def node(self, dest: str, path: str) -> dict:
        """What a screen reader can read of one object: role, name, description, and its
        text when it offers the Text interface."""
        call = self.bus.call
        ifaces = call(dest, path, ACCESSIBLE, "GetInterfaces")[0]
        out = {"path": path, "role": call(dest, path, ACCESSIBLE, "GetRoleName")[0],
               "name": self.prop(dest, path, "Name"),
               "description": self.prop(dest, path, "Description"), "text": None,
               "states": call(dest, path, ACCESSIBLE, "GetState")[0]}
        if "org.a11y.atspi.Text" in ifaces:
            out["text"] = call(dest, path, "org.a11y.atspi.Text", "GetText", "ii", 0, -1)[0]
        return out

    def walk(self, dest: str, path: str = ROOT, limit: int = 40) -> list[dict]:
        """Every object under path (path first), each as {path, depth, role, name,
        description}, read a level at a time (each level's calls sent at once); one that
        goes while the tree is read (the window changes meanwhile) is left out."""
        props = "org.freedesktop.DBus.Properties"
        out, level = [], [(dest, path)]
        for depth in range(limit + 1):
            if not level:
                break
            calls = []
            for d, p in level:
                calls += [(d, p, ACCESSIBLE, "GetRoleName", ""),
                          (d, p, props, "Get", "ss", ACCESSIBLE, "Name"),
                          (d, p, props, "Get", "ss", ACCESSIBLE, "Description"),
                          (d, p, ACCESSIBLE, "GetChildren", "")]
            replies = self.bus.call_many(calls)
            nxt = []
            for i, (_d, p) in enumerate(level):
                role, name, description, children = replies[4 * i:4 * i + 4]
                if any(isinstance(r, DBusError) for r in (role, name, description, children)):
                    continue
                out.append({"path": p, "depth": depth, "role": role[0], "name": name[0],
                            "description": description[0]})
                nxt += children[0]
            level = nxt
        return out

    def listen(self) -> None:
        """Ask for the applications' announcements and focus changes (Qt sends an event
        only when a listener registered for it), and let them come to this connection."""
        for event in ("object:announcement", "object:state-changed", "focus:"):
            self.bus.call(REGISTRY, "/org/a11y/atspi/registry", REGISTRY, "RegisterEvent",
                          "s", event)
        self.bus.call("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                      "AddMatch", "s",
                      "type='signal',interface='org.a11y.atspi.Event.Object'")

    def heard(self, timeout_s: float = 0.0) -> list[str]:
        """What a screen reader would speak of the events since the last look: each
        announcement's words, and "focus: NAME (ROLE)" for each object that took focus."""
        out = []
        for _iface, member, body, sender, path in self.bus.signals(timeout_s):
            if member == "Announcement" and len(body) > 3:
                out.append(body[3])
            elif member == "StateChanged" and body[:2] == ("focused", 1):
                try:
                    node = self.node(sender, path)
                    out.append(f"focus: {node['name']} ({node['role']})")
                except DBusError:
                    out.append("focus: (an object gone since)")
        return out
