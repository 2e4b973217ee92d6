/*
 * Everything srt-win asks of Windows, and nothing else: every Win32 call of the program is
 * behind these functions. winapi_win32*.c implement them with the real API (mingw-w64);
 * winapi_fake.c is a recording fake for the native build, which keeps security
 * descriptors, accounts, filters and credentials in files under $SRT_WIN_FAKE_DIR and
 * appends one line per call to its calls.log, so that the logic around the calls
 * (arguments, plans, refcounts, environments) is tested end to end on Linux.
 *
 * Strings are UTF-8; the Win32 side converts at the boundary. Functions return 0 on
 * success and -1 on failure with a message in wa_error() (valid until the next call).
 */
#ifndef SRT_WIN_WINAPI_H
#define SRT_WIN_WINAPI_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "log.h"

/* The group of the sandbox accounts, from which the machine record is hidden. */
#define WA_SANDBOX_GROUP "sandbox-runtime-users"

const char *wa_error(void);
/* The last failure was "access denied" (so the caller may need elevation). */
int wa_error_denied(void);

/* For the layers (winapi_error.c): record a failure, whether it was "access denied" and
 * fmt's message, and return -1; add s to the message recorded. */
int wa_fail_v(int denied, const char *fmt, va_list ap) SRT_PRINTF(2, 0);
int wa_fail(int denied, const char *fmt, ...) SRT_PRINTF(2, 3);
void wa_error_append(const char *s);
/* Say on stderr what each call changes (srt-win -d). */
extern int wa_debug;

/* Windows: the program's arguments as UTF-8, with the standard streams made binary
 * (plans and JSON are read and written byte for byte); for wmain. */
char **wa_main_args(int argc, wchar_t **wargv);

/* --- paths and files ----------------------------------------------------------------- */

enum wa_kind {
	WA_MISSING,
	WA_FILE,
	WA_DIR
};

/* Whether p is an absolute path this system takes (Windows: "C:\...", "\\server\share\...";
 * the fake: "/..."), and the separator it uses. */
int wa_path_absolute(const char *p);
char wa_path_sep(void);
/* What p is, following links; a missing component is WA_MISSING. */
int wa_path_kind(const char *p, enum wa_kind *kind);
/* The name the file system knows p by (links, short names and case resolved). */
int wa_path_final(const char *p, char **out);
int wa_mkdir(const char *p);
int wa_mkfile(const char *p); /* an empty file; fails if p exists */
/* Remove p if it is an empty directory or an empty file; 1 if it was not empty. */
int wa_remove_empty(const char *p);
/* Exclusive lock of a file (created if missing), held until wa_unlock. */
int wa_lock(const char *p, void **lock);
void wa_unlock(void *lock);
/* Atomic replace of dst by src (same directory). */
int wa_replace(const char *src, const char *dst);
/* fopen and remove on a UTF-8 name. */
FILE *wa_fopen(const char *p, const char *mode);
int wa_unlink(const char *p);
/* Where srt-win keeps its per-user records (%LOCALAPPDATA%\srt-win), created if missing. */
int wa_state_dir(char **out);
/* This program's own path, for starting itself. */
int wa_self_path(char **out);
/* %ProgramData%\srt, where srt.exe reads the managed policy (srt-settings(5)): its path,
 * ProgramData from the known folder. Made, if missing, owned by Administrators with a
 * protected DACL (SYSTEM and Administrators full control, Users read), and *made set;
 * one that exists is left as it is. */
int wa_managed_dir(int make, char **path, int *exists, int *made);
/* The calling user's profile directory (%USERPROFILE%). */
int wa_profile_dir(char **out);
/* This process's environment, "NAME=value" each, NULL-terminated. */
char **wa_environ(void);

/* --- security descriptors ------------------------------------------------------------ */

#define WA_OI 0x1u /* OBJECT_INHERIT_ACE */
#define WA_CI 0x2u /* CONTAINER_INHERIT_ACE */

struct wa_ace {
	int deny;  /* 1 DENY, 0 ALLOW, -1 another kind */
	char *sid; /* "S-1-5-21-..." ("" for another kind) */
	uint32_t mask;
	uint8_t flags; /* the ACE flags, WA_OI | WA_CI for ours */
	void *raw;     /* another kind: its bytes, kept as they are */
	size_t rawlen;
};

struct wa_dacl {
	struct wa_ace *v; /* the explicit entries, in order */
	size_t n;
	int protect; /* inheritance from the parent is off */
};

/* The explicit entries of p's DACL (inherited ones are the system's business; a path
 * without a DACL at all is an error: srt-win would take everyone's access away). */
int wa_dacl_get(const char *p, struct wa_dacl *d);
/* Replace p's explicit entries, keeping its inheritance setting. */
int wa_dacl_set(const char *p, const struct wa_dacl *d);
void wa_dacl_free(struct wa_dacl *d); /* winapi_dacl.c: one for both systems */
/* A well-formed SID string. */
int wa_sid_valid(const char *sid);
/* The capability SID Windows derives from a name (DeriveCapabilitySidsFromName). */
int wa_capability_sid(const char *name, char **sid);

/* --- processes ----------------------------------------------------------------------- */

unsigned long wa_pid(void);
/* 1 if process pid runs and, when start is not 0, started at start; 0 if not; -1 if it
 * cannot be told. *startp (may be NULL) gets its start time. */
