// glibc's malloc tuning (mallopt, malloc_trim), which the Glibc Swift module does not import.
#include <malloc.h>
