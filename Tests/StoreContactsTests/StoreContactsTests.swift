import Testing

@testable import StoreContacts
