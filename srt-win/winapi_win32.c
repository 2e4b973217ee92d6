/*
 * winapi.h on Windows (mingw-w64): every Win32 call srt-win makes is in this file.
 * Strings cross as UTF-8 and are converted to UTF-16 here; errors become wa_error()
 * text through FormatMessageW. Built only by `make win`.
 */
#ifdef _WIN32

#include <winsock2.h>
#include <ws2tcpip.h>
#include <windows.h>
#include <aclapi.h>
#include <bcrypt.h>
#include <initguid.h>
#include <fwpmu.h>
#include <io.h>
#include <fcntl.h>
#include <knownfolders.h>
#include <lm.h>
#include <sddl.h>
#include <shellapi.h>
#include <shlobj.h>
#include <wincrypt.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "srt-win.h"

#ifndef FWPM_FILTER_FLAG_PERSISTENT
#define FWPM_FILTER_FLAG_PERSISTENT     0x00000001
#endif
#ifndef FWPM_SUBLAYER_FLAG_PERSISTENT
#define FWPM_SUBLAYER_FLAG_PERSISTENT   0x0001
#endif

/* Not in mingw-w64's headers; Microsoft's documented values. */
static const GUID LAYER_CONNECT_V4 = { 0xc38d57d1, 0x05a7, 0x4c33,
    { 0x90, 0x4f, 0x7f, 0xbc, 0xee, 0xe6, 0x0e, 0x82 } };
static const GUID LAYER_CONNECT_V6 = { 0x4a72393b, 0x319f, 0x44bc,
    { 0x84, 0xc3, 0xba, 0x54, 0xdc, 0xb3, 0xb6, 0xb4 } };
static const GUID COND_USER_ID = { 0xaf043a0a, 0xb34d, 0x4f86,
    { 0x97, 0x9c, 0xc9, 0x03, 0x71, 0xaf, 0x6e, 0x66 } };
static const GUID COND_REMOTE_ADDRESS = { 0xb235ae9a, 0x1d64, 0x49b8,
    { 0xa4, 0x4c, 0x5f, 0xf3, 0xd9, 0x09, 0x50, 0x45 } };
static const GUID COND_REMOTE_PORT = { 0xc35a604d, 0xd22b, 0x4e1a,
    { 0x91, 0xb4, 0x68, 0xf6, 0x74, 0xee, 0x67, 0x4b } };

#define REG_KEY L"SOFTWARE\\srt-win"

static char errbuf[768];
static int err_denied;

const char *
wa_error(void)
{
	return errbuf;
}

int
wa_error_denied(void)
{
	return err_denied;
}

/* --- strings ------------------------------------------------------------------------ */

static wchar_t *
W(const char *s)
{
	int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
	wchar_t *w;

	if (n <= 0)
		sw_fatal("srt-win: \"%s\" is not UTF-8", s);
	w = xcalloc((size_t)n, sizeof(wchar_t));
	MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n);
	return w;
}

static char *
U(const wchar_t *w)
{
	int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
	char *s;

	if (n <= 0)
		return xstrdup("?");
	s = xmalloc((size_t)n);
	WideCharToMultiByte(CP_UTF8, 0, w, -1, s, n, NULL, NULL);
	return s;
}

static int
fail_code(DWORD code, const char *fmt, ...) SW_PRINTF(2, 3);

/* "what: Windows' own message (code)" */
static int
fail_code(DWORD code, const char *fmt, ...)
{
	wchar_t *msg = NULL;
	char *m = NULL;
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(errbuf, sizeof(errbuf), fmt, ap);
	va_end(ap);
	if (FormatMessageW(FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM |
	    FORMAT_MESSAGE_IGNORE_INSERTS, NULL, code, 0, (LPWSTR)&msg, 0, NULL) != 0 &&
	    msg != NULL) {
		m = U(msg);
		LocalFree(msg);
		while ((n = strlen(m)) > 0 && (m[n - 1] == '\n' || m[n - 1] == '\r' ||
		    m[n - 1] == '.' || m[n - 1] == ' '))
			m[n - 1] = '\0';
	}
	n = strlen(errbuf);
	snprintf(errbuf + n, sizeof(errbuf) - n, ": %s (%lu)", m ? m : "error",
	    (unsigned long)code);
	free(m);
	err_denied = code == ERROR_ACCESS_DENIED;
	return -1;
}

#define fail_last(...) fail_code(GetLastError(), __VA_ARGS__)

/* --- the program's entry: UTF-16 arguments, binary standard streams -------------- */

int wmain(int argc, wchar_t **wargv);

int
wmain(int argc, wchar_t **wargv)
{
	char **argv = xcalloc((size_t)argc + 1, sizeof(char *));

	for (int i = 0; i < argc; i++)
		argv[i] = U(wargv[i]);
	/* Plans and JSON are read and written byte for byte. */
	_setmode(_fileno(stdin), _O_BINARY);
	_setmode(_fileno(stdout), _O_BINARY);
	_setmode(_fileno(stderr), _O_BINARY);
	return srtwin_main(argc, argv);
}

/* --- paths and files ---------------------------------------------------------------- */

int
wa_path_absolute(const char *p)
{
	int drive = ((p[0] | 0x20) >= 'a' && (p[0] | 0x20) <= 'z') && p[1] == ':' &&
	    (p[2] == '\\' || p[2] == '/');
	int unc = (p[0] == '\\' || p[0] == '/') && (p[1] == '\\' || p[1] == '/');

	return drive || unc;
}

char
wa_path_sep(void)
{
	return '\\';
}

static HANDLE
open_meta(const wchar_t *w)
{
	/* BACKUP_SEMANTICS opens directories too; links are followed. */
	return CreateFileW(w, FILE_READ_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE |
	    FILE_SHARE_DELETE, NULL, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, NULL);
}

int
wa_path_kind(const char *p, enum wa_kind *kind)
{
	wchar_t *w = W(p);
	BY_HANDLE_FILE_INFORMATION fi;
	HANDLE h = open_meta(w);
	DWORD e;

	free(w);
	if (h == INVALID_HANDLE_VALUE) {
		e = GetLastError();
		if (e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND ||
		    e == ERROR_INVALID_NAME || e == ERROR_BAD_NETPATH) {
			*kind = WA_MISSING;
			return 0;
		}
		return fail_code(e, "%s", p);
	}
	if (!GetFileInformationByHandle(h, &fi)) {
		CloseHandle(h);
		return fail_last("%s", p);
	}
	CloseHandle(h);
	*kind = fi.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY ? WA_DIR : WA_FILE;
	return 0;
}

int
wa_path_final(const char *p, char **out)
{
	wchar_t *w = W(p), buf[32768], *s = buf;
	HANDLE h = open_meta(w);
	DWORD n;

	free(w);
	if (h == INVALID_HANDLE_VALUE)
		return fail_last("%s", p);
	n = GetFinalPathNameByHandleW(h, buf, 32768, FILE_NAME_NORMALIZED | VOLUME_NAME_DOS);
	CloseHandle(h);
	if (n == 0 || n >= 32768)
		return fail_last("GetFinalPathNameByHandleW %s", p);
	if (wcsncmp(s, L"\\\\?\\UNC\\", 8) == 0) {
		s += 6;
		s[0] = L'\\';
	} else if (wcsncmp(s, L"\\\\?\\", 4) == 0)
		s += 4;
	*out = U(s);
	return 0;
}

int
wa_mkdir(const char *p)
{
	wchar_t *w = W(p);
	BOOL ok = CreateDirectoryW(w, NULL);

	free(w);
	return ok ? 0 : fail_last("CreateDirectoryW %s", p);
}

int
wa_mkfile(const char *p)
{
	wchar_t *w = W(p);
	HANDLE h = CreateFileW(w, GENERIC_WRITE, 0, NULL, CREATE_NEW, FILE_ATTRIBUTE_NORMAL,
	    NULL);

	free(w);
	if (h == INVALID_HANDLE_VALUE)
		return fail_last("CreateFileW %s", p);
	CloseHandle(h);
	return 0;
}

