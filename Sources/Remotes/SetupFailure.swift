import CardDAV
import Config
import HTTP
import OAuth
import Sync

/// Why setting up an address book failed, in words a household understands (``message``), with what the server or
/// the system said for whoever helps them (``detail``). Never holds a password.
///
/// Made from the errors the remotes already classify (`CardDAVError`, `HTTPError`, `RemoteError`,
/// `ConfigurationError`): mapped, never detected again from text.
public struct SetupFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// 401: the user name or the password is wrong.
        case wrongPassword
        /// 403: logged in, but the account may not see that address book.
        case forbidden
        /// TLS: an authority the box does not trust, a certificate for another name, an expired one.
        case certificate
        /// Nothing at that address (404), or an account without address books.
        case notFound
        /// The address answers, but not as a CardDAV server (a web page, another kind of collection, a redirect
        /// to another site).
        case notCardDAV
        /// No network, an unknown host name, the connection refused; a folder that is not there.
        case unreachable
        /// The server answered too slowly, or not within the setup's time.
        case tooSlow
        /// The server is busy or failing (429, 5xx): try again later.
        case busy
        /// The service may not write the folder.
        case folderNotWritable
        /// What was given cannot be used: an address, a password with a line break, a name.
        case invalid
        /// A name the administrator's file uses, or the remote limit.
        case refused
        /// The settings changed since they were read (another browser or command saved): read them again.
        case changedMeanwhile
        /// The settings or the password could not be written (a full disk): the old settings stay.
        case cannotSave
    }

    public var kind: Kind
    /// For the household: what failed and what to do.
    public var message: String
    /// What the server or the system said, for whoever helps; may be empty.
    public var detail: String

    public init(_ kind: Kind, _ message: String, detail: String = "") {
        self.kind = kind
        self.message = message
        self.detail = detail
    }

    public var description: String { detail.isEmpty ? message : "\(message) (\(detail))" }
}

extension SetupFailure {
    /// A sign-in that failed at the issuer.
    public init(_ error: OAuthError) {
        switch error.kind {
        case .signInAgain:
            self.init(
                .wrongPassword, "the sign-in was not accepted (the code was used or too old): sign in again",
                detail: error.code)
        case .client: self.init(.invalid, error.message, detail: error.code)
        case .pasted: self.init(.invalid, error.message, detail: error.code)
        case .issuer: self.init(.unreachable, error.message, detail: error.code)
        }
    }

    /// A failed request of discovery or of the test listing.
    public init(_ error: CardDAVError) {
        let detail = error.message
        switch error.kind {
        case .unauthorized where error.responseStatus == 403:
            self.init(
                .forbidden, "the server refused access to this account: check the user name (it may not own it)",
                detail: detail)
        case .unauthorized:
            self.init(.wrongPassword, "the server refused the login: make a new app password", detail: detail)
        case .notFound:
            self.init(.notFound, "nothing is at that address: check it", detail: detail)
        case .rateLimited, .locked, .serverError:
            self.init(.busy, "the server is busy or failing: try again later", detail: detail)
        case .rejected, .malformedResponse, .preconditionFailed, .invalidSyncToken:
            self.init(.notCardDAV, "that address is not a CardDAV server (an address book server)", detail: detail)
        case .network(let cause):
            self.init(cause)
        }
    }

    /// No answer: the connection, the name, the certificate, the time.
    public init(_ error: HTTPError) {
        switch error.kind {
        case .tls:
            // The HTTP client already says which (an unknown authority, another host name, expired) and that
            // nothing was sent.
            self.init(.certificate, "the server's certificate was not accepted: " + error.message)
        case .dns:
            self.init(
                .unreachable, "the server's name is unknown: check the address and the box's network",
                detail: error.message)
        case .connect, .aborted, .other:
            self.init(
                .unreachable, "the server cannot be reached: check the address and the box's network",
                detail: error.message)
        case .timeout:
            self.init(.tooSlow, "the server answered too slowly: try again later", detail: error.message)
        case .refusedRedirect:
            self.init(
                .notCardDAV, "that address sends the box elsewhere: use the address book server's own address",
                detail: error.message)
        case .protocolError, .tooLarge:
            self.init(
                .notCardDAV, "that address is not a CardDAV server (an address book server)", detail: error.message)
        }
    }

    /// A folder's remote, or a sync's error.
    public init(_ error: RemoteError) {
        let detail = error.message
        switch error.kind {
        case .unauthorized:
            self.init(.wrongPassword, "the server refused the login: make a new app password", detail: detail)
        case .notFound:
            self.init(.notFound, "nothing is at that address: check it", detail: detail)
        case .unreachable:
            self.init(.unreachable, "it cannot be reached", detail: detail)
        case .tooSlow:
            self.init(.tooSlow, "the server answered too slowly: try again later", detail: detail)
        case .unavailable:
            self.init(.busy, "the server is busy or failing: try again later", detail: detail)
        case .notAnAddressBook, .malformed, .rejected, .preconditionFailed, .invalidSyncToken:
            self.init(.notCardDAV, "that address is not a CardDAV address book", detail: detail)
        }
    }

    /// Saving the settings or a password.
    public init(_ error: ConfigurationError) {
        switch error.reason {
        case .changedMeanwhile:
            self.init(
                .changedMeanwhile,
                "the settings were changed meanwhile (on the status page or by another command): nothing was saved; "
                    + "try again")
        case .cannotWrite:
            self.init(.cannotSave, "the settings could not be saved; the old ones stay", detail: error.description)
        case .invalid:
            self.init(.invalid, "the settings cannot be saved", detail: error.description)
        }
    }
}
