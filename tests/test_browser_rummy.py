"""Persian Rummy in a real browser: Debian's Chromium driven by Playwright.

A round played by clicking only: a discard-pile draw (its card melded at once), a meld
built card by card, a lay-off on a meld, discards, the round's score sheet; a refused
click says why. The deck is scripted (``pasur_env.rummy.decks.deck_for``) so those
moves are there to be made. ``make test-browser`` runs these with the Pasur ones.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser
pytest.importorskip("fastapi")
pytest.importorskip("playwright.sync_api", reason="needs the browser extra")

from tests.test_browser import CHROMIUM, page, server, shots  # noqa: E402, F401

if not os.path.exists(CHROMIUM):
    pytest.skip("no Chromium here (`make test-browser` installs Debian's chromium)",
                allow_module_level=True)

from pasur_env.rummy.decks import deck_for  # noqa: E402

#: seat 0 holds 5H 6H 8H: it takes the 7H turned up, melds 5H 6H 7H and lays 8H off
HANDS = [["5H", "6H", "8H", "2C", "4D", "9S", "KD"], ["AC", "3C", "5C", "7C", "9C", "JC", "KC"],
         ["AD", "3D", "5D", "7D", "9D", "JD", "QD"], ["AS", "3S", "5S", "7S", "JS", "QS", "KS"]]
DECK = deck_for(HANDS, up="7H", dealer=3)
ROOT = Path(__file__).resolve().parents[1]


def _idle(page) -> None:  # noqa: F811 - the fixture's name
    """Wait until the page answers clicks again (no request or pacing in flight)."""
    page.wait_for_function("!document.querySelector('#r-hint').disabled "
                           "|| document.querySelector('#r-summary').open "
                           "|| !document.querySelector('#r-status').textContent.includes('Your')",
                           timeout=30_000)


def test_the_start_form_starts_a_rummy_game(server, page) -> None:  # noqa: F811
    page.goto(f"{server}/?pace=0")
    page.select_option("#game-choice", "persian_rummy")
    assert page.locator(".opponent").count() == 3
    assert "rollout" in page.inner_text("#opponents")
    page.fill("#seed-input", "3")
    page.click("#start")
    page.wait_for_selector("#rummy-table .rcard.hand")
    assert page.locator("#rummy-table .rcard.hand").count() >= 7


def test_a_rummy_round_by_clicking(server, page, shots) -> None:  # noqa: F811
    import httpx

    gid = httpx.post(f"{server}/api/games", json={
        "game": "persian_rummy", "opponents": ["greedy"] * 3, "deck": DECK, "dealer": 3,
        "seed": 1, "flags": {"deals": 1}}).json()["id"]
    page.goto(f"{server}/?game={gid}&pace=0")
    page.wait_for_selector("#r-hand .rcard")
    page.click("#r-hint")  # the hint is drawn on the board
    page.wait_for_selector("#rummy-table .hinted")
    assert "would play" in page.inner_text("#r-hint-text")
    page.click("#r-hand .rcard[data-card='2C']")  # not drawn yet
    assert "Draw first" in page.inner_text("#r-message")
    page.click("#r-pile .rcard[data-card='7H']")  # the discard-pile draw
    page.wait_for_selector("#r-obligation:not([hidden])")
    assert "You must meld 7♥" in page.inner_text("#r-obligation")
    page.click("#r-hand .rcard[data-card='5H']")
    page.click("#r-pick")
    page.wait_for_function("document.querySelector('#r-obligation').textContent.includes('Picked')")
    for card in ("6H", "7H"):  # building: a click picks
        page.click(f"#r-hand .rcard[data-card='{card}']")
        page.wait_for_function(f"document.querySelector('#r-obligation').textContent"
                               f".includes('{card[0]}♥')")
    page.click("#r-meld")
    page.wait_for_selector("#r-melds-mine .r-meld[data-meld='0']")
    page.click("#r-hand .rcard[data-card='8H']")
    assert page.locator("#r-melds-mine .r-meld.can-lay").count() == 1
    page.click("#r-melds-mine .r-meld[data-meld='0']")  # the lay-off
    page.wait_for_function("document.querySelectorAll('#r-melds-mine .r-meld[data-meld=\"0\"] "
                           ".rcard').length === 4")
    page.click("#r-hand .rcard[data-card='KD']")
    page.click("#r-discard")
    page.wait_for_function("document.querySelector('#r-log').textContent.includes('You discard')")
    log = page.inner_text("#r-log")
    for line in ("You take 7♥ from the pile", "You meld 5♥ 6♥ 7♥", "You lay off 8♥ on meld 1",
                 "You discard K♦"):
        assert line in log
    _idle(page)
    page.screenshot(path=str(shots / "web_rummy.png"), full_page=True)
    if os.environ.get("PASUR_SCREENSHOTS"):
        page.screenshot(path=str(ROOT / "docs" / "img" / "web_rummy.png"), full_page=True)
    _play_to_the_round_end(page)
    text = page.inner_text("#r-summary-table")
    assert "Cards melded" in text and "Round total" in text and "Left in hand" in text
    assert page.inner_text("#r-winner").strip()  # one deal: the game is over, a winner named
    page.click("#r-summary-continue")
    page.click("#r-replay")  # the record, checked by replaying it, in the replay viewer
    page.wait_for_selector("#replay-board svg")
    assert "0 / " in page.inner_text("#replay-step")


def test_the_rummy_table_at_390_px(server, page, shots) -> None:  # noqa: F811
    import httpx

    gid = httpx.post(f"{server}/api/games", json={
        "game": "persian_rummy", "deck": DECK, "seed": 1}).json()["id"]
    page.set_viewport_size({"width": 390, "height": 844})
    try:
        page.goto(f"{server}/?game={gid}&pace=0")
        page.wait_for_selector("#r-hand .rcard")
        box = page.locator("#r-hand .rcard").first.bounding_box()
        assert box is not None and box["width"] >= 30  # a card stays readable
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 400, width  # no sideways scrolling
        page.screenshot(path=str(shots / "web_rummy_390.png"), full_page=True)
    finally:
        page.set_viewport_size({"width": 1100, "height": 1000})


def _play_to_the_round_end(page) -> None:  # noqa: F811
    """Draw from the stock (or pass), then discard the first card the page allows."""
    for _ in range(200):
        _idle(page)
        if page.evaluate("document.querySelector('#r-summary').open"):
            return
        if not page.is_enabled("#r-hint"):
            continue
        if page.is_enabled("#r-stock"):
            page.click("#r-stock")
            continue
        if page.is_visible("#r-pass") and page.is_enabled("#r-pass"):
            page.click("#r-pass")
            continue
        for card in page.locator("#r-hand .rcard").all():
            card.click()
            if page.is_enabled("#r-discard"):
                page.click("#r-discard")
                break
        else:
            raise AssertionError("no discard offered: " + page.inner_text("#r-status"))
    raise AssertionError("the round did not end in 200 turns")


def test_a_double_click_draws_once(server, page) -> None:  # noqa: F811
    import httpx

    gid = httpx.post(f"{server}/api/games", json={
        "game": "persian_rummy", "deck": DECK, "seed": 1, "opponents": ["random"]}).json()["id"]
    page.goto(f"{server}/?game={gid}&pace=0")
    page.wait_for_selector("#r-hand .rcard")
    page.dblclick("#r-stock")  # the second click lands while the first is in flight
    page.wait_for_function("document.querySelector('#r-log').textContent.includes('You draw')")
    _idle(page)
    log = httpx.get(f"{server}/api/games/{gid}").json()["log"]
    assert [e["what"] for e in log if e["seat"] == 0] == ["draw"]
    assert page.locator("#r-hand .rcard").count() == 8
