// Linux interfaces the daemon's main loop uses that Swift's Glibc module does not export: signalfd(2),
// eventfd(2), rtnetlink(7), pidfd_open(2), pipe2(2) and glibc's pthread_timedjoin_np(3). Headers only; nothing to link.
#include <errno.h>
#include <pthread.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <time.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

// A GNU extension, declared only under _GNU_SOURCE, which would change other headers' structs under Swift's
// other modules (fd_set): declared here as glibc defines it.
extern int pthread_timedjoin_np(pthread_t thread, void **retval, const struct timespec *abstime);
// pipe2(2), another: a pipe whose ends are close-on-exec from the start, which no other thread's spawn can inherit.
extern int pipe2(int pipefd[2], int flags);

// pidfd_open(2): a descriptor that poll(2) finds readable once the child has exited. Through syscall(2), which is
// variadic and so not callable from Swift; glibc's own wrapper is newer (2.36) than some systems we build on.
static inline int contactbox_pidfd_open(pid_t pid) {
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    errno = ENOSYS;
    return -1;
#endif
}
