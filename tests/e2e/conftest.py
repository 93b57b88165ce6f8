"""End-to-end fixtures: a real ``liars-dice serve`` on loopback and Debian's chromium.

The server runs as a subprocess on a port the OS picks (``--port 0``; the URL is
read from the line it prints), with a fresh SQLite file and fast bots. The
browser is ``/usr/bin/chromium`` driven by Playwright (never a downloaded
browser). Every test here is marked ``browser`` and is skipped, with the
reason, when chromium or Playwright is missing.

Set ``LIARS_DICE_E2E_SHOTS=DIR`` to save screenshots of the pages the tests visit.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = Path(os.environ.get("LIARS_DICE_CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]

sys.path.insert(0, str(Path(__file__).parent))

from e2e_ui import DESKTOP, PHONE  # noqa: E402


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test of this folder ``browser``; skip them all, saying why, without chromium or Playwright."""
    here = Path(__file__).parent
    reason = None
    if not CHROMIUM.exists():
        reason = f"{CHROMIUM} is absent: install Debian's chromium (apt-get install chromium) to run the browser tests"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            reason = "the playwright package is missing: pip install -e '.[test]'"
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.browser)
            if reason:
                item.add_marker(pytest.mark.skip(reason=reason))


class Server:
    """A running ``liars-dice serve`` subprocess."""

    def __init__(self, proc: subprocess.Popen[str], url: str, db: Path) -> None:
        self.proc = proc
        self.url = url.rstrip("/")
        self.db = db
        self.output: list[str] = []

    def api(self, path: str, body: dict | None = None) -> dict:
        """One HTTP request to the server's API (GET, or POST with ``body``)."""
        import httpx

        if body is None:
            r = httpx.get(self.url + path, timeout=10)
        else:
            r = httpx.post(self.url + path, json=body, timeout=10)
        r.raise_for_status()
        return r.json()


def cli_path() -> str:
    """The installed ``liars-dice`` console script (next to this Python)."""
    exe = Path(sys.executable).parent / "liars-dice"
    return str(exe) if exe.exists() else "liars-dice"


def start_server(db: Path, bot_delay: float = 0.05, port: int = 0, reveal_seconds: float = 0.0,
                 db_url: str | None = None, scripted_seed: int | None = None) -> Server:
    """Start ``liars-dice serve`` on ``port`` (0: the OS picks one) and wait for its URL.
    ``reveal_seconds``: how long a reveal holds the next turn (none by default, for speed).
    ``db_url``: another database than the SQLite file ``db`` (a PostgreSQL URL).
    ``scripted_seed``: serve with the tests' dice (``scripted_serve.py``): the seat
    before the host's opens each table's first game, and the round seeds come
    from this seed."""
    command = ([sys.executable, str(Path(__file__).with_name("scripted_serve.py")), str(scripted_seed)]
               if scripted_seed is not None else [cli_path()])
    proc = subprocess.Popen(
        [*command, "serve", "--host", "127.0.0.1", "--port", str(port), "--db", db_url or f"sqlite:///{db}",
         "--bot-delay", str(bot_delay), "--reveal-seconds", str(reveal_seconds), "--log-level", "warning",
         # Every test here creates its tables from one address.
         "--limit", "create_rate=600/minute", "--limit", "open_tables_per_address=100"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1,
    )
    assert proc.stdout is not None
    deadline = time.monotonic() + 60
    lines: list[str] = []
    url = None
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        m = re.search(r"open (http://\S+?)/?\s", line)
        if m:
            url = m.group(1)
            break
    if url is None:
        proc.kill()
        pytest.fail("liars-dice serve did not print its URL:\n" + "".join(lines))
    server = Server(proc, url, db)
    server.output = lines

    def drain() -> None:  # keep the pipe from filling up; keep the output for failures
        for line in proc.stdout:  # type: ignore[union-attr]
            server.output.append(line)

    threading.Thread(target=drain, daemon=True).start()
    return server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A real server on a free loopback port with a temporary SQLite database."""
    db = tmp_path_factory.mktemp("e2e") / "liars-dice.db"
    srv = start_server(db)
    yield srv
    srv.proc.terminate()
    try:
        srv.proc.wait(timeout=10)
    except subprocess.TimeoutExpired:  # pragma: no cover
        srv.proc.kill()


@pytest.fixture(scope="module")
def scripted_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """:func:`server` with the tests' dice (:func:`start_server`'s ``scripted_seed``):
    the host's first turn faces a bid by construction, never by retrying."""
    db = tmp_path_factory.mktemp("e2e") / "liars-dice.db"
    srv = start_server(db, scripted_seed=36)
    yield srv
    srv.proc.terminate()
    try:
        srv.proc.wait(timeout=10)
    except subprocess.TimeoutExpired:  # pragma: no cover
        srv.proc.kill()


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def new_page(browser):  # type: ignore[no-untyped-def]
    """Open a page in a fresh browser context (its own localStorage): ``new_page(phone=False)``.

    JavaScript errors and Content-Security-Policy violations on any page fail the test.
    """
    contexts = []
    errors: list[str] = []

    def make(phone: bool = False):  # type: ignore[no-untyped-def]
        ctx = browser.new_context(**(PHONE if phone else DESKTOP))
        ctx.set_default_timeout(20_000)
        contexts.append(ctx)
        page = ctx.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        # The server's Content-Security-Policy blocks nothing the page needs.
        page.on("console", lambda m: errors.append(m.text) if "Content Security Policy" in m.text else None)
        return page

    yield make
    for ctx in contexts:
        ctx.close()
    assert not errors, f"JavaScript errors in the page: {errors}"
