/* Namespaces, the fresh /proc and capabilities. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/capability.h>

#include "util.h"
#include "srt-seccomp.h"

/* Parts of /proc that must stay read-only, as bubblewrap leaves them in its own /proc. */
/* What to do when a nested user namespace cannot provide what is needed. */
#define HINT_CAPS \
	"give srt-seccomp CAP_SYS_ADMIN and CAP_SETPCAP instead " \
	"(bwrap --cap-add CAP_SYS_ADMIN --cap-add CAP_SETPCAP)"

static const char *const proc_ro[] = {
	"/proc/sys",
	"/proc/sysrq-trigger",
	"/proc/irq",
	"/proc/bus",
};

static int
write_string(const char *path, const char *s)
{
	size_t len = strlen(s);
	ssize_t n;
	int fd, saved;

	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1)
		return -1;
	n = write(fd, s, len);
	if (n == -1 || (size_t)n != len) {
		saved = n == -1 ? errno : EIO;
		close(fd);
		errno = saved;
		return -1;
	}
	return close(fd);
}

/* Identity maps: the command keeps the uid and gid it had outside. */
static int
ns_map_ids(uid_t uid, gid_t gid)
{
	char map[64];

	/* Required before an unprivileged gid_map; also keeps dropped groups dropped. */
	if (write_string("/proc/self/setgroups", "deny") == -1) {
		log_warn("write /proc/self/setgroups");
		return -1;
	}
	(void)snprintf(map, sizeof(map), "%lu %lu 1\n", (unsigned long)uid, (unsigned long)uid);
	if (write_string("/proc/self/uid_map", map) == -1) {
		log_warn("write /proc/self/uid_map");
		/* The kernel lets only a creator that held CAP_SETFCAP map uid 0. */
		if (errno == EPERM && uid == 0)
			log_warnx("uid 0 cannot map itself into a new user namespace: "
				  "%s",
			    HINT_CAPS);
		return -1;
	}
	(void)snprintf(map, sizeof(map), "%lu %lu 1\n", (unsigned long)gid, (unsigned long)gid);
	if (write_string("/proc/self/gid_map", map) == -1) {
		log_warn("write /proc/self/gid_map");
		return -1;
	}
	return 0;
}

/*
 * New PID and mount namespaces for the caller's next child. Without CAP_SYS_ADMIN
 * (inside bwrap's user namespace with every capability dropped) the kernel refuses
 * them, and a user namespace created in the same call supplies the capability.
 * Mount events must not leak out: the new tree is made private first.
 */
int
ns_enter(int *own_userns)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();

	*own_userns = 0;
	if (unshare(CLONE_NEWPID | CLONE_NEWNS) == -1) {
		if (errno != EPERM) {
			log_warn("unshare");
			return -1;
		}
		/* The expected way for a user: detail, not something gone wrong. */
		log_debug2("unshare refused (%s): creating a user namespace", strerror(errno));
		if (unshare(CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS) == -1) {
			log_warn("unshare CLONE_NEWUSER");
			if (errno == ENOSPC)
				log_warnx("user namespaces are disabled here "
					  "(bwrap --disable-userns?): %s",
				    HINT_CAPS);
			return -1;
		}
		*own_userns = 1;
		if (ns_map_ids(uid, gid) == -1)
			return -1;
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1) {
		log_warn("mount / MS_PRIVATE");
		return -1;
	}
	return 0;
}

static int
ns_bind_ro(const char *path)
{
	if (mount(path, path, NULL, MS_BIND | MS_REC, NULL) == -1) {
		if (errno == ENOENT)
			return 0;
		log_warn("bind %s", path);
		return -1;
	}
	if (mount(NULL, path, NULL,
		MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
		NULL) == -1) {
		log_warn("remount %s read-only", path);
		return -1;
	}
	return 0;
}

/*
 * Run by PID 1 of the new namespace: a proc that shows only the sandbox's processes,
 * mounted on the private tree only.
 *
 * user.max_user_namespaces is a per-user-namespace limit: writing it changes the
 * namespace the writer lives in. It is written only when that namespace is the one
 * ns_enter created; otherwise it belongs to someone else (bwrap's, or the host's
 * when run as root without any namespace) and is left alone. The seccomp filter
 * refuses CLONE_NEWUSER in every case, and --allow-nested-userns asks for nested
 * namespaces, so the limit is not set then either.
 */
int
ns_setup_proc(int own_userns, int allow_userns)
{
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == -1) {
		log_warn("mount /proc");
		/*
		 * From a user namespace the kernel mounts proc only if an existing proc
		 * is fully visible; bwrap run by root covers parts of its /proc, and
		 * those covers are locked in a namespace copied into ours.
		 */
		if (errno == EPERM && own_userns)
			log_warnx("proc cannot be mounted from a nested user namespace "
				  "over a partly covered /proc: %s",
			    HINT_CAPS);
		else if (errno == EPERM)
			log_warnx("proc cannot be mounted from this user namespace over "
				  "a partly covered /proc (bwrap run by root with "
				  "--disable-userns nests one)");
		return -1;
	}
	if (own_userns && !allow_userns) {
		if (write_string("/proc/sys/user/max_user_namespaces", "0") == -1) {
			log_warn("write /proc/sys/user/max_user_namespaces");
			return -1;
		}
	} else
		log_debug("user.max_user_namespaces left alone: %s",
		    own_userns ? "--allow-nested-userns" : "namespace not ours");
	return ns_cover_proc();
}

/* A uid 0 without capabilities still owns these files: keep them read-only. */
int
ns_cover_proc(void)
{
	size_t i;

	for (i = 0; i < sizeof(proc_ro) / sizeof(proc_ro[0]); i++)
		if (ns_bind_ro(proc_ro[i]) == -1)
			return -1;
	return 0;
}

/*
 * Empties every capability set. The bounding set goes first (dropping from it needs
 * CAP_SETPCAP, which the second step removes); with it empty and inheritable empty,
 * an execve by uid 0 gains nothing either.
 */
int
caps_clear(void)
{
	cap_t caps = NULL;
	cap_value_t c;
	int n, r, rc = -1;

	n = cap_max_bits();
	for (c = 0; c < n; c++) {
		if ((r = cap_get_bound(c)) == -1) {
			log_warn("cap_get_bound %d", c);
			goto out;
		}
		if (r == 1 && cap_drop_bound(c) == -1) {
			int saved = errno;
			char *name = cap_to_name(c);

			errno = saved;
			log_warn("cap_drop_bound %s", name != NULL ? name : "?");
			cap_free(name);
			goto out;
		}
	}
	if (cap_reset_ambient() == -1) {
		log_warn("cap_reset_ambient");
		goto out;
	}
	if ((caps = cap_init()) == NULL) {
		log_warn("cap_init");
		goto out;
	}
	if (cap_set_proc(caps) == -1) {
		log_warn("cap_set_proc");
		goto out;
	}
	rc = 0;
out:
	if (caps != NULL)
		cap_free(caps);
	return rc;
}
