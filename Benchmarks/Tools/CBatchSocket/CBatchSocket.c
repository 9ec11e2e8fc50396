#if defined(__linux__)
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sys/socket.h>
#include <sys/uio.h>
#include <netinet/in.h>
#include <string.h>
#endif
#include "CBatchSocket.h"
#if defined(__linux__)

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

int batch_send_from(int fd, const void *base, unsigned size, unsigned count, unsigned to_address,
                    unsigned short to_port, const unsigned *sources) {
    struct mmsghdr messages[batch_max];
    struct iovec vectors[batch_max];
    union {
        char bytes[CMSG_SPACE(sizeof(struct in_pktinfo))];
        struct cmsghdr align;
    } controls[batch_max];
    struct sockaddr_in to;
    memset(&to, 0, sizeof to);
    to.sin_family = AF_INET;
    to.sin_addr.s_addr = to_address;
    to.sin_port = to_port;
    count = prepare(messages, vectors, base, size, count);
    memset(controls, 0, sizeof(controls[0]) * count);
    for (unsigned i = 0; i < count; i++) {
        messages[i].msg_hdr.msg_name = &to;
        messages[i].msg_hdr.msg_namelen = sizeof to;
        messages[i].msg_hdr.msg_control = controls[i].bytes;
        messages[i].msg_hdr.msg_controllen = sizeof controls[i].bytes;
        struct cmsghdr *header = CMSG_FIRSTHDR(&messages[i].msg_hdr);
        header->cmsg_level = IPPROTO_IP;
        header->cmsg_type = IP_PKTINFO;
        header->cmsg_len = CMSG_LEN(sizeof(struct in_pktinfo));
        struct in_pktinfo info;
        memset(&info, 0, sizeof info);
        info.ipi_spec_dst.s_addr = sources[i];
        memcpy(CMSG_DATA(header), &info, sizeof info);
    }
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
