import Foundation
import Testing

/// Every command finds the store the same way: `--db`, else `CONTACTBOX_DB`, else the configuration's `store`, else
/// the installed path; and a command that creates a store says where.
@Suite("one store for every command", .timeLimit(.minutes(5)))
struct OneStoreCommandTests {
    /// A configuration naming `store` and one folder remote.
    func config(_ work: Workspace, store: String) throws -> String {
        try work.file(
            "contactbox.toml",
            """
            store = "\(store)"

            [[remote]]
            name = "usb"
            kind = "vdir"
            folder = "\(work.path)/usb"
            create_folder = true

            """)
    }

    @Test("import with a configuration naming a store writes to that store, list shows it, and sync uploads it")
    func importUsesTheConfiguredStore() throws {
        let work = try Workspace()
        let store = work.path + "/configured/contacts.sqlite"
        let environment = ["CONTACTBOX_CONFIG": try config(work, store: store)]
        _ = try work.file("cards/ann.vcf", card("ann", "Ann"))
        _ = try work.file("cards/bob.vcf", card("bob", "Bob"))

        let imported = try contactbox(["import", work.path + "/cards"], environment: environment)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(
            imported.stderr.hasPrefix("contactbox: created a new store at \(store)\nImported 2"), "\(imported.stderr)")
        #expect(FileManager.default.fileExists(atPath: store))

        let listed = try contactbox(["list"], environment: environment)
        #expect(listed.status == 0 && listed.stdout == "Ann\tann\nBob\tbob\n", "\(listed)")
        #expect(listed.stderr.isEmpty, "the store exists: nothing is created")

        let synced = try contactbox(["sync"], environment: environment)
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(synced.stdout.contains("usb: synced: store: 0 downloaded, 0 updated, 0 deleted; server: 2 uploaded"))
        #expect(FileManager.default.fileExists(atPath: work.path + "/usb/ann.vcf"))
    }

    @Test("--db wins over CONTACTBOX_DB, which wins over the configuration's store, which wins over the default")
    func orderOfPrecedence() throws {
        let work = try Workspace()
        let stores = ["db", "env", "configured"].map { work.path + "/\($0).sqlite" }
        for (index, path) in stores.enumerated() {
            let input = try work.file("in\(index).vcf", card("c\(index)", "From \(["db", "env", "config"][index])"))
            #expect(try contactbox(["import", "--db", path, input]).status == 0)
        }
        let configPath = try config(work, store: stores[2])
        func listed(_ arguments: [String], _ environment: [String: String]) throws -> String {
            try contactbox(["list"] + arguments, environment: environment).stdout
        }
        #expect(
            try listed(["--db", stores[0]], ["CONTACTBOX_DB": stores[1], "CONTACTBOX_CONFIG": configPath])
                == "From db\tc0\n")
        #expect(try listed([], ["CONTACTBOX_DB": stores[1], "CONTACTBOX_CONFIG": configPath]) == "From env\tc1\n")
        #expect(try listed(["--config", configPath], [:]) == "From config\tc2\n")
        #expect(try listed([], ["CONTACTBOX_CONFIG": configPath]) == "From config\tc2\n")
        // --config wins over CONTACTBOX_CONFIG, as for sync.
        #expect(
            try listed(["--config", configPath], ["CONTACTBOX_CONFIG": work.path + "/missing.toml"])
                == "From config\tc2\n")
    }

    @Test("a configuration that is named but cannot be read stops a store command with exit 78, creating nothing")
    func missingConfiguration() throws {
        let work = try Workspace()
        let input = try work.file("in.vcf", card("ann", "Ann"))
        let result = try contactbox(["import", input], environment: ["CONTACTBOX_CONFIG": work.path + "/none.toml"])
        #expect(result.status == 78)
        #expect(
            result.stderr == "contactbox: \(work.path)/none.toml: cannot read: No such file or directory\n"
                + "Run `contactbox check-config` after fixing \(work.path)/none.toml, or name the store with --db.\n")
    }

    @Test("a configuration whose remotes are not set up yet still names the store")
    func storeWithoutRemotes() throws {
        let work = try Workspace()
        let store = work.path + "/box.sqlite"
        let configPath = try work.file("contactbox.toml", "store = \"\(store)\"\n")
        let input = try work.file("in.vcf", card("ann", "Ann"))
        #expect(try contactbox(["import", "--config", configPath, input]).status == 0)
        #expect(try contactbox(["list", "--db", store]).stdout == "Ann\tann\n")
    }

    @Test("a command that creates the store says where, once; reading an existing store says nothing of it")
    func creationMessage() throws {
        let work = try Workspace()
        let listed = try contactbox(["list", "--db", work.db])
        #expect(listed.status == 0)
        #expect(listed.stderr == "contactbox: created a new store at \(work.db)\n")
        let again = try contactbox(["list", "--db", work.db])
        #expect(again.status == 0 && again.stderr.isEmpty, "\(again)")
        let imported = try contactbox(["import", "--db", work.db, try work.file("in.vcf", card("ann", "Ann"))])
        #expect(!imported.stderr.contains("created"), "\(imported.stderr)")
    }
}
