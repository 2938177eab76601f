"""Headless Chromium driven over the Chrome DevTools Protocol (websocket-client): open a
page, evaluate JavaScript, take a screenshot, send real mouse events.

Waits poll for a condition with a generous ceiling that only stops a hang; no test
asserts how long anything took.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any, Callable, Dict, Optional

#: The longest a condition is polled for before the test fails as hung.
HANG_S = 120.0


def chromium() -> Optional[str]:
    """The Chromium binary, or None."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(name)
        if p:
            return p
    return None


def wait_for(cond: Callable[[], Any], what: str) -> Any:
    """Polls ``cond`` until it returns a true value (returned); fails after :data:`HANG_S`."""
    end = time.monotonic() + HANG_S
    while True:
        v = cond()
        if v:
            return v
        if time.monotonic() > end:
            raise TimeoutError(f"gave up waiting for {what}")
        time.sleep(0.1)


class Browser:
    """One headless Chromium with one page; use as a context manager."""

    def __init__(self, binary: str, width: int = 1400, height: int = 1000):
        import websocket

        self.profile = tempfile.mkdtemp(prefix="lossrec-chromium-")
        self.proc = subprocess.Popen(
            [binary, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-dev-shm-usage", "--remote-debugging-port=0", "--remote-allow-origins=*",
             f"--user-data-dir={self.profile}", f"--window-size={width},{height}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = Path(self.profile) / "DevToolsActivePort"
        port = wait_for(lambda: port_file.exists() and port_file.read_text().split("\n")[0].strip(),
                        "Chromium's DevTools port")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list") as r:
            pages = [p for p in json.load(r) if p.get("type") == "page"]
        self.ws = websocket.create_connection(pages[0]["webSocketDebuggerUrl"], timeout=HANG_S,
                                              suppress_origin=True)
        self.next_id = 0
        self.send("Emulation.setDeviceMetricsOverride", width=width, height=height,
                  deviceScaleFactor=1, mobile=False)

    def send(self, method: str, **params: Any) -> Dict[str, Any]:
        """One DevTools command; returns its result (events in between are skipped)."""
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == self.next_id:
                if "error" in msg:
                    raise RuntimeError(f"{method}: {msg['error']}")
                return dict(msg.get("result") or {})

    def js(self, expr: str) -> Any:
        """The value of a JavaScript expression in the page."""
        r = self.send("Runtime.evaluate", expression=expr, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expr}: {r['exceptionDetails']}")
        return r.get("result", {}).get("value")

    def open(self, path: Path) -> None:
        self.send("Page.navigate", url=path.resolve().as_uri())
        wait_for(lambda: self.js("document.readyState") == "complete", "the page to load")

    def screenshot(self) -> bytes:
        return base64.b64decode(self.send("Page.captureScreenshot", format="png")["data"])

    def click(self, x: float, y: float) -> None:
        """A real mouse click at (x, y) CSS pixels: move there, press, release."""
        self.send("Input.dispatchMouseEvent", type="mouseMoved", x=x, y=y)
        self.send("Input.dispatchMouseEvent", type="mousePressed", x=x, y=y, button="left", clickCount=1)
        self.send("Input.dispatchMouseEvent", type="mouseReleased", x=x, y=y, button="left", clickCount=1)

    def move(self, x: float, y: float) -> None:
        self.send("Input.dispatchMouseEvent", type="mouseMoved", x=x, y=y)

    def __enter__(self) -> "Browser":
        return self

    def __exit__(self, *exc: Any) -> None:
        try:
            self.ws.close()
        finally:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=HANG_S)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            shutil.rmtree(self.profile, ignore_errors=True)


def install_hint() -> str:
    return ("Chromium is not installed (scripts/test.sh installs it with apt: "
            f"apt-get install -y chromium); PATH={os.environ.get('PATH', '')}")
