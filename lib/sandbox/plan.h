/*
 * Platform plans built from the settings. Linux: the whole bubblewrap command line but the
 * command: the filesystem arguments of BEHAVIOR §4.3 with the mandatory denies of §4.1
 * (SPEC §5: searched under every writable root; globs expanded in all four lists), then
 * the sandbox's own options and srt-seccomp (plan_linux_sandbox.c), so that `srt-policy
 * plan` prints what srt runs. macOS: the Seatbelt profile of BEHAVIOR §6, rule for rule
 * the reference's (plan_macos.c). Windows: the access control entries of §7.
 */
#ifndef SRT_PLAN_H
#define SRT_PLAN_H

#include <sys/types.h>

#include <stdbool.h>

#include "plan_ace.h"
#include "settings.h"
#include "util.h"
#include "wguard.h"

#define PLAN_SELF_DIRS 2
#define PLAN_REF_TMPDIR "/tmp/claude" /* the reference's TMPDIR */
/* tlsTerminate's trust bundle, in the run's TMPDIR (srt-launch/common/ca.c) */
#define PLAN_CA_BUNDLE_NAME "srt-ca-bundle.pem"
/* The same certificates as a PKCS#12 trust store, for Java (javax.net.ssl.trustStore). */
#define PLAN_CA_STORE_NAME "srt-ca-bundle.p12"

struct plan_ctx {
	const char *cwd;        /* relative entries resolve against this */
	const char *home;       /* "~" expands to this */
	const char *tmpdir;     /* the sandbox's private TMPDIR (writable), or NULL */
	const char *ref_tmpdir; /* the reference's TMPDIR (PLAN_REF_TMPDIR), writable when it
	                           exists (Linux plan), or NULL */
	const char
	    *settings_path; /* made read-only inside when it lies in a writable root, or NULL */
	const char *managed_path; /* the managed policy file (managed.h): protected as
	                           settings_path is, whether it exists or not, or NULL */
	/* srt's own programs, read-only inside: the launcher's directory and, when they
	 * differ (an installed srt: BINDIR and LIBEXECDIR), its helpers'. NULL when unused. */
	const char *self_dirs[PLAN_SELF_DIRS];
	const char *exec_path; /* PATH as the user's next commands (and srt) search it: its
	                           directories are protected, or NULL */
	/* Linux only: what the launcher decides at run time beside the paths above. */
	const char *seccomp_path; /* srt-seccomp, absolute: bound read-only at this path
	                           inside, and the first program bwrap runs */
	bool as_root;             /* the launch runs as root (effective uid 0) */
	bool unguarded;           /* no write guard for srt-seccomp (srt-launch --unguarded) */
	bool no_fs_violations;    /* no violation monitor (srt-launch --no-fs-violations; the
	                           setting noFsViolations and unguarded imply it) */
	int debug;                /* srt-seccomp -d, given this many times (at most 2) */
};

/*
 * The descriptors the launcher hands bwrap, by what they carry. The plan numbers them
 * (plan_linux.fd: 3, 4, ... in this order, one that is not handed over skipped) and
 * writes the numbers into the arguments; the launcher puts its descriptors there before
 * it executes bwrap, and gives bwrap the options through --args fd[PLAN_FD_ARGS].
 */
enum plan_fd {
	PLAN_FD_STATUS,   /* bwrap --json-status-fd: JSON lines, bwrap to the launcher */
	PLAN_FD_ARGS,     /* bwrap --args: the options, NUL-separated, from the launcher */
	PLAN_FD_LIFELINE, /* srt-seccomp --lifeline-fd: EOF once the launcher is gone */
	PLAN_FD_GUARD,    /* srt-seccomp --guard-fd: the sealed write guard (wguard.h);
	                           not with unguarded */
	PLAN_FD_VIOL,     /* srt-seccomp --violations-fd: the violation monitor's
	                           records (violation.h), srt-seccomp to the launcher; not
	                           with no_fs_violations */
	PLAN_FD_SECCOMP,  /* bwrap --ro-bind-fd: srt-seccomp's executable */
	PLAN_FD_MAX
};
#define PLAN_FD_FIRST 3 /* after standard input, output and error */

