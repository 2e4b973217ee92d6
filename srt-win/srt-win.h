/*
 * srt-win: the Windows helper (SPEC §2, BEHAVIOR §7). Portable C: every Windows call is
 * behind winapi.h, so all of this builds and is tested natively against the fake.
 */
#ifndef SRT_WIN_H
#define SRT_WIN_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "buf.h"
#include "json_tree.h"
#include "plan_ace.h"
#include "util.h"
#include "winapi.h"

#ifndef SRT_VERSION
#define SRT_VERSION "0.1.0"
#endif

#if defined(__MINGW32__)
/* With __USE_MINGW_ANSI_STDIO the C99 printf family is used (%zu and all). */
#define SW_PRINTF(a, b) __attribute__((format(gnu_printf, a, b)))
#elif defined(__GNUC__)
#define SW_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define SW_PRINTF(a, b)
#endif

/* Exit statuses (srt-win(1), EXIT STATUS). runner, exec and launch otherwise exit with the
 * command's own status. */
enum {
	SW_OK = 0,
	SW_ESYSTEM = 1,          /* a Windows call failed */
	SW_EUSAGE = 2,           /* usage, bad input, or some inputs skipped */
	SW_EFENCE = 3,           /* wfp verify: a direct connect got through */
	SW_ECANCELLED = 10,      /* the elevation prompt was declined */
	SW_EWFP = 12,            /* install: the filters could not be added */
	SW_ECONFLICT = 13,       /* install: installed with other settings */
	SW_EUSER = 14,           /* install: the account could not be provisioned */
	SW_ENOTPROVISIONED = 15, /* no sandbox account (or another release's) */
	SW_EMAPPED = 16,         /* exec: the directory is on a network drive */
	SW_ESECLOGON = 18,       /* exec: Secondary Logon is disabled or missing */
	SW_ELOOPBACK = 19,       /* the loopback mode differs from the install's */
	SW_EHELD = 22,           /* acl forget --all: sessions run on the roots */
	SW_ESESSION = 26,        /* exec --held-by: the session ended first */
	SW_ENOEXEC = 126,        /* runner: the program cannot be run (as shells) */
	SW_ENOTFOUND = 127,      /* runner: the program is not there (as shells) */
};

#define SW_DEFAULT_USER "srt-sandbox"
#define SW_GROUP WA_SANDBOX_GROUP
#define SW_DEFAULT_SUBLAYER "6d1a5f0e-9c1b-4b43-8d77-53a7e0d1b001"
#define SW_PORT_LO 60080
#define SW_PORT_HI 60089
#define SW_PORT_RANGE_MAX 64
#define SW_PROBE_PORT 1 /* stays blocked with --allow-loopback */
#define SW_SETUP_VERSION 1
#define SW_DISPATCH_ARG1 "--srt-win"

/* --- util.c -------------------------------------------------------------------------- */

/* The allocator (xmalloc ... xasprintf, fatal on exhaustion), the string list (struct
 * strlist), the buffer (struct buf) and the JSON reader (struct json_value) are the
 * core's: lib/core/util.h, lib/core/buf.h, lib/core/json_tree.h. */

/* Errors: one JSON line on stderr, {"code": ..., "message": "srt-win: ..."}. */
void sw_err(const char *code, const char *fmt, ...) SW_PRINTF(2, 3);
void sw_fatal_line(const char *msg); /* for log_fatal_emit: a "system" error */
extern int sw_debug;
extern int sw_quiet; /* no error lines (fuzzing) */
/* A line on stderr, prefix first, if on; sw_warn's ("srt-win: warning: ...", unless
 * quiet) and sw_trace's (with -d: "srt-win: ..."). */
void sw_note(int on, const char *prefix, const char *fmt, ...) SW_PRINTF(3, 4);
#define sw_warn(...) sw_note(!sw_quiet, "srt-win: warning: ", __VA_ARGS__)
#define sw_trace(...) sw_note(sw_debug, "srt-win: ", __VA_ARGS__)

