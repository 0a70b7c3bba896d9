import SystemSupport

/// A form's fields from an `application/x-www-form-urlencoded` body (``FormEncoding/decode(_:fieldLimit:)``): at
/// most `fieldLimit` of them, each name once, UTF-8; else nil.
enum FormBody {
    static let fieldLimit = 32

    static func fields(_ body: [UInt8]) -> [String: String]? {
        FormEncoding.decode(body, fieldLimit: fieldLimit)
    }
}
