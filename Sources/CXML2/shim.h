// libxml2 for the CardDAV module's streaming multistatus parser (SAX2 push parser).
// Swift calls the C API directly; nothing here needs C glue: the SAX callbacks are
// plain function pointers and errors arrive through the non-variadic `serror`
// (structured error) callback, so the variadic `error`/`warning` ones stay unset.
#include <libxml/parser.h>
#include <libxml/SAX2.h>
#include <libxml/xmlerror.h>
