"""The console in a real browser (headless Chromium driven by Playwright) against `aurra dev`:
sign in, the Vim-to-Emacs timeline, both time controls, revert from the audit feed (filtered or
not), live filters, user and agent scopes, a phone-sized screen, a browser outside UTC,
settings, errors as messages, labels and keyboard use, all under the console's strict CSP."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from browser import FLAGS, find_chromium
from dev_server import DevServer

CHROMIUM = find_chromium()
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="no Chromium found (AURRA_CHROMIUM, /usr/bin/chromium or chromium on PATH): "
    "install Debian's chromium package to run the console's browser test",
)

KEY_STORAGE = "aurra.console.apiKey"
# Where the test leaves its screenshot; AURRA_CONSOLE_SCREENSHOT=docs/console-timeline.png refreshes the README's.
SCREENSHOT_ENV = "AURRA_CONSOLE_SCREENSHOT"


@pytest.fixture(scope="module")
def browser() -> Iterator:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        # Playwright gives every launch a fresh, temporary profile (--user-data-dir).
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        yield launched
        launched.close()


class Page:
    """A browser tab on the console, collecting what must never happen: script errors and CSP
    violations (the console runs under a policy with no inline script or style)."""

    def __init__(
        self,
        browser,
        base_url: str,
        *,
        width: int = 1280,
        timezone_id: str = "UTC",
        locale: str | None = None,
    ) -> None:
        self.context = browser.new_context(
            viewport={"width": width, "height": 1000}, timezone_id=timezone_id, locale=locale
        )
        self.page = self.context.new_page()
        self.base_url = base_url
        self.problems: list[str] = []
        self.requests: list[str] = []
        self.page.on("pageerror", lambda error: self.problems.append(f"script error: {error}"))
        self.page.on(
            "console",
            lambda message: (
                self.problems.append(f"CSP: {message.text}")
                if "Content Security Policy" in message.text or "Trusted Type" in message.text
                else None
            ),
        )
        self.page.on("request", lambda request: self.requests.append(request.url))

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def tab(browser, dev_server: DevServer) -> Iterator[Page]:
    opened = Page(browser, dev_server.base_url)
    yield opened
    opened.close()
    assert opened.problems == []
    # Everything the console loads comes from aurra dev itself: no network needed at run time.
    assert all(url.startswith(dev_server.base_url) for url in opened.requests), opened.requests


EDITOR_CHANGE = "User has been using Emacs as their daily editor, having moved away from Vim"


def write(client: httpx.Client, **body) -> dict:
    response = client.post("/agent/memories", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def sign_in_with_the_keyboard(tab: Page, key: str) -> None:
    from playwright.sync_api import expect

    page = tab.page
    page.goto(tab.base_url + "/console")
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    # The key field has the focus on arrival: paste and press Enter.
    expect(page.get_by_label("API key", exact=True)).to_be_focused()
    page.keyboard.type(key)
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Memories")).to_be_visible()


def test_a_wrong_key_is_refused_with_a_clear_message(tab: Page) -> None:
    from playwright.sync_api import expect

    page = tab.page
    page.goto(tab.base_url + "/console/")
    field = page.get_by_label("API key", exact=True)
    field.fill("aurra_0000_not-a-key")
    page.get_by_role("button", name="Sign in").click()
    alert = page.locator("#signin-error")
    expect(alert).to_contain_text("That API key was refused")
    expect(alert).to_contain_text("missing or invalid API key (HTTP 401 unauthorized)")
    expect(field).to_have_attribute("aria-invalid", "true")
    expect(page.get_by_role("heading", name="Memories")).to_be_hidden()
    assert page.evaluate(f"sessionStorage.getItem('{KEY_STORAGE}')") is None
    assert "aurra_0000" not in page.url

    field.fill("")
    page.get_by_role("button", name="Sign in").click()
    expect(alert).to_contain_text("Paste an API key first.")


def test_timeline_time_controls_and_revert(tab: Page, dev_server: DevServer, new_key, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    _, key = new_key()
    page = tab.page
    sign_in_with_the_keyboard(tab, key)
    # The key lives in this tab's session storage only: never in the URL or in local storage.
    assert page.evaluate(f"sessionStorage.getItem('{KEY_STORAGE}')") == key
    assert page.evaluate("localStorage.length") == 0
    assert key not in page.url

    with httpx.Client(base_url=dev_server.base_url, headers={"Authorization": f"Bearer {key}"}) as api:
        vim = write(
            api,
            content="User uses Vim",
            topic="preferences",
            user_id="alice",
            valid_from="2026-04-01T00:00:00Z",
        )
        write(
            api,
            content="User uses Vim",
            topic="preferences",
            user_id="bob",
            valid_from="2026-04-01T00:00:00Z",
        )
        emacs = write(
            api,
            content="User has been using Emacs as their daily editor, having moved away from Vim",
            topic="preferences",
            user_id="alice",
            valid_from="2026-05-03T10:00:00Z",
            auto_supersede=True,
        )
    supersession = emacs["auto_supersede"]["supersession"]
    assert supersession["superseded_id"] == vim["memory"]["id"]

    # Now, for all users: Bob still uses Vim, Alice uses Emacs.
    page.get_by_role("button", name="Now").first.click()
    page.get_by_label("Topic").fill("preferences")
    rows = page.locator("#memories-table tbody tr")
    expect(rows).to_have_count(2)
    # The user filter re-queries as it is typed: Alice's memories only.
    page.locator("#view-memories").get_by_label("User id").fill("alice")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("Emacs")
    expect(rows.first).to_contain_text("alice")
    expect(page.locator("#memories-summary")).to_contain_text("1 memory true as of now")

    # Open its timeline with the keyboard: two versions, one arrow with verdict, confidence, reason.
    page.get_by_role("link", name=re.compile("Emacs as their daily editor")).focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name=re.compile("Emacs as their daily editor"))).to_be_focused()
    timeline = page.locator("#timeline svg")
    expect(timeline).to_have_attribute("role", "img")
    expect(timeline.locator(".tl-bar")).to_have_count(2)
    expect(timeline.locator(".tl-link")).to_have_count(1)
    label = timeline.locator(".tl-link-label")
    expect(label).to_contain_text("contradicts")
    expect(label).to_contain_text(f"{supersession['confidence']:.2f}")
    expect(label).to_contain_text(supersession["reason"][:20])
    assert timeline.locator(".tl-recorded").count() >= 2
    expect(timeline.locator("desc")).to_contain_text(
        '"User uses Vim", true from 2026-04-01 00:00 UTC to 2026-05-03 10:00 UTC'
    )
    # The full reason and model are in the list beside the picture.
    link_item = page.locator("#timeline-links .event")
    expect(link_item).to_contain_text(supersession["reason"])
    expect(link_item).to_contain_text(supersession["model"])

    # as_of in April: the dashed line moves onto the Vim bar.
    page.get_by_label("as_of (UTC)").fill("2026-04-15T00:00")
    expect(timeline.locator(".tl-asof")).to_contain_text("as of 2026-04-15")
    shot = Path(os.environ.get(SCREENSHOT_ENV) or tmp_path / "console-timeline.png")
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    print(f"console timeline screenshot: {shot}")

    # The list, as of April: Vim.
    page.get_by_role("link", name="← Memories").click()
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("User uses Vim")
    expect(page.locator("#memories-summary")).to_contain_text("true as of 2026-04-15 00:00 UTC")

    # The slider with the keyboard: End is now (Emacs), one day back is still Emacs.
    slider = page.get_by_label("Valid time (as_of) slider, one step a day")
    slider.focus()
    page.keyboard.press("End")
    expect(page.locator("#as_of-out")).to_have_text("now")
    expect(rows.first).to_contain_text("Emacs")
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#as_of-out")).to_contain_text(" 00:00 UTC")
    expect(slider).to_have_attribute("aria-valuetext", re.compile("UTC$"))
    expect(rows.first).to_contain_text("Emacs")

    # known_at before anything was written: Aurra knew nothing then.
    yesterday = (datetime.now(UTC) - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M")
    page.get_by_label("known_at (UTC)").fill(yesterday)
    expect(page.locator("#memories-summary")).to_contain_text("No memories")
    page.locator("#known_at-now").click()
    page.locator("#as_of-now").click()
    expect(rows).to_have_count(1)

    # The audit feed, reached with the keyboard: Revert, confirmed, makes Vim current again.
    nav = page.get_by_role("navigation", name="Sections")
    nav.get_by_role("link", name="Audit feed").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Audit feed")).to_be_focused()
    event = page.locator(f'#audit-events li[data-event-id="{supersession["audit_event_id"]}"]')
    expect(event).to_be_visible()
    # The user filter: Bob's memories were never superseded.
    audit_user = page.locator("#view-audit").get_by_label("User id")
    audit_user.fill("bob")
    page.keyboard.press("Tab")
    expect(page.locator("#audit-events")).to_have_text("No events.")
    audit_user.fill("alice")
    page.keyboard.press("Tab")
    expect(event).to_contain_text("auto_supersede")
    expect(event).to_contain_text(supersession["reason"])
    expect(event).to_contain_text('"User uses Vim"')
    event.get_by_role("button", name=re.compile("^Revert this supersession")).click()
    confirm = event.get_by_role("button", name="Yes, revert")
    expect(confirm).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#notice")).to_have_text('Reverted: "User uses Vim" is current again.')
    expect(page.locator("#audit-events li[data-type='revert']")).to_have_count(1)
    reverted = page.locator(f'#audit-events li[data-event-id="{supersession["audit_event_id"]}"]')
    expect(reverted.locator(".badge.reverted")).to_be_visible()
    expect(reverted.get_by_role("button", name=re.compile("^Revert"))).to_have_count(0)

    # Reverting twice is the API's 409, shown as its message.
    with httpx.Client(base_url=dev_server.base_url, headers={"Authorization": f"Bearer {key}"}) as api:
        assert api.post(f"/agent/audit/{supersession['audit_event_id']}/revert").status_code == 409

    nav.get_by_role("link", name="Memories").click()
    expect(page.locator("#view-memories").get_by_label("User id")).to_have_value("alice")
    vim_row = rows.filter(has_text="User uses Vim")
    expect(vim_row).to_have_count(1)
    expect(vim_row.locator(".badge")).to_have_text("current")
    expect(rows).to_have_count(2)

    # Settings: the API's floor comes back as its message; a good value, as the API's answer.
    nav.get_by_role("link", name="Settings").click()
    confidence = page.get_by_label(re.compile("^Minimum confidence to act"))
    confidence.fill("0.5")
    page.get_by_role("button", name="Save settings").click()
    expect(page.locator("#settings-error")).to_contain_text(
        "min_confidence must be >= 0.85 (HTTP 422 validation_error)"
    )
    expect(confidence).to_have_attribute("aria-invalid", "true")
    confidence.fill("0.9")
    page.get_by_label(re.compile("^Automatic supersession by default")).check()
    page.keyboard.press("Enter")
    expect(page.locator("#settings-json")).to_contain_text('"min_confidence": 0.9')
    expect(page.locator("#settings-json")).to_contain_text('"auto_supersede_default": true')
    expect(page.locator("#settings-error")).to_be_empty()

    # Every control has a label a screen reader reads, in every view.
    unlabelled = page.evaluate(
        """() => [...document.querySelectorAll('input, select, textarea, button')]
            .filter((el) => !(el.labels && el.labels.length) && !el.getAttribute('aria-label')
                && !el.getAttribute('aria-labelledby') && !el.textContent.trim())
            .map((el) => el.outerHTML)"""
    )
    assert unlabelled == []

    # Sign out: the key is gone from the tab.
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    assert page.evaluate(f"sessionStorage.getItem('{KEY_STORAGE}')") is None


def supersessions(key: str, base_url: str, scopes: list[tuple[str, str]]) -> dict[str, dict]:
    """For each (user_id, agent_id): Vim on April 1, then Emacs superseding it on May 3; by agent_id."""
    out = {}
    with httpx.Client(base_url=base_url, headers={"Authorization": f"Bearer {key}"}) as api:
        for user, agent in scopes:
            vim = write(
                api,
                content="User uses Vim",
                topic="preferences",
                user_id=user,
                agent_id=agent,
                valid_from="2026-04-01T00:00:00Z",
            )
            emacs = write(
                api,
                content=EDITOR_CHANGE,
                topic="preferences",
                user_id=user,
                agent_id=agent,
                valid_from="2026-05-03T10:00:00Z",
                auto_supersede=True,
            )
            supersession = emacs["auto_supersede"]["supersession"]
            assert supersession["superseded_id"] == vim["memory"]["id"]
            out[agent] = {
                "vim": vim["memory"],
                "emacs": emacs["memory"],
                "event": supersession["audit_event_id"],
            }
    return out


def open_audit_feed(tab: Page) -> None:
    from playwright.sync_api import expect

    tab.page.get_by_role("navigation", name="Sections").get_by_role("link", name="Audit feed").click()
    expect(tab.page.get_by_role("heading", name="Audit feed")).to_be_visible()


def test_a_revert_shows_wherever_the_feed_is_shown_filtered_or_not(
    tab: Page, browser, dev_server: DevServer, new_key
) -> None:
    from playwright.sync_api import expect

    _, key = new_key()
    pairs = supersessions(key, dev_server.base_url, [("alice", "support-bot"), ("bob", "travel-bot")])
    with httpx.Client(base_url=dev_server.base_url, headers={"Authorization": f"Bearer {key}"}) as api:
        # One more event, so that the filtered feed shows fewer than the whole one.
        assert api.patch("/agent/settings", json={"daily_model_calls_limit": 1000}).status_code == 200
    page = tab.page
    sign_in_with_the_keyboard(tab, key)
    open_audit_feed(tab)
    events = page.locator("#audit-events > li.event")
    expect(events).to_have_count(3)
    # Only the supersessions: the revert events are filtered out of this feed.
    page.get_by_label("Event type").select_option("auto_supersede")
    expect(events).to_have_count(2)
    alice = page.locator(f'#audit-events li[data-event-id="{pairs["support-bot"]["event"]}"]')
    bob = page.locator(f'#audit-events li[data-event-id="{pairs["travel-bot"]["event"]}"]')
    revert = re.compile("^Revert this supersession")
    alice.get_by_role("button", name=revert).click()
    alice.get_by_role("button", name="Yes, revert").click()
    expect(page.locator("#notice")).to_have_text('Reverted: "User uses Vim" is current again.')
    # The row says it was reverted and its Revert is gone, though the feed shows no revert event.
    expect(alice.locator(".badge.reverted")).to_be_visible()
    expect(alice.get_by_role("button", name=re.compile("^Revert"))).to_have_count(0)
    expect(page.locator("#audit-events li[data-type='revert']")).to_have_count(0)
    expect(events).to_have_count(2)
    expect(bob.get_by_role("button", name=revert)).to_have_count(1)
    expect(bob.locator(".badge.reverted")).to_have_count(0)

    # Another tab with the same filter reads it from the API, not from what this tab did.
    other = Page(browser, dev_server.base_url)
    try:
        sign_in_with_the_keyboard(other, key)
        open_audit_feed(other)
        expect(other.page.locator("#audit-events > li.event")).to_have_count(4)
        other.page.get_by_label("Event type").select_option("auto_supersede")
        expect(other.page.locator("#audit-events > li.event")).to_have_count(2)
        there = other.page.locator(f'#audit-events li[data-event-id="{pairs["support-bot"]["event"]}"]')
        expect(there.locator(".badge.reverted")).to_be_visible()
        expect(there.get_by_role("button", name=re.compile("^Revert"))).to_have_count(0)
        # Bob's supersession reverted from his memory's timeline; then the filtered feed again.
        other.page.goto(f"{dev_server.base_url}/console/#/memory/{pairs['travel-bot']['emacs']['id']}")
        link = other.page.locator("#timeline-links .event")
        link.get_by_role("button", name=revert).click()
        link.get_by_role("button", name="Yes, revert").click()
        expect(other.page.locator("#notice")).to_have_text('Reverted: "User uses Vim" is current again.')
        expect(other.page.locator("#timeline-links")).to_have_text("No supersession in this lineage.")
        open_audit_feed(other)
        expect(other.page.get_by_label("Event type")).to_have_value("auto_supersede")
        expect(other.page.locator("#audit-events > li.event")).to_have_count(2)
        bob_there = other.page.locator(f'#audit-events li[data-event-id="{pairs["travel-bot"]["event"]}"]')
        expect(bob_there.locator(".badge.reverted")).to_be_visible()
        expect(other.page.locator("#audit-events").get_by_role("button", name=revert)).to_have_count(0)
    finally:
        other.close()
    assert other.problems == []

    # The whole feed in the first tab: both revert events, both rows reverted, no Revert left.
    page.get_by_label("Event type").select_option("")
    expect(page.locator("#audit-events li[data-type='revert']")).to_have_count(2)
    expect(alice.locator(".badge.reverted")).to_be_visible()
    expect(bob.locator(".badge.reverted")).to_be_visible()
    expect(page.locator("#audit-events").get_by_role("button", name=revert)).to_have_count(0)
    # Filtered by memory, then by user: the same.
    page.get_by_label("Memory id").fill(pairs["travel-bot"]["vim"]["id"])
    page.keyboard.press("Enter")
    expect(events).to_have_count(2)  # bob's supersession and its revert
    expect(bob.locator(".badge.reverted")).to_be_visible()
    expect(page.locator("#audit-events").get_by_role("button", name=revert)).to_have_count(0)
    page.get_by_label("Memory id").fill("")
    page.locator("#view-audit").get_by_label("User id").fill("alice")
    expect(events).to_have_count(2)  # alice's supersession and its revert
    expect(alice.locator(".badge.reverted")).to_be_visible()
    expect(page.locator("#audit-events").get_by_role("button", name=revert)).to_have_count(0)


def test_audit_filters_apply_as_they_are_typed_and_on_enter(
    tab: Page, dev_server: DevServer, new_key
) -> None:
    from playwright.sync_api import expect

    _, key = new_key()
    pairs = supersessions(key, dev_server.base_url, [("alice", "support-bot"), ("bob", "travel-bot")])
    alice, bob = pairs["support-bot"]["event"], pairs["travel-bot"]["event"]
    page = tab.page
    page.clock.install()
    sign_in_with_the_keyboard(tab, key)
    open_audit_feed(tab)
    events = page.locator("#audit-events > li.event")
    expect(events).to_have_count(2)

    def audit_requests(user: str) -> list[str]:
        return [url for url in tab.requests if "/agent/audit?" in url and f"user_id={user}" in url]

    # Typed, with no Tab and no click elsewhere: the feed follows once typing pauses.
    user = page.locator("#view-audit").get_by_label("User id")
    user.focus()
    page.keyboard.type("alice")
    expect(events).to_have_count(1)
    expect(events.first).to_have_attribute("data-event-id", alice)
    assert len(audit_requests("alice")) == 1, "one query once typing paused, not one per key"

    # With the page's timers held, typing alone sends nothing; Enter applies at once, and the
    # pending debounce then finds nothing new to send.
    page.clock.pause_at(datetime.now(UTC) + timedelta(seconds=5))
    user.fill("")
    page.keyboard.type("bob")
    page.wait_for_timeout(300)
    assert audit_requests("bob") == []
    page.keyboard.press("Enter")
    expect(events.first).to_have_attribute("data-event-id", bob)
    expect(events).to_have_count(1)
    page.clock.run_for(1000)
    page.wait_for_timeout(200)
    assert len(audit_requests("bob")) == 1
    page.clock.resume()

    # A select applies on change; the user filter emptied, every event is back.
    page.get_by_label("Event type").select_option("revert")
    expect(page.locator("#audit-events")).to_have_text("No events.")
    page.get_by_label("Event type").select_option("")
    user.fill("")
    expect(events).to_have_count(2)


def test_agent_id_column_and_filter(tab: Page, dev_server: DevServer, new_key) -> None:
    from playwright.sync_api import expect

    _, key = new_key()
    pairs = supersessions(key, dev_server.base_url, [("alice", "support-bot"), ("alice", "travel-bot")])
    with httpx.Client(base_url=dev_server.base_url, headers={"Authorization": f"Bearer {key}"}) as api:
        write(api, content="User drinks sencha", topic="food", user_id="alice", agent_id="travel-bot")
    page = tab.page
    sign_in_with_the_keyboard(tab, key)
    table = page.locator("#memories-table")
    expect(table.locator("thead th")).to_have_text(
        ["Content", "Topic", "User", "Agent", "Valid from", "Valid to", "Status", "Recorded"]
    )
    rows = page.locator("#memories-table tbody tr")
    expect(rows).to_have_count(3)
    # Typed as for user_id: the list follows, and the API is asked for that agent only.
    page.get_by_label("Agent id").fill("travel-bot")
    expect(rows).to_have_count(2)
    expect(rows.filter(has_text="sencha")).to_have_count(1)
    for row in rows.all():
        expect(row.locator("td").nth(3)).to_have_text("travel-bot")
    assert any("agent_id=travel-bot" in url for url in tab.requests)
    page.get_by_label("Topic").fill("preferences")
    expect(rows).to_have_count(1)
    page.get_by_label("Agent id").fill("support-bot")
    expect(rows).to_have_count(1)
    expect(rows.first.locator("td").nth(3)).to_have_text("support-bot")
    page.get_by_label("Agent id").fill("nobody")
    expect(page.locator("#memories-summary")).to_contain_text("No memories")

    # A memory's page and the audit feed name the agent too.
    page.goto(f"{dev_server.base_url}/console/#/memory/{pairs['travel-bot']['emacs']['id']}")
    facts = page.locator("#memory-facts")
    expect(facts).to_contain_text("Agent")
    expect(facts.locator("dt", has_text="Agent").locator("xpath=following-sibling::dd[1]")).to_have_text(
        "travel-bot"
    )
    expect(page.locator("#timeline svg .tl-scope").last).to_have_text("user alice · agent travel-bot")
    open_audit_feed(tab)
    event = page.locator(f'#audit-events li[data-event-id="{pairs["travel-bot"]["event"]}"]')
    expect(event).to_contain_text("travel-bot")


def test_the_timeline_reads_on_a_phone(browser, dev_server: DevServer, new_key, tmp_path: Path) -> None:
    from playwright.sync_api import expect

    _, key = new_key()
    pairs = supersessions(key, dev_server.base_url, [("alice", "support-bot")])
    tab = Page(browser, dev_server.base_url, width=420)
    try:
        page = tab.page
        sign_in_with_the_keyboard(tab, key)
        page.goto(f"{dev_server.base_url}/console/#/memory/{pairs['support-bot']['emacs']['id']}")
        timeline = page.locator("#timeline svg")
        expect(timeline.locator(".tl-bar")).to_have_count(2)
        page.get_by_label("as_of (UTC)").fill("2026-04-15T00:00")
        expect(timeline.locator(".tl-asof")).to_contain_text("as of 2026-04-15")
        layout = page.evaluate(
            """() => {
                const svg = document.querySelector('#timeline svg');
                const box = svg.getBoundingClientRect();
                const texts = [...svg.querySelectorAll('text')].map((t) => {
                    const r = t.getBoundingClientRect();
                    return {text: t.textContent, cls: t.getAttribute('class') || t.parentNode.getAttribute('class'),
                            left: r.left, right: r.right, top: r.top, bottom: r.bottom,
                            size: parseFloat(getComputedStyle(t).fontSize)};
                });
                return {scale: box.width / svg.viewBox.baseVal.width, left: box.left, right: box.right,
                        texts, pageWidth: document.documentElement.scrollWidth};
            }"""
        )
        # Drawn at the width it is shown at: 12-13 px text stays 12-13 px.
        assert 0.98 <= layout["scale"] <= 1.02, layout["scale"]
        assert layout["pageWidth"] <= 420, "nothing on the page scrolls sideways"
        for text in layout["texts"]:
            assert text["size"] * layout["scale"] >= 11, text
            assert text["left"] >= layout["left"] - 1 and text["right"] <= layout["right"] + 1, text
        # The versions' labels, their dates and the arrow's label never overlap one another.
        words = [
            t
            for t in layout["texts"]
            if t["cls"] in ("tl-label", "tl-sub", "tl-sub tl-scope", "tl-when", "tl-link-label")
        ]
        assert len(words) == 9
        for i, a in enumerate(words):
            for b in words[i + 1 :]:
                apart = (
                    a["right"] <= b["left"]
                    or b["right"] <= a["left"]
                    or a["bottom"] <= b["top"]
                    or b["bottom"] <= a["top"]
                )
                assert apart, (a, b)
        expect(timeline.locator(".tl-link-label")).to_contain_text("contradicts")
        expect(timeline).to_have_class(re.compile(r"\btl-narrow\b"))
        shot = tmp_path / "console-timeline-420.png"
        page.screenshot(path=str(shot), full_page=True)
        print(f"console timeline at 420 px: {shot}")

        # Widened, it is drawn again for the room it has, with the labels beside the bars.
        page.set_viewport_size({"width": 1280, "height": 1000})
        expect(timeline).not_to_have_class(re.compile(r"\btl-narrow\b"))
        scale = page.evaluate(
            "() => { const svg = document.querySelector('#timeline svg');"
            " return svg.getBoundingClientRect().width / svg.viewBox.baseVal.width; }"
        )
        assert 0.98 <= scale <= 1.02
    finally:
        tab.close()
    assert tab.problems == []


def test_utc_inputs_are_utc_in_a_browser_elsewhere(browser, dev_server: DevServer, new_key) -> None:
    from playwright.sync_api import expect

    _, key = new_key()
    supersessions(key, dev_server.base_url, [("alice", "support-bot")])
    # Los Angeles, US English: a date picker would show 04/14/2026, 05:00:00 PM here.
    tab = Page(browser, dev_server.base_url, timezone_id="America/Los_Angeles", locale="en-US")
    try:
        page = tab.page
        assert page.evaluate("new Date(Date.UTC(2026, 3, 15)).getTimezoneOffset()") == 420
        sign_in_with_the_keyboard(tab, key)
        rows = page.locator("#memories-table tbody tr")
        expect(rows).to_have_count(1)
        as_of = page.get_by_label("as_of (UTC)")
        expect(as_of).to_have_attribute("placeholder", "YYYY-MM-DD HH:MM:SS")

        def sent(name: str) -> list[str]:
            return [
                re.search(rf"{name}=([^&]+)", url).group(1).replace("%3A", ":")
                for url in tab.requests
                if "/agent/memories?" in url and f"{name}=" in url
            ]

        # Typed as UTC, sent as that UTC instant, shown as typed.
        as_of.focus()
        page.keyboard.type("2026-04-15 00:00")
        expect(rows.first).to_contain_text("User uses Vim")
        assert sent("as_of")[-1] == "2026-04-15T00:00:00Z"
        expect(page.locator("#as_of-out")).to_have_text("2026-04-15 00:00 UTC")
        expect(page.locator("#memories-summary")).to_contain_text("true as of 2026-04-15 00:00 UTC")
        # Times in the list are UTC too, not Los Angeles time.
        expect(rows.first).to_contain_text("2026-04-01 00:00 UTC")
        page.keyboard.press("Enter")
        expect(as_of).to_have_value("2026-04-15 00:00:00")

        # A time with an offset is read as the instant it names, and shown in UTC.
        page.keyboard.press("Control+a")
        page.keyboard.type("2026-05-03T03:00:00-07:00")
        page.keyboard.press("Enter")
        expect(as_of).to_have_value("2026-05-03 10:00:00")
        expect(rows.first).to_contain_text("Emacs")
        assert sent("as_of")[-1] == "2026-05-03T10:00:00Z"

        # Not a time: said so, and nothing is sent.
        count = len(tab.requests)
        page.keyboard.press("Control+a")
        page.keyboard.type("2026-02-30 10:00")
        page.keyboard.press("Enter")
        expect(as_of).to_have_attribute("aria-invalid", "true")
        expect(page.locator("#as_of-error")).to_contain_text("is not a time in UTC")
        page.wait_for_timeout(400)
        assert len(tab.requests) == count
        expect(page.locator("#as_of-out")).to_have_text("2026-05-03 10:00 UTC")

        # The slider moves in whole UTC days, and the input shows the UTC midnight it sent.
        page.get_by_label("Valid time (as_of) slider, one step a day").focus()
        page.keyboard.press("End")
        page.keyboard.press("ArrowLeft")
        expect(as_of).to_have_value(re.compile(r"^\d{4}-\d{2}-\d{2} 00:00:00$"))
        expect(as_of).not_to_have_attribute("aria-invalid", "true")
        day = as_of.input_value()[:10]
        expect(page.locator("#as_of-out")).to_have_text(f"{day} 00:00 UTC")
        page.wait_for_timeout(400)
        assert sent("as_of")[-1] == f"{day}T00:00:00Z"

        # known_at likewise: typed a minute before the first write, Aurra knew nothing then.
        first = datetime.now(UTC) - timedelta(days=1)
        page.get_by_label("known_at (UTC)").fill(first.strftime("%Y-%m-%d %H:%M"))
        expect(page.locator("#memories-summary")).to_contain_text("No memories")
        assert sent("known_at")[-1] == first.strftime("%Y-%m-%dT%H:%M:00Z")
    finally:
        tab.close()
    assert tab.problems == []


def test_a_key_revoked_while_signed_in_returns_to_sign_in(tab: Page, new_key) -> None:
    from playwright.sync_api import expect

    _, key = new_key()
    page = tab.page
    sign_in_with_the_keyboard(tab, key)
    # A key the API no longer accepts (here: replaced in storage) is shown as such, not as an empty list.
    page.evaluate(f"sessionStorage.setItem('{KEY_STORAGE}', 'aurra_0000_revoked')")
    page.get_by_role("navigation", name="Sections").get_by_role("link", name="Audit feed").click()
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    expect(page.locator("#signin-error")).to_contain_text("Your API key was refused")


def test_the_review_queue_approve_and_dismiss(tab: Page, dev_server: DevServer, new_key) -> None:
    from playwright.sync_api import expect

    _, key = new_key()
    editor_change = "User has been using Emacs as their daily editor, having moved away from Vim"
    with httpx.Client(base_url=dev_server.base_url, headers={"Authorization": f"Bearer {key}"}) as api:
        # Acting takes 0.99 now: the classifier's 0.95 contradiction is only proposed.
        settings = api.patch("/agent/settings", json={"min_confidence": 0.99})
        assert settings.status_code == 200, settings.text
        assert settings.json()["proposal_min_confidence"] is not None
        proposals = {}
        for user in ("alice", "bob"):
            write(
                api,
                content="User uses Vim",
                topic="preferences",
                user_id=user,
                valid_from="2026-04-01T00:00:00Z",
            )
            written = write(
                api,
                content=editor_change,
                topic="preferences",
                user_id=user,
                valid_from="2026-05-03T10:00:00Z",
                auto_supersede=True,
            )
            assert written["auto_supersede"]["supersession"] is None
            proposals[user] = written["auto_supersede"]["proposal"]["audit_event_id"]

    page = tab.page
    sign_in_with_the_keyboard(tab, key)
    nav = page.get_by_role("navigation", name="Sections")
    nav.get_by_role("link", name="Audit feed").click()
    page.get_by_label("Open proposals only (the review queue)").check()
    queue = page.locator("#audit-events > li.event")
    expect(queue).to_have_count(2)
    expect(page.get_by_label("Event type")).to_have_value("supersession_proposed")

    alice = page.locator(f'#audit-events li[data-event-id="{proposals["alice"]}"]')
    expect(alice.locator(".badge.status")).to_have_text("open")
    expect(alice).to_contain_text("would supersede")
    expect(alice).to_contain_text("0.95")
    alice.get_by_role("button", name=re.compile("^Approve this proposal")).click()
    confirm = alice.get_by_role("button", name="Yes, approve")
    expect(confirm).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.locator("#notice")).to_have_text(
        f'Approved: "{editor_change}" now supersedes "User uses Vim".'
    )
    expect(queue).to_have_count(1)

    bob = page.locator(f'#audit-events li[data-event-id="{proposals["bob"]}"]')
    bob.get_by_role("button", name=re.compile("^Dismiss this proposal")).focus()
    page.keyboard.press("Enter")
    expect(page.locator("#notice")).to_have_text("Dismissed: both memories stay current.")
    expect(page.locator("#audit-events")).to_have_text("The review queue is empty.")

    # The whole feed: the proposals with their outcome, and the approval can be reverted.
    page.get_by_label("Open proposals only (the review queue)").uncheck()
    page.get_by_label("Event type").select_option("")
    expect(
        page.locator(f'#audit-events li[data-event-id="{proposals["alice"]}"] .badge.status')
    ).to_have_text("approved")
    expect(page.locator(f'#audit-events li[data-event-id="{proposals["bob"]}"] .badge.status')).to_have_text(
        "dismissed"
    )
    approved = page.locator("#audit-events li[data-type='proposal_approved']")
    revert = approved.get_by_role("button", name=re.compile("^Revert"))
    expect(revert).to_have_count(1)

    # The same approval reverted elsewhere meanwhile: this page's Revert gets the API's 409,
    # shown as the API's message, and the buttons come back.
    approval_id = approved.get_attribute("data-event-id")
    with httpx.Client(base_url=dev_server.base_url, headers={"Authorization": f"Bearer {key}"}) as api:
        assert api.post(f"/agent/audit/{approval_id}/revert").status_code == 200
        assert api.post(f"/agent/audit/{proposals['alice']}/approve").status_code == 409
    revert.click()
    approved.get_by_role("button", name="Yes, revert").click()
    error = approved.locator(".event-error")
    expect(error).to_contain_text("(HTTP 409 conflict)")
    expect(error).to_have_attribute("role", "alert")
    expect(revert).to_be_focused()

    # The list: Alice's Vim is current again (the approval was reverted), beside her Emacs;
    # Bob's proposal was dismissed, so both of his stay too.
    nav.get_by_role("link", name="Memories").click()
    user = page.locator("#view-memories").get_by_label("User id")
    rows = page.locator("#memories-table tbody tr")
    for name in ("alice", "bob"):
        user.fill(name)
        expect(rows).to_have_count(2)
        expect(rows.filter(has_text="User uses Vim")).to_have_count(1)


def test_erase_a_memory_and_a_user_with_confirmation_and_receipt(
    tab: Page, dev_server: DevServer, new_key
) -> None:
    from playwright.sync_api import expect

    _, key = new_key()
    alice = supersessions(key, dev_server.base_url, [("alice", "planner")])["planner"]
    with httpx.Client(base_url=dev_server.base_url, headers={"Authorization": f"Bearer {key}"}) as api:
        for agent, content, topic in (
            ("planner", "User lives in Lisbon", "home"),
            ("planner", "User likes tea", "drinks"),
            ("coach", "User runs", "fitness"),
        ):
            write(api, content=content, topic=topic, user_id="carol", agent_id=agent)
        bob = write(api, content="User uses Vim", topic="preferences", user_id="bob")["memory"]

    page = tab.page
    sign_in_with_the_keyboard(tab, key)
    # A memory's lineage: Emacs superseded Vim, so both go, with the three versions they recorded.
    page.goto(f"{tab.base_url}/console/#/memory/{alice['emacs']['id']}")
    expect(page.get_by_role("heading", name=re.compile("Emacs as their daily editor"))).to_be_visible()
    page.get_by_role("button", name="Erase this memory…").click()
    dialog = page.get_by_role("dialog", name="Erase this memory and its lineage")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("This erases 2 memories (3 recorded versions)")
    expect(dialog).to_contain_text("This cannot be undone.")
    erase = dialog.get_by_role("button", name="Erase for good")
    confirm = dialog.get_by_label('Type "erase" to confirm')
    expect(confirm).to_be_focused()
    expect(erase).to_be_disabled()
    # Escape closes it and nothing is erased.
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    with httpx.Client(base_url=dev_server.base_url, headers={"Authorization": f"Bearer {key}"}) as api:
        assert api.get(f"/agent/memories/{alice['vim']['id']}/history").status_code == 200

    page.get_by_role("button", name="Erase this memory…").click()
    expect(dialog).to_contain_text("3 recorded versions")
    page.keyboard.type("eras")
    expect(erase).to_be_disabled()
    page.keyboard.type("e")
    expect(erase).to_be_enabled()
    page.keyboard.press("Enter")
    receipt = page.locator("#receipt")
    expect(receipt).to_contain_text("Erased just now.")
    expect(page.locator("#notice")).to_contain_text("Erased: receipt ")
    receipt_id = page.url.rsplit("/", 1)[1]
    with httpx.Client(base_url=dev_server.base_url, headers={"Authorization": f"Bearer {key}"}) as api:
        stored = api.get(f"/agent/erasures/{receipt_id}").json()
    assert stored["selector"] == {"memory_id": alice["emacs"]["id"]}
    assert stored["counts"]["memories"] == 2 and stored["counts"]["versions"] == 3
    expect(receipt.locator("#receipt-facts")).to_contain_text(
        f"memory {alice['emacs']['id']} and its whole lineage"
    )
    expect(receipt.locator('tr[data-kind="memories"] td').nth(1)).to_have_text("2")
    expect(receipt.locator('tr[data-kind="versions"] td').nth(1)).to_have_text("3")
    expect(receipt.locator('tr[data-kind="audit_events"] td').nth(1)).to_have_text(
        str(stored["counts"]["audit_events"])
    )
    expect(page.locator(f'#erasures-list li[data-erasure-id="{receipt_id}"]')).to_contain_text("2 memories")

    # The erased Vim, opened: the documented 410, shown as erased with its receipt, not as an error.
    page.goto(f"{tab.base_url}/console/#/memory/{alice['vim']['id']}")
    expect(page.get_by_role("heading", name="Erased memory")).to_be_visible()
    expect(page.locator("#memory-erased .badge")).to_have_text("erased")
    expect(page.locator("#memory-error")).to_be_empty()
    page.get_by_role("link", name="See the erasure's receipt").click()
    expect(page.locator("#receipt-title")).to_have_text(f"Receipt {receipt_id}")

    # Lookup by id: an unknown one is said so.
    lookup = page.get_by_label("Receipt id")
    lookup.fill("00000000-0000-0000-0000-000000000000")
    page.keyboard.press("Enter")
    expect(page.locator("#erasures-error")).to_contain_text("No erasure of this tenant has the receipt id")

    # Everything of a user, one agent only: the count follows the agent, the user id confirms.
    page.get_by_role("navigation", name="Sections").get_by_role("link", name="Memories").click()
    rows = page.locator("#memories-table tbody tr")
    expect(rows).to_have_count(4)  # Carol's three, Bob's one: Alice's are gone
    page.locator("#view-memories").get_by_label("User id").fill("carol")
    expect(rows).to_have_count(3)
    page.get_by_role("button", name='Erase everything of user "carol"…').click()
    dialog = page.get_by_role("dialog", name='Erase everything of user "carol"')
    expect(dialog).to_contain_text(
        'This erases 3 memories (3 recorded versions) of user "carol", every agent.'
    )
    dialog.get_by_label("Only this agent's memories (optional)").fill("planner")
    expect(dialog).to_contain_text(
        'This erases 2 memories (2 recorded versions) of user "carol" with agent "planner".'
    )
    confirm = dialog.get_by_label('Type the user id "carol" to confirm')
    confirm.fill("caro")
    expect(dialog.get_by_role("button", name="Erase for good")).to_be_disabled()
    confirm.fill("carol")
    dialog.get_by_role("button", name="Erase for good").click()
    expect(receipt).to_contain_text("Erased just now.")
    expect(page.locator("#receipt-facts")).to_contain_text('user "carol" with agent "planner"')
    expect(receipt.locator('tr[data-kind="memories"] td').nth(1)).to_have_text("2")

    page.get_by_role("navigation", name="Sections").get_by_role("link", name="Memories").click()
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("User runs")
    # The same selector again: nothing new matched, the receipt it had.
    page.get_by_role("button", name='Erase everything of user "carol"…').click()
    dialog.get_by_label("Only this agent's memories (optional)").fill("planner")
    expect(dialog).to_contain_text('Nothing of user "carol" with agent "planner" is stored now.')
    dialog.get_by_label('Type the user id "carol" to confirm').fill("carol")
    dialog.get_by_role("button", name="Erase for good").click()
    expect(receipt).to_contain_text("already erased and nothing new matched since")
    # Bob was never touched; no content went into the location bar.
    with httpx.Client(base_url=dev_server.base_url, headers={"Authorization": f"Bearer {key}"}) as api:
        assert api.get(f"/agent/memories/{bob['id']}").status_code == 200
    assert "carol" not in page.url and "Vim" not in page.url


def test_provenance_expiry_and_a_hostile_quote_shown_as_text(
    tab: Page, dev_server: DevServer, new_key
) -> None:
    from playwright.sync_api import expect

    _, key = new_key()
    hostile = "<img src=x onerror=\"document.title='pwned'\">"
    now = datetime.now(UTC)
    with httpx.Client(base_url=dev_server.base_url, headers={"Authorization": f"Bearer {key}"}) as api:
        extracted = api.post(
            "/agent/memories",
            json={
                "messages": [{"role": "user", "content": f"I moved to Berlin {hostile} last month."}],
                "user_id": "alice",
                "conversation_id": "conv-8812",
            },
        )
        assert extracted.status_code == 201, extracted.text
        fact = extracted.json()["facts"][0]["memory"]
        assert hostile in fact["source"]["quote"], fact["source"]
        linked = write(
            api,
            content="User prefers aisle seats",
            topic="travel",
            user_id="alice",
            source={"type": "ticket", "id": "T-9", "uri": "https://tickets.example/T-9"},
            valid_to=(now + timedelta(days=30)).isoformat(),
        )["memory"]
        scripted = write(
            api,
            content="User has a gym membership",
            topic="fitness",
            user_id="alice",
            source={"type": "crm", "id": "C-1", "uri": "javascript:alert(1)"},
        )["memory"]
        expired = write(
            api,
            content="User is on a trial plan",
            topic="billing",
            user_id="alice",
            valid_from=(now - timedelta(days=10)).isoformat(),
            valid_to=(now - timedelta(days=1)).isoformat(),
        )["memory"]

    page = tab.page
    sign_in_with_the_keyboard(tab, key)
    rows = page.locator("#memories-table tbody tr")
    expect(rows).to_have_count(3)  # the expired one is not true now
    expect(rows.filter(has_text="aisle seats")).to_contain_text("expires ")
    # The list filters by conversation and by source id.
    page.get_by_label("Conversation id").fill("conv-8812")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("Berlin")
    page.get_by_label("Conversation id").fill("")
    page.get_by_label("Source id").fill("T-9")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("aisle seats")

    # The quote is text: the markup shows as written, no element is made of it, nothing ran.
    page.goto(f"{tab.base_url}/console/#/memory/{fact['id']}")
    source = page.locator("#memory-source")
    expect(source.locator("blockquote")).to_have_text(fact["source"]["quote"])
    expect(source).to_contain_text("conv-8812")
    expect(source).to_contain_text("conversation")
    expect(source.locator("img")).to_have_count(0)
    assert page.locator("#view-memory img").count() == 0
    assert page.title() != "pwned"
    page.get_by_role("button", name="List this conversation's memories").click()
    expect(page.get_by_label("Conversation id")).to_have_value("conv-8812")
    expect(rows).to_have_count(1)

    page.goto(f"{tab.base_url}/console/#/memory/{linked['id']}")
    expect(page.locator("#memory-facts")).to_contain_text("→ expires ")
    expect(
        page.locator("#memory-source").get_by_role("link", name="https://tickets.example/T-9")
    ).to_have_attribute("href", "https://tickets.example/T-9")
    # A javascript: URI is never a link.
    page.goto(f"{tab.base_url}/console/#/memory/{scripted['id']}")
    expect(page.locator("#memory-source")).to_contain_text("javascript:alert(1)")
    expect(page.locator("#memory-source a")).to_have_count(0)
    assert page.locator('a[href^="javascript"]').count() == 0
    # An expiry that has passed: the memory reads expired.
    page.goto(f"{tab.base_url}/console/#/memory/{expired['id']}")
    expect(page.locator("#memory-facts .badge")).to_have_text("expired")


def test_the_change_stream_panel(tab: Page, dev_server: DevServer, new_key) -> None:
    from playwright.sync_api import expect

    _, key = new_key()
    alice = supersessions(key, dev_server.base_url, [("alice", "planner")])["planner"]
    with httpx.Client(base_url=dev_server.base_url, headers={"Authorization": f"Bearer {key}"}) as api:
        assert api.patch("/agent/settings", json={"min_confidence": 0.99}).status_code == 200
        write(
            api,
            content="User uses Vim",
            topic="preferences",
            user_id="bob",
            valid_from="2026-04-01T00:00:00Z",
        )
        proposed = write(
            api,
            content=EDITOR_CHANGE,
            topic="preferences",
            user_id="bob",
            valid_from="2026-05-03T10:00:00Z",
            auto_supersede=True,
        )["auto_supersede"]["proposal"]

    page = tab.page
    sign_in_with_the_keyboard(tab, key)
    nav = page.get_by_role("navigation", name="Sections")
    nav.get_by_role("link", name="Change stream").click()
    expect(page.get_by_role("heading", name="Change stream")).to_be_focused()
    events = page.locator("#events-list > li.event")
    # Alice: two created, one superseded; Bob: two created, one proposal. Oldest first.
    expect(events).to_have_count(6)
    expect(events.first).to_have_attribute("data-type", "memory.created")
    superseded = page.locator("#events-list li[data-type='memory.superseded']")
    expect(superseded).to_contain_text('"User uses Vim"')
    expect(superseded.get_by_role("link", name=f'"{EDITOR_CHANGE}"')).to_have_attribute(
        "href", f"#/memory/{alice['emacs']['id']}"
    )
    expect(superseded).to_contain_text(alice["event"])
    proposal = page.locator("#events-list li[data-type='proposal.created']")
    expect(proposal).to_contain_text(proposed["audit_event_id"])

    # A types filter: the walk starts again with only those.
    page.get_by_label("memory.superseded").check()
    page.get_by_label("proposal.created").check()
    expect(events).to_have_count(2)
    expect(events.nth(0)).to_have_attribute("data-type", "memory.superseded")
    expect(events.nth(1)).to_have_attribute("data-type", "proposal.created")
    more = page.get_by_role("button", name="Load newer events")
    more.click()
    expect(page.locator("#events-summary")).to_have_text("No newer events yet (2 shown).")
    # What commits later arrives at the bottom with the cursor.
    with httpx.Client(base_url=dev_server.base_url, headers={"Authorization": f"Bearer {key}"}) as api:
        approved = api.post(f"/agent/audit/{proposed['audit_event_id']}/approve")
        assert approved.status_code == 201, approved.text
    more.click()
    expect(events).to_have_count(3)
    expect(events.nth(2)).to_have_attribute("data-type", "memory.superseded")
    expect(events.nth(2)).to_contain_text("approval")


def test_pending_decisions_list_an_async_write_until_it_is_decided(browser, tmp_path: Path) -> None:
    """An asynchronous write's job waits (no Level 2 worker in `aurra dev`): the console lists it
    under Pending decisions, content as text, and its memory's page says so; once a worker
    (`aurra worker`, a process of its own on the same database) decides it, both are gone."""
    import subprocess
    import sys

    from dev_server import REPO, start_dev_server
    from playwright.sync_api import expect

    from aurra_local.embedded_postgres import EmbeddedPostgres

    data = tmp_path / "data"
    # Its own embedded database: the session's `aurra dev` runs a worker that would decide the job.
    server = start_dev_server("", data, AURRA_DATABASE_URL="", AURRA_LEVEL2_WORKER="false")
    tab = Page(browser, server.base_url)
    decider = None
    try:
        hostile = "<img src=x onerror=\"document.title='pwned'\"> User switched from Vim to Emacs"
        with httpx.Client(
            base_url=server.base_url, headers={"Authorization": f"Bearer {server.dev_key}"}, timeout=30
        ) as api:
            write(api, content="User uses Vim", topic="preferences", user_id="dana")
            written = write(
                api,
                content=hostile,
                topic="preferences",
                user_id="dana",
                agent_id="coder",
                auto_supersede="async",
            )
        memory_id, job_id = written["memory"]["id"], written["auto_supersede"]["job_id"]
        assert written["auto_supersede"]["status"] == "pending" and job_id

        page = tab.page
        sign_in_with_the_keyboard(tab, server.dev_key)
        page.get_by_role("navigation", name="Sections").get_by_role("link", name="Pending decisions").click()
        expect(page.get_by_role("heading", name="Pending decisions")).to_be_focused()
        rows = page.locator("#jobs-table tbody tr")
        expect(rows).to_have_count(1)
        row = rows.first
        expect(row).to_have_attribute("data-job-id", job_id)
        # The content is text, never markup: no <img> was made from it.
        link = row.get_by_role("link", name=hostile)
        expect(link).to_have_attribute("href", f"#/memory/{memory_id}")
        assert page.locator("#jobs-table img").count() == 0
        expect(row.locator("td[data-label='User']")).to_have_text("dana")
        expect(row.locator("td[data-label='Agent']")).to_have_text("coder")
        expect(row.locator("td[data-label='Status']")).to_have_text("pending")
        expect(row.locator("td[data-label='Attempts']")).to_have_text("0")
        expect(row.locator("td[data-label='Waiting']")).to_have_text(re.compile(r"^\d+ (s|min)$"))
        expect(page.locator("#jobs-summary")).to_have_text("1 pending, newest first.")

        link.click()
        expect(page.locator("#memory-title")).to_have_text(hostile)
        expect(page.locator("#memory-pending")).to_be_visible()
        expect(page.locator("#memory-pending")).to_contain_text("Level 2 decision pending")

        # A worker decides it: the list, read again (Refresh), no longer holds the job, and the
        # memory's page no longer says it waits.
        page.go_back()
        expect(rows).to_have_count(1)
        url = EmbeddedPostgres(data / "pgdata", keep_running=True).url
        decider = subprocess.Popen(
            [sys.executable, "-m", "aurra_local.cli", "worker", "--database-url", url, "--interval", "0.2"],
            cwd=REPO,
            env={**os.environ, "AURRA_LEVEL2_ENABLED": "true"},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        with httpx.Client(
            base_url=server.base_url, headers={"Authorization": f"Bearer {server.dev_key}"}, timeout=30
        ) as api:
            deadline = datetime.now(UTC) + timedelta(seconds=60)
            while api.get(f"/agent/jobs/{job_id}").json()["status"] != "done":
                assert datetime.now(UTC) < deadline, "the worker did not decide the job"
                page.wait_for_timeout(200)
        page.get_by_role("button", name="Refresh").click()
        expect(page.locator("#jobs-summary")).to_have_text("No Level 2 decision is pending.")
        expect(rows).to_have_count(0)
        page.goto(f"{server.base_url}/console/#/memory/{memory_id}")
        expect(page.locator("#memory-title")).to_have_text(hostile)
        expect(page.locator("#memory-facts")).to_contain_text("dana")
        expect(page.locator("#memory-pending")).to_be_hidden()
        assert page.title() != "pwned"
    finally:
        if decider is not None:
            decider.terminate()
            decider.wait(20)
        tab.close()
        server.process.terminate()
        server.process.wait(20)
    assert tab.problems == []
