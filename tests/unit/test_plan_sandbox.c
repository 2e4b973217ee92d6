/*
 * bubblewrap's command line around the filesystem plan (lib/sandbox/plan_linux_sandbox.c): the
 * session, namespace and capability options, /proc and /dev, srt-seccomp and its
 * options, and the descriptor numbers, for each setting and launch flag that changes
 * them. (test_plan.c checks the filesystem arguments between them.)
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plan.h"
#include "settings.h"
#include "tap.h"
#include "util.h"

#define SECCOMP "/opt/srt/libexec/srt-seccomp"

static char dir[] = "/tmp/test_plan_sandbox.XXXXXX";

static void
st_init(struct settings *s)
{
	settings_init_default(s);
}

static void
ctx_init(struct plan_ctx *c)
{
	memset(c, 0, sizeof(*c));
	c->cwd = dir;
	c->home = dir;
	c->seccomp_path = SECCOMP;
	c->as_root = true;
}

/* Words [from, to) of l joined by spaces; caller frees. */
static char *
words(const struct strlist *l, size_t from, size_t to)
{
	size_t i, n = 1;
	char *s;

	for (i = from; i < to && i < l->n; i++)
		n += strlen(l->v[i]) + 1;
	s = xmalloc(n);
	*s = '\0';
	for (i = from; i < to && i < l->n; i++) {
		if (i > from)
			strcat(s, " ");
		strcat(s, l->v[i]);
	}
	return s;
}

static int
same(char *got, const char *want)
{
	int eq = strcmp(got, want) == 0;

	if (!eq)
		printf("#  want: %s\n#   got: %s\n", want, got);
	free(got);
	return eq;
}

static const char *const head = "--new-session --die-with-parent --json-status-fd 3";

static const char *const tail_root =
    "--dev /dev --unshare-pid --unshare-ipc --as-pid-1 --unshare-user --cap-drop ALL "
    "--cap-add CAP_SYS_ADMIN --cap-add CAP_SETPCAP --proc /proc";

static int
build(const struct settings *s, const struct plan_ctx *c, struct plan_linux *p)
{
	struct diags errs = { 0 };
	int r = plan_linux_build(s, c, p, &errs);

	for (size_t i = 0; i < errs.msgs.n; i++)
		printf("# plan: %s\n", errs.msgs.v[i]);
	diags_free(&errs);
	return r;
}

static void
test_root(void)
{
	struct settings s;
	struct plan_ctx c;
	struct plan_linux p;

	st_init(&s);
	ctx_init(&c);
	ok(build(&s, &c, &p) == 0, "root: the plan builds");
	ok(same(words(&p.args, 0, p.fs_first), head), "the session first, then the status fd");
	ok(p.fs_first == 4 && p.fs_end > p.fs_first &&
		same(words(&p.args, p.fs_first, p.fs_first + 3), "--ro-bind / /"),
	    "then the filesystem arguments, from the root bind");
	ok(same(words(&p.args, p.fs_end, p.fs_end + 3), "--ro-bind-fd 8 " SECCOMP),
	    "srt-seccomp bound from its descriptor after the filesystem arguments");
	ok(same(words(&p.args, p.fs_end + 3, p.args.n), tail_root),
	    "root: /dev, the namespaces, two capabilities for srt-seccomp, a fresh /proc");
	ok(same(words(&p.exec, 0, p.exec.n),
	       "-- " SECCOMP
	       " --lifeline-fd 5 --guard-fd 6 --violations-fd 7 --pid1 --as srt --"),
	    "root: srt-seccomp is told it is PID 1");
	ok(p.fd[PLAN_FD_STATUS] == 3 && p.fd[PLAN_FD_ARGS] == 4 &&
		p.fd[PLAN_FD_LIFELINE] == 5 && p.fd[PLAN_FD_GUARD] == 6 &&
		p.fd[PLAN_FD_VIOL] == 7 && p.fd[PLAN_FD_SECCOMP] == 8,
	    "descriptors 3 to 8, in the table's order");
	plan_linux_free(&p);
	plan_linux_free(&p);
	ok(p.args.n == 0 && p.exec.n == 0 && p.fd[PLAN_FD_ARGS] == -1,
	    "a freed plan holds nothing, and may be freed again");
}

