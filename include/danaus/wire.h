/*
 * wire.h - the protocol between libdanaus (front driver) and danausd (back
 * driver).
 *
 * Two channels carry it:
 *  - the door: a Unix SOCK_SEQPACKET socket. A client says hello once (the
 *    service reads its credentials from the kernel with SO_PEERCRED and
 *    SO_PEERGROUPS) and receives, with SCM_RIGHTS, two memfds: the
 *    service's doorbell queues and its own private area; the reply gives
 *    their geometry and the mount table. It asks for one slot of its area
 *    per thread. The socket stays open for the client's life: its hang-up
 *    is how each side learns that the other is gone.
 *  - the queues: a thread puts its request descriptor (struct danaus_desc)
 *    and bulk bytes in its slot, then rings a doorbell (client index, slot,
 *    sequence) in the queue of its core group (ipc/ipc.h); the answer is a
 *    result word in the same slot.
 *
 * Everything a client writes into shared memory is hostile input to the
 * service: every field below is validated there before use.
 */
#ifndef DANAUS_WIRE_H
#define DANAUS_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define DANAUS_WIRE_VERSION 16 /* 9: OPEN answers with attributes,
                                  GETDENTS tells the listing's end; 10:
                                  no DUP (a dup shares its handle), CLOSE
                                  of a batch, GETDENTS with attributes;
                                  11: or with directories' alone; 12:
                                  write-back pages, FLUSH; 13: OPEN of a
                                  directory answers its first records,
                                  listings say which names have no
                                  xattrs; 14: a request may carry its
                                  client's FLUSH (DANAUS_DESC_FLUSH),
                                  OPEN may say what the client saw
                                  (DANAUS_OPEN_SEEN_REGULAR); 15: HRC
                                  says what the pool's cache holds; 16:
                                  OPEN may pass the file itself (its
                                  arg4, the hello's pass socket) */

/* Environment variables read by libdanaus. */
#define DANAUS_ENV_SERVICE "DANAUS_SERVICE" /* service name, or a socket path */
#define DANAUS_ENV_RUNDIR  "DANAUS_RUNDIR"  /* where <name>.sock lives */
/* How long a process waits for its service to come back (ms, default
 * 10000; 0: calls fail with ENOTCONN at once). */
#define DANAUS_ENV_RESTART_WAIT "DANAUS_RESTART_WAIT_MS"
#define DANAUS_DEFAULT_RUNDIR "/run/danaus"

#define DANAUS_NARGS 6
#define DANAUS_CLOSE_BATCH 32 /* handles one CLOSE may name */
#define DANAUS_PATH_MAX 4096
/* The longest instance-relative path a call carries, with its NUL. The
 * kernel bounds each path argument (below DANAUS_PATH_MAX), not the depth
 * it resolves: a relative argument joined to the directory it starts
 * from (below DANAUS_PATH_MAX too) may be up to twice as long, and the
 * service resolves it (libservice.h). */
#define DANAUS_LONG_PATH_MAX (2 * DANAUS_PATH_MAX)
#define DANAUS_MAX_GROUPS 64  /* supplementary groups kept per client */
/* Symbolic links one path walk follows before ELOOP, as Linux's own walk
 * (MAXSYMLINKS): every walker of Danaus, the client's, the backends' and
 * the engine's, stops at the same count. */
#define DANAUS_MAX_SYMLINKS 40
#define DANAUS_MAX_MOUNTS 64       /* entries of one hello reply */
#define DANAUS_MOUNTS_BYTES 65536  /* the entries of a hello reply */
/* Instances one service holds over its whole life: mount indices are
 * never reused (a stale index in a client's descriptor must never name
 * another instance), so this bounds the containers a pool's danausd runs
 * before it must be restarted. */
#define DANAUS_MAX_INSTANCES 4096

/*
 * Call identifiers. "path" means an instance-relative path in the slot buffer
 * (no leading '/'; "" is the instance root) on the mount named by desc.mount.
 * Calls marked "path | handle" act on desc.handle when it is nonzero and on
 * the path otherwise. Outputs always go at the start of the slot buffer.
 * Results are >= 0 on success and -errno on failure.
 */
enum danaus_call {
    DANAUS_CALL_NONE = 0,
    DANAUS_CALL_OPEN,        /* path; arg0 flags, arg1 mode -> handle, or 0:
                                a FIFO, device or socket, which the
                                client opens through the kernel; out:
                                struct danaus_open_out; arg2 count, arg3
                                a DANAUS_LISTING_ATTRS_ or 0: a directory
                                opened without O_PATH also answers its
                                first records, as GETDENTS would; arg4
                                1: the client may be passed the file
                                (struct danaus_pass) */
    DANAUS_CALL_CLOSE,       /* handle (0: none); arg0 n: n more handles
                                (uint64_t each) in the buffer, n below
                                DANAUS_CLOSE_BATCH -> 0, or -EBADF when
                                one was not open (the others are closed) */
    DANAUS_CALL_READ,        /* handle; arg0 count -> bytes, data out */
    DANAUS_CALL_WRITE,       /* handle; data in -> bytes */
    DANAUS_CALL_PREAD,       /* handle; arg0 count, arg1 offset -> bytes */
    DANAUS_CALL_PWRITE,      /* handle; data in, arg1 offset -> bytes */
    DANAUS_CALL_LSEEK,       /* handle; arg0 offset, arg1 whence -> offset */
    DANAUS_CALL_FSYNC,       /* handle; arg0 datasync */
    DANAUS_CALL_GETDENTS,    /* handle; arg0 count -> bytes of dirent64 out;
                                with arg1 a DANAUS_LISTING_ATTRS_ and the
                                directory's path in the buffer, also
                                records' attributes (DANAUS_DIRENT_ATTRS_AT) */
    DANAUS_CALL_GETFL,       /* handle -> open flags */
    DANAUS_CALL_SETFL,       /* handle; arg0 flags (O_APPEND, O_NONBLOCK) */
    DANAUS_CALL_STAT,        /* path | handle; arg0 AT_ flags -> danaus_stat */
    DANAUS_CALL_ACCESS,      /* path; arg0 mode, arg1 AT_EACCESS */
    DANAUS_CALL_MKDIR,       /* path; arg0 mode */
    DANAUS_CALL_RMDIR,       /* path */
    DANAUS_CALL_UNLINK,      /* path */
    DANAUS_CALL_RENAME,      /* two paths: from, to; arg0 RENAME_ flags */
    DANAUS_CALL_LINK,        /* two paths: existing, new */
    DANAUS_CALL_SYMLINK,     /* two strings: target, then link path */
    DANAUS_CALL_READLINK,    /* path; arg0 size -> bytes out */
    DANAUS_CALL_CHMOD,       /* path | handle; arg0 mode, arg1 AT_ flags */
    DANAUS_CALL_CHOWN,       /* path | handle; arg0 uid, arg1 gid, arg2 AT_ */
    DANAUS_CALL_UTIMENS,     /* path | handle; arg0..3 atime s,ns, mtime s,ns;
                                arg4 AT_ flags */
    DANAUS_CALL_TRUNCATE,    /* path | handle; arg0 length */
    DANAUS_CALL_STATFS,      /* path | handle -> danaus_statfs */
    DANAUS_CALL_GETXATTR,    /* path | handle; two strings: path, name;
                                arg0 size, arg1 AT_ flags -> bytes out */
    DANAUS_CALL_SETXATTR,    /* path | handle; path, name, then value bytes;
                                arg0 value size, arg1 XATTR_ flags, arg2 AT_ */
    DANAUS_CALL_LISTXATTR,   /* path | handle; arg0 size, arg1 AT_ -> bytes */
    DANAUS_CALL_REMOVEXATTR, /* path | handle; path, name; arg1 AT_ flags */
    DANAUS_CALL_LOCK,        /* handle; arg0 DANAUS_LOCK_SET | _TEST, arg1
                                F_RDLCK/F_WRLCK/F_UNLCK, arg2 start, arg3
                                len (0: to the end), arg4 DANAUS_LOCK_POSIX
                                | _OFD | _FLOCK, arg5 wait -> 0; TEST puts
                                a danaus_lock out (type F_UNLCK: none) */
    DANAUS_CALL_MKNOD,       /* path; arg0 mode (type and permission bits),
                                arg1 device number */
    DANAUS_CALL_FALLOCATE,   /* handle; arg0 mode (FALLOC_FL_ bits), arg1
                                offset, arg2 len */
    DANAUS_CALL_FLUSH,       /* writes the client's write-back pages
                                (ipc.h) -> 0 */
    DANAUS_CALL_COUNT
};

/* In OPEN's flags (arg0), not an open(2) flag: the client's cache saw a
 * regular file at the path. The service may then open it without first
 * looking for a FIFO or device there; it still answers as without it
 * when the file turns out to be one. */
#define DANAUS_OPEN_SEEN_REGULAR 010000000000

/*
 * One request as it sits in a queue cell. The strings of a call are packed
 * in [buf_off, buf_off + buf_len) of the sender's slot buffer, each ending in
 * NUL; data bytes (write, setxattr value) follow the strings. A call with a
 * handle still carries its (empty) path string first where the table above
 * lists "path | handle", so the layout of the strings never depends on it.
 */
struct danaus_desc {
    uint32_t call;    /* enum danaus_call */
    uint32_t slot;    /* the sending thread's slot: where the answer goes */
    uint32_t seq;     /* echoed into the slot's completion word */
    uint32_t mount;   /* index in the mount table given at hello */
    uint64_t handle;  /* open-file handle, 0 for none */
    int64_t arg[DANAUS_NARGS];
    uint32_t buf_off; /* request bytes in the slot buffer */
    uint32_t buf_len;
    uint32_t flags;   /* DANAUS_DESC_*; a bit not defined: EINVAL */
    uint32_t pad;     /* ignored */
};

/* The service writes the client's write-back pages first, as a FLUSH would
 * (whatever the call then answers), and says so in the slot's flushed
 * word: the call after a kept write takes one round trip, not two. */
#define DANAUS_DESC_FLUSH 1u
#define DANAUS_DESC_FLAGS DANAUS_DESC_FLUSH

/*
 * Handles are an index into the client's handle table plus the generation of
 * that entry, checked on every use. Generations start at 1, so 0 is never a
 * handle, and stay below 2^31, so a handle fits a non-negative result.
 */
#define DANAUS_HANDLE(index, gen) (((uint64_t)(gen) << 32) | (uint32_t)(index))
#define DANAUS_HANDLE_INDEX(h) ((uint32_t)(h))
#define DANAUS_HANDLE_GEN(h) ((uint32_t)((h) >> 32))

/*
 * Record locks (LOCK). The owner kind says who holds a lock: POSIX locks
 * (fcntl F_SETLK, lockf) belong to the calling client (process), OFD locks
 * (F_OFD_SETLK) and flock locks to the open file the handle names. flock
 * locks cover the whole file and meet only other flock locks. A SET that
 * conflicts answers -EAGAIN at once: the service never blocks a thread; with
 * the wait flag set the library retries (F_SETLKW, flock without LOCK_NB),
 * and the service may answer -EDEADLK for a POSIX wait that would close a
 * cycle of waiting processes.
 */
enum danaus_lock_cmd { DANAUS_LOCK_SET = 1, DANAUS_LOCK_TEST };
enum danaus_lock_owner {
    DANAUS_LOCK_POSIX = 1,
    DANAUS_LOCK_OFD,
    DANAUS_LOCK_FLOCK
};

/* TEST's answer: the first conflicting lock, as F_GETLK reports it. */
struct danaus_lock {
    int32_t type;  /* F_RDLCK, F_WRLCK, or F_UNLCK when nothing conflicts */
    int32_t pid;   /* the holder's process for POSIX locks, -1 otherwise */
    int64_t start;
    int64_t len;   /* 0: to the end of the file */
};

/* File attributes as the service reports them, the same for every backend. */
struct danaus_stat {
    uint64_t dev, ino, nlink, rdev;
    uint32_t mode, uid, gid, blksize;
    int64_t size, blocks;
    int64_t atime_sec, mtime_sec, ctime_sec, btime_sec;
    uint32_t atime_nsec, mtime_nsec, ctime_nsec, btime_nsec;
};

/* OPEN's answer: the file's st_ino (0 when the backend did not say) and,
 * when has_attrs is 1, its attributes as the open found them. When the
 * open asked for a listing, listed bytes of directory records follow at
 * DANAUS_OPEN_LISTING_AT, laid out as GETDENTS answers them (with their
 * attributes after them when asked, DANAUS_DIRENT_ATTRS_AT from there),
 * and the slot's listing_end and pos are set as after a GETDENTS. */
struct danaus_open_out {
    uint64_t ino;
    uint64_t has_attrs;
    struct danaus_stat attrs;
    uint64_t listed;
    uint64_t passed; /* 1: a danaus_pass for this handle was sent */
};

/* An OPEN that asked for it (arg4) of a file that cannot change while it
 * is open (a container image's, read-only), of at least DANAUS_PASS_MIN
 * bytes, may be answered with the file
 * itself: a kernel descriptor, open read-only on a read-only mount (so
 * nothing done through it changes the file), sent with SCM_RIGHTS on the
 * client's pass socket (the hello's last descriptor) before the answer,
 * in a message naming the handle. The client then reads, seeks and maps
 * it through the kernel; the handle stays for everything else (fstat
 * answers as through the service). It shares its offset with the
 * service's descriptor, which the service reads only at positions. */
struct danaus_pass {
    uint64_t handle;
};
/* The smallest file passed: a pass (a sendmsg and a recvmsg) costs about
 * what a READ does, and a smaller file is read in one or two. */
#define DANAUS_PASS_MIN (32 << 10)
#define DANAUS_OPEN_LISTING_AT sizeof(struct danaus_open_out)

struct danaus_statfs {
    uint64_t type, bsize, frsize, blocks, bfree, bavail, files, ffree, favail;
    uint64_t fsid, namelen, flags;
    uint64_t link_max; /* most links to one file; 0: not known */
};

/* Directory records of GETDENTS, laid out as the kernel's linux_dirent64. */
struct danaus_dirent {
    uint64_t d_ino;
    int64_t d_off;     /* cookie for LSEEK(SEEK_SET) to resume after this */
    uint16_t d_reclen; /* whole record, 8-byte aligned */
    uint8_t d_type;
    char d_name[];
};
#define DANAUS_DIRENT_NAME_AT offsetof(struct danaus_dirent, d_name)

/* A GETDENTS with attributes answers a struct danaus_stat per record, in
 * the records' order, from this offset on, each as STAT of the record's
 * path (symlinks not followed) answered it; st_ino 0 where it did not
 * (and for "." and ".."). With DANAUS_LISTING_ATTRS_DIRS only records of
 * type DT_DIR or DT_UNKNOWN are stat'ed, the others answer st_ino 0: what
 * a tree walker (find, rm -r) looks up. Its records fit
 * DANAUS_DIRENT_PLUS_ROOM(cap) of a buffer of cap bytes: the smallest
 * record is 24 bytes. */
#define DANAUS_LISTING_ATTRS_ALL 1
#define DANAUS_LISTING_ATTRS_DIRS 2
/* As _ALL, and after the attributes one byte per record: 1 when the name
 * has no extended attributes (a listxattr of it, not followed, answered
 * none), 0 when it has or that is not known. */
#define DANAUS_LISTING_ATTRS_XATTRS 3
#define DANAUS_DIRENT_ATTRS_AT(bytes) (((uint64_t)(bytes) + 7) & ~(uint64_t)7)
#define DANAUS_DIRENT_PLUS_ROOM(cap)                                          \
    ((cap) < 8 ? 0                                                            \
               : ((uint64_t)(cap) - 8) * 24 /                                 \
                     (24 + sizeof(struct danaus_stat) + 1))

/*
 * The door. Every message starts with struct danaus_door_msg.
 *
 * Process life: a forked child, or the new program an exec starts, cannot
 * share its parent's connection (one slot per thread, one identity per
 * connection). Before fork or exec the library asks for a TICKET: a copy of
 * its handles, kept by the service under a random token. The child (or new
 * image) attaches anew and ADOPTs the ticket; its handles then have the same
 * numbers as before, so its descriptor table needs no rewriting. The
 * service hands a ticket only to a process of the same uid whose pid (exec)
 * or parent pid (fork, spawn) is the ticket owner's, and only once.
 */
enum danaus_door_op {
    DANAUS_DOOR_HELLO = 1, /* -> hello reply */
    DANAUS_DOOR_SLOT_GET,  /* -> slot number in value */
    DANAUS_DOOR_SLOT_PUT,  /* arg: slot number */
    DANAUS_DOOR_TICKET,    /* arg: handle count, or DANAUS_TICKET_ALL; the
                              handles follow the message -> token */
    DANAUS_DOOR_ADOPT,     /* token: a ticket for this (new) client */
    DANAUS_DOOR_MOUNT_ADD, /* arg 4, 5 or 6; strings: mount point,
                              "local" | "ceph", writable branch, read-only
                              branches top first joined by ':' (none: the
                              writable directory alone, a data volume),
                              optionally "ro" (served read-only), "rw" or
                              "volatile" (a union's syncs of its writable
                              branch answered at once), and then the read-only branches' backend if
                              not the writable one's -> mount index in
                              value */
    DANAUS_DOOR_MOUNT_REMOVE, /* arg 1; string: mount point */
    DANAUS_DOOR_STATS,     /* arg 1; string: a mount point, or "" for the
                              whole service -> struct danaus_stats_reply */
    DANAUS_DOOR_VIEW,      /* arg n >= 1; strings: a mount point, then n - 1
                              paths that stay with the kernel, or
                              "PATH=MOUNTPOINT" for a path where the mount
                              at MOUNTPOINT is seen (a data volume): the
                              caller's mount namespace gets this view */
    DANAUS_DOOR_HRC,       /* arg i: the hit-ratio curve of the i-th mount
                              the service tracks -> struct
                              danaus_hrc_reply, ENOENT past the last */
    DANAUS_DOOR_BRANCH_FORGET, /* arg 2; strings: a backend, a directory of
                              it: the service forgets its read-only branch
                              instance of it (EBUSY while a mounted union
                              uses it), so that a union over a directory
                              made again there sees the new one */
    DANAUS_DOOR_CLAIM,     /* token: a ticket this unattached peer could
                              adopt, kept for it by this connection */
    DANAUS_DOOR_PASS,      /* token: the connection's claimed ticket; arg:
                              handle count, the handles following -> token
                              of a ticket with those of its handles */
};

/*
 * CLAIM and PASS spare a forked child that only execs (a shell's) the
 * attach it would make to adopt its ticket and the second ticket its exec
 * would ask for. Without a hello, the child connects and CLAIMs the fork
 * ticket, as an ADOPT would be checked: the connection then keeps it, past
 * DANAUS_TICKET_TTL_S, for as long as it is open; the kernel closes it
 * when the child execs or exits, and the ticket goes with it, as an
 * attached child's handles go with its connection. Before an exec (or a
 * spawn) the child PASSes the handles that stay open into a new ticket of
 * its own, for the new image to adopt. A claimed ticket is adopted only by
 * its claimer, which attaches when it first needs the service.
 */

/*
 * MOUNT_ADD and MOUNT_REMOVE are the container engine's control calls: a
 * union instance added to a running service (and mounted through its FUSE
 * door), then taken away; BRANCH_FORGET lets the engine remove an image
 * layer's copy no mounted union uses. Only a peer with the service's own
 * uid or root may make them; no hello is needed. Their strings follow the
 * message header, each ending in NUL. A removed mount keeps its index, which is
 * never reused: requests of clients that knew it fail with EINVAL.
 *
 * VIEW: a container sees its root instance at "/", not at the host mount
 * point it was added under. The container's first process (before it
 * execs anything) names, with the same rights as MOUNT_ADD, the host
 * mount point of its root and the paths inside the container that other
 * file systems cover (its /proc, bind mounts). The service identifies the
 * mount namespace of the process that connected (a pidfd of it, never a
 * pid number: fsservice/doors/views.h) and from then on answers the hello
 * of any client in that namespace with the view: the root instance at "/"
 * and the kernel's paths. The service's own mount namespace cannot get a
 * view. A view ends with MOUNT_REMOVE of its mount (the service pins the
 * namespace until then, so its identity is not reused meanwhile). A hello
 * (or VIEW) whose namespace cannot be identified, because the process
 * that connected has exited (ESRCH) or may not be looked at (EACCES), is
 * refused.
 */

#define DANAUS_TICKET_ALL UINT32_MAX
#define DANAUS_TICKET_MAX 4096 /* handles listed in one TICKET */
/* An unclaimed ticket is dropped after this: a forked child adopts its
 * ticket in its fork handler, an exec'd image while it starts, so one left
 * longer never will be claimed - and it holds files open, and their flock
 * and OFD locks with them. */
#define DANAUS_TICKET_TTL_S 5

struct danaus_door_msg {
    uint32_t op;
    uint32_t version; /* DANAUS_WIRE_VERSION */
    uint32_t arg;
    uint32_t pad;
    uint64_t token;      /* ADOPT */
    uint64_t handles[];  /* TICKET */
};

struct danaus_door_reply {
    int32_t error;  /* 0 or an errno */
    uint32_t value; /* slot number for SLOT_GET */
    uint64_t token; /* TICKET */
};

/* STATS' reply: what the preload door served of a mount since it was
 * added (or of every mount). Service times fall in buckets of a quarter
 * of a power of two: bucket 4k + j (j < 4) holds times from
 * 2^k (1 + j/4) ns up to the next bucket's start. */
#define DANAUS_STATS_BUCKETS 160
struct danaus_stats_reply {
    int32_t error;
    uint32_t pad;
    uint64_t calls, bytes_read, bytes_written;
    uint64_t time_ns[DANAUS_STATS_BUCKETS];
};

/* HRC's reply: an estimate of the hit ratio an LRU cache of 4 KiB pages
 * would have had on the file data one mount's clients read through either
 * door (the reads the service saw: not those answered by a client's own
 * cache or the kernel's page cache), as a curve over cache sizes:
 * hit_ppm[i] (parts per million) for danaus_hrc_pages(i + 1) pages. Sizes
 * run 1 to 16 pages, then 8 per power of two
 * (fsservice/core/reuse.h). Only root or danausd's own uid may ask, as
 * for MOUNT_ADD. */
#define DANAUS_HRC_POINTS (16 + 8 * 37)
struct danaus_hrc_reply {
    int32_t error;
    uint32_t samples;     /* pages the estimator holds */
    uint64_t reads;       /* pages read */
    uint64_t rate_ppb;    /* of pages sampled, parts per billion */
    char mountpoint[DANAUS_PATH_MAX];
    uint32_t hit_ppm[DANAUS_HRC_POINTS];
    /* The pool's page cache (cache_auto) for the mount: pages charged to
     * it, its reserve, and the reads it answered and did not; all 0 when
     * there is none. */
    uint64_t cache_pages, cache_reserve, cache_hits, cache_misses;
};

/* The cache size, in pages, of the curve's point i - 1 (the smallest
 * reuse distance of the estimator's bin i). */
static inline uint64_t danaus_hrc_pages(unsigned i)
{
    if (i < 16)
        return i;
    unsigned k = 4 + (i - 16) / 8, j = (i - 16) % 8;
    return (1ull << k) + ((uint64_t)j << (k - 3));
}

/* The knee of a curve: its first point whose hit ratio reaches 95% of the
 * largest size's, past which more memory buys little; -1 without hits.
 * `danaus stats --hrc` prints it and a service's cache_auto sizes by it. */
static inline int danaus_hrc_knee(const uint32_t hit_ppm[DANAUS_HRC_POINTS])
{
    uint64_t most = hit_ppm[DANAUS_HRC_POINTS - 1];
    if (most == 0)
        return -1;
    int i = 0;
    while ((uint64_t)hit_ppm[i] * 100 < most * 95)
        i++;
    return i;
}

/*
 * HELLO's reply: the geometry of the transport (ipc.h), then nmounts
 * entries, each a uint32_t (host
 * byte order, not aligned) followed by an absolute path ending in NUL. The
 * number is the mount index to put in desc.mount for paths under that
 * path, or DANAUS_MOUNT_KERNEL: paths under it are not Danaus's even when
 * a shorter entry covers them (the longest matching entry decides). A
 * client of the service's mount namespace gets the live mounts (at most
 * DANAUS_MAX_MOUNTS, oldest first: the configured ones, then container
 * roots; one left out is still reached through its FUSE door), a client
 * in a container's namespace the container's view (VIEW above).
 */
#define DANAUS_MOUNT_KERNEL UINT32_MAX
#define DANAUS_MAX_CPUS 1024
/* The service keeps written data in its own memory until fsync (its
 * Ceph client does): if it dies, writes not yet fsync'd may be lost. */
#define DANAUS_HELLO_CACHES_WRITES 1u
/* The hello reply's descriptors (SCM_RIGHTS): the queues, the client's
 * area, the announcement page, and the client's end of its pass socket
 * (struct danaus_pass), which only the service writes to. */
#define DANAUS_HELLO_FDS 4

struct danaus_hello_reply {
    int32_t error;
    uint32_t client_id;
    uint32_t client_index; /* what this client's doorbells carry */
    uint32_t nmounts;
    uint32_t nqueues, ncells; /* the queues memfd (first descriptor) */
    uint32_t nslots, slot_buf; /* the area memfd (second descriptor) */
    uint32_t cache_blocks;     /* its read cache (ipc.h), 0: none; the
                                  announcement page (ipc.h) is the third
                                  descriptor */
    uint32_t dirty_pages;      /* its write-back pages (ipc.h), 0: none */
    uint32_t flags;            /* DANAUS_HELLO_ */
    uint16_t cpu_queue[DANAUS_MAX_CPUS]; /* cpu number -> queue */
    char mounts[]; /* nmounts entries: index, then path and NUL */
};

#endif
