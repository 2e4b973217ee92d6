/*
 * Where srt's programs are, installed or in a build tree: the one rule by which the
 * launcher finds its helpers and by which `srt-policy plan` names them as the launcher
 * beside it would (srt-launch(1) FILES).
 */
#ifndef SRT_LAYOUT_H
#define SRT_LAYOUT_H

/* The helpers' names in their directory (layout_helpers_dir). */
#define LAYOUT_SECCOMP "srt-seccomp"
#define LAYOUT_HTTPD "srt-httpd"
#define LAYOUT_SOCKSD "srt-socksd"

/* The running program's directory, from /proc/self/exe; NULL when it cannot be told.
 * Caller frees. */
char *layout_self_dir(void);

/*
 * The directory of srt-seccomp, srt-httpd and srt-socksd for programs in self_dir: the
 * installed BINDIR (as fixed at build time, compared as a file, so that BINDIR reached
 * through a link is the same) takes them from LIBEXECDIR, also fixed at build time; any
 * other directory (the build tree's build/bin, an unpacked tree) from itself. Never PATH.
 * Caller frees.
 */
char *layout_helpers_dir(const char *self_dir);

#endif
