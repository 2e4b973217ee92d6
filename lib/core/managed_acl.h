/*
 * The managed policy on Windows (managed.h): where it is and when it is trusted, as pure C
 * over what Windows says of each path, so that every build compiles it and the unit tests
 * run it on Linux with a fake (tests/unit/test_managed_acl.c). The Win32 calls are behind
 * struct managed_winsys; lib/core/managed_win.c has the real ones (SHGetKnownFolderPath,
 * handles opened without following reparse points, GetSecurityInfo, ReadFile).
 *
 * The file is %ProgramData%\srt\managed-settings.json, ProgramData being the known folder
 * (never an environment variable: a user sets those). It is read only when it and every
 * directory from the drive root down to it:
 *  - is no reparse point (junction, symbolic link, mount point);
 *  - is owned by SYSTEM, Administrators or TrustedInstaller;
 *  - has a DACL (a NULL DACL lets everyone do everything);
 *  - has no access-allowed entry that applies to it (inherit-only ones do not) giving any
 *    other SID a right to change or replace it (managed_acl_untrusted says which).
 * Where a name on the way does not exist there is no managed layer: the directories above
 * it are trusted, so nobody else could have removed it.
 */
#ifndef SRT_MANAGED_ACL_H
#define SRT_MANAGED_ACL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "managed.h"
#include "util.h"

/* ACE types and flags, and access rights, as winnt.h numbers them. */
#define MACL_ALLOWED 0x00 /* ACCESS_ALLOWED_ACE_TYPE */
#define MACL_DENIED 0x01
#define MACL_ALLOWED_COMPOUND 0x04
#define MACL_ALLOWED_OBJECT 0x05
#define MACL_ALLOWED_CALLBACK 0x09
#define MACL_ALLOWED_CB_OBJECT 0x0b
#define MACL_INHERIT_ONLY 0x08 /* INHERIT_ONLY_ACE */

#define MACL_WRITE_DATA 0x00000002u  /* FILE_ADD_FILE on a directory */
#define MACL_APPEND_DATA 0x00000004u /* FILE_ADD_SUBDIRECTORY */
#define MACL_WRITE_EA 0x00000010u
#define MACL_DELETE_CHILD 0x00000040u
#define MACL_WRITE_ATTRIBUTES 0x00000100u
#define MACL_DELETE 0x00010000u
#define MACL_WRITE_DAC 0x00040000u
#define MACL_WRITE_OWNER 0x00080000u
#define MACL_GENERIC_ALL 0x10000000u
#define MACL_GENERIC_WRITE 0x40000000u

/* The rights nobody but SYSTEM, Administrators and TrustedInstaller may hold. */
#define MACL_FILE_REFUSED \
	(MACL_WRITE_DATA | MACL_APPEND_DATA | MACL_WRITE_EA | MACL_WRITE_ATTRIBUTES | \
	    MACL_DELETE | MACL_WRITE_DAC | MACL_WRITE_OWNER | MACL_GENERIC_ALL | \
	    MACL_GENERIC_WRITE)
#define MACL_DIR_REFUSED \
	(MACL_DELETE_CHILD | MACL_DELETE | MACL_WRITE_DAC | MACL_WRITE_OWNER | MACL_GENERIC_ALL)

/* How messages name the file before the known folder is asked (managed_path on Windows). */
#define MANAGED_WIN_PATH "%ProgramData%\\srt\\managed-settings.json"

enum macl_kind {
	MACL_MISSING,
	MACL_FILE,
	MACL_DIR
};

struct macl_ace {
	uint8_t type;  /* MACL_ALLOWED, ... */
	uint8_t flags; /* the ACE flags */
	uint32_t mask;
	char *sid; /* "S-1-5-32-545"; "" when it could not be told */
};

/* What Windows says of one path, not following a reparse point. */
struct macl_object {
	enum macl_kind kind;
	bool reparse;         /* FILE_ATTRIBUTE_REPARSE_POINT */
	char *owner;          /* the owner SID as a string */
	bool dacl_null;       /* no DACL at all */
	struct macl_ace *ace; /* the DACL's entries, in order */
	size_t nace;
};

void macl_object_free(struct macl_object *o);

/*
 * The system under the walk. Each function returns 0, or -1 with *why (caller frees).
 * look opens path without following a reparse point and keeps it open until done, so
 * that what was checked cannot be renamed away before read reads the file it opened.
 */
struct managed_winsys {
	int (*program_data)(void *ctx, char **dir, char **why);
	int (*look)(void *ctx, const char *path, struct macl_object *o, char **why);
	int (*read)(
	    void *ctx, const char *path, size_t max, char **text, size_t *len, char **why);
	void (*done)(void *ctx);
	void *ctx;
};

/* Why o, the file (file true) or a directory on the way, is not something only SYSTEM,
 * Administrators or TrustedInstaller can change, written into buf; NULL when it is. */
const char *managed_acl_untrusted(
    const struct macl_object *o, bool file, char *buf, size_t len);

/* managed_load's contract (managed.h) through sys: the file's path is kept in m->path. */
int managed_acl_load(const struct managed_winsys *sys, struct managed *m, struct diags *errs,
    struct diags *warns);

#endif
