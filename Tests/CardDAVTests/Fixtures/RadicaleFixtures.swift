/// Multistatus bodies as Radicale 3.9 writes them (default namespace DAV:, `CR:` for CardDAV, self-closing tags).
enum RadicaleFixtures {
    static let rootPropfind = """
        <?xml version='1.0' encoding='utf-8'?>
        <multistatus xmlns="DAV:" xmlns:CR="urn:ietf:params:xml:ns:carddav"><response><href>/</href><propstat><prop>\
        <resourcetype><collection /></resourcetype><current-user-principal><href>/alice/</href></current-user-principal>\
        </prop><status>HTTP/1.1 200 OK</status></propstat><propstat><prop><CR:addressbook-home-set /></prop>\
        <status>HTTP/1.1 404 Not Found</status></propstat></response></multistatus>
        """

    static let principalPropfind = """
        <?xml version='1.0' encoding='utf-8'?>
        <multistatus xmlns="DAV:" xmlns:CR="urn:ietf:params:xml:ns:carddav"><response><href>/alice/</href><propstat>\
        <prop><resourcetype><principal /><collection /></resourcetype><CR:addressbook-home-set><href>/alice/</href>\
        </CR:addressbook-home-set></prop><status>HTTP/1.1 200 OK</status></propstat></response></multistatus>
        """

    static let homeListing = """
        <?xml version='1.0' encoding='utf-8'?>
        <multistatus xmlns="DAV:" xmlns:CR="urn:ietf:params:xml:ns:carddav" xmlns:CS="http://calendarserver.org/ns/">\
        <response><href>/alice/</href><propstat><prop><resourcetype><principal /><collection /></resourcetype>\
        <supported-report-set><supported-report><report><expand-property /></report></supported-report>\
        </supported-report-set></prop><status>HTTP/1.1 200 OK</status></propstat><propstat><prop><displayname />\
        <CR:supported-address-data /><CS:getctag /></prop><status>HTTP/1.1 404 Not Found</status></propstat></response>\
        <response><href>/alice/book/</href><propstat><prop><resourcetype><CR:addressbook /><collection /></resourcetype>\
        <displayname>Family</displayname><supported-report-set><supported-report><report><expand-property /></report>\
        </supported-report><supported-report><report><sync-collection /></report></supported-report><supported-report>\
        <report><CR:addressbook-multiget /></report></supported-report></supported-report-set><CR:supported-address-data>\
        <CR:address-data-type content-type="text/vcard" version="3.0" /></CR:supported-address-data>\
        <CS:getctag>"a36a0da5dc18"</CS:getctag></prop><status>HTTP/1.1 200 OK</status></propstat></response></multistatus>
        """

    static let syncInitial = """
        <?xml version='1.0' encoding='utf-8'?>
        <multistatus xmlns="DAV:"><sync-token>http://radicale.org/ns/sync/5aeafdb5</sync-token><response>\
        <href>/alice/book/u1.vcf</href><propstat><prop><getetag>"01a7a958"</getetag></prop>\
        <status>HTTP/1.1 200 OK</status></propstat></response><response><href>/alice/book/gone.vcf</href>\
        <status>HTTP/1.1 404 Not Found</status></response></multistatus>
        """

    static let invalidSyncToken = """
        <?xml version='1.0' encoding='utf-8'?>
        <error xmlns="DAV:"><valid-sync-token /></error>
        """

    static let multigetWithMissing = """
        <?xml version='1.0' encoding='utf-8'?>
        <multistatus xmlns="DAV:" xmlns:CR="urn:ietf:params:xml:ns:carddav"><response><href>/alice/book/u1.vcf</href>\
        <propstat><prop><getetag>"01a7"</getetag><CR:address-data>BEGIN:VCARD&#13;
        VERSION:3.0&#13;
        UID:u1&#13;
        FN:One &amp; Only&#13;
        END:VCARD&#13;
        </CR:address-data></prop><status>HTTP/1.1 200 OK</status></propstat></response><response>\
        <href>/alice/book/nope.vcf</href><status>HTTP/1.1 404 Not Found</status></response></multistatus>
        """
}
