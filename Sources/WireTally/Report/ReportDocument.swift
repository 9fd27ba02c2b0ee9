/// The HTML report as one self-contained document: inline style and scripts, the model's data as a
/// JSON block the script renders, nothing fetched (a Content-Security-Policy forbids any fetch).
package enum ReportDocument {
    /// The whole page for `model`.
    package static func html(_ model: ReportModel) -> String {
        let title = "wiretally report — " + model.files.map { $0.split(separator: "/").last.map(String.init) ?? $0 }.joined(separator: ", ")
        return """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="generator" content="wiretally">
        <title>\(escapeHTML(title))</title>
        <style>\(ReportStyle.css)</style>
        </head>
        <body>
        <header><h1>wiretally <span>report</span></h1><p id="report-files"></p></header>
        <div id="script-errors" role="alert" hidden><strong>The report's script failed — some sections may be incomplete:</strong><ul></ul></div>
        <script>\(ReportScript.errorCatcher)</script>
        <nav><a href="#summary">Summary</a><a href="#waterfall">Waterfall</a><a href="#endpoints">Endpoints</a><a href="#accuracy">Accuracy</a><a href="#connections">Connections</a><a href="#dns">DNS</a></nav>
        <main>
        <section id="summary"><h2>Summary</h2>
        <div class="cards" id="summary-cards"></div>
        <p class="note"><b>Up</b> and <b>down</b> are the IP bytes of every packet of the capture's connections and flows (client → server and back; what a carrier meters). <b>Overhead</b> is the share of those wire bytes that are not HTTP message bytes: wire bytes − HTTP message bytes (<span id="summary-message-bytes"></span> B: start lines, headers, bodies and chunk framing exactly as the application sent them, TLS plaintext estimates for encrypted exchanges), divided by wire bytes — IP and TCP headers, handshakes, ACKs, retransmissions, TLS records, DNS and traffic that is not HTTP.</p>
        </section>
        <section id="waterfall"><h2>Waterfall <small>one row per HTTP exchange, by start time — the streams of an HTTP/2 connection grouped under it; hover for exact numbers</small></h2>
        <div class="filters">
        <label>Host <select id="filter-host"><option value="">all hosts</option></select></label>
        <label>Endpoint <select id="filter-endpoint"><option value="">all endpoints</option></select></label>
        <label>Status <select id="filter-status"><option value="">all</option></select></label>
        <label>URL contains <input id="filter-text" type="search" placeholder="/api"></label>
        </div>
        <div class="legend" id="waterfall-legend"></div>
        <div class="wf-scroll"><div id="waterfall-rows"></div></div>
        <p class="note" id="waterfall-count"></p>
        <button id="waterfall-more" class="more" hidden>Show more</button>
        <p class="note">Up and down are each exchange's IP bytes by wiretally's attribution (its messages, their ACKs, the connection's handshake on its first exchange and teardown on its last). Phases are drawn one after the other from the exchange's start, as browsers do; where they overlap on the wire (a <code>100 Continue</code>), the tooltip has the measured values.</p>
        </section>
        <section id="endpoints"><h2>Endpoints <small>method, host and path template (ids folded); rate windows of <span id="endpoints-window"></span> s</small></h2>
        <div id="endpoints-body"></div>
        <p class="note"><b>runaway</b>: the request rate keeps growing over the windows; <b>burst</b>: one window far above the endpoint's usual rate; <b>duplicate</b>: identical requests repeated within a second. The evidence is under each flag.</p>
        </section>
        <section id="accuracy"><h2>Accuracy <small>app-layer estimates against the wire (<span id="accuracy-level">\(model.level.rawValue)</span>)</small></h2>
        <div id="accuracy-body"></div>
        <p class="note">Error = (estimated − wire) / wire: negative when the estimate misses bytes. The gap by cause splits wire − estimated exactly (hover the bar).</p>
        </section>
        <section id="connections"><h2>Connections <small><span id="connections-count"></span> TCP and QUIC connections</small></h2><div id="connections-body"></div></section>
        <section id="dns"><h2>DNS lookups <small><span id="dns-count"></span> transactions</small></h2><div id="dns-body"></div></section>
        </main>
        <script type="application/json" id="report-data">\(scriptSafeJSON(model.json))</script>
        <script>\(ReportScript.render)</script>
        </body>
        </html>

        """
    }

    /// JSON text that cannot end its `<script>` element or open a comment there: `<`, `>` and `&`
    /// (which JSON only has inside strings) become `\u` escapes, as do the line separators.
    package static func scriptSafeJSON(_ value: JSONValue) -> String {
        replacing(value.serialized, [
            "<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u{2028}": "\\u2028", "\u{2029}": "\\u2029",
        ])
    }

    /// Text safe in HTML content and quoted attribute values.
    package static func escapeHTML(_ text: String) -> String {
        replacing(text, ["&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;"])
    }

    private static func replacing(_ text: String, _ replacements: [Unicode.Scalar: String]) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            if let replacement = replacements[scalar] { result += replacement } else { result.unicodeScalars.append(scalar) }
        }
        return result
    }
}
