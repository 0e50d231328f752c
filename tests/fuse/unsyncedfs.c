/*
 * unsyncedfs: a FUSE 3 filesystem that mirrors a backing directory and keeps every file's unsynced data in memory,
 * so that a power loss can be simulated by unmounting it (or sending it SIGTERM): whatever was written and not yet
 * fsynced is dropped, as a machine that loses power drops the page cache it had not written back.
 *
 *   unsyncedfs BACKING MOUNTPOINT [-f] [-o dirty_limit_mb=N,writeback_ms=M,stats=FILE]
 *
 * The model (tests/fuse/README.md says it for people):
 *  - File data: a write lands in the daemon's memory, in 4 KiB pages per file (the kernel's page size, so a lost
 *    write loses what a real page cache would), and reaches the backing file only when that file is fsynced or
 *    fdatasynced, or when the daemon writes it back on its own (below). Reads, sizes (st_size), truncate and the
 *    kernel's mmap pages all see the unsynced data, as a program sees its own writes before they are durable.
 *  - Metadata goes straight to the backing directory and survives: create, mkdir, rename, unlink, link, symlink,
 *    rmdir, chmod, chown, utimens, truncate/ftruncate (the backing file takes the new size at once). So a file
 *    created and never synced exists after the crash, with its synced size (often 0). Metadata durability (a lost
 *    rename, a lost directory entry) is not modelled; fsync of a directory does nothing.
 *  - Writeback: when the unsynced pages of the whole mount exceed dirty_limit_mb (default 256), the oldest ones are
 *    written back until the mount is under 7/8 of the limit, as the kernel's flusher does when dirty pages pass
 *    vm.dirty_background_bytes, so that a program that never fsyncs cannot exhaust the daemon's memory. With
 *    writeback_ms=M (default 0, off) a page older than M ms is also written back, the analogue of the kernel's
 *    vm.dirty_expire_centisecs (30 s by default, checked every vm.dirty_writeback_centisecs, 5 s).
 *  - Crash: unmounting (fusermount3 -u MOUNTPOINT) or SIGTERM/SIGINT ends the daemon WITHOUT writing anything
 *    back. It then prints how much it dropped on stderr and, with stats=FILE, writes key=value lines to FILE
 *    (dropped_bytes, dropped_pages, dropped_files, synced_bytes, written_back_bytes, discarded_bytes).
 *    The backing directory is then what the disk holds after the power loss; mount it again to "restart".
 *
 * The kernel's own caches cannot outlive a crash: the daemon asks for no kernel_cache, auto_cache or writeback
 * cache (writes come to the daemon as the program makes them; mmap pages come when the kernel writes them back, at
 * msync/force, close or its own writeback), and a crash is an unmount, which drops the whole superblock.
 *
 * Concurrency: libfuse's multi-threaded loop; one mutex guards the file table, the pages and the counters, and is
 * held across each operation's backing I/O on them (simple and enough for a test filesystem). Backing paths are
 * resolved against a descriptor of BACKING opened before mounting, so BACKING may be MOUNTPOINT itself.
 */
#define _GNU_SOURCE
#define FUSE_USE_VERSION 31

#include <fuse.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <search.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define PG 4096u
#define RUN_MAX 256      /* pages written back with one pwritev at most */
#define NODE_BUCKETS 4096

/* One page of a file's unsynced data. The page holds the file's whole content for its range (the bytes nobody
 * wrote are filled from the backing file when the page is made), but only [lo, hi) was written: that is what a
 * writeback writes and what a crash loses. */
struct page {
    uint64_t index;                /* first: the tsearch key (offset / PG) */
    struct node *node;
    uint32_t lo, hi;               /* the written bytes, [lo, hi), lo < hi */
    uint64_t dirtied_ms;           /* when the page was first written (monotonic), for age-based writeback */
    struct page *older, *newer;    /* the mount's age list, oldest first */
    unsigned char data[PG];
};

/* A backing file (an inode, so renames do not matter) that is open or has unsynced pages. It holds a descriptor
 * of the backing file for as long as it lives, which also keeps the inode number from being reused. */
struct node {
    dev_t dev;
    ino_t ino;
    int fd;                        /* the backing file, read-write when possible */
    int writable;
    off_t size;                    /* the size the program sees (the backing size plus unsynced growth) */
    void *pages;                   /* tsearch tree of struct page by index */
    size_t npages;
    int refs;                      /* open FUSE handles */
    int unlinked;                  /* its last name was removed: its pages go when the last handle does */
    int wb_error;                  /* an error of a background writeback, reported by the next fsync */
    struct timespec mtime;         /* the last unsynced write, when mtime_set */
    int mtime_set;
    struct node *hnext;
};

