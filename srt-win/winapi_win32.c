/*
 * winapi.h on Windows (mingw-w64): every Win32 call srt-win makes is in this file and
 * its two siblings, winapi_win32_process.c (processes) and winapi_win32_machine.c
 * (accounts, the machine record, WFP, certificates). Strings cross as UTF-8 and are
 * converted to UTF-16 here; errors become wa_error() text through FormatMessageW. Built
 * only by `make win`.
 */
#ifdef _WIN32

#include <windows.h>
#include <aclapi.h>
#include <initguid.h>
#include <io.h>
#include <fcntl.h>
#include <knownfolders.h>
#include <sddl.h>
#include <shlobj.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "winapi_win32.h"

/* --- strings ------------------------------------------------------------------------ */

wchar_t *
W(const char *s)
{
	int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
	wchar_t *w;

	if (n <= 0)
		fatalx("srt-win: \"%s\" is not UTF-8", s);
	w = xcalloc((size_t)n, sizeof(wchar_t));
	MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n);
	return w;
}

void
free_secret(wchar_t *w)
{
	if (w == NULL)
		return;
	SecureZeroMemory(w, wcslen(w) * sizeof(wchar_t));
	free(w);
}

char *
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

/* "what: Windows' own message (code)" */
int
fail_code(DWORD code, const char *fmt, ...)
{
	wchar_t *msg = NULL;
	char *m = NULL, *tail;
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	wa_fail_v(code == ERROR_ACCESS_DENIED, fmt, ap);
	va_end(ap);
	if (FormatMessageW(FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM |
		    FORMAT_MESSAGE_IGNORE_INSERTS,
		NULL, code, 0, (LPWSTR)&msg, 0, NULL) != 0 &&
	    msg != NULL) {
		m = U(msg);
		LocalFree(msg);
		while ((n = strlen(m)) > 0 &&
		    (m[n - 1] == '\n' || m[n - 1] == '\r' || m[n - 1] == '.' ||
			m[n - 1] == ' '))
			m[n - 1] = '\0';
	}
	tail = xasprintf(": %s (%lu)", m ? m : "error", (unsigned long)code);
	wa_error_append(tail);
	free(tail);
	free(m);
	return -1;
}

/* --- the program's entry: UTF-16 arguments, binary standard streams -------------- */