static void
test_user(void)
{
	struct settings s;
	struct plan_ctx c;
	struct plan_linux p;

	st_init(&s);
	ctx_init(&c);
	c.as_root = false;
	ok(build(&s, &c, &p) == 0, "user: the plan builds");
	ok(same(words(&p.args, p.fs_end + 3, p.args.n),
	       "--dev /dev --unshare-pid --unshare-ipc --as-pid-1 --unshare-user --cap-drop ALL "
	       "--proc /proc"),
	    "user: no capability is added");
	ok(same(words(&p.exec, 0, p.exec.n),
	       "-- " SECCOMP " --lifeline-fd 5 --guard-fd 6 --violations-fd 7 --as srt --"),
	    "user: srt-seccomp nests (no --pid1)");
	plan_linux_free(&p);
}

static void
test_settings(void)
{
	struct settings s;
	struct plan_ctx c;
	struct plan_linux p;

	st_init(&s);
	ctx_init(&c);
	s.weaker_nested_sandbox = true;
	ok(build(&s, &c, &p) == 0 &&
		same(
		    words(&p.args, p.args.n - 4, p.args.n), "CAP_SETPCAP --bind /proc /proc") &&
		same(words(&p.exec, 0, p.exec.n),
		    "-- " SECCOMP " --lifeline-fd 5 --guard-fd 6 "
		    "--violations-fd 7 --as srt --"),
	    "enableWeakerNestedSandbox: the host's /proc, writable; srt-seccomp nests, even "
	    "for root");
	plan_linux_free(&p);

	st_init(&s);
	s.net.allow_all_unix_sockets = true;
	s.allow_nested_userns = true;
	c.debug = true;
	ok(build(&s, &c, &p) == 0 &&
		same(words(&p.exec, 0, p.exec.n),
		    "-- " SECCOMP
		    " --lifeline-fd 5 --guard-fd 6 --violations-fd 7 --pid1 --allow-unix-sockets"
		    " --allow-nested-userns -d --as srt --"),
	    "allowAllUnixSockets, allowNestedUserNamespaces and -d: srt-seccomp's "
	    "options, in order");
	ok(same(words(&p.args, p.fs_end + 3, p.args.n), tail_root),
	    "they leave bwrap's options as they are");
	plan_linux_free(&p);

	st_init(&s);
	c.debug = false;
	s.fs.deny_read_hold = false;
	ok(build(&s, &c, &p) == 0 &&
		same(words(&p.exec, 0, p.exec.n),
		    "-- " SECCOMP
		    " --lifeline-fd 5 --guard-fd 6 --violations-fd 7 --pid1 --no-read-hold --as srt --"),
	    "denyReadHold false: srt-seccomp is told to hold no read deny");
	plan_linux_free(&p);

	st_init(&s);
	s.fs.disabled = true;
	c.debug = false;
	ok(build(&s, &c, &p) == 0 && same(words(&p.args, p.fs_first, p.fs_end), "--bind / /") &&
		same(words(&p.args, p.fs_end, p.fs_end + 3), "--ro-bind-fd 8 " SECCOMP),
	    "filesystem.disabled: everything writable, the rest of the command line kept");
	ok(same(words(&p.args, p.fs_end + 3, p.args.n), tail_root),
	    "filesystem.disabled: the same namespaces");
	plan_linux_free(&p);
}

