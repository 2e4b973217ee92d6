/*
 * srt-launch (and srt, the same binary): runs one command in the Linux sandbox of SPEC §5.
 *
 * Process layout while a command runs:
 *
 *   srt-launch ─┬─ keeper      shares our memory (clone(2) CLONE_VM); blocked on its
 *               │              lifeline, it removes the run's temp dir and placeholders and
 *               │              kills what is left of the sandbox if we are killed (keeper.c)
 *               ├─ srt-httpd   host netns, accepts on 127.0.0.1:3128 and [::1]:3128 of the
 *               ├─ srt-socksd  sandbox's netns through the inherited sockets (or, with
 *               │              httpProxyPort/socksProxyPort, their --relay-to mode: a
 *               │              plain relay to the user's proxy)
 *               └─ bwrap       setns()'d into the sandbox's namespaces, then its own
 *                              user/pid/mount namespaces; srt-seccomp (as their pid 1,
 *                              --as-pid-1); in its own pid namespace, the command
 *
 * A short-lived child made the sandbox's network namespace (user+net namespaces when
 * unprivileged) and handed its listening sockets over before bwrap started (netns.c).
 *
 * The files, by the system they serve: linux/ (the above), macos/ (macos.h) and windows/
 * (winlaunch.h), and common/, what more than one of them compiles. A module's name below
 * is its file in one of them; srt-launch.c holds main alone.
 */
#ifndef SRT_LAUNCH_H
#define SRT_LAUNCH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "buf.h"
#include "cred.h"
#include "exit.h"
#include "plan.h"
#include "policy.h"
#include "settings.h"
#include "userns.h"
#include "util.h"

#define LAUNCH_FAIL EXIT_SELF /* srt itself failed (exit.h) */
#define LAUNCH_HTTP_PORT 3128 /* inside the sandbox */
#define LAUNCH_SOCKS_PORT 1080
#define CRED_FILES_MAX 64 /* masked credential files in one run */

enum listen_slot {
	LS_HTTP4,
	LS_HTTP6,
	LS_SOCKS4,
	LS_SOCKS6,
	LS_MAX
};

enum proxy_kind {
	PK_HTTP,
	PK_SOCKS,
	PK_MAX
};

/* The programs srt runs, opened at start and executed by descriptor (helpers.c). */
enum helper {
	H_BWRAP,
	H_SECCOMP,
	H_HTTPD,
	H_SOCKSD,
	H_MAX
};

struct violations;

/* Masked credentials (linux/cred.c). */
struct launch_cred {
	struct cred_store store;  /* what srt-httpd gets */
	struct strlist hidden;    /* variables credentials took over */
	struct strlist env;       /* NAME=value the command gets for them */
	struct strlist unset;     /* ... or none (onExtractNoMatch "deny") */
	int *file_fd;             /* masked copies (sealed memfds) */
	struct strlist file_path; /* bound over these */
	size_t nfiles;
	int w;       /* the pipe to srt-httpd's --cred-fd */
	int fd_base; /* bwrap's number for file_fd[0] */
};

/* tlsTerminate's CA (common/ca.c). */
struct launch_ca {
	char *pem;    /* the CA's certificate, or NULL: no termination */
	char *secret; /* certificate and key, for srt-httpd's --ca-fd */
	char *bundle; /* the sandbox's trust bundle, in the TMPDIR */
	char *store;  /* the same as Java's PKCS#12 trust store */
	char *java;   /* JAVA_TOOL_OPTIONS' properties naming it */
};

/* Live updates of the policy (linux/control.c). */
struct launch_control {
	int fd;         /* --control-fd N, or -1 (closed at its end) */
	struct buf buf; /* a line not complete yet */
	size_t lines;
	bool skip;         /* the rest of an over-long line is dropped */
	bool failed;       /* it failed before its first line: run ends */
	int proxy[PK_MAX]; /* our end of each proxy's --control-fd, or -1 */
};

/* The proxies (linux/proxies.c; macos/macos.c), and the external decider srt-httpd is
 * given (srt-httpd(8)). */
struct launch_proxies {
	int listen_fd[LS_MAX];      /* their listening sockets (linux/netns.c) */
	int lifeline_r, lifeline_w; /* proxies exit when lifeline_w is closed */
	int log_r, log_w;           /* the proxies' JSON decision lines */
	pid_t pid[PK_MAX];
	bool started[PK_MAX];
	/* tlsTerminate: the handoff channel (handoff.h), a SOCK_SEQPACKET socketpair over
	 * which srt-socksd gives srt-httpd the SOCKS CONNECTs to terminate; [PK_HTTP] is
	 * srt-httpd's end, [PK_SOCKS] srt-socksd's, each closed here once its proxy has
	 * it (or could not start); -1 */
	int handoff[PK_MAX];
	bool handoff_made;
	int decider_in, decider_out; /* -1 without one */
	bool ask;                    /* --ask */
	int decider_ready[2];        /* srt-httpd's --decider-ready-fd pipe, or -1 */
};

