/* null-ntp-server: a do-nothing SNTP server, the floor the one-core benchmark compares against
 * (scripts/bench/ntp_one_core.py). One UDP socket on 127.0.0.1:PORT; recvmmsg of up to 64 datagrams,
 * for each a 48-byte reply (mode 4, stratum 3, origin = the request's transmit timestamp, receive and
 * transmit from one clock_gettime per batch), sendmmsg. Nothing else: no validation beyond a length of
 * 48 bytes or more, no rate limit, no logging. Exits on SIGTERM (or SIGINT).
 *
 *   gcc -O2 -o null-ntp-server null-ntp-server.c && ./null-ntp-server 12300
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BATCH 64
#define NTP_UNIX_OFFSET 2208988800ULL

static volatile sig_atomic_t stopping = 0;

static void on_signal(int sig) { (void)sig; stopping = 1; }

static void put64(unsigned char *p, uint64_t v) {
    for (int i = 7; i >= 0; i--) { p[i] = (unsigned char)v; v >>= 8; }
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s PORT\n", argv[0]);
        return 2;
    }
    int port = atoi(argv[1]);
    if (port <= 0 || port > 65535) {
        fprintf(stderr, "bad port %s\n", argv[1]);
        return 2;
    }
    /* No SA_RESTART: SIGTERM interrupts a blocked recvmmsg, which then returns EINTR. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);

    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0) { perror("socket"); return 1; }
    int size = 4 << 20;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_port = htons((uint16_t)port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&addr, sizeof addr) < 0) { perror("bind"); return 1; }

    static unsigned char in[BATCH][1024];
    static unsigned char out[BATCH][48];
    static struct sockaddr_in peers[BATCH];
    static struct iovec inv[BATCH], outv[BATCH];
    static struct mmsghdr rx[BATCH], tx[BATCH];
    for (int i = 0; i < BATCH; i++) {
        inv[i].iov_base = in[i];
        inv[i].iov_len = sizeof in[i];
        rx[i].msg_hdr.msg_iov = &inv[i];
        rx[i].msg_hdr.msg_iovlen = 1;
        outv[i].iov_base = out[i];
        outv[i].iov_len = 48;
    }

    while (!stopping) {
        for (int i = 0; i < BATCH; i++) {
            rx[i].msg_hdr.msg_name = &peers[i];
            rx[i].msg_hdr.msg_namelen = sizeof peers[i];
        }
        int n = recvmmsg(fd, rx, BATCH, MSG_WAITFORONE, NULL);
        if (n < 0) {
            if (errno == EINTR) continue;
            perror("recvmmsg");
            return 1;
        }
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        uint64_t stamp = ((uint64_t)now.tv_sec + NTP_UNIX_OFFSET) << 32 |
                         (uint64_t)(((unsigned __int128)now.tv_nsec << 32) / 1000000000ULL);
        int m = 0;
        for (int i = 0; i < n; i++) {
            if (rx[i].msg_len < 48) continue;
            unsigned char *q = in[i], *r = out[m];
            int version = (q[0] >> 3) & 7;
            memset(r, 0, 48);
            r[0] = (unsigned char)((version ? version : 4) << 3 | 4); /* LI 0, VN as asked, mode 4 */
            r[1] = 3;                                                 /* stratum 3 */
            r[2] = q[2];                                              /* poll */
            r[3] = (unsigned char)-20;                                /* precision ~1 µs */
            memcpy(r + 12, "LOCL", 4);                                /* reference ID */
            put64(r + 16, stamp);                                     /* reference */
            memcpy(r + 24, q + 40, 8);                                /* origin = request's transmit */
            put64(r + 32, stamp);                                     /* receive */
            put64(r + 40, stamp);                                     /* transmit */
            tx[m].msg_hdr.msg_name = &peers[i];
            tx[m].msg_hdr.msg_namelen = rx[i].msg_hdr.msg_namelen;
            tx[m].msg_hdr.msg_iov = &outv[m];
            tx[m].msg_hdr.msg_iovlen = 1;
            m++;
        }
        int sent = 0;
        while (sent < m) {
            int k = sendmmsg(fd, tx + sent, (unsigned)(m - sent), 0);
            if (k < 0) {
                if (errno == EINTR && !stopping) continue;
                break; /* a full send buffer drops the rest, as a server under load would */
            }
            sent += k;
        }
    }
    close(fd);
    return 0;
}
