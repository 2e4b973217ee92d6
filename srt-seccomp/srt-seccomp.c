/*
 * srt-seccomp: run a command in new PID and mount namespaces, under a PID 1 that
 * reaps and forwards signals, with no capabilities, NO_NEW_PRIVS and a seccomp
 * filter closing what the sandbox's mount and network namespaces leave open.
 *
 * Three processes:
 *   parent  unshares, forks PID 1, forwards signals to it, relays its status;
 *   PID 1   mounts /proc, drops everything, vforks the worker, reaps, relays;
 *   worker  sets NO_NEW_PRIVS, restricts itself with the read denies' Landlock ruleset
 *           (readlock.c), installs the filter, execs the command.
 * With --pid1 (srt-launch uses it when bwrap, run by root, has already made it PID 1
 * of a fresh PID namespace with that namespace's /proc) there is no parent and no
 * nesting: this process is PID 1 and vforks the worker itself, after checking that
 * what the nested namespaces would have given is really there.
 *
 * The worker stays in the caller's session. Where that session has a controlling
 * terminal (srt-seccomp run by hand), it stays in the caller's process group too, the
 * terminal's foreground one, so the terminal keeps working and its ^C reaches it.
 * Otherwise (srt-launch runs bwrap with --new-session, which detaches the sandbox from
 * the user's terminal) it leads a process group of its own, and PID 1 sends the group
 * the SIGINT and SIGQUIT it is given, as a terminal sends ^C to its foreground job.
 * TIOCSTI and TIOCLINUX are refused by the filter in any case.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "util.h"
#include "srt-seccomp.h"

#ifndef SRT_VERSION
#define SRT_VERSION "0.1.0"
#endif

#if defined(__SANITIZE_ADDRESS__)
/*
 * LeakSanitizer checks at exit by attaching to the process like a debugger, which a
 * non-dumpable process refuses (and it then fails with status 1). Sanitizer builds
 * keep every memory-error check and skip the leak check.
 */
const char *__lsan_default_options(void);
const char *
__lsan_default_options(void)
{
	return "detect_leaks=0";
}
#endif