int
wa_remove_empty(const char *p)
{
	wchar_t *w = W(p);
	WIN32_FILE_ATTRIBUTE_DATA a;
	int rc = 0;

	if (!GetFileAttributesExW(w, GetFileExInfoStandard, &a)) {
		DWORD e = GetLastError();

		rc = e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND ? 0 :
		    fail_code(e, "%s", p);
	} else if (a.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) {
		if (!RemoveDirectoryW(w))
			rc = GetLastError() == ERROR_DIR_NOT_EMPTY ? 1 :
			    fail_last("RemoveDirectoryW %s", p);
	} else if (a.nFileSizeLow != 0 || a.nFileSizeHigh != 0)
		rc = 1;
	else if (!DeleteFileW(w))
		rc = fail_last("DeleteFileW %s", p);
	free(w);
	return rc;
}

int
wa_lock(const char *p, void **lock)
{
	wchar_t *w = W(p);
	HANDLE h = CreateFileW(w, GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ |
	    FILE_SHARE_WRITE, NULL, OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
	OVERLAPPED ov = { 0 };

	free(w);
	if (h == INVALID_HANDLE_VALUE)
		return fail_last("%s", p);
	if (!LockFileEx(h, LOCKFILE_EXCLUSIVE_LOCK, 0, 1, 0, &ov)) {
		CloseHandle(h);
		return fail_last("LockFileEx %s", p);
	}
	*lock = h;
	return 0;
}

void
wa_unlock(void *lock)
{
	OVERLAPPED ov = { 0 };

	UnlockFileEx(lock, 0, 1, 0, &ov);
	CloseHandle(lock);
}

int
wa_replace(const char *src, const char *dst)
{
	wchar_t *ws = W(src), *wd = W(dst);
	BOOL ok = MoveFileExW(ws, wd, MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH);

	free(ws);
	free(wd);
	return ok ? 0 : fail_last("MoveFileExW %s", dst);
}

FILE *
wa_fopen(const char *p, const char *mode)
{
	wchar_t *w = W(p), *m = W(mode);
	FILE *f = _wfopen(w, m);

	free(w);
	free(m);
	return f;
}

int
wa_unlink(const char *p)
{
	wchar_t *w = W(p);
	BOOL ok = DeleteFileW(w);

	free(w);
	return ok ? 0 : -1;
}

static int
known_folder(REFKNOWNFOLDERID id, char **out)
{
	PWSTR w = NULL;
	HRESULT hr = SHGetKnownFolderPath(id, 0, NULL, &w);

	if (FAILED(hr))
		return fail_code((DWORD)hr, "SHGetKnownFolderPath");
	*out = U(w);
	CoTaskMemFree(w);
	return 0;
}

int
wa_state_dir(char **out)
{
	char *base, *d;
	wchar_t *w;

	if (known_folder(&FOLDERID_LocalAppData, &base) != 0)
		return -1;
	d = xasprintf("%s\\srt-win", base);
	free(base);
	w = W(d);
	if (!CreateDirectoryW(w, NULL) && GetLastError() != ERROR_ALREADY_EXISTS) {
		free(w);
		fail_last("CreateDirectoryW %s", d);
		free(d);
		return -1;
	}
	free(w);
	*out = d;
	return 0;
}

int
wa_self_path(char **out)
{
	wchar_t buf[32768];
	DWORD n = GetModuleFileNameW(NULL, buf, 32768);

	if (n == 0 || n >= 32768)
		return fail_last("GetModuleFileNameW");
	*out = U(buf);
	return 0;
}

int
wa_profile_dir(char **out)
{
	return known_folder(&FOLDERID_Profile, out);
}

char **
wa_environ(void)
{
	static struct strv env;
	wchar_t *block = GetEnvironmentStringsW();

	strv_free(&env);
	for (wchar_t *p = block; p != NULL && *p; p += wcslen(p) + 1)
		if (*p != L'=')         /* "=C:=C:\dir": the per-drive directories */
			strv_push_owned(&env, U(p));
	FreeEnvironmentStringsW(block);
	if (env.v == NULL)
		strv_push_owned(&env, xstrdup("SystemRoot=C:\\Windows"));
	return env.v;
}

int
wa_path_remote(const char *p)
{
	wchar_t buf[MAX_PATH], root[4] = L"C:\\";

	if (p == NULL) {
		if (GetCurrentDirectoryW(MAX_PATH, buf) == 0)
			return 0;
	} else {
		wchar_t *w = W(p);

		wcsncpy(buf, w, MAX_PATH - 1);
		buf[MAX_PATH - 1] = 0;
		free(w);
	}
	if (buf[1] != L':')
		return 0;
	root[0] = buf[0];
	return GetDriveTypeW(root) == DRIVE_REMOTE;
}

/* --- security descriptors ------------------------------------------------------------ */

static PSID
sid_from(const char *s)
{
	wchar_t *w = W(s);
	PSID sid = NULL;

	if (!ConvertStringSidToSidW(w, &sid))
		sid = NULL;
	free(w);
	return sid;
}

static char *
sid_str(PSID sid)
{
	LPWSTR w = NULL;
	char *s;

	if (!ConvertSidToStringSidW(sid, &w))
		return NULL;
	s = U(w);
	LocalFree(w);
	return s;
}

int
wa_sid_valid(const char *s)
{
	PSID sid;

	if (strncmp(s, "S-1-", 4) != 0 || (sid = sid_from(s)) == NULL)
		return 0;
	LocalFree(sid);
	return 1;
}

int
wa_dacl_get(const char *p, struct wa_dacl *d)
{
	wchar_t *w = W(p);
	PACL acl = NULL;
	PSECURITY_DESCRIPTOR sd = NULL;
	SECURITY_DESCRIPTOR_CONTROL ctl = 0;
	ACL_SIZE_INFORMATION si;
	DWORD rc, rev;

	memset(d, 0, sizeof(*d));
	rc = GetNamedSecurityInfoW(w, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL,
	    &acl, NULL, &sd);
	free(w);
	if (rc != ERROR_SUCCESS)
		return fail_code(rc, "GetNamedSecurityInfoW %s", p);
	if (acl == NULL) {
		LocalFree(sd);
		/* A NULL DACL grants everyone everything; an entry added to it would take
		 * that away from everyone else. */
		snprintf(errbuf, sizeof(errbuf), "%s has no DACL (everyone has full access); "
		    "srt-win does not change it", p);
		err_denied = 0;
		return -1;
	}
	GetSecurityDescriptorControl(sd, &ctl, &rev);
	d->protect = (ctl & SE_DACL_PROTECTED) != 0;
	if (!GetAclInformation(acl, &si, sizeof(si), AclSizeInformation)) {
		LocalFree(sd);
		return fail_last("GetAclInformation %s", p);
	}
	for (DWORD i = 0; i < si.AceCount; i++) {
		ACE_HEADER *h;
		struct wa_ace a = { 0 };

		if (!GetAce(acl, i, (LPVOID *)&h)) {
			LocalFree(sd);
			wa_dacl_free(d);
			return fail_last("GetAce %s", p);
		}
		if (h->AceFlags & INHERITED_ACE)
			continue;
		if (h->AceType == ACCESS_ALLOWED_ACE_TYPE || h->AceType == ACCESS_DENIED_ACE_TYPE) {
			ACCESS_ALLOWED_ACE *x = (ACCESS_ALLOWED_ACE *)h;

			a.deny = h->AceType == ACCESS_DENIED_ACE_TYPE;
			a.mask = x->Mask;
			a.flags = h->AceFlags;
			a.sid = sid_str((PSID)&x->SidStart);
		}
		if (a.sid == NULL) {
			/* Another kind of entry: kept byte for byte, never ours. */
			a.deny = -1;
			a.sid = xstrdup("");
			a.raw = xmalloc(h->AceSize);
			memcpy(a.raw, h, h->AceSize);
			a.rawlen = h->AceSize;
		}
		d->v = xrealloc(d->v, d->n + 1, sizeof(*d->v));
		d->v[d->n++] = a;
	}
	LocalFree(sd);
	return 0;
}

/* An ACL of d's entries, then (when from is given) from's inherited entries as they are. */
static PACL
build_acl(const struct wa_dacl *d, PACL from, const char *p)
{
	DWORD size = sizeof(ACL), rev = ACL_REVISION;
	PSID *sids = xcalloc(d->n ? d->n : 1, sizeof(PSID));
	ACL_SIZE_INFORMATION si = { 0 };
	ACE_HEADER *h;
	PACL acl = NULL;
	size_t i;
	int ok = 0;

	if (from != NULL && !GetAclInformation(from, &si, sizeof(si), AclSizeInformation)) {
		fail_last("GetAclInformation %s", p);
		goto out;
	}
	for (i = 0; i < d->n; i++) {
		if (d->v[i].raw != NULL) {
			size += (DWORD)d->v[i].rawlen;
			if (((ACE_HEADER *)d->v[i].raw)->AceType > ACCESS_MAX_MS_V2_ACE_TYPE)
				rev = ACL_REVISION_DS;
			continue;
		}
		if ((sids[i] = sid_from(d->v[i].sid)) == NULL) {
			fail_last("SID %s", d->v[i].sid);
			goto out;
		}
		size += sizeof(ACCESS_ALLOWED_ACE) - sizeof(DWORD) + GetLengthSid(sids[i]);
	}
	for (DWORD k = 0; k < si.AceCount; k++)
		if (GetAce(from, k, (LPVOID *)&h) && (h->AceFlags & INHERITED_ACE)) {
			size += h->AceSize;
			if (h->AceType > ACCESS_MAX_MS_V2_ACE_TYPE)
				rev = ACL_REVISION_DS;
		}
	size = (size + 3) & ~3u;
	acl = xcalloc(1, size);
	if (!InitializeAcl(acl, size, rev)) {
		fail_last("InitializeAcl");
		goto out;
	}
	for (i = 0; i < d->n; i++) {
		BOOL r;

		if (d->v[i].raw != NULL)
			r = AddAce(acl, rev, MAXDWORD, d->v[i].raw, (DWORD)d->v[i].rawlen);
		else if (d->v[i].deny)
			r = AddAccessDeniedAceEx(acl, rev, d->v[i].flags, d->v[i].mask, sids[i]);
		else
			r = AddAccessAllowedAceEx(acl, rev, d->v[i].flags, d->v[i].mask, sids[i]);
		if (!r) {
			fail_last("adding an entry for %s", p);
			goto out;
		}
	}
	/* The inherited entries after the explicit ones, as Windows orders them. */
	for (DWORD k = 0; k < si.AceCount; k++)
		if (GetAce(from, k, (LPVOID *)&h) && (h->AceFlags & INHERITED_ACE) &&
		    !AddAce(acl, rev, MAXDWORD, h, h->AceSize)) {
			fail_last("copying an inherited entry of %s", p);
			goto out;
		}
	ok = 1;
out:
	for (i = 0; i < d->n; i++)
		if (sids[i] != NULL)
			LocalFree(sids[i]);
	free(sids);
	if (!ok) {
		free(acl);
		acl = NULL;
	}
	return acl;
}

/* The entries that children inherit, in order: what a change must propagate. */
static int
inheritable_same(PACL old, const struct wa_dacl *d)
{
	ACL_SIZE_INFORMATION si = { 0 };
	ACE_HEADER *h;
	size_t i = 0;

	if (!GetAclInformation(old, &si, sizeof(si), AclSizeInformation))
		return 0;
	for (DWORD k = 0; k < si.AceCount; k++) {
		if (!GetAce(old, k, (LPVOID *)&h))
			return 0;
		if ((h->AceFlags & INHERITED_ACE) || !(h->AceFlags & (OBJECT_INHERIT_ACE |
		    CONTAINER_INHERIT_ACE)))
			continue;
		while (i < d->n && !(d->v[i].flags & (OBJECT_INHERIT_ACE | CONTAINER_INHERIT_ACE)))
			i++;
		if (i == d->n)
			return 0;
		if (d->v[i].raw != NULL) {
			if (d->v[i].rawlen != h->AceSize || memcmp(d->v[i].raw, h, h->AceSize) != 0)
				return 0;
		} else {
			ACCESS_ALLOWED_ACE *x = (ACCESS_ALLOWED_ACE *)h;
			char *sid;
			int same;

			if ((h->AceType != ACCESS_ALLOWED_ACE_TYPE &&
			    h->AceType != ACCESS_DENIED_ACE_TYPE) ||
			    (h->AceType == ACCESS_DENIED_ACE_TYPE) != (d->v[i].deny == 1) ||
			    x->Mask != d->v[i].mask || h->AceFlags != d->v[i].flags)
				return 0;
			sid = sid_str((PSID)&x->SidStart);
			same = sid != NULL && strcmp(sid, d->v[i].sid) == 0;
			free(sid);
			if (!same)
				return 0;
		}
		i++;
	}
	for (; i < d->n; i++)
		if (d->v[i].flags & (OBJECT_INHERIT_ACE | CONTAINER_INHERIT_ACE))
			return 0;
	return 1;
}

/*
 * SetNamedSecurityInfoW re-applies inheritance to every object beneath a directory,
 * which on a home directory takes minutes. When no entry that children inherit
 * changes (a delete-child deny on a parent, anything on a file), the DACL is written
 * as it is with SetFileSecurityW, its inherited entries and inheritance bits kept, and
 * nothing beneath is visited.
 */
int
wa_dacl_set(const char *p, const struct wa_dacl *d)
{
	wchar_t *w = W(p);
	PSECURITY_DESCRIPTOR cur = NULL;
	SECURITY_DESCRIPTOR sd;
	SECURITY_DESCRIPTOR_CONTROL ctl = 0, bits = SE_DACL_AUTO_INHERITED | SE_DACL_PROTECTED;
	PACL old = NULL, acl = NULL;
	DWORD rc, rev;
	const char *how;
	int ret = -1;

	rc = GetNamedSecurityInfoW(w, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL,
	    &old, NULL, &cur);
	if (rc != ERROR_SUCCESS) {
		fail_code(rc, "GetNamedSecurityInfoW %s", p);
		goto out;
	}
	if (old != NULL && GetSecurityDescriptorControl(cur, &ctl, &rev) &&
	    inheritable_same(old, d)) {
		how = "SetFileSecurityW";
		if ((acl = build_acl(d, old, p)) == NULL)
			goto out;
		if (!InitializeSecurityDescriptor(&sd, SECURITY_DESCRIPTOR_REVISION) ||
		    !SetSecurityDescriptorDacl(&sd, TRUE, acl, FALSE) ||
		    !SetSecurityDescriptorControl(&sd, bits, ctl & bits)) {
			fail_last("a security descriptor for %s", p);
			goto out;
		}
		if (!SetFileSecurityW(w, DACL_SECURITY_INFORMATION, &sd)) {
			fail_last("SetFileSecurityW %s", p);
			goto out;
		}
	} else {
		/* Windows propagates the inheritable entries to everything beneath. */
		how = "SetNamedSecurityInfoW";
		if ((acl = build_acl(d, NULL, p)) == NULL)
			goto out;
		rc = SetNamedSecurityInfoW(w, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION |
		    (d->protect ? PROTECTED_DACL_SECURITY_INFORMATION :
		    UNPROTECTED_DACL_SECURITY_INFORMATION), NULL, NULL, acl, NULL);
		if (rc != ERROR_SUCCESS) {
			fail_code(rc, "SetNamedSecurityInfoW %s", p);
			goto out;
		}
	}
	if (sw_debug) {
		fprintf(stderr, "srt-win: %s %s:", how, p);
		for (size_t i = 0; i < d->n; i++)
			if (d->v[i].raw == NULL)
				fprintf(stderr, " %s:%s:0x%08lx:%s", d->v[i].deny ? "deny" :
				    "allow", d->v[i].sid, (unsigned long)d->v[i].mask,
				    (d->v[i].flags & 3) == 3 ? "OICI" : "-");
		fputc('\n', stderr);
	}
	ret = 0;
out:
	if (cur != NULL)
		LocalFree(cur);
	free(acl);
	free(w);
	return ret;
}

void
wa_dacl_free(struct wa_dacl *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->v[i].sid);
		free(d->v[i].raw);
	}
	free(d->v);
	memset(d, 0, sizeof(*d));
}

