"""The web page in a real browser: Debian's Chromium driven by Playwright.

Plays a round by clicking (a multi-option capture chosen on the table, a refused
illegal click, the round's score sheet) and saves screenshots. ``make test-browser``
installs Chromium (apt) and runs only these; ``make test`` runs them when a browser is
present and says so when it skips them.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser
pytest.importorskip("fastapi")
playwright = pytest.importorskip("playwright.sync_api", reason="needs the browser extra")

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
if not os.path.exists(CHROMIUM):
    pytest.skip("no Chromium here (`make test-browser` installs Debian's chromium)",
                allow_module_level=True)

from tests.test_web import DECK  # noqa: E402

ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def server():
    import uvicorn

    from agents.apps.web.app import create_app

    srv = uvicorn.Server(uvicorn.Config(create_app(), host="127.0.0.1", port=0,
                                        log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    while not srv.started:
        time.sleep(0.01)
    yield f"http://127.0.0.1:{srv.servers[0].sockets[0].getsockname()[1]}"
    srv.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def page():
    with playwright.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        # bypass_csp: Playwright's wait_for_function evaluates strings, which the page's
        # Content-Security-Policy (no eval) forbids
        pg = browser.new_page(viewport={"width": 1100, "height": 1000}, bypass_csp=True)
        yield pg
        browser.close()


@pytest.fixture(scope="module")
def shots(tmp_path_factory) -> Path:
    where = os.environ.get("PASUR_SCREENSHOTS")
    path = Path(where) if where else tmp_path_factory.mktemp("screenshots")
    path.mkdir(parents=True, exist_ok=True)
    return path


def test_the_start_form_starts_a_game(server, page, shots) -> None:
    page.goto(server)
    page.select_option("#players", "3")
    assert page.locator(".opponent").count() == 2
    page.select_option("#players", "2")
    page.fill("#seed-input", "5")
    page.screenshot(path=str(shots / "start.png"), full_page=True)
    page.click("#start")
    page.wait_for_selector("#board svg")
    assert "Your turn" in page.inner_text("#status")
    assert page.locator("#board g.card.hand.legal").count() >= 1


def test_a_round_by_clicking(server, page, shots) -> None:
    import httpx

    gid = httpx.post(f"{server}/api/games", json={"opponents": ["greedy"], "deck": DECK,
                                                  "dealer": 1, "seed": 2}).json()["id"]
    page.goto(f"{server}/?game={gid}")
    page.wait_for_selector("#board svg")
    card = "#board g.card.hand[data-card='26']"  # 7H = 4 * 6 + 2
    page.click(card)
    assert page.is_visible("#capture") and page.locator("#capture-options .option").count() == 2
    page.click("#board g.card.table[data-card='32']")  # 9C: no option of 7H takes it
    assert "Refused" in page.inner_text("#message")
    page.click("#board g.card.table[data-card='5']")  # 2D
    page.click("#capture-take")  # 2D alone is not an option
    assert "is not one of" in page.inner_text("#message")
    page.click("#board g.card.table[data-card='7']")  # 2S: 2D + 2S is an option
    page.screenshot(path=str(shots / "capture.png"), full_page=True)
    page.click("#capture-take")
    page.wait_for_function("document.querySelectorAll('#log li').length >= 1")
    assert "You play 7♥ and take 2♦ 2♠" in page.inner_text("#log")
    for _ in range(60):  # the rest of the round: first legal card, first option
        if page.is_visible("#summary"):
            break
        page.wait_for_selector("#board g.card.hand.legal", timeout=10_000)
        page.locator("#board g.card.hand.legal").first.click()
        if page.is_visible("#capture"):
            page.locator("#capture-options .option").first.click()
        page.wait_for_timeout(50)
    assert page.is_visible("#summary")
    text = page.inner_text("#summary-table")
    assert "Round total" in text and "Club points" in text and "Sur points" in text
    page.screenshot(path=str(shots / "summary.png"), full_page=True)
    page.click("#summary-continue")
    page.wait_for_function("document.querySelector('#status').textContent.includes('round') "
                           "|| document.querySelector('#status').textContent.includes('turn')")
