/*
 * The managed policy on Windows (managed.h): the Win32 side of managed_acl.h, whose walk
 * and trust decision are the same code the Linux unit tests run with a fake.
 *
 * Where: %ProgramData%\srt\managed-settings.json, ProgramData from SHGetKnownFolderPath;
 * when Windows cannot say, srt refuses to run rather than guess. Each name on the way
 * is opened without following a reparse point and without sharing delete access, and
 * held open until the file is read: while it is open nobody can rename it or remove it,
 * so what was checked (its attributes, owner and DACL, through the handle) is what is
 * read.
 */
#ifdef _WIN32
#include <windows.h>
#include <aclapi.h>
#include <initguid.h>
#include <knownfolders.h>
#include <sddl.h>
#include <shlobj.h>

#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "sys_file.h"
#include "managed.h"
#include "managed_acl.h"

#define HELD_MAX 64

struct held {
	HANDLE h[HELD_MAX];
	size_t n;
};

/* Windows' message for err, "text (code)". */
static char *
win_error(DWORD err)
{
	char *msg = NULL, *s;
	size_t n;

	if (FormatMessageA(FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM |
		    FORMAT_MESSAGE_IGNORE_INSERTS,
		NULL, err, 0, (LPSTR)&msg, 0, NULL) == 0 ||
	    msg == NULL)
		return xasprintf("error %lu", (unsigned long)err);
	while ((n = strlen(msg)) > 0 &&
	    (msg[n - 1] == '\n' || msg[n - 1] == '\r' || msg[n - 1] == '.' ||
		msg[n - 1] == ' '))
		msg[n - 1] = '\0';
	s = xasprintf("%s (%lu)", msg, (unsigned long)err);
	LocalFree(msg);
	return s;
}

static int
ms_program_data(void *ctx, char **dir, char **why)
{
	PWSTR w = NULL;
	HRESULT hr;

	(void)ctx;
	*dir = NULL;
	hr = SHGetKnownFolderPath(&FOLDERID_ProgramData, 0, NULL, &w);
	if (FAILED(hr)) {
		char *e = win_error((DWORD)hr);

		*why = xasprintf("SHGetKnownFolderPath(FOLDERID_ProgramData): %s", e);
		free(e);
		return -1;
	}
	*dir = sys_utf8(w);
	CoTaskMemFree(w);
	if (*dir == NULL) {
		*why = xstrdup("SHGetKnownFolderPath(FOLDERID_ProgramData): not UTF-16");
		return -1;
	}
	log_debug("managed policy: ProgramData is %s (the known folder)", *dir);
	return 0;
}

static HANDLE
open_nofollow(const char *path, DWORD access, char **why, bool *missing)
{
	wchar_t *w = sys_wide(path);
	HANDLE h;
	DWORD err;

	*missing = false;
	if (w == NULL) {
		*why = xstrdup("not UTF-8");
		return INVALID_HANDLE_VALUE;
	}
	/* No FILE_SHARE_DELETE: held open, it cannot be renamed or removed. */
	h = CreateFileW(w, access, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING,
	    FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS, NULL);
	err = GetLastError();
	free(w);
	if (h == INVALID_HANDLE_VALUE) {
		if (err == ERROR_FILE_NOT_FOUND || err == ERROR_PATH_NOT_FOUND)
			*missing = true;
		else
			*why = win_error(err);
	}
	return h;
}

static char *
sid_string(PSID sid)
{
	LPSTR s = NULL;
	char *out;

	if (sid == NULL || !IsValidSid(sid) || !ConvertSidToStringSidA(sid, &s))
		return xstrdup("");
	out = xstrdup(s);
	LocalFree(s);
	return out;
}

/* The SID of an ACE, "" for a kind whose layout is not the plain one. */
static char *
ace_sid(ACE_HEADER *h)
{
	switch (h->AceType) {
	case ACCESS_ALLOWED_ACE_TYPE:
	case ACCESS_DENIED_ACE_TYPE:
	case ACCESS_ALLOWED_CALLBACK_ACE_TYPE:
	case ACCESS_DENIED_CALLBACK_ACE_TYPE:
		return sid_string((PSID) & ((ACCESS_ALLOWED_ACE *)h)->SidStart);
	default:
		return xstrdup("");
	}
}