typedef BOOL (WINAPI *derive_fn)(LPCWSTR, PSID **, DWORD *, PSID **, DWORD *);

int
wa_capability_sid(const char *name, char **sid)
{
	HMODULE k = GetModuleHandleW(L"kernelbase.dll");
	derive_fn derive = k ? (derive_fn)(void (*)(void))GetProcAddress(k,
	    "DeriveCapabilitySidsFromName") : NULL;
	PSID *groups = NULL, *caps = NULL;
	DWORD ng = 0, nc = 0;
	wchar_t *w;
	BOOL ok;

	if (derive == NULL)
		return fail_code(ERROR_CALL_NOT_IMPLEMENTED, "DeriveCapabilitySidsFromName");
	w = W(name);
	ok = derive(w, &groups, &ng, &caps, &nc);
	free(w);
	if (!ok || nc == 0)
		return fail_last("DeriveCapabilitySidsFromName %s", name);
	*sid = sid_str(caps[0]);
	for (DWORD i = 0; i < ng; i++)
		LocalFree(groups[i]);
	for (DWORD i = 0; i < nc; i++)
		LocalFree(caps[i]);
	LocalFree(groups);
	LocalFree(caps);
	return *sid != NULL ? 0 : fail_last("ConvertSidToStringSidW");
}