static struct {
    int backing_fd;
    const char *backing;
    uint64_t limit_pages;
    uint64_t writeback_ms;
    const char *stats_path;

    pthread_mutex_t lock;
    pthread_cond_t wake;           /* the aging thread's timer; signalled on stop */
    struct node *nodes[NODE_BUCKETS];
    struct page *oldest, *newest;
    uint64_t dirty_pages;
    int initialized;
    int stopping;
    int aging_started;
    pthread_t aging;
    int wb_error_logged;

    uint64_t synced_bytes;         /* written to the backing files by fsync */
    uint64_t written_back_bytes;   /* written to the backing files by the dirty limit or the age */
    uint64_t discarded_bytes;      /* unsynced bytes cut by truncate or whose file was deleted */
} g = { .backing_fd = -1, .limit_pages = 256ull * 1024 * 1024 / PG };

static uint64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000 + (uint64_t) ts.tv_nsec / 1000000;
}

static const char *rel(const char *path) {
    while (*path == '/') {
        path++;
    }
    return *path ? path : ".";
}

/* ---- files and pages (all with g.lock held) ---- */

static size_t bucket(dev_t dev, ino_t ino) {
    return (size_t) ((ino * 0x9E3779B97F4A7C15ull) ^ dev) % NODE_BUCKETS;
}

static struct node *node_find(dev_t dev, ino_t ino) {
    for (struct node *n = g.nodes[bucket(dev, ino)]; n; n = n->hnext) {
        if (n->dev == dev && n->ino == ino) {
            return n;
        }
    }
    return NULL;
}

static int page_cmp(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
    return x < y ? -1 : x > y;
}

static struct page *page_find(struct node *n, uint64_t index) {
    void **found = tfind(&index, &n->pages, page_cmp);
    return found ? *(struct page **) found : NULL;
}

static void page_free(struct page *p) {
    struct node *n = p->node;
    if (p->older) p->older->newer = p->newer; else g.oldest = p->newer;
    if (p->newer) p->newer->older = p->older; else g.newest = p->older;
    tdelete(p, &n->pages, page_cmp);
    n->npages--;
    g.dirty_pages--;
    free(p);
}

/* The node's pages in offset order, in a malloc'd array (NULL when it has none or on ENOMEM). */
struct collect {
    struct page **pages;
    size_t count;
};

static void collect_one(const void *nodep, VISIT which, void *closure) {
    if (which == postorder || which == leaf) {
        struct collect *c = closure;
        c->pages[c->count++] = *(struct page *const *) nodep;
    }
}

static struct page **node_pages(struct node *n, size_t *count) {
    struct collect c = { .pages = NULL, .count = 0 };
    if (n->npages > 0 && (c.pages = malloc(n->npages * sizeof *c.pages)) != NULL) {
        twalk_r(n->pages, collect_one, &c);
    }
    *count = c.count;
    return c.pages;
}

static void node_discard_pages(struct node *n) {
    size_t count;
    struct page **pages = node_pages(n, &count);
    for (size_t i = 0; i < count; i++) {
        g.discarded_bytes += pages[i]->hi - pages[i]->lo;
        page_free(pages[i]);
    }
    free(pages);
}

/* Frees a node that nothing needs any more: no handle open, no unsynced page. */
static void node_release_if_idle(struct node *n) {
    if (n->refs > 0 || n->npages > 0) {
        return;
    }
    struct node **link = &g.nodes[bucket(n->dev, n->ino)];
    while (*link != n) {
        link = &(*link)->hnext;
    }
    *link = n->hnext;
    close(n->fd);
    free(n);
}

static ssize_t pread_full(int fd, void *buf, size_t len, off_t off) {
    size_t done = 0;
    while (done < len) {
        ssize_t r = pread(fd, (char *) buf + done, len - done, off + (off_t) done);
        if (r < 0) {
            if (errno == EINTR) continue;
            return -errno;
        }
        if (r == 0) break;
        done += (size_t) r;
    }
    return (ssize_t) done;
}

