"""Persian Rummy in a real browser: Debian's Chromium driven by Playwright.

The table is drawn by the server like Pasur's (an SVG); every test plays by clicking on
that drawing. A round by clicking only: a discard-pile draw (its card melded at once), a
meld built card by card, a lay-off on a meld, discards, to the round's score sheet; a
refused click says why. The deck is scripted (``pasur_env.rummy.decks.deck_for``) so
those moves are there to be made. Seedless games started from the page's form, 20 times
(each starts). The layout at 390 and 1280 px (the checks of ``tests/test_browser.py``).
``make test-browser`` runs these with the Pasur ones.
"""

from __future__ import annotations

import os
import time

import pytest

pytestmark = pytest.mark.browser
pytest.importorskip("fastapi")
pytest.importorskip("playwright.sync_api", reason="needs the browser extra")

from tests.test_browser import (  # noqa: E402, F401
    CHROMIUM,
    check_layout,
    covered_cards,
    page,
    save_small,
    server,
    shots,
)

if not os.path.exists(CHROMIUM):
    pytest.skip("no Chromium here (`make test-browser` installs Debian's chromium)",
                allow_module_level=True)

from pasur_env.rummy.decks import deck_for  # noqa: E402

#: seat 0 holds 5H 6H 8H: it takes the 7H turned up, melds 5H 6H 7H and lays 8H off
HANDS = [["5H", "6H", "8H", "2C", "4D", "9S", "KD"], ["AC", "3C", "5C", "7C", "9C", "JC", "KC"],
         ["AD", "3D", "5D", "7D", "9D", "JD", "QD"], ["AS", "3S", "5S", "7S", "JS", "QS", "KS"]]
DECK = deck_for(HANDS, up="7H", dealer=3)
HAND = "#r-board g.card.hand"


def _idle(page) -> None:  # noqa: F811 - the fixture's name
    """Wait until the page answers clicks again (no request or pacing in flight)."""
    page.wait_for_function("document.body.dataset.busy !== '1' && (!document.querySelector("
                           "'#r-hint').disabled || document.querySelector('#r-summary').open "
                           "|| !document.querySelector('#r-status').textContent.includes('Your'))",
                           timeout=60_000)


def _open(page, server: str, gid: str) -> None:  # noqa: F811
    page.goto(f"{server}/?game={gid}&pace=0")
    page.wait_for_selector(f"{HAND}")
    _idle(page)


def test_the_start_form_starts_a_rummy_game(server, page) -> None:  # noqa: F811
    page.goto(f"{server}/?pace=0")
    page.wait_for_selector("#start:enabled", timeout=60_000)  # the form has what to offer
    page.select_option("#game-choice", "persian_rummy")
    assert page.locator(".opponent").count() == 3
    assert "rollout" in page.inner_text("#opponents")
    page.fill("#seed-input", "3")
    page.click("#start")
    page.wait_for_selector(HAND)
    assert page.locator(HAND).count() >= 7
    svg = page.inner_html("#r-board")  # the seats, named with their agent and role
    assert svg.count(">opponent<") == 2 and svg.count(">partner<") == 1


def test_seedless_rummy_games_start_from_the_page(server, page) -> None:  # noqa: F811
    """The start form with the seed left empty, 20 times: every game starts (the
    server draws a 64-bit seed; Persian Rummy's table takes every one)."""
    failed: list[str] = []  # the page's alerts: "The game could not start: ..."

    def alert(dialog) -> None:
        failed.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", alert)
    started = 0
    try:
        for _ in range(20):
            page.goto(f"{server}/?pace=0")
            page.select_option("#game-choice", "persian_rummy")
            page.wait_for_selector("#start:enabled")
            assert page.input_value("#seed-input") == ""
            before = len(failed)
            page.click("#start")
            deadline = time.monotonic() + 60
            while not (page.locator("#r-board svg").count() or len(failed) > before):
                assert time.monotonic() < deadline, "the page neither started a game nor said why"
                page.wait_for_timeout(50)
            started += len(failed) == before
    finally:
        page.remove_listener("dialog", alert)
    assert started == 20, f"{20 - started} of 20 seedless games did not start: {failed[:2]}"


