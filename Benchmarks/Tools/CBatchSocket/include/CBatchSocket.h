// sendmmsg/recvmmsg for ntp-load: Glibc's Swift module leaves out these GNU extensions. The header
// includes no system header: `_GNU_SOURCE` here would give `fd_set` another shape than the other
// modules' `sys/select.h`, and Clang refuses the two definitions; the .c file asks for GNU's.
#pragma once
#if defined(__linux__)

/// Sends `count` datagrams of `size` bytes each, packed back to back at `base`, on a connected
/// socket in one system call. Returns how many were sent, or -1 with errno.
int batch_send(int fd, const void *base, unsigned size, unsigned count);

/// Sends `count` datagrams of `size` bytes each, packed back to back at `base`, on an unconnected
/// socket to `to_address`:`to_port` (network byte order), datagram i from source address
/// `sources[i]` (network byte order, a local address: any of 127.0.0.0/8 on Linux) with
/// `IP_PKTINFO`. Returns how many were sent, or -1 with errno.
int batch_send_from(int fd, const void *base, unsigned size, unsigned count, unsigned to_address,
                    unsigned short to_port, const unsigned *sources);

/// Receives up to `count` datagrams into slots of `size` bytes at `base`, waiting for the first;
/// `lengths[i]` gets each one's length. Returns how many arrived, or -1 with errno.
int batch_receive(int fd, void *base, unsigned size, unsigned count, unsigned *lengths);
#endif