static int pwritev_full(int fd, struct iovec *iov, int count, off_t off) {
    while (count > 0) {
        ssize_t r = pwritev(fd, iov, count, off);
        if (r < 0) {
            if (errno == EINTR) continue;
            return -errno;
        }
        off += r;
        while (count > 0 && (size_t) r >= iov->iov_len) {
            r -= (ssize_t) iov->iov_len;
            iov++;
            count--;
        }
        if (count > 0) {
            iov->iov_base = (char *) iov->iov_base + r;
            iov->iov_len -= (size_t) r;
        }
    }
    return 0;
}

/* Writes the given pages of one node (ascending index) to its backing file, joining pages whose written ranges
 * touch into one pwritev, and frees the pages written. Returns 0 or -errno (the pages not written stay). */
static int write_pages(struct node *n, struct page **pages, size_t count, uint64_t *counter) {
    size_t i = 0;
    while (i < count) {
        struct iovec iov[RUN_MAX];
        int k = 0;
        size_t j = i;
        off_t start = (off_t) (pages[i]->index * PG + pages[i]->lo);
        uint64_t bytes = pages[i]->hi - pages[i]->lo;
        iov[k].iov_base = pages[i]->data + pages[i]->lo;
        iov[k++].iov_len = pages[i]->hi - pages[i]->lo;
        while (j + 1 < count && k < RUN_MAX && pages[j]->hi == PG && pages[j + 1]->lo == 0
               && pages[j + 1]->index == pages[j]->index + 1) {
            j++;
            iov[k].iov_base = pages[j]->data;
            iov[k++].iov_len = pages[j]->hi;
            bytes += pages[j]->hi;
        }
        if (!n->writable) {
            return -EBADF;
        }
        int r = pwritev_full(n->fd, iov, k, start);
        if (r < 0) {
            return r;
        }
        *counter += bytes;
        for (size_t m = i; m <= j; m++) {
            page_free(pages[m]);
        }
        i = j + 1;
    }
    return 0;
}

/* Writes back the oldest pages, a run of a file's consecutive pages at a time, while too many pages are unsynced
 * (target_pages) or the oldest is older than older_than_ms (0: no age limit). */
static void writeback_oldest(uint64_t target_pages, uint64_t older_than_ms) {
    while (g.oldest != NULL) {
        struct page *p = g.oldest;
        int over = g.dirty_pages > target_pages;
        int aged = older_than_ms > 0 && p->dirtied_ms <= older_than_ms;
        if (!over && !aged) {
            break;
        }
        struct node *n = p->node;
        struct page *run[RUN_MAX];
        size_t count = 0;
        run[count++] = p;
        struct page *next;
        while (count < RUN_MAX && (next = page_find(n, run[count - 1]->index + 1)) != NULL) {
            run[count++] = next;
        }
        int r = write_pages(n, run, count, &g.written_back_bytes);
        if (r < 0) {
            /* as the kernel does: the error waits for the file's next fsync, the pages stay unsynced */
            n->wb_error = r;
            if (!g.wb_error_logged) {
                fprintf(stderr, "unsyncedfs: writeback of inode %ju failed: %s (reported to its next fsync)\n",
                        (uintmax_t) n->ino, strerror(-r));
                g.wb_error_logged = 1;
            }
            break;
        }
        node_release_if_idle(n);
    }
}

static int page_get(struct node *n, uint64_t index, struct page **out) {
    struct page *p = page_find(n, index);
    if (p == NULL) {
        if ((p = malloc(sizeof *p)) == NULL) {
            return -ENOMEM;
        }
        off_t off = (off_t) (index * PG);
        ssize_t got = 0;
        if (off < n->size) {
            size_t want = n->size - off < (off_t) PG ? (size_t) (n->size - off) : PG;
            if ((got = pread_full(n->fd, p->data, want, off)) < 0) {
                free(p);
                return (int) got;
            }
        }
        memset(p->data + got, 0, PG - (size_t) got);
        p->index = index;
        p->node = n;
        p->lo = PG;
        p->hi = 0;
        p->dirtied_ms = now_ms();
        if (tsearch(p, &n->pages, page_cmp) == NULL) {
            free(p);
            return -ENOMEM;
        }
        p->newer = NULL;
        p->older = g.newest;
        if (g.newest) g.newest->newer = p; else g.oldest = p;
        g.newest = p;
        n->npages++;
        g.dirty_pages++;
    }
    *out = p;
    return 0;
}

