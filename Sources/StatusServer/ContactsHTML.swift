import SystemSupport

/// The contacts' pages: `/contacts` (the list and its search), `/contacts/UID` (one contact, where it lives, its
/// versions), `/trash`, the restore's confirmation and `/tokens`. Written by the server, whole, with no script at
/// all (their policy allows none): links and forms, which work on any phone. Every text from a card goes through
/// ``ByteWriter/html(_:)``, and a card's address becomes a link only with `http`, `https`, `mailto` or `tel`.
///
/// Stable hooks for the tests and people's own tools: `#contacts` (`li.contact` with `.name`, `.phone`, `.email`,
/// `.initials` or `img.photo`), `#search`, `#next`; `#contact` with `#fields` (`div.field.field-KIND`), `#unknown`,
/// `#remotes`, `#versions` (`li.version` with `.cause`, `table.changes`, `form.restore`); `#trash`
/// (`li.trashed`); `#restore` (the confirmation) and `#restore-result`; `#tokens`, `#token-new`.
enum ContactsHTML {
    /// The start of every contacts' page, up to and with its `<main>` and navigation.
    static func head(_ title: String, into w: inout ByteWriter) {
        StatusPage.documentStart(title: title, into: &w)
        w.raw(StatusPage.baseStyle)
        w.raw(style)
        w.raw(
            """
            </style>
            </head>
            <body>
            <main>
            <nav><a href="/">Status</a> <a href="/contacts">Contacts</a> <a href="/trash">Trash</a> \
            <a href="/tokens">API tokens</a></nav>

            """)
    }

    static func foot(into w: inout ByteWriter) {
        w.raw("</main>\n</body>\n</html>\n")
    }

    static let style = """
        nav{display:flex;flex-wrap:wrap;gap:1rem;margin:0 0 1rem}a{color:var(--accent)}
        h1{margin:.25rem 0 1rem;font-size:1.6rem;overflow-wrap:anywhere}
        #search{display:flex;gap:.5rem;margin:0 0 1rem}#search input{flex:1;min-height:44px;padding:.3rem .6rem;\
        font:inherit}
        ol.list{margin:0;padding:0;list-style:none}
        .contact,.trashed,.version,.token{display:flex;gap:.75rem;align-items:center;padding:.6rem 0;\
        border-top:1px solid var(--line);overflow-wrap:anywhere}
        .contact:first-child,.trashed:first-child,.version:first-child,.token:first-child{border-top:0}
        .initials,.photo{flex:none;width:2.6rem;height:2.6rem;border-radius:50%;object-fit:cover}
        .initials{display:grid;place-items:center;background:var(--line);font-weight:600}
        .who{min-width:0}.who .name{font-weight:600;display:block}.who .phone,.who .email{display:block;\
        color:var(--muted);font-size:.9rem}
        .big{width:5.5rem;height:5.5rem;font-size:1.8rem}
        .field{display:grid;grid-template-columns:7.5rem 1fr;gap:.75rem;padding:.35rem 0;border-top:1px solid \
        var(--line)}.field:first-child{border-top:0}.field .label{color:var(--muted);font-size:.9rem}
        .field .value{overflow-wrap:anywhere;white-space:pre-wrap}
        .version{display:block}.version .when{color:var(--muted);font-size:.9rem}
        table.changes{width:100%;margin:.4rem 0;border-collapse:collapse;font-size:.9rem;table-layout:fixed}
        .changes th,.changes td{padding:.25rem;border:1px solid var(--line);text-align:left;vertical-align:top;\
        overflow-wrap:anywhere}.changes .before{background:rgba(192,38,45,.08)}.changes .after{\
        background:rgba(21,128,61,.08)}
        code,.raw{font-size:.85rem;overflow-wrap:anywhere}
        form.inline{display:inline-block;margin:.3rem .5rem 0 0}
        .note{color:var(--muted);font-size:.9rem}.deleted{color:var(--bad);font-weight:600}
        .token-secret{display:block;padding:.5rem;border:1px solid var(--line);user-select:all;font-size:1rem}
        .pager{margin:1rem 0 0}
        """

