/* malloc-count: an LD_PRELOAD library that counts a process's allocation calls (malloc, calloc,
 * realloc, posix_memalign, aligned_alloc, memalign, valloc, pvalloc) with one atomic counter, and
 * calls through to the real ones (dlsym(RTLD_NEXT)). On SIGUSR2 it appends the count so far, one
 * decimal number and a newline, to the file named by the environment variable MALLOC_COUNT_FILE.
 * scripts/bench/ntp_one_core.py reads it twice around a load step: allocations per reply.
 *
 *   gcc -O2 -shared -fPIC -o malloc-count.so malloc-count.c -ldl
 *   MALLOC_COUNT_FILE=/tmp/counts LD_PRELOAD=./malloc-count.so SERVER ...; kill -USR2 PID
 *
 * dlsym may itself call calloc/malloc before the real ones are known: those few come from a small
 * static bump buffer, which free and realloc recognize and never hand to the real allocator.
 * The SIGUSR2 handler uses only async-signal-safe calls (open, write, close). The process under test
 * must not use SIGUSR2 itself (timesync serve does not).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static atomic_ulong count;

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);
static void *(*real_valloc)(size_t);
static void *(*real_pvalloc)(size_t);

/* The bootstrap buffer: what dlsym asks for while the real functions are being looked up. */
static _Alignas(64) unsigned char bootstrap[64 * 1024];
static atomic_size_t bootstrap_used;
static atomic_int resolving;
static atomic_int resolved;
static char count_file[4096];

static int in_bootstrap(const void *p) {
    return (const unsigned char *)p >= bootstrap && (const unsigned char *)p < bootstrap + sizeof bootstrap;
}

static void *bootstrap_alloc(size_t size, size_t align) {
    if (align < 16) align = 16;
    size_t used = atomic_load(&bootstrap_used);
    for (;;) {
        size_t start = (used + align - 1) & ~(align - 1);
        if (start + size > sizeof bootstrap) return NULL;
        if (atomic_compare_exchange_weak(&bootstrap_used, &used, start + size)) return bootstrap + start;
    }
}

static void resolve(void) {
    if (atomic_load(&resolved)) return;
    atomic_store(&resolving, 1);
    real_malloc = dlsym(RTLD_NEXT, "malloc");
    real_calloc = dlsym(RTLD_NEXT, "calloc");
    real_realloc = dlsym(RTLD_NEXT, "realloc");
    real_free = dlsym(RTLD_NEXT, "free");
    real_posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
    real_aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
    real_memalign = dlsym(RTLD_NEXT, "memalign");
    real_valloc = dlsym(RTLD_NEXT, "valloc");
    real_pvalloc = dlsym(RTLD_NEXT, "pvalloc");
    atomic_store(&resolving, 0);
    atomic_store(&resolved, 1);
}

/* While resolving (dlsym's own allocations) the bootstrap buffer answers. */
#define READY_OR(fallback) \
    do { \
        if (!atomic_load(&resolved)) { \
            if (atomic_load(&resolving)) return (fallback); \
            resolve(); \
        } \
    } while (0)

static void on_usr2(int sig) {
    (void)sig;
    int saved = errno;
    if (count_file[0]) {
        char text[32];
        unsigned long n = atomic_load(&count);
        int i = sizeof text;
        text[--i] = '\n';
        do { text[--i] = (char)('0' + n % 10); n /= 10; } while (n);
        int fd = open(count_file, O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (fd >= 0) {
            ssize_t unused = write(fd, text + i, sizeof text - i);
            (void)unused;
            close(fd);
        }
    }
    errno = saved;
}

__attribute__((constructor)) static void setup(void) {
    resolve();
    const char *name = getenv("MALLOC_COUNT_FILE");
    if (name && strlen(name) < sizeof count_file) {
        strcpy(count_file, name);
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_usr2;
        sa.sa_flags = SA_RESTART;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGUSR2, &sa, NULL);
    }
}

void *malloc(size_t size) {
    READY_OR(bootstrap_alloc(size, 16));
    atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
    return real_malloc(size);
}

void *calloc(size_t n, size_t size) {
    if (!atomic_load(&resolved) && atomic_load(&resolving)) {
        if (size && n > SIZE_MAX / size) return NULL;
        return bootstrap_alloc(n * size, 16); /* static: already zero */
    }
    READY_OR(NULL);
    atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
    return real_calloc(n, size);
}

void *realloc(void *p, size_t size) {
    READY_OR(bootstrap_alloc(size, 16));
    atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
    if (p && in_bootstrap(p)) {
        /* Moved out of the bootstrap buffer; its old size is unknown, so copy what can be there. */
        void *q = real_malloc(size);
        if (q) {
            size_t room = (size_t)(bootstrap + sizeof bootstrap - (unsigned char *)p);
            memcpy(q, p, size < room ? size : room);
        }
        return q;
    }
    return real_realloc(p, size);
}

void free(void *p) {
    if (!p || in_bootstrap(p)) return;
    if (!atomic_load(&resolved)) resolve();
    real_free(p);
}

int posix_memalign(void **out, size_t align, size_t size) {
    if (!atomic_load(&resolved) && atomic_load(&resolving)) {
        *out = bootstrap_alloc(size, align);
        return *out ? 0 : ENOMEM;
    }
    READY_OR(ENOMEM);
    atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
    return real_posix_memalign(out, align, size);
}

void *aligned_alloc(size_t align, size_t size) {
    READY_OR(bootstrap_alloc(size, align));
    atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
    return real_aligned_alloc(align, size);
}

void *memalign(size_t align, size_t size) {
    READY_OR(bootstrap_alloc(size, align));
    atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
    return real_memalign(align, size);
}

void *valloc(size_t size) {
    READY_OR(bootstrap_alloc(size, 4096));
    atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
    return real_valloc(size);
}

void *pvalloc(size_t size) {
    READY_OR(bootstrap_alloc(size, 4096));
    atomic_fetch_add_explicit(&count, 1, memory_order_relaxed);
    return real_pvalloc(size);
}
