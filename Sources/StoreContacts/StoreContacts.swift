import ContactStore
import StatusServer

/// The status server's ``ContactsBackend`` over the store: what the page and the JSON API show of the household's
/// contacts, and the writes they make.
public final class StoreContacts {
}