    // MARK: The list

    static func list(_ page: ContactsPage, search: String?, into w: inout ByteWriter) {
        head("Contacts", into: &w)
        w.raw("<h1>Contacts</h1>\n<form id=\"search\" method=\"get\" action=\"/contacts\" role=\"search\">")
        w.raw("<input name=\"q\" type=\"search\" aria-label=\"Search\" autocomplete=\"off\" ")
        w.raw("placeholder=\"Name, organisation, email or phone\" value=\"")
        w.html(search ?? "")
        w.raw("\"><button type=\"submit\">Search</button></form>\n<section>\n<ol id=\"contacts\" class=\"list\">\n")
        for contact in page.contacts {
            w.raw("<li class=\"contact\">")
            badge(contact, big: false, into: &w)
            w.raw("<span class=\"who\"><a class=\"name\" href=\"/contacts/")
            w.html(FormEncoding.escape(contact.uid))
            w.raw("\">")
            w.html(contact.name.isEmpty ? "(no name)" : contact.name)
            w.raw("</a>")
            if let phone = contact.phone {
                w.raw("<span class=\"phone\">")
                link(phone, kind: .phone, into: &w)
                w.raw("</span>")
            }
            if let email = contact.email {
                w.raw("<span class=\"email\">")
                link(email, kind: .email, into: &w)
                w.raw("</span>")
            }
            w.raw("</span></li>\n")
        }
        if page.contacts.isEmpty {
            w.raw("<li class=\"empty\">")
            w.raw(search.map { _ in "No contact matches." } ?? "No contacts yet.")
            w.raw("</li>\n")
        }
        w.raw("</ol>\n")
        if let next = page.next {
            w.raw("<p class=\"pager\"><a id=\"next\" href=\"/contacts?")
            if let search, !search.isEmpty {
                w.raw("q=")
                w.html(FormEncoding.escape(search))
                w.raw("&amp;")
            }
            w.raw("after=")
            w.html(FormEncoding.escape(next))
            w.raw("\">More</a></p>\n")
        }
        w.raw("</section>\n<section>\n<h2>Backup</h2>\n")
        w.raw("<p><a id=\"download-all\" href=\"/api/export\" download>Download all contacts</a> (one .vcf file)</p>\n")
        w.raw("<form id=\"as-of\" method=\"get\" action=\"/api/export\"><label>As they were at ")
        w.raw("<input name=\"as_of\" placeholder=\"2026-11-20 18:00\" required></label> ")
        w.raw("<button class=\"secondary\" type=\"submit\">Download</button>")
        w.raw("<span class=\"note\"> A date and time (UTC), or a span back from now: 3d, 12h.</span></form>\n")
        w.raw("</section>\n")
        foot(into: &w)
    }

    /// The round badge: the photo, or the initials.
    private static func badge(_ contact: ContactSummary, big: Bool, into w: inout ByteWriter) {
        if contact.hasPhoto {
            w.raw("<img class=\"photo\(big ? " big" : "")\" alt=\"\" loading=\"lazy\" src=\"/api/contacts/")
            w.html(FormEncoding.escape(contact.uid))
            w.raw("/photo\">")
        } else {
            w.raw("<span class=\"initials\(big ? " big" : "")\" aria-hidden=\"true\">")
            w.html(contact.initials)
            w.raw("</span>")
        }
    }

    /// `value` as a link where its kind makes one and its scheme is one a page may follow; else as text.
    static func link(_ value: String, kind: ContactField.Kind, into w: inout ByteWriter) {
        guard let href = href(value, kind: kind) else {
            w.html(value)
            return
        }
        w.raw("<a href=\"")
        w.html(href)
        w.raw("\" rel=\"noopener noreferrer\">")
        w.html(value)
        w.raw("</a>")
    }