int wa_process_alive(unsigned long pid, uint64_t start, uint64_t *startp);

/* One program to start: argv[0] is the program. env is a NULL-terminated list of
 * "NAME=value" (NULL: inherit). */
struct wa_spawn {
	char **argv;
	char **env;
	const char *path;        /* PATH to find argv[0] in (NULL: as named) */
	const char *cwd;         /* NULL: ours */
	int write_restricted;    /* runner: the write-restricted token */
	char **restrict_sids;    /* more restricting SIDs (write roots) */
	unsigned long watch_pid; /* kill the command when this one ends (0: no) */
	uint64_t watch_start;
};

/* Keep this process through the console's Ctrl-C and Ctrl-Break while it waits for a
 * command (runner, exec, launch); without it the console ends it before the command,
 * and the command's status is lost. The runner's command shares the console and gets
 * the event itself: wa_run_contained waits on. The broker's runner has no console
 * (CREATE_NO_WINDOW): wa_run_as_user ends it as the console ends a program that does
 * not handle the event (STATUS_CONTROL_C_EXIT; its job then ends the command) and
 * returns that status. The fake passes SIGINT and SIGQUIT on to the child instead. */
void wa_console_keep(void);
/* Runner: start argv with a token stripped of privileges (write-restricted if asked), in
 * a job that kills everything in it when closed, and wait. *status is the command's exit
 * status; 1 is returned instead of 0 when the watched process ended first (the command
 * was killed). */
int wa_run_contained(const struct wa_spawn *sp, int *status);
/* Why the last wa_run_contained failed to start the program, as a shell tells it: the
 * program is not there (ERROR_FILE_NOT_FOUND, ERROR_PATH_NOT_FOUND), or it is there and
 * cannot be run (ERROR_ACCESS_DENIED, ERROR_BAD_EXE_FORMAT, ...); anything else is
 * WA_START_OTHER, the failure of a Windows call. */
enum wa_start {
	WA_START_OTHER,
	WA_START_NOTFOUND,
	WA_START_NOEXEC
};
enum wa_start wa_start_error(void);
/* Broker: start argv (srt-win runner ...) as the sandbox account with its profile, wait,
 * *status is its exit status. Fails with wa_logon_error() set when Windows cannot log on. */
enum wa_logon {
	WA_LOGON_OK,
	WA_LOGON_SECLOGON_DISABLED,
	WA_LOGON_SECLOGON_MISSING,
	WA_LOGON_FAILED
};
int wa_run_as_user(const char *user, const char *password, const struct wa_spawn *sp,
    int *status, enum wa_logon *why);
/* Start this program elevated (UAC) with argv, wait, *status its exit status; 1 when the
 * user declined. */
int wa_run_elevated(char **argv, int *status);
int wa_elevated(void);

/* --- accounts ------------------------------------------------------------------------ */

/* 0 and the SID when name exists, 1 when it does not. */
int wa_account_sid(const char *name, char **sid);
int wa_group_create(const char *name, const char *comment);
int wa_group_delete(const char *name);
int wa_user_create(const char *name, const char *password, const char *comment);
int wa_user_set_password(const char *name, const char *password);
int wa_user_delete(const char *name);
int wa_group_add(const char *group, const char *user);
/* 1 if user is a member of group, 0 if not. */
int wa_group_has(const char *group, const char *user);
/* The SID of the user this process runs as. */
int wa_current_sid(char **sid);
/* Cryptographically random bytes. */
int wa_random(void *buf, size_t n);

/* --- the machine record: credential and install settings -------------------------- */

/* A small named value kept for the machine, readable by users and not by the sandbox
 * group (HKLM\SOFTWARE\srt-win on Windows). Missing: 1. */
int wa_record_get(const char *name, char **value);
int wa_record_set(const char *name, const char *value);
int wa_record_delete(const char *name);

/* --- WFP ------------------------------------------------------------------------------ */

struct wa_filter {
	const char *name;
	int v6;               /* ALE_AUTH_CONNECT_V6, else V4 */
	int permit;           /* else block */
	const char *user_sid; /* matched on the connecting user */
	int loopback;         /* remote address 127.0.0.0/8 or ::1 */
	int port_lo, port_hi; /* remote port range; 0: any */
	uint8_t weight;
};

/* Add the filters (and the sublayer, if missing) in one transaction, persistent. */
int wa_wfp_install(const char *sublayer, const struct wa_filter *f, size_t n);
/* The number of srt-win filters under the sublayer; -1 with wa_error_denied() when the
 * caller may not enumerate them. */
int wa_wfp_count(const char *sublayer, int *n);
int wa_wfp_remove(const char *sublayer);
/* A TCP connect to host:port; 0 connected, 1 refused by a filter (WSAEACCES), 2 refused
 * otherwise or timed out. */
int wa_connect_probe(const char *host, int port, int *outcome);

/* --- certificates ---------------------------------------------------------------------- */

/* Add a DER certificate to the calling user's Root store; *thumb gets its SHA-1. */
int wa_trust_cert(const uint8_t *der, size_t len, char **thumb);

/* 1 if p (NULL: the current directory) lies on a network drive. */
int wa_path_remote(const char *p);

#endif
