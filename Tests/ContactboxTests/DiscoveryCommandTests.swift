import Foundation
import TestSupport
import Testing

/// `sync` and `discover` against URLs that are no address book, and servers that answer 200 with something that is
/// no CardDAV answer: the stand-in server of Fixtures/hostile_carddav.py, whose discovery paths stand in for a
/// server's root, principals and calendars (real servers' wrong URLs, made small and exact).
@Suite("wrong URLs and answers that are no CardDAV answer", .serialized, .timeLimit(.minutes(5)))
struct DiscoveryCommandTests {
    func config(_ work: Workspace, url: String) throws -> String {
        try work.carddavConfig(name: "hostile", url: url, username: "user", password: "secret")
    }

    /// `discover URL` with the stand-in's login.
    func discover(_ work: Workspace, _ url: String) throws -> CommandResult {
        let passwordFile = try work.file("discover.password", "secret\n")
        chmod(passwordFile, 0o600)
        return try contactbox(["discover", url, "--username", "user", "--password-file", passwordFile])
    }

    @Test("a listing answered 200 with an HTML page is exit 76 with the page's title, bounded and escaped")
    func htmlInsteadOfMultistatus() throws {
        let work = try Workspace()
        let server = try HostileCardDAVServer("html-200", in: work)
        let result = try contactbox(["sync", "--config", try config(work, url: server.bookURL)])
        #expect(result.status == 76, "\(result)")
        #expect(
            result.stderr.contains(
                "REPORT /book/: 200 with an HTML page, not a CardDAV answer; its title: Database & cache down\n"),
            "\(result.stderr)")
    }

    @Test("a listing answered 200 with plain text is exit 76 with its first line")
    func plainTextInsteadOfMultistatus() throws {
        let work = try Workspace()
        let server = try HostileCardDAVServer("text-200", in: work)
        let result = try contactbox(["sync", "--config", try config(work, url: server.bookURL)])
        #expect(result.status == 76, "\(result)")
        #expect(
            result.stderr.contains(
                "REPORT /book/: 200 with plain text, not a CardDAV answer: Service temporarily down for maintenance\n"),
            "\(result.stderr)")
    }

    @Test("a remote whose URL finds nothing is exit 78, naming the address books to configure instead")
    func syncOfAMissingURL() throws {
        let work = try Workspace()
        let server = try HostileCardDAVServer("none", in: work)
        let base = "http://127.0.0.1:\(server.port)"
        let result = try contactbox(["sync", "--config", try config(work, url: base + "/nosuch/")])
        #expect(result.status == 78, "\(result)")
        #expect(
            result.stderr
                == "contactbox: created a new store at \(work.db)\ncontactbox: hostile: \(base)/nosuch/ is not an address book: nothing is there (404); it leads to "
                + "2 address books, set url to one of them: \(base)/home/a/ (A), \(base)/home/b/ (B)\n")
    }

    @Test("a remote whose URL is a calendar is exit 78, saying so")
    func syncOfACalendar() throws {
        let work = try Workspace()
        let server = try HostileCardDAVServer("none", in: work)
        let base = "http://127.0.0.1:\(server.port)"
        let result = try contactbox(["sync", "--config", try config(work, url: base + "/cal/")])
        #expect(result.status == 78, "\(result)")
        #expect(
            result.stderr
                == "contactbox: created a new store at \(work.db)\ncontactbox: hostile: \(base)/cal/ is not an address book: it is a calendar; it leads to "
                + "2 address books, set url to one of them: \(base)/home/a/ (A), \(base)/home/b/ (B)\n")
    }

    @Test("a remote whose URL is a collection of several books is exit 78, naming them")
    func syncOfAHomeSet() throws {
        let work = try Workspace()
        let server = try HostileCardDAVServer("none", in: work)
        let base = "http://127.0.0.1:\(server.port)"
        let result = try contactbox(["sync", "--config", try config(work, url: base + "/home/")])
        #expect(result.status == 78, "\(result)")
        #expect(
            result.stderr
                == "contactbox: created a new store at \(work.db)\ncontactbox: hostile: \(base)/home/ is not an address book: it is a collection that is not an "
                + "address book; it leads to 2 address books, set url to one of them: \(base)/home/a/ (A), "
                + "\(base)/home/b/ (B)\n")
    }

    @Test("discover of a URL with nothing there says so and exits 78, listing the server's books")
    func discoverOfAMissingURL() throws {
        let work = try Workspace()
        let server = try HostileCardDAVServer("none", in: work)
        let base = "http://127.0.0.1:\(server.port)"
        let result = try discover(work, base + "/nosuch/")
        #expect(result.status == 78, "\(result)")
        #expect(result.stderr == "contactbox: nothing at \(base)/nosuch/ (404); the server's address books follow\n")
        #expect(
            result.stdout
                == "\(base)/home/a/\tA\tsync-collection; vCard 3.0\n\(base)/home/b/\tB\tsync-collection; vCard 3.0\n")
    }

    @Test("discover tells a refused account (403) from a refused login (401)")
    func discoverRefusals() throws {
        let work = try Workspace()
        let server = try HostileCardDAVServer("none", in: work)
        let base = "http://127.0.0.1:\(server.port)"
        let forbidden = try discover(work, base + "/other/")
        #expect(forbidden.status == 77, "\(forbidden)")
        #expect(
            forbidden.stderr
                == "contactbox: the server refused access to that account (403): the user name may not own it "
                + "(PROPFIND /other/: 403 Forbidden)\n")
        let unauthorized = try discover(work, base + "/locked/")
        #expect(unauthorized.status == 77, "\(unauthorized)")
        #expect(
            unauthorized.stderr
                == "contactbox: the server refused the login (401): check the user name and the password "
                + "(PROPFIND /locked/: 401 Unauthorized)\n")
    }

    @Test("discover of a web-login address tries the host's well-known URL and lists the books it leads to")
    func discoverOfALoginPage() throws {
        let work = try Workspace()
        let server = try HostileCardDAVServer("none", in: work)
        let base = "http://127.0.0.1:\(server.port)"
        let result = try discover(work, base + "/login/")
        #expect(result.status == 0, "\(result)")
        #expect(
            result.stderr
                == "contactbox: warning: \(base)/login/ is not an address book: it gave no WebDAV answer (PROPFIND "
                + "/login/: 200 with an HTML page, not a CardDAV answer; its title: Sign in & \\u{1B}[2Jsync); the "
                + "ones found from there follow\n")
        #expect(result.stdout.split(separator: "\n").count == 2, "\(result.stdout)")
        #expect(server.requests().contains { $0.hasPrefix("PROPFIND /.well-known/carddav ") })
    }

    @Test("discover of a web-login address on a server without a well-known URL is exit 76 with the page's title")
    func discoverOfALoginPageWithoutWellKnown() throws {
        let work = try Workspace()
        let server = try HostileCardDAVServer("no-well-known", in: work)
        let base = "http://127.0.0.1:\(server.port)"
        let result = try discover(work, base + "/login/")
        #expect(result.status == 76, "\(result)")
        #expect(
            result.stderr
                == "contactbox: PROPFIND /login/: 200 with an HTML page, not a CardDAV answer; its title: "
                + "Sign in & \\u{1B}[2Jsync\n")
    }
}