/* --- processes -------------------------------------------------------------------------- */

unsigned long
wa_pid(void)
{
	return GetCurrentProcessId();
}

int
wa_process_alive(unsigned long pid, uint64_t start, uint64_t *startp)
{
	HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION | SYNCHRONIZE, FALSE,
	    (DWORD)pid);
	FILETIME c, e, k, u;
	uint64_t s;
	int alive;

	if (h == NULL)
		return GetLastError() == ERROR_INVALID_PARAMETER ? 0 : -1;
	if (!GetProcessTimes(h, &c, &e, &k, &u)) {
		CloseHandle(h);
		return -1;
	}
	s = (uint64_t)c.dwHighDateTime << 32 | c.dwLowDateTime;
	alive = WaitForSingleObject(h, 0) == WAIT_TIMEOUT && (start == 0 || s == start);
	CloseHandle(h);
	if (alive && startp != NULL)
		*startp = s;
	return alive;
}

/* "NAME=value\0...\0\0" */
static wchar_t *
env_block(char *const *env)
{
	size_t n = 1, off = 0;
	wchar_t *b, **w;
	size_t cnt = 0;

	for (char *const *e = env; *e != NULL; e++)
		cnt++;
	w = xcalloc(cnt + 1, sizeof(*w));
	for (size_t i = 0; i < cnt; i++) {
		w[i] = W(env[i]);
		n += wcslen(w[i]) + 1;
	}
	b = xcalloc(n, sizeof(wchar_t));
	for (size_t i = 0; i < cnt; i++) {
		size_t l = wcslen(w[i]) + 1;

		memcpy(b + off, w[i], l * sizeof(wchar_t));
		off += l;
		free(w[i]);
	}
	free(w);
	return b;
}

/* argv[0] found through the command's own PATH, as its shell would find it. */
static wchar_t *
find_program(const char *prog, char *const *env)
{
	const char *path = env != NULL ? env_get(env, "PATH") : NULL;
	wchar_t *wp = W(prog), *wpath, buf[32768];
	DWORD n;

	if (strpbrk(prog, "\\/:") != NULL || path == NULL)
		return wp;
	wpath = W(path);
	n = SearchPathW(wpath, wp, L".exe", 32768, buf, NULL);
	free(wpath);
	if (n == 0 || n >= 32768)
		return wp;
	free(wp);
	return _wcsdup(buf);
}

static void
std_handles(STARTUPINFOW *si, HANDLE *list, DWORD *nlist)
{
	HANDLE h[3] = { GetStdHandle(STD_INPUT_HANDLE), GetStdHandle(STD_OUTPUT_HANDLE),
	    GetStdHandle(STD_ERROR_HANDLE) };

	si->dwFlags |= STARTF_USESTDHANDLES;
	si->hStdInput = h[0];
	si->hStdOutput = h[1];
	si->hStdError = h[2];
	*nlist = 0;
	for (int i = 0; i < 3; i++) {
		int dup = 0;

		if (h[i] == NULL || h[i] == INVALID_HANDLE_VALUE)
			continue;
		SetHandleInformation(h[i], HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT);
		for (DWORD k = 0; k < *nlist; k++)
			dup |= list[k] == h[i];
		if (!dup)
			list[(*nlist)++] = h[i];
	}
}

static BOOL WINAPI
ignore_ctrl(DWORD type)
{
	(void)type;
	return TRUE;    /* the command gets it too; the runner waits for its end */
}

static HANDLE
restricted_token(const struct wa_spawn *sp)
{
	HANDLE self = NULL, rt = NULL;
	SID_AND_ATTRIBUTES disable[1], *restrict_to = NULL;
	PSID admins = NULL, everyone = NULL, restricted = NULL, user = NULL;
	TOKEN_USER *tu = NULL;
	DWORD n = 0, nr = 0, nd = 0;
	SID_IDENTIFIER_AUTHORITY nt = SECURITY_NT_AUTHORITY, world =
	    SECURITY_WORLD_SID_AUTHORITY;
	size_t nroots = 0;

	if (!OpenProcessToken(GetCurrentProcess(), TOKEN_DUPLICATE | TOKEN_ASSIGN_PRIMARY |
	    TOKEN_QUERY | TOKEN_ADJUST_DEFAULT, &self)) {
		fail_last("OpenProcessToken");
		return NULL;
	}
	AllocateAndInitializeSid(&nt, 2, SECURITY_BUILTIN_DOMAIN_RID,
	    DOMAIN_ALIAS_RID_ADMINS, 0, 0, 0, 0, 0, 0, &admins);
	disable[nd].Sid = admins;
	disable[nd++].Attributes = 0;
	if (sp->write_restricted) {
		GetTokenInformation(self, TokenUser, NULL, 0, &n);
		tu = xmalloc(n ? n : 1);
		if (!GetTokenInformation(self, TokenUser, tu, n, &n)) {
			fail_last("GetTokenInformation");
			goto out;
		}
		user = tu->User.Sid;
		AllocateAndInitializeSid(&world, 1, SECURITY_WORLD_RID, 0, 0, 0, 0, 0, 0, 0,
		    &everyone);
		AllocateAndInitializeSid(&nt, 1, SECURITY_RESTRICTED_CODE_RID, 0, 0, 0, 0, 0,
		    0, 0, &restricted);
		for (char **r = sp->restrict_sids; r != NULL && *r != NULL; r++)
			nroots++;
		restrict_to = xcalloc(3 + nroots, sizeof(*restrict_to));
		restrict_to[nr++].Sid = user;
		restrict_to[nr++].Sid = everyone;
		restrict_to[nr++].Sid = restricted;
		for (size_t i = 0; i < nroots; i++) {
			if ((restrict_to[nr].Sid = sid_from(sp->restrict_sids[i])) == NULL) {
				fail_last("SID %s", sp->restrict_sids[i]);
				goto out;
			}
			nr++;
		}
	}
	/* Every privilege goes but SeChangeNotify (traversal); Administrators, if the
	 * account were one, only denies. */
	if (!CreateRestrictedToken(self, DISABLE_MAX_PRIVILEGE | LUA_TOKEN |
	    (sp->write_restricted ? WRITE_RESTRICTED : 0), nd, disable, 0, NULL, nr,
	    restrict_to, &rt)) {
		fail_last("CreateRestrictedToken");
		rt = NULL;
	}
out:
	for (DWORD i = 3; restrict_to != NULL && i < nr; i++)
		LocalFree(restrict_to[i].Sid);
	free(restrict_to);
	free(tu);
	if (admins)
		FreeSid(admins);
	if (everyone)
		FreeSid(everyone);
	if (restricted)
		FreeSid(restricted);
	CloseHandle(self);
	return rt;
}

