import CXML2

/// A streaming parser for WebDAV multistatus bodies: feed it the body chunk by chunk as it arrives, and it hands
/// over each `DAV:response` as soon as its end tag is read. Memory stays flat whatever the number of responses:
/// only the response being read is held, and text is kept only for the elements the client wants, each capped. A
/// card (`CARDDAV:address-data`) past `CardText.spoolThreshold` goes to a spool file as it is read; one larger than
/// `CardReader.Limits.maxCardBytes` makes that one response an item error, and parsing goes on.
///
/// libxml2's SAX2 push parser does the XML; this class owns its context. No entity is ever substituted (no
/// `XML_PARSE_NOENT`), no DTD is loaded, and the network is never used (`XML_PARSE_NONET`): the SAX handler has
/// no resolver callbacks, and its entity declaration callback refuses the document at the first `<!ENTITY>`, so a
/// declared entity is never stored, let alone expanded or fetched. A document nested deeper than `Limits.maxDepth`
/// is refused too, with a message that says so.
///
/// Bytes that are not UTF-8 in a UTF-8 document would stop libxml2 at once; `UTF8Repair` replaces them first, and
/// the response they fell in lists the element in `MultistatusResponse.damaged`: that response alone is lost.
public final class MultistatusParser {
    public enum Limits {
        /// Cap for every other text value kept (hrefs, ETags, tokens, names).
        public static let maxTextBytes = 64 << 10
        /// Elements open at once: a multistatus needs 8; deeper nesting only costs memory, and is refused.
        public static let maxDepth = 64
    }

    private var context: xmlParserCtxtPtr?
    private let onResponse: (MultistatusResponse) throws -> Void
    var elements = ElementTracker()
    private var callbackError: (any Error)?
    private var firstXMLError: String?
    private var failure: CardDAVError?
    private var xmlErrorIsFatal = false
    private var finished = false
    private var repair = UTF8Repair()
    private var depth = 0
    /// Why the document was refused (a DTD, too deep): stops the parse, and is the message.
    private var refusal: String?

    /// The summary so far; complete after `finish()`.
    public var summary: MultistatusSummary { elements.summary }

    /// - Parameter onResponse: called once per `DAV:response`, in document order. If it throws, parsing stops and
    ///   `feed` or `finish` rethrows that error.
    public init(onResponse: @escaping (MultistatusResponse) throws -> Void) {
        self.onResponse = onResponse
        MultistatusParser.initializeLibrary
        var handler = xmlSAXHandler()
        handler.initialized = UInt32(XML_SAX2_MAGIC)
        handler.startElementNs = { context, localName, _, uri, _, _, attributeCount, _, attributes in
            guard let context, let localName else { return }
            let parser = Unmanaged<MultistatusParser>.fromOpaque(context).takeUnretainedValue()
            parser.noteDamage()
            parser.depth += 1
            guard parser.depth <= Limits.maxDepth else {
                parser.refuse("XML nested more than \(Limits.maxDepth) elements deep, which is refused")
                return
            }
            parser.elements.start(
                localName: localName, uri: uri, attributes: Attributes(base: attributes, count: Int(attributeCount)))
        }
        handler.endElementNs = { context, _, _, _ in
            guard let context else { return }
            let parser = Unmanaged<MultistatusParser>.fromOpaque(context).takeUnretainedValue()
            parser.noteDamage()
            parser.depth -= 1
            if let response = parser.elements.end() {
                parser.deliver(response)
            }
        }
        handler.characters = { context, bytes, length in
            guard let context, let bytes else { return }
            let parser = Unmanaged<MultistatusParser>.fromOpaque(context).takeUnretainedValue()
            parser.noteDamage()
            parser.elements.text(UnsafeBufferPointer(start: bytes, count: Int(length)))
        }
        // A multistatus never needs an entity of its own; one is only good for a "billion laughs" or for reading
        // local files. The first declaration stops the parse, with a message that says what the server sent.
        handler.entityDecl = { context, _, _, _, _, _ in
            guard let context else { return }
            let parser = Unmanaged<MultistatusParser>.fromOpaque(context).takeUnretainedValue()
            parser.refuse("an XML entity declaration (<!ENTITY> in a DTD); entities are refused")
        }
        handler.cdataBlock = handler.characters
        // The structured error callback is not variadic, so Swift can take it; it also keeps libxml2 from printing.
        handler.serror = { context, error in
            guard let context, let error else { return }
            let parser = Unmanaged<MultistatusParser>.fromOpaque(context).takeUnretainedValue()
            parser.recordXMLError(error.pointee)
        }
        let userData = Unmanaged.passUnretained(self).toOpaque()
        context = xmlCreatePushParserCtxt(&handler, userData, nil, 0, nil)
        if let context {
            // Not XML_PARSE_NOENT (entities stay unexpanded), not XML_PARSE_DTDLOAD; never the network.
            let options = XML_PARSE_NONET.rawValue | XML_PARSE_NOWARNING.rawValue
            xmlCtxtUseOptions(context, Int32(options))
        }
    }

