/*
 * The write guard: what a sandboxed command may not create, change, remove or rename,
 * decided by name (SPEC §7; srt-launch(1) DESIGN).
 *
 * Mounts alone cannot protect single names for a run's length: Linux detaches a mount
 * whose dentry the host unlinks or renames over, and a missing file has no dentry to
 * mount on. So the plan (plan_linux.c) writes these rules down, srt-launch hands them to
 * srt-seccomp in a sealed memfd, and srt-seccomp's supervisor asks them about every
 * write-intent system call of the command, by the resolved absolute path of the name
 * being created, written, removed or renamed.
 *
 * The model is whose a directory is and what the host executes (srt-launch(1), The
 * write guard):
 *   - the user's directories (those that predate the run) keep the dangerous names
 *     (wguard_names[]) at the levels the depth rule reaches (BEHAVIOR §4.1); in the
 *     command's own directories (made during the run) those names are the command's
 *     files, like a download's: a clone or an unpacked archive there is never refused;
 *   - the exact paths (denyWrite entries, the settings file, what git's configuration
 *     names, srt's own files, the home directory's start-up files, symlinked dangerous
 *     names and what they point to) are protected wherever they are;
 *   - git directories are never just the command's: in every one (the user's, one the
 *     command makes, everything below a user's git directory) no hook git runs is made
 *     (only *.sample), config and config.worktree change only through git's lock file
 *     renamed onto them, which the supervisor judges by content (gitcfg_check) and
 *     writes itself, and commondir, gitdir and .git files must point within their own
 *     repository (wguard_pointer_check);
 *   - a path that matches, or lies under a match of, a denyWrite glob (made absolute as
 *     the settings take it: "*.pem" against the cwd) is protected, whether the match
 *     existed or not;
 *   - a new git directory may appear only where the host's git finds none of the
 *     user's repositories.
 *
 * Everything here is pure: what the file system says comes through struct wguard_fs,
 * answered by the caller from its own (fd-pinned) view.
 */
#ifndef SRT_WGUARD_H
#define SRT_WGUARD_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

/* Where the depth rule applies, and how deep (a dangerous name of the reference's list
 * and srt's additions). */
enum wg_kind {
	WG_FILE, /* protected where its directory is at most depth-1 levels down */
	WG_DIR,  /* protected (with all below it) at most depth-2 levels down */
};

struct wguard_name {
	const char *name; /* one name, or two joined by "/" (".claude/commands") */
	enum wg_kind kind;
	const char *why; /* the reason a refusal names */
};

/* The dangerous names: one table for the plan's walk and the supervisor. */
extern const struct wguard_name wguard_names[];
extern const size_t wguard_nnames;

/* A dangerous name the write guard owns alone, not bound read-only when the guard runs:
 * it changes only by content (wguard_names.c says why). */
bool wguard_name_writable(const struct wguard_name *n);

/* Paths below the home directory that its owner's tools run or trust. */
extern const struct wguard_name wguard_home_names[];
extern const size_t wguard_nhome_names;

/* The files git acts on in a git directory, and why (wguard_names.c has the tables). */
struct wguard_git_file {
	const char *name;
	bool config; /* configuration: left writable with allowGitConfig */
	const char *why;
};
extern const struct wguard_git_file wguard_git_files[];
#define WGUARD_DEPTH_DEFAULT 3 /* mandatoryDenySearchDepth when unset */
#define WGUARD_WALK_MAX 200000 /* directory entries one mandatory-deny walk reads */
extern const size_t wguard_ngit_files;

struct wg_set; /* a hash set of paths (wguard.c) */

/*
 * A read deny srt-seccomp holds against the host's changes: with Landlock
 * (srt-seccomp/readlock.c), or else watched (srt-seccomp/watch.c: the run ends when the
 * name no longer leads to its mask, or when a name missing at the start appears).
 */
struct wguard_watched {
	char *name;  /* the path as the settings give it, its links
	                                   kept: what a reader of the path opens */
	char *mount; /* the mask that name leads to (a /dev/null bind
	                                   or a tmpfs), or NULL: the path did not exist at
	                                   the start, and nothing is mounted for it */
	bool place;  /* a file's /dev/null mask srt-seccomp mounts
	                                   itself (readlock_place), or nothing when the
	                                   file is gone by then: bwrap would not start */
};

struct wguard_watch {
	struct wguard_watched *v;
	size_t n;
};

