"""Drive the page in a real browser: start ``mlcost ui`` on a free loopback port, open headless
Chromium through Selenium (Debian's ``chromium`` and ``chromedriver``), change inputs and wait
for the answer to re-render. Used by ``tests/ui``, ``benchmarks/ui_latency.py`` and
``scripts/ui_screenshots.py``; needs the ``dev`` extra (Selenium) and the browser."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: Where Debian's packages put the browser and its driver (``apt-get install chromium
#: chromium-driver``, as ``scripts/test.sh`` does).
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"


def free_port() -> int:
    """A TCP port no one listens on now (the kernel's choice)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def browser_available() -> bool:
    """Whether the browser, its driver and Selenium are installed."""
    import importlib.util

    return all(
        (
            shutil.which("chromium") or os.path.exists(CHROMIUM),
            shutil.which("chromedriver") or os.path.exists(CHROMEDRIVER),
            importlib.util.find_spec("selenium") is not None,
        )
    )


@contextmanager
def running_ui(env: dict[str, str] | None = None, timeout: float = 60.0) -> Iterator[str]:
    """``mlcost ui --no-browser`` on a free port; yields its address once it answers."""
    port = free_port()
    command = [sys.executable, "-m", "mlcost.cli", "ui", "--port", str(port), "--no-browser"]
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()  # the address, printed once the app is built
        if "http://127.0.0.1" not in line:
            rest = process.stdout.read() if process.poll() is not None else ""
            raise RuntimeError(f"mlcost ui did not start: {line}{rest}")
        address = line.split("serving on ", 1)[1].split()[0]
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.05)
        yield address
    finally:
        process.terminate()
        process.wait(timeout=10)


@dataclass
class Page:
    """A browser on the page, with the few moves the tests make."""

    driver: Any

    def open(self, address: str) -> float:
        """Load ``address``; returns the seconds until the page's script has run."""
        start = time.perf_counter()
        self.driver.get(address)
        self.wait(lambda d: d.execute_script("return document.body.dataset.ready") == "1")
        return time.perf_counter() - start

    def wait(self, condition: Any, timeout: float = 30.0) -> Any:
        from selenium.webdriver.support.ui import WebDriverWait

        return WebDriverWait(self.driver, timeout, poll_frequency=0.005).until(condition)

    def rendered(self) -> int:
        return int(self.driver.execute_script("return document.body.dataset.rendered"))

    def change(self, name: str, value: str | int) -> float:
        """Set input ``name`` (a select, a number, or a power-of-two slider's value) as a user
        would and fire its event; returns the seconds until the new answer is on the page."""
        before = self.rendered()
        start = time.perf_counter()
        self.driver.execute_script(
            """
            const [name, value] = arguments;
            const slider = document.getElementById(name + "-pow");
            if (slider) {
              slider.value = String(Math.log2(Number(value)));
              slider.dispatchEvent(new Event("input", {bubbles: true}));
            } else {
              const field = document.querySelector(`[name="${name}"]:not([type=radio])`)
                || document.querySelector(`[name="${name}"][value="${value}"]`);
              if (field.type === "radio") field.checked = true; else field.value = String(value);
              field.dispatchEvent(new Event("change", {bubbles: true}));
            }
            """,
            name,
            str(value),
        )
        self.wait(lambda d: self.rendered() > before)
        return time.perf_counter() - start

    def attribute(self, test_id: str, name: str) -> str:
        from selenium.webdriver.common.by import By

        element = self.driver.find_element(By.CSS_SELECTOR, f'[data-testid="{test_id}"]')
        return str(element.get_attribute(name))

    def text(self, selector: str) -> str:
        from selenium.webdriver.common.by import By

        return str(self.driver.find_element(By.CSS_SELECTOR, selector).text)

    def console_errors(self) -> list[str]:
        """Console messages of level SEVERE since the last call."""
        return [e["message"] for e in self.driver.get_log("browser") if e["level"] == "SEVERE"]

    def screenshot(self, path: str | Path) -> None:
        self.driver.save_screenshot(str(path))


@contextmanager
def browser(width: int = 1280, height: int = 1000) -> Iterator[Page]:
    """Headless Chromium through Selenium, with the console log kept."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or CHROMIUM
    for argument in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        f"--window-size={width},{height}",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(executable_path=shutil.which("chromedriver") or CHROMEDRIVER)
    driver = webdriver.Chrome(options=options, service=service)
    try:
        yield Page(driver)
    finally:
        driver.quit()


__all__ = ["Page", "browser", "browser_available", "free_port", "running_ui"]
