/*
 * Exit statuses of srt-launch (srt) and srt-seccomp, which pass on the command's own:
 * those of env(1) and of shells, so that a caller tells "the sandbox failed" from "the
 * command failed" (srt.1 and srt-seccomp.1, EXIT STATUS).
 */
#ifndef SRT_EXIT_H
#define SRT_EXIT_H

#define EXIT_SELF \
	125                              /* srt (or srt-seccomp) itself failed; the command
                                           never ran */
#define EXIT_NOEXEC 126                  /* the command was found but could not be run */
#define EXIT_NOTFOUND 127                /* the command was not found */
#define EXIT_SIGNALED(sig) (128 + (sig)) /* the command was killed by signal sig */

#endif