    deinit {
        if let context {
            xmlFreeParserCtxt(context)
        }
    }

    /// libxml2's global state, set up once before any parser is made (xmlInitParser: "call once before processing
    /// in case of use in multithreaded programs").
    private static let initializeLibrary: Void = xmlInitParser()

    /// Parses the next chunk of the body. Throws `CardDAVError.Kind.malformedResponse` for malformed XML, or the
    /// error the response callback threw.
    public func feed(_ chunk: UnsafeRawBufferPointer) throws {
        var offset = 0
        repeat {
            let length = min(chunk.count - offset, 1 << 20)
            let slice = UnsafeRawBufferPointer(rebasing: chunk[offset..<offset + length])
            let bytes = repair.repair(slice, final: false)
            if !bytes.isEmpty {
                try bytes.withUnsafeBytes { try parse($0.baseAddress?.assumingMemoryBound(to: CChar.self), $0.count) }
            }
            offset += length
        } while offset < chunk.count
    }

    public func feed(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { buffer in try feed(buffer) }
    }

    public func feed(_ text: String) throws {
        try feed(Array(text.utf8))
    }

    /// Ends the document: checks that it was complete and returns what it said outside its responses.
    @discardableResult
    public func finish() throws -> MultistatusSummary {
        if !finished {
            finished = true
            let rest = repair.repair(UnsafeRawBufferPointer(start: nil, count: 0), final: true)
            try rest.withUnsafeBytes { try parse($0.baseAddress?.assumingMemoryBound(to: CChar.self), $0.count) }
            try parse(nil, 0, terminate: true)
            if elements.summary.rootElement == nil {
                throw CardDAVError(.malformedResponse, "empty XML body")
            }
        }
        return elements.summary
    }

    private func parse(_ bytes: UnsafePointer<CChar>?, _ length: Int, terminate: Bool = false) throws {
        guard let context else {
            throw CardDAVError(.malformedResponse, "libxml2 could not create a parser")
        }
        if let callbackError { throw callbackError }
        if let failure { throw failure }
        let code = xmlParseChunk(context, bytes, Int32(length), terminate ? 1 : 0)
        if let callbackError { throw callbackError }
        if let refusal {
            failure = CardDAVError(.malformedResponse, refusal)
            throw failure!
        }
        if code != 0 {
            let reason = firstXMLError ?? "libxml2 error \(code) at line \(xmlSAX2GetLineNumber(context))"
            failure = CardDAVError(.malformedResponse, "malformed XML: " + reason)
            throw failure!
        }
    }

    /// Tells the tracker about replaced bytes libxml2 has read by now: they belong to the element open now (text
    /// is reported before the parser moves past it, and at the latest when its element ends).
    private func noteDamage() {
        guard let context else { return }
        for _ in 0..<repair.takeDamage(before: Int(xmlByteConsumed(context))) { elements.damaged() }
    }

    private func refuse(_ reason: String) {
        guard refusal == nil else { return }
        refusal = reason
        xmlStopParser(context)
    }

    private func deliver(_ response: MultistatusResponse) {
        guard callbackError == nil else { return }
        do {
            try onResponse(response)
        } catch {
            callbackError = error
            xmlStopParser(context)
        }
    }

    private func recordXMLError(_ error: xmlError) {
        // Keep the first fatal error (the one that stopped the parse); warnings and recoverable namespace errors
        // only fill in when nothing better comes.
        let fatal = error.level == XML_ERR_FATAL
        guard firstXMLError == nil || (fatal && !xmlErrorIsFatal) else { return }
        var message = error.message.map { String(cString: $0) } ?? "unknown error"
        while message.last?.isWhitespace == true { message.removeLast() }
        // libxml2's words for an entity it does not know ("Entity 'lol9' not defined") sound like a lack of ours.
        if error.code == Int32(XML_ERR_UNDECLARED_ENTITY.rawValue)
            || error.code == Int32(XML_WAR_UNDECLARED_ENTITY.rawValue)
        {
            message = "an XML entity that is not one of XML's own (\(message)); entities are refused"
        }
        // One line: libxml2 puts the offending bytes on a second one.
        message = message.split(whereSeparator: \.isNewline).joined(separator: "; ")
        firstXMLError = "\(message) (line \(error.line))"
        xmlErrorIsFatal = fatal
    }
}

@available(*, unavailable)
extension MultistatusParser: Sendable {}

/// The attributes of a start tag as libxml2's SAX2 passes them: five pointers each (local name, prefix, URI,
/// value start, value end).
struct Attributes {
    var base: UnsafeMutablePointer<UnsafePointer<xmlChar>?>?
    var count: Int

    func value(localName: String) -> String? {
        guard let base else { return nil }
        for index in 0..<count {
            let entry = base + index * 5
            guard let name = entry[0], String(cString: name) == localName,
                let start = entry[3], let end = entry[4]
            else { continue }
            return String(decoding: UnsafeBufferPointer(start: start, count: end - start), as: UTF8.self)
        }
        return nil
    }
}
