"""The web page in a real browser: Debian's Chromium driven by Playwright.

Plays by clicking: a round with a multi-option capture chosen on the table, a refused
illegal click and the round's score sheet; a whole 2-player game to its winner; a
4-player round; a double click (one card played, never a second one on the next turn);
the paced animation of the agents' moves; the replay viewer's keys; the page at 390 px;
a 4-player table with the 2-player-only ``ppo``. Saves screenshots (``PASUR_SCREENSHOTS``
names the folder; ``docs/img`` holds the documented ones). ``make test-browser``
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


def ready(page) -> None:
    """Wait until no request is in flight and no animation runs (the page's input is on)."""
    page.wait_for_function("document.body.dataset.busy === '0'", timeout=20_000)


def open_game(page, server: str, gid: str, pace: str = "0") -> None:
    """Open a game on the page; ``pace`` is the animation's step in ms (0: none)."""
    page.goto(server)
    page.evaluate(f"localStorage.setItem('pace', '{pace}')")
    page.goto(f"{server}/?game={gid}")
    page.wait_for_selector("#board svg")
    ready(page)


def click_until(page, stop: str, limit: int = 400) -> int:
    """Click the first legal card (first option) until ``stop`` (a JS test) holds."""
    for n in range(limit):
        ready(page)
        if page.evaluate(stop):
            return n
        if page.is_visible("#summary"):
            page.click("#summary-continue")
            continue
        page.locator("#board g.card.hand.legal").first.click()
        if page.is_visible("#capture"):
            page.locator("#capture-options .option").first.click()
    raise AssertionError("the game did not get there by clicking")


def moves_of(server: str, gid: str, seat: int) -> int:
    import httpx

    log = httpx.get(f"{server}/api/games/{gid}").json()["log"]
    return sum(1 for e in log if e["kind"] == "move" and e["seat"] == seat)


def test_the_start_form_starts_a_game(server, page, shots) -> None:
    page.goto(server)
    page.evaluate("localStorage.setItem('pace', '0')")
    page.goto(server)
    page.wait_for_selector("#start:enabled", timeout=60_000)  # the form has what to offer
    assert page.locator("#game-choice option").count() == 2  # Pasur, Persian Rummy
    page.select_option("#players", "3")
    assert page.locator(".opponent").count() == 2
    page.select_option("#players", "4")
    assert "your partner" in page.inner_text("#opponents")
    offered = page.locator(".opponent").first.locator("option").all_inner_texts()
    assert "ppo" not in offered  # its shipped model plays 2-player tables only
    page.select_option("#players", "2")
    page.fill("#seed-input", "5")
    page.screenshot(path=str(shots / "start.png"), full_page=True)
    page.click("#start")
    page.wait_for_selector("#board svg")
    ready(page)
    assert "Your turn" in page.inner_text("#status")
    assert "side 0" not in page.inner_text("#game") and "you:" in page.inner_text("#scores")
    assert page.locator("#board g.card.hand.legal").count() >= 1


def test_a_round_by_clicking(server, page, shots) -> None:
    import httpx

    gid = httpx.post(f"{server}/api/games", json={"opponents": ["greedy"], "deck": DECK,
                                                  "dealer": 1, "seed": 2}).json()["id"]
    open_game(page, server, gid)
    page.click("#hint")  # the hint, on the board: the card and what it takes glow
    page.wait_for_selector("#board g.card.hand.hinted", timeout=60_000)
    assert "would play" in page.inner_text("#hint-text")
    ready(page)
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
    ready(page)
    assert "R1·1 You play 7♥ and take 2♦ 2♠" in page.inner_text("#log")
    assert page.locator("#board [data-played]").count() == 1  # the last move, on the table
    click_until(page, "document.querySelector('#summary').open")
    text = page.inner_text("#summary")
    assert "Round total" in text and "Club points" in text and "Sur points" in text
    assert "last capture" in text or "uncounted" in text or "table is empty" in page.content()
    assert "Round over" in page.inner_html("#board")  # the round's end, not the next deal
    page.screenshot(path=str(shots / "summary.png"), full_page=True)
    page.click("#summary-continue")
    ready(page)
    assert "Your turn" in page.inner_text("#status") or "to move" in page.inner_text("#status")


def test_a_whole_2_player_game_by_clicking(server, page, shots) -> None:
    import httpx

    gid = httpx.post(f"{server}/api/games", json={
        "opponents": ["greedy"], "seed": 11, "flags": {"target_score": 30}}).json()["id"]
    open_game(page, server, gid)
    click_until(page, "document.querySelectorAll('#log li.move').length >= 9")
    page.screenshot(path=str(shots / "web_2p.png"), full_page=True)
    click_until(page, "document.querySelector('#status').textContent.startsWith('Game over')")
    status = page.inner_text("#status")
    assert "win" in status or "tie" in status
    assert page.inner_text("#summary-title") == "Game over"  # the winner, announced
    winner = page.inner_text("#summary-winner")
    assert "win" in winner or "tie" in winner
    page.screenshot(path=str(shots / "game_over.png"), full_page=True)
    page.click("#summary-continue")
    assert page.is_visible("#download")
    labels = page.locator("#log li .label").all_inner_texts()
    assert labels[0] == "R1·1" and len(labels) == len(set(labels))  # never renumbered
    page.click("#replay-this")
    page.wait_for_selector("#replay-board svg")
    assert page.inner_text("#replay-step").startswith("0 /")
    page.keyboard.press("ArrowRight")
    page.wait_for_function("document.querySelector('#replay-step').textContent.startsWith('1 /')")
    assert page.inner_text("#replay-caption")
    page.keyboard.press("End")
    page.wait_for_function("(() => { const t = document.querySelector('#replay-step')"
                           ".textContent.split(' / '); return t[0] === t[1]; })()")
    page.keyboard.press("Home")
    page.wait_for_function("document.querySelector('#replay-step').textContent.startsWith('0 /')")
    boxes = page.locator("#replay-controls button svg").count()
    assert boxes == 4 and "⏮" not in page.inner_html("#replay-controls")


def test_a_4_player_round_by_clicking(server, page, shots) -> None:
    import httpx

    gid = httpx.post(f"{server}/api/games", json={
        "players": 4, "opponents": ["greedy", "heuristic", "random"], "seed": 4}).json()["id"]
    open_game(page, server, gid)
    svg = page.inner_html("#board")
    assert "partner" in svg and "opponent" in svg and "heuristic" in svg
    click_until(page, "document.querySelectorAll('#log li.move').length >= 8")
    page.screenshot(path=str(shots / "web_4p.png"), full_page=True)
    click_until(page, "document.querySelector('#summary').open")
    summary = page.inner_text("#summary")
    assert "your team" in summary and "their team" in summary
    assert moves_of(server, gid, 0) == 12  # a round: twelve cards each
    page.click("#summary-continue")
    ready(page)


def test_a_double_click_plays_one_card(server, page, shots) -> None:
    import httpx

    gid = httpx.post(f"{server}/api/games", json={"opponents": ["greedy"], "deck": DECK,
                                                  "dealer": 1, "seed": 2}).json()["id"]
    open_game(page, server, gid, pace="400")
    page.dblclick("#board g.card.hand[data-card='46']")  # QH: laid, one click plays it
    page.wait_for_selector("#banner:not(.idle)")  # the moves are paced...
    page.screenshot(path=str(shots / "web_paced.png"), full_page=True)
    ready(page)  # ...then input comes back
    assert moves_of(server, gid, 0) == 1
    # two clicks from a script, in one task: the second finds the page busy
    page.evaluate("""() => { const g = [...document.querySelectorAll('#board g.card.legal')]
        .find((x) => view.legal[code(Number(x.dataset.card))].length <= 1);
        g.dispatchEvent(new MouseEvent('click', {bubbles: true}));
        g.dispatchEvent(new MouseEvent('click', {bubbles: true})); }""")
    ready(page)
    assert moves_of(server, gid, 0) == 2
    assert "Your turn" in page.inner_text("#status")


def test_the_page_at_390_px(server, page, shots) -> None:
    import httpx

    gid = httpx.post(f"{server}/api/games", json={
        "players": 4, "opponents": ["greedy", "greedy", "greedy"], "seed": 9}).json()["id"]
    pg = page.context.browser.new_page(viewport={"width": 390, "height": 844},
                                       device_scale_factor=2, bypass_csp=True)
    open_game(pg, server, gid)
    width = pg.evaluate("document.querySelector('#board svg').getBoundingClientRect().width")
    assert 300 <= width <= 390  # the drawing fits the screen...
    assert pg.evaluate("document.documentElement.scrollWidth") <= 390  # ...without scrolling
    scale = width / 480  # the drawing's width: card ranks (15) stay above 10 px
    assert 15 * scale >= 10
    pg.screenshot(path=str(shots / "web_390px.png"), full_page=True)
    pg.close()


def test_ppo_at_a_4_player_table_is_refused_and_nothing_freezes(server, page) -> None:
    import httpx

    r = httpx.post(f"{server}/api/games", json={
        "players": 4, "opponents": ["ppo", "greedy", "greedy"], "seed": 1})
    if r.status_code == 201:  # accepted: the first failing agent's move is undone, said so
        gid = r.json()["id"]
        open_game(page, server, gid)
        if page.locator("#board g.card.hand.legal").count():
            page.locator("#board g.card.hand.legal").first.click()
            if page.is_visible("#capture"):
                page.locator("#capture-options .option").first.click()
            ready(page)
            assert "ppo" in page.inner_text("#message") and "undone" in page.inner_text("#message")
        view = httpx.get(f"{server}/api/games/{gid}").json()  # not frozen: still your turn
        assert view["to_move"] == view["seat"] and view["legal"]
    else:  # refused at the start, naming the agent
        assert r.status_code in (400, 422) and "ppo" in r.text
    gid = httpx.post(f"{server}/api/games", json={  # the server goes on
        "players": 4, "opponents": ["greedy", "greedy", "greedy"], "seed": 1}).json()["id"]
    open_game(page, server, gid)
    assert "Your turn" in page.inner_text("#status")
