#define _GNU_SOURCE
#include "CTimeSyncBatchIO.h"
#if defined(__linux__)
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct ts_batch {
    unsigned slot_size;
    unsigned received;
    unsigned char *requests;
    unsigned char *replies;
    struct mmsghdr in[ts_batch_capacity];
    struct iovec in_vectors[ts_batch_capacity];
    struct sockaddr_storage sources[ts_batch_capacity];
    union {
        char bytes[CMSG_SPACE(sizeof(struct timespec)) + 64];
        struct cmsghdr align;
    } controls[ts_batch_capacity];
    struct mmsghdr out[ts_batch_capacity];
    struct iovec out_vectors[ts_batch_capacity];
};

ts_batch *ts_batch_create(unsigned slot_size) {
    ts_batch *batch = calloc(1, sizeof *batch);
    if (!batch) return NULL;
    batch->slot_size = slot_size;
    batch->requests = calloc(ts_batch_capacity, slot_size);
    batch->replies = calloc(ts_batch_capacity, slot_size);
    if (!batch->requests || !batch->replies) {
        ts_batch_destroy(batch);
        return NULL;
    }
    for (unsigned i = 0; i < ts_batch_capacity; i++) {
        batch->in_vectors[i].iov_base = batch->requests + (size_t)i * slot_size;
        batch->in_vectors[i].iov_len = slot_size;
        batch->out_vectors[i].iov_base = batch->replies + (size_t)i * slot_size;
    }
    return batch;
}

void ts_batch_destroy(ts_batch *batch) {
    if (!batch) return;
    free(batch->requests);
    free(batch->replies);
    free(batch);
}

int ts_socket_open(const struct sockaddr *address, socklen_t length, int reuse_port, int kernel_timestamps) {
    int fd = socket(address->sa_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    int on = 1;
    if ((reuse_port && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof on) != 0)
        || (kernel_timestamps && setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) != 0)
        || bind(fd, address, length) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int ts_batch_receive(int fd, ts_batch *batch) {
    for (unsigned i = 0; i < ts_batch_capacity; i++) {
        struct msghdr *header = &batch->in[i].msg_hdr;
        header->msg_name = &batch->sources[i];
        header->msg_namelen = sizeof batch->sources[i];
        header->msg_iov = &batch->in_vectors[i];
        header->msg_iovlen = 1;
        header->msg_control = batch->controls[i].bytes;
        header->msg_controllen = sizeof batch->controls[i].bytes;
        header->msg_flags = 0;
    }
    int n = recvmmsg(fd, batch->in, ts_batch_capacity, MSG_DONTWAIT, NULL);
    if (n < 0) {
        batch->received = 0;
        return (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
    }
    batch->received = (unsigned)n;
    return n;
}

const unsigned char *ts_batch_datagram(const ts_batch *batch, unsigned index, unsigned *length, int *truncated) {
    *length = batch->in[index].msg_len;
    *truncated = (batch->in[index].msg_hdr.msg_flags & MSG_TRUNC) != 0;
    return batch->requests + (size_t)index * batch->slot_size;
}

const struct sockaddr *ts_batch_source(const ts_batch *batch, unsigned index, socklen_t *length) {
    *length = batch->in[index].msg_hdr.msg_namelen;
    return (const struct sockaddr *)&batch->sources[index];
}

int64_t ts_batch_kernel_time(const ts_batch *batch, unsigned index) {
    struct msghdr *header = (struct msghdr *)&batch->in[index].msg_hdr;
    for (struct cmsghdr *control = CMSG_FIRSTHDR(header); control; control = CMSG_NXTHDR(header, control)) {
        if (control->cmsg_level == SOL_SOCKET && control->cmsg_type == SCM_TIMESTAMPNS) {
            struct timespec stamp;
            memcpy(&stamp, CMSG_DATA(control), sizeof stamp);
            return (int64_t)stamp.tv_sec * 1000000000 + stamp.tv_nsec;
        }
    }
    return -1;
}

int64_t ts_kernel_realtime(void) {
    struct timespec now;
    if (syscall(SYS_clock_gettime, CLOCK_REALTIME, &now) != 0) return -1;
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

unsigned char *ts_batch_reply_buffer(ts_batch *batch, unsigned slot) {
    return batch->replies + (size_t)slot * batch->slot_size;
}

void ts_batch_queue_reply(ts_batch *batch, unsigned slot, unsigned index, unsigned length) {
    struct msghdr *header = &batch->out[slot].msg_hdr;
    memset(header, 0, sizeof *header);
    batch->out_vectors[slot].iov_len = length;
    header->msg_name = &batch->sources[index];
    header->msg_namelen = batch->in[index].msg_hdr.msg_namelen;
    header->msg_iov = &batch->out_vectors[slot];
    header->msg_iovlen = 1;
}

int ts_batch_send(int fd, ts_batch *batch, unsigned count) {
    unsigned sent = 0, next = 0;
    while (next < count) {
        int n = sendmmsg(fd, batch->out + next, count - next, 0);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                // The socket's send buffer is full: wait for room (bounded: replies are small).
                struct pollfd writable = {.fd = fd, .events = POLLOUT};
                if (poll(&writable, 1, 100) > 0) continue;
            }
            next++;  // this reply cannot go: skip it, send the rest
            continue;
        }
        sent += (unsigned)n;
        next += (unsigned)n;
    }
    return (int)sent;
}

void ts_sleep_nanoseconds(int64_t nanoseconds) {
    static __thread int slack_set;
    if (!slack_set) {
        prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
        slack_set = 1;
    }
    struct timespec pause = {.tv_sec = nanoseconds / 1000000000, .tv_nsec = nanoseconds % 1000000000};
    while (nanosleep(&pause, &pause) != 0 && errno == EINTR) {}
}

int ts_wake_create(void) { return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC); }

void ts_wake_signal(int wake_fd) {
    uint64_t one = 1;
    ssize_t written = write(wake_fd, &one, sizeof one);
    (void)written;  // the counter only grows: a full counter still wakes every waiter
}

int ts_wait(int fd, int wake_fd) {
    struct pollfd fds[2] = {{.fd = fd, .events = POLLIN}, {.fd = wake_fd, .events = POLLIN}};
    for (;;) {
        int n = poll(fds, 2, -1);
        if (n < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (fds[1].revents) return 0;
        if (fds[0].revents) return 1;
    }
}
#endif
