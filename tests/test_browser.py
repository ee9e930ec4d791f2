"""The web page in a real browser: Debian's Chromium driven by Playwright.

Plays by clicking: a round with a multi-option capture chosen on the table, a refused
illegal click and the round's score sheet; a whole 2-player game to its winner; a
4-player round; a double click (one card played, never a second one on the next turn);
the paced animation of the agents' moves; the replay viewer's keys; a 4-player table
with the 2-player-only ``ppo``. The layout, measured in the page: at 390 px no text is
rendered under 11 px and nothing scrolls sideways; at 1280 px the board uses the width;
no empty band above the board; the round's summary covers no card; a wrapped log line
never runs under its label (the helpers below serve Persian Rummy's tests too). Saves
screenshots (``PASUR_SCREENSHOTS`` names the folder; ``PASUR_SCREENSHOTS=docs/img``
remakes the documented ones, small palette PNGs). ``make test-browser`` installs
Chromium (apt) and runs only these; ``make test`` runs them when a browser is present
and says so when it skips them.
"""

from __future__ import annotations

import io
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

from pasur_env.core.drawing import LAYOUTS  # noqa: E402
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


#: the smallest text the page may render on a phone, in CSS pixels
MIN_PX = 11

# Every visible element with text of its own, and its rendered font size: CSS's for
# HTML, the drawing's font size times its on-screen scale for the board's SVG text.
_SMALL_TEXT = """(min) => {
  const out = [];
  for (const e of document.querySelectorAll('body *')) {
    if (!e.getClientRects().length || !e.checkVisibility()) continue;
    if (![...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
    let px = parseFloat(getComputedStyle(e).fontSize);
    if (e instanceof SVGTextElement) {
      const m = e.getScreenCTM();
      px = Number(e.getAttribute('font-size')) * Math.hypot(m.a, m.b);
    }
    if (px < min - 0.01) out.push(`${e.textContent.trim().slice(0, 40)}: ${px.toFixed(1)} px`);
  }
  return out;
}"""

# The visible board's box, and the bottom of the text above it in its section.
_BOARD = """() => {
  const seen = {visibilityProperty: true, opacityProperty: true};
  const svg = [...document.querySelectorAll('#board svg, #r-board svg')]
    .find((x) => x.checkVisibility(seen));
  if (!svg) return null;
  const b = svg.getBoundingClientRect();
  const section = svg.closest('section');
  const above = [...section.querySelectorAll('*')].filter((e) => e.checkVisibility(seen)
    && [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())
    && e.getBoundingClientRect().bottom <= b.top + 1);
  const bottom = Math.max(section.getBoundingClientRect().top,
    ...above.map((e) => e.getBoundingClientRect().bottom));
  return {left: b.left, top: b.top, width: b.width, height: b.height, above: bottom,
          units: svg.viewBox.baseVal.width};
}"""

# The cards of the board that a box (the round's summary) covers.
_COVERED = """(sel) => {
  const d = document.querySelector(sel).getBoundingClientRect();
  const svg = [...document.querySelectorAll('#board svg, #r-board svg')]
    .find((x) => x.checkVisibility());
  return [...svg.querySelectorAll('g.card, g.past, g.played, g.taken, g.back, g.meld')]
    .map((g) => g.getBoundingClientRect())
    .filter((r) => r.left < d.right && d.left < r.right && r.top < d.bottom && d.top < r.bottom)
    .map((r) => `${r.left},${r.top}`);
}"""

# Log lines whose text runs under their label (a wrapped line starting left of it).
_UNDER_LABEL = """(sel) => [...document.querySelectorAll(`${sel} li`)].filter((li) => {
  const label = li.querySelector('.label');
  const text = document.createRange();
  text.setStartAfter(label);
  text.setEnd(li, li.childNodes.length);
  const right = label.getBoundingClientRect().right;
  return [...text.getClientRects()].some((r) => r.width > 0 && r.left < right - 0.5);
}).map((li) => li.textContent)"""


def small_text(page) -> list[str]:
    """The visible texts rendered under MIN_PX pixels (HTML and the board's SVG)."""
    return page.evaluate(_SMALL_TEXT, MIN_PX)


def board_box(page) -> dict:
    """The visible board's box and the bottom of the lines above it (CSS pixels)."""
    box = page.evaluate(_BOARD)
    assert box is not None, "no board in view"
    return box


