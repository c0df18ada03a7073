"""A real browser for the tests of the HTML report: Debian's Chromium, and its
WebDriver (``chromium-driver``) where a test clicks and presses keys.

Without one the tests skip, saying what to install; with
``KEILREF_REQUIRE_BROWSER`` set (as .ci/run sets it, having installed both)
a missing one is a failure. Nothing is downloaded: Selenium is handed the
driver's path, so its own driver manager never runs.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, NoReturn

import pytest

if TYPE_CHECKING:
    from selenium.webdriver.remote.webdriver import WebDriver

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
DRIVERS = ("chromedriver", "chromium-driver")


def _missing(what: str, install: str) -> NoReturn:
    if os.environ.get("KEILREF_REQUIRE_BROWSER"):
        pytest.fail(f"{what}, and KEILREF_REQUIRE_BROWSER is set")
    pytest.skip(f"{what} ({install})")


def _first_on_path(names: tuple[str, ...], what: str, install: str) -> str:
    """The first of ``names`` on the PATH; without one, skip (or fail) saying what to install."""
    for name in names:
        path = shutil.which(name)
        if path is not None:
            return path
    _missing(f"no {what} found ({', '.join(names)})", install)


def find_browser() -> str:
    return _first_on_path(BROWSERS, "browser", "apt-get install chromium")


def _find_driver() -> str:
    return _first_on_path(DRIVERS, "WebDriver for Chromium", "apt-get install chromium-driver")


def open_browser(*, javascript: bool = True) -> WebDriver:
    """A headless Chromium driven through WebDriver; the caller quits it."""
    browser = find_browser()
    driver = _find_driver()
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        _missing("Selenium is not installed", "pip install -e '.[test]'")
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--window-size=1000,1400",
    ):
        options.add_argument(flag)
    if not javascript:
        options.add_experimental_option("prefs", {"profile.managed_default_content_settings.javascript": 2})
    return webdriver.Chrome(service=Service(executable_path=driver), options=options)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One browser for a test module: starting Chromium is most of a test's time."""
    driver = open_browser()
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def page(browser: Any, report: Any) -> Iterator[Any]:
    """The module's ``report`` opened afresh (a change of its address's hash alone
    would keep the last state)."""
    browser.get("about:blank")
    browser.get(report.as_uri())
    yield browser