/* The Linux sandbox: its namespaces (linux/netns.c), the keeper (linux/keeper.c), bwrap
 * and what goes to srt-seccomp through it (linux/bwrap.c). */
struct launch_sandbox {
	int netns_fd;
	int userns_fd; /* -1 as root */
	pid_t keeper_pid;
	int keeper_lifeline;    /* write end; the keeper cleans up at its EOF */
	struct plan_linux plan; /* bwrap's command line but the command, and the
	                                   numbers of its descriptors */
	bool plan_built;
	int guard_fd;     /* the write guard: a memfd sealed once written */
	int viol_r;       /* srt-seccomp's violation records, or -1 */
	int viol_w;       /* its end, for bwrap (--violations-fd) */
	int bwrap_args_w; /* bwrap waits for its options on this pipe */
	pid_t bwrap_pid;
	int status_r;               /* bwrap --json-status-fd */
	int lifeline_w;             /* held until this process ends: srt-seccomp
	                                   sees EOF on the other end however we end */
	int lifeline_r;             /* for bwrap (srt-seccomp --lifeline-fd) */
	unsigned long lifeline_ino; /* the pipe's inode: the keeper kills what
	                                   still holds it once we are gone */
	pid_t init;                 /* host pid of the sandbox's pid 1, 0 until known */
	bool command_ran;           /* bwrap reported an exit code: setup had finished,
	                                   and the sandbox's PID namespace is gone */
	int stop_signal;            /* a signal came before the sandbox took signals:
	                                   it ended the run, which exits 128 + it */
	bool bwrap_reaped;          /* bwrap's exit was collected: with its PID
	                                   namespace, nothing of the sandbox is left */
	int command_exit;
};

/* One run: the command line, the policy, srt's paths and the typed parts above. */
struct launch {
	/* command line */
	bool srt_mode;              /* invoked as "srt" */
	int debug;                  /* -d given this many times: 2 adds the detail */
	const char *settings_arg;   /* -s */
	const char *policy_arg;     /* -p */
	const char *violations_arg; /* --violations */
	const char *cstring;        /* -c */
	char **cmd;                 /* CMD ARGS, NULL-terminated (NULL with -c) */
	char *shell;                /* what runs -c: bash, or /bin/sh without one */
	bool unguarded;             /* --unguarded: no write guard (benchmarks) */
	bool no_fs_violations;      /* --no-fs-violations, noFsViolations: no monitor */

	/* policy */
	struct settings set;
	struct policy *pol;
	char *config_path; /* the file the policy came from, or NULL (defaults) */

	/* paths */
	char *self_dir;            /* this executable's directory */
	char *helper_dir;          /* where srt-httpd, srt-socksd, srt-seccomp live
	                                   (layout_helpers_dir) */
	int helper_fd[H_MAX];      /* O_PATH, opened once (helpers.c) */
	char *helper_path[H_MAX];  /* for messages, and srt-seccomp's place inside */
	bool helper_script[H_MAX]; /* starts with "#!": run by name (helpers_exec) */
	char *cwd;
	char *home;
	char *tmpdir;  /* the run's private TMPDIR (its name is chosen
	                                   before the keeper starts) */
	bool tmp_made; /* we made it (keeper_tmp_make) */

	struct violations *viol;
	struct launch_control control;
	struct launch_proxies proxy;
	struct launch_sandbox sandbox;
	struct launch_cred cred;
	struct launch_ca ca;
};

/*
 * What some system calls take and give, for code that calls them directly: the keeper,
 * which may not touch errno while we run (keeper.c), and tmp_remove, which allocates
 * nothing (spawn.c); glibc's sigaction() also refuses two signals (spawn_child_reset).
 */
