/*
 * winapi.h on Windows (mingw-w64), its processes (winapi_win32.c has the rest): a
 * command run contained (a restricted token in a job that ends with us), as another
 * user, or elevated. Built only by `make win`.
 */
#ifdef _WIN32

#include <windows.h>
#include <shellapi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "wincmdline.h"
#include "winapi_win32.h"

/* --- processes -------------------------------------------------------------------------- */

unsigned long
wa_pid(void)
{
	return GetCurrentProcessId();
}

int
wa_process_alive(unsigned long pid, uint64_t start, uint64_t *startp)
{
	HANDLE h = OpenProcess(
	    PROCESS_QUERY_LIMITED_INFORMATION | SYNCHRONIZE, FALSE, (DWORD)pid);
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

/* The one command line a Windows program gets (lib/compat/wincmdline.c). */
static char *
command_line(char *const *argv)
{
	char *line = wincmdline_join(argv);

	if (line == NULL)
		fatalx("out of memory");
	return line;
}

/* argv[0] found through the command's own PATH, as its shell would find it. */
static wchar_t *
find_program(const char *prog, const char *path)
{
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

static enum wa_start start_error;

enum wa_start
wa_start_error(void)
{
	return start_error;
}

/* What CreateProcess's failure means to the caller of a command (as a shell's 127, 126). */
static enum wa_start
start_kind(DWORD e)
{
	switch (e) {
	case ERROR_FILE_NOT_FOUND:
	case ERROR_PATH_NOT_FOUND:
	case ERROR_INVALID_NAME:
	case ERROR_BAD_NETPATH:
		return WA_START_NOTFOUND;
	case ERROR_ACCESS_DENIED:
	case ERROR_BAD_EXE_FORMAT:
	case ERROR_BAD_FORMAT:
	case ERROR_EXE_MACHINE_TYPE_MISMATCH:
	case ERROR_EXE_MARKED_INVALID:
	case ERROR_INVALID_EXE_SIGNATURE:
	case ERROR_SHARING_VIOLATION:
		return WA_START_NOEXEC;
	default:
		return WA_START_OTHER;
	}
}

static HANDLE ctrl_event; /* set by a Ctrl-C or Ctrl-Break (wa_console_keep) */

static BOOL WINAPI
on_ctrl(DWORD type)
{
	if (type != CTRL_C_EVENT && type != CTRL_BREAK_EVENT)
		return FALSE; /* closing, logoff, shutdown: the default, which ends us */
	if (ctrl_event != NULL)
		SetEvent(ctrl_event);
	return TRUE;
}

void
wa_console_keep(void)
{
	if (ctrl_event == NULL)
		ctrl_event = CreateEventW(NULL, TRUE, FALSE, NULL);
	SetConsoleCtrlHandler(on_ctrl, TRUE);
}

static HANDLE
restricted_token(const struct wa_spawn *sp)
{
	HANDLE self = NULL, rt = NULL;
	SID_AND_ATTRIBUTES disable[1], *restrict_to = NULL;
	PSID admins = NULL, everyone = NULL, restricted = NULL, user = NULL;
	TOKEN_USER *tu = NULL;
	DWORD n = 0, nr = 0, nd = 0;
	SID_IDENTIFIER_AUTHORITY nt = SECURITY_NT_AUTHORITY,
				 world = SECURITY_WORLD_SID_AUTHORITY;
	size_t nroots = 0;

	if (!OpenProcessToken(GetCurrentProcess(),
		TOKEN_DUPLICATE | TOKEN_ASSIGN_PRIMARY | TOKEN_QUERY | TOKEN_ADJUST_DEFAULT,
		&self)) {
		fail_last("OpenProcessToken");
		return NULL;
	}
	AllocateAndInitializeSid(&nt, 2, SECURITY_BUILTIN_DOMAIN_RID, DOMAIN_ALIAS_RID_ADMINS,
	    0, 0, 0, 0, 0, 0, &admins);
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
		AllocateAndInitializeSid(
		    &world, 1, SECURITY_WORLD_RID, 0, 0, 0, 0, 0, 0, 0, &everyone);
		AllocateAndInitializeSid(
		    &nt, 1, SECURITY_RESTRICTED_CODE_RID, 0, 0, 0, 0, 0, 0, 0, &restricted);
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
	if (!CreateRestrictedToken(self,
		DISABLE_MAX_PRIVILEGE | LUA_TOKEN |
		    (sp->write_restricted ? WRITE_RESTRICTED : 0),
		nd, disable, 0, NULL, nr, restrict_to, &rt)) {
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
	if (!SetInformationJobObject(job, JobObjectExtendedLimitInformation, &li, sizeof(li))) {
		fail_last("SetInformationJobObject (kill on close)");
		CloseHandle(job);
		return NULL;
	}
	ui.UIRestrictionsClass = JOB_OBJECT_UILIMIT_DESKTOP |
	    JOB_OBJECT_UILIMIT_DISPLAYSETTINGS | JOB_OBJECT_UILIMIT_EXITWINDOWS |
	    JOB_OBJECT_UILIMIT_GLOBALATOMS | JOB_OBJECT_UILIMIT_HANDLES |
	    JOB_OBJECT_UILIMIT_READCLIPBOARD | JOB_OBJECT_UILIMIT_SYSTEMPARAMETERS |
	    JOB_OBJECT_UILIMIT_WRITECLIPBOARD;
	if (!SetInformationJobObject(job, JobObjectBasicUIRestrictions, &ui, sizeof(ui))) {
		fail_last("SetInformationJobObject (UI limits)");
		CloseHandle(job);
		return NULL;
	}
	return job;
}

enum {
	WAIT_ENDED,
	WAIT_WATCH_ENDED,
	WAIT_CTRL
};

/* Wait for h to end, or for the watched process to end first, or (ctrl) for a Ctrl-C. */
static int
wait_watch(HANDLE h, unsigned long watch, uint64_t start, int ctrl)
{
	HANDLE w[3] = { h };
	DWORD n = 1, r, iw = 0, ic = 0;

	if (watch != 0 && wa_process_alive(watch, start, NULL) == 1 &&
	    (w[n] = OpenProcess(SYNCHRONIZE, FALSE, (DWORD)watch)) != NULL)
		iw = n++;
	if (ctrl && ctrl_event != NULL) {
		w[n] = ctrl_event;
		ic = n++;
	}
	r = WaitForMultipleObjects(n, w, FALSE, INFINITE);
	if (iw != 0)
		CloseHandle(w[iw]);
	if (iw != 0 && r == WAIT_OBJECT_0 + iw)
		return WAIT_WATCH_ENDED;
	if (ic != 0 && r == WAIT_OBJECT_0 + ic)
		return WAIT_CTRL;
	return WAIT_ENDED;
}

/* The status of a command that is over, in *status: its exit code, or 1 where we ended it
 * (ended). Returns ended, or -1. */
static int
process_status(HANDLE process, int ended, int *status)
{
	DWORD code = 1;

	if (!ended && !GetExitCodeProcess(process, &code)) {
		fail_last("GetExitCodeProcess");
		return -1;
	}
	*status = (int)code;
	return ended;
}

/* The handles CreateProcess gave, those it gave. */
static void
process_info_close(PROCESS_INFORMATION *pi)
{
	if (pi->hProcess)
		CloseHandle(pi->hProcess);
	if (pi->hThread)
		CloseHandle(pi->hThread);
}

int
wa_run_contained(const struct wa_spawn *sp, int *status)
{
	STARTUPINFOEXW si;
	PROCESS_INFORMATION pi = { 0 };
	HANDLE token = NULL, job = NULL, list[3];
	DWORD nlist;
	SIZE_T asize = 0;
	wchar_t *app = NULL, *cmd = NULL, *env = NULL, *cwd = NULL;
	char *line = NULL;
	int rc = -1, ended = 0;

	start_error = WA_START_OTHER;
	memset(&si, 0, sizeof(si));
	si.StartupInfo.cb = sizeof(si);
	if ((token = restricted_token(sp)) == NULL || (job = kill_on_close_job()) == NULL)
		goto out;
	std_handles(&si.StartupInfo, list, &nlist);
	/* Only the standard handles are inherited, whatever else is inheritable. */
	InitializeProcThreadAttributeList(NULL, 1, 0, &asize);
	si.lpAttributeList = xcalloc(1, asize);
	if (!InitializeProcThreadAttributeList(si.lpAttributeList, 1, 0, &asize) ||
	    (nlist > 0 &&
		!UpdateProcThreadAttribute(si.lpAttributeList, 0,
		    PROC_THREAD_ATTRIBUTE_HANDLE_LIST, list, nlist * sizeof(HANDLE), NULL,
		    NULL))) {
		fail_last("the handle list");
		goto out;
	}
	line = command_line(sp->argv);
	cmd = W(line);
	app = find_program(sp->argv[0], sp->path);
	env = sp->env != NULL ? env_block(sp->env) : NULL;
	cwd = sp->cwd != NULL ? W(sp->cwd) : NULL;
	/* Suspended until it is in the job: nothing it starts can escape the job. */
	if (!CreateProcessAsUserW(token, app, cmd, NULL, NULL, nlist > 0,
		CREATE_SUSPENDED | CREATE_UNICODE_ENVIRONMENT | EXTENDED_STARTUPINFO_PRESENT,
		env, cwd, &si.StartupInfo, &pi)) {
		DWORD e = GetLastError();

		start_error = start_kind(e);
		fail_code(e, "CreateProcessAsUserW %s", sp->argv[0]);
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
	ended = wait_watch(pi.hProcess, sp->watch_pid, sp->watch_start, 0) == WAIT_WATCH_ENDED;
	if (ended)
		TerminateJobObject(job, 1);
	rc = process_status(pi.hProcess, ended, status);
out:
	process_info_close(&pi);
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
wa_run_as_user(const char *user, const char *password, const struct wa_spawn *sp, int *status,
    enum wa_logon *why)
{
	STARTUPINFOW si = { 0 };
	PROCESS_INFORMATION pi = { 0 };
	HANDLE list[3];
	DWORD nlist, e;
	wchar_t *wu = W(user), *wpw = W(password), *app = W(sp->argv[0]), *cmd, *cwd;
	char *line = command_line(sp->argv);
	int rc = -1, ended, w;

	*why = WA_LOGON_OK;
	si.cb = sizeof(si);
	std_handles(&si, list, &nlist);
	cmd = W(line);
	cwd = sp->cwd != NULL ? W(sp->cwd) : NULL;
	/* The account's own profile environment (lpEnvironment NULL): none of ours. */
	if (!CreateProcessWithLogonW(wu, L".", wpw, LOGON_WITH_PROFILE, app, cmd,
		CREATE_UNICODE_ENVIRONMENT | CREATE_NO_WINDOW, NULL, cwd, &si, &pi)) {
		e = GetLastError();
		*why = e == ERROR_SERVICE_DISABLED      ? WA_LOGON_SECLOGON_DISABLED
		    : e == ERROR_SERVICE_DOES_NOT_EXIST ? WA_LOGON_SECLOGON_MISSING
							: WA_LOGON_FAILED;
		fail_code(e, "CreateProcessWithLogonW %s", user);
		goto out;
	}
	w = wait_watch(pi.hProcess, sp->watch_pid, sp->watch_start, 1);
	ended = w == WAIT_WATCH_ENDED;
	if (w == WAIT_CTRL) {
		/* The runner has no console to get the Ctrl-C from: it ends as a program
		 * without a handler would, its job with it, and the command with the job. */
		TerminateProcess(pi.hProcess, (UINT)STATUS_CONTROL_C_EXIT);
		WaitForSingleObject(pi.hProcess, INFINITE);
	}
	if (ended) {
		/* The runner's job goes with it, and the command with the job. */
		TerminateProcess(pi.hProcess, 1);
		WaitForSingleObject(pi.hProcess, INFINITE);
	}
	rc = process_status(pi.hProcess, ended, status);
out:
	process_info_close(&pi);
	free(wu);
	free_secret(wpw);
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
	char *params = command_line(argv + 1);
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

#endif /* _WIN32 */
