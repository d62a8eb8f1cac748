"""The browser table in a real headless browser (Debian's chromium + chromium-driver, selenium):
a whole Jass deal and a whole Euchre deal played by clicking, the final score checked
against the server's log, a screenshot saved."""

from __future__ import annotations

import json
import shutil
import threading
import urllib.request

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None or DRIVER is None,
    reason="no headless browser: install Debian's chromium and chromium-driver "
           "(apt-get install chromium chromium-driver) to run the browser table test")


def serve(db, port=0):
    """The app behind waitress, as ``python -m evolve.serve`` serves it; (url, stop)."""
    from evolve.server.app import create_app
    from evolve.server.wsgi import listening_socket, make_server, shutdown

    app = create_app(db=db)
    sock = listening_socket("127.0.0.1", port)
    srv = make_server(app, sock, threads=4, max_body=1 << 20)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()

    def stop():
        shutdown(srv)
        thread.join(timeout=10)             # the port is free again
        app.extensions["trick_evolve_tables"].close()

    return f"http://127.0.0.1:{sock.getsockname()[1]}", stop


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    url, stop = serve(tmp_path_factory.mktemp("browser") / "tables.sqlite3")
    yield url
    stop()


@pytest.fixture(scope="module")
def browser():
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1000,900"):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service(DRIVER), options=opts)
    yield driver
    driver.quit()


def start_table(driver, url, game, seats, seed, dealer, deals=1):
    """Start a table from the setup form; wait until it is shown."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import Select, WebDriverWait

    driver.get(f"{url}/?game={game}")
    wait = WebDriverWait(driver, 120)
    wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "1")
    for s, seat in enumerate(seats, start=1):
        box = driver.find_element(By.ID, f"seat{s}")
        box.clear()
        box.send_keys(seat)
    for field, value in (("seed", seed), ("deals", deals)):
        box = driver.find_element(By.ID, field)
        box.clear()
        box.send_keys(str(value))
    Select(driver.find_element(By.ID, "first-dealer")).select_by_value(str(dealer))
    driver.find_element(By.ID, "start").click()
    wait.until(EC.visibility_of_element_located((By.ID, "play")))


def click_legal(driver, limit=200):
    """Click the first legal card or call, ``limit`` times at most or until the table is over."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(driver, 120)
    clicks = []
    for _ in range(limit):
        result = driver.find_element(By.ID, "result")
        if result.get_attribute("data-over") == "1":
            break
        buttons = driver.find_elements(By.CSS_SELECTOR, "#bids button[data-action], #hand button.legal")
        assert buttons, driver.find_element(By.ID, "status").text + driver.find_element(By.ID, "error").text
        target = buttons[0]
        clicks.append(target.get_attribute("data-action") or target.get_attribute("data-card"))
        target.click()
        wait.until(EC.staleness_of(target))      # the view is redrawn after the server answered
    assert driver.find_element(By.ID, "error").text == ""
    return clicks


def play_by_clicking(driver, url, game, seats, seed, dealer):
    """Start a one-deal table from the setup form and click legal cards / calls until the
    table is over; return the table id, the clicks and the final (score, game score) shown."""
    from selenium.webdriver.common.by import By

    start_table(driver, url, game, seats, seed, dealer)
    clicks = click_legal(driver)
    result = driver.find_element(By.ID, "result")
    assert result.get_attribute("data-over") == "1", "the deal did not end in 200 clicks"
    table_id = driver.find_element(By.ID, "log-link").get_attribute("href").rsplit("/", 2)[-2]
    return (table_id, clicks, json.loads(result.get_attribute("data-score")),
            json.loads(result.get_attribute("data-game-score")), result.text)


@pytest.mark.parametrize("game,dealer,n_min", [("jass", 3, 10), ("euchre", 3, 4)])
def test_a_whole_deal_by_clicking(server, browser, tmp_path, game, dealer, n_min):
    seats = ["random:bidder=simple"] * 3
    table_id, clicks, score, game_score, text = play_by_clicking(browser, server, game, seats, seed=4, dealer=dealer)
    # the human is the forehand: it made a call (trump / order, pass) and played its cards
    assert len(clicks) >= n_min
    with urllib.request.urlopen(f"{server}/api/tables/{table_id}/log") as r:
        log = json.loads(r.read())
    assert log["over"] and len(log["results"]) == 1
    assert score == log["results"][-1]["score"] and game_score == log["game_score"]
    assert "Final." in text
    human = [a for a in log["actions"] if a["seat"] == 0]
    assert [str(a["action"]) for a in human] == clicks
    if game == "jass":
        assert sum(log["results"][-1]["points"]) == 157
        assert human[0]["decision"] == "trump"
    else:
        assert human[0]["decision"] == "order"
    shot = tmp_path / f"{game}.png"
    browser.save_screenshot(str(shot))
    assert shot.stat().st_size > 10_000


def test_a_table_resumes_after_the_server_restarts(browser, tmp_path):
    """Start a table, play a little, stop the server, start another on the same file and port:
    the page offers the table again, with the same hand, and it plays to the end."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as EC
    from selenium.webdriver.support.ui import WebDriverWait

    db = tmp_path / "tables.sqlite3"
    url, stop = serve(db)
    port = int(url.rsplit(":", 1)[1])
    start_table(browser, url, "jass", ["jass_rule_based"] * 3, seed=7, dealer=3, deals=2)
    before = click_legal(browser, limit=3)
    hand = browser.find_element(By.ID, "hand").text
    stop()
    url, stop = serve(db, port)
    try:
        browser.get(url)
        wait = WebDriverWait(browser, 120)
        wait.until(lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "1")
        resume = browser.find_element(By.ID, "resume")
        assert resume.is_displayed() and resume.text == "Resume your jass table (deal 1)"
        resume.click()
        wait.until(EC.visibility_of_element_located((By.ID, "play")))
        assert browser.find_element(By.ID, "hand").text == hand
        after = click_legal(browser)
        assert browser.find_element(By.ID, "result").get_attribute("data-over") == "1"
        table_id = browser.find_element(By.ID, "log-link").get_attribute("href").rsplit("/", 2)[-2]
        with urllib.request.urlopen(f"{url}/api/tables/{table_id}/log") as r:
            log = json.loads(r.read())
        assert [str(a["action"]) for a in log["actions"] if a["seat"] == 0] == before + after
        assert len(log["results"]) == 2
        browser.save_screenshot(str(tmp_path / "resumed.png"))
    finally:
        stop()
