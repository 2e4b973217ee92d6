/*
 * bubblewrap's command line around the filesystem arguments (SPEC §5.4, BEHAVIOR §4.2):
 * the session, the namespaces and capabilities, the kernel's own file systems, srt-seccomp
 * bound in and run as the first program, and the numbers of the descriptors the launcher
 * hands bwrap. With plan_linux.c's arguments this is the whole command line but the
 * command, so `srt-policy plan --target linux` prints what srt runs; the launcher
 * (srt-launch/linux/bwrap.c) only arranges the descriptors and sends the words.
 *
 *   --new-session --die-with-parent --json-status-fd STATUS
 *   the filesystem arguments (plan_linux.c)
 *   --ro-bind-fd SECCOMP srt-seccomp --dev /dev
 *   --unshare-pid --unshare-ipc --as-pid-1 --unshare-user --cap-drop ALL [--cap-add ...]
 *   --proc /proc (or --bind /proc /proc)
 *   -- srt-seccomp --lifeline-fd LIFELINE [--guard-fd GUARD] [its options] --
 */
#include <string.h>

#include "path.h"
#include "plan.h"
#include "plan_linux_int.h"
#include "util.h"
#include "wguard.h"

/*
 * Run by root with a fresh /proc, bwrap makes srt-seccomp (--as-pid-1) PID 1 of a new
 * PID namespace and mounts that namespace's /proc with its system files read-only:
 * what srt-seccomp's nested PID and mount namespaces would give again, at the price
 * of one more process. srt-seccomp is told so with --pid1, checks it and makes the
 * system files of /proc read-only itself (bwrap leaves them as they are). Run by
 * another user, srt-seccomp still nests, for the user namespace whose
 * user.max_user_namespaces it can set to 0; with the host's /proc
 * (enableWeakerNestedSandbox) it nests for a /proc of its own.
 */
static bool
seccomp_is_pid1(const struct settings *s, const struct plan_ctx *ctx)
{
	return ctx->as_root && !s->weaker_nested_sandbox;
}

static void
number_fds(const struct settings *s, const struct plan_ctx *ctx, struct plan_linux *out)
{
	int k, next = PLAN_FD_FIRST;

	for (k = 0; k < PLAN_FD_MAX; k++)
		out->fd[k] = (k == PLAN_FD_GUARD && ctx->unguarded) ||
			(k == PLAN_FD_VIOL &&
			    (ctx->unguarded || ctx->no_fs_violations || s->no_fs_violations))
		    ? -1
		    : next++;
}

/* The words after the options: srt-seccomp, by its path inside, and its options. */
static void
seccomp_argv(const struct settings *s, const struct plan_ctx *ctx, struct plan_linux *out)
{
	struct strlist *e = &out->exec;
	int k;

	strlist_push(e, "--");
	strlist_push(e, ctx->seccomp_path);
	strlist_push(e, "--lifeline-fd");
	strlist_pushf(e, "%d", out->fd[PLAN_FD_LIFELINE]);
	if (out->fd[PLAN_FD_GUARD] != -1) {
		strlist_push(e, "--guard-fd");
		strlist_pushf(e, "%d", out->fd[PLAN_FD_GUARD]);
	}
	if (out->fd[PLAN_FD_VIOL] != -1) {
		strlist_push(e, "--violations-fd");
		strlist_pushf(e, "%d", out->fd[PLAN_FD_VIOL]);
	}
	if (seccomp_is_pid1(s, ctx))
		strlist_push(e, "--pid1");
	/* allowAllUnixSockets keeps every other rule, the reaper and the lifeline. */
	if (s->net.allow_all_unix_sockets)
		strlist_push(e, "--allow-unix-sockets");
	if (s->allow_nested_userns)
		strlist_push(e, "--allow-nested-userns");
	/* Only when turned off: the default plan has no word for the hold. */
	if (!s->fs.deny_read_hold)
		strlist_push(e, "--no-read-hold");
	for (k = 0; k < ctx->debug && k < 2; k++)
		strlist_push(e, "-d");
	/* Its errors about the command, and its refusals, speak as the suite the user ran
	 * (srt and srt-launch are one program), not as a helper. */
	strlist_push(e, "--as");
	strlist_push(e, "srt");
	strlist_push(e, "--");
}

int
plan_linux_begin(const struct settings *s, const struct plan_ctx *ctx, struct plan_linux *out,
    struct diags *errs)
{
	memset(out, 0, sizeof(*out));
	wguard_init(&out->guard);
	number_fds(s, ctx, out);
	if (ctx->seccomp_path == NULL || *ctx->seccomp_path != '/') {
		diags_add(errs, "plan: srt-seccomp's path must be absolute");
		plan_linux_free(out);
		return -1;
	}
	seccomp_argv(s, ctx, out);
	return 0;
}

