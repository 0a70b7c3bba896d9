#include <openssl/evp.h>
#include <openssl/rand.h>
