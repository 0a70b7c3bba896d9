/// Collects a response body in memory, up to a limit.
final class BodyCollector {
    let limit: Int
    private(set) var bytes: [UInt8] = []

    init(limit: Int) {
        self.limit = limit
    }

    func attach(to context: TransferContext) {
        context.limit = limit
        context.sink = { [unowned self] chunk in
            guard bytes.count + chunk.count <= limit else {
                throw HTTPError(.tooLarge, "The response body exceeds \(limit) bytes")
            }
            bytes.append(contentsOf: chunk)
        }
    }

    func take() -> [UInt8] {
        defer { bytes = [] }
        return bytes
    }
}

@available(*, unavailable)
extension BodyCollector: Sendable {}

extension HTTPError {
    /// Errors from inside the client are all `HTTPError`s already; anything else is a bug reported as `.other`.
    static func wrapping(_ error: any Error) -> HTTPError {
        (error as? HTTPError) ?? HTTPError(.other, "Unexpected error: \(error)")
    }
}