char **
wa_main_args(int argc, wchar_t **wargv)
{
	char **argv = xcalloc((size_t)argc + 1, sizeof(char *));

	for (int i = 0; i < argc; i++)
		argv[i] = U(wargv[i]);
	_setmode(_fileno(stdin), _O_BINARY);
	_setmode(_fileno(stdout), _O_BINARY);
	_setmode(_fileno(stderr), _O_BINARY);
	return argv;
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
	return CreateFileW(w, FILE_READ_ATTRIBUTES,
	    FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
	    FILE_FLAG_BACKUP_SEMANTICS, NULL);
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
	HANDLE h = CreateFileW(
	    w, GENERIC_WRITE, 0, NULL, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, NULL);

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

		rc = e == ERROR_FILE_NOT_FOUND || e == ERROR_PATH_NOT_FOUND
		    ? 0
		    : fail_code(e, "%s", p);
	} else if (a.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) {
		if (!RemoveDirectoryW(w))
			rc = GetLastError() == ERROR_DIR_NOT_EMPTY
			    ? 1
			    : fail_last("RemoveDirectoryW %s", p);
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
	HANDLE h = CreateFileW(w, GENERIC_READ | GENERIC_WRITE,
	    FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
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
wa_managed_dir(int make, char **path, int *exists, int *made)
{
	/* Owned by Administrators (an elevated token may give its objects that owner), and
	 * not inheriting ProgramData's entries, which let Users add files and folders. */
	static const wchar_t sddl[] = L"O:BAD:P(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)"
				      L"(A;OICI;0x1200a9;;;BU)";
	SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, FALSE };
	char *base, *d;
	wchar_t *w;
	DWORD attr;

	*made = 0;
	if (known_folder(&FOLDERID_ProgramData, &base) != 0)
		return -1;
	d = xasprintf("%s\\srt", base);
	free(base);
	w = W(d);
	attr = GetFileAttributesW(w);
	*exists = attr != INVALID_FILE_ATTRIBUTES;
	if (make && !*exists) {
		if (!ConvertStringSecurityDescriptorToSecurityDescriptorW(
			sddl, SDDL_REVISION_1, &sa.lpSecurityDescriptor, NULL)) {
			free(w);
			fail_last("ConvertStringSecurityDescriptorToSecurityDescriptorW");
			free(d);
			return -1;
		}
		if (!CreateDirectoryW(w, &sa)) {
			LocalFree(sa.lpSecurityDescriptor);
			free(w);
			fail_last("CreateDirectoryW %s", d);
			free(d);
			return -1;
		}
		LocalFree(sa.lpSecurityDescriptor);
		*exists = *made = 1;
	}
	free(w);
	*path = d;
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
	static struct strlist env;
	wchar_t *block = GetEnvironmentStringsW();

	strlist_free(&env);
	for (wchar_t *p = block; p != NULL && *p; p += wcslen(p) + 1)
		if (*p != L'=') /* "=C:=C:\dir": the per-drive directories */
			strlist_push_owned(&env, U(p));
	FreeEnvironmentStringsW(block);
	if (env.v == NULL)
		strlist_push_owned(&env, xstrdup("SystemRoot=C:\\Windows"));
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

PSID
sid_from(const char *s)
{
	wchar_t *w = W(s);
	PSID sid = NULL;

	if (!ConvertStringSidToSidW(w, &sid))
		sid = NULL;
	free(w);
	return sid;
}

char *
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
	rc = GetNamedSecurityInfoW(
	    w, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL, &acl, NULL, &sd);
	free(w);
	if (rc != ERROR_SUCCESS)
		return fail_code(rc, "GetNamedSecurityInfoW %s", p);
	if (acl == NULL) {
		LocalFree(sd);
		/* A NULL DACL grants everyone everything; an entry added to it would take
		 * that away from everyone else. */
		return wa_fail(0,
		    "%s has no DACL (everyone has full access); "
		    "srt-win does not change it",
		    p);
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
		if (h->AceType == ACCESS_ALLOWED_ACE_TYPE ||
		    h->AceType == ACCESS_DENIED_ACE_TYPE) {
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
		d->v = xreallocarray(d->v, d->n + 1, sizeof(*d->v));
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
			r = AddAccessDeniedAceEx(
			    acl, rev, d->v[i].flags, d->v[i].mask, sids[i]);
		else
			r = AddAccessAllowedAceEx(
			    acl, rev, d->v[i].flags, d->v[i].mask, sids[i]);
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
		if ((h->AceFlags & INHERITED_ACE) ||
		    !(h->AceFlags & (OBJECT_INHERIT_ACE | CONTAINER_INHERIT_ACE)))
			continue;
		while (
		    i < d->n && !(d->v[i].flags & (OBJECT_INHERIT_ACE | CONTAINER_INHERIT_ACE)))
			i++;
		if (i == d->n)
			return 0;
		if (d->v[i].raw != NULL) {
			if (d->v[i].rawlen != h->AceSize ||
			    memcmp(d->v[i].raw, h, h->AceSize) != 0)
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

	rc = GetNamedSecurityInfoW(
	    w, SE_FILE_OBJECT, DACL_SECURITY_INFORMATION, NULL, NULL, &old, NULL, &cur);
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
		rc = SetNamedSecurityInfoW(w, SE_FILE_OBJECT,
		    DACL_SECURITY_INFORMATION |
			(d->protect ? PROTECTED_DACL_SECURITY_INFORMATION
				    : UNPROTECTED_DACL_SECURITY_INFORMATION),
		    NULL, NULL, acl, NULL);
		if (rc != ERROR_SUCCESS) {
			fail_code(rc, "SetNamedSecurityInfoW %s", p);
			goto out;
		}
	}
	if (wa_debug) {
		fprintf(stderr, "srt-win: %s %s:", how, p);
		for (size_t i = 0; i < d->n; i++)
			if (d->v[i].raw == NULL)
				fprintf(stderr, " %s:%s:0x%08lx:%s",
				    d->v[i].deny ? "deny" : "allow", d->v[i].sid,
				    (unsigned long)d->v[i].mask,
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

typedef BOOL(WINAPI *derive_fn)(LPCWSTR, PSID **, DWORD *, PSID **, DWORD *);

int
wa_capability_sid(const char *name, char **sid)
{
	HMODULE k = GetModuleHandleW(L"kernelbase.dll");
	derive_fn derive = k
	    ? (derive_fn)(void (*)(void))GetProcAddress(k, "DeriveCapabilitySidsFromName")
	    : NULL;
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


#endif /* _WIN32 */