static HANDLE
kill_on_close_job(void)
{
	JOBOBJECT_EXTENDED_LIMIT_INFORMATION li = { 0 };
	JOBOBJECT_BASIC_UI_RESTRICTIONS ui = { 0 };
	HANDLE job = CreateJobObjectW(NULL, NULL);

	if (job == NULL) {
		fail_last("CreateJobObjectW");
		return NULL;
	}
	li.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE |
	    JOB_OBJECT_LIMIT_DIE_ON_UNHANDLED_EXCEPTION;
	if (!SetInformationJobObject(job, JobObjectExtendedLimitInformation, &li,
	    sizeof(li))) {
		fail_last("SetInformationJobObject (kill on close)");
		CloseHandle(job);
		return NULL;
	}
	ui.UIRestrictionsClass = JOB_OBJECT_UILIMIT_DESKTOP | JOB_OBJECT_UILIMIT_DISPLAYSETTINGS |
	    JOB_OBJECT_UILIMIT_EXITWINDOWS | JOB_OBJECT_UILIMIT_GLOBALATOMS |
	    JOB_OBJECT_UILIMIT_HANDLES | JOB_OBJECT_UILIMIT_READCLIPBOARD |
	    JOB_OBJECT_UILIMIT_SYSTEMPARAMETERS | JOB_OBJECT_UILIMIT_WRITECLIPBOARD;
	if (!SetInformationJobObject(job, JobObjectBasicUIRestrictions, &ui, sizeof(ui))) {
		fail_last("SetInformationJobObject (UI limits)");
		CloseHandle(job);
		return NULL;
	}
	return job;
}

/* Wait for h, or for the watched process to end first (1). */
static int
wait_watch(HANDLE h, unsigned long watch, uint64_t start)
{
	HANDLE w[2] = { h, NULL };
	DWORD r;

	if (watch != 0 && wa_process_alive(watch, start, NULL) == 1)
		w[1] = OpenProcess(SYNCHRONIZE, FALSE, (DWORD)watch);
	r = WaitForMultipleObjects(w[1] != NULL ? 2 : 1, w, FALSE, INFINITE);
	if (w[1] != NULL)
		CloseHandle(w[1]);
	return r == WAIT_OBJECT_0 + 1 ? 1 : 0;
}

int
wa_run_contained(const struct wa_spawn *sp, int *status)
{
	STARTUPINFOEXW si;
	PROCESS_INFORMATION pi = { 0 };
	HANDLE token = NULL, job = NULL, list[3];
	DWORD nlist, code = 1;
	SIZE_T asize = 0;
	wchar_t *app = NULL, *cmd = NULL, *env = NULL, *cwd = NULL;
	char *line = NULL;
	int rc = -1, ended = 0;

	memset(&si, 0, sizeof(si));
	si.StartupInfo.cb = sizeof(si);
	if ((token = restricted_token(sp)) == NULL || (job = kill_on_close_job()) == NULL)
		goto out;
	std_handles(&si.StartupInfo, list, &nlist);
	/* Only the standard handles are inherited, whatever else is inheritable. */
	InitializeProcThreadAttributeList(NULL, 1, 0, &asize);
	si.lpAttributeList = xcalloc(1, asize);
	if (!InitializeProcThreadAttributeList(si.lpAttributeList, 1, 0, &asize) ||
	    (nlist > 0 && !UpdateProcThreadAttribute(si.lpAttributeList, 0,
	    PROC_THREAD_ATTRIBUTE_HANDLE_LIST, list, nlist * sizeof(HANDLE), NULL, NULL))) {
		fail_last("the handle list");
		goto out;
	}
	line = cmdline_join(sp->argv);
	cmd = W(line);
	app = find_program(sp->argv[0], sp->env);
	env = sp->env != NULL ? env_block(sp->env) : NULL;
	cwd = sp->cwd != NULL ? W(sp->cwd) : NULL;
	SetConsoleCtrlHandler(ignore_ctrl, TRUE);
	/* Suspended until it is in the job: nothing it starts can escape the job. */
	if (!CreateProcessAsUserW(token, app, cmd, NULL, NULL, nlist > 0, CREATE_SUSPENDED |
	    CREATE_UNICODE_ENVIRONMENT | EXTENDED_STARTUPINFO_PRESENT, env, cwd,
	    &si.StartupInfo, &pi)) {
		fail_last("CreateProcessAsUserW %s", sp->argv[0]);
		goto out;
	}
	if (!AssignProcessToJobObject(job, pi.hProcess)) {
		fail_last("AssignProcessToJobObject");
		TerminateProcess(pi.hProcess, 1);
		goto out;
	}
	if (ResumeThread(pi.hThread) == (DWORD)-1) {
		fail_last("ResumeThread");
		TerminateProcess(pi.hProcess, 1);
		goto out;
	}
	ended = wait_watch(pi.hProcess, sp->watch_pid, sp->watch_start);
	if (ended)
		TerminateJobObject(job, 1);
	else if (!GetExitCodeProcess(pi.hProcess, &code)) {
		fail_last("GetExitCodeProcess");
		goto out;
	}
	*status = (int)code;
	rc = ended;
out:
	if (pi.hProcess)
		CloseHandle(pi.hProcess);
	if (pi.hThread)
		CloseHandle(pi.hThread);
	/* Closing the job kills whatever the command left running. */
	if (job)
		CloseHandle(job);
	if (token)
		CloseHandle(token);
	if (si.lpAttributeList) {
		DeleteProcThreadAttributeList(si.lpAttributeList);
		free(si.lpAttributeList);
	}
	free(app);
	free(cmd);
	free(env);
	free(cwd);
	free(line);
	return rc;
}

int
wa_run_as_user(const char *user, const char *password, const struct wa_spawn *sp,
    int *status, enum wa_logon *why)
{
	STARTUPINFOW si = { 0 };
	PROCESS_INFORMATION pi = { 0 };
	HANDLE list[3];
	DWORD nlist, code = 1, e;
	wchar_t *wu = W(user), *wpw = W(password), *app = W(sp->argv[0]), *cmd, *cwd;
	char *line = cmdline_join(sp->argv);
	int rc = -1, ended;

	*why = WA_LOGON_OK;
	si.cb = sizeof(si);
	std_handles(&si, list, &nlist);
	cmd = W(line);
	cwd = sp->cwd != NULL ? W(sp->cwd) : NULL;
	/* The account's own profile environment (lpEnvironment NULL): none of ours. */
	if (!CreateProcessWithLogonW(wu, L".", wpw, LOGON_WITH_PROFILE, app, cmd,
	    CREATE_UNICODE_ENVIRONMENT | CREATE_NO_WINDOW, NULL, cwd, &si, &pi)) {
		e = GetLastError();
		*why = e == ERROR_SERVICE_DISABLED ? WA_LOGON_SECLOGON_DISABLED :
		    e == ERROR_SERVICE_DOES_NOT_EXIST ? WA_LOGON_SECLOGON_MISSING :
		    WA_LOGON_FAILED;
		fail_code(e, "CreateProcessWithLogonW %s", user);
		goto out;
	}
	ended = wait_watch(pi.hProcess, sp->watch_pid, sp->watch_start);
	if (ended) {
		/* The runner's job goes with it, and the command with the job. */
		TerminateProcess(pi.hProcess, 1);
		WaitForSingleObject(pi.hProcess, INFINITE);
	} else if (!GetExitCodeProcess(pi.hProcess, &code)) {
		fail_last("GetExitCodeProcess");
		goto out;
	}
	*status = (int)code;
	rc = ended;
out:
	SecureZeroMemory(wpw, wcslen(wpw) * sizeof(wchar_t));
	if (pi.hProcess)
		CloseHandle(pi.hProcess);
	if (pi.hThread)
		CloseHandle(pi.hThread);
	free(wu);
	free(wpw);
	free(app);
	free(cmd);
	free(cwd);
	free(line);
	return rc;
}