static const struct option longopts[] = {
	{ "allow-unix-sockets", no_argument, NULL, 'U' },
	{ "allow-nested-userns", no_argument, NULL, 'N' },
	{ "no-read-hold", no_argument, NULL, 'H' },
	{ "emit-bpf", required_argument, NULL, 'E' },
	{ "pid1", no_argument, NULL, 'P' },
	{ "lifeline-fd", required_argument, NULL, 'L' },
	{ "guard-fd", required_argument, NULL, 'G' },
	{ "with-guard", no_argument, NULL, 'W' },
	{ "violations-fd", required_argument, NULL, 'v' },
	{ "with-monitor", no_argument, NULL, 'M' },
	{ "as", required_argument, NULL, 'A' },
	{ "debug", no_argument, NULL, 'd' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static void
usage(FILE *f)
{
	fprintf(f,
	    "usage: srt-seccomp [-dhV] [--allow-unix-sockets] "
	    "[--allow-nested-userns] [--no-read-hold]\n"
	    "                   [--pid1] [--lifeline-fd FD] [--guard-fd FD] [--violations-fd FD]\n"
	    "                   [--as NAME] [--emit-bpf FILE [--with-guard] [--with-monitor]]\n"
	    "                   [--] CMD [ARGS...]\n");
}

/* --as: the program the user ran (srt, srt-launch), which speaks for the errors about
 * the command itself; NULL run alone. */
static const char *as_name;

/* A word that a shell would read as more than a command's name: the user most likely
 * meant it as a command line (srt 'a | b'), which needs -c. */
static bool
looks_like_shell(const char *word)
{
	return strpbrk(word, " \t|&;<>()$`'\"*?") != NULL;
}

/*
 * The command could not be executed: as a shell says it, under the user's program's
 * name when there is one. No allocation (the worker shares PID 1's heap): a buffer on
 * the worker's stack, one write.
 */
static void
worker_exec_failed(char **argv, int err)
{
	char buf[1024];
	int n;

	if (as_name == NULL) {
		errno = err;
		log_warn("%s", argv[0]);
		return;
	}
	if (err == ENOENT)
		n = snprintf(buf, sizeof(buf), "%s: %s: command not found%s\n", as_name,
		    argv[0],
		    argv[1] == NULL && looks_like_shell(argv[0])
			? " (a shell command line is run with -c STRING)"
			: "");
	else
		n = snprintf(buf, sizeof(buf), "%s: %s: %s\n", as_name, argv[0], strerror(err));
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(buf)) {
		n = sizeof(buf);
		buf[n - 1] = '\n';
	}
	(void)!write(STDERR_FILENO, buf, (size_t)n);
}

/* What PID 1 hands the worker, and what the worker leaves for PID 1 (shared memory). */
struct worker {
	const struct sock_fprog *prog;
	const sigset_t *saved;
	char **argv;
	bool guard;    /* install the filter with a listener */
	int listener;  /* set by the worker: its number in the shared table */
	int own_group; /* no terminal: the command leads a process group of its own */
	int ruleset;   /* the read denies' Landlock ruleset, or -1 */
};

/*
 * The worker: nothing runs after this without NO_NEW_PRIVS and the filter.
 *
 * It runs in PID 1's memory (CLONE_VM, on a stack of its own) while PID 1 is suspended
 * (CLONE_VFORK): the signal mask, NO_NEW_PRIVS and the seccomp filter all belong to the
 * calling task, not to the address space, so they are the worker's alone and reach the
 * command through execve. Hence only worker_exit() here, never exit() (PID 1's stdio and
 * atexit state are shared), and no allocation. Copying PID 1's address space with
 * fork() costs more than everything else this stage does on hosts where page tables
 * are expensive (virtual machines without nested paging). The descriptor table is
 * shared too (CLONE_FILES): the filter's listener, made here, is then PID 1's as well,
 * and execve gives the command a copy of the table without it (close-on-exec).
 */
/*
 * The worker's end when it cannot run the command: the system call itself. _exit() is
 * declared noreturn, and a sanitizer build prepares for a noreturn call by cleaning the
 * stack it believes is current: not this one (the worker runs on a stack of its own),
 * which it reports as a warning on the command's standard error.
 */
static void
worker_exit(int status)
{
	syscall(SYS_exit_group, status);
}

static int
worker_main(void *arg)
{
	struct worker *w = arg;
	int saved_errno;

	if (w->own_group && setpgid(0, 0) == -1) {
		log_warn("setpgid");
		worker_exit(EXIT_SELF);
	}
	if (sigprocmask(SIG_SETMASK, w->saved, NULL) == -1) {
		log_warn("sigprocmask");
		worker_exit(EXIT_SELF);
	}
	/* A core dump is a file the kernel writes in the crashing process's directory,
	 * past the write guard (a protected directory, or a disk filled): none, and no
	 * way back (raising a hard limit takes a capability the sandbox does not have). */
	if (w->guard && setrlimit(RLIMIT_CORE, &(struct rlimit){ 0, 0 }) == -1) {
		log_warn("setrlimit RLIMIT_CORE");
		worker_exit(EXIT_SELF);
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1) {
		log_warn("prctl PR_SET_NO_NEW_PRIVS");
		worker_exit(EXIT_SELF);
	}
	if (readlock_restrict(w->ruleset) == -1)
		worker_exit(EXIT_SELF);
	if (filter_install(w->prog, w->guard ? &w->listener : NULL) == -1)
		worker_exit(EXIT_SELF);
	execvp(w->argv[0], w->argv);
	saved_errno = errno;
	worker_exec_failed(w->argv, saved_errno);
	worker_exit(saved_errno == ENOENT ? EXIT_NOTFOUND : EXIT_NOEXEC);
	return 0;
}

static _Alignas(64) char worker_stack[64 * 1024];

/* Is one of 0, 1, 2 our controlling terminal? tcgetpgrp() answers only on that one. */
static int
pid1_has_ctty(void)
{
	int fd;

	for (fd = STDIN_FILENO; fd <= STDERR_FILENO; fd++)
		if (tcgetpgrp(fd) != -1)
			return 1;
	return 0;
}

/*
 * PID 1's last part, nested or not: start the worker, then reap until it ends and
 * return the status to exit with, serving the write guard's supervisor meanwhile.
 * PID 1 resumes once the worker has executed the command (or died trying).
 */
static int
pid1_run_worker(
    const struct sock_fprog *prog, const sigset_t *saved, char **argv, struct sup *sup)
{
	struct worker w = { prog, saved, argv, sup != NULL, -1, !pid1_has_ctty(), -1 };
	struct sock_fprog reads = { 0 };
	pid_t worker;
	int status;

	if (sup != NULL && sup_start(sup) == -1)
		return EXIT_SELF;
	w.ruleset = sup_ruleset(sup);
	if (sup_supervises_reads(sup)) {
		if (filter_read_prefix(prog, &reads) == -1)
			return EXIT_SELF;
		w.prog = &reads;
	}

	worker = clone(worker_main, worker_stack + sizeof(worker_stack),
	    CLONE_VM | CLONE_VFORK | CLONE_FILES | SIGCHLD, &w);
	if (worker == -1)
		fatal("clone");
	filter_free(&reads); /* the worker has installed it, or failed: CLONE_VFORK */
	if (sup != NULL) {
		if (w.listener == -1)
			/* The worker failed before its filter: it said why and exits. */
			return reaper_wait(worker, 0, NULL);
		sup_set_listener(sup, w.listener);
	}
	/* Only the command should hold the terminal and the pipes it was given. */
	close(STDIN_FILENO);
	close(STDOUT_FILENO);
	status = reaper_wait(worker, w.own_group ? worker : 0, sup);
	sup_finish(sup);
	return status;
}

/*
 * PID 1. It dies with the parent (PDEATHSIG, and the lifeline pipe for a parent
 * that died before the prctl); the parent outlives the launcher until PID 1 is done
 * (reaper_relay_lifeline). Non-dumpable and without capabilities, the command
 * can neither ptrace it nor borrow its privileges; when it exits, the kernel kills
 * whatever the command left behind in the namespace.
 */
static noreturn void
pid1_main(const struct sock_fprog *prog, const sigset_t *saved, char **argv, int lifeline,
    int ready, int own_userns, int allow_userns, struct sup *sup)
{
	struct pollfd pfd;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
		fatal("prctl PR_SET_PDEATHSIG");
	pfd.fd = lifeline;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 0) != 0)
		_exit(EXIT_SELF);
	close(lifeline);
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == -1)
		fatal("prctl PR_SET_DUMPABLE");
	if (ns_setup_proc(own_userns, allow_userns) == -1)
		exit(EXIT_SELF);
	if (sup != NULL && sup_place(sup) == -1)
		exit(EXIT_SELF);
	if (caps_clear() == -1)
		exit(EXIT_SELF);
	/* Tell the parent that setup worked: only then does it drop its own capabilities. */
	if (write(ready, "", 1) != 1)
		fatal("write ready");
	close(ready);
	/* _exit: nothing is buffered here, and running the exit handlers would only copy
	 * more of the parent's pages into this process. */
	_exit(pid1_run_worker(prog, saved, argv, sup));
}

