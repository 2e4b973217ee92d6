/*
 * The write guard's supervisor, shared by its files: supervise.c (the state, the calling
 * thread, answers, dispatch and the supervisor's life), sup_fs.c (what the guard asks of
 * the file system), sup_open.c (opens), sup_names.c (names made, removed, renamed),
 * sup_meta.c (bind, and changes to what is there) and sup_read.c (the read denies held
 * here). srt-seccomp.h declares what the rest
 * of the program uses (sup_new ... sup_free).
 */
#ifndef SRT_SECCOMP_SUPERVISE_H
#define SRT_SECCOMP_SUPERVISE_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <sys/types.h>
#include <linux/limits.h>
#include <linux/seccomp.h>

#include <sys/stat.h>

/* The mount ids statx(2) gives (Linux 5.8 and 6.8), for headers older than that. */
#ifndef STATX_MNT_ID
#define STATX_MNT_ID 0x00001000U
#endif
#ifndef STATX_MNT_ID_UNIQUE
#define STATX_MNT_ID_UNIQUE 0x00004000U
#endif

#include "wguard.h"
#include "srt-seccomp.h"

#define TASKS_MAX 4096 /* threads whose umask is remembered */

struct dirid {
	dev_t dev;
	ino_t ino;
};

/*
 * A directory a command's path starts from (its cwd, a descriptor of its, the root),
 * held by us with the kernel's name for it, for the fast way of sup_open_fast: found
 * again by what statx(2) says of the command's /proc/TID/cwd or fd/N, the mount (its
 * unique id) and the inode. Dropped whenever a directory may have moved or gone
 * (sup_bases_flush: a rename, an rmdir the supervisor did).
 */
#define BASES_MAX 16

struct base {
	uint64_t mnt;
	dev_t dev;
	ino_t ino;
	int fd; /* O_PATH | O_DIRECTORY */
	char *path;
};

/*
 * A file sup_open_fast made and gave the command, by mount and inode, with the name it
 * made it at: a later change through the command's descriptor (fchown, fchmod,
 * fsetxattr) finds the name here, not by readlink(2), while the file has that one name
 * (st_nlink 1) and nothing was renamed or removed since (sup_made_forget).
 */
#define MADE_FILES 8

struct made_file {
	uint64_t mnt;
	dev_t dev;
	ino_t ino;
	char *path;
};

struct task {
	pid_t tid, tgid;
	int pidfd; /* this very thread: -1 when it cannot be told apart */
	mode_t umask;
};

struct sup {
	int listener;
	int epfd; /* the pidfds of tasks[], for their ends, or -1 */
	struct wguard g;
	struct watch *watch; /* the read denies Landlock does not hold, watched */
	struct rguard *rg;   /* or held here, every open supervised (sup_read.c) */
	int ruleset;         /* Landlock's, for the worker, or -1 */
	bool nested_userns;
	bool read_hold; /* read denies held by Landlock (readlock.c) */
	struct seccomp_notif_sizes sizes;
	struct seccomp_notif *req;
	struct seccomp_notif_resp *resp;
	/* directories made during the run, and where predating ones stood */
	struct dirid *made;
	size_t nmade, capmade;
	struct strlist vacated;
	/* the user's git directory pointers removed (wguard_removable): not made again */
	struct strlist gone;
	/* a way for git in a directory that predates the run to the command's git
	 * directories was made (sup_git_way_ok): no config by an open after it */
	bool git_way;
	/* directories of the command's that hold one that predates the run, moved in
	 * (sup_hold_up): a .git made in one is such a way too */
	struct strlist holders;
	/* threads seen, for their process and umask */
	struct task tasks[TASKS_MAX];
	size_t ntasks;
	mode_t umask;      /* ours, as last set */
	struct res_ctx rc; /* of the call being served */
	struct task *task; /* its thread, or NULL */
	unsigned long refused;
	unsigned long wothers; /* modes S_IWOTH was removed from (sup_mode_strip) */
	struct monitor *mon;   /* --violations-fd, or NULL */
	const char *op;        /* the call being served, as a violation names it */
	/* While a rename's subtree is looked at: a name under map_to is asked about as
	 * what now stands at the same place under map_from (it moves there whole). */
	const char *map_from, *map_to;
	/* While a name to make or remove is asked about: the directory that holds it, as
	 * we hold it, and its path. Whether it and its ancestors predate the run is read
	 * from what we hold (fs_predates), not from names the command can move. */
	int held_fd;
	const char *held_path;
	/* directories paths start from (sup_open_fast); the root is bases[0] once held */
	struct base bases[BASES_MAX];
	size_t nbases, nextbase;
	int bwatch;    /* inotify: the held directories and those above, or -1 */
	bool fs_asked; /* the guard asked the file system (sup_open_fast) */
	struct made_file files[MADE_FILES];
	size_t nextfile;
	/* git directory pointers the command made, checked before the run ends */
	struct strlist pointers;
	/* git configs the command created by an open, judged as new then too */
	struct strlist new_configs;
};

/* The change sup_meta makes (sup_meta.c), as the dispatch read it from the call. */
enum meta {
	M_CHMOD,
	M_CHOWN,
	M_TRUNCATE,
	M_SETXATTR,
	M_REMOVEXATTR
};