/* Truncate is metadata: the backing file takes the new size now; unsynced bytes past it are gone. */
static int node_truncate(struct node *n, off_t size) {
    if (ftruncate(n->fd, size) < 0) {
        return -errno;
    }
    size_t count;
    struct page **pages = node_pages(n, &count);
    for (size_t i = 0; i < count; i++) {
        struct page *p = pages[i];
        off_t off = (off_t) (p->index * PG);
        if (off >= size) {
            g.discarded_bytes += p->hi - p->lo;
            page_free(p);
        } else if (off + (off_t) PG > size) {
            uint32_t keep = (uint32_t) (size - off);
            memset(p->data + keep, 0, PG - keep);
            if (p->hi > keep) {
                g.discarded_bytes += p->hi - (p->lo > keep ? p->lo : keep);
                p->hi = keep;
            }
            if (p->lo >= p->hi) {
                page_free(p);
            }
        }
    }
    free(pages);
    n->size = size;
    return 0;
}

static int node_sync(struct node *n) {
    size_t count;
    struct page **pages = node_pages(n, &count);
    if (pages == NULL && n->npages > 0) {
        return -ENOMEM;
    }
    int r = write_pages(n, pages, count, &g.synced_bytes);
    free(pages);
    if (r < 0) {
        return r;
    }
    struct stat st;
    if (fstat(n->fd, &st) < 0) {
        return -errno;
    }
    if (st.st_size < n->size && ftruncate(n->fd, n->size) < 0) {
        return -errno;
    }
    if (n->wb_error) {
        r = n->wb_error;
        n->wb_error = 0;
    }
    return r;
}

/* Its last name is gone: once no handle is open, its unsynced data can never be read, so it is not a loss. */
static void node_forget(dev_t dev, ino_t ino) {
    struct node *n = node_find(dev, ino);
    if (n == NULL) {
        return;
    }
    n->unlinked = 1;
    if (n->refs == 0) {
        node_discard_pages(n);
        node_release_if_idle(n);
    }
}

/* ---- FUSE operations ---- */

#define LOCK() pthread_mutex_lock(&g.lock)
#define UNLOCK() pthread_mutex_unlock(&g.lock)

static struct node *handle(struct fuse_file_info *fi) {
    return (struct node *) (uintptr_t) fi->fh;
}

static void *fs_init(struct fuse_conn_info *conn, struct fuse_config *cfg);
static void fs_destroy(void *data);

static int fs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi) {
    (void) fi;
    if (fstatat(g.backing_fd, rel(path), st, AT_SYMLINK_NOFOLLOW) < 0) {
        return -errno;
    }
    if (S_ISREG(st->st_mode)) {
        LOCK();
        struct node *n = node_find(st->st_dev, st->st_ino);
        if (n != NULL) {
            st->st_size = n->size;
            blkcnt_t blocks = (n->size + 511) / 512;
            if (st->st_blocks < blocks) {
                st->st_blocks = blocks;
            }
            if (n->mtime_set && (n->mtime.tv_sec > st->st_mtim.tv_sec
                || (n->mtime.tv_sec == st->st_mtim.tv_sec && n->mtime.tv_nsec > st->st_mtim.tv_nsec))) {
                st->st_mtim = n->mtime;
                st->st_ctim = n->mtime;
            }
        }
        UNLOCK();
    }
    return 0;
}

static int open_node(const char *path, int create, mode_t mode, struct fuse_file_info *fi) {
    int flags = O_RDWR | O_CLOEXEC;
    if (create) {
        flags |= O_CREAT | (fi->flags & O_EXCL);
    }
    int writable = 1;
    int fd = openat(g.backing_fd, rel(path), flags, mode);
    if (fd < 0 && !create && (errno == EACCES || errno == EROFS || errno == ETXTBSY || errno == EPERM)) {
        fd = openat(g.backing_fd, rel(path), (fi->flags & O_ACCMODE) | O_CLOEXEC);
        writable = (fi->flags & O_ACCMODE) != O_RDONLY;
    }
    if (fd < 0) {
        return -errno;
    }
    struct stat st;
    int bad = fstat(fd, &st) < 0 ? -errno : S_ISREG(st.st_mode) ? 0 : -EOPNOTSUPP;   /* no fifos or devices */
    if (bad) {
        close(fd);
        return bad;
    }
    LOCK();
    struct node *n = node_find(st.st_dev, st.st_ino);
    if (n != NULL) {
        if (!n->writable && writable) {
            close(n->fd);
            n->fd = fd;
            n->writable = 1;
        } else {
            close(fd);
        }
    } else {
        if ((n = calloc(1, sizeof *n)) == NULL) {
            UNLOCK();
            close(fd);
            return -ENOMEM;
        }
        n->dev = st.st_dev;
        n->ino = st.st_ino;
        n->fd = fd;
        n->writable = writable;
        n->size = st.st_size;
        size_t b = bucket(n->dev, n->ino);
        n->hnext = g.nodes[b];
        g.nodes[b] = n;
    }
    n->refs++;
    n->unlinked = 0;
    int r = 0;
    if (fi->flags & O_TRUNC) {
        r = node_truncate(n, 0);
    }
    if (r < 0) {
        n->refs--;
        node_release_if_idle(n);
    }
    UNLOCK();
    if (r == 0) {
        fi->fh = (uint64_t) (uintptr_t) n;
        fi->direct_io = 0;
        fi->keep_cache = 0;
    }
    return r;
}