    /// `tel:` for a phone (its `+` and digits), `mailto:` for an email, the address itself for a web address with
    /// `http` or `https`; nil for anything else (`javascript:`, `data:`, a `tel:` with letters).
    static func href(_ value: String, kind: ContactField.Kind) -> String? {
        let text = value.trimmingWhitespace
        switch kind {
        case .phone:
            let kept = text.unicodeScalars.filter { $0 == "+" || ("0"..."9").contains($0) }
            guard kept.contains(where: { $0 != "+" }) else { return nil }
            return "tel:" + String(String.UnicodeScalarView(kept))
        case .email:
            // One `@`, and only what an address's local part and domain are made of (RFC 5322's atext, dots, and
            // letters of any script): no `?` that would add headers to the mail, no quotes, no spaces.
            let atext = Set("!#$%&'*+-/=^_`{|}~.@".unicodeScalars)
            guard text.unicodeScalars.count(where: { $0 == "@" }) == 1, !text.hasPrefix("@"), !text.hasSuffix("@"),
                text.unicodeScalars.allSatisfy({
                    atext.contains($0) || $0.properties.isAlphabetic || ("0"..."9").contains($0)
                })
            else { return nil }
            return "mailto:" + text
        case .url, .social:
            let lower = text.lowercased()
            guard lower.hasPrefix("https://") || lower.hasPrefix("http://"),
                !text.unicodeScalars.contains(where: { $0 <= " " })
            else { return nil }
            return text
        default:
            return nil
        }
    }

    // MARK: One contact

    /// The anti-forgery token of the paired browser for the page's forms; nil: reading only (the page password, no
    /// paired browser), no forms.
    static func contact(
        _ detail: ContactDetail, versions: VersionsPage, formToken: String?, into w: inout ByteWriter
    ) {
        let summary = detail.summary
        head(summary.name.isEmpty ? "(no name)" : summary.name, into: &w)
        w.raw("<div id=\"contact\">\n<p>")
        badge(summary, big: true, into: &w)
        w.raw("</p>\n<h1>")
        w.html(summary.name.isEmpty ? "(no name)" : summary.name)
        w.raw("</h1>\n")
        if detail.deleted {
            w.raw("<p class=\"deleted\">Deleted: in the trash. Restore a version below to bring it back.</p>\n")
        }
        w.raw("<section>\n<div id=\"fields\">\n")
        for field in detail.fields {
            w.raw("<div class=\"field field-")
            w.raw(field.kind.rawValue)
            w.raw("\"><span class=\"label\">")
            w.html(fieldTitle(field.kind))
            if let label = field.label {
                w.raw(" (")
                w.html(label)
                w.raw(")")
            }
            w.raw("</span><span class=\"value\">")
            if href(field.value, kind: field.kind) != nil {
                link(field.value, kind: field.kind, into: &w)
            } else {
                w.html(field.value, keepingLayout: true)
            }
            w.raw("</span></div>\n")
        }
        if detail.fields.isEmpty { w.raw("<p class=\"empty\">No fields.</p>\n") }
        w.raw("</div>\n</section>\n")
        if !detail.unknown.isEmpty {
            w.raw("<section>\n<h2>Other properties</h2>\n<div id=\"unknown\">\n")
            for property in detail.unknown {
                w.raw("<div class=\"field\"><span class=\"label raw\">")
                w.html(property.group.map { $0 + "." } ?? "")
                w.html(property.name)
                for parameter in property.parameters {
                    w.raw(";")
                    w.html(parameter.name)
                    w.raw("=")
                    w.html(parameter.values.joined(separator: ","))
                }
                w.raw("</span><span class=\"value raw\">")
                if let bytes = property.dataBytes {
                    w.raw("(")
                    w.decimal(bytes)
                    w.raw(" bytes of data)")
                } else {
                    w.html(property.value, keepingLayout: true)
                }
                w.raw("</span></div>\n")
            }
            w.raw("</div>\n</section>\n")
        }
        w.raw("<section>\n<h2>Where it lives</h2>\n<p id=\"remotes\">")
        if detail.remotes.isEmpty {
            w.raw("On this box only (no address book holds it yet).")
        } else {
            w.raw("On this box and in ")
            w.html(detail.remotes.joined(separator: ", "))
            w.raw(".")
        }
        w.raw("</p>\n<p><a id=\"download-one\" href=\"/api/export?uid=")
        w.html(FormEncoding.escape(summary.uid))
        w.raw("\" download>Download as .vcf</a></p>\n</section>\n")
        versionsSection(versions, uid: summary.uid, formToken: formToken, into: &w)
        w.raw("</div>\n")
        foot(into: &w)
    }

