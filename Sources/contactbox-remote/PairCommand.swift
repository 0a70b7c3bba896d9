import ArgumentParser
import CLISupport
import Config
import StatusServer

struct PairCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pair",
        abstract: "Pair a browser with the box by a one-time code, or forget every paired browser.",
        discussion: """
            Changing anything from the status page (an undo, the address books) needs a browser paired with the \
            box. Usually the box's button pairs it: choose Pair this browser on the page, then press the button. On \
            a box without a button, or over SSH, this command prints a one-time code instead: type it into the \
            page under "No button?". The code is good for 10 minutes and for one browser; five wrong tries void it.

            --forget-all forgets every paired browser at once (as holding the button for 10 seconds does); each \
            must be paired again. Run as the service's user or as root: the files are kept in the store's folder \
            (/var/lib/contactbox), owned by the service.

            \(Exit.help("pair"))
            """)

    @OptionGroup var store: StoreOptions

    @Flag(help: "Forget every paired browser instead of printing a code.")
    var forgetAll = false

    func run() throws {
        let folder = Configuration.stateFolder(ofStore: try store.path())
        do {
            if forgetAll {
                try PairedBrowsers.forgetAll(folder: folder)
                print("Every browser is forgotten: each must be paired again to change anything.")
                return
            }
            let code = try PairedBrowsers.issueCode(folder: folder)
            print("Pairing code: \(code)")
            print(
                "Type it into the status page (This browser, \"No button?\") within "
                    + "\(PairedBrowsers.codeLifetime.wholeSecondsRoundingUp / 60) minutes; it pairs one browser.")
        } catch {
            Terminal.error("cannot write in \(folder): \(error.reason)")
            throw Exit.cannotCreate
        }
    }
}
