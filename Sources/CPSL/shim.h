// libpsl: the public suffix list, for "is this host of the same site" (the origin policy of redirects).
// Debian's libcurl already loads libpsl5, so it costs no extra resident memory.
#include <libpsl.h>