    private static func versionsSection(
        _ page: VersionsPage, uid: String, formToken: String?, into w: inout ByteWriter
    ) {
        w.raw("<section>\n<h2>Versions</h2>\n<ol id=\"versions\" class=\"list\">\n")
        for version in page.versions {
            w.raw("<li class=\"version version-")
            w.html(version.kind)
            w.raw("\"><span class=\"when\">")
            UnixTime.writeUTC(version.recordedAt / 1000, into: &w)
            if version.timeUnsure { w.raw(" (clock not set)") }
            w.raw("</span> &middot; <span class=\"what\">")
            w.html(kindWords(version.kind))
            w.raw("</span> by <span class=\"cause\">")
            w.html(version.cause)
            w.raw("</span>")
            if let run = version.runID {
                w.raw(" <span class=\"note\">(run ")
                w.decimal(run)
                w.raw(")</span>")
            }
            changesTable(version.changes, into: &w)
            if version.canRestore, let formToken {
                restoreForm(uid: uid, version: version.id, step: "preview", token: formToken, into: &w) {
                    $0.raw("<button class=\"secondary\" type=\"submit\">Restore the version before this</button>")
                }
            }
            w.raw("</li>\n")
        }
        if page.versions.isEmpty { w.raw("<li class=\"empty\">No earlier versions.</li>\n") }
        w.raw("</ol>\n")
        if let next = page.next {
            w.raw("<p class=\"pager\"><a href=\"/contacts/")
            w.html(FormEncoding.escape(uid))
            w.raw("?before=")
            w.decimal(next)
            w.raw("\">Older versions</a></p>\n")
        }
        w.raw("</section>\n")
    }

    static func changesTable(_ changes: [FieldChange], into w: inout ByteWriter) {
        guard !changes.isEmpty else { return }
        w.raw("<table class=\"changes\"><thead><tr><th>Field</th><th>Before</th><th>After</th></tr></thead><tbody>")
        for change in changes {
            w.raw("<tr><th scope=\"row\">")
            w.html(change.field)
            w.raw("</th><td class=\"before\">")
            w.html(change.before ?? "", keepingLayout: true)
            w.raw("</td><td class=\"after\">")
            w.html(change.after ?? "", keepingLayout: true)
            w.raw("</td></tr>")
        }
        w.raw("</tbody></table>\n")
    }

    static func restoreForm(
        uid: String, version: Int64, step: String, token: String, into w: inout ByteWriter,
        button: (inout ByteWriter) -> Void
    ) {
        w.raw("<form class=\"restore inline\" method=\"post\" action=\"/restore\">")
        hidden("uid", uid, into: &w)
        hidden("version", String(version), into: &w)
        hidden("step", step, into: &w)
        hidden("token", token, into: &w)
        button(&w)
        w.raw("</form>")
    }

    static func hidden(_ name: String, _ value: String, into w: inout ByteWriter) {
        w.raw("<input type=\"hidden\" name=\"")
        w.raw(name)
        w.raw("\" value=\"")
        w.html(value)
        w.raw("\">")
    }