def covered_cards(page, dialog: str) -> list[str]:
    """The board's cards that the element ``dialog`` covers."""
    return page.evaluate(_COVERED, dialog)


def lines_under_labels(page, log: str) -> list[str]:
    """The lines of the log ``log`` that wrap under their label."""
    return page.evaluate(_UNDER_LABEL, log)


def check_layout(page, log: str, width: int, fits: bool = True) -> None:
    """At a phone's width: no small text, nothing to scroll sideways; at a desktop's: the
    board uses the width (and, with ``fits``, fits the screen's height); always: no empty
    band above the board, log lines beside their labels."""
    box = board_box(page)
    assert box["top"] - box["above"] <= 16, f"an empty band of {box['top'] - box['above']} px"
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert not lines_under_labels(page, log)
    if width <= 400:
        assert not small_text(page), small_text(page)
    else:
        assert box["width"] >= 0.6 * width, box  # the board, not a column in the middle
        assert box["units"] == LAYOUTS["wide"], box  # drawn for the width, not scaled up
        assert not fits or box["height"] <= page.viewport_size["height"], box


def save_small(page, path: Path) -> None:
    """A screenshot of the page as a small palette PNG (the documented ones stay small)."""
    from PIL import Image

    img = Image.open(io.BytesIO(page.screenshot(full_page=True))).convert("RGB")
    img.quantize(colors=128, method=Image.Quantize.MEDIANCUT).save(path, optimize=True)


def ready(page) -> None:
    """Wait until no request is in flight and no animation runs (the page's input is on)."""
    page.wait_for_function("document.body.dataset.busy === '0'", timeout=60_000)


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
    page.wait_for_selector("#board g.card.hand.hinted", timeout=120_000)
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
    first = page.locator("#log li.move").first  # its label and its words, in two columns
    assert first.locator(".label").inner_text() == "R1·1"
    assert first.locator(".text").inner_text() == "You play 7♥ and take 2♦ 2♠"
    assert page.locator("#board [data-played]").count() == 1  # the last move, on the table
    click_until(page, "document.querySelector('#summary').open")
    text = page.inner_text("#summary")
    assert "Round total" in text and "Club points" in text and "Sur points" in text
    assert "last capture" in text or "uncounted" in text or "table is empty" in page.content()
    assert "Round over" in page.inner_html("#board")  # the round's end, not the next deal
    assert not covered_cards(page, "#summary")  # beside the board, not over the cards left
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
    page.screenshot(path=str(shots / "game_2p.png"), full_page=True)
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
    page.screenshot(path=str(shots / "game_4p.png"), full_page=True)
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
    open_game(page, server, gid, pace="800")
    # the paced banner is shown for a second or two: a loaded runner may poll past it, so
    # an observer set up before the click records that it was shown at all
    page.evaluate("""() => { window.bannerShown = false;
        const b = document.querySelector('#banner');
        new MutationObserver(() => {
            if (!b.classList.contains('idle')) window.bannerShown = true; })
        .observe(b, {attributes: true}); }""")
    page.dblclick("#board g.card.hand[data-card='46']")  # QH: laid, one click plays it
    page.wait_for_function("window.bannerShown")  # the moves are paced...
    if page.is_visible("#banner:not(.idle)"):
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


@pytest.mark.parametrize("width", [390, 1280])
def test_the_layout_at_a_phone_and_a_desktop_width(server, page, shots, width) -> None:
    """At 390 px no text under 11 px, at 1280 px the board uses the width (drawn wide,
    the log beside it); no empty band above the board, log lines beside their labels,
    the round's summary over no card."""
    import httpx

    gid = httpx.post(f"{server}/api/games", json={
        "players": 4, "opponents": ["greedy", "heuristic", "random"], "seed": 9}).json()["id"]
    pg = page.context.browser.new_page(viewport={"width": width, "height": 844 if width < 400
                                                 else 800}, bypass_csp=True)
    try:
        open_game(pg, server, gid)
        click_until(pg, "document.querySelectorAll('#log li.move').length >= 10")
        check_layout(pg, "#log", width)
        save_small(pg, shots / f"web_pasur_{width}.png")
        click_until(pg, "document.querySelector('#summary').open")
        assert not covered_cards(pg, "#summary")
        check_layout(pg, "#log", width)
        if width > 400:
            save_small(pg, shots / "web_round_end.png")
    finally:
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