static int fs_open(const char *path, struct fuse_file_info *fi) {
    return open_node(path, 0, 0, fi);
}

static int fs_create(const char *path, mode_t mode, struct fuse_file_info *fi) {
    return open_node(path, 1, mode, fi);
}

static int fs_read(const char *path, char *buf, size_t size, off_t off, struct fuse_file_info *fi) {
    (void) path;
    struct node *n = handle(fi);
    LOCK();
    if (off >= n->size) {
        UNLOCK();
        return 0;
    }
    if ((off_t) size > n->size - off) {
        size = (size_t) (n->size - off);
    }
    ssize_t got = pread_full(n->fd, buf, size, off);
    if (got < 0) {
        UNLOCK();
        return (int) got;
    }
    memset(buf + got, 0, size - (size_t) got);   /* past the backing file's end: a hole up to the size we show */
    for (uint64_t i = (uint64_t) off / PG; i <= ((uint64_t) off + size - 1) / PG; i++) {
        struct page *p = page_find(n, i);
        if (p != NULL) {
            uint64_t from = i * PG > (uint64_t) off ? i * PG : (uint64_t) off;
            uint64_t to = (i + 1) * PG < (uint64_t) off + size ? (i + 1) * PG : (uint64_t) off + size;
            memcpy(buf + (from - (uint64_t) off), p->data + (from - i * PG), to - from);
        }
    }
    UNLOCK();
    return (int) size;
}

static int fs_write(const char *path, const char *buf, size_t size, off_t off, struct fuse_file_info *fi) {
    (void) path;
    struct node *n = handle(fi);
    if (size == 0) {
        return 0;
    }
    LOCK();
    size_t done = 0;
    int r = 0;
    while (done < size) {
        uint64_t pos = (uint64_t) off + done;
        struct page *p = NULL;
        if ((r = page_get(n, pos / PG, &p)) < 0) {
            break;
        }
        uint32_t in = (uint32_t) (pos % PG);
        uint32_t len = PG - in < size - done ? PG - in : (uint32_t) (size - done);
        memcpy(p->data + in, buf + done, len);
        if (in < p->lo) p->lo = in;
        if (in + len > p->hi) p->hi = in + len;
        done += len;
        if ((off_t) (pos + len) > n->size) {
            n->size = (off_t) (pos + len);
        }
    }
    if (done > 0) {
        clock_gettime(CLOCK_REALTIME, &n->mtime);
        n->mtime_set = 1;
    }
    if (g.dirty_pages > g.limit_pages) {
        writeback_oldest(g.limit_pages - g.limit_pages / 8, 0);
    }
    UNLOCK();
    return done > 0 ? (int) done : r;
}

static int fs_truncate(const char *path, off_t size, struct fuse_file_info *fi) {
    int r;
    LOCK();
    if (fi != NULL) {
        r = node_truncate(handle(fi), size);
    } else {
        struct stat st;
        struct node *n = NULL;
        if (fstatat(g.backing_fd, rel(path), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode)) {
            n = node_find(st.st_dev, st.st_ino);
        }
        if (n != NULL) {
            r = node_truncate(n, size);
        } else {
            int fd = openat(g.backing_fd, rel(path), O_WRONLY | O_CLOEXEC);
            r = fd < 0 || ftruncate(fd, size) < 0 ? -errno : 0;
            if (fd >= 0) close(fd);
        }
    }
    UNLOCK();
    return r;
}

static int fs_fsync(const char *path, int datasync, struct fuse_file_info *fi) {
    (void) path;
    (void) datasync;
    LOCK();
    int r = node_sync(handle(fi));
    UNLOCK();
    return r;
}

static int fs_flush(const char *path, struct fuse_file_info *fi) {
    (void) path;
    (void) fi;
    return 0;   /* close(2) does not sync */
}