    static func fieldTitle(_ kind: ContactField.Kind) -> String {
        switch kind {
        case .name: "Name"
        case .nickname: "Nickname"
        case .phone: "Phone"
        case .email: "Email"
        case .address: "Address"
        case .birthday: "Birthday"
        case .anniversary: "Anniversary"
        case .organisation: "Organisation"
        case .title: "Title"
        case .role: "Role"
        case .note: "Note"
        case .categories: "Categories"
        case .group: "Group"
        case .url: "Web"
        case .social: "Social"
        case .related: "Related"
        case .gender: "Gender"
        case .language: "Language"
        case .timezone: "Time zone"
        case .geo: "Location"
        }
    }

    static func kindWords(_ kind: String) -> String {
        switch kind {
        case "created": "created"
        case "deleted": "deleted"
        case "archived": "kept aside (a conflict's other side)"
        default: "changed"
        }
    }

    // MARK: The trash

    static func trash(_ page: TrashPage, formToken: String?, into w: inout ByteWriter) {
        head("Trash", into: &w)
        w.raw("<h1>Trash</h1>\n<p class=\"note\">Contacts deleted within the history's age, newest first.</p>\n")
        w.raw("<section>\n<ol id=\"trash\" class=\"list\">\n")
        for contact in page.contacts {
            w.raw("<li class=\"trashed\"><span class=\"who\"><a class=\"name\" href=\"/contacts/")
            w.html(FormEncoding.escape(contact.uid))
            w.raw("\">")
            w.html(contact.name.isEmpty ? "(no name)" : contact.name)
            w.raw("</a><span class=\"note\">deleted ")
            UnixTime.writeUTC(contact.deletedAt / 1000, into: &w)
            w.raw(" by <span class=\"cause\">")
            w.html(contact.cause)
            w.raw("</span></span></span>")
            if let formToken {
                restoreForm(uid: contact.uid, version: contact.historyID, step: "preview", token: formToken, into: &w) {
                    $0.raw("<button class=\"secondary\" type=\"submit\">Restore</button>")
                }
            }
            w.raw("</li>\n")
        }
        if page.contacts.isEmpty { w.raw("<li class=\"empty\">The trash is empty.</li>\n") }
        w.raw("</ol>\n")
        if let next = page.next {
            w.raw("<p class=\"pager\"><a id=\"next\" href=\"/trash?after=")
            w.html(FormEncoding.escape(next))
            w.raw("\">More</a></p>\n")
        }
        w.raw("</section>\n")
        foot(into: &w)
    }

    // MARK: Restoring a version

    /// What restoring would change, and how to confirm it: on the page, for a browser paired within the last 10
    /// minutes; else by a long press of the box's button.
    static func restorePreview(
        uid: String, name: String, version: Int64, changes: [FieldChange], confirmHere: Bool, formToken: String,
        into w: inout ByteWriter
    ) {
        head("Restore", into: &w)
        w.raw("<h1>Restore ")
        w.html(name.isEmpty ? "(no name)" : name)
        w.raw("?</h1>\n<section id=\"restore\">\n<p>This is what would change:</p>\n")
        changesTable(changes, into: &w)
        if changes.isEmpty { w.raw("<p class=\"empty\">Nothing: the contact is already like this.</p>\n") }
        if confirmHere {
            restoreForm(uid: uid, version: version, step: "confirm", token: formToken, into: &w) {
                $0.raw("<button id=\"restore-confirm\" type=\"submit\">Restore</button>")
            }
        } else {
            restoreForm(uid: uid, version: version, step: "arm", token: formToken, into: &w) {
                $0.raw("<button id=\"restore-arm\" type=\"submit\">Restore with the box's button</button>")
            }
            w.raw(
                "<p class=\"note\">This browser was paired more than 10 minutes ago: the box's button confirms. After "
                    + "this, press and hold it (3 seconds) within 2 minutes.</p>\n")
        }
        w.raw(" <a href=\"/contacts/")
        w.html(FormEncoding.escape(uid))
        w.raw("\">Cancel</a>\n<p class=\"note\">A restore is a run of its own: the status page can undo it.</p>\n")
        w.raw("</section>\n")
        foot(into: &w)
    }

