import CMicroHTTPD
import Glibc

extension RequestHandler {
    /// `/api/settings`: read by a paired browser (its cookie is enough: no other site can read the answer), changed
    /// by a paired browser with its token.
    func answerSettings(
        _ connection: OpaquePointer, method: UnsafePointer<CChar>, body: [UInt8],
        settings: @Sendable (SettingsRequest) -> SettingsAnswer
    ) -> Response {
        if strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0 {
            guard let secret = pairingSecret(connection), case .paired = pairings.standing(secret) else {
                return .notPaired
            }
            return .settings(settings(.read))
        }
        guard strcmp(method, "POST") == 0 else { return .methodNotAllowed(allow: "GET, HEAD, POST") }
        guard let form = FormBody.fields(body) else {
            return .badRequest("The form could not be read: send its fields as application/x-www-form-urlencoded.")
        }
        if let refusal = refuseUnlessPaired(connection, form: form) { return refusal }
        return .settings(settings(.change(form)))
    }
}