struct wguard {
	struct strlist exact;        /* protected paths, absolute and normalised */
	struct strlist exact_why;    /* the reason for each */
	unsigned char *exact_pin;    /* for each: no directory on the way to it may be
	                                   made either (the reference's placeholders) */
	struct strlist globs;        /* denyWrite globs, absolute (glob.h's syntax) */
	struct strlist globs_why;    /* the reason for each */
	struct strlist roots;        /* the cwd and the write roots: where the names
	                                   and git rules apply */
	struct strlist writable;     /* the write roots alone, bound writable: a write
	                                   outside them fails with EROFS, which the
	                                   violation monitor reports as "not in
	                                   allowWrite" (empty: not known) */
	struct strlist absent;       /* allowWrite entries that named nothing when the
	                                   run started: the absolute path, or glob pattern,
	                                   each left read-only */
	struct strlist absent_entry; /* for each, the entry as the settings spell it */
	struct strlist absent_why;   /* for each, the monitor's reason, naming it */
	struct strlist absent_glob;  /* for each: "1" a glob pattern, "0" a path */
	bool inert;                  /* refuses nothing (srt-seccomp's monitor run
	                                   without a guard): every question says NULL */
	struct wguard_watch watch;   /* read denies, held or watched by srt-seccomp */
	int depth;                   /* mandatoryDenySearchDepth */
	bool allow_git_config;
	/* lookups, made by wguard_index */
	struct wg_set *exact_set;     /* exact -> index */
	struct wg_set *anc_set;       /* every proper ancestor of an exact path */
	struct wg_set *pin_set;       /* those of pinned exact paths */
	struct strlist anc;           /* the strings of both */
	size_t *name_len;             /* wguard_names[k]: the length of its first part
	                                   (2k) and of the whole name (2k + 1) */
	unsigned char name_first[32]; /* the bytes a name starts with, either case: a
	                                   path with no component starting so is let go
	                                   at once (a bit set, made with name_len) */
};

/* What the caller knows of the file system. Paths are absolute, resolved and normalised. */
struct wguard_fs {
	void *arg;
	/* dir is a git directory (HEAD, and commondir or objects/ and refs/): 1 yes, 0 no,
	 * -1 the caller cannot tell (each question then takes the answer that protects). */
	int (*is_git_dir)(void *arg, const char *dir);
	/* dir existed before the run (and was not created since where one stood); true
	 * when the caller cannot tell. */
	bool (*predates)(void *arg, const char *dir);
	/* path exists (not followed if it is a link); true when the caller cannot tell. */
	bool (*exists)(void *arg, const char *path);
	/* Where path leads with every link on the way followed, as the host's git reads a
	 * pointer (realpath(3)): a new string, or NULL with errno. NULL: the text alone is
	 * judged (a caller with no file system to look at). */
	char *(*resolve)(void *arg, const char *path);
};

void wguard_init(struct wguard *g);
void wguard_free(struct wguard *g);
/*
 * Add an exact path (normalised here) once; the first reason stays. pin: no directory on
 * the way to it may be made either, as no other entry may (the reference keeps the way
 * with a placeholder); otherwise directories may lead to it (the home directory's list:
 * tools make ~/.cargo, ~/.aws, ~/.local as they go).
 */
void wguard_add_exact(struct wguard *g, const char *path, const char *why, bool pin);
/*
 * Add a denyWrite glob (absolute, normalised here): every name that matches it, or lies
 * under a name that does, is protected as an exact path is, made during the run or not.
 */
void wguard_add_glob(struct wguard *g, const char *pattern, const char *why);
/*
 * Add a read deny to watch (both paths normalised here): name and the mount it leads to,
 * or mount NULL for a name missing at the start.
 */
void wguard_add_watch(struct wguard *g, const char *name, const char *mount);
/* The same for a file whose /dev/null mask srt-seccomp mounts itself, not bwrap. */
void wguard_add_mask(struct wguard *g, const char *name, const char *mount);
/* Build the lookups; call after the last add and before any question. */
void wguard_index(struct wguard *g);

/* The guard as bytes (wguard_encode, for a sealed memfd) and back. The decoder treats
 * its input as untrusted: -1 with a message in err on anything malformed. */
char *wguard_encode(const struct wguard *g, size_t *len);
int wguard_decode(const char *buf, size_t len, struct wguard *g, char *err, size_t errlen);

/*
 * The questions the supervisor asks, each with the resolved absolute path of the name
 * the call acts on. Each returns NULL (allowed) or the reason it is refused.
 *
 * wguard_protected: may path (and what it names) be written or changed?
 * wguard_may_create: may an entry be made at path (is_dir: a directory)? Adds to
 *   wguard_protected the names that must not appear: an ancestor of a protected path
 *   (as a directory only where the path is pinned), a ".git" or the last marker of a
 *   git directory where the host's git would find one of the user's repositories; a
 *   marker above when the supervisor decides by content.
 * wguard_may_remove: may the entry at path go (unlink, rmdir, the source of a rename)?
 *   Adds the directories on the way to exact paths; git's files go only from git
 *   directories the command made.
 */
const char *wguard_protected(
    const struct wguard *g, const struct wguard_fs *fs, const char *path);
