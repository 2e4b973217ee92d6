/*
 * The bubblewrap plan's own declarations, shared by its files: plan_linux.c (the order
 * of the filesystem arguments and their assembly), plan_linux_fs.c (the file system,
 * asked once per path), plan_linux_where.c (where a path lands in the plan),
 * plan_linux_mandatory.c (the mandatory denies),
 * plan_linux_guard.c (the write guard) and plan_linux_sandbox.c (the command line
 * around the filesystem arguments). Nothing outside them includes it: plan.h is the
 * interface.
 */
#ifndef SRT_PLAN_LINUX_INT_H
#define SRT_PLAN_LINUX_INT_H

#include <sys/stat.h>

#include <stdbool.h>
#include <stddef.h>

#include "plan.h"
#include "util.h"

struct gitconfig;

#define MAX_LINKS 40 /* as many as the kernel follows */

#define nitems(a) (sizeof(a) / sizeof((a)[0]))

struct mount {
	char *src, *dest;
};
struct mounts {
	struct mount *v;
	size_t n;
};

/* A read-denied directory: its tmpfs and what was bound back over it. */
struct unit {
	char *landing;
	struct mounts writes, reads;
};

/* One denyRead (or credentials file) entry: where its mount lands, if anywhere. */
struct rdeny {
	char *named;   /* the entry, normalised */
	char *given;   /* the entry as a reader spells it: its links kept */
	char *landing; /* NULL: nothing is mounted for it */
	int isdir, standin, lifted;
	int missing;  /* not there at the start (landing NULL) */
	int internal; /* the plan's own (ssh's configuration), not the settings' */
	int cred;     /* a credentials file: no allowRead or allowWrite exception */
	size_t depth, order;
};

enum dkind {
	DK_SELF, /* --ro-bind P P */
	DK_NULL, /* --ro-bind /dev/null P: a link that cannot be settled */
};
struct dbind {
	enum dkind kind;
	char *dest, *raw;
};

struct fsent;

struct pb {
	const struct settings *s;
	const struct plan_ctx *ctx;
	struct plan_linux *out;
	struct diags *errs;
	int bad;
	struct fsent *fs;              /* what the plan asked of the file system */
	size_t fs_cap, fs_n;           /* fs: open addressing, fs_cap a power of two */
	struct strlist writes;         /* allowed write roots, resolved, in order */
	struct strlist user_roots;     /* those allowWrite named: walked for mandatory denies */
	struct strlist managed_writes; /* those the managed policy named, under its
	                                   allowManagedReadPathsOnly (write_reopens) */
	struct strlist absent_writes;  /* allowWrite entries naming nothing at the start:
	                                   the path, or the glob pattern (plan_user_write) */
	struct strlist absent_entries; /* each as the settings spell it */
	struct strlist absent_globs;   /* each: "1" a glob, "0" a path */
	struct strlist reads;          /* allowRead paths, normalised */
	struct rdeny *rd;
	size_t nrd;
	struct unit *units;
	size_t nunits;
	struct strlist masks;      /* landings of read-deny file masks */
	struct strlist placed;     /* read-deny masks srt-seccomp mounts, not bwrap:
	                                   files, and directories with nothing brought
	                                   back inside (readlock.c) */
	struct strlist denied;     /* every location the read section hides */
	struct strlist tmpfs_pred; /* every spelling of a read-deny tmpfs */
	struct strlist denies;     /* write-deny paths, normalised, in order */
	struct dbind *db;
	size_t ndb;
	struct strlist seen;              /* write-deny destinations handled */
	struct strlist deny_why;          /* the reason of each entry of denies */
	size_t npinned;                   /* the first entries of denies, whose way is kept */
	size_t nconfigured;               /* the first entries of denies: denyWrite's */
	struct strlist symlinked;         /* destinations some deny reaches through a link */
	struct strlist rodirs, rodir_raw; /* existing denied directories bound read-only */
	struct strlist binds, rsec, dsec; /* argument sections, assembled at the end */
	struct strlist git_done;          /* git directories the mandatory denies handled,
					     "gitdir\nworktree" */
	struct strlist git_global_rel;    /* relative core.hooksPath of the global config */
	/* git configs read for the mandatory denies, by path, parsed once: many .git files
	 * naming one git directory (each its own work tree) read its config once */
	struct strlist cfg_paths;
	struct gitconfig **cfgs;
	size_t ncfgs, capcfgs;
};

/* plan_linux.c */
int plan_linux_fs(const struct settings *s, const struct plan_ctx *ctx, struct plan_linux *out,
    struct diags *errs);

/* plan_linux_where.c */
int plan_linux_within_write(struct pb *b, const char *p);
int plan_linux_hidden_by_tmpfs(struct pb *b, const char *loc, int with_reads);
int plan_linux_is_kernel_dir(const char *p);

/* plan_linux_fs.c */
void plan_linux_fs_free(struct pb *b);
int plan_linux_fs_lstat(struct pb *b, const char *p, struct stat *st);
const char *plan_linux_fs_link(struct pb *b, const char *p);
int plan_linux_fs_stat(struct pb *b, const char *p, struct stat *st);
const char *plan_linux_canon(struct pb *b, const char *p);
const char *plan_linux_canon_or(struct pb *b, const char *p);
int plan_linux_outside_boundary(const char *orig, const char *res);
char *plan_linux_normalize(struct pb *b, const char *abs);
char *plan_linux_name_location(struct pb *b, const char *p);
int plan_linux_absence_errno(int e);
int plan_linux_exists(struct pb *b, const char *p);
void plan_linux_split_names(const char *p, struct strlist *out);
char *plan_linux_resolve_deny(struct pb *b, const char *raw, struct strlist *also);

/* plan_linux_mandatory.c */
void plan_linux_mandatory_denies(
    struct pb *b, const struct strlist *roots, struct strlist *out);
void plan_linux_protected_links(struct pb *b);

/* plan_linux_guard.c */
void plan_linux_guard_chain(struct pb *b, const char *p, const char *why, bool pin, int depth);
const char *plan_linux_mandatory_why(const char *p);
void plan_guard(struct pb *b);

#endif /* SRT_PLAN_LINUX_INT_H */
