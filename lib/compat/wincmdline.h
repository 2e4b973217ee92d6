/*
 * The one command line a Windows program gets, made from an argv so that its C runtime
 * (CommandLineToArgvW, the Microsoft C runtime) splits it back into exactly that argv.
 * Used wherever srt starts a Windows program: srt-win's Win32 layer
 * (srt-win/winapi_win32_process.c) and srt's Windows launch path
 * (srt-launch/windows/winsys_win32.c). Only the C library.
 */
#ifndef SRT_WINCMDLINE_H
#define SRT_WINCMDLINE_H

/* The arguments quoted and joined by spaces. argv[0], the program, is quoted without
 * escapes (the runtime reads it up to the closing quote; it cannot hold a quote).
 * NULL when out of memory. Caller frees. */
char *wincmdline_join(char *const *argv);

#endif