int
wa_run_elevated(char **argv, int *status)
{
	SHELLEXECUTEINFOW ei = { 0 };
	char *params = cmdline_join(argv + 1);
	wchar_t *file = W(argv[0]), *wparams = W(params);
	DWORD code = 1;
	int rc = -1;

	ei.cbSize = sizeof(ei);
	ei.fMask = SEE_MASK_NOCLOSEPROCESS | SEE_MASK_NOASYNC;
	ei.lpVerb = L"runas";
	ei.lpFile = file;
	ei.lpParameters = wparams;
	ei.nShow = SW_HIDE;
	if (!ShellExecuteExW(&ei)) {
		if (GetLastError() == ERROR_CANCELLED)
			rc = 1;
		else
			fail_last("ShellExecuteExW runas");
		goto out;
	}
	if (ei.hProcess == NULL) {
		fail_code(ERROR_INVALID_HANDLE, "ShellExecuteExW gave no process");
		goto out;
	}
	WaitForSingleObject(ei.hProcess, INFINITE);
	GetExitCodeProcess(ei.hProcess, &code);
	CloseHandle(ei.hProcess);
	*status = (int)code;
	rc = 0;
out:
	free(params);
	free(file);
	free(wparams);
	return rc;
}

int
wa_elevated(void)
{
	HANDLE t;
	TOKEN_ELEVATION e = { 0 };
	DWORD n;
	int r = 0;

	if (OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &t)) {
		r = GetTokenInformation(t, TokenElevation, &e, sizeof(e), &n) &&
		    e.TokenIsElevated;
		CloseHandle(t);
	}
	return r;
}

/* --- accounts ---------------------------------------------------------------------------- */

int
wa_account_sid(const char *name, char **sid)
{
	wchar_t *w = W(name), dom[256];
	BYTE buf[SECURITY_MAX_SID_SIZE];
	DWORD n = sizeof(buf), dn = 256;
	SID_NAME_USE use;
	BOOL ok = LookupAccountNameW(NULL, w, buf, &n, dom, &dn, &use);
	DWORD e = GetLastError();

	free(w);
	if (!ok)
		return e == ERROR_NONE_MAPPED ? 1 : fail_code(e, "LookupAccountNameW %s", name);
	*sid = sid_str(buf);
	return *sid != NULL ? 0 : fail_last("ConvertSidToStringSidW");
}

static int
net_fail(NET_API_STATUS st, const char *what, const char *name)
{
	return fail_code(st, "%s %s", what, name);
}

int
wa_group_create(const char *name, const char *comment)
{
	LOCALGROUP_INFO_1 gi;
	wchar_t *wn = W(name), *wc = W(comment);
	NET_API_STATUS st;

	gi.lgrpi1_name = wn;
	gi.lgrpi1_comment = wc;
	st = NetLocalGroupAdd(NULL, 1, (LPBYTE)&gi, NULL);
	free(wn);
	free(wc);
	if (st == NERR_Success || st == NERR_GroupExists || st == ERROR_ALIAS_EXISTS)
		return 0;
	return net_fail(st, "NetLocalGroupAdd", name);
}

int
wa_group_delete(const char *name)
{
	wchar_t *w = W(name);
	NET_API_STATUS st = NetLocalGroupDel(NULL, w);

	free(w);
	return st == NERR_Success || st == NERR_GroupNotFound ||
	    st == ERROR_NO_SUCH_ALIAS ? 0 : net_fail(st, "NetLocalGroupDel", name);
}

/* Keep the account off the sign-in screen. */
static void
hide_from_logon(const wchar_t *name)
{
	HKEY k;
	DWORD zero = 0;

	if (RegCreateKeyExW(HKEY_LOCAL_MACHINE, L"SOFTWARE\\Microsoft\\Windows NT\\"
	    L"CurrentVersion\\Winlogon\\SpecialAccounts\\UserList", 0, NULL, 0, KEY_SET_VALUE,
	    NULL, &k, NULL) != ERROR_SUCCESS)
		return;
	RegSetValueExW(k, name, 0, REG_DWORD, (const BYTE *)&zero, sizeof(zero));
	RegCloseKey(k);
}

int
wa_user_create(const char *name, const char *password, const char *comment)
{
	USER_INFO_1 ui = { 0 };
	wchar_t *wn = W(name), *wp = W(password), *wc = W(comment);
	NET_API_STATUS st;

	ui.usri1_name = wn;
	ui.usri1_password = wp;
	ui.usri1_priv = USER_PRIV_USER;
	ui.usri1_comment = wc;
	ui.usri1_flags = UF_SCRIPT | UF_DONT_EXPIRE_PASSWD | UF_PASSWD_CANT_CHANGE;
	st = NetUserAdd(NULL, 1, (LPBYTE)&ui, NULL);
	if (st == NERR_Success)
		hide_from_logon(wn);
	SecureZeroMemory(wp, wcslen(wp) * sizeof(wchar_t));
	free(wn);
	free(wp);
	free(wc);
	return st == NERR_Success ? 0 : net_fail(st, "NetUserAdd", name);
}

int
wa_user_set_password(const char *name, const char *password)
{
	USER_INFO_1003 ui;
	wchar_t *wn = W(name), *wp = W(password);
	NET_API_STATUS st;

	ui.usri1003_password = wp;
	st = NetUserSetInfo(NULL, wn, 1003, (LPBYTE)&ui, NULL);
	SecureZeroMemory(wp, wcslen(wp) * sizeof(wchar_t));
	free(wn);
	free(wp);
	return st == NERR_Success ? 0 : net_fail(st, "NetUserSetInfo", name);
}

int
wa_user_delete(const char *name)
{
	wchar_t *w = W(name);
	NET_API_STATUS st = NetUserDel(NULL, w);

	free(w);
	return st == NERR_Success || st == NERR_UserNotFound ? 0 :
	    net_fail(st, "NetUserDel", name);
}

int
wa_group_add(const char *group, const char *user)
{
	LOCALGROUP_MEMBERS_INFO_3 mi;
	wchar_t *wg = W(group), *wu = W(user);
	NET_API_STATUS st;

	mi.lgrmi3_domainandname = wu;
	st = NetLocalGroupAddMembers(NULL, wg, 3, (LPBYTE)&mi, 1);
	free(wg);
	free(wu);
	return st == NERR_Success || st == ERROR_MEMBER_IN_ALIAS ? 0 :
	    net_fail(st, "NetLocalGroupAddMembers", group);
}

int
wa_group_has(const char *group, const char *user)
{
	LOCALGROUP_MEMBERS_INFO_3 *mi = NULL;
	DWORD read = 0, total = 0;
	wchar_t *wg = W(group), *wu = W(user);
	NET_API_STATUS st = NetLocalGroupGetMembers(NULL, wg, 3, (LPBYTE *)&mi,
	    MAX_PREFERRED_LENGTH, &read, &total, NULL);
	int has = 0;

	if (st == NERR_Success) {
		for (DWORD i = 0; i < read && !has; i++) {
			const wchar_t *n = wcsrchr(mi[i].lgrmi3_domainandname, L'\\');

			n = n != NULL ? n + 1 : mi[i].lgrmi3_domainandname;
			has = _wcsicmp(n, wu) == 0;
		}
		NetApiBufferFree(mi);
	}
	free(wg);
	free(wu);
	return st == NERR_Success ? has : -1;
}

int
wa_current_sid(char **sid)
{
	HANDLE t;
	TOKEN_USER *tu;
	DWORD n = 0;

	if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &t))
		return fail_last("OpenProcessToken");
	GetTokenInformation(t, TokenUser, NULL, 0, &n);
	tu = xmalloc(n ? n : 1);
	if (!GetTokenInformation(t, TokenUser, tu, n, &n)) {
		free(tu);
		CloseHandle(t);
		return fail_last("GetTokenInformation");
	}
	*sid = sid_str(tu->User.Sid);
	free(tu);
	CloseHandle(t);
	return *sid != NULL ? 0 : -1;
}

