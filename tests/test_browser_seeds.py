"""Seeds from the page's start form, in a real browser (Debian's Chromium, Playwright).

The form sends the seed as its decimal digits, so every digit reaches the server (a
JavaScript number would turn 2**53 + 1 into 2**53, and 2**64 - 1 into 2**64). Only the
request and its answer are checked, not the table's drawing; seedless Persian Rummy
games started from the page are in tests/test_browser_rummy.py.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest

pytestmark = pytest.mark.browser

# skips this module where tests/test_browser.py is skipped (no Chromium, no Playwright)
from tests.test_browser import page, server  # noqa: E402, F401


def start_from_the_form(page, server: str, game: str, seed: str = "") -> dict:  # noqa: F811
    """Fill the start form (``game``, ``seed``) and start: the request's body, checked to
    have been answered 201 without an alert."""
    alerts: list[str] = []
    page.once("dialog", lambda d: (alerts.append(d.message), d.dismiss()))
    page.goto(f"{server}/?pace=0")
    page.wait_for_selector("#start:enabled", timeout=60_000)
    page.select_option("#game-choice", game)
    page.fill("#seed-input", seed)
    with page.expect_response(lambda r: urlsplit(r.url).path == "/api/games"
                              and r.request.method == "POST") as answer:
        page.click("#start")
    response = answer.value
    assert response.status == 201 and not alerts, (response.status, response.text(), alerts)
    return response.request.post_data_json


@pytest.mark.parametrize("game", ["pasur", "persian_rummy"])
@pytest.mark.parametrize("seed", ["9007199254740993", "18446744073709551615"])
def test_the_form_sends_every_digit_of_a_seed(server, page, game, seed) -> None:  # noqa: F811
    assert start_from_the_form(page, server, game, seed)["seed"] == seed