static int
read_security(HANDLE h, struct macl_object *o, char **why)
{
	PSECURITY_DESCRIPTOR sd = NULL;
	PSID owner = NULL;
	PACL dacl = NULL;
	ACL_SIZE_INFORMATION si;
	DWORD rc;

	rc = GetSecurityInfo(h, SE_FILE_OBJECT,
	    OWNER_SECURITY_INFORMATION | DACL_SECURITY_INFORMATION, &owner, NULL, &dacl, NULL,
	    &sd);
	if (rc != ERROR_SUCCESS) {
		char *e = win_error(rc);

		*why = xasprintf("GetSecurityInfo: %s", e);
		free(e);
		return -1;
	}
	o->owner = sid_string(owner);
	o->dacl_null = dacl == NULL;
	if (dacl != NULL && !GetAclInformation(dacl, &si, sizeof(si), AclSizeInformation)) {
		*why = win_error(GetLastError());
		LocalFree(sd);
		return -1;
	}
	for (DWORD i = 0; dacl != NULL && i < si.AceCount; i++) {
		ACE_HEADER *a;

		if (!GetAce(dacl, i, (LPVOID *)&a)) {
			*why = win_error(GetLastError());
			LocalFree(sd);
			return -1;
		}
		o->ace = xreallocarray(o->ace, o->nace + 1, sizeof(*o->ace));
		o->ace[o->nace].type = a->AceType;
		o->ace[o->nace].flags = a->AceFlags;
		/* Every allowed and denied kind has its mask right after the header. */
		o->ace[o->nace].mask = ((ACCESS_ALLOWED_ACE *)a)->Mask;
		o->ace[o->nace++].sid = ace_sid(a);
	}
	LocalFree(sd);
	return 0;
}

static int
ms_look(void *ctx, const char *path, struct macl_object *o, char **why)
{
	struct held *held = ctx;
	BY_HANDLE_FILE_INFORMATION fi;
	bool missing;
	HANDLE h;

	memset(o, 0, sizeof(*o));
	if (held->n == HELD_MAX) {
		*why = xstrdup("too many names on the way");
		return -1;
	}
	h = open_nofollow(path, READ_CONTROL | FILE_READ_ATTRIBUTES, why, &missing);
	if (h == INVALID_HANDLE_VALUE) {
		if (!missing)
			return -1;
		o->kind = MACL_MISSING;
		return 0;
	}
	held->h[held->n++] = h;
	if (!GetFileInformationByHandle(h, &fi)) {
		*why = win_error(GetLastError());
		return -1;
	}
	o->kind = (fi.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) ? MACL_DIR : MACL_FILE;
	o->reparse = (fi.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) != 0;
	return read_security(h, o, why);
}

static int
ms_read(void *ctx, const char *path, size_t max, char **text, size_t *len, char **why)
{
	LARGE_INTEGER size;
	DWORD got;
	bool missing;
	HANDLE h;
	char *buf;
	size_t n = 0;

	(void)ctx;
	*text = NULL;
	*len = 0;
	h = open_nofollow(path, GENERIC_READ, why, &missing);
	if (h == INVALID_HANDLE_VALUE) {
		if (missing)
			*why = xstrdup("it is gone");
		return -1;
	}
	if (!GetFileSizeEx(h, &size)) {
		*why = win_error(GetLastError());
		CloseHandle(h);
		return -1;
	}
	if (size.QuadPart < 0 || (unsigned long long)size.QuadPart > max) {
		*why = xasprintf("larger than %zu bytes", max);
		CloseHandle(h);
		return -1;
	}
	buf = xmalloc((size_t)size.QuadPart + 1);
	while (n < (size_t)size.QuadPart) {
		if (!ReadFile(h, buf + n, (DWORD)((size_t)size.QuadPart - n), &got, NULL)) {
			*why = win_error(GetLastError());
			free(buf);
			CloseHandle(h);
			return -1;
		}
		if (got == 0)
			break;
		n += got;
	}
	CloseHandle(h);
	buf[n] = '\0';
	*text = buf;
	*len = n;
	return 0;
}

static void
ms_done(void *ctx)
{
	struct held *held = ctx;

	while (held->n > 0)
		CloseHandle(held->h[--held->n]);
}

int
managed_load(struct managed *m, struct diags *errs, struct diags *warns)
{
	struct held held = { .n = 0 };
	struct managed_winsys sys = {
		.program_data = ms_program_data,
		.look = ms_look,
		.read = ms_read,
		.done = ms_done,
		.ctx = &held,
	};

	return managed_acl_load(&sys, m, errs, warns);
}

int
managed_load_path(const char *path, struct managed *m, struct diags *errs, struct diags *warns)
{
	(void)warns;
	memset(m, 0, sizeof(*m));
	diags_add(
	    errs, "%s: on Windows the managed policy is read only from %s", path, managed_path);
	return -1;
}
#endif
