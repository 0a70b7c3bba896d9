import CMicroHTTPD
import Glibc

/// A vCard download that MHD reads as the client takes it: the backend's ``VCardExport`` gives one chunk (at most
/// 100 cards) at a time, and only when the bytes before it have been sent, so 50,000 contacts cost the memory of one
/// chunk. Each chunk also moves the connection's deadline on (``RequestDeadlines``): a download that keeps going
/// may take as long as it needs, one that stalls is cut as any request is.
final class ExportStream {
    private let export: any VCardExport
    private let filename: String
    private let deadlines: RequestDeadlines
    private let connection: OpaquePointer
    private var chunk: [UInt8] = []
    private var offset = 0
    /// Said once in the log when a chunk cannot be read: the download ends short, which the client sees.
    private let failed: (ContactsError) -> Void

    init(
        _ export: any VCardExport, filename: String, deadlines: RequestDeadlines, connection: OpaquePointer,
        failed: @escaping (ContactsError) -> Void
    ) {
        self.export = export
        self.filename = filename
        self.deadlines = deadlines
        self.connection = connection
        self.failed = failed
    }

    /// The bytes for MHD's buffer at `buffer` (at most `capacity`): the count, or MHD's end of stream (-1), or its
    /// end with an error (-2), which closes the connection without the chunked encoding's last chunk, so that the
    /// client knows the download is incomplete.
    fileprivate func read(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
        while offset == chunk.count {
            // Let go of the last chunk first: an export that keeps one buffer for every chunk then fills it again
            // in place, instead of a new one a call.
            chunk = []
            do throws(ContactsError) {
                guard let next = try export.next() else { return -1 }
                chunk = next
                offset = 0
                deadlines.extend(connection)
            } catch {
                failed(error)
                return -2
            }
        }
        let count = min(capacity, chunk.count - offset)
        chunk.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            memcpy(buffer, base + offset, count)
        }
        offset += count
        return count
    }

    func queue(on connection: OpaquePointer) -> MHD_Result {
        let context = Unmanaged.passRetained(self).toOpaque()
        // > MHD_create_response_from_callback: Create a response object. [...] @param size size of the data
        // > portion of the response, #MHD_SIZE_UNKNOWN for unknown @param block_size preferred block size for
        // > querying crc (advisory only, MHD may still call @a crc using smaller chunks) [...] @param crfc callback
        // > to call to free @a crc_cls resources
        // MHD calls the reader on its own thread, the one the backend is used on; the free callback releases us.
        let created = MHD_create_response_from_callback(
            UInt64.max, 32 * 1024,
            { context, _, buffer, capacity in
                guard let context, let buffer else { return -2 }
                return Unmanaged<ExportStream>.fromOpaque(context).takeUnretainedValue().read(
                    into: buffer, capacity: capacity)
            }, context,
            { context in
                guard let context else { return }
                Unmanaged<ExportStream>.fromOpaque(context).release()
            })
        guard let response = created else {
            Unmanaged<ExportStream>.fromOpaque(context).release()
            return .NO
        }
        defer { MHD_destroy_response(response) }
        var added = Response.addHeaders(
            to: response, contentType: Reply.vcard, cacheControl: "no-store", policy: Reply.dataPolicy)
        added =
            added
            && MHD_add_response_header(response, "Content-Disposition", "attachment; filename=\"\(filename)\"")
                == .YES
        guard added else { return .NO }
        return MHD_queue_response(connection, UInt32(MHD_HTTP_OK), response)
    }
}
