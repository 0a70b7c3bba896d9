// Linux interfaces the daemon's main loop uses that Swift's Glibc module does not export: signalfd(2),
// eventfd(2), rtnetlink(7) and glibc's pthread_timedjoin_np(3). Headers only; nothing to link.
#include <pthread.h>
#include <time.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

// A GNU extension, declared only under _GNU_SOURCE, which would change other headers' structs under Swift's
// other modules (fd_set): declared here as glibc defines it.
extern int pthread_timedjoin_np(pthread_t thread, void **retval, const struct timespec *abstime);
