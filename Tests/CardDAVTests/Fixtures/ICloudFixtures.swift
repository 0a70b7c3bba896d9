/// Multistatus bodies in the shape of iCloud: absolute hrefs on a partition host, upper-case default namespace
/// prefixes, a CDATA address-data, a weak and an unquoted ETag.
enum ICloudFixtures {
    static let principal = """
        <?xml version="1.0" encoding="UTF-8"?>
        <multistatus xmlns="DAV:"><response><href>/</href><propstat><prop><current-user-principal>\
        <href>/1234567/principal/</href></current-user-principal></prop><status>HTTP/1.1 200 OK</status></propstat>\
        </response></multistatus>
        """

    static let homeSet = """
        <?xml version="1.0" encoding="UTF-8"?>
        <multistatus xmlns="DAV:"><response><href>/1234567/principal/</href><propstat><prop>\
        <addressbook-home-set xmlns="urn:ietf:params:xml:ns:carddav">\
        <href xmlns="DAV:">https://p42-contacts.icloud.com:443/1234567/carddavhome/</href></addressbook-home-set>\
        </prop><status>HTTP/1.1 200 OK</status></propstat></response></multistatus>
        """

    static let multiget = """
        <?xml version="1.0" encoding="UTF-8"?>
        <multistatus xmlns="DAV:"><response><href>/1234567/carddavhome/card/ABC.vcf</href><propstat><prop>\
        <getetag>W/"C=12@U=34"</getetag><address-data xmlns="urn:ietf:params:xml:ns:carddav"><![CDATA[BEGIN:VCARD
        VERSION:3.0
        UID:ABC
        FN:Zoë <Z> & co
        END:VCARD
        ]]></address-data></prop><status>HTTP/1.1 200 OK</status></propstat></response>\
        <response><href>/1234567/carddavhome/card/DEF.vcf</href><propstat><prop><getetag>unquoted-77</getetag>\
        <address-data xmlns="urn:ietf:params:xml:ns:carddav">BEGIN:VCARD
        VERSION:3.0
        UID:DEF
        FN:Def
        END:VCARD
        </address-data></prop><status>HTTP/1.1 200 OK</status></propstat></response></multistatus>
        """
}
