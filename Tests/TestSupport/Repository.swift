import Glibc

/// The checkout: the nearest folder above this file that holds Package.swift (the tests read its Deploy, Board
/// and .venv folders).
public let repositoryRoot: String = {
    var folder = #filePath
    while let slash = folder.lastIndex(of: "/"), slash != folder.startIndex {
        folder = String(folder[..<slash])
        if access(folder + "/Package.swift", F_OK) == 0 { return folder }
    }
    return "."
}()
