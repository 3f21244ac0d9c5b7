// CTreeSystem: the few C library calls that Swift's Glibc module leaves out, so that no Swift
// code writes a C struct's byte offsets by hand or looks a function up with dlsym.
//
//   epoll and eventfd (Linux): the functions and the real `struct epoll_event` come from the
//   system headers included below; the flags the event loop uses are named here, with one
//   type each.
//   malloc tunables, the auxiliary vector and the C library's version: small functions of
//   shim.c, which do nothing (or answer "no") where the C library is not glibc.
//
// Everything compiles on any libc: what a system lacks is left out (`__linux__`) or answered
// by a stand-in (`__GLIBC__`).
#ifndef C_TREE_SYSTEM_H
#define C_TREE_SYSTEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __linux__
#include <sys/epoll.h>
#include <sys/eventfd.h>

// Event bits of `epoll_event.events` (glibc declares them as an enum, musl as macros).
static const uint32_t ctree_epoll_in = EPOLLIN;
static const uint32_t ctree_epoll_out = EPOLLOUT;
static const uint32_t ctree_epoll_err = EPOLLERR;
static const uint32_t ctree_epoll_hup = EPOLLHUP;
static const uint32_t ctree_epoll_rdhup = EPOLLRDHUP;
static const uint32_t ctree_epoll_et = EPOLLET;

// Operations of `epoll_ctl`, and the flags of `epoll_create1` and `eventfd`.
static const int32_t ctree_epoll_ctl_add = EPOLL_CTL_ADD;
static const int32_t ctree_epoll_ctl_del = EPOLL_CTL_DEL;
static const int32_t ctree_epoll_cloexec = EPOLL_CLOEXEC;
static const int32_t ctree_efd_cloexec = EFD_CLOEXEC;
static const int32_t ctree_efd_nonblock = EFD_NONBLOCK;
#endif

/// `mallopt(M_MMAP_THRESHOLD, bytes)`: blocks of at least `bytes` get a mapping of their own,
/// and glibc stops adjusting the threshold. 1 when the C library took it; 0 otherwise, and
/// always without glibc.
int ctree_set_mmap_threshold(int bytes);

/// `malloc_trim(0)`: gives the free pages of every malloc heap back to the system. 1 when some
/// memory was released; 0 otherwise, and always without glibc.
int ctree_malloc_trim(void);

/// `getauxval(AT_SECURE)`: whether the program runs in secure-execution mode (setuid, setgid,
/// file capabilities), where glibc ignores `GLIBC_TUNABLES`. 0 where there is no auxiliary
/// vector to ask.
int ctree_secure_execution(void);

/// `gnu_get_libc_version()` ("2.36"), or NULL when the C library is not glibc.
const char *ctree_glibc_version(void);

#endif
