// Batched datagram I/O for the SNTP server on Linux: recvmmsg/sendmmsg with kernel receive
// timestamps, which Glibc's Swift module leaves out (they are GNU extensions). Empty elsewhere.
#pragma once
#if defined(__linux__)
#include <stdint.h>
#include <sys/socket.h>

/// The most datagrams one call reads or writes.
enum { ts_batch_capacity = 64 };

/// Buffers for one socket's reads and replies, allocated once: `ts_batch_capacity` request slots and
/// as many reply slots of `slot_size` bytes each, their source addresses and control data.
typedef struct ts_batch ts_batch;

/// A batch with slots of `slot_size` bytes; NULL when out of memory.
ts_batch *ts_batch_create(unsigned slot_size);
void ts_batch_destroy(ts_batch *batch);

/// A UDP socket of `family` bound to `address`, non-blocking; with `reuse_port`, SO_REUSEPORT;
/// with `kernel_timestamps`, SO_TIMESTAMPNS (each datagram carries the kernel's receive time).
/// Returns the descriptor, or -1 with errno.
int ts_socket_open(const struct sockaddr *address, socklen_t length, int reuse_port, int kernel_timestamps);

/// Reads up to `ts_batch_capacity` datagrams without waiting. Returns how many (0: none waiting),
/// or -1 with errno.
int ts_batch_receive(int fd, ts_batch *batch);

/// Datagram `index` of the last read: its bytes, its length, whether it was cut to the slot.
const unsigned char *ts_batch_datagram(const ts_batch *batch, unsigned index, unsigned *length, int *truncated);
/// The source address of datagram `index`.
const struct sockaddr *ts_batch_source(const ts_batch *batch, unsigned index, socklen_t *length);
/// The kernel's receive time of datagram `index` (CLOCK_REALTIME, nanoseconds since 1970), or -1
/// when the datagram carries none.
int64_t ts_batch_kernel_time(const ts_batch *batch, unsigned index);

/// The kernel's CLOCK_REALTIME now, in nanoseconds since 1970, read by system call: the clock
/// `ts_batch_kernel_time` stamps with, even where a library interposes on clock_gettime.
int64_t ts_kernel_realtime(void);

/// Reply slot `slot` (`slot_size` bytes) to write a reply into.
unsigned char *ts_batch_reply_buffer(ts_batch *batch, unsigned slot);
/// Queues reply slot `slot`, `length` bytes, to the source of datagram `index`.
void ts_batch_queue_reply(ts_batch *batch, unsigned slot, unsigned index, unsigned length);
/// Sends the first `count` queued replies (sendmmsg, continued after a partial send; a reply the
/// kernel refuses is skipped). Returns how many were sent.
int ts_batch_send(int fd, ts_batch *batch, unsigned count);

/// Sleeps `nanoseconds` (a short pause: the thread's timer slack is set to 1 µs the first time).
void ts_sleep_nanoseconds(int64_t nanoseconds);

/// An eventfd that wakes ts_wait; -1 with errno.
int ts_wake_create(void);
/// Wakes every ts_wait on `wake_fd`, now and later.
void ts_wake_signal(int wake_fd);
/// Waits until `fd` is readable (returns 1) or `wake_fd` was signalled (returns 0); -1 with errno.
int ts_wait(int fd, int wake_fd);
#endif