static int fs_release(const char *path, struct fuse_file_info *fi) {
    (void) path;
    struct node *n = handle(fi);
    LOCK();
    n->refs--;
    if (n->refs == 0 && n->unlinked) {
        node_discard_pages(n);
    }
    node_release_if_idle(n);
    UNLOCK();
    return 0;
}

static int fs_fsyncdir(const char *path, int datasync, struct fuse_file_info *fi) {
    (void) path;
    (void) datasync;
    (void) fi;
    return 0;   /* directory entries are durable at once in this model */
}

static int fs_unlink(const char *path) {
    struct stat st;
    int last = fstatat(g.backing_fd, rel(path), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode)
        && st.st_nlink == 1;
    LOCK();
    int r = unlinkat(g.backing_fd, rel(path), 0) < 0 ? -errno : 0;
    if (r == 0 && last) {
        node_forget(st.st_dev, st.st_ino);
    }
    UNLOCK();
    return r;
}

static int fs_rename(const char *from, const char *to, unsigned int flags) {
    struct stat src, dst;
    int have_src = fstatat(g.backing_fd, rel(from), &src, AT_SYMLINK_NOFOLLOW) == 0;
    int replaced = !(flags & RENAME_EXCHANGE) && fstatat(g.backing_fd, rel(to), &dst, AT_SYMLINK_NOFOLLOW) == 0
        && S_ISREG(dst.st_mode) && dst.st_nlink == 1 && !(have_src && src.st_ino == dst.st_ino
        && src.st_dev == dst.st_dev);
    LOCK();
    int r = renameat2(g.backing_fd, rel(from), g.backing_fd, rel(to), flags) < 0 ? -errno : 0;
    if (r == 0 && replaced) {
        node_forget(dst.st_dev, dst.st_ino);
    }
    UNLOCK();
    return r;
}

static int fs_link(const char *from, const char *to) {
    return linkat(g.backing_fd, rel(from), g.backing_fd, rel(to), 0) < 0 ? -errno : 0;
}

static int fs_symlink(const char *target, const char *path) {
    return symlinkat(target, g.backing_fd, rel(path)) < 0 ? -errno : 0;
}

static int fs_readlink(const char *path, char *buf, size_t size) {
    if (size == 0) {
        return -EINVAL;
    }
    ssize_t r = readlinkat(g.backing_fd, rel(path), buf, size - 1);
    if (r < 0) {
        return -errno;
    }
    buf[r] = '\0';
    return 0;
}

static int fs_mknod(const char *path, mode_t mode, dev_t rdev) {
    return mknodat(g.backing_fd, rel(path), mode, rdev) < 0 ? -errno : 0;
}

static int fs_mkdir(const char *path, mode_t mode) {
    return mkdirat(g.backing_fd, rel(path), mode) < 0 ? -errno : 0;
}

static int fs_rmdir(const char *path) {
    return unlinkat(g.backing_fd, rel(path), AT_REMOVEDIR) < 0 ? -errno : 0;
}

static int fs_chmod(const char *path, mode_t mode, struct fuse_file_info *fi) {
    (void) fi;
    return fchmodat(g.backing_fd, rel(path), mode, 0) < 0 ? -errno : 0;
}

static int fs_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi) {
    (void) fi;
    return fchownat(g.backing_fd, rel(path), uid, gid, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
}

static int fs_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi) {
    (void) fi;
    LOCK();
    int r = utimensat(g.backing_fd, rel(path), tv, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
    struct stat st;
    if (r == 0 && fstatat(g.backing_fd, rel(path), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode)) {
        struct node *n = node_find(st.st_dev, st.st_ino);
        if (n != NULL) {
            n->mtime_set = 0;   /* the time set now is the file's */
        }
    }
    UNLOCK();
    return r;
}

static int fs_access(const char *path, int mask) {
    return faccessat(g.backing_fd, rel(path), mask, 0) < 0 ? -errno : 0;
}

static int fs_statfs(const char *path, struct statvfs *st) {
    (void) path;
    return fstatvfs(g.backing_fd, st) < 0 ? -errno : 0;
}

static int fs_opendir(const char *path, struct fuse_file_info *fi) {
    int fd = openat(g.backing_fd, rel(path), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        return -errno;
    }
    DIR *d = fdopendir(fd);
    if (d == NULL) {
        int r = -errno;
        close(fd);
        return r;
    }
    fi->fh = (uint64_t) (uintptr_t) d;
    return 0;
}

static int fs_readdir(const char *path, void *buf, fuse_fill_dir_t filler, off_t off, struct fuse_file_info *fi,
                      enum fuse_readdir_flags flags) {
    (void) path;
    (void) off;
    (void) flags;
    DIR *d = (DIR *) (uintptr_t) fi->fh;
    rewinddir(d);   /* offsets are not kept: libfuse takes the whole listing in one call */
    errno = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        struct stat st;
        memset(&st, 0, sizeof st);
        st.st_ino = e->d_ino;
        st.st_mode = DTTOIF(e->d_type);
        if (filler(buf, e->d_name, &st, 0, 0)) {
            break;
        }
    }
    return errno != 0 ? -errno : 0;
}