int
wa_random(void *buf, size_t n)
{
	NTSTATUS st = BCryptGenRandom(NULL, buf, (ULONG)n, BCRYPT_USE_SYSTEM_PREFERRED_RNG);

	return st == 0 ? 0 : fail_code((DWORD)st, "BCryptGenRandom");
}

/* --- the machine record -------------------------------------------------------------- */

int
wa_record_get(const char *name, char **value)
{
	wchar_t *w = W(name), *buf;
	DWORD n = 0, rc;

	rc = RegGetValueW(HKEY_LOCAL_MACHINE, REG_KEY, w, RRF_RT_REG_SZ, NULL, NULL, &n);
	if (rc == ERROR_FILE_NOT_FOUND) {
		free(w);
		return 1;
	}
	if (rc != ERROR_SUCCESS) {
		free(w);
		return fail_code(rc, "reading HKLM\\SOFTWARE\\srt-win\\%s", name);
	}
	buf = xcalloc(n / sizeof(wchar_t) + 1, sizeof(wchar_t));
	rc = RegGetValueW(HKEY_LOCAL_MACHINE, REG_KEY, w, RRF_RT_REG_SZ, NULL, buf, &n);
	free(w);
	if (rc != ERROR_SUCCESS) {
		free(buf);
		return fail_code(rc, "reading HKLM\\SOFTWARE\\srt-win\\%s", name);
	}
	*value = U(buf);
	SecureZeroMemory(buf, n);
	free(buf);
	return 0;
}

/* The key: SYSTEM and Administrators full, Users read, the sandbox group nothing (its
 * account must not read its own password). */
static int
record_key(HKEY *k)
{
	PSECURITY_DESCRIPTOR sd = NULL;
	char *gsid = NULL, *sddl;
	wchar_t *w;
	DWORD rc;

	if (wa_account_sid(SW_GROUP, &gsid) != 0)
		gsid = NULL;
	sddl = xasprintf("D:P(A;OICI;KA;;;SY)(A;OICI;KA;;;BA)(A;OICI;KR;;;BU)%s%s%s",
	    gsid ? "(D;OICI;KA;;;" : "", gsid ? gsid : "", gsid ? ")" : "");
	w = W(sddl);
	free(sddl);
	free(gsid);
	if (!ConvertStringSecurityDescriptorToSecurityDescriptorW(w, SDDL_REVISION_1, &sd,
	    NULL)) {
		free(w);
		return fail_last("the record's security descriptor");
	}
	free(w);
	rc = RegCreateKeyExW(HKEY_LOCAL_MACHINE, REG_KEY, 0, NULL, 0, KEY_ALL_ACCESS, NULL, k,
	    NULL);
	if (rc == ERROR_SUCCESS)
		rc = RegSetKeySecurity(*k, DACL_SECURITY_INFORMATION, sd);
	LocalFree(sd);
	return rc == ERROR_SUCCESS ? 0 : fail_code(rc, "HKLM\\SOFTWARE\\srt-win");
}

int
wa_record_set(const char *name, const char *value)
{
	HKEY k;
	wchar_t *wn, *wv;
	DWORD rc;

	if (record_key(&k) != 0)
		return -1;
	wn = W(name);
	wv = W(value);
	rc = RegSetValueExW(k, wn, 0, REG_SZ, (const BYTE *)wv,
	    (DWORD)((wcslen(wv) + 1) * sizeof(wchar_t)));
	SecureZeroMemory(wv, wcslen(wv) * sizeof(wchar_t));
	free(wn);
	free(wv);
	RegCloseKey(k);
	return rc == ERROR_SUCCESS ? 0 : fail_code(rc, "writing the record %s", name);
}

int
wa_record_delete(const char *name)
{
	wchar_t *w = W(name);
	DWORD rc = RegDeleteKeyValueW(HKEY_LOCAL_MACHINE, REG_KEY, w);

	free(w);
	RegDeleteKeyW(HKEY_LOCAL_MACHINE, REG_KEY);     /* if it is empty now */
	return rc == ERROR_SUCCESS || rc == ERROR_FILE_NOT_FOUND ? 0 :
	    fail_code(rc, "deleting the record %s", name);
}

/* --- WFP -------------------------------------------------------------------------------- */

static int
parse_guid(const char *s, GUID *g)
{
	wchar_t *w, *b;
	HRESULT hr;

	b = W(s);
	w = xcalloc(wcslen(b) + 3, sizeof(wchar_t));
	swprintf(w, wcslen(b) + 3, L"{%ls}", b);
	free(b);
	hr = CLSIDFromString(w, g);
	free(w);
	return SUCCEEDED(hr) ? 0 : fail_code((DWORD)hr, "GUID %s", s);
}

static int
engine_open(HANDLE *e)
{
	DWORD rc = FwpmEngineOpen0(NULL, RPC_C_AUTHN_WINNT, NULL, NULL, e);

	return rc == ERROR_SUCCESS ? 0 : fail_code(rc, "FwpmEngineOpen0");
}

/* A security descriptor granting FWP_ACTRL_MATCH_FILTER to one SID: the user condition. */
static PSECURITY_DESCRIPTOR
match_sd(const char *sid, ULONG *len)
{
	char *sddl = xasprintf("D:(A;;CC;;;%s)", sid);
	wchar_t *w = W(sddl);
	PSECURITY_DESCRIPTOR sd = NULL;

	free(sddl);
	if (!ConvertStringSecurityDescriptorToSecurityDescriptorW(w, SDDL_REVISION_1, &sd,
	    len)) {
		fail_last("the filter's user condition");
		sd = NULL;
	}
	free(w);
	return sd;
}

int
wa_wfp_install(const char *sublayer, const struct wa_filter *f, size_t n)
{
	HANDLE e = NULL;
	FWPM_SUBLAYER0 sl = { 0 };
	GUID key;
	DWORD rc;
	int ret = -1, tx = 0;

	if (parse_guid(sublayer, &key) != 0 || engine_open(&e) != 0)
		return -1;
	if ((rc = FwpmTransactionBegin0(e, 0)) != ERROR_SUCCESS) {
		fail_code(rc, "FwpmTransactionBegin0");
		goto out;
	}
	tx = 1;
	sl.subLayerKey = key;
	sl.displayData.name = L"srt-win";
	sl.displayData.description = L"srt sandbox account: egress only to the proxies";
	sl.flags = FWPM_SUBLAYER_FLAG_PERSISTENT;
	sl.weight = 0x8000;
	rc = FwpmSubLayerAdd0(e, &sl, NULL);
	if (rc != ERROR_SUCCESS && rc != (DWORD)FWP_E_ALREADY_EXISTS) {
		fail_code(rc, "FwpmSubLayerAdd0");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		FWPM_FILTER0 flt = { 0 };
		FWPM_FILTER_CONDITION0 c[3];
		FWP_BYTE_BLOB blob;
		FWP_V4_ADDR_AND_MASK v4 = { 0x7f000000, 0xff000000 };
		FWP_BYTE_ARRAY16 v6 = { { 0 } };
		FWP_RANGE0 ports;
		PSECURITY_DESCRIPTOR sd;
		ULONG sdlen = 0;
		UINT64 id;
		UINT32 nc = 0;
		wchar_t *name = W(f[i].name);

		if ((sd = match_sd(f[i].user_sid, &sdlen)) == NULL) {
			free(name);
			goto out;
		}
		memset(c, 0, sizeof(c));
		blob.size = sdlen;
		blob.data = sd;
		c[nc].fieldKey = COND_USER_ID;
		c[nc].matchType = FWP_MATCH_EQUAL;
		c[nc].conditionValue.type = FWP_SECURITY_DESCRIPTOR_TYPE;
		c[nc++].conditionValue.sd = &blob;
		if (f[i].loopback) {
			c[nc].fieldKey = COND_REMOTE_ADDRESS;
			c[nc].matchType = FWP_MATCH_EQUAL;
			if (f[i].v6) {
				v6.byteArray16[15] = 1;
				c[nc].conditionValue.type = FWP_BYTE_ARRAY16_TYPE;
				c[nc++].conditionValue.byteArray16 = &v6;
			} else {
				c[nc].conditionValue.type = FWP_V4_ADDR_MASK;
				c[nc++].conditionValue.v4AddrMask = &v4;
			}
		}
		if (f[i].port_lo != 0) {
			ports.valueLow.type = FWP_UINT16;
			ports.valueLow.uint16 = (UINT16)f[i].port_lo;
			ports.valueHigh.type = FWP_UINT16;
			ports.valueHigh.uint16 = (UINT16)f[i].port_hi;
			c[nc].fieldKey = COND_REMOTE_PORT;
			c[nc].matchType = FWP_MATCH_RANGE;
			c[nc].conditionValue.type = FWP_RANGE_TYPE;
			c[nc++].conditionValue.rangeValue = &ports;
		}
		flt.displayData.name = name;
		flt.displayData.description = L"srt-win";
		flt.flags = FWPM_FILTER_FLAG_PERSISTENT;
		flt.layerKey = f[i].v6 ? LAYER_CONNECT_V6 : LAYER_CONNECT_V4;
		flt.subLayerKey = key;
		flt.weight.type = FWP_UINT8;
		flt.weight.uint8 = f[i].weight;
		flt.numFilterConditions = nc;
		flt.filterCondition = c;
		flt.action.type = f[i].permit ? FWP_ACTION_PERMIT : FWP_ACTION_BLOCK;
		rc = FwpmFilterAdd0(e, &flt, NULL, &id);
		LocalFree(sd);
		free(name);
		if (rc != ERROR_SUCCESS) {
			fail_code(rc, "FwpmFilterAdd0 %s", f[i].name);
			goto out;
		}
	}
	if ((rc = FwpmTransactionCommit0(e)) != ERROR_SUCCESS) {
		fail_code(rc, "FwpmTransactionCommit0");
		goto out;
	}
	tx = 0;
	ret = 0;
out:
	if (tx)
		FwpmTransactionAbort0(e);
	if (e)
		FwpmEngineClose0(e);
	return ret;
}

