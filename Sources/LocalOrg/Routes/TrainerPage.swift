import ForceJSON
import Foundation

/// The HTML, script and JSON of the trainer's page. Plain pages that work without the script;
/// the script only keeps the table and the feed current.
enum TrainerPage {
    static func iso(_ date: Date) -> String {
        ISO8601DateFormatter.string(from: date, timeZone: TimeZone(identifier: "UTC") ?? .current, formatOptions: [.withInternetDateTime])
    }

    static func iso(seconds: Int64) -> String { iso(Date(timeIntervalSince1970: Double(seconds))) }

    static func json(_ activity: UserActivity) -> JSONValue {
        [
            "username": .string(activity.username), "name": .string(activity.name), "isAdmin": .bool(activity.isAdmin),
            "isActive": .bool(activity.isActive),
            "lockedUntil": activity.lockedUntil.map { .string(iso(seconds: $0)) } ?? .null,
            "lastSignIn": activity.lastSignIn.map { .string(iso(seconds: $0)) } ?? .null,
            "lastSync": activity.lastSync.map { .string(iso($0)) } ?? .null,
            "requests": .int(Int64(activity.requests)), "recordsChanged": .int(Int64(activity.recordsChanged)),
            "conflicts": .int(Int64(activity.conflicts)), "errors": .int(Int64(activity.errors)),
        ]
    }

    static func json(_ event: LoggedEvent) -> JSONValue {
        let entry = event.entry
        let tally = entry.tally
        return [
            "sequence": .int(event.sequence), "time": .string(iso(entry.time)), "username": entry.username.map(JSONValue.string) ?? .null,
            "method": .string(entry.method), "path": .string(entry.path), "status": .int(Int64(entry.status)),
            "inner": entry.inner.map(JSONValue.string) ?? .null, "milliseconds": .double(entry.milliseconds),
            "origin": entry.origin.map(JSONValue.string) ?? .null, "line": .string(entry.line),
            "done": .int(Int64(tally.done)), "conflicts": .int(Int64(tally.conflicts)), "errors": .int(Int64(tally.errors)),
        ]
    }

