"""A user's own agent at the web table, in a real browser (Debian's Chromium, Playwright).

As a user does it: from a temporary folder outside the repository holding a copy of
``examples/my_agent.py``, ``pasur serve --agent ./my_agent.py:MostCards`` (the console
script, a subprocess); the start form offers ``MostCards`` in the opponent menu, a game
against it starts from the form and is played by clicking until the agent has moved (its
move in the page's log), with no page error and no refusal. ``make test-browser`` runs it
with the other browser tests (``tests/test_browser.py``'s page fixture and helpers).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator

import pytest

pytestmark = pytest.mark.browser
pytest.importorskip("fastapi")
pytest.importorskip("playwright.sync_api", reason="needs the browser extra")

from tests.test_browser import CHROMIUM, click_until, page, ready  # noqa: E402, F401

if not os.path.exists(CHROMIUM):
    pytest.skip("no Chromium here (`make test-browser` installs Debian's chromium)",
                allow_module_level=True)

from tests.test_examples import EXAMPLES, ROOT, _smoke  # noqa: E402

#: the name the table offers ``./my_agent.py:MostCards`` under (its class)
NAME = "MostCards"


@pytest.fixture(scope="module")
def user_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``pasur serve --agent ./my_agent.py:MostCards`` started in a folder outside the
    repository (a copy of the example there); its URL once it answers."""
    folder = tmp_path_factory.mktemp("user")
    assert ROOT not in folder.parents
    shutil.copy(EXAMPLES / "my_agent.py", folder / "my_agent.py")
    with _smoke().pasur_serving(["--agent", f"./my_agent.py:{NAME}"], cwd=folder,
                                timeout=180) as url:
        yield url.rstrip("/")


def test_serve_agent_plays_at_the_table_in_the_browser(user_server, page) -> None:  # noqa: F811
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(user_server)
    page.evaluate("localStorage.setItem('pace', '0')")
    page.goto(user_server)
    page.wait_for_selector("#start:enabled", timeout=60_000)
    page.select_option("#players", "2")
    menu = page.locator(".opponent").first
    assert NAME in menu.locator("option").all_inner_texts()  # offered in the opponent menu
    menu.select_option(NAME)
    page.fill("#seed-input", "3")
    page.click("#start")
    page.wait_for_selector("#board svg")
    ready(page)
    assert NAME in page.inner_html("#board")  # the opponent's seat names the agent
    # play by clicking until a move in the log is not the person's: the agent's
    moved = ("[...document.querySelectorAll('#log li.move .text')]"
             ".some((t) => !t.textContent.startsWith('You '))")
    click_until(page, moved)
    log = page.locator("#log li.move .text").all_inner_texts()
    assert any(t.startswith("You play") for t in log), log  # a move of the person's...
    assert any(t.startswith(f"{NAME} (opponent) plays") for t in log), log  # ...and the agent's
    assert "Refused" not in page.inner_text("#message")
    assert "fail" not in page.inner_text("#message")
    assert not errors, errors
