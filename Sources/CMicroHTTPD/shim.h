// libmicrohttpd for the StatusServer module. MHD_start_daemon is variadic (options as a va_list of pairs), which
// Swift cannot call: the helpers below take the options the status server uses as plain arguments.
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>