/* Each filter under the sublayer at the two connect layers: count, or delete. */
static int
wfp_each(const char *sublayer, int del, int *count)
{
	const GUID *layers[2] = { &LAYER_CONNECT_V4, &LAYER_CONNECT_V6 };
	HANDLE e = NULL, en;
	GUID key;
	DWORD rc;
	int ret = -1;

	*count = 0;
	if (parse_guid(sublayer, &key) != 0 || engine_open(&e) != 0)
		return -1;
	for (int l = 0; l < 2; l++) {
		FWPM_FILTER_ENUM_TEMPLATE0 t = { 0 };
		FWPM_FILTER0 **v = NULL;
		UINT32 got = 0;

		t.layerKey = *layers[l];
		t.enumType = FWP_FILTER_ENUM_OVERLAPPING;
		t.actionMask = 0xFFFFFFFF;
		if ((rc = FwpmFilterCreateEnumHandle0(e, &t, &en)) != ERROR_SUCCESS) {
			fail_code(rc, "FwpmFilterCreateEnumHandle0");
			goto out;
		}
		do {
			rc = FwpmFilterEnum0(e, en, 256, &v, &got);
			if (rc != ERROR_SUCCESS) {
				FwpmFilterDestroyEnumHandle0(e, en);
				fail_code(rc, "FwpmFilterEnum0");
				goto out;
			}
			for (UINT32 i = 0; i < got; i++) {
				if (!IsEqualGUID(&v[i]->subLayerKey, &key))
					continue;
				(*count)++;
				if (del && (rc = FwpmFilterDeleteById0(e, v[i]->filterId)) !=
				    ERROR_SUCCESS && rc != (DWORD)FWP_E_FILTER_NOT_FOUND) {
					FwpmFreeMemory0((void **)&v);
					FwpmFilterDestroyEnumHandle0(e, en);
					fail_code(rc, "FwpmFilterDeleteById0");
					goto out;
				}
			}
			if (v != NULL)
				FwpmFreeMemory0((void **)&v);
		} while (got == 256);
		FwpmFilterDestroyEnumHandle0(e, en);
	}
	if (del) {
		rc = FwpmSubLayerDeleteByKey0(e, &key);
		if (rc != ERROR_SUCCESS && rc != (DWORD)FWP_E_SUBLAYER_NOT_FOUND) {
			fail_code(rc, "FwpmSubLayerDeleteByKey0");
			goto out;
		}
	}
	ret = 0;
out:
	FwpmEngineClose0(e);
	return ret;
}

int
wa_wfp_count(const char *sublayer, int *n)
{
	return wfp_each(sublayer, 0, n);
}

int
wa_wfp_remove(const char *sublayer)
{
	int n;

	return wfp_each(sublayer, 1, &n);
}

int
wa_connect_probe(const char *host, int port, int *outcome)
{
	WSADATA wd;
	struct addrinfo hints = { 0 }, *ai = NULL;
	char ps[8];
	SOCKET s;
	u_long nb = 1;
	fd_set wr, ex;
	struct timeval tv = { 5, 0 };
	int r, err = 0, len = sizeof(err);

	if (WSAStartup(MAKEWORD(2, 2), &wd) != 0)
		return fail_code((DWORD)WSAGetLastError(), "WSAStartup");
	snprintf(ps, sizeof(ps), "%d", port);
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICHOST;
	if (getaddrinfo(host, ps, &hints, &ai) != 0)
		return fail_code((DWORD)WSAGetLastError(), "%s is not an address", host);
	s = socket(ai->ai_family, SOCK_STREAM, IPPROTO_TCP);
	if (s == INVALID_SOCKET) {
		freeaddrinfo(ai);
		return fail_code((DWORD)WSAGetLastError(), "socket");
	}
	ioctlsocket(s, FIONBIO, &nb);
	r = connect(s, ai->ai_addr, (int)ai->ai_addrlen);
	freeaddrinfo(ai);
	if (r == 0)
		*outcome = 0;
	else if (WSAGetLastError() == WSAEACCES)
		*outcome = 1;           /* refused by a filter before any packet left */
	else if (WSAGetLastError() != WSAEWOULDBLOCK)
		*outcome = 2;
	else {
		FD_ZERO(&wr);
		FD_ZERO(&ex);
		FD_SET(s, &wr);
		FD_SET(s, &ex);
		if (select(0, NULL, &wr, &ex, &tv) <= 0)
			*outcome = 2;
		else {
			getsockopt(s, SOL_SOCKET, SO_ERROR, (char *)&err, &len);
			*outcome = err == 0 ? 0 : err == WSAEACCES ? 1 : 2;
		}
	}
	closesocket(s);
	WSACleanup();
	return 0;
}

/* --- certificates ----------------------------------------------------------------------- */

int
wa_trust_cert(const uint8_t *der, size_t len, char **thumb)
{
	HCERTSTORE st = CertOpenStore(CERT_STORE_PROV_SYSTEM_W, 0, 0,
	    CERT_SYSTEM_STORE_CURRENT_USER, L"Root");
	PCCERT_CONTEXT ctx = NULL;
	BYTE hash[20];
	DWORD n = sizeof(hash);
	char hex[41];

	if (st == NULL)
		return fail_last("CertOpenStore Root");
	if (!CertAddEncodedCertificateToStore(st, X509_ASN_ENCODING, der, (DWORD)len,
	    CERT_STORE_ADD_REPLACE_EXISTING, &ctx)) {
		CertCloseStore(st, 0);
		return fail_last("CertAddEncodedCertificateToStore");
	}
	if (!CertGetCertificateContextProperty(ctx, CERT_SHA1_HASH_PROP_ID, hash, &n)) {
		CertFreeCertificateContext(ctx);
		CertCloseStore(st, 0);
		return fail_last("CertGetCertificateContextProperty");
	}
	for (DWORD i = 0; i < n && i < 20; i++)
		snprintf(hex + 2 * i, 3, "%02x", hash[i]);
	*thumb = xstrdup(hex);
	CertFreeCertificateContext(ctx);
	CertCloseStore(st, 0);
	return 0;
}

#endif /* _WIN32 */
