// The low-level SHA-256 functions hash without OpenSSL 3's provider machinery, whose initialisation touches
// megabytes of libcrypto (the peak RSS Deploy/bench/foundation.sh prints for import). They are deprecated in 3.0,
// not removed.
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include <openssl/sha.h>
