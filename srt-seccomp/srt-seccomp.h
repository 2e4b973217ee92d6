/* srt-seccomp: the last stage inside the sandbox before the user's command. */
#ifndef SRT_SECCOMP_H
#define SRT_SECCOMP_H

#include <signal.h>
#include <stdnoreturn.h>
#include <sys/types.h>
#include <linux/filter.h>

/* Exit statuses (the shell's conventions, shared with srt-launch). */
#define EXIT_SELF	125	/* srt-seccomp itself failed; the command never ran */
#define EXIT_NOEXEC	126	/* the command was found but could not be executed */
#define EXIT_NOTFOUND	127	/* the command was not found */

struct seccomp_opts {
	int	 allow_unix;	/* --allow-unix-sockets: socket(AF_UNIX) allowed */
	int	 lifeline_fd;	/* --lifeline-fd, or -1 */
	int	 allow_userns;	/* --allow-nested-userns: namespaces and mount API allowed */
};

/* filter.c: one compiled program, shared by --emit-bpf and the install path. */
int	 filter_build(const struct seccomp_opts *, struct sock_fprog *);
int	 filter_write(const struct sock_fprog *, const char *);
int	 filter_install(const struct sock_fprog *);
void	 filter_free(struct sock_fprog *);

/* ns.c: namespaces, the fresh /proc, capabilities. */
int	 ns_enter(int *own_userns);
int	 ns_setup_proc(int own_userns, int allow_userns);
int	 ns_cover_proc(void);
int	 caps_clear(void);

/* reaper.c: signal forwarding and exit-status relay for PID 1 and its parent. */
int	 reaper_block(sigset_t *saved);
int	 reaper_wait(pid_t child, pid_t group);
int	 reaper_arm_lifeline(int fd);

#endif