const char *wguard_may_create(
    const struct wguard *g, const struct wguard_fs *fs, const char *path, bool is_dir);
const char *wguard_may_remove(
    const struct wguard *g, const struct wguard_fs *fs, const char *path);
/*
 * May the entry at path go by unlink or rmdir (is_dir) although wguard_may_remove
 * refuses it, as its going plants nothing: an empty directory on the way to protected
 * paths (not one a denyWrite keeps), a git directory pointer that is no directory (a
 * .git file below a root, a linked worktree's commondir and gitdir), each held by no
 * user's rule and no protected directory. What git worktree remove, git worktree prune
 * and git submodule deinit remove. Never for a rename's source; the caller sees that
 * a pointer is not made again where it went.
 */
bool wguard_removable(
    const struct wguard *g, const struct wguard_fs *fs, const char *path, bool is_dir);

/*
 * Why a write to path failed with EROFS, for the violation monitor: "not in allowWrite"
 * when it lies outside every write root, another reason inside one (a read-only mount
 * there: a denied directory's mask, a host mount), "allowWrite ENTRY did not exist when
 * the run started" (or, for a glob, "matches only what existed") for a path an entry
 * named that was missing then, and a plain one when the roots are not known
 * (g->writable empty).
 */
const char *wguard_readonly_why(const struct wguard *g, const char *path);

/*
 * The way forward a violation line names after why, the reason path was refused, in
 * the user's words: "allowGitConfig allows it" for git's own configuration, the
 * sentence that no setting lifts it for the other mandatory denies (and the settings
 * file), NULL when why names its way already (allowGitConfig, an allowWrite entry) or
 * is no mandatory deny (a denyWrite entry is the user's own).
 */
const char *wguard_way(const char *path, const char *why);

/* Record an allowWrite entry (as the settings spell it) that named nothing when the run
 * started: path absolute (a glob pattern when glob). */
void wguard_add_absent(struct wguard *g, const char *path, const char *entry, bool glob);

/*
 * Markers some answers of wguard_may_create are (compare the pointer): the name may be
 * made only in the way the supervisor checks by content; any other way is refused, with
 * the marker's text as the reason.
 *   wguard_why_gitcfg    a git config or config.worktree: by the rename of a file the
 *                        supervisor judges (gitcfg_check) and installs itself;
 *   wguard_why_cfg_new   the same, in a git directory the command made, below none of
 *                        the user's: also by an open that creates it, judged as new
 *                        (gitcfg_check) once the command is gone, removed if refused;
 *   wguard_why_pointer   a .git file in the work tree of the user's repository: made by
 *                        an open that creates it; what it says is checked before the
 *                        run ends (wguard_pointer_check);
 *   wguard_why_complete  the marker that makes a directory a git directory: only
 *                        after the supervisor found no hook and judged its config.
 */
extern const char wguard_why_gitcfg[];
/* wguard_protected's answer for a git config written in place (its mode and times may
 * change: nothing git runs depends on them). */
extern const char wguard_why_cfg_write[];
extern const char wguard_why_cfg_new[];
extern const char wguard_why_pointer[];
/* wguard_protected's answer for the .git entry of a directory that predates the run
 * (rewritten, it points git elsewhere); a .git file the command made in the run the
 * supervisor lets it rewrite, as it let it make it: git submodule update writes the
 * pointer, then rewrites it relative. */
extern const char wguard_why_dotgit[];

/* Is name (one component) a hook sample's, which git never runs as a hook: *.sample? */
bool wguard_hook_sample(const char *name);
extern const char wguard_why_complete[];

/*
 * A git directory pointer the command made (path: a .git file, a commondir, a linked
 * worktree's gitdir), holding text: NULL when it points within its own repository (a
 * .git file in the user's work tree: into that repository's .git/modules or
 * .git/worktrees; elsewhere: into a .git, or a git directory of any name under no other
 * git directory, made during the run; a commondir: to a git
 * directory holding it; a gitdir: to a .git), else the reason to take it away. Where
 * it points is where fs->resolve says git's resolution of it leads. path may also be
 * a git config the supervisor installed with a core.worktree: that must lead, through
 * the links on the way, where its text says.
 */
const char *wguard_pointer_check(const struct wguard *g, const struct wguard_fs *fs,
    const char *path, const char *text, size_t len);

/* Does path lie in a git directory (its directory one, or inside one)? */
bool wguard_git_state(const struct wguard *g, const struct wguard_fs *fs, const char *path);

/* Is path a git directory pointer: a .git, or a commondir or gitdir in a git directory? */
bool wguard_pointer_name(const struct wguard *g, const struct wguard_fs *fs, const char *path);

/* Is name one of git's marker files (HEAD, objects, refs, commondir) or ".git"? */
bool wguard_git_marker(const char *name);

#endif