static int fs_releasedir(const char *path, struct fuse_file_info *fi) {
    (void) path;
    closedir((DIR *) (uintptr_t) fi->fh);
    return 0;
}

static const struct fuse_operations ops = {
    .init = fs_init,
    .destroy = fs_destroy,
    .getattr = fs_getattr,
    .readlink = fs_readlink,
    .mknod = fs_mknod,
    .mkdir = fs_mkdir,
    .unlink = fs_unlink,
    .rmdir = fs_rmdir,
    .symlink = fs_symlink,
    .rename = fs_rename,
    .link = fs_link,
    .chmod = fs_chmod,
    .chown = fs_chown,
    .truncate = fs_truncate,
    .open = fs_open,
    .read = fs_read,
    .write = fs_write,
    .statfs = fs_statfs,
    .flush = fs_flush,
    .release = fs_release,
    .fsync = fs_fsync,
    .opendir = fs_opendir,
    .readdir = fs_readdir,
    .releasedir = fs_releasedir,
    .fsyncdir = fs_fsyncdir,
    .access = fs_access,
    .create = fs_create,
    .utimens = fs_utimens,
};

/* ---- age-based writeback ---- */

static void *aging_main(void *arg) {
    (void) arg;
    uint64_t period = g.writeback_ms / 4;
    period = period < 10 ? 10 : period > 5000 ? 5000 : period;
    LOCK();
    while (!g.stopping) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_sec += (time_t) (period / 1000);
        until.tv_nsec += (long) (period % 1000) * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&g.wake, &g.lock, &until);
        uint64_t now = now_ms();
        if (!g.stopping && now > g.writeback_ms) {
            writeback_oldest(UINT64_MAX, now - g.writeback_ms);
        }
    }
    UNLOCK();
    return NULL;
}

static void *fs_init(struct fuse_conn_info *conn, struct fuse_config *cfg) {
    /* The kernel must not keep data the daemon has not seen, nor keep pages across opens */
    conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
    cfg->kernel_cache = 0;
    cfg->auto_cache = 0;
    cfg->direct_io = 0;
    cfg->hard_remove = 0;
    cfg->use_ino = 1;
    LOCK();
    g.initialized = 1;
    if (g.writeback_ms > 0 && pthread_create(&g.aging, NULL, aging_main, NULL) == 0) {
        g.aging_started = 1;
    }
    UNLOCK();
    return NULL;
}

/* Unmounted or signalled: the power is gone. Nothing is written back from here on. */
static void fs_destroy(void *data) {
    (void) data;
    LOCK();
    g.stopping = 1;
    pthread_cond_broadcast(&g.wake);
    UNLOCK();
    if (g.aging_started) {
        pthread_join(g.aging, NULL);
        g.aging_started = 0;
    }
}

static void report_power_loss(void) {
    LOCK();
    g.stopping = 1;
    uint64_t bytes = 0, pages = 0, files = 0;
    for (struct page *p = g.oldest; p; p = p->newer) {
        bytes += p->hi - p->lo;
        pages++;
    }
    for (size_t b = 0; b < NODE_BUCKETS; b++) {
        for (struct node *n = g.nodes[b]; n; n = n->hnext) {
            files += n->npages > 0;
        }
    }
    UNLOCK();
    fprintf(stderr, "unsyncedfs: power loss: dropped %" PRIu64 " unsynced bytes (%" PRIu64 " pages) of %" PRIu64
            " files; fsync wrote %" PRIu64 " bytes, writeback %" PRIu64 "\n",
            bytes, pages, files, g.synced_bytes, g.written_back_bytes);
    if (g.stats_path != NULL) {
        char tmp[PATH_MAX];
        snprintf(tmp, sizeof tmp, "%s.tmp", g.stats_path);
        FILE *f = fopen(tmp, "w");
        if (f == NULL) {
            fprintf(stderr, "unsyncedfs: cannot write %s: %s\n", tmp, strerror(errno));
            return;
        }
        fprintf(f, "dropped_bytes=%" PRIu64 "\ndropped_pages=%" PRIu64 "\ndropped_files=%" PRIu64
                "\nsynced_bytes=%" PRIu64 "\nwritten_back_bytes=%" PRIu64 "\ndiscarded_bytes=%" PRIu64 "\n",
                bytes, pages, files, g.synced_bytes, g.written_back_bytes, g.discarded_bytes);
        if (fclose(f) != 0 || rename(tmp, g.stats_path) != 0) {
            fprintf(stderr, "unsyncedfs: cannot write %s: %s\n", g.stats_path, strerror(errno));
        }
    }
}