static void
test_unguarded(void)
{
	struct settings s;
	struct plan_ctx c;
	struct plan_linux p;

	st_init(&s);
	ctx_init(&c);
	c.unguarded = true;
	ok(build(&s, &c, &p) == 0, "unguarded: the plan builds");
	ok(p.fd[PLAN_FD_GUARD] == -1 && p.fd[PLAN_FD_VIOL] == -1 &&
		p.fd[PLAN_FD_SECCOMP] == 6 && p.fd[PLAN_FD_LIFELINE] == 5,
	    "unguarded: no guard descriptor nor the monitor's, the next one moves up");
	ok(same(words(&p.args, p.fs_end, p.fs_end + 3), "--ro-bind-fd 6 " SECCOMP) &&
		same(words(&p.exec, 0, p.exec.n),
		    "-- " SECCOMP " --lifeline-fd 5 --pid1 --as srt --"),
	    "unguarded: no --guard-fd, and the arguments name the moved descriptor");
	plan_linux_free(&p);
}

/* --no-fs-violations, or noFsViolations: no monitor's descriptor, the guard's stays. */
static void
test_no_fs_violations(void)
{
	struct settings s;
	struct plan_ctx c;
	struct plan_linux p;
	int i;

	for (i = 0; i < 2; i++) {
		st_init(&s);
		ctx_init(&c);
		if (i == 0)
			c.no_fs_violations = true;
		else
			s.no_fs_violations = true;
		ok(build(&s, &c, &p) == 0 && p.fd[PLAN_FD_GUARD] == 6 &&
			p.fd[PLAN_FD_VIOL] == -1 && p.fd[PLAN_FD_SECCOMP] == 7 &&
			same(words(&p.args, p.fs_end, p.fs_end + 3),
			    "--ro-bind-fd 7 " SECCOMP) &&
			same(words(&p.exec, 0, p.exec.n),
			    "-- " SECCOMP " --lifeline-fd 5 --guard-fd 6 --pid1 --as srt --"),
		    "%s: no --violations-fd, srt-seccomp's descriptor moves up",
		    i == 0 ? "--no-fs-violations" : "noFsViolations");
		plan_linux_free(&p);
	}
}

static void
test_halves(void)
{
	struct settings s;
	struct plan_ctx c;
	struct plan_linux whole, p;
	struct diags errs = { 0 };
	char *a, *b;

	st_init(&s);
	ctx_init(&c);
	ok(build(&s, &c, &whole) == 0, "the whole plan builds");
	ok(plan_linux_begin(&s, &c, &p, &errs) == 0 && p.args.n == 0 &&
		same(words(&p.exec, 0, p.exec.n),
		    "-- " SECCOMP " --lifeline-fd 5 --guard-fd 6 "
		    "--violations-fd 7 --pid1 --as srt --") &&
		p.fd[PLAN_FD_ARGS] == 4,
	    "begin: the descriptors and the words after the options, no options yet");
	ok(plan_linux_finish(&s, &c, &p, &errs) == 0, "finish: the options");
	a = words(&whole.args, 0, whole.args.n);
	b = words(&p.args, 0, p.args.n);
	ok(strcmp(a, b) == 0 && whole.fs_first == p.fs_first && whole.fs_end == p.fs_end,
	    "begin then finish is plan_linux_build");
	free(a);
	free(b);
	plan_linux_free(&whole);
	plan_linux_free(&p);

	c.seccomp_path = "srt-seccomp";
	ok(plan_linux_begin(&s, &c, &p, &errs) == -1 && errs.msgs.n == 1 &&
		strstr(errs.msgs.v[0], "srt-seccomp") != NULL && p.exec.n == 0,
	    "a relative srt-seccomp path is refused");
	diags_free(&errs);
	c.seccomp_path = NULL;
	ok(build(&s, &c, &p) == -1, "no srt-seccomp path: no plan");

	c.seccomp_path = SECCOMP;
	c.cwd = "relative";
	ok(build(&s, &c, &p) == -1 && p.args.n == 0 && p.exec.n == 0,
	    "a filesystem failure leaves nothing of the plan");
	plan_linux_free(&p);
}

int
main(void)
{
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 2;
	}
	test_root();
	test_user();
	test_settings();
	test_unguarded();
	test_no_fs_violations();
	test_halves();
	rmdir(dir);
	return tap_done();
}