struct meta_args {
	enum meta what;
	mode_t mode;
	uid_t uid;
	gid_t gid;
	off_t length;
	char xname[XATTR_NAME_MAX + 1];
	char *xvalue;
	size_t xsize;
	int xflags;
	bool by_fd; /* fchmod, fchown, fsetxattr, fremovexattr: the descriptor
				   alone */
};

/* supervise.c */
void sup_caller_umask(struct sup *s);
void sup_answer_err(
    int listener, uint64_t id, int err, struct seccomp_notif_resp *resp, size_t size);
void sup_answer_fd(int listener, uint64_t id, int fd, bool cloexec,
    struct seccomp_notif_resp *resp, size_t size);
void sup_refused(struct sup *s, const char *op, const char *path, const char *why);
void sup_readonly(struct sup *s, const char *path, int e);
void sup_proc_refused(struct sup *s, const char *path);
mode_t sup_mode_strip(struct sup *s, const char *path, mode_t mode, bool is_dir, bool made);
const struct wguard_fs *sup_fs(struct sup *s);
bool sup_in_proc(int fd);
bool sup_path_in_proc(const char *path);
int sup_path(struct sup *s, uint64_t addr, char *buf);
int sup_getfd(struct sup *s, int fd);
bool sup_valid(struct sup *s, uint64_t id);

/* sup_fs.c */
bool sup_made(const struct sup *s, dev_t dev, ino_t ino);
void sup_made_add(struct sup *s, int dirfd, const char *name);
void sup_made_del(struct sup *s, dev_t dev, ino_t ino);
bool fs_predates(void *arg, const char *dir);
bool fs_exists(void *arg, const char *p);
int fs_is_git_dir(void *arg, const char *dir);
/* What the host's git reaches by path (realpath(3)): asked once the command is gone. */
char *fs_resolve(void *arg, const char *path);
bool res_link_protected(void *arg, const char *link);
void sup_vacate(struct sup *s, const char *path, bool was_dir_made_here);

void sup_hold(struct sup *s, int dirfd, const char *path);
void sup_unhold(struct sup *s);

/* sup_git.c */
int sup_git_config_rename(
    struct sup *s, int odfd, const char *oname, int ndfd, const char *nname, const char *npath);
int sup_git_complete(struct sup *s, int dfd, const char *dir);
void sup_git_pointer(struct sup *s, const char *path);
void sup_git_finish(struct sup *s);
void sup_git_missing_targets(struct sup *s);
void sup_git_config_new(struct sup *s, const char *path);

/* sup_open.c */
void sup_bases_flush(struct sup *s);
void sup_bases_moved(struct sup *s);
void sup_files_flush(struct sup *s);
const char *sup_file_name(struct sup *s, const struct statx *sx);
int sup_open_fast(
    struct sup *s, uint64_t id, int dirfd, const char *path, int flags, mode_t mode, int *fd);
int sup_later(struct sup *s, uint64_t id, int obj, int flags, bool truncate, off_t length);
int sup_open(
    struct sup *s, uint64_t id, int dirfd, uint64_t addr, int flags, mode_t mode, int *fd);

int sup_open_read(struct sup *s, uint64_t id, int dirfd, uint64_t addr, int flags, int *fd);
/* sup_read.c */
struct rguard;
struct rguard *rguard_new(const struct wguard_watch *list);
void rguard_free(struct rguard *g);
const char *rguard_refuses(const struct rguard *g, int fd, const char *path);
const char *rguard_refuses_name(
    const struct rguard *g, int dirfd, const char *name, const char *path);
/* sup_names.c */
int sup_resolve_path(
    struct sup *s, uint64_t id, int dirfd, const char *path, bool follow, struct res *r);
/* May a way for git from a directory that predates the run to path be made now (no
 * config made by an open waits)? Refused, or NULL (and from now on one exists). */
const char *sup_git_way_ok(struct sup *s, const char *path, bool is_link);
int sup_create_ok(
    struct sup *s, const struct res *r, bool is_dir, const char *op, bool by_open);
int sup_check_new(struct sup *s, struct res *r, bool is_dir, const char *op);
int sup_mkdir(struct sup *s, uint64_t id, int dirfd, uint64_t addr, mode_t mode);
int sup_mknod(struct sup *s, uint64_t id, int dirfd, uint64_t addr, mode_t mode, dev_t dev);
int sup_symlink(struct sup *s, uint64_t id, uint64_t taddr, int dirfd, uint64_t addr);
int sup_unlink(struct sup *s, uint64_t id, int dirfd, uint64_t addr, int flags);
int sup_rename(struct sup *s, uint64_t id, int odir, uint64_t oaddr, int ndir, uint64_t naddr,
    unsigned flags);
int sup_link(
    struct sup *s, uint64_t id, int odir, uint64_t oaddr, int ndir, uint64_t naddr, int flags);

/* sup_meta.c */
int sup_bind(struct sup *s, uint64_t id, int sockfd, uint64_t addr, uint64_t alen);
int sup_meta(struct sup *s, uint64_t id, int dirfd, uint64_t addr, bool follow, bool empty_ok,
    const struct meta_args *m);

#endif /* SRT_SECCOMP_SUPERVISE_H */
