/*
 * When a user namespace cannot be made: is AppArmor's restriction the cause, and what
 * fixes it. Ubuntu 24.04 and later set kernel.apparmor_restrict_unprivileged_userns=1:
 * an unprivileged process whose AppArmor profile does not allow user namespaces is
 * refused one (unshare(2) fails with EPERM or EACCES), or gets one in which it holds no
 * capability, so that its next step (writing uid_map, bringing loopback up) fails with
 * EPERM.
 */
#ifndef SRT_USERNS_H
#define SRT_USERNS_H

#define USERNS_APPARMOR_SYSCTL "/proc/sys/kernel/apparmor_restrict_unprivileged_userns"
#define USERNS_APPARMOR_PROFILE "/etc/apparmor.d/srt"

/* The sysctl's value read from path: 0 or 1 (any other number counts as 1), or -1 when
 * it cannot be read (a kernel without the restriction) or holds no number. */
int userns_apparmor_restricted(const char *path);

/*
 * For a user namespace step of exe (the launcher's path) that failed with err, given
 * the sysctl's value: when the restriction can be the cause (err EPERM or EACCES, the
 * sysctl 1), the cause and the fix as two messages (caller frees both) and 1; else 0.
 */
int userns_apparmor_hint(int err, int restricted, const char *exe, char **cause, char **fix);

#endif
