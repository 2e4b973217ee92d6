/*
 * The declaration macOS's <mach-o/dyld.h> gives for the one function srt uses, so that
 * `make macos-compile` can compile srt-launch/macos/macos_apple.c on other hosts.
 */
#ifndef SRT_SHIM_MACH_O_DYLD_H
#define SRT_SHIM_MACH_O_DYLD_H

#include <stdint.h>

int _NSGetExecutablePath(char *buf, uint32_t *bufsize);

#endif