/* Read all of a stream (at most max bytes); -1 on error or when larger. */
int read_all(FILE *f, size_t max, char **out, size_t *len);
int parse_uint(const char *s, unsigned long max, unsigned long *out);
/* "LO-HI" with 1 <= LO <= HI <= 65535 and HI - LO <= 64. */
int parse_port_range(const char *s, int *lo, int *hi);

/* --- path.c ---------------------------------------------------------------------------- */

/* An absolute path for this system without ".", ".." or empty components, separators
 * made the system's own and no trailing one (but a root's); NULL if p is not one. */
char *sw_path_clean(const char *p);
/* The directory holding p, NULL for a root. */
char *sw_path_parent(const char *p);
int sw_path_is_under(const char *p, const char *dir);

/* --- ace.c: the ACEs of a plan --------------------------------------------------------- */

/* The rights of an entry: lib's (plan_ace.h), which srt-policy's plan lines name. */
enum sw_right {
	SR_READ = PLAN_R_READ,
	SR_EXECUTE = PLAN_R_EXECUTE,
	SR_WRITE = PLAN_R_WRITE,
	SR_MODIFY = PLAN_R_MODIFY,
	SR_DELETE_CHILD = PLAN_R_DELETE_CHILD,
	SR_DELETE = PLAN_R_DELETE,
};

/* The access mask Windows gets for rights: an ALLOW grants the generic rights named, a
 * DENY takes the data rights away but never SYNCHRONIZE or READ_CONTROL (a deny must not
 * stop a process from waiting on, or reading the security of, what it may still see). */
uint32_t ace_mask(int deny, unsigned rights);
const char *ace_rights_json(unsigned rights, struct buf *b);
void plan_add(struct plan_windows *p, int deny, const char *path, unsigned rights, int inherit);
/*
 * The ACEs on stdin. Either the JSON lines of `srt-policy plan --target windows`, or the
 * reference's objects: {"read": [...], "write": [...]} (grant) and {"denyRead": [...],
 * "denyWrite": [...]} (stamp, and grant --persistent), which follow the same rules. A
 * message per bad line is printed; -1 if any line was bad (nothing is applied then).
 */
int plan_parse(const char *text, size_t len, struct plan_windows *out);

/* --- state.c: who holds which entry ---------------------------------------------------- */

enum rec_kind {
	RK_GRANT,   /* acl grant, released by acl revoke */
	RK_STAMP,   /* acl stamp, released by acl restore */
	RK_KEPT,    /* acl grant --persistent: until acl forget */
	RK_PROFILE, /* profile grant: until profile forget */
	RK_EXEC,    /* exec --deny-*: for one command */
};

struct rec {
	enum rec_kind kind;
	unsigned long pid; /* holder (0 for RK_KEPT without one, RK_PROFILE) */
	uint64_t start;    /* the holder's start time, against pid reuse */
	char *path;
	struct wa_ace ace;
	int owned;           /* srt-win added the entry (else it was there) */
	struct strlist made; /* placeholders created for it, outermost first */
	char *root;          /* RK_KEPT: the root it was granted for */
};

struct state {
	struct rec *v;
	size_t n, cap;
	char *dir, *file;
	void *lock;
};

/* Open and lock the records (a missing file is no records). */
int state_open(struct state *st);
/* Write back and unlock; state_close without saving just unlocks. */
int state_save(struct state *st);
void state_close(struct state *st);
void state_add(struct state *st, const struct rec *r); /* copies */
void state_del(struct state *st, size_t i);
void rec_free(struct rec *r);
int state_parse(const char *text, size_t len, struct state *st);
char *state_format(const struct state *st);

/* --- acl.c ---------------------------------------------------------------------------- */

/* The {path, status} pairs of a --json answer: status[i] is path.v[i]'s (a literal). */
struct acl_results {
	struct strlist path;
	const char **status;
	size_t cap;
};

void results_add(struct acl_results *r, const char *path, const char *status);
void results_print(const struct acl_results *r, FILE *f);
void results_free(struct acl_results *r);

/* Apply plan for the holder (kind, pid), under the lock of st. Entries already there
 * from another holder are shared; denies on missing paths get placeholders. On a failed
 * Windows call what this call added is taken back and -1 returned; 1 when some inputs
 * were skipped (grants on missing paths). */
