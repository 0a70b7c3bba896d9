import CMicroHTTPD
import Glibc

extension RequestHandler {
    /// `/api/settings` and `/api/setup`: read by a paired browser (its cookie is enough: no other site can read
    /// the answer), posted to as a form by a paired browser with its token.
    func answerPairedForm(
        _ connection: OpaquePointer, method: UnsafePointer<CChar>, body: [UInt8], read: () -> Response,
        post: ([String: String]) -> Response
    ) -> Response {
        if strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0 {
            guard let secret = pairingSecret(connection), case .paired = pairings.standing(secret) else {
                return .notPaired
            }
            return read()
        }
        guard strcmp(method, "POST") == 0 else { return .methodNotAllowed(allow: "GET, HEAD, POST") }
        guard var form = FormBody.fields(body) else {
            return .badRequest("The form could not be read: send its fields as application/x-www-form-urlencoded.")
        }
        switch pairedSender(connection, form: form) {
        case .refused(let refusal): return refusal
        case .paired(let browser):
            // Which paired browser asks, never what the form says: a step that must be finished where it began
            // (signing in) compares it.
            form["@browser"] = browser.id
            return post(form)
        }
    }

    /// A step of adding an address book (`action`: `find`, `add` or `cancel`), or `password` to replace one.
    static func setupRequest(_ form: [String: String]) -> SetupRequest? {
        switch form["action"] {
        case "find": .find(form)
        case "add": .add(form)
        case "cancel": .cancel
        case "password": .replacePassword(form)
        case "sign-in": .signIn(form)
        case "signed-in": .signedIn(form)
        default: nil
        }
    }
}
