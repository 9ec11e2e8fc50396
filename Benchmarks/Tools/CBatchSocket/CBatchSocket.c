#include "CBatchSocket.h"
#if defined(__linux__)
#include <string.h>

enum { batch_max = 256 };

/// Points message i at slot i of `size` bytes from `base`; returns the count, capped at batch_max.
static unsigned prepare(struct mmsghdr *messages, struct iovec *vectors, const void *base, unsigned size, unsigned count) {
    if (count > batch_max) count = batch_max;
    memset(messages, 0, sizeof(struct mmsghdr) * count);
    for (unsigned i = 0; i < count; i++) {
        vectors[i].iov_base = (char *)base + (size_t)i * size;
        vectors[i].iov_len = size;
        messages[i].msg_hdr.msg_iov = &vectors[i];
        messages[i].msg_hdr.msg_iovlen = 1;
    }
    return count;
}

int batch_send(int fd, const void *base, unsigned size, unsigned count) {
    struct mmsghdr messages[batch_max];
    struct iovec vectors[batch_max];
    count = prepare(messages, vectors, base, size, count);
    return sendmmsg(fd, messages, count, 0);
}

int batch_receive(int fd, void *base, unsigned size, unsigned count, unsigned *lengths) {
    struct mmsghdr messages[batch_max];
    struct iovec vectors[batch_max];
    count = prepare(messages, vectors, base, size, count);
    int n = recvmmsg(fd, messages, count, MSG_WAITFORONE, NULL);
    for (int i = 0; i < n; i++) lengths[i] = messages[i].msg_len;
    return n;
}
#endif