    /// The end of a restore: done (with its run), or waiting for the button, or why not.
    static func restoreResult(uid: String, text: String, into w: inout ByteWriter) {
        head("Restore", into: &w)
        w.raw("<h1>Restore</h1>\n<section>\n<p id=\"restore-result\">")
        w.html(text)
        w.raw("</p>\n<p><a href=\"/contacts/")
        w.html(FormEncoding.escape(uid))
        w.raw("\">Back to the contact</a></p>\n</section>\n")
        foot(into: &w)
    }

    /// A refusal as a page: not paired, not found, a store that failed.
    static func message(_ title: String, _ text: String, into w: inout ByteWriter) {
        head(title, into: &w)
        w.raw("<h1>")
        w.html(title)
        w.raw("</h1>\n<section>\n<p id=\"message\">")
        w.html(text)
        w.raw("</p>\n</section>\n")
        foot(into: &w)
    }

    // MARK: API tokens

    /// The tokens (never a token itself but `created`, once, right after it was made), and for a paired browser the
    /// forms that make and revoke them.
    static func tokens(
        _ list: [APITokens.Info], formToken: String?, created: (name: String, token: String)?, problem: String?,
        into w: inout ByteWriter
    ) {
        head("API tokens", into: &w)
        w.raw("<h1>API tokens</h1>\n<p class=\"note\">Programs read the contacts with a token (")
        w.raw("<code>Authorization: Bearer TOKEN</code>); one that writes may also change them.</p>\n")
        if let created {
            w.raw("<section id=\"token-new\">\n<p>The token <strong>")
            w.html(created.name)
            w.raw("</strong>, shown this once: copy it now.</p>\n<code class=\"token-secret\">")
            w.html(created.token)
            w.raw("</code>\n</section>\n")
        }
        if let problem {
            w.raw("<p id=\"token-problem\" class=\"deleted\">")
            w.html(problem)
            w.raw("</p>\n")
        }
        w.raw("<section>\n<ol id=\"tokens\" class=\"list\">\n")
        for info in list {
            w.raw("<li class=\"token\"><span class=\"who\"><span class=\"name\">")
            w.html(info.name)
            w.raw("</span><span class=\"note\">")
            w.raw(info.scope == .write ? "reads and writes" : "reads")
            w.raw(", made ")
            UnixTime.writeUTC(info.created, into: &w)
            w.raw(", ")
            if let used = info.lastUsed {
                w.raw("last used ")
                UnixTime.writeUTC(used, into: &w)
            } else {
                w.raw("never used")
            }
            w.raw("</span></span>")
            if let formToken {
                w.raw("<form class=\"inline\" method=\"post\" action=\"/tokens\">")
                hidden("action", "revoke", into: &w)
                hidden("name", info.name, into: &w)
                hidden("token", formToken, into: &w)
                w.raw("<button class=\"secondary\" type=\"submit\">Revoke</button></form>")
            }
            w.raw("</li>\n")
        }
        if list.isEmpty { w.raw("<li class=\"empty\">No tokens yet.</li>\n") }
        w.raw("</ol>\n</section>\n")
        if let formToken {
            w.raw("<section>\n<h2>Make a token</h2>\n<form id=\"token-create\" method=\"post\" action=\"/tokens\">")
            hidden("action", "create", into: &w)
            hidden("token", formToken, into: &w)
            w.raw("<p><label>Name <input name=\"name\" required maxlength=\"32\" pattern=\"[A-Za-z0-9._\\-]+\" ")
            w.raw("placeholder=\"home-assistant\"></label></p>\n<p><label><input type=\"checkbox\" name=\"write\"> ")
            w.raw("It may also change contacts</label></p>\n<button type=\"submit\">Make the token</button></form>\n")
            w.raw("</section>\n")
        } else {
            w.raw("<p class=\"note\">Pair this browser with the box to make or revoke tokens.</p>\n")
        }
        foot(into: &w)
    }
}