/*
 * --pid1: already PID 1 of a PID namespace of our own, under a /proc of that
 * namespace (bwrap --unshare-pid --as-pid-1 --proc), in a mount namespace that is
 * the sandbox's alone. Both promises are checked, never assumed: a wrong one stops
 * everything. /proc's system files are then made read-only as in the nested case.
 */
static int
run_already_pid1(
    const struct sock_fprog *prog, const struct seccomp_opts *o, char **argv, struct sup *sup)
{
	sigset_t saved;
	char self[16];
	ssize_t n;

	if (getpid() != 1) {
		log_warnx("--pid1: this process is PID %ld, not PID 1 of its namespace",
		    (long)getpid());
		return EXIT_SELF;
	}
	if ((n = readlink("/proc/self", self, sizeof(self) - 1)) == -1) {
		log_warn("--pid1: readlink /proc/self");
		return EXIT_SELF;
	}
	self[n] = '\0';
	if (strcmp(self, "1") != 0) {
		log_warnx(
		    "--pid1: /proc belongs to another PID namespace (/proc/self is %s)", self);
		return EXIT_SELF;
	}
	if (ns_cover_proc() == -1)
		return EXIT_SELF;
	if (sup != NULL && sup_place(sup) == -1)
		return EXIT_SELF;
	if (reaper_block(&saved) == -1)
		return EXIT_SELF;
	if (o->lifeline_fd != -1 && reaper_arm_lifeline(o->lifeline_fd) == -1)
		return EXIT_SELF;
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == -1) {
		log_warn("prctl PR_SET_DUMPABLE");
		return EXIT_SELF;
	}
	if (caps_clear() == -1)
		return EXIT_SELF;
	log_debug("PID 1 already, with its own /proc: no nested namespaces");
	return pid1_run_worker(prog, &saved, argv, sup);
}

static int
run(const struct sock_fprog *prog, const struct seccomp_opts *o, char **argv, struct sup *sup)
{
	sigset_t saved;
	int lifeline[2], ready[2], own_userns;
	ssize_t n;
	char c;
	pid_t pid1;

	if (reaper_block(&saved) == -1)
		return EXIT_SELF;
	if (o->lifeline_fd != -1 && reaper_arm_lifeline(o->lifeline_fd) == -1)
		return EXIT_SELF;
	if (ns_enter(&own_userns) == -1)
		return EXIT_SELF;
	log_debug("namespaces ready (own user namespace: %s)", own_userns ? "yes" : "no");
	if (pipe2(lifeline, O_CLOEXEC) == -1 || pipe2(ready, O_CLOEXEC) == -1)
		fatal("pipe2");
	if ((pid1 = fork()) == -1)
		fatal("fork");
	if (pid1 == 0) {
		close(lifeline[1]);
		close(ready[0]);
		pid1_main(prog, &saved, argv, lifeline[0], ready[1], own_userns,
		    o->allow_userns, sup);
	}
	close(lifeline[0]);
	close(ready[1]);
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == -1) {
		log_warn("prctl PR_SET_DUMPABLE");
		return EXIT_SELF;
	}
	/*
	 * The parent holds the same capabilities as PID 1 (those of the new user
	 * namespace, if any) and needs none of them now. It waits for PID 1's word
	 * first: if PID 1's setup failed, PID 1 has said why and its status is relayed.
	 */
	while ((n = read(ready[0], &c, 1)) == -1 && errno == EINTR)
		;
	close(ready[0]);
	if (n == -1) {
		log_warn("read ready");
		(void)kill(pid1, SIGKILL);
		return EXIT_SELF;
	}
	if (n == 1 && caps_clear() == -1) {
		(void)kill(pid1, SIGKILL);
		return EXIT_SELF;
	}
	/* The supervisor is PID 1's: this process has no listener to serve. */
	close(STDIN_FILENO);
	close(STDOUT_FILENO);
	reaper_relay_lifeline();
	return reaper_wait(pid1, 0, NULL);
}