static void
sandbox_head(struct plan_linux *out)
{
	struct strlist *o = &out->args;

	strlist_push(o, "--new-session");
	strlist_push(o, "--die-with-parent");
	strlist_push(o, "--json-status-fd");
	strlist_pushf(o, "%d", out->fd[PLAN_FD_STATUS]);
}

static void
sandbox_tail(const struct settings *s, const struct plan_ctx *ctx, struct plan_linux *out)
{
	struct strlist *o = &out->args;

	/* tlsTerminate's trust bundle and Java's trust store, which the launcher writes
	 * in the run's TMPDIR (srt-launch/common/ca.c): readable, never writable. */
	if (s->net.tls.present && ctx->tmpdir != NULL) {
		strlist_push(o, "--ro-bind");
		strlist_pushf(o, "%s/%s", ctx->tmpdir, PLAN_CA_BUNDLE_NAME);
		strlist_pushf(o, "%s/%s", ctx->tmpdir, PLAN_CA_BUNDLE_NAME);
		strlist_push(o, "--ro-bind");
		strlist_pushf(o, "%s/%s", ctx->tmpdir, PLAN_CA_STORE_NAME);
		strlist_pushf(o, "%s/%s", ctx->tmpdir, PLAN_CA_STORE_NAME);
	}
	/* srt-seccomp must stay reachable even under a read-denied directory: bound
	 * last, over whatever the filesystem arguments put there, from the file the
	 * launcher opened at start. */
	strlist_push(o, "--ro-bind-fd");
	strlist_pushf(o, "%d", out->fd[PLAN_FD_SECCOMP]);
	strlist_push(o, ctx->seccomp_path);
	strlist_push(o, "--dev");
	strlist_push(o, "/dev");
	strlist_push(o, "--unshare-pid");
	/* The reference shares the host's IPC namespace; that lets the command read and
	 * write the host's System V shared memory, semaphores and message queues. */
	strlist_push(o, "--unshare-ipc");
	/*
	 * srt-seccomp is a PID 1 already (it reaps, forwards signals and relays the
	 * status) and runs the command in a PID namespace of its own, so nothing can be
	 * orphaned into bwrap's: bwrap's reaper would be one more process (and, on hosts
	 * where address spaces are costly, one more fork) with nothing to do.
	 */
	strlist_push(o, "--as-pid-1");
	strlist_push(o, "--unshare-user");
	strlist_push(o, "--cap-drop");
	strlist_push(o, "ALL");
	/*
	 * As root, bwrap covers parts of its /proc, and in a user namespace of its own
	 * srt-seccomp would find those covers locked and could not mount the fresh /proc
	 * of its pid namespace. So it gets CAP_SYS_ADMIN (for its pid and mount
	 * namespaces, or with --pid1 for making /proc's system files read-only) and
	 * CAP_SETPCAP (to empty the bounding set) in bwrap's user namespace instead, and
	 * drops every capability before the command runs.
	 */
	if (ctx->as_root) {
		strlist_push(o, "--cap-add");
		strlist_push(o, "CAP_SYS_ADMIN");
		strlist_push(o, "--cap-add");
		strlist_push(o, "CAP_SETPCAP");
	}
	if (s->weaker_nested_sandbox) {
		/* Nested in a container that refuses a fresh procfs: the host's /proc,
		 * writable so that srt-seccomp can write its uid and gid maps. Weaker:
		 * the command sees every process of the host's pid namespace. */
		strlist_push(o, "--bind");
		strlist_push(o, "/proc");
		strlist_push(o, "/proc");
	} else {
		strlist_push(o, "--proc");
		strlist_push(o, "/proc");
	}
}

int
plan_linux_finish(const struct settings *s, const struct plan_ctx *ctx, struct plan_linux *out,
    struct diags *errs)
{
	sandbox_head(out);
	out->fs_first = out->args.n;
	if (plan_linux_fs(s, ctx, out, errs) == -1) {
		plan_linux_free(out);
		return -1;
	}
	out->fs_end = out->args.n;
	sandbox_tail(s, ctx, out);
	return 0;
}

int
plan_linux_build(const struct settings *s, const struct plan_ctx *ctx, struct plan_linux *out,
    struct diags *errs)
{
	if (plan_linux_begin(s, ctx, out, errs) == -1)
		return -1;
	return plan_linux_finish(s, ctx, out, errs);
}

void
plan_linux_free(struct plan_linux *p)
{
	int k;

	if (p == NULL)
		return;
	strlist_free(&p->args);
	strlist_free(&p->exec);
	strlist_free(&p->writes);
	wguard_free(&p->guard);
	memset(p, 0, sizeof(*p));
	for (k = 0; k < PLAN_FD_MAX; k++)
		p->fd[k] = -1;
}
