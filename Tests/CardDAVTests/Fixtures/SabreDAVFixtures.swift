/// Multistatus bodies in the shape of Nextcloud / SabreDAV (prefixed `d:`, `card:`, `cs:`, pretty-printed).
enum SabreDAVFixtures {
    static let addressBookHome = """
        <?xml version="1.0"?>
        <d:multistatus xmlns:d="DAV:" xmlns:s="http://sabredav.org/ns" xmlns:card="urn:ietf:params:xml:ns:carddav" \
        xmlns:cs="http://calendarserver.org/ns/" xmlns:oc="http://owncloud.org/ns" xmlns:nc="http://nextcloud.org/ns">
         <d:response>
          <d:href>/remote.php/dav/addressbooks/users/alice/</d:href>
          <d:propstat>
           <d:prop>
            <d:resourcetype>
             <d:collection/>
            </d:resourcetype>
           </d:prop>
           <d:status>HTTP/1.1 200 OK</d:status>
          </d:propstat>
         </d:response>
         <d:response>
          <d:href>/remote.php/dav/addressbooks/users/alice/contacts/</d:href>
          <d:propstat>
           <d:prop>
            <d:resourcetype>
             <d:collection/>
             <card:addressbook/>
            </d:resourcetype>
            <d:displayname>Contacts</d:displayname>
            <d:supported-report-set>
             <d:supported-report><d:report><d:sync-collection/></d:report></d:supported-report>
             <d:supported-report><d:report><card:addressbook-multiget/></d:report></d:supported-report>
            </d:supported-report-set>
            <card:supported-address-data>
             <card:address-data-type content-type="text/vcard" version="3.0"/>
             <card:address-data-type content-type="text/vcard" version="4.0"/>
             <card:address-data-type content-type="application/vcard+json" version="4.0"/>
            </card:supported-address-data>
            <cs:getctag>http://sabre.io/ns/sync/42</cs:getctag>
           </d:prop>
           <d:status>HTTP/1.1 200 OK</d:status>
          </d:propstat>
         </d:response>
        </d:multistatus>
        """

    /// A truncated sync report (RFC 6578 3.6): a 507 response for the collection itself.
    static let truncatedSync = """
        <?xml version="1.0"?>
        <d:multistatus xmlns:d="DAV:">
         <d:response>
          <d:href>/remote.php/dav/addressbooks/users/alice/contacts/a.vcf</d:href>
          <d:propstat><d:prop><d:getetag>W/"weak-1"</d:getetag></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat>
         </d:response>
         <d:response>
          <d:href>/remote.php/dav/addressbooks/users/alice/contacts/</d:href>
          <d:status>HTTP/1.1 507 Insufficient Storage</d:status>
          <d:error><d:number-of-matches-within-limits/></d:error>
         </d:response>
         <d:sync-token>http://sabre.io/ns/sync/7</d:sync-token>
        </d:multistatus>
        """

    static let syncRest = """
        <?xml version="1.0"?>
        <d:multistatus xmlns:d="DAV:">
         <d:response>
          <d:href>/remote.php/dav/addressbooks/users/alice/contacts/b.vcf</d:href>
          <d:propstat><d:prop><d:getetag>"b-2"-gzip</d:getetag></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat>
         </d:response>
         <d:response>
          <d:href>/remote.php/dav/addressbooks/users/alice/contacts/c.vcf</d:href>
          <d:status>HTTP/1.1 404 Not Found</d:status>
         </d:response>
         <d:sync-token>http://sabre.io/ns/sync/9</d:sync-token>
        </d:multistatus>
        """

    static let invalidTokenConflict = """
        <?xml version="1.0" encoding="utf-8"?>
        <d:error xmlns:d="DAV:" xmlns:s="http://sabredav.org/ns">
          <d:valid-sync-token/>
          <s:exception>Sabre\\DAV\\Exception\\InvalidSyncToken</s:exception>
          <s:message>Invalid or unknown sync token</s:message>
        </d:error>
        """
}
