import Glibc
import SystemSupport
import TestSupport
import Testing

@testable import Config

/// A document and what it must parse to.
struct ValidDocument: Sendable, CustomTestStringConvertible {
    var name: String
    var text: String
    var expected: TOMLTable
    var testDescription: String { name }
}

/// A document and the error it must get.
struct InvalidDocument: Sendable, CustomTestStringConvertible {
    var name: String
    var text: String
    var line: Int?
    /// Part of the message.
    var message: String
    var testDescription: String { name }
}

private func table(_ pairs: KeyValuePairs<String, TOMLValue>) -> TOMLValue { .table(TOMLTable(pairs)) }

let validDocuments: [ValidDocument] = [
    ValidDocument(name: "empty", text: "", expected: TOMLTable()),
    ValidDocument(
        name: "comments and blank lines", text: "# a comment\n\n   \n\t# another\r\nx = 1 # after\n",
        expected: TOMLTable(["x": .integer(1)])),
    ValidDocument(
        name: "bare and quoted keys",
        text: "bare_key-1 = 1\n\"quoted key\" = 2\n'literal key' = 3\n\"\" = 4\n1234 = 5\n\"\\u00e9t\\u00e9\" = 6",
        expected: TOMLTable([
            "bare_key-1": .integer(1), "quoted key": .integer(2), "literal key": .integer(3), "": .integer(4),
            "1234": .integer(5), "été": .integer(6),
        ])),
    ValidDocument(
        name: "dotted keys make tables", text: "a.b = 1\na . c = 2\n\"x.y\".z = 3",
        expected: TOMLTable([
            "a": table(["b": .integer(1), "c": .integer(2)]), "x.y": table(["z": .integer(3)]),
        ])),
    ValidDocument(
        name: "basic strings with escapes",
        text: #"s = "q\" b\\ n\n t\t r\r \u00E9 \U0001F600 b\b f\f""#,
        expected: TOMLTable(["s": .string("q\" b\\ n\n t\t r\r é 😀 b\u{8} f\u{C}")])),
    ValidDocument(
        name: "literal strings take backslashes as written", text: #"s = 'C:\Users\x "quoted"'"#,
        expected: TOMLTable(["s": .string(#"C:\Users\x "quoted""#)])),
    ValidDocument(
        name: "multi-line basic strings drop the first newline and join lines ending in a backslash",
        text: "s = \"\"\"\nline one\n  line two \\\n    still two\nq \"\" \\\"\"\"\"\"\"\nt = 1",
        expected: TOMLTable(["s": .string("line one\n  line two still two\nq \"\" \"\"\""), "t": .integer(1)])),
    ValidDocument(
        name: "multi-line literal strings", text: "s = '''\nraw \\n 'quoted'\nsecond'''\nu = ''''x'''''",
        expected: TOMLTable(["s": .string("raw \\n 'quoted'\nsecond"), "u": .string("'x''")])),
    ValidDocument(
        name: "integers",
        text: "a = 42\nb = +17\nc = -5\nd = 1_000_000\ne = 0\nf = 0xDEAD_beef\ng = 0o755\nh = 0b1010"
            + "\ni = 9223372036854775807\nj = -9223372036854775808",
        expected: TOMLTable([
            "a": .integer(42), "b": .integer(17), "c": .integer(-5), "d": .integer(1_000_000), "e": .integer(0),
            "f": .integer(0xDEAD_BEEF), "g": .integer(0o755), "h": .integer(10), "i": .integer(.max),
            "j": .integer(.min),
        ])),
    ValidDocument(
        name: "floats", text: "a = 0.3\nb = -1.5\nc = 1e3\nd = 6.25E-2\ne = 1_000.5\nf = +0.0\ng = inf\nh = -inf",
        expected: TOMLTable([
            "a": .float(0.3), "b": .float(-1.5), "c": .float(1000), "d": .float(0.0625), "e": .float(1000.5),
            "f": .float(0), "g": .float(.infinity), "h": .float(-.infinity),
        ])),
    ValidDocument(
        name: "booleans", text: "yes = true\nno = false", expected: TOMLTable(["yes": .bool(true), "no": .bool(false)])),
    ValidDocument(
        name: "arrays over several lines, with comments and a trailing comma",
        text: "a = [1, 2]\nb = [\n  \"x\", # first\n  # alone\n  'y',\n]\nc = []\nd = [[1], [\"m\", 2.5]]",
        expected: TOMLTable([
            "a": .array([.integer(1), .integer(2)]), "b": .array([.string("x"), .string("y")]), "c": .array([]),
            "d": .array([.array([.integer(1)]), .array([.string("m"), .float(2.5)])]),
        ])),
    ValidDocument(
        name: "inline tables", text: "p = { x = 1, y.z = \"a\" }\ne = {}\nl = [{ n = 1 }, { n = 2 }]",
        expected: TOMLTable([
            "p": table(["x": .integer(1), "y": table(["z": .string("a")])]), "e": table([:]),
            "l": .array([table(["n": .integer(1)]), table(["n": .integer(2)])]),
        ])),
    ValidDocument(
        name: "table headers, dotted and quoted, in any order",
        text: "[a.b]\nx = 1\n[a]\ny = 2\n[ \"q.r\" . 's' ]\nz = 3\n[a.b.c]\nw = 4",
        expected: TOMLTable([
            "a": table(["b": table(["x": .integer(1), "c": table(["w": .integer(4)])]), "y": .integer(2)]),
            "q.r": table(["s": table(["z": .integer(3)])]),
        ])),
    ValidDocument(
        name: "arrays of tables, with sub-tables of their last element",
        text: "[[r]]\nn = 1\n[r.sub]\nk = true\n[[r]]\nn = 2\n[[a.b]]\n[[a.b]]\nm = 'x'",
        expected: TOMLTable([
            "r": .array([table(["n": .integer(1), "sub": table(["k": .bool(true)])]), table(["n": .integer(2)])]),
            "a": table(["b": .array([table([:]), table(["m": .string("x")])])]),
        ])),
    ValidDocument(
        name: "a sub-table under a table made by dotted keys",
        text: "[fruit]\napple.color = \"red\"\n[fruit.apple.texture]\nsmooth = true",
        expected: TOMLTable([
            "fruit": table(["apple": table(["color": .string("red"), "texture": table(["smooth": .bool(true)])])])
        ])),
    ValidDocument(
        name: "a byte-order mark and CRLF line ends", text: "\u{FEFF}a = 1\r\nb = \"\"\"\r\nx\r\n\"\"\"\r\n",
        expected: TOMLTable(["a": .integer(1), "b": .string("x\n")])),
]

let invalidDocuments: [InvalidDocument] = [
    InvalidDocument(
        name: "a missing '='", text: "a = 1\n\ninterval \"15m\"", line: 3, message: "expected '=' after the key"),
    InvalidDocument(
        name: "a duplicate key", text: "a = 1\nb = 2\na = 3", line: 3, message: "\"a\" is already set on line 1"),
    InvalidDocument(
        name: "a duplicate key through dotted keys", text: "a.b = 1\n\na.b = 2", line: 3,
        message: "\"a.b\" is already set on line 1"),
    InvalidDocument(
        name: "a duplicate key in an inline table", text: "t = { a = 1, a = 2 }", line: 1,
        message: "\"a\" is already set on line 1"),
    InvalidDocument(
        name: "a table defined twice", text: "[sync]\na = 1\n\n[sync]\nb = 2", line: 4,
        message: "[sync] appears a second time (first on line 1)"),
    InvalidDocument(
        name: "a table defined by a header and again by dotted keys", text: "[a.b]\nx = 1\n[a]\nb.y = 2", line: 4,
        message: "\"b.y\" cannot be set: \"b\" is already a table (line 1)"),
    InvalidDocument(
        name: "a table defined by dotted keys and again by a header", text: "a.b = 1\n[a]\nc = 2", line: 2,
        message: "[a] cannot be defined: a is already set by dotted keys"),
    InvalidDocument(
        name: "a key set to a value and then used as a table", text: "sync = 1\n[sync]", line: 2,
        message: "sync is already set to a value on line 1, so it cannot also be a table"),
    InvalidDocument(
        name: "a key set to a value and then used as a dotted table", text: "a = 1\na.b = 2", line: 2,
        message: "\"a\" is already set on line 1, so it cannot also be a table"),
    InvalidDocument(
        name: "an inline table extended by a header", text: "a = { b = 1 }\n[a.c]", line: 2,
        message: "a is already set to a value on line 1"),
    InvalidDocument(
        name: "a table then an array of tables of one name", text: "[remote]\n[[remote]]", line: 2,
        message: "remote is already a single table ([remote], line 1)"),
    InvalidDocument(
        name: "an array of tables then a table of one name", text: "[[remote]]\n[remote]", line: 2,
        message: "remote is already a list of [[remote]] blocks (line 1)"),
    InvalidDocument(
        name: "a static array extended by [[header]]", text: "r = []\n[[r]]", line: 2,
        message: "r is already set to a value on line 1"),
    InvalidDocument(
        name: "an unterminated string", text: "a = 1\nfull_check = \"24h\nb = 2", line: 2,
        message: "the text of \"full_check\" has no closing quote"),
    InvalidDocument(
        name: "an unterminated multi-line string, at the line it starts", text: "a = \"\"\"\nx\ny\n", line: 1,
        message: "has no closing \"\"\" or '''"),
    InvalidDocument(
        name: "an unterminated literal string", text: "a = 'x", line: 1,
        message: "the text of \"a\" has no closing quote"),
    InvalidDocument(
        name: "an unterminated array", text: "a = [\n1,\n2", line: 1, message: "the list of \"a\" has no closing ]"),
    InvalidDocument(
        name: "garbage after a value", text: "a = 1\ninterval = \"15m\" minutes", line: 2,
        message: "unexpected text after the value of \"interval\""),
    InvalidDocument(
        name: "garbage after a header", text: "[sync] x", line: 1, message: "unexpected text after the header [sync]"),
    InvalidDocument(
        name: "an unclosed header", text: "[sync\na = 1", line: 1, message: "the header [sync has no closing ]"),
    InvalidDocument(
        name: "a key without a value", text: "a =\nb = 1", line: 1, message: "\"a\" has no value after '='"),
    InvalidDocument(name: "a missing key", text: "= 1", line: 1, message: "a key is missing before '='"),
    InvalidDocument(
        name: "an invalid escape", text: #"a = "x\qy""#, line: 1, message: "the text of \"a\" has an unknown escape"),
    InvalidDocument(
        name: "a \\u escape that is no character", text: #"a = "\uD800""#, line: 1,
        message: "is not a Unicode character"),
    InvalidDocument(name: "a short \\u escape", text: #"a = "\u12""#, line: 1, message: "incomplete \\u escape"),
    InvalidDocument(
        name: "a control character in a string", text: "a = 1\nb = \"x\u{7}y\"", line: 2,
        message: "the text of \"b\" holds a control character"),
    InvalidDocument(
        name: "a control character in a literal string", text: "b = 'x\u{1B}y'", line: 1,
        message: "holds a control character"),
    InvalidDocument(name: "a carriage return alone", text: "a = 1\rb = 2", line: 1, message: "carriage return"),
    InvalidDocument(
        name: "a leading zero", text: "a = 1\nn = 007", line: 2, message: "the value of \"n\" is not a valid number"),
    InvalidDocument(name: "a double underscore", text: "n = 1__000", line: 1, message: "is not a valid number"),
    InvalidDocument(name: "a trailing underscore", text: "n = 1_", line: 1, message: "is not a valid number"),
    InvalidDocument(name: "a float without a fraction", text: "n = 1.", line: 1, message: "is not a valid number"),
    InvalidDocument(name: "a float without an integer part", text: "n = .5", line: 1, message: "is not a valid number"),
    InvalidDocument(name: "a bad hexadecimal digit", text: "n = 0xG1", line: 1, message: "is not a valid number"),
    InvalidDocument(name: "a signed hexadecimal number", text: "n = +0x1", line: 1, message: "is not a valid number"),
    InvalidDocument(
        name: "an integer too large", text: "n = 9223372036854775808", line: 1,
        message: "the number of \"n\" is too large"),
    InvalidDocument(name: "a float too large", text: "n = 1e400", line: 1, message: "is too large"),
    InvalidDocument(name: "a word without quotes", text: "kind = carddav", line: 1, message: "text must be in quotes"),
    InvalidDocument(
        name: "a duration without quotes", text: "interval = 15m", line: 1, message: "text must be in quotes"),
    InvalidDocument(
        name: "a date", text: "a = 1\nwhen = 1979-05-27T07:32:00Z", line: 2,
        message: "the value of \"when\" looks like a date or time: dates are not used in this file"),
    InvalidDocument(
        name: "a local date", text: "when = 1979-05-27", line: 1, message: "dates are not used in this file"),
    InvalidDocument(name: "a time", text: "at = 07:32:00", line: 1, message: "dates are not used in this file"),
    InvalidDocument(
        name: "an inline table over two lines", text: "t = { a = 1,\nb = 2 }", line: 1,
        message: "must end with } on the line where it starts"),
    InvalidDocument(
        name: "an inline table with a trailing comma", text: "t = { a = 1, }", line: 1, message: "ends in a comma"),
    InvalidDocument(
        name: "two values in a list without a comma", text: "a = [1 2]", line: 1, message: "expected ',' or ']'"),
    InvalidDocument(
        name: "a line that is not a setting", text: "a = 1\n!x = 2", line: 2, message: "this is not a setting"),
    InvalidDocument(
        name: "a control character in a comment", text: "# x\u{0}y", line: 1,
        message: "a comment holds a control character"),
    InvalidDocument(
        name: "nesting beyond the limit", text: "a = " + String(repeating: "[", count: 100), line: 1,
        message: "nested more than 32 deep"),
    InvalidDocument(
        name: "a key of too many parts", text: Array(repeating: "k", count: 40).joined(separator: ".") + " = 1",
        line: 1,
        message: "more than 32 parts"),
]

@Suite("Reading TOML")
struct TOMLParserTests {
    @Test("A valid document parses into the values it writes", arguments: validDocuments)
    func valid(document: ValidDocument) throws {
        let parsed = try TOMLParser.parse(document.text)
        #expect(parsed == document.expected)
        #expect(parsed.keys == document.expected.keys, "keys keep the order they are written in")
    }

    @Test("An invalid document is refused with its line and a message that says why", arguments: invalidDocuments)
    func invalid(document: InvalidDocument) {
        let error = #expect(throws: TOMLError.self) { try TOMLParser.parse(document.text) }
        #expect(error?.line == document.line, "\(String(describing: error))")
        #expect(error?.message.contains(document.message) == true, "\(String(describing: error))")
    }

    @Test("nan parses, though it equals nothing")
    func notANumber() throws {
        for text in ["n = nan", "n = +nan", "n = -nan"] {
            #expect(try TOMLParser.parse(text)["n"]?.double?.isNaN == true)
        }
    }

    @Test("Each key remembers its line, and each table the line that defines it")
    func lines() throws {
        let text = """
            store = "x"

            [sync]
            interval = "15m"
            full_check = \"\"\"
            24h
            \"\"\"
            max_delete_share = 0.3

            [[remote]]
            name = "a"
            [[remote]]
            inline = { kind = "vdir",
              # not allowed over lines, so it ends here
            """
        let error = #expect(throws: TOMLError.self) { try TOMLParser.parse(text) }
        #expect(error?.line == 13)
        let valid =
            text.split(separator: "\n", omittingEmptySubsequences: false).prefix(12).joined(separator: "\n")
            + "\nname = \"b\"\n"
        let root = try TOMLParser.parse(valid)
        #expect(root.line(of: "store") == 1)
        #expect(root.line(of: "sync") == 3)
        #expect(root.line(of: "remote") == 10)
        let sync = try #require(root["sync"]?.table)
        #expect(sync.line == 3)
        #expect(sync.line(of: "interval") == 4)
        #expect(sync.line(of: "max_delete_share") == 8)
        let elements = try #require(root["remote"]?.array)
        let remotes = elements.compactMap(\.table)
        #expect(remotes.map(\.line) == [10, 12])
        #expect(remotes.map { $0.line(of: "name") } == [11, 13])
    }

    @Test("The error's column counts characters, not bytes")
    func column() {
        let error = #expect(throws: TOMLError.self) { try TOMLParser.parse("\"été\" = 1 x") }
        #expect(error?.line == 1)
        #expect(error?.column == 11)
        #expect(error?.description.hasPrefix("line 1, column 11: unexpected text") == true)
    }

    @Test("Invalid UTF-8 is refused with its line")
    func invalidUTF8() {
        let bytes = Array("a = 1\nb = \"".utf8) + [0xC3, 0x28] + Array("\"\n".utf8)
        let error = #expect(throws: TOMLError.self) { try TOMLParser.parse(bytes) }
        #expect(error?.line == 2)
        #expect(error?.message.contains("not UTF-8") == true)
        // Through the configuration too (a file is read as bytes).
        let overlong = Array("a = \"".utf8) + [0xC0, 0xAF] + Array("\"".utf8)
        #expect(throws: TOMLError.self) { try TOMLParser.parse(overlong) }
    }

    @Test("A document over 1 MiB is refused before it is read")
    func sizeLimit() {
        let big = [UInt8](repeating: UInt8(ascii: "#"), count: TOMLParser.sizeLimit + 1)
        let error = #expect(throws: TOMLError.self) { try TOMLParser.parse(big) }
        #expect(error?.line == nil)
        #expect(error?.message.contains("larger than 1 MiB") == true)
        let justRight = [UInt8](repeating: UInt8(ascii: "#"), count: TOMLParser.sizeLimit)
        #expect(throws: Never.self) { try TOMLParser.parse(justRight) }
    }

    @Test(
        "No error quotes a value, which might be a password",
        arguments: [
            "password = \"s3cret-Horse", "password = s3cret-Horse", "password = \"s3cret-Horse\\q\"",
            "password = 's3cret-Horse\u{7}'", "password = \"\"\"s3cret-Horse", "password = s3cret-Horse.1",
            "password = 1979-05-27s3cret-Horse", "password = [\"s3cret-Horse\" \"x\"]", "password = { s3cret-Horse }",
            "password = \"s3cret-Horse\" s3cret-Horse", "password = 12s3cret-Horse",
        ])
    func noValueEchoed(line: String) {
        let error = #expect(throws: TOMLError.self) { try TOMLParser.parse("a = 1\n" + line + "\n") }
        #expect(error?.description.contains("s3cret") == false, "\(String(describing: error))")
        #expect(error?.description.contains("password") == true, "the key is named: \(String(describing: error))")
    }

    @Test("A line without '=' quotes its first word only when it is a known key, and by default never")
    func unknownKeysNotQuoted() {
        let known: Set<String> = ["interval"]
        #expect(
            throws: TOMLError(
                line: 1, column: 10, message: "expected '=' after the key: each setting is written key = value")
        ) {
            try TOMLParser.parse("interval \"15m\"")
        }
        let pasted = #expect(throws: TOMLError.self) {
            try TOMLParser.parse("correct horse battery staple", quotableKeys: known)
        }
        #expect(pasted?.message == "expected '=' after the key: each setting is written key = value")
        #expect(pasted?.key == nil)
        let typo = #expect(throws: TOMLError.self) { try TOMLParser.parse("interval \"15m\"", quotableKeys: known) }
        #expect(typo?.message == "expected '=' after the key \"interval\"")
        #expect(typo?.key == "interval")
    }

    @Test("The shipped example file parses")
    func exampleFile() throws {
        let bytes = try SmallFile.read(deployFolder + "/contactbox.example.toml", limit: TOMLParser.sizeLimit)
        let root = try TOMLParser.parse(bytes)
        // Its [[remote]] blocks are commented out: a fresh box is set up from the page.
        #expect(root.keys == ["store", "sync", "history", "panel", "status"])
        #expect(root["sync"]?.table?["max_delete_share"] == .float(0.3))
    }
}

@Suite("Configuration syntax errors")
struct ConfigurationSyntaxTests {
    @Test("A syntax error names the file, the line and the key")
    func syntaxErrorWithKey() {
        let text = makeText(replacing: "interval = \"15m\"", with: "interval \"15m\"")
        let errors = Configuration.validate(text: text, path: configPath).errors
        #expect(errors.map(\.description) == ["\(configPath):4: expected '=' after the key \"interval\""])
        #expect(errors.first?.key == "interval")
    }

    @Test("A file that is not UTF-8 is refused with the line")
    func notUTF8() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("contactbox.toml")
        let bytes = Array(validText.utf8.prefix(50)) + [0xFF] + Array(validText.utf8.dropFirst(50))
        bytes.withUnsafeBytes { buffer in
            let file = fopen(path, "w")
            fwrite(buffer.baseAddress, 1, buffer.count, file)
            fclose(file)
        }
        let errors = Configuration.validate(path: path).errors
        #expect(
            errors.map(\.description) == ["\(path):3: this line is not UTF-8 text: save the file as UTF-8 (Unicode)"])
    }

    @Test("Keys written in inline tables are reported on their own line")
    func inlineTables() {
        let text = """
            sync = { interval = "15m" }
            remote = [
              { name = "a", kind = "vdir", folder = "/x" },
              { name = "b", kind = "vdir", folder = "/y", conflict = "oldest" },
            ]
            """
        #expect(
            problems(text) == [
                "\(configPath):4: remote \"b\": conflict must be one of newest, local, remote (found \"oldest\")"
            ])
    }
}