/* ---- options ---- */

struct options {
    char *dirty_limit_mb;
    char *writeback_ms;
    char *stats;
    char *backing;
    int help;
};

#define OPT(t, p) { t, offsetof(struct options, p), 1 }
static const struct fuse_opt option_spec[] = {
    OPT("dirty_limit_mb=%s", dirty_limit_mb),
    OPT("writeback_ms=%s", writeback_ms),
    OPT("stats=%s", stats),
    OPT("-h", help),
    OPT("--help", help),
    FUSE_OPT_END
};

static int take_backing(void *data, const char *arg, int key, struct fuse_args *outargs) {
    (void) outargs;
    struct options *o = data;
    if (key == FUSE_OPT_KEY_NONOPT && o->backing == NULL) {
        o->backing = strdup(arg);
        return 0;
    }
    return 1;
}

/* A whole number in [min, max], or prints one error line and returns 0. */
static int parse_number(const char *name, const char *text, uint64_t min, uint64_t max, uint64_t *out) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (*text == '\0' || *text == '-' || *end != '\0' || errno != 0 || v < min || v > max) {
        fprintf(stderr, "unsyncedfs: %s must be a whole number from %" PRIu64 " to %" PRIu64 ", not '%s'\n",
                name, min, max, text);
        return 0;
    }
    *out = v;
    return 1;
}

static void usage(const char *prog) {
    printf("usage: %s BACKING MOUNTPOINT [-f] [-s] [-o dirty_limit_mb=N,writeback_ms=M,stats=FILE]\n"
           "Mirrors BACKING at MOUNTPOINT keeping unsynced file data in memory; unmounting drops it.\n"
           "  -o dirty_limit_mb=N   write back the oldest unsynced data past N MiB (default 256)\n"
           "  -o writeback_ms=M     also write back data unsynced for M ms (default 0: never; the kernel: 30000)\n"
           "  -o stats=FILE         write what the crash dropped to FILE on exit\n\n", prog);
}

int main(int argc, char *argv[]) {
    struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
    struct options o = { 0 };
    if (fuse_opt_parse(&args, &o, option_spec, take_backing) == -1) {
        return 2;
    }
    if (o.help) {
        usage(argv[0]);
        fuse_opt_add_arg(&args, "--help");
        args.argv[0][0] = '\0';
        return fuse_main(args.argc, args.argv, &ops, NULL);
    }
    uint64_t mb = 256;
    if (o.dirty_limit_mb && !parse_number("dirty_limit_mb", o.dirty_limit_mb, 1, 1u << 20, &mb)) {
        return 2;
    }
    g.limit_pages = mb * 1024 * 1024 / PG;
    if (o.writeback_ms && !parse_number("writeback_ms", o.writeback_ms, 0, 86400000, &g.writeback_ms)) {
        return 2;
    }
    if (o.backing == NULL) {
        fprintf(stderr, "unsyncedfs: no backing directory (usage: %s BACKING MOUNTPOINT [options])\n", argv[0]);
        return 2;
    }
    g.backing = o.backing;
    g.stats_path = o.stats;
    if ((g.backing_fd = open(o.backing, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
        fprintf(stderr, "unsyncedfs: backing directory %s: %s\n", o.backing, strerror(errno));
        return 2;
    }
    if (g.stats_path != NULL) {
        unlink(g.stats_path);   /* a stats file from an earlier run must not pass for this one's */
    }
    /* every unsynced file holds a descriptor */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&g.wake, &ca);
    pthread_mutex_init(&g.lock, NULL);

    int res = fuse_main(args.argc, args.argv, &ops, NULL);
    if (g.initialized) {
        report_power_loss();
    }
    fuse_opt_free_args(&args);
    return res;
}
