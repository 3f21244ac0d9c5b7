"""Fixtures for the demo page test: one headless Debian chromium (never a downloaded browser) and\na tree-server (TREE_SERVER, see Tests/Python/conftest.py)."""
import os
import shutil

import pytest
from playwright.sync_api import sync_playwright


def chromium_path():
    path = os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        pytest.exit("no chromium: apt-get install chromium (scripts/browser-test.sh does)", returncode=2)
    return path


@pytest.fixture(scope="session")
def base_url(tree_server):
    """A tree-server with its default limits (started by Tests/Python/conftest.py)."""
    return tree_server().url


@pytest.fixture(scope="session")
def browser():
    args = ["--disable-gpu", "--disable-dev-shm-usage"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        args.append("--no-sandbox")  # chromium refuses to run its sandbox as root
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path(), headless=True, args=args)
        yield b
        b.close()


@pytest.fixture(scope="module")
def context(browser):
    ctx = browser.new_context(viewport={"width": 1200, "height": 760}, device_scale_factor=1,
                              color_scheme="light", locale="en-US")
    ctx.set_default_timeout(20000)
    errors = []
    ctx.errors = errors

    def watch(page):
        page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
        page.on("console", lambda m: errors.append(f"console.{m.type}: {m.text}") if m.type == "error" else None)
        page.on("response", lambda r: response(r))

    def response(r):
        if r.status == 409 and r.request.method == "GET" and "filter=" in r.url:
            # filter-superseded: a newer filter request cancelled this view's build (the page
            # asked for another view meanwhile, or retries); the browser logs it as an error.
            superseded.append(r.url)
        elif r.status >= 400:
            errors.append(f"HTTP {r.status}: {r.request.method} {r.url}")

    superseded = []
    ctx.superseded = superseded

    ctx.on("page", watch)
    yield ctx
    ctx.close()