    static func page(title: String, body: String, status: Int = 200, headers: [(String, String)] = []) -> APIResponse {
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
            <title>\(htmlEscaped(title))</title>
            <style>
            body{font-family:system-ui,sans-serif;margin:1.5em auto;max-width:72em;padding:0 1em;color:#222}
            h1{font-size:1.4em}h2{font-size:1.1em;margin-top:1.6em}
            table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.25em .6em;border-bottom:1px solid #ddd}
            td.n{text-align:right;font-variant-numeric:tabular-nums}.bad{color:#a00;font-weight:bold}.muted{color:#777}
            tr.fresh{background:#fff6bf}#feed{font-family:ui-monospace,monospace;font-size:.85em;list-style:none;padding:0;max-height:30em;overflow:auto}
            #feed li{padding:.1em 0;border-bottom:1px solid #eee}#feed li.refused{color:#a00}
            form.inline{display:inline}label{margin-right:1em}.notice{color:#a00}header{display:flex;justify-content:space-between;align-items:baseline}
            </style></head><body>
            \(body)
            <script src="/trainer/trainer.js"></script>
            </body></html>
            """
        return APIResponse(
            status: status,
            headers: [
                ("Content-Type", "text/html;charset=UTF-8"), ("Cache-Control", "no-store"),
                ("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'"),
                ("X-Content-Type-Options", "nosniff"),
            ] + headers, body: Array(html.utf8))
    }

    static func redirect(to location: String, cookie: String) -> APIResponse {
        APIResponse(status: 303, headers: [("Location", location), ("Set-Cookie", cookie), ("Cache-Control", "no-store")])
    }

    static func signIn(notice: String?, status: Int = 200) -> APIResponse {
        page(
            title: "localorg: trainer's page",
            body: """
                <h1>Trainer's page</h1>
                <p>Sign in as an administrator of this org.</p>
                \(notice.map { "<p class=\"notice\" id=\"notice\">\(htmlEscaped($0))</p>" } ?? "")
                <form method="post" action="/trainer/sign-in">
                  <label>Username <input name="username" id="username" autocomplete="username" required></label>
                  <label>Password <input name="password" id="password" type="password" autocomplete="current-password" required></label>
                  <button id="sign-in">Sign in</button>
                </form>
                """, status: status)
    }

    static func refused(_ message: String) -> APIResponse {
        page(
            title: "localorg: not for this user",
            body: """
                <h1>Not for this user</h1><p class="notice" id="notice">\(htmlEscaped(message))</p>
                <form method="post" action="/trainer/sign-out"><button>Sign in as someone else</button></form>
                """, status: 403, headers: [("Set-Cookie", LocalOrgAPI.expiredTrainerCookie)])
    }

    static func activityRow(_ activity: UserActivity) -> String {
        func time(_ text: String?) -> String {
            text.map { "<time datetime=\"\($0)\">\($0)</time>" } ?? "<span class=\"muted\">never</span>"
        }
        let state =
            !activity.isActive
            ? "deactivated"
            : (activity.lockedUntil.map { $0 > Int64(Date().timeIntervalSince1970) } == true ? "locked out" : (activity.isAdmin ? "admin" : ""))
        return """
            <tr data-username="\(htmlEscaped(activity.username))"><td>\(htmlEscaped(activity.username))</td><td>\(htmlEscaped(activity.name))</td>\
            <td>\(state)</td><td>\(time(activity.lastSignIn.map { iso(seconds: $0) }))</td><td>\(time(activity.lastSync.map(iso)))</td>\
            <td class="n" data-field="requests">\(activity.requests)</td><td class="n" data-field="recordsChanged">\(activity.recordsChanged)</td>\
            <td class="n\(activity.conflicts > 0 ? " bad" : "")" data-field="conflicts">\(activity.conflicts)</td>\
            <td class="n\(activity.errors > 0 ? " bad" : "")" data-field="errors">\(activity.errors)</td></tr>
            """
    }

    static func main(organization: (name: String, id: String), signedInAs: String, activity: [UserActivity], latest: [LoggedEvent]) -> APIResponse {
        let rows = activity.map(activityRow).joined(separator: "\n")
        let feed = latest.reversed().map { event in
            "<li class=\"\(event.entry.tally.done == 0 ? "refused" : "")\">\(htmlEscaped(event.entry.line))</li>"
        }.joined(separator: "\n")
        return page(
            title: "localorg: \(organization.name)",
            body: """
                <header><h1>\(htmlEscaped(organization.name)) <span class="muted">\(htmlEscaped(organization.id))</span></h1>
                <form class="inline" method="post" action="/trainer/sign-out">\(htmlEscaped(signedInAs)) <button>Sign out</button></form></header>
                <h2>Users</h2>
                <table id="activity"><thead><tr><th>Username</th><th>Name</th><th></th><th>Last sign-in</th><th>Last sync</th>
                <th>Requests</th><th>Records changed</th><th>Conflicts</th><th>Errors</th></tr></thead>
                <tbody>
                \(rows)
                </tbody></table>
                <h2>Record history</h2>
                <form method="get" action="/trainer/history"><label>Record id <input name="id" id="record-id" size="20"></label>
                <button id="show-history">Show</button></form>
                <h2>Live <span class="muted" id="feed-state">(connecting)</span></h2>
                <ul id="feed" data-after="\(latest.last?.sequence ?? 0)">
                \(feed)
                </ul>
                """)
    }

    static func history(
        id: String, record: (object: String, fields: [(name: String, value: JSONValue)])?, changes: [FieldChange],
        notice: String?
    ) -> APIResponse {
        func text(_ value: JSONValue) -> String { RecordInspector.displayText(value) ?? "" }
        let current =
            record.map { record in
                "<h2>\(htmlEscaped(record.object)) as it is now</h2><table id=\"fields\"><tbody>"
                    + record.fields.filter { !$0.value.isNull }.map { "<tr><th>\(htmlEscaped($0.name))</th><td>\(htmlEscaped(text($0.value)))</td></tr>" }
                    .joined(separator: "\n") + "</tbody></table>"
            } ?? ""
        let rows = changes.map { change in
            let what =
                change.field == FieldChange.createdField
                ? "Created."
                : change.field == FieldChange.deletedField
                    ? "Deleted."
                    : "Changed <b>\(htmlEscaped(change.field))</b> from \(change.oldValue.map { "“\(htmlEscaped($0))”" } ?? "blank") to \(change.newValue.map { "“\(htmlEscaped($0))”" } ?? "blank")."
            return "<tr><td><time datetime=\"\(iso(seconds: change.time))\">\(iso(seconds: change.time))</time></td><td>\(htmlEscaped(change.username))</td><td>\(what)</td></tr>"
        }.joined(separator: "\n")
        return page(
            title: "localorg: history of \(id)",
            body: """
                <p><a href="/trainer">← Trainer's page</a></p>
                <h1>History of <span id="history-id">\(htmlEscaped(id))</span></h1>
                <form method="get" action="/trainer/history"><label>Record id <input name="id" value="\(htmlEscaped(id))" size="20"></label><button>Show</button></form>
                \(notice.map { "<p class=\"notice\" id=\"notice\">\(htmlEscaped($0))</p>" } ?? "")
                <h2>Changes</h2>
                <table id="history"><thead><tr><th>Time</th><th>User</th><th>Change</th></tr></thead><tbody>
                \(rows.isEmpty ? "<tr><td colspan=\"3\" class=\"muted\">No change recorded since the org was seeded.</td></tr>" : rows)
                </tbody></table>
                \(current)
                """)
    }

    /// Shows times in the browser's zone, follows the live feed and refreshes the users' table.
    static let script = APIResponse(
        status: 200,
        headers: [
            ("Content-Type", "text/javascript;charset=UTF-8"), ("Cache-Control", "no-cache"), ("X-Content-Type-Options", "nosniff"),
        ],
        body: Array(
            """
            "use strict";
            function localTimes(root) {
              for (const element of root.querySelectorAll("time[datetime]")) {
                const date = new Date(element.getAttribute("datetime"));
                if (!isNaN(date)) { element.textContent = date.toLocaleString(); element.title = element.getAttribute("datetime"); }
              }
            }
            function cell(text, className) {
              const td = document.createElement("td");
              if (className) td.className = className;
              td.textContent = text;
              return td;
            }
            function timeCell(iso) {
              const td = document.createElement("td");
              if (iso) { const t = document.createElement("time"); t.setAttribute("datetime", iso); t.textContent = iso; td.appendChild(t); }
              else { const s = document.createElement("span"); s.className = "muted"; s.textContent = "never"; td.appendChild(s); }
              return td;
            }
            function renderActivity(users) {
              const body = document.querySelector("#activity tbody");
              const before = {};
              for (const row of body.querySelectorAll("tr")) before[row.dataset.username] = row.dataset.signature;
              body.textContent = "";
              for (const user of users) {
                const row = document.createElement("tr");
                row.dataset.username = user.username;
                row.dataset.signature = [user.requests, user.recordsChanged, user.conflicts, user.errors, user.lastSync].join("|");
                const locked = user.lockedUntil && new Date(user.lockedUntil) > new Date();
                row.append(cell(user.username), cell(user.name),
                           cell(!user.isActive ? "deactivated" : locked ? "locked out" : user.isAdmin ? "admin" : ""),
                           timeCell(user.lastSignIn), timeCell(user.lastSync));
                for (const field of ["requests", "recordsChanged", "conflicts", "errors"]) {
                  const td = cell(String(user[field]), "n" + ((field === "conflicts" || field === "errors") && user[field] > 0 ? " bad" : ""));
                  td.dataset.field = field;
                  row.appendChild(td);
                }
                if (before[user.username] !== undefined && before[user.username] !== row.dataset.signature) row.className = "fresh";
                body.appendChild(row);
              }
              localTimes(body);
            }
            let refreshTimer = null;
            function refreshSoon() {
              if (refreshTimer) return;
              refreshTimer = setTimeout(async () => {
                refreshTimer = null;
                const answer = await fetch("/trainer/activity", {credentials: "same-origin"});
                if (answer.status === 401) { location.reload(); return; }
                if (answer.ok) renderActivity(await answer.json());
              }, 200);
            }
            function follow(feed) {
              const state = document.getElementById("feed-state");
              const source = new EventSource("/trainer/events?after=" + encodeURIComponent(feed.dataset.after || "0"));
              source.onopen = () => { state.textContent = "(live)"; };
              source.onerror = () => {
                // Closed for good (the session ended): the page asks to sign in again.
                if (source.readyState === EventSource.CLOSED) location.reload(); else state.textContent = "(reconnecting)";
              };
              source.addEventListener("request", (message) => {
                const event = JSON.parse(message.data);
                const item = document.createElement("li");
                item.textContent = event.line;
                item.dataset.sequence = event.sequence;
                if (event.done === 0) item.className = "refused";
                feed.insertBefore(item, feed.firstChild);
                while (feed.children.length > 500) feed.removeChild(feed.lastChild);
                refreshSoon();
              });
            }
            localTimes(document);
            const feed = document.getElementById("feed");
            if (feed) follow(feed);
            """.utf8))
}
