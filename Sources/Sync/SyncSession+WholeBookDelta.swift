import ContactStore

/// A server that forgets its sync tokens.
///
/// RFC 6578 (3.2) has a server refuse a token it no longer knows, with the `DAV:valid-sync-token` precondition, and
/// the client then lists the whole book, which shows what was deleted. A server was seen answering such a token with
/// a 207 that lists every member as changed, and no removal. Read as a delta, that listing deletes nothing, so a card
/// deleted on the server stayed on the box until the next full listing.
extension SyncSession {
    /// What one listing gave: the feed, and how many entries it named as changed and as removed.
    struct Listing {
        var feed: ChangeFeed
        var listed: Int
        var removals: Int
    }

    /// Whether a delta reads as the whole book of a server that forgot the token, so that a full listing must follow
    /// to find what it deleted: the delta named no removal, and it named at least half, but not all, of the items
    /// this remote has a saved state for. Items this client created since the token are left out of both counts: an
    /// honest delta names them all, and after a first upload they may be most of the book.
    ///
    /// The rule only decides whether to list again; it deletes nothing itself. Only a full listing deletes (an item
    /// the box knows that the book no longer lists), as on a first sync or a full check, and through the deletion
    /// guard. So a wrong guess never deletes a contact the server still has: an honest delta that changed half the
    /// book (edited elsewhere, or here and uploaded in the last run) costs one more listing, and finds nothing to
    /// delete. A delta that names every known item leaves none the full listing could find deleted, and one that
    /// names fewer than half is most likely an honest delta. A forgetful server whose book lost more than half the
    /// items the box knows (or its only one) since the last sync is left to `sync --full` or the daemon's daily full
    /// check, whose deletions the guard holds anyway when there are more than `deletionsAlwaysAllowed`.
    func deltaListsWholeBook(_ listing: Listing, known: Int) throws -> Bool {
        guard !listing.feed.isFullListing, listing.removals == 0, listing.listed > 0 else { return false }
        let old = known - (try store.createdHereCount(remoteID: remote.id))
        guard old > 1, 2 * listing.listed >= old else { return false }
        let listedOld = try store.listingKnownCount(remoteID: remote.id)
        return 2 * listedOld >= old && listedOld < old
    }
}
