/* srt-seccomp: the last stage inside the sandbox before the user's command. */
#ifndef SRT_SECCOMP_H
#define SRT_SECCOMP_H

#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdnoreturn.h>
#include <sys/types.h>
#include <linux/filter.h>

#include "exit.h" /* EXIT_SELF, EXIT_NOEXEC, EXIT_NOTFOUND: shared with srt-launch */
#include "util.h"

struct seccomp_opts {
	int allow_unix;   /* --allow-unix-sockets: socket(AF_UNIX) allowed */
	int lifeline_fd;  /* --lifeline-fd, or -1 */
	int allow_userns; /* --allow-nested-userns: namespaces and mount API allowed */
	int no_read_hold; /* --no-read-hold: every read deny watched (denyReadHold) */
	int guard_fd;     /* --guard-fd: the write guard (supervise.c), or -1 */
	int guard;        /* the filter sends writes to the supervisor */
	int viol_fd;      /* --violations-fd: the monitor's records (monitor.c), or -1 */
	int monitor;      /* the filter also sends connects to the supervisor */
};

struct sup;

/* resolve.c: the command's paths, resolved by the supervisor on its own copy. */
struct res_ctx {
	pid_t tid, tgid; /* the calling thread and its process */
	/* A link about to be followed, by its absolute path: true refuses (EPERM). */
	bool (*link_protected)(void *, const char *);
	void *arg;
	bool check_names; /* names must lead to what is held (nested namespaces) */
	/* A hold from outside the sandbox that its view does not show (res_view): the
	 * name, reported as a write the mounts refuse (EROFS). */
	void (*view_refused)(void *, const char *);
	struct res_mounts *mounts; /* the sandbox's mounts (res_mounts_new) */
	/* Before tid and tgid are trusted for a /proc name: false, the thread is gone
	 * (tgid may be updated). NULL: trusted as they are. */
	bool (*task_fresh)(void *);
	int root; /* "/", held for every absolute path, or -1 */
};

struct res {
	int dirfd; /* the directory holding name, or -1 */
	int objfd; /* or the object itself (name empty), or -1 */
	char name[NAME_MAX + 1];
	char path[PATH_MAX]; /* absolute; "" for an object without a name */
	bool must_be_dir;    /* the command's path ended in "/" */
	bool from_root;      /* dirfd reached from our root by names and no link: on
				   the sandbox's own mounts (res_view has nothing to ask) */
	int fd_flags;        /* objfd came through the command's fd/N: its open
				   flags (O_PATH when unknown); else -1 */
};

struct statx;
int res_read_string(pid_t, unsigned long long, char *, size_t);
int res_read_mem(pid_t, unsigned long long, void *, size_t);
int res_read_string_mem(
    pid_t, unsigned long long, char *, size_t, unsigned long long, void *, size_t);
int res_fd_path(int, char *, size_t);
int res_fd_open(pid_t, int, int *, int *);
int res_same(const struct res_ctx *, int, const char *);
int res_view(const struct res_ctx *, int *, char *, size_t, struct statx *);
struct res_mounts *res_mounts_new(void);
void res_mounts_free(struct res_mounts *);
int res_found(const struct res_ctx *, const char *);
int res_resolve(const struct res_ctx *, int, const char *, bool, struct res *);
void res_free(struct res *);

/* supervise.c: the write guard's supervisor, run by PID 1. */
struct sup *sup_new(int guard_fd, int viol_fd, bool nested_userns, bool read_hold);
int sup_start(struct sup *);
int sup_place(struct sup *);
bool sup_supervises_reads(const struct sup *);
int sup_ruleset(const struct sup *);
void sup_finish(struct sup *);
void sup_set_listener(struct sup *, int);
int sup_pollfds(struct sup *, struct pollfd *, int);
int sup_events(struct sup *, const struct pollfd *, int);
void sup_free(struct sup *);

/* monitor.c: the violations the supervisor saw, as lib/core/violation.h records on a
 * descriptor. Every function takes a NULL monitor (none) and does nothing. */
struct monitor;
struct wguard_watch;
struct monitor *monitor_new(int fd);
void monitor_file(
    struct monitor *, bool read, const char *op, const char *path, const char *why);
bool monitor_connect_wanted(
    struct monitor *, const void *sa, size_t len, const char *op, char *addr, unsigned *port);
void monitor_connect(
    struct monitor *, const char *op, const char *proto, const char *addr, unsigned port);
void monitor_watch_reads(struct monitor *, const struct wguard_watch *);
int monitor_pollfd(struct monitor *, struct pollfd *);
bool monitor_owns(const struct monitor *, int fd);
void monitor_reads(struct monitor *, bool report);
void monitor_finish(struct monitor *);
void monitor_free(struct monitor *);

/* watch.c: the read denies Landlock does not hold, watched for the host's changes (the
 * sandbox ends); the walk of a deny's way, which readlock.c shares. */
struct watch;
struct watch *watch_new(const struct wguard_watch *);
int watch_mnt(int, const char *, int, unsigned long long *);
int watch_way(
    const char *, int (*)(void *, const char *, const char *, size_t), void *, char **);
int watch_fds(struct watch *, struct pollfd *, int);
int watch_check(struct watch *, const struct pollfd *, int);
void watch_free(struct watch *);

/* readlock.c: the read denies held by Landlock (held[i] for each of the list); the
 * ruleset the worker restricts itself with, or -1 (none). */
int readlock_new(const struct wguard_watch *, bool allow_userns, bool hold, bool *held);
int readlock_restrict(int ruleset);
/* readlock.c: the file masks srt-seccomp mounts itself (wguard 'F'), before it drops
 * its capabilities; a file gone by then becomes a deny missing at the start. */
int readlock_place(struct wguard_watch *);

/* filter.c: one compiled program, shared by --emit-bpf and the install path. */
int filter_build(const struct seccomp_opts *, struct sock_fprog *);
int filter_write(const struct sock_fprog *, const char *);
int filter_install(const struct sock_fprog *, int *listener);
int filter_read_prefix(const struct sock_fprog *, struct sock_fprog *);
void filter_free(struct sock_fprog *);

/* ns.c: namespaces, the fresh /proc, capabilities. */
int ns_enter(int *own_userns);
int ns_setup_proc(int own_userns, int allow_userns);
int ns_cover_proc(void);
int caps_clear(void);

/* reaper.c: signal forwarding and exit-status relay for PID 1 and its parent. */
int reaper_block(sigset_t *saved);
int reaper_wait(pid_t child, pid_t group, struct sup *);
int reaper_arm_lifeline(int fd);
void reaper_relay_lifeline(void);

#endif