def test_a_rummy_round_by_clicking(server, page, shots) -> None:  # noqa: F811
    import httpx

    gid = httpx.post(f"{server}/api/games", json={
        "game": "persian_rummy", "opponents": ["greedy"] * 3, "deck": DECK, "dealer": 3,
        "seed": 1, "flags": {"deals": 1}}).json()["id"]
    _open(page, server, gid)
    page.click("#r-hint")  # the hint is drawn on the board
    page.wait_for_selector("#r-board .hinted", timeout=120_000)
    assert "would play" in page.inner_text("#r-hint-text")
    _idle(page)
    page.click(f"{HAND}[data-card='2C']")  # not drawn yet
    assert "Draw first" in page.inner_text("#r-message")
    page.click("#r-board g.card.pile[data-card='7H']")  # the discard-pile draw
    page.wait_for_selector("#r-obligation:not([hidden])")
    assert "You must meld 7♥" in page.inner_text("#r-obligation")
    _idle(page)
    page.click(f"{HAND}[data-card='5H']")
    page.click("#r-pick")
    page.wait_for_function("document.querySelector('#r-obligation').textContent.includes('Picked')")
    for card in ("6H", "7H"):  # building: a click picks
        _idle(page)
        page.click(f"{HAND}[data-card='{card}']")
        page.wait_for_function(f"document.querySelector('#r-obligation').textContent"
                               f".includes('{card[0]}♥')")
    _idle(page)
    page.click("#r-meld")
    page.wait_for_selector("#r-board g.meld[data-meld='0']")
    assert "Your team's melds" in page.inner_html("#r-board")
    _idle(page)
    page.click(f"{HAND}[data-card='8H']")
    assert page.locator("#r-board g.meld.can-lay").count() == 1
    page.click("#r-board g.meld[data-meld='0']")  # the lay-off
    page.wait_for_function("document.querySelectorAll('#r-board g.meld[data-meld=\"0\"] "
                           "g.card').length === 4")
    _idle(page)
    page.click(f"{HAND}[data-card='KD']")
    page.click("#r-discard")
    page.wait_for_function("document.querySelector('#r-log').textContent.includes('You discard')")
    log = page.inner_text("#r-log")
    for line in ("You take 7♥ from the pile", "You meld 5♥ 6♥ 7♥", "You lay off 8♥ on meld 1",
                 "You discard K♦"):
        assert line in log
    _idle(page)
    page.screenshot(path=str(shots / "rummy_turn.png"), full_page=True)
    _play_to_the_round_end(page)
    text = page.inner_text("#r-summary-table")
    assert "Cards melded" in text and "Round total" in text and "Left in hand" in text
    assert page.inner_text("#r-winner").strip()  # one deal: the game is over, a winner named
    assert "Round over" in page.inner_html("#r-board")  # the round's last position
    assert not covered_cards(page, "#r-summary")
    page.click("#r-summary-continue")
    page.click("#r-replay")  # the record, checked by replaying it, in the replay viewer
    page.wait_for_selector("#replay-board svg")
    assert "0 / " in page.inner_text("#replay-step")


def _play_to_the_round_end(page, turns: int = 200, must_end: bool = True) -> int:  # noqa: F811
    """Click the stock (or pass), then a hand card and Discard, on the drawn table, until
    the round's summary opens (or ``turns`` turns are played, unless ``must_end``)."""
    for turn in range(turns):
        _idle(page)
        if page.evaluate("document.querySelector('#r-summary').open"):
            return turn
        if not page.is_enabled("#r-hint"):
            continue
        if page.evaluate("document.querySelector('#r-status').textContent.includes('draw')"):
            if page.is_visible("#r-pass") and page.is_enabled("#r-pass"):
                page.click("#r-pass")
            else:
                page.click("#r-board g.stock")
            continue
        for k in range(page.locator(HAND).count()):
            page.locator(HAND).nth(k).click()
            if page.is_enabled("#r-discard"):
                page.click("#r-discard")
                break
        else:
            raise AssertionError("no discard offered: " + page.inner_text("#r-status"))
    if must_end:
        raise AssertionError(f"the round did not end in {turns} turns")
    _idle(page)
    return turns


@pytest.mark.parametrize("width", [390, 1280])
def test_the_rummy_layout_at_a_phone_and_a_desktop_width(server, page, shots,  # noqa: F811
                                                          width) -> None:
    """At 390 px no text under 11 px and nothing to scroll sideways, at 1280 px the
    board uses the width; no empty band above the board, log lines beside their
    labels, the round's summary over no card."""
    import httpx

    gid = httpx.post(f"{server}/api/games", json={
        "game": "persian_rummy", "opponents": ["greedy"] * 3, "seed": 5,
        "flags": {"deals": 1}}).json()["id"]
    pg = page.context.browser.new_page(viewport={"width": width, "height": 844 if width < 400
                                                 else 800}, bypass_csp=True)
    try:
        _open(pg, server, gid)
        _play_to_the_round_end(pg, turns=5, must_end=False)
        check_layout(pg, "#r-log", width, fits=False)
        save_small(pg, shots / f"web_rummy_{width}.png")
        _play_to_the_round_end(pg)
        assert not covered_cards(pg, "#r-summary")
        check_layout(pg, "#r-log", width, fits=False)
        pg.screenshot(path=str(shots / f"rummy_round_end_{width}.png"), full_page=True)
    finally:
        pg.close()


def test_a_double_click_draws_once(server, page) -> None:  # noqa: F811
    import httpx

    gid = httpx.post(f"{server}/api/games", json={
        "game": "persian_rummy", "deck": DECK, "seed": 1, "opponents": ["random"]}).json()["id"]
    _open(page, server, gid)
    page.dblclick("#r-board g.stock")  # the second click lands while the first is in flight
    page.wait_for_function("document.querySelector('#r-log').textContent.includes('You draw')")
    _idle(page)
    log = httpx.get(f"{server}/api/games/{gid}").json()["log"]
    assert [e["what"] for e in log if e["seat"] == 0] == ["draw"]
    assert page.locator(HAND).count() == 8
