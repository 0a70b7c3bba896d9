// The low-level SHA-256 functions hash without OpenSSL 3's provider machinery, whose initialisation touches
// about 3 MB of libcrypto (measured: VmHWM of `contactbox import`). They are deprecated in 3.0, not removed.
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/sha.h>