/*
 * The mounts protect what exists when the run starts; the write guard (wguard.h),
 * enforced by srt-seccomp's supervisor, protects by name for the run's whole length,
 * missing paths included: nothing is created on the host for them.
 */
struct plan_linux {
	struct strlist args;     /* bwrap's options, in order (through --args) */
	size_t fs_first, fs_end; /* args.v[fs_first..fs_end): the filesystem part */
	struct strlist exec;     /* the words after the options: "--", srt-seccomp
	                                   and its options, "--"; the command follows */
	int fd[PLAN_FD_MAX];     /* each descriptor's number in bwrap, or -1 */
	struct strlist writes;   /* the write roots bound writable */
	struct wguard guard;     /* the write guard, indexed */
};

/*
 * bwrap's command line is args (wherever bwrap reads them: srt sends them through
 * --args), then exec, then the command. plan_linux_build makes all of it; the launcher,
 * which starts bwrap before the options are ready, calls its two halves: begin, which
 * looks at nothing on the file system (the descriptors and exec), and finish (the
 * options). -1 with a message in errs, out freed; plan_linux_free is safe to repeat.
 */
int plan_linux_build(const struct settings *s, const struct plan_ctx *ctx,
    struct plan_linux *out, struct diags *errs);
int plan_linux_begin(const struct settings *s, const struct plan_ctx *ctx,
    struct plan_linux *out, struct diags *errs);
int plan_linux_finish(const struct settings *s, const struct plan_ctx *ctx,
    struct plan_linux *out, struct diags *errs);
void plan_linux_free(struct plan_linux *p);

/* The ports a profile shows when no proxy has been bound yet (srt-policy plan): those of
 * the proxies inside the Linux sandbox. */
#define PLAN_MACOS_HTTP_PORT 3128
#define PLAN_MACOS_SOCKS_PORT 1080

/* What the macOS profile needs beside the settings. */
struct plan_macos_opts {
	int http_port;       /* the loopback port of srt-httpd (network.httpProxyPort,
	                           when set, wins) */
	int socks_port;      /* the same for srt-socksd */
	const char *log_tag; /* the message of every deny, which `log stream` looks for:
	                           letters, digits, '_', '-', '.' */
};

/*
 * The Seatbelt profile text for sandbox-exec -p, in *profile (caller frees). ctx->tmpdir,
 * when set, is writable; ctx->settings_path is denied writes where a write root holds it.
 * Looks at the file system as the reference does (links, what exists), nothing more.
 * -1 with a message in errs for a cwd or home that is not absolute, a bad tag or port.
 */
int plan_macos_build(const struct settings *s, const struct plan_ctx *ctx,
    const struct plan_macos_opts *o, char **profile, struct diags *errs);

/*
 * Windows: the access control entries of BEHAVIOR §7 for the sandbox account, which
 * `srt-policy plan --target windows` prints one per line and srt-win applies.
 */
int plan_windows_build(const struct settings *s, const struct plan_ctx *ctx,
    struct plan_windows *out, struct diags *errs);
/* One entry as its JSON line, without the newline (plan_ace.h's format, which
 * plan_windows_read reads back):
 * {"ace":"allow","path":"/p","rights":["read","execute"],"inherit":"OICI"}.
 * NULL (errno EILSEQ) when the path is not UTF-8. Caller frees. */
char *plan_ace_json(const struct plan_ace *a);
/* The whole plan as `srt-policy plan --target windows` prints it and srt's Windows launch
 * hands srt-win: built, then one such line per entry, each ending in a newline, in *text
 * (caller frees). -1 with the reasons in errs (a path that is not UTF-8 among them). */
int plan_windows_text(
    const struct settings *s, const struct plan_ctx *ctx, char **text, struct diags *errs);


#endif
