#!/usr/bin/env python3
"""Real browser for the `browser-har` scenario: browser-client.py BASE_URL OUT.har [CHROMIUM]

Drives Debian's chromium (default /usr/bin/chromium) through Playwright (python client only; no
Playwright-downloaded browser), headless, with a browser context that records a HAR
(record_har_content="embed": bodies are small). Steps: open BASE_URL/browser/index.html and wait
until app.js has fetched items.json and POSTed /upload/browser ("done" in #status); click the
"next page" link (second navigation, page2.html + page2.png + a 404 fetch); reload page2.html
(conditional GET -> 304). Closing the context writes the HAR.

Background traffic is switched off (flags below); --host-resolver-rules makes every host name
except the server's address unresolvable without any DNS query, and the client namespace has no
route other than the test links, so nothing can leave them. Bounded: every wait has a timeout and
the whole run is killed by the caller's `timeout`.
"""
import sys
from playwright.sync_api import sync_playwright

base, har = sys.argv[1], sys.argv[2]
exe = sys.argv[3] if len(sys.argv) > 3 else "/usr/bin/chromium"
host = base.split("//", 1)[1].split("/", 1)[0]

ARGS = [
    "--no-sandbox", "--no-first-run", "--no-default-browser-check", "--no-pings",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-default-apps", "--disable-extensions", "--disable-breakpad", "--disable-crash-reporter",
    "--disable-client-side-phishing-detection", "--disable-domain-reliability",
    "--disable-background-timer-throttling", "--metrics-recording-only", "--disable-quic",
    "--dns-prefetch-disable", "--disable-gpu", "--password-store=basic", "--use-mock-keychain",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE %s" % host,
    "--disable-features=HttpsUpgrades,HttpsFirstBalancedModeAutoEnable,DnsOverHttps,AsyncDns,"
    "OptimizationHints,MediaRouter,Translate,InterestFeedContentSuggestions,CertificateTransparencyComponentUpdater,"
    "AutofillServerCommunication,PrivacySandboxSettings4,NetworkPrediction,SafeBrowsing",
]

with sync_playwright() as p:
    browser = p.chromium.launch(executable_path=exe, headless=True, args=ARGS, timeout=60_000)
    ctx = browser.new_context(record_har_path=har, record_har_content="embed", record_har_mode="full",
                              service_workers="block")
    page = ctx.new_page()
    page.set_default_timeout(20_000)
    page.goto(base + "/browser/index.html", wait_until="load")
    page.wait_for_selector("#status:has-text('done')")
    page.wait_for_timeout(300)
    page.click("#next")
    page.wait_for_url("**/page2.html")
    page.wait_for_selector("#status:has-text('done')")
    page.wait_for_timeout(300)
    page.reload(wait_until="load")
    page.wait_for_selector("#status:has-text('done')")
    page.wait_for_timeout(300)
    ctx.close()      # writes the HAR
    browser.close()
print("browser-client: chromium %s, HAR %s" % (browser.version, har), file=sys.stderr)