struct kernel_dirent64 { /* a getdents64(2) record */
	unsigned long long ino;
	long long off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

struct kernel_sigaction { /* rt_sigaction(2)'s; the mask is 64 bits */
	void (*handler)(int);
	unsigned long flags;
	void (*restorer)(void);
	unsigned long mask;
};

/* cli.c: the command line and the policy, for every build (Windows: winmain.c) */
void launch_init(struct launch *l, const char *argv0);
/* The options; a usage error exits (LAUNCH_FAIL), as -h and -V exit 0. */
void launch_parse_args(struct launch *l, int argc, char **argv);
/* l->pol, l->set and l->config_path from -p, -s or the default settings file, for
 * l->cwd (set first); -1 with the messages logged. */
int launch_load_policy(struct launch *l);
char *launch_command_text(const struct launch *l);

/* The system's launcher, after the command line: the run, to the end; its exit status
 * (linux/run.c, macos/macos_apple.c). */
int launch_run(struct launch *l);

/* netns.c */
int netns_create(struct launch *l);

/* keeper.c */
int keeper_start(struct launch *l);
int keeper_tmp_make(struct launch *l);
void keeper_release(struct launch *l, bool done);

/* proxies.c */
int proxies_start(struct launch *l, enum proxy_kind k);
void proxies_stop(struct launch *l, int timeout_ms);

/* proxypipes.c (Linux and macOS): the proxies' lifeline and decision log, made and at
 * the end read out; the launcher's monotonic clock */
int proxypipes_open(struct launch *l);
void proxypipes_finish(struct launch *l, const char *const prog[PK_MAX], long deadline);
long launch_now_ms(void);

/* control.c */
int control_open(struct launch *l);
void control_read(struct launch *l);

/* proxycli.c: srt proxy ARGS (argv[0] is "proxy") */
int proxycli_main(int argc, char **argv);

/* helpers.c */
int helpers_open(struct launch *l);
void helpers_close(struct launch *l);
int helpers_exec(
    const struct launch *l, enum helper h, int fd, char *const argv[], char *const envp[]);

/* bwrap.c: bwrap_start once the plan is begun, bwrap_send_* once it is finished */
int bwrap_start(struct launch *l, char **envp);
int bwrap_send_guard(struct launch *l);
int bwrap_send_args(struct launch *l);
void bwrap_abort(struct launch *l);
void bwrap_status_read(struct launch *l);
pid_t bwrap_initial_pid(const struct launch *l);
bool bwrap_sandbox_ready(const struct launch *l);

/* env.c */
char **env_build(const struct launch *l);
void env_free(char **envp);
const char *env_ssh_proxy_tool(void);
/* For the macOS environment (macos.c): whether KEY=VALUE is a variable the launcher sets
 * (or GIT_CONFIG_COUNT, with git_count); git.safeDirectories as GIT_CONFIG_*. */
int env_is_owned(const char *kv, bool git_count);
/* credentials.envVars denied: KEY=VALUE not passed on; a variable as inherited, or NULL. */
int env_is_denied(const struct settings *s, const char *kv);
const char *env_inherited(const struct settings *s, const char *name);
void env_add_git(struct strlist *e, const struct settings *s, const char *inherited_count);
/* Linux and macOS: SANDBOX_RUNTIME, TMPDIR, NO_PROXY and the proxy variables for the
 * listeners on localhost; JAVA_TOOL_OPTIONS (direct: Java's nonProxyHosts). */
void env_add_sandbox(
    struct strlist *e, const char *tmpdir, const char *no_proxy, int http_port, int socks_port);
void env_add_java(struct strlist *e, const char *java, int http_port, int socks_port,
    const char *direct, const char *extra);
/* NAME=... is a variable masked credentials took over (l->cred.hidden). */
bool env_cred_owned(const struct launch *l, const char *entry);

/* spawn.c: helpers shared by every child we start */
void spawn_signals_init(void);
void spawn_child_reset(void);
/* ca.c: tlsTerminate's CA (made or read and checked) and the sandbox's trust bundle. */
int ca_setup(struct launch *l);
int ca_write_bundle(const struct launch *l);
void ca_env(const struct launch *l, struct strlist *e);
/* The JVM's trust-store properties for JAVA_TOOL_OPTIONS (" -D..."), or "". */
const char *ca_java_options(const struct launch *l);
int ca_env_owned(const struct launch *l, const char *kv);
void ca_free(struct launch *l);

void spawn_arrange_fds(const int *fds, size_t n, int errfd, int *execfd);
void spawn_report_errno(int errfd);
int spawn_wait_exec(int errfd_r, int *err);
int tmp_choose(char **out);
void tmp_remove(const char *dir, bool quiet);
const char *lookup_path(const char *prog, char *buf, size_t len);
char *lookup_bash(void);

/* tty.c: the caller's terminal modes and the flags of 0, 1, 2, restored at exit; 0, 1
 * and 2 open (on /dev/null if they were closed) */
void tty_std_open(void);
void tty_save(void);
void tty_restore(void);

/* violations.c */
struct violations *violations_new(
    const struct settings *s, const char *command, const char *file);
void violations_feed(struct violations *v, const char *buf, size_t len);
/* The sandbox's own records (srt-seccomp --violations-fd, lib/core/violation.h). */
void violations_feed_sandbox(struct violations *v, const char *buf, size_t len);
/* A violation that did not come from the proxies (macOS: the sandbox's log). */
void violations_add(struct violations *v, const char *line);
void violations_finish(struct violations *v, bool print_block);
void violations_free(struct violations *v);
/* Sanitise a violation line for display (BEHAVIOR §5); caller frees. */
char *violations_sanitise(const char *s);

/* cred.c */
int cred_prepare(struct launch *l);
void cred_files_settle(struct launch *l);
char **cred_proxy_environ(const struct launch *l);
int cred_send(struct launch *l, int fd);
void cred_free(struct launch *l);

#endif