int acl_apply(struct state *st, const struct plan_windows *plan, const char *sid,
    enum rec_kind kind, unsigned long pid, uint64_t start, const char *root,
    const struct strlist *spare, struct acl_results *res);
/* Release every record that match() selects; an entry leaves the DACL with its last
 * holder, a placeholder with its last entry (if still empty). 1 if some could not be
 * released (they stay recorded). */
typedef int (*rec_match_fn)(const struct rec *, const void *);
int acl_release(struct state *st, rec_match_fn match, const void *arg, struct acl_results *res);
/* Release what dead holders left (RK_GRANT, RK_STAMP, RK_EXEC). Returns how many
 * holders were dead, *aces the entries removed. */
int acl_recover(struct state *st, size_t *aces);

int cmd_acl(int argc, char **argv);
/* The capability SID of a kept write root (acl grant --persistent, runner --write-root). */
char *root_capability(const char *root);

/* --- env.c ---------------------------------------------------------------------------- */

/* Whether NAME may be passed to a sandboxed command with --env: PATH, PATHEXT and the
 * proxy variables srt sets on every platform. */
int env_name_allowed(const char *name);
/* Set name=value in env, replacing a variable of the same name in any case; the proxy
 * variables take their one canonical spelling. */
void env_set(struct strlist *env, const char *name, const char *value);
const char *env_get(char *const *env, const char *name);
/* The environment of a sandboxed command: from base (the account's own), only the
 * variables Windows programs need to start, then the overlay ("NAME=value" each). */
void env_build(char *const *base, char *const *overlay, struct strlist *out);
/* The proxy variables for proxies on 127.0.0.1 at these ports (0: none). */
void env_proxies(struct strlist *overlay, int http_port, int socks_port);

/* --- cmdline.c ------------------------------------------------------------------------ */

/* A Windows command line split as the C runtime splits it (the reverse of
 * lib/compat/wincmdline.c's wincmdline_join), for tests and the fake. */
int cmdline_split(const char *cmdline, struct strlist *out);

/* --- install.c ------------------------------------------------------------------------ */

struct install_opts {
	const char *user;
	const char *sublayer;
	int port_lo, port_hi;
	int allow_loopback;
	int force;
	int dry_run;
	int keep_user;
	int elevated_step;
};

/* The filters for a sandbox account (its SID, or its name when it has none yet). */
size_t install_filters(
    const struct install_opts *o, const char *user_sid, struct wa_filter *f, size_t max);
char *install_dry_run_json(const struct install_opts *o);
int cmd_install(int argc, char **argv);
int cmd_uninstall(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_user(int argc, char **argv);
int cmd_wfp(int argc, char **argv);
int cmd_probe(int argc, char **argv);
/* The install record: the account, its password and the install's settings. */
struct install_record {
	char *user, *sid, *password, *sublayer;
	int port_lo, port_hi, allow_loopback, version;
};
int install_record_read(struct install_record *r); /* 1: not installed */
/* The record for cmd (in messages), which cannot run without one: SW_OK, or the exit
 * status with the error said (SW_ENOTPROVISIONED when srt-win is not installed). */
int install_record_need(const char *cmd, struct install_record *r);
void install_record_free(struct install_record *r);

/* --- exec.c, runner.c, profile.c, launch.c -------------------------------------------- */

int cmd_exec(int argc, char **argv);
int cmd_runner(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_launch(int argc, char **argv);

/* --- opts.c: a small option parser shared by the subcommands ------------------------ */

enum opt_type {
	OT_FLAG,
	OT_STR,
	OT_LIST
};

struct opt {
	const char *name; /* "--holder-pid" */
	enum opt_type type;
	void *dst; /* int *, const char **, struct strlist * */
};

/* Parse argv[0..argc) against opts; "--" ends the options and the rest (and any operand)
 * go to rest. -1 with a usage error printed. */
int opts_parse(const char *cmd, int argc, char **argv, const struct opt *opts,
    struct strlist *rest, int allow_operands);

int srtwin_main(int argc, char **argv);

#endif
