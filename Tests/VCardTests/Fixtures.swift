import Foundation
import Testing

@testable import VCard

/// Reads every result from text, in order.
func readAll(_ text: String) -> [Result<ParsedCard, VCardError>] {
    readAll(CardReader(text: text))
}

func readAll(_ reader: CardReader) -> [Result<ParsedCard, VCardError>] {
    var reader = reader
    var results: [Result<ParsedCard, VCardError>] = []
    while let result = reader.next() { results.append(result) }
    return results
}

func cards(_ results: [Result<ParsedCard, VCardError>]) -> [Card] {
    results.compactMap { try? $0.get().card }
}

func errors(_ results: [Result<ParsedCard, VCardError>]) -> [VCardError] {
    results.compactMap {
        if case .failure(let error) = $0 { return error }
        return nil
    }
}

/// One card from text that must parse.
func makeCard(_ lines: String...) throws -> Card {
    let text = (["BEGIN:VCARD"] + lines + ["END:VCARD"]).joined(separator: "\r\n") + "\r\n"
    return try #require(readAll(text).first).get().card
}

func corpusURL(_ name: String) throws -> URL {
    try #require(Bundle.module.url(forResource: "Corpus/" + name, withExtension: nil), "missing corpus file \(name)")
}

func corpusBytes(_ name: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: try corpusURL(name)))
}

func readCorpus(_ name: String) throws -> [Result<ParsedCard, VCardError>] {
    readAll(try CardReader(path: try corpusURL(name).path))
}

/// A temporary file removed when the test is done with it.
struct TemporaryFile: ~Copyable {
    let path: String

    init(bytes: [UInt8]) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("vcard-\(UUID().uuidString).vcf").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