int
main(int argc, char *argv[])
{
	struct seccomp_opts o;
	struct sock_fprog prog;
	struct sup *sup = NULL;
	const char *emit = NULL;
	int ch, debug = 0, pid1 = 0, rc;

	log_init("srt-seccomp", 0, EXIT_SELF);
	memset(&o, 0, sizeof(o));
	o.lifeline_fd = o.guard_fd = o.viol_fd = -1;
	/* "+": options end at the command, whose own options are left alone. */
	while ((ch = getopt_long(argc, argv, "+dhV", longopts, NULL)) != -1) {
		switch (ch) {
		case 'U':
			o.allow_unix = 1;
			break;
		case 'N':
			o.allow_userns = 1;
			break;
		case 'H':
			o.no_read_hold = 1;
			break;
		case 'E':
			emit = optarg;
			break;
		case 'P':
			pid1 = 1;
			break;
		case 'L':
		case 'G':
		case 'v': {
			char *end;
			long v;

			errno = 0;
			v = strtol(optarg, &end, 10);
			if (errno != 0 || end == optarg || *end != '\0' || v < 3 ||
			    v > INT_MAX) {
				log_warnx("--%s: not a descriptor number above 2: %s",
				    ch == 'L'       ? "lifeline-fd"
					: ch == 'G' ? "guard-fd"
						    : "violations-fd",
				    optarg);
				return EXIT_SELF;
			}
			if (ch == 'L')
				o.lifeline_fd = (int)v;
			else if (ch == 'G')
				o.guard_fd = (int)v;
			else
				o.viol_fd = (int)v;
			break;
		}
		case 'W':
			o.guard = 1;
			break;
		case 'M':
			o.monitor = 1;
			break;
		case 'A':
			as_name = optarg;
			break;
		case 'd':
			debug++;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("srt-seccomp %s\n", SRT_VERSION);
			return 0;
		default:
			usage(stderr);
			return EXIT_SELF;
		}
	}
	log_init("srt-seccomp", debug, EXIT_SELF);
	if (as_name != NULL)
		log_speak_as(as_name);
	argv += optind;
	argc -= optind;
	if (argc == 0 && emit == NULL) {
		log_warnx("no command given");
		usage(stderr);
		return EXIT_SELF;
	}

	if ((o.guard || o.monitor) && emit == NULL) {
		log_warnx("--with-guard and --with-monitor are for --emit-bpf; a command needs "
			  "--guard-fd or --violations-fd");
		return EXIT_SELF;
	}
	if (o.monitor && !o.guard) {
		log_warnx("--with-monitor needs --with-guard: the monitor is the supervisor's");
		return EXIT_SELF;
	}
	if (o.guard_fd != -1 || o.viol_fd != -1) {
		/* Decoded first: a guard that cannot be read stops everything. Without one,
		 * the monitor alone: the supervisor runs under a guard that refuses nothing. */
		if ((sup = sup_new(o.guard_fd, o.viol_fd, o.allow_userns != 0,
			 o.no_read_hold == 0)) == NULL)
			return EXIT_SELF;
		o.guard = 1;
		o.monitor = o.viol_fd != -1;
	}

	/* Built before anything else, so a filter that cannot be built stops everything. */
	if (filter_build(&o, &prog) == -1) {
		sup_free(sup);
		return EXIT_SELF;
	}
	log_debug("filter: %u instructions", prog.len);
	if (emit != NULL && filter_write(&prog, emit) == -1) {
		filter_free(&prog);
		sup_free(sup);
		return EXIT_SELF;
	}
	if (argc == 0) {
		filter_free(&prog);
		sup_free(sup);
		return 0;
	}
	rc = pid1 ? run_already_pid1(&prog, &o, argv, sup) : run(&prog, &o, argv, sup);
	filter_free(&prog);
	sup_free(sup);
	return rc;
}
